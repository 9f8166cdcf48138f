import Foundation

/// A `Codable` value stored as JSON text. Conform any Codable type to store it in one column:
///
/// ```swift
/// struct Address: Codable, JSONColumnValue { var city: String }
/// ```
///
/// Arrays and dictionaries of Codable values conform already, and model properties of any other
/// Codable type are stored as JSON too.
public protocol JSONColumnValue: ColumnValue, Codable {}

extension JSONColumnValue {
    /// JSON is stored in `TEXT` columns.
    ///
    /// ```swift
    /// Address.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }
    /// The JSON text, with sorted object keys, so that equal dictionaries and structs store the same text
    /// (a `Set` property stores its elements in order of their JSON text; a set nested in a struct does not).
    ///
    /// ```swift
    /// try [1, 2].sqlValue  // .text("[1,2]")
    /// ```
    public var sqlValue: SQLValue { get throws { try JSONCoding.encode(self) } }
    /// Decodes JSON from TEXT or BLOB (or a number a NUMERIC column made of a JSON number); invalid JSON
    /// throws, naming the decoding failure.
    ///
    /// ```swift
    /// try [Int](sqlValue: .text("[1,2]"))  // [1, 2]
    /// ```
    public init(sqlValue: SQLValue) throws { self = try JSONCoding.decode(Self.self, from: sqlValue) }
}

extension Array: ColumnValue, JSONColumnValue where Element: Codable {}
extension Dictionary: ColumnValue, JSONColumnValue where Key: Codable, Value: Codable {}
extension Set: ColumnValue, JSONColumnValue where Element: Codable {}

extension Dictionary where Key: Codable, Value: Codable {
    /// A JSON object with sorted keys for `String` and `Int` keys; for other keys (UUIDs, say) the encoder's
    /// array `[key, value, key, value, …]`, with its pairs in the order of the keys' JSON text. The encoder
    /// writes those pairs in the dictionary's iteration order, which Swift makes different for every
    /// dictionary instance (see `Set.sqlValue`).
    ///
    /// ```swift
    /// try [UUID(): 1].sqlValue  // .text(#"["0F8FAD5B-…",1]"#)
    /// ```
    public var sqlValue: SQLValue {
        get throws {
            let encoded = try JSONCoding.encode(self)
            guard case .text(let text) = encoded, text.hasPrefix("[") else { return encoded }
            let pairs = try map { (try JSONCoding.text($0.key), try JSONCoding.text($0.value)) }
                .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            return .text("[" + pairs.map { $0.0 + "," + $0.1 }.joined(separator: ",") + "]")
        }
    }
}

extension Set where Element: Codable {
    /// A JSON array of the elements in the order of their own JSON texts. Swift gives each set instance an
    /// iteration order of its own, so the encoder's text of two equal sets differs: a set read again from
    /// its row (a refresh) would count as changed, and an unchanged save would rewrite the column.
    ///
    /// ```swift
    /// try Set(["b", "a"]).sqlValue  // .text(#"["a","b"]"#)
    /// ```
    public var sqlValue: SQLValue {
        get throws {
            let texts = try map { try JSONCoding.text($0) }
            return .text("[" + texts.sorted().joined(separator: ",") + "]")
        }
    }
}

/// JSON encoding shared by ``JSONColumnValue`` and reflected Codable properties.
enum JSONCoding {
    static func encode<T: Encodable>(_ value: T) throws -> SQLValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch {
            throw ValueConversionError(expected: T.self, found: .null, reason: "cannot encode as JSON: \(error)")
        }
    }

    /// The JSON text of one value (a fragment: a string, a number, an array, an object).
    static func text<T: Encodable>(_ value: T) throws -> String {
        guard case .text(let text) = try encode(value) else { return "null" }
        return text
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: SQLValue) throws -> T {
        let data: Data
        switch value {
        case .text(let s): data = Data(s.utf8)
        case .blob(let d): data = d
        // A JSON number in a column of NUMERIC affinity (SQLAlchemy's `JSON`), which stores it as one.
        case .integer(let v): data = Data(String(v).utf8)
        case .real(let d) where d.isFinite: data = Data("\(d)".utf8)
        default:
            throw ValueConversionError(expected: T.self, found: value,
                                       reason: value.isNull ? "NULL in a non-optional value" : "JSON must be TEXT, BLOB or a number")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ValueConversionError(expected: T.self, found: value, reason: "invalid JSON: \(error)")
        }
    }
}
