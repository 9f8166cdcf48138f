import Foundation

/// A type-checked condition on a model's properties, written with key paths and compiled to the same
/// SQL a string clause would be: columns through the model's column names, values bound (in the
/// column's stored format), never spliced.
///
/// ```swift
/// let adults = try db.objects(Employee.self, where: \.age >= 18 && \.name != "", orderBy: .ascending(\.name))
/// let some = try db.objects(Employee.self, where: (\.employeeId).in([1, 2, 3]) || \.email == nil)
/// let count = try db.count(Employee.self, where: !(\.age < 30))
/// ```
///
/// Raw SQL stays first-class: anything this cannot say, a string clause can.
public struct QueryCondition<Root: Model> {
    indirect enum Node {
        case compare(KeyPathTerm, String, any ColumnValue)
        case isNull(KeyPathTerm, Bool)
        case list(KeyPathTerm, [any ColumnValue])
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        /// A condition rendered by its own code (references, text matches, subqueries: see
        /// QueryCondition+Relationships.swift and QueryCondition+Text.swift), appending its arguments.
        case custom((TypeRegistry, inout [SQLValue]) throws -> String)
    }
    let node: Node

    /// SQL and arguments for `registry` (the model's table mapping); with `listsAsJSON`, each `in` list
    /// binds as one JSON array (``SQL/inList(_:asJSON:)``), for lists past the variable limit.
    func sql(_ registry: TypeRegistry, listsAsJSON: Bool = false) throws -> (String, [SQLValue]) {
        var arguments: [SQLValue] = []
        func render(_ node: Node) throws -> String {
            switch node {
            case .compare(let term, let op, let value):
                let (column, format) = try term.comparedColumn(registry)
                if format == .native, let range = FloatRange.of(value) { return range.sql(column, op, &arguments) }
                // (A PostgreSQL array of text compares as the array its stored text spells.)
                if let json = term.json, op == "=" || op == "<>", format != .textArray {
                    arguments.append(JSONCanonical.argument(try term.locating(registry) { try value.sqlValue }, sortingArray: json.sortsArray))
                    return "\(json.compared(column, registry.table)) \(op) \(json.placeholder(registry.table))"
                }
                // As one value (an array compares as its JSON, never expands), in the stored format.
                arguments.append(try term.locating(registry) { format == .native ? try value.sqlValue : try format.stored(value.sqlValue) })
                return "\(column) \(op) ?"
            case .isNull(let term, let isNull):
                if term.json != nil, try term.column(registry).1 != .textArray {
                    // Other tools write the JSON text `null` for none too (pitfall 7), which reads as nil.
                    let column = try term.column(registry).0
                    return isNull ? "(\(column) IS NULL OR \(column) = 'null')" : "(\(column) IS NOT NULL AND \(column) <> 'null')"
                }
                return "\(try term.column(registry).0) IS \(isNull ? "" : "NOT ")NULL"
            case .list(let term, let values):
                let (column, format) = try term.comparedColumn(registry)
                guard !values.isEmpty else { return "1 = 0" }   // (false on every engine: PostgreSQL refuses a bare 0)
                if let json = term.json, format != .textArray {
                    arguments += try term.locating(registry) { try values.map { JSONCanonical.argument(try $0.sqlValue, sortingArray: json.sortsArray) } }
                    return "\(json.compared(column, registry.table)) IN (\(Array(repeating: json.placeholder(registry.table), count: values.count).joined(separator: ", ")))"
                }
                if format == .native, values.contains(where: { FloatRange.of($0) != nil }) {
                    // Floats as the ranges of REALs that read back as them (``FloatRange``).
                    return try "(" + values.map { try render(.compare(term, "=", $0)) }.joined(separator: " OR ") + ")"
                }
                let stored = try term.locating(registry) {
                    try values.map { format == .native ? try $0.sqlValue : try format.stored($0.sqlValue) }
                }
                let (list, bound) = SQL.inList(stored, asJSON: listsAsJSON)
                arguments += bound
                return "\(column) IN \(list)"
            case .and(let a, let b): return "(\(try render(a)) AND \(try render(b)))"
            case .or(let a, let b): return "(\(try render(a)) OR \(try render(b)))"
            case .not(let a): return "NOT (\(try render(a)))"
            case .custom(let render): return try render(registry, &arguments)
            }
        }
        return (try render(node), arguments)
    }
}

/// A key path of a condition, resolved to its property's column on first use.
struct KeyPathTerm {
    let keyPath: AnyKeyPath
    let resolve: (ModelMetadata) throws -> Int

