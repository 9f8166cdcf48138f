// Key-path conditions on text (contains, prefixes, suffixes, collated comparisons) and the options of an
// order (collation, NULLS FIRST/LAST).

/// A collating sequence for text comparisons and orders.
///
/// ```swift
/// try db.objects(Person.self, where: (\.name).equals("ada", collate: .nocase), orderBy: .ascending(\.name, collate: .nocase))
/// ```
public enum TextCollation: String, Sendable {
    /// Byte by byte (SQLite's default).
    ///
    /// ```swift
    /// .binary
    /// ```
    case binary = "BINARY"
    /// ASCII letters without case (`'ada' = 'ADA'`; `'é'` and `'É'` still differ).
    ///
    /// ```swift
    /// .nocase
    /// ```
    case nocase = "NOCASE"
    /// Trailing spaces ignored.
    ///
    /// ```swift
    /// .rtrim
    /// ```
    case rtrim = "RTRIM"
}

/// Where NULLs go in an order.
///
/// ```swift
/// orderBy: .ascending(\.email, nulls: .last)
/// ```
public enum NullsOrder: String, Sendable {
    /// Before every value.
    ///
    /// ```swift
    /// .first
    /// ```
    case first = "FIRST"
    /// After every value.
    ///
    /// ```swift
    /// .last
    /// ```
    case last = "LAST"
}

extension QueryOrder {
    /// Ascending by a property, with a collation and where NULLs go (SQLite puts them first by default).
    ///
    /// ```swift
    /// .ascending(\.name, collate: .nocase, nulls: .last)
    /// ```
    public static func ascending<Value>(_ keyPath: KeyPath<Root, Value>, collate: TextCollation? = nil, nulls: NullsOrder?) -> QueryOrder {
        QueryOrder(terms: [(KeyPathTerm(keyPath), false)], options: [OrderOptions(collation: collate, nulls: nulls)])
    }

    /// Ascending by a property under a collation.
    ///
    /// ```swift
    /// .ascending(\.name, collate: .nocase)
    /// ```
    public static func ascending<Value>(_ keyPath: KeyPath<Root, Value>, collate: TextCollation) -> QueryOrder {
        QueryOrder(terms: [(KeyPathTerm(keyPath), false)], options: [OrderOptions(collation: collate)])
    }

    /// Descending by a property, with a collation and where NULLs go (SQLite puts them last by default).
    ///
    /// ```swift
    /// .descending(\.joined, nulls: .first)
    /// ```
    public static func descending<Value>(_ keyPath: KeyPath<Root, Value>, collate: TextCollation? = nil, nulls: NullsOrder?) -> QueryOrder {
        QueryOrder(terms: [(KeyPathTerm(keyPath), true)], options: [OrderOptions(collation: collate, nulls: nulls)])
    }

    /// Descending by a property under a collation.
    ///
    /// ```swift
    /// .descending(\.name, collate: .nocase)
    /// ```
    public static func descending<Value>(_ keyPath: KeyPath<Root, Value>, collate: TextCollation) -> QueryOrder {
        QueryOrder(terms: [(KeyPathTerm(keyPath), true)], options: [OrderOptions(collation: collate)])
    }
}

/// A text match: `LIKE` with `\` escaping `%`, `_` and `\` (ASCII case-insensitive, as SQLite's LIKE is),
/// or, case-sensitive, `instr`/`substr` (byte-exact).
struct TextMatch {
    enum Kind { case contains, prefix, suffix }
    let term: KeyPathTerm
    let kind: Kind
    let text: String
    let caseSensitive: Bool

