// Key-path queries beyond a list of objects: a page (`offset`), aggregates over a property, `exists`.

extension Database {
    /// The objects a key-path condition selects, in `orderBy` order, skipping the first `offset` of them,
    /// at most `limit` (nil: all the rest).
    ///
    /// ```swift
    /// let page2 = try db.objects(Employee.self, where: \.age >= 18, orderBy: .ascending(\.name), limit: 20, offset: 20)
    /// ```
    public func objects<T: Model>(_ type: T.Type, where condition: QueryCondition<T>, orderBy order: QueryOrder<T>? = nil,
                                  limit: Int? = nil, offset: Int) throws -> [T] {
        let registry = try registry(for: T.self)
        let (clause, arguments) = try clause(condition, order, limit, registry, offset: offset)
        let statement = try generatedSelect(registry, clause: clause, arguments: arguments)
        defer { statement.reset() }
        var result: [T] = []
        while try statement.step() { result.append(try object(T.self, from: statement, registry: registry)) }
        return result
    }

    /// Whether a key-path condition selects any row (`SELECT EXISTS (...)`).
    ///
    /// ```swift
    /// if try db.exists(Employee.self, where: \.name == "Ada") { ... }
    /// ```
    public func exists<T: Model>(_ type: T.Type, where condition: QueryCondition<T>) throws -> Bool {
        let registry = try registry(for: T.self)
        let (clause, arguments) = try clause(condition, nil, nil, registry)
        return try value(Int.self, "SELECT EXISTS (SELECT 1 FROM \(SQL.quote(registry.table.table)) \(clause))", arguments: arguments) == 1
    }

    /// The sum of a numeric property over the rows `condition` selects (all rows when nil); nil when none.
    ///
    /// ```swift
    /// let payroll = try db.sum(\Employee.salary, where: \.department == sales)
    /// ```
    public func sum<T: Model, Value: ColumnValue & Numeric>(_ keyPath: KeyPath<T, Value>, where condition: QueryCondition<T>? = nil) throws -> Value? {
        try aggregate("sum", keyPath, condition)
    }

    /// The smallest value of a property over the rows `condition` selects; nil when none (or all NULL).
    ///
    /// ```swift
    /// let first = try db.minimum(\Employee.hired, where: \.age > 30)
    /// ```
    public func minimum<T: Model, Value: ColumnValue & Comparable>(_ keyPath: KeyPath<T, Value>, where condition: QueryCondition<T>? = nil) throws -> Value? {
        try aggregate("min", keyPath, condition)
    }

    /// The largest value of a property over the rows `condition` selects; nil when none (or all NULL).
    ///
    /// ```swift
    /// let oldest = try db.maximum(\Employee.age)
    /// ```
    public func maximum<T: Model, Value: ColumnValue & Comparable>(_ keyPath: KeyPath<T, Value>, where condition: QueryCondition<T>? = nil) throws -> Value? {
        try aggregate("max", keyPath, condition)
    }

    /// The average of a numeric property over the rows `condition` selects; nil when none.
    ///
    /// ```swift
    /// let mean = try db.average(\Employee.age, where: \.department == sales)
    /// ```
    public func average<T: Model, Value: ColumnValue & Numeric>(_ keyPath: KeyPath<T, Value>, where condition: QueryCondition<T>? = nil) throws -> Double? {
        let registry = try registry(for: T.self)
        let (column, from, arguments) = try aggregateParts(KeyPathTerm(keyPath), condition, registry)
        return try value(Double.self, "SELECT avg(\(column)) \(from)", arguments: arguments)
    }

    /// `function(column)` over the selected rows, read back in the column's stored format as `Value`.
    private func aggregate<T: Model, Value: ColumnValue>(_ function: String, _ keyPath: KeyPath<T, Value>, _ condition: QueryCondition<T>?) throws -> Value? {
        let registry = try registry(for: T.self)
        let term = KeyPathTerm(keyPath)
        let (column, from, arguments) = try aggregateParts(term, condition, registry)
        guard let stored = try value(SQLValue.self, "SELECT \(function)(\(column)) \(from)", arguments: arguments), !stored.isNull else { return nil }
        let format = try term.column(registry).1
        return try term.locating(registry) { try Value(sqlValue: format == .native ? stored : format.native(stored)) }
    }

    /// The compared column, `FROM ... WHERE ...` and its arguments.
    private func aggregateParts<T: Model>(_ term: KeyPathTerm, _ condition: QueryCondition<T>?, _ registry: TypeRegistry) throws
        -> (String, String, [any ColumnValue]) {
        let column = try term.comparedColumn(registry).0
        var from = "FROM \(SQL.quote(registry.table.table))"
        var arguments: [SQLValue] = []
        if let condition {
            let (clause, bound) = try clause(condition, nil, nil, registry)
            from += " " + clause
            arguments = bound
        }
        return (column, from, arguments)
    }
}