    /// For a property stored as JSON: how conditions compare it (its canonical text, ``JSONCanonical``).
    let json: JSONTerm?

    struct JSONTerm {
        let sortsArray: Bool
        /// The column's canonical JSON text, which `=`, `<>` and `IN` compare with the value's; on PostgreSQL
        /// the column as `jsonb` (a set's array with its elements in `jsonb` order).
        func compared(_ column: String, _ table: TableMapping) -> String {
            guard table.comparesJSONAsJSONB else { return "\(JSONCanonical.functionName)(\(column), \(sortsArray ? 1 : 0))" }
            guard sortsArray else { return "\(column)::jsonb" }
            // (NULL, and JSON that is no array, compare as they are: a NULL matches no set.)
            return "(CASE WHEN jsonb_typeof(\(column)::jsonb) = 'array' THEN \(Self.sorted("\(column)::jsonb")) ELSE \(column)::jsonb END)"
        }

        /// The placeholder of a value compared with ``compared(_:_:)``.
        func placeholder(_ table: TableMapping) -> String {
            guard table.comparesJSONAsJSONB else { return "?" }
            return sortsArray ? Self.sorted("?::jsonb") : "?::jsonb"
        }

        /// A `jsonb` array with its elements sorted (PostgreSQL).
        private static func sorted(_ array: String) -> String {
            "(SELECT coalesce(jsonb_agg(e ORDER BY e), '[]'::jsonb) FROM jsonb_array_elements(\(array)) e)"
        }
    }

    init<Root: Model, Value>(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
        json = JSONCanonical.kind(of: Value.self).map { JSONTerm(sortsArray: $0.sortsArray) }
        resolve = { metadata in try KeyPathIndex.index(of: keyPath, metadata: metadata) }
    }

    /// The quoted column and its stored format.
    func column(_ registry: TypeRegistry) throws -> (String, ColumnFormat) {
        let index = try resolve(registry.metadata)
        return (SQL.quote(registry.table.columns[index]), registry.table.formats[index])
    }

    /// The column as comparisons and orders use it (``TableMapping/comparedColumn(_:)``: decimals held as
    /// text compare as numbers) and its stored format.
    func comparedColumn(_ registry: TypeRegistry) throws -> (String, ColumnFormat) {
        let index = try resolve(registry.metadata)
        return (registry.table.comparedColumn(index), registry.table.formats[index])
    }

    /// `body`'s result; a value that cannot be bound (a date its column cannot hold) throws naming the
    /// property.
    func locating<T>(_ registry: TypeRegistry, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ValueConversionError {
            let index = try resolve(registry.metadata)
            let name = registry.metadata.properties[index].name
            throw error.located(column: registry.table.columns[index], model: registry.metadata.typeName, property: name)
        }
    }
}

/// Which persistent property a key path names, found once per key path (see ``storedOffset(of:in:)``).
enum KeyPathIndex {
    private static let cache = Locked<[AnyKeyPath: Int]>([:])

    static func index<Root: Model, Value>(of keyPath: KeyPath<Root, Value>, metadata: ModelMetadata) throws -> Int {
        if let index = cache.withLock({ $0[keyPath] }) { return index }
        let scratch = Root()
        let offset = storedOffset(of: keyPath, in: scratch)
        let fields = FieldReflection.persistentFields(of: Root.self)
        let field = fields.first { $0.offset == offset && ObjectIdentifier($0.type) == ObjectIdentifier(Value.self) }
        // A stored field; else what ``KeyPathName`` finds (a @Reference, an @Observable model's property).
        let name = field?.name ?? KeyPathName.name(of: keyPath, in: Root.self, properties: metadata.properties)
        guard let name, let index = metadata.properties.firstIndex(where: { $0.name == name || $0.name == "_" + name || "_" + $0.name == name }) else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: "\(keyPath)",
                             "the key path does not name a persistent stored property of \(metadata.typeName) (a computed property, a `let` or a chain through another value cannot be used); use a string clause")
        }
        cache.withLock { $0[keyPath] = index }
        return index
    }
}

/// A sort order for key-path queries.
///
/// ```swift
/// orderBy: .descending(\.createdAt)
/// ```
public struct QueryOrder<Root: Model> {
    let terms: [(KeyPathTerm, Bool)]
    /// Each term's collation and NULLS placement, by term (missing: none; see QueryOrder+Options.swift).
    var options: [OrderOptions] = []

    struct OrderOptions {
        var collation: TextCollation?
        var nulls: NullsOrder?
    }