    /// `text` as a LIKE pattern: its `\`, `%` and `_` escaped by `\`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    func render(_ registry: TypeRegistry, _ arguments: inout [SQLValue]) throws -> String {
        let column = try term.column(registry).0
        guard !text.isEmpty else { return "\(column) IS NOT NULL" }
        if !caseSensitive {
            let pattern = Self.escaped(text)
            switch kind {
            case .contains: arguments.append(.text("%" + pattern + "%"))
            case .prefix: arguments.append(.text(pattern + "%"))
            case .suffix: arguments.append(.text("%" + pattern))
            }
            return "\(column) LIKE ? ESCAPE '\\'"
        }
        // SQLite's substr counts characters as code points: Unicode scalars.
        let length = Int64(text.unicodeScalars.count)
        switch kind {
        case .contains:
            arguments.append(.text(text))
            return "instr(\(column), ?) > 0"
        case .prefix:
            arguments += [.integer(length), .text(text)]
            return "substr(\(column), 1, ?) = ?"
        case .suffix:
            arguments += [.integer(-length), .text(text)]
            return "substr(\(column), ?) = ?"
        }
    }
}

/// Text conditions on a `String` property.
extension KeyPath where Root: Model, Value == String {
    /// Rows whose text contains `text`: `LIKE '%text%' ESCAPE '\'` (`%`, `_` and `\` in `text` match
    /// themselves). LIKE ignores the case of ASCII letters only (`'ADA'` contains `"da"`, `'É'` does not
    /// contain `"é"`); `caseSensitive: true` compares bytes (`instr`).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.name).contains("50%"))
    /// ```
    public func contains(_ text: String, caseSensitive: Bool = false) -> QueryCondition<Root> {
        QueryCondition(node: .custom(TextMatch(term: KeyPathTerm(self), kind: .contains, text: text, caseSensitive: caseSensitive).render))
    }

    /// Rows whose text starts with `text` (`LIKE 'text%' ESCAPE '\'`; the case rules of ``contains(_:caseSensitive:)``).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.name).hasPrefix("Ad"))
    /// ```
    public func hasPrefix(_ text: String, caseSensitive: Bool = false) -> QueryCondition<Root> {
        QueryCondition(node: .custom(TextMatch(term: KeyPathTerm(self), kind: .prefix, text: text, caseSensitive: caseSensitive).render))
    }

    /// Rows whose text ends with `text` (`LIKE '%text' ESCAPE '\'`; the case rules of ``contains(_:caseSensitive:)``).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.email).hasSuffix("@example.com"))
    /// ```
    public func hasSuffix(_ text: String, caseSensitive: Bool = false) -> QueryCondition<Root> {
        QueryCondition(node: .custom(TextMatch(term: KeyPathTerm(self), kind: .suffix, text: text, caseSensitive: caseSensitive).render))
    }

    /// Rows whose text equals `text` under `collate` (`= ? COLLATE NOCASE`).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.name).equals("ada", collate: .nocase))
    /// ```
    public func equals(_ text: String, collate: TextCollation) -> QueryCondition<Root> {
        let term = KeyPathTerm(self)
        return QueryCondition(node: .custom { registry, arguments in
            arguments.append(.text(text))
            return "\(try term.column(registry).0) = ? COLLATE \(collate.rawValue)"
        })
    }
}

/// Text conditions on an optional `String` property (NULL matches none of them).
extension KeyPath where Root: Model, Value == String? {
    /// Rows whose text contains `text` (see the `String` form).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.nickname).contains("x"))
    /// ```
    public func contains(_ text: String, caseSensitive: Bool = false) -> QueryCondition<Root> {
        QueryCondition(node: .custom(TextMatch(term: KeyPathTerm(self), kind: .contains, text: text, caseSensitive: caseSensitive).render))
    }

    /// Rows whose text starts with `text` (see the `String` form).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.nickname).hasPrefix("A"))
    /// ```
    public func hasPrefix(_ text: String, caseSensitive: Bool = false) -> QueryCondition<Root> {
        QueryCondition(node: .custom(TextMatch(term: KeyPathTerm(self), kind: .prefix, text: text, caseSensitive: caseSensitive).render))
    }

