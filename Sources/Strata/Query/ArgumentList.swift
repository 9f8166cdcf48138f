/// Arguments of raw SQL as they are bound: an array or a set passed for one `?` expands to that many
/// placeholders, so `WHERE id IN (?)` with `[1, 2, 3]` runs `WHERE id IN (?, ?, ?)` (an empty one
/// becomes `NULL`, which matches nothing). To bind a collection as one JSON value, wrap it in
/// ``JSONText``.
enum ArgumentList {
    /// `sql` and `arguments` with every collection argument expanded; unchanged (no copy) when there is
    /// none. Throws when a collection meets a numbered or named parameter, or holds values that cannot
    /// bind one by one.
    static func expand(_ sql: String, _ arguments: [any ColumnValue]) throws -> (String, [any ColumnValue]) {
        guard arguments.contains(where: { $0 is any ListArgument }) else { return (sql, arguments) }
        var lists: [Int: [any ColumnValue]] = [:]
        for (index, argument) in arguments.enumerated() {
            guard let list = argument as? any ListArgument else { continue }
            guard let elements = list.boundElements else {
                throw DatabaseError(code: .misuse, message: "argument \(index + 1) is a collection of \(list.elementTypeName), which cannot bind one value per placeholder; wrap it in JSONText(...) to bind it as JSON", sql: sql)
            }
            lists[index] = elements
        }
        var result = ""
        var expanded: [any ColumnValue] = []
        var parameter = 0
        var quote: Character?
        var index = sql.startIndex
        while index < sql.endIndex {
            let character = sql[index]
            let next = sql.index(after: index)
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" || character == "`" || character == "[" {
                quote = character == "[" ? "]" : character
            } else if character == "?" || character == ":" || character == "@" || (character == "$" && next < sql.endIndex && sql[next].isLetter) {
                if character != "?" || (next < sql.endIndex && sql[next].isNumber) {
                    throw DatabaseError(code: .misuse, message: "a collection argument expands only plain `?` placeholders, not numbered or named ones", sql: sql)
                }
                if parameter < arguments.count {
                    if let elements = lists[parameter] {
                        result += elements.isEmpty ? "NULL" : Array(repeating: "?", count: elements.count).joined(separator: ", ")
                        expanded += elements
                    } else {
                        result.append("?")
                        expanded.append(arguments[parameter])
                    }
                } else {
                    result.append("?")
                }
                parameter += 1
                index = next
                continue
            }
            result.append(character)
            index = next
        }
        return (result, expanded)
    }
}

/// A collection that binds as a list of values (see ``ArgumentList``).
protocol ListArgument {
    /// The elements, each bindable; nil when some element is not a ``ColumnValue``.
    var boundElements: [any ColumnValue]? { get }
    var elementTypeName: String { get }
}

extension Array: ListArgument {
    var boundElements: [any ColumnValue]? {
        var values: [any ColumnValue] = []
        values.reserveCapacity(count)
        for element in self {
            guard let value = element as? any ColumnValue else { return nil }
            values.append(value)
        }
        return values
    }
    var elementTypeName: String { "\(Element.self)" }
}

extension Set: ListArgument {
    var boundElements: [any ColumnValue]? { Array(self).boundElements }
    var elementTypeName: String { "\(Element.self)" }
}

/// A `Codable` value bound as one JSON text argument — the explicit spelling for an array or a set
/// meant as JSON (bare, they expand into one placeholder per element).
///
/// ```swift
/// try db.execute("INSERT INTO post(tags) VALUES (?)", JSONText(["swift", "sqlite"]))   // '["swift","sqlite"]'
/// try db.objects(Post.self, where: "id IN (?)", [1, 2, 3])                            // IN (?, ?, ?)
/// ```
public struct JSONText<Value: Codable & Sendable>: ColumnValue, Sendable {
    /// The wrapped value.
    ///
    /// ```swift
    /// JSONText([1, 2]).value  // [1, 2]
    /// ```
    public var value: Value

    /// Wraps `value`.
    ///
    /// ```swift
    /// JSONText(["a": 1])
    /// ```
    public init(_ value: Value) {
        self.value = value
    }

    /// JSON is text.
    ///
    /// ```swift
    /// JSONText<[Int]>.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }

    /// The JSON text, keys sorted.
    ///
    /// ```swift
    /// try JSONText([1, 2]).sqlValue  // .text("[1,2]")
    /// ```
    public var sqlValue: SQLValue { get throws { try JSONCoding.encode(value) } }

    /// Decodes JSON text.
    ///
    /// ```swift
    /// try JSONText<[Int]>(sqlValue: .text("[1,2]")).value  // [1, 2]
    /// ```
    public init(sqlValue: SQLValue) throws {
        value = try JSONCoding.decode(Value.self, from: sqlValue)
    }
}
