import Foundation

/// A relationship encodes as its stored key (what the column holds: a number, text, or null), so a model
/// with `@Reference` properties keeps its synthesized `Codable`. Decoding restores the key; the related
/// object loads on first read once the decoded instance is attached to a database (saved or merged).
///
/// ```swift
/// final class Employee: Model, Codable {
///     var id: Int64 = 0
///     @Reference var department: Department?
///     required init() {}
/// }
/// let json = try JSONEncoder().encode(employee)   // {"id":1,"department":3}
/// ```
extension Reference: Codable {
    /// Decodes the stored key, in the related key's canonical form (`"3"` for an integer key is 3; a UUID
    /// in any spelling is its lowercase dashed text), as a key read from a row is.
    ///
    /// ```swift
    /// try JSONDecoder().decode(Employee.self, from: json)
    /// ```
    public init(from decoder: any Decoder) throws {
        self.init()
        let key = try SQLValue(from: decoder)
        state.key = (try? ModelMetadata.of(Related.self))?.keyForm.canonical(key) ?? key
    }

    /// Encodes the stored key (null while the related object was never saved).
    /// ```swift
    /// try JSONEncoder().encode(employee)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        try currentKey.encode(to: encoder)
    }
}

/// A value encodes as itself: a number, text, null; bytes as the encoder encodes `Data` (base64 in JSON).
///
/// ```swift
/// try JSONEncoder().encode([SQLValue.integer(1), .text("a"), .null])   // [1,"a",null]
/// ```
extension SQLValue: Codable {
    /// Decodes null, an integer, a double, text or bytes, in that order of preference.
    /// ```swift
    /// try JSONDecoder().decode(SQLValue.self, from: Data("3".utf8))  // .integer(3)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .real(value) }
        else if let value = try? container.decode(String.self) { self = .text(value) }
        else { self = .blob(try container.decode(Data.self)) }
    }

    /// Encodes the value in its own kind.
    ///
    /// ```swift
    /// try JSONEncoder().encode(SQLValue.real(1.5))
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .blob(let value): try container.encode(value)
        }
    }
}