    /// Rows whose text ends with `text` (see the `String` form).
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.nickname).hasSuffix("y"))
    /// ```
    public func hasSuffix(_ text: String, caseSensitive: Bool = false) -> QueryCondition<Root> {
        QueryCondition(node: .custom(TextMatch(term: KeyPathTerm(self), kind: .suffix, text: text, caseSensitive: caseSensitive).render))
    }

    /// Rows whose text equals `text` under `collate`.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: (\.nickname).equals("ada", collate: .nocase))
    /// ```
    public func equals(_ text: String, collate: TextCollation) -> QueryCondition<Root> {
        let term = KeyPathTerm(self)
        return QueryCondition(node: .custom { registry, arguments in
            arguments.append(.text(text))
            return "\(try term.column(registry).0) = ? COLLATE \(collate.rawValue)"
        })
    }
}

/// The same conditions written from the condition's side, where the model is inferred from the call
/// (`(\.name).contains(…)` needs the root spelled: `(\Person.name).contains(…)`).
extension QueryCondition {
    /// `KeyPath.contains(_:caseSensitive:)` with the root inferred.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .contains(\.name, "50%"))
    /// ```
    public static func contains(_ keyPath: KeyPath<Root, String>, _ text: String, caseSensitive: Bool = false) -> QueryCondition {
        keyPath.contains(text, caseSensitive: caseSensitive)
    }

    /// Contains, on an optional text.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .contains(\.email, "@example"))
    /// ```
    public static func contains(_ keyPath: KeyPath<Root, String?>, _ text: String, caseSensitive: Bool = false) -> QueryCondition {
        keyPath.contains(text, caseSensitive: caseSensitive)
    }

    /// `KeyPath.hasPrefix(_:caseSensitive:)` with the root inferred.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .hasPrefix(\.name, "Ad"))
    /// ```
    public static func hasPrefix(_ keyPath: KeyPath<Root, String>, _ text: String, caseSensitive: Bool = false) -> QueryCondition {
        keyPath.hasPrefix(text, caseSensitive: caseSensitive)
    }

    /// Has a prefix, on an optional text.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .hasPrefix(\.email, "ada"))
    /// ```
    public static func hasPrefix(_ keyPath: KeyPath<Root, String?>, _ text: String, caseSensitive: Bool = false) -> QueryCondition {
        keyPath.hasPrefix(text, caseSensitive: caseSensitive)
    }

    /// `KeyPath.hasSuffix(_:caseSensitive:)` with the root inferred.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .hasSuffix(\.name, "son"))
    /// ```
    public static func hasSuffix(_ keyPath: KeyPath<Root, String>, _ text: String, caseSensitive: Bool = false) -> QueryCondition {
        keyPath.hasSuffix(text, caseSensitive: caseSensitive)
    }

    /// Has a suffix, on an optional text.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .hasSuffix(\.email, "@example.com"))
    /// ```
    public static func hasSuffix(_ keyPath: KeyPath<Root, String?>, _ text: String, caseSensitive: Bool = false) -> QueryCondition {
        keyPath.hasSuffix(text, caseSensitive: caseSensitive)
    }

    /// `KeyPath.equals(_:collate:)` with the root inferred.
    ///
    /// ```swift
    /// try db.objects(Person.self, where: .equals(\.name, "ada", collate: .nocase))
    /// ```
    public static func equals(_ keyPath: KeyPath<Root, String>, _ text: String, collate: TextCollation) -> QueryCondition {
        keyPath.equals(text, collate: collate)
    }

    /// A reference among `objects` (`KeyPath.in(_:)`) with the root inferred.
    ///
    /// ```swift
    /// try db.objects(Book.self, where: .in(\.author, [tolkien, lewis]))
    /// ```
    public static func `in`<Related: Model>(_ keyPath: KeyPath<Root, Related?>, _ objects: [Related]) -> QueryCondition {
        keyPath.in(objects)
    }
}
