/// The key of a row of a model with a composite primary key (``ModelDeclaration/compositeKey``): its
/// values in the order the model declares them.
///
/// ```swift
/// final class PostTag: Model {
///     static let tableName = "post_tags"
///     static let compositeKey = ["post_id", "tag_id"]
///     var post_id: Int64 = 0
///     var tag_id: Int64 = 0
///     required init() {}
/// }
/// let link = try db.object(PostTag.self, forKey: CompositeKey(1, 2))
/// ```
///
/// Inside the library a composite key travels as one value, `.text("(1, 'orm')")`: each part spelled as
/// an SQL literal, so that two different keys never share a spelling. That is also how errors show it.
public struct CompositeKey: ColumnValue, Hashable, Sendable, CustomStringConvertible {
    /// The key's values, in the model's ``ModelDeclaration/compositeKey`` order.
    ///
    /// ```swift
    /// CompositeKey(1, "orm").values  // [.integer(1), .text("orm")]
    /// ```
    public let values: [SQLValue]

    /// A key from its parts, in the order the model declares them.
    ///
    /// ```swift
    /// let key = CompositeKey(note.id, "urgent")
    /// ```
    public init(_ parts: any ColumnValue...) throws {
        values = try parts.map { try $0.sqlValue }
    }

    /// A key from its values.
    ///
    /// ```swift
    /// let key = CompositeKey(values: [.integer(1), .text("orm")])
    /// ```
    public init(values: [SQLValue]) {
        self.values = values
    }

    /// Stored as text, not in a column of its own.
    ///
    /// ```swift
    /// CompositeKey.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }

    /// The key's one-value spelling: `.text("(1, 'orm')")`.
    ///
    /// ```swift
    /// try CompositeKey(1, "orm").sqlValue  // .text("(1, 'orm')")
    /// ```
    public var sqlValue: SQLValue { .text(description) }

    /// `(1, 'orm')`.
    ///
    /// ```swift
    /// print(try CompositeKey(1, "orm"))
    /// ```
    public var description: String { "(" + values.map(SQL.literal).joined(separator: ", ") + ")" }

    /// Reads the spelling ``sqlValue`` makes; anything else throws.
    ///
    /// ```swift
    /// try CompositeKey(sqlValue: .text("(1, 'orm')")).values  // [.integer(1), .text("orm")]
    /// ```
    public init(sqlValue: SQLValue) throws {
        guard case .text(let text) = sqlValue, let values = CompositeKey.parse(text) else {
            throw ValueConversionError(expected: CompositeKey.self, found: sqlValue, reason: "not a composite key such as (1, 'orm')")
        }
        self.values = values
    }

    /// The values of `(literal, literal, ...)` as ``SQL/literal(_:)`` writes them; nil when it is not one.
    /// Walks UTF-8 bytes, not Characters: a text part beginning with a combining mark ("\u{0301}x")
    /// would otherwise merge with its opening quote into one grapheme.
    static func parse(_ text: String) -> [SQLValue]? {
        let bytes = Array(text.utf8)
        let quote = UInt8(ascii: "'"), comma = UInt8(ascii: ",")
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "("), bytes[bytes.count - 1] == UInt8(ascii: ")") else { return nil }
        var index = 1
        let end = bytes.count - 1
        var values: [SQLValue] = []
        while index < end {
            if bytes[index] == quote {
                // A string: up to the quote that is not doubled.
                var body: [UInt8] = [], closed = false
                index += 1
                while index < end {
                    if bytes[index] == quote {
                        if index + 1 < end, bytes[index + 1] == quote { body.append(quote); index += 2; continue }
                        index += 1
                        closed = true
                        break
                    }
                    body.append(bytes[index])
                    index += 1
                }
                guard closed else { return nil }
                values.append(.text(String(decoding: body, as: UTF8.self)))
            } else {
                var stop = index
                while stop < end, bytes[stop] != comma { stop += 1 }
                let literal = String(decoding: bytes[index..<stop], as: UTF8.self)
                index = stop
                if literal == "NULL" {
                    values.append(.null)
                } else if literal.hasPrefix("X'"), literal.hasSuffix("'"), literal.utf8.count >= 3 {
                    let hex = Array(literal.utf8.dropFirst(2).dropLast())
                    guard hex.count % 2 == 0 else { return nil }
                    var blob: [UInt8] = []
                    for i in stride(from: 0, to: hex.count, by: 2) {
                        guard let byte = UInt8(String(decoding: hex[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
                        blob.append(byte)
                    }
                    values.append(.blob(Data(blob)))
                } else if let integer = Int64(literal) {
                    values.append(.integer(integer))
                } else if let real = Double(literal) {
                    values.append(.real(real))
                } else {
                    return nil
                }
            }
            if index + 1 < end, bytes[index] == comma, bytes[index + 1] == UInt8(ascii: " ") {
                index += 2
            } else if index < end {
                return nil
            }
        }
        return values
    }
}

/// The key of a composite-key model as one value (``CompositeKey``): loads and stores every part.
final class CompositeKeyIO: AnyFieldIO {
    let parts: [FieldAccessor]

    init(parts: [FieldAccessor]) { self.parts = parts }

    override func load(_ object: ModelObject) throws -> SQLValue {
        CompositeKey(values: try parts.map { try $0.load(object) }).sqlValue
    }

    override func store(_ value: SQLValue, into object: ModelObject) throws {
        let key = try CompositeKey(sqlValue: value)
        guard key.values.count == parts.count else {
            throw ValueConversionError(expected: CompositeKey.self, found: value, reason: "\(parts.count) values expected")
        }
        for (part, value) in zip(parts, key.values) { try part.store(value, into: object) }
    }
}

import Foundation