    /// Ascending by a property.
    ///
    /// ```swift
    /// .ascending(\.name)
    /// ```
    public static func ascending<Value>(_ keyPath: KeyPath<Root, Value>) -> QueryOrder {
        QueryOrder(terms: [(KeyPathTerm(keyPath), false)])
    }

    /// Descending by a property.
    ///
    /// ```swift
    /// .descending(\.age)
    /// ```
    public static func descending<Value>(_ keyPath: KeyPath<Root, Value>) -> QueryOrder {
        QueryOrder(terms: [(KeyPathTerm(keyPath), true)])
    }

    /// This order, then `other` for ties.
    ///
    /// ```swift
    /// .descending(\.age).then(.ascending(\.name))
    /// ```
    public func then(_ other: QueryOrder) -> QueryOrder {
        guard !options.isEmpty || !other.options.isEmpty else { return QueryOrder(terms: terms + other.terms) }
        let padded = options + Array(repeating: OrderOptions(), count: max(0, terms.count - options.count))
        return QueryOrder(terms: terms + other.terms, options: padded + other.options)
    }

    func sql(_ registry: TypeRegistry) throws -> String {
        try terms.enumerated().map { i, element in
            let (term, descending) = element
            let option = i < options.count ? options[i] : OrderOptions()
            // A collation applies to the text as stored, not to the numeric form decimals are compared by.
            let column = try option.collation.map { try term.column(registry).0 + " COLLATE " + $0.rawValue } ?? term.comparedColumn(registry).0
            return column + (descending ? " DESC" : "") + (option.nulls.map { " NULLS " + $0.rawValue } ?? "")
        }.joined(separator: ", ")
    }
}

// MARK: Operators

/// `property == value` (`IS NULL` for nil).
///
/// ```swift
/// \.name == "Ada"
/// ```
public func == <Root: Model, Value: ColumnValue>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryCondition<Root> {
    if (try? rhs.sqlValue)?.isNull == true { return QueryCondition(node: .isNull(KeyPathTerm(lhs), true)) }
    return QueryCondition(node: .compare(KeyPathTerm(lhs), "=", rhs))
}

/// `property != value` (`IS NOT NULL` for nil).
///
/// ```swift
/// \.email != nil
/// ```
public func != <Root: Model, Value: ColumnValue>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryCondition<Root> {
    if (try? rhs.sqlValue)?.isNull == true { return QueryCondition(node: .isNull(KeyPathTerm(lhs), false)) }
    return QueryCondition(node: .compare(KeyPathTerm(lhs), "<>", rhs))
}

/// `property < value`.
///
/// ```swift
/// \.age < 30
/// ```
public func < <Root: Model, Value: ColumnValue & Comparable>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryCondition<Root> {
    QueryCondition(node: .compare(KeyPathTerm(lhs), "<", rhs))
}

/// `property <= value`.
///
/// ```swift
/// \.age <= 30
/// ```
public func <= <Root: Model, Value: ColumnValue & Comparable>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryCondition<Root> {
    QueryCondition(node: .compare(KeyPathTerm(lhs), "<=", rhs))
}

/// `property > value`.
///
/// ```swift
/// \.age > 30
/// ```
public func > <Root: Model, Value: ColumnValue & Comparable>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryCondition<Root> {
    QueryCondition(node: .compare(KeyPathTerm(lhs), ">", rhs))
}

/// `property >= value`.
///
/// ```swift
/// \.age >= 18
/// ```
public func >= <Root: Model, Value: ColumnValue & Comparable>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryCondition<Root> {
    QueryCondition(node: .compare(KeyPathTerm(lhs), ">=", rhs))
}

/// Both conditions.
///
/// ```swift
/// \.age > 18 && \.name != ""
/// ```
public func && <Root>(lhs: QueryCondition<Root>, rhs: QueryCondition<Root>) -> QueryCondition<Root> {
    QueryCondition(node: .and(lhs.node, rhs.node))
}

/// Either condition.
///
/// ```swift
/// \.age < 18 || \.age > 65
/// ```
public func || <Root>(lhs: QueryCondition<Root>, rhs: QueryCondition<Root>) -> QueryCondition<Root> {
    QueryCondition(node: .or(lhs.node, rhs.node))
}

/// The opposite condition.
///
/// ```swift
/// !(\.name == "Ada")
/// ```
public prefix func ! <Root>(condition: QueryCondition<Root>) -> QueryCondition<Root> {
    QueryCondition(node: .not(condition.node))
}

