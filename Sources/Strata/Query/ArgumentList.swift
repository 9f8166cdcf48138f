/// Arguments of raw SQL as they are bound: an array or a set passed for one `?` expands to that many
/// placeholders, so `WHERE id IN (?)` with `[1, 2, 3]` runs `WHERE id IN (?, ?, ?)` (an empty one
/// becomes `NULL`, which matches nothing); past the connection's variable limit, a list that is all of an
/// `IN (?)` binds as one JSON array read through `json_each`. To bind a collection as one JSON value, wrap
/// it in ``JSONText``.
enum ArgumentList {
    /// `sql` and `arguments` with every collection argument expanded; unchanged (no copy) when there is
    /// none. Throws when a collection meets a numbered or named parameter, or holds values that cannot
    /// bind one by one.
    ///
    /// With `jsonPast` (the connection's variable limit, when it has JSON functions), a result with more
    /// arguments than that binds each list that is the whole of an `IN (?)` as one JSON array
    /// (``SQL/inList(_:asJSON:)``) instead.
    static func expand(_ sql: String, _ arguments: [any ColumnValue], jsonPast limit: Int? = nil) throws -> (String, [any ColumnValue]) {
        let spread = try expand(sql, arguments, listsAsJSON: false)
        guard let limit, spread.1.count > limit, spread.1.count > arguments.count else { return spread }
        return try expand(sql, arguments, listsAsJSON: true)
    }

    private static func expand(_ sql: String, _ arguments: [any ColumnValue], listsAsJSON: Bool) throws -> (String, [any ColumnValue]) {
        guard arguments.contains(where: { $0 is any ListArgument }) else { return (sql, arguments) }
        var lists: [Int: [any ColumnValue]] = [:]
        for (index, argument) in arguments.enumerated() {
            guard let list = argument as? any ListArgument else { continue }
            guard let elements = list.boundElements else {
                throw DatabaseError(code: .misuse, message: "argument \(index + 1) is a collection of \(list.elementTypeName), which cannot bind one value per placeholder; wrap it in JSONText(...) to bind it as JSON", sql: sql)
            }
            lists[index] = elements
        }
        // On bytes, skipping string literals, quoted identifiers and comments: a `?` there is no parameter.
        let bytes = Array(sql.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 16)
        var expanded: [any ColumnValue] = []
        var parameter = 0
        var i = 0
        while i < bytes.count {
            if let end = SQL.endOfLiteralOrComment(bytes, at: i) {
                result += bytes[i..<end]
                i = end
                continue
            }
            let byte = bytes[i]
            let next: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
            let startsName = i == 0 || !SQL.isIdentifierByte(bytes[i - 1])
            let named = (byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || (byte == UInt8(ascii: "$") && startsName))
                && next.map(SQL.isIdentifierByte) == true
            if named || (byte == UInt8(ascii: "?") && next.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } == true) {
                throw DatabaseError(code: .misuse, message: "a collection argument expands only plain `?` placeholders, not numbered or named ones", sql: sql)
            }
            if byte == UInt8(ascii: "?") {
                if parameter < arguments.count, let elements = lists[parameter] {
                    if listsAsJSON, elements.count > 1, isWholeInList(bytes, at: i),
                       case let (list, bound) = SQL.inList(try elements.map { try $0.sqlValue }, asJSON: true), bound.count == 1 {
                        result += Array(list.utf8.dropFirst().dropLast())   // inside the clause's own parentheses
                        expanded += bound
                    } else {
                        result += elements.isEmpty ? Array("NULL".utf8) : Array(SQL.placeholders(elements.count).utf8)
                        expanded += elements
                    }
                } else {
                    result.append(byte)
                    if parameter < arguments.count { expanded.append(arguments[parameter]) }
                }
                parameter += 1
            } else {
                result.append(byte)
            }
            i += 1
        }
        // Arguments beyond the placeholders are bound too, so that binding reports the count mismatch.
        if parameter < arguments.count { expanded += arguments[parameter...] }
        return (String(decoding: result, as: UTF8.self), expanded)
    }
}

extension ArgumentList {
    /// Whether the `?` at byte `i` is all of an `IN ( ? )` list, where a subquery may stand for it.
    static func isWholeInList(_ bytes: [UInt8], at i: Int) -> Bool {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
        var after = i + 1
        while after < bytes.count, isSpace(bytes[after]) { after += 1 }
        guard after < bytes.count, bytes[after] == UInt8(ascii: ")") else { return false }
        var before = i - 1
        while before >= 0, isSpace(bytes[before]) { before -= 1 }
        guard before >= 0, bytes[before] == UInt8(ascii: "(") else { return false }
        before -= 1
        while before >= 0, isSpace(bytes[before]) { before -= 1 }
        guard before >= 1, bytes[before] | 0x20 == UInt8(ascii: "n"), bytes[before - 1] | 0x20 == UInt8(ascii: "i") else { return false }
        return before < 2 || !SQL.isIdentifierByte(bytes[before - 2])
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
