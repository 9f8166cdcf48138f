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
    /// The JSON text, with sorted object keys (dictionaries and structs store stable text; sets do not).
    ///
    /// ```swift
    /// try [1, 2].sqlValue  // .text("[1,2]")
    /// ```
    public var sqlValue: SQLValue { get throws { try JSONCoding.encode(self) } }
    /// Decodes JSON from TEXT or BLOB; invalid JSON throws, naming the decoding failure.
    ///
    /// ```swift
    /// try [Int](sqlValue: .text("[1,2]"))  // [1, 2]
    /// ```
    public init(sqlValue: SQLValue) throws { self = try JSONCoding.decode(Self.self, from: sqlValue) }
}

extension Array: ColumnValue, JSONColumnValue where Element: Codable {}
extension Dictionary: ColumnValue, JSONColumnValue where Key: Codable, Value: Codable {}
extension Set: ColumnValue, JSONColumnValue where Element: Codable {}

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

    static func decode<T: Decodable>(_ type: T.Type, from value: SQLValue) throws -> T {
        let data: Data
        switch value {
        case .text(let s): data = Data(s.utf8)
        case .blob(let d): data = d
        default:
            throw ValueConversionError(expected: T.self, found: value,
                                       reason: value.isNull ? "NULL in a non-optional value" : "JSON must be TEXT or BLOB")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ValueConversionError(expected: T.self, found: value, reason: "invalid JSON: \(error)")
        }
    }
}