extension KeyPath where Root: Model, Value: ColumnValue {
    /// `property IN (values…)` (an empty list matches nothing).
    ///
    /// ```swift
    /// (\Employee.employeeId).in([1, 2, 3])
    /// ```
    public func `in`(_ values: [Value]) -> QueryCondition<Root> {
        QueryCondition(node: .list(KeyPathTerm(self), values))
    }
}

// MARK: Queries

extension Database {
    /// The objects a key-path condition selects, in `orderBy` order, at most `limit` of them.
    ///
    /// ```swift
    /// let staff = try db.objects(Employee.self, where: \.age >= 18, orderBy: .ascending(\.name), limit: 20)
    /// ```
    public func objects<T: Model>(_ type: T.Type, where condition: QueryCondition<T>, orderBy order: QueryOrder<T>? = nil,
                                  limit: Int? = nil) throws -> [T] {
        let registry = try registry(for: T.self)
        let (clause, arguments) = try clause(condition, order, limit, registry)
        if let remote {
            return try remoteObjects(remote, registry: registry, sql: registry.table.selectFromSQL + " " + clause, arguments: arguments)
                .unsafelyDowncast(to: T.self)
        }
        let statement = try generatedSelect(registry, clause: clause, arguments: arguments)
        defer { statement.reset() }
        var result: [T] = []
        while try statement.step() { result.append(try object(T.self, from: statement, registry: registry)) }
        return result
    }

    /// All objects in `orderBy` order.
    ///
    /// ```swift
    /// try db.objects(Employee.self, orderBy: .descending(\.age))
    /// ```
    public func objects<T: Model>(_ type: T.Type, orderBy order: QueryOrder<T>, limit: Int? = nil) throws -> [T] {
        let registry = try registry(for: T.self)
        var clause = "ORDER BY " + (try order.sql(registry))
        if let limit { clause += " LIMIT \(limit)" }
        return try objects(type, where: clause, arguments: [])
    }

    /// The first object a key-path condition selects.
    ///
    /// ```swift
    /// try db.first(Employee.self, where: \.name == "Ada")
    /// ```
    public func first<T: Model>(_ type: T.Type, where condition: QueryCondition<T>, orderBy order: QueryOrder<T>? = nil) throws -> T? {
        let registry = try registry(for: T.self)
        let (clause, arguments) = try clause(condition, order, 1, registry)
        if let remote {
            return try remoteObjects(remote, registry: registry, sql: registry.table.selectFromSQL + " " + clause, arguments: arguments, limit: 1)
                .first.map { unsafeDowncast($0, to: T.self) }
        }
        let statement = try generatedSelect(registry, clause: clause, arguments: arguments)
        defer { statement.reset() }
        return try statement.step() ? object(T.self, from: statement, registry: registry) : nil
    }

    /// How many rows a key-path condition selects.
    ///
    /// ```swift
    /// try db.count(Employee.self, where: \.age < 30)
    /// ```
    public func count<T: Model>(_ type: T.Type, where condition: QueryCondition<T>) throws -> Int {
        let registry = try registry(for: T.self)
        let (clause, arguments) = try clause(condition, nil, nil, registry)
        return try count(type, where: clause, arguments: arguments)
    }

    /// Deletes the rows a key-path condition selects.
    ///
    /// ```swift
    /// try db.deleteAll(Employee.self, where: \.age > 120)
    /// ```
    @discardableResult
    public func deleteAll<T: Model>(_ type: T.Type, where condition: QueryCondition<T>) throws -> Int {
        let registry = try registry(for: T.self)
        let (clause, arguments) = try clause(condition, nil, nil, registry)
        return try deleteAll(type, where: clause, arguments: arguments)
    }

    func clause<T: Model>(_ condition: QueryCondition<T>, _ order: QueryOrder<T>?, _ limit: Int?,
                          _ registry: TypeRegistry, offset: Int? = nil) throws -> (String, [SQLValue]) {
        var (clause, arguments) = try condition.sql(registry)
        if arguments.count > maximumArguments, connection.hasJSONEach {
            // Past the variable limit (32,766 in a stock SQLite): each `in` list as one JSON array.
            (clause, arguments) = try condition.sql(registry, listsAsJSON: true)
        }
        clause = "WHERE " + clause
        if let order { clause += " ORDER BY " + (try order.sql(registry)) }
        if let limit { clause += " LIMIT \(limit)" }
        if let offset { clause += (limit == nil ? " LIMIT -1" : "") + " OFFSET \(offset)" }
        return (clause, arguments)
    }
}
