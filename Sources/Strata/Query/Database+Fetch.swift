
extension Database {
    /// The objects of `type` from the rows a clause selects: anything that may follow `FROM table` (`WHERE`,
    /// `ORDER BY`, `LIMIT`, joins, subqueries), with `?` arguments and the `$T`/`$PK` shortcuts. A clause
    /// that starts with a condition gets its `WHERE` added (``SQLClause``). An array or set argument
    /// expands to one placeholder per element (`id IN (?)` with `[1, 2, 3]`); wrap one in ``JSONText`` to
    /// bind it as JSON. A row that already has a live instance returns that instance (with any unsaved
    /// changes it has).
    ///
    /// ```swift
    /// let all = try db.objects(Employee.self)
    /// let some = try db.objects(Employee.self, where: "employeeId < ? ORDER BY employeeId", 10)
    /// let picked = try db.objects(Employee.self, where: "employeeId IN (?)", [3, 5, 8])
    /// ```
    public func objects<T: Model>(_ type: T.Type, where clause: String = "", _ arguments: any ColumnValue...) throws -> [T] {
        try objects(type, where: clause, arguments: arguments)
    }

    /// ``objects(_:where:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// try db.objects(Employee.self, where: sql, arguments: args)
    /// ```
    ///
    /// Inlinable so that the row loop is specialized for the model in the caller's module.
    @inlinable
    public func objects<T: Model>(_ type: T.Type, where clause: String = "", arguments: [any ColumnValue]) throws -> [T] {
        if let fetched = try remoteObjects(T.self, clause: clause, arguments: arguments) { return fetched.map { unsafeDowncast($0, to: T.self) } }
        let registry = try registry(for: T.self)
        let statement = try selectStatement(registry, clause: clause, arguments: arguments)
        defer { statement.reset() }
        var result: [T] = []
        while try statement.step() {
            result.append(try object(T.self, from: statement, registry: registry))
        }
        return result
    }

    /// The first object a clause selects, or nil.
    ///
    /// ```swift
    /// try db.first(Employee.self, where: "ORDER BY name")
    /// ```
    public func first<T: Model>(_ type: T.Type, where clause: String = "", _ arguments: any ColumnValue...) throws -> T? {
        try first(type, where: clause, arguments: arguments)
    }

    /// ``first(_:where:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// let newest = try db.first(Employee.self, where: "name LIKE ? ORDER BY id DESC", arguments: ["A%"])
    /// ```
    public func first<T: Model>(_ type: T.Type, where clause: String = "", arguments: [any ColumnValue]) throws -> T? {
        if let fetched = try remoteObjects(T.self, clause: clause, arguments: arguments, limit: 1) { return fetched.first.map { unsafeDowncast($0, to: T.self) } }
        let registry = try registry(for: T.self)
        let statement = try selectStatement(registry, clause: clause, arguments: arguments)
        defer { statement.reset() }
        return try statement.step() ? object(T.self, from: statement, registry: registry) : nil
    }

    /// The object with this key: the live instance when there is one (no query), else one SELECT. A key
    /// of the wrong shape (a plain value or a ``CompositeKey`` of another length for a model with a
    /// ``ModelDeclaration/compositeKey``, a ``CompositeKey`` for one without) throws
    /// ``ModelError/Kind/invalidPrimaryKey`` naming the key's parts, rather than finding nothing.
    ///
    /// ```swift
    /// let ada = try db.object(Employee.self, forKey: 1)
    /// try db.object(Employee.self, forKey: 1) === ada   // true
    /// ```
    public func object<T: Model>(_ type: T.Type, forKey key: any ColumnValue) throws -> T? {
        try object(type, forKey: key, checkingCommits: true)
    }

    /// ``object(_:forKey:)``; relationship faults skip the check for other connections' commits (one
    /// statement per fault otherwise): the fetch that loaded their owner made it.
    func object<T: Model>(_ type: T.Type, forKey key: any ColumnValue, checkingCommits: Bool) throws -> T? {
        let registry = try registry(for: T.self, checkingCommits: checkingCommits)
        let keyValue = try key.sqlValue
        if let remote {
            if registry.table.keyCount == 1 && Swift.type(of: key) == CompositeKey.self { throw keyShapeError(registry, key: keyValue, found: "a CompositeKey") }
            return try remoteObject(remote, registry: registry, key: keyValue).map { unsafeDowncast($0, to: T.self) }
        }
        // A key of the wrong shape is the caller's mistake, not a row that is missing.
        if registry.table.keyCount > 1 {
            try checkCompositeKey(keyValue, registry: registry)
        } else if Swift.type(of: key) == CompositeKey.self {
            throw keyShapeError(registry, key: keyValue, found: "a CompositeKey")
        }
        if let live = registry.instance(key: keyValue), !live._isDeleted {
            if registry.hasStaleInstances { try refreshingStale(live, registry: registry) }
            return unsafeDowncast(live, to: T.self)
        }
        let statement = try registry.table.statement(.selectByKey, in: connection)
        try registry.table.bindKey(keyValue, to: statement, at: 1)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let found = try object(T.self, from: statement, registry: registry)
        if registry.table.readsWithoutIdentity, try statement.step() { throw sharedKeyError(registry, key: keyValue, sql: statement.sql) }
        return found
    }

    /// The error of a lookup by a key that several rows of a view read without identity share.
    @inline(never)
    func sharedKeyError(_ registry: TypeRegistry, key: SQLValue, sql: String) -> ModelError {
        ModelError(.duplicateKey, model: registry.metadata.typeName, property: registry.metadata.key.name, key: key,
                   "more than one row of view \"\(registry.table.table)\" has this key (\(sql)): the key does not pick one row. Fetch them with objects(where:), or key the model by columns the view carries from its table's primary key")
    }

    /// Checks that `key` is a composite key of `registry`'s model: a ``CompositeKey`` of as many parts as
    /// the model declares, none NULL, an integer part an integer. Throws ``ModelError/Kind/invalidPrimaryKey``
    /// naming the parts expected otherwise (such a key would match no row, and read as "not found").
    func checkCompositeKey(_ key: SQLValue, registry: TypeRegistry) throws {
        guard case .text(let text) = key, let parts = CompositeKey.parse(text) else {
            throw keyShapeError(registry, key: key, found: "\(key), not a CompositeKey")
        }
        guard parts.count == registry.table.keyCount else {
            throw keyShapeError(registry, key: key, found: "\(parts.count) part\(parts.count == 1 ? "" : "s")")
        }
        let metadata = registry.metadata
        for (part, value) in zip(metadata.properties.prefix(parts.count), parts) {
            let fits = switch (part.columnType, value) {
            case (_, .null): false
            case (.integer, .integer): true
            case (.integer, _): (try? Int64(sqlValue: value)) != nil
            default: true
            }
            if !fits { throw keyShapeError(registry, key: key, found: "\(value) for \(part.name), which holds \(part.columnType.rawValue) values") }
        }
    }

    /// The error of a key that cannot be one of `registry`'s model: what it declares, and what was `found`.
    @inline(never)
    func keyShapeError(_ registry: TypeRegistry, key: SQLValue, found: String) -> ModelError {
        let metadata = registry.metadata
        let parts = metadata.properties.prefix(metadata.keyCount).map(\.name)
        let expected = parts.count > 1
            ? "a CompositeKey of \(parts.count) parts, in order: \(parts.joined(separator: ", ")) (CompositeKey(\(parts.joined(separator: ", "))))"
            : "a single value for \(parts[0]), not a CompositeKey"
        return ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name, key: key, properties: parts,
                          "the key of \(metadata.typeName) is \(expected); got \(found)")
    }

    /// The objects with these keys, in one query per chunk of `maximumArguments` keys; missing keys are
    /// skipped. With `ordered`, the result follows the order of `keys`.
    ///
    /// ```swift
    /// let team = try db.objects(Employee.self, forKeys: [3, 1, 2])   // in that order
    /// ```
    public func objects<T: Model, Key: ColumnValue>(_ type: T.Type, forKeys keys: [Key], ordered: Bool = true) throws -> [T] {
        let registry = try registry(for: T.self)
        let values = try keys.map { try $0.sqlValue }
        if Key.self == CompositeKey.self && registry.table.keyCount == 1, let first = values.first {
            throw keyShapeError(registry, key: first, found: "a CompositeKey")
        }
        if registry.table.keyCount > 1 {
            // Composite keys: one lookup each (an `IN` list takes one column).
            let found = try values.compactMap { try object(T.self, forKey: $0, checkingCommits: false) }
            return found
        }
        var stored = try values.map(registry.table.storedKey)
        // A key another tool may store in another form (7 and '7', a UUID's two cases): in both.
        if registry.table.keyHasTwoForms { stored = stored.flatMap(registry.table.keyForms(ofStored:)) }
        let found = try objects(T.self, registry: registry, column: registry.table.columns[0], in: stored)
        guard ordered else { return found }
        if registry.table.keyIsRowID {
            // The key is the rowid, which every registered instance carries: no key decoding, integer hashing.
            var byRowID: [Int64: T] = [:]
            byRowID.reserveCapacity(found.count)
            for object in found { byRowID[object._rowID] = object }
            return values.compactMap { value in
                guard case .integer(let key) = value else { return nil }
                return byRowID[key]
            }
        }
        var byKey: [SQLValue: T] = [:]
        for object in found {
            let key = try registry.metadata.key.accessor.load(object)
            // A view read without identity may have several rows of a key: none of them is "the" object.
            if registry.table.readsWithoutIdentity, byKey[key] != nil {
                throw sharedKeyError(registry, key: key, sql: "a lookup by \(registry.table.columns[0]) IN (...)")
            }
            byKey[key] = object
        }
        let ordered = values.compactMap { byKey[$0] }
        guard ordered.count < values.count, Set(ordered.map(ObjectIdentifier.init)).count < found.count else { return ordered }
        // Some rows matched a key spelled otherwise than they store it (a `COLLATE NOCASE` key fetched as
        // "ada" finds 'Ada'): SQLite's comparison, not Swift's equality, says which key found which row.
        return try values.compactMap { try byKey[$0] ?? object(T.self, forKey: $0, checkingCommits: false) }
    }

    /// The objects whose properties equal the given values; an array value means `IN (...)`
    /// (ObjectiveFMDB's dictionary queries). Property names are checked.
    ///
    /// ```swift
    /// let found = try db.objects(Employee.self, matching: ["name": "Ada", "employeeId": [1, 2, 3]])
    /// ```
    public func objects<T: Model>(_ type: T.Type, matching conditions: [String: any ColumnValue], orderBy: String? = nil) throws -> [T] {
        let registry = try registry(for: T.self)
        var (clauses, arguments) = try matchingClauses(conditions, registry: registry, listsAsJSON: false)
        if arguments.count > maximumArguments, connection.hasJSONEach {
            // Past the variable limit (32,766 in a stock SQLite): each list as one JSON array.
            (clauses, arguments) = try matchingClauses(conditions, registry: registry, listsAsJSON: true)
        }
        var clause = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        if let orderBy { clause += " ORDER BY \(orderBy)" }
        return try objects(T.self, where: clause, arguments: arguments)
    }

    /// The conditions of ``objects(_:matching:orderBy:)`` and their arguments.
    func matchingClauses(_ conditions: [String: any ColumnValue], registry: TypeRegistry,
                                 listsAsJSON: Bool) throws -> ([String], [any ColumnValue]) {
        let metadata = registry.metadata
        var clauses: [String] = [], arguments: [any ColumnValue] = []
        for (name, value) in conditions.sorted(by: { $0.key < $1.key }) {
            guard let index = metadata.properties.firstIndex(where: { $0.name == name }) else {
                throw ModelError(.unknownProperty, model: metadata.typeName, property: name,
                                 "no persistent property named \"\(name)\"; there are \(metadata.properties.map(\.name).joined(separator: ", "))")
            }
            let column = SQL.quote(registry.table.columns[index])
            // Values in the column's stored format (a date in Django's text, a UUID as 32 hex digits).
            let format = registry.table.formats[index]
            // A reference's integer key in a column with no type is also looked for as its text ('1').
            let untyped = metadata.properties[index].related != nil && registry.table.untypedColumns.contains(index)
            do {
                if let list = value as? [any ColumnValue] {
                    var values: [any ColumnValue] = format == .native ? list : try list.map { try format.stored($0.sqlValue) }
                    if untyped {
                        values = try values.flatMap { value -> [any ColumnValue] in try value.sqlValue.keyForms(untypedColumn: true) }
                    }
                    if values.isEmpty {
                        clauses.append("1 = 0")   // (false on every engine: PostgreSQL refuses a bare 0)
                    } else {
                        let (list, bound) = SQL.inList(try values.map { try $0.sqlValue }, asJSON: listsAsJSON)
                        clauses.append("\(column) IN \(list)")
                        arguments += bound
                    }
                } else if try value.sqlValue.isNull {
                    clauses.append("\(column) IS NULL")
                } else if format == .native, let range = FloatRange.of(value) {
                    // As key-path conditions compare them: a float with the REALs that read back as it.
                    var bound: [SQLValue] = []
                    clauses.append(range.sql(column, "=", &bound))
                    arguments += bound
                } else if metadata.properties[index].formatKind == .json, let json = JSONCanonical.kind(of: Swift.type(of: value)) {
                    // JSON as key-path conditions compare it: canonical text on both sides (``JSONCanonical``).
                    clauses.append("\(JSONCanonical.functionName)(\(column), \(json.sortsArray ? 1 : 0)) = ?")
                    arguments.append(JSONCanonical.argument(try value.sqlValue, sortingArray: json.sortsArray))
                } else if untyped, case let forms = try format.stored(value.sqlValue).keyForms(untypedColumn: true), forms.count > 1 {
                    clauses.append("\(column) IN (\(SQL.placeholders(forms.count)))")
                    arguments += forms
                } else {
                    clauses.append("\(column) = ?")
                    arguments.append(format == .native ? value : try format.stored(value.sqlValue))
                }
            } catch let error as ValueConversionError {
                throw error.located(column: registry.table.columns[index], model: metadata.typeName, property: name)
            }
        }
        return (clauses, arguments)
    }

    /// How many rows a clause selects.
    ///
    /// ```swift
    /// try db.count(Employee.self, where: "WHERE name LIKE ?", "A%")
    /// ```
    public func count<T: Model>(_ type: T.Type, where clause: String = "", _ arguments: any ColumnValue...) throws -> Int {
        try count(type, where: clause, arguments: arguments)
    }

    /// ``count(_:where:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// let named = try db.count(Employee.self, where: "name IN (?)", arguments: [["Ada", "Grace"]])
    /// ```
    public func count<T: Model>(_ type: T.Type, where clause: String = "", arguments: [any ColumnValue]) throws -> Int {
        let registry = try registry(for: T.self, checkingCommits: false)
        let clause = expand(SQLClause.normalized(clause), registry)
        let table = SQL.quote(registry.metadata.tableName)
        // LIMIT, GROUP BY and HAVING shape the rows of the select, not the one row of count(*): the count is
        // of the rows ``objects(_:where:_:)`` returns for the same clause. (A name that merely contains the
        // word only costs the subquery.)
        let shapesRows = SQL.mentions(clause, "limit") || SQL.mentions(clause, "group") || SQL.mentions(clause, "having")
        let sql = shapesRows ? "SELECT count(*) FROM (SELECT 1 FROM \(table) \(clause))" : "SELECT count(*) FROM \(table) " + clause
        return try value(Int.self, sql, arguments: arguments) ?? 0
    }

    /// Deletes the rows a clause selects; their live instances become `isDeleted`. Returns the count.
    ///
    /// ```swift
    /// try db.deleteAll(Employee.self, where: "WHERE name = ?", "Temp")
    /// ```
    @discardableResult
    public func deleteAll<T: Model>(_ type: T.Type, where clause: String = "", _ arguments: any ColumnValue...) throws -> Int {
        try deleteAll(type, where: clause, arguments: arguments)
    }

    /// ``deleteAll(_:where:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// try db.deleteAll(Employee.self, where: "id IN (?)", arguments: [[4, 5, 6]])
    /// ```
    @discardableResult
    public func deleteAll<T: Model>(_ type: T.Type, where clause: String = "", arguments: [any ColumnValue]) throws -> Int {
        let registry = try registry(for: T.self, checkingCommits: false)
        let clause = expand(SQLClause.normalized(clause), registry)
        if let remote { return try remoteDeleteAll(remote, registry: registry, clause: clause, arguments: arguments) }
        do {
            try execute("DELETE FROM \(SQL.quote(registry.metadata.tableName)) " + clause, arguments: arguments)
        } catch let error as DatabaseError where error.code.primary == .constraint && error.message.hasPrefix("FOREIGN KEY constraint failed") {
            let (clause, spread) = (try? ArgumentList.expand(clause, arguments, jsonPast: jsonListLimit)) ?? (clause, arguments)
            throw explainingForeignKeyFailure(error, registry: registry, clause: clause, arguments: spread)
        }
        return changes
    }

    /// Runs raw SQL in which `$T` stands for the model's table and `$PK` for its key column; changed
    /// rows show up in live instances (updated values, or `isDeleted`).
    ///
    /// ```swift
    /// try db.execute("UPDATE $T SET name = ? WHERE $PK = ?", for: Employee.self, "Ada L.", ada.employeeId)
    /// ada.name  // "Ada L."
    /// ```
    public func execute<T: Model>(_ sql: String, for type: T.Type, _ arguments: any ColumnValue...) throws {
        try execute(expand(sql, registry(for: T.self, checkingCommits: false)), arguments: arguments)
    }

    /// Raw rows from SQL with the `$T`/`$PK` shortcuts.
    ///
    /// ```swift
    /// try db.rows("SELECT $PK FROM $T", for: Employee.self)
    /// ```
    public func rows<T: Model>(_ sql: String, for type: T.Type, _ arguments: any ColumnValue...) throws -> [Row] {
        try rows(expand(sql, registry(for: T.self, checkingCommits: false)), arguments: arguments)
    }

    // MARK: Internals

    func expand(_ sql: String, _ registry: TypeRegistry) -> String {
        SQLTemplate.expand(sql, table: registry.metadata.tableName, keyList: registry.table.keyColumnList)
    }

    /// The select statement for a clause the library generated itself (key-path conditions): no `WHERE`
    /// to add, no `$T` to expand, no collection to spread — the cached statement, bound.
    func generatedSelect(_ registry: TypeRegistry, clause: String, arguments: [SQLValue]) throws -> Statement {
        let statement = try connection.cachedStatement(registry.table.selectFromSQL + " " + clause)
        try statement.bind(values: arguments)
        return statement
    }

    @usableFromInline
    func selectStatement(_ registry: TypeRegistry, clause: String, arguments: [any ColumnValue]) throws -> Statement {
        let sql = clause.isEmpty ? registry.table.selectFromSQL
            : registry.table.selectFromSQL + " " + expand(SQLClause.normalized(clause), registry)
        let (expanded, bound) = try ArgumentList.expand(sql, arguments, jsonPast: jsonListLimit)
        let statement = try connection.cachedStatement(expanded)
        try statement.bind(bound)
        return statement
    }

    /// Objects whose `column` is in `values`, chunked under the bound-parameter limit. With `distinct`
    /// (no value twice), rowid keys are looked up one by one in a join with their JSON array.
    func objects<T: Model>(_ type: T.Type, registry: TypeRegistry, column: String, in values: [SQLValue],
                           distinct: Bool = false) throws -> [T] {
        try objects(type, registry: registry, quotedColumn: SQL.quote(column), in: values, orderBy: nil, distinct: distinct)
    }

    /// Objects whose column (quoted) is in `values`, chunked under the bound-parameter limit, each chunk
    /// in `orderBy` order.
    func objects<T: Model>(_ type: T.Type, registry: TypeRegistry, quotedColumn: String, in values: [SQLValue],
                           orderBy: String?, distinct: Bool = false) throws -> [T] {
        // Every object comes from T's registry: a T.
        try modelObjects(registry: registry, quotedColumn: quotedColumn, in: values, orderBy: orderBy, distinct: distinct)
            .unsafelyDowncast(to: T.self)
    }

    /// ``objects(_:registry:quotedColumn:in:orderBy:distinct:)`` as `[ModelObject]`: code that is not generic
    /// over the model, so it runs at full speed when called from code that is (a prefetch, `@Children`).
    func modelObjects(registry: TypeRegistry, quotedColumn: String, in values: [SQLValue], orderBy: String?,
                      distinct: Bool = false) throws -> [ModelObject] {
        // Another engine: the keys as one array parameter (Relationships/Database+RemotePrefetch.swift).
        if _slowPath(isRemote) { return try remoteModelObjects(registry: registry, quotedColumn: quotedColumn, in: values, orderBy: orderBy) }
        var result: [ModelObject] = []
        if values.count > 1, connection.hasJSONEach, let integers = SQL.integers(values) {
            // Integer keys: one JSON array per 32,768 of them, through one statement prepared once; distinct
            // rowid keys through a join, which skips the temporary index of keys an `IN (SELECT …)` builds.
            let table = registry.table
            let byJoin = distinct && orderBy == nil && table.keyIsRowID && quotedColumn == SQL.quote(table.columns[0])
            let statement = byJoin ? try table.jsonJoinStatement(in: connection)
                : try table.jsonInStatement(column: quotedColumn, orderBy: orderBy, in: connection)
            var start = 0
            while start < integers.count {
                let end = min(start + 32_768, integers.count)
                try statement.bind(values: [.text(SQL.jsonArray(integers[start..<end]))])
                defer { statement.reset() }
                while try statement.step() { result.append(try anyObject(from: statement, registry: registry)) }
                start = end
            }
            return result
        }
        for chunk in SQL.paddedChunks(values, maximumArguments: maximumArguments) {
            let statement = try registry.table.inStatement(column: quotedColumn, count: chunk.count, orderBy: orderBy, in: connection)
            try statement.bind(values: chunk)
            defer { statement.reset() }
            while try statement.step() { result.append(try anyObject(from: statement, registry: registry)) }
        }
        return result
    }

    /// The objects whose integer column (property `property`, one of the table's
    /// ``TableMapping/integerColumns``) holds one of `keys`, in `orderBy` order: one scan between the least
    /// and the greatest key, each row tested against `keys` before it is decoded. (Over a column no index
    /// starts with, SQLite would scan for an `IN` list too, at a temporary-index probe a row.)
    func modelObjects(registry: TypeRegistry, scanning property: Int, for keys: KeyBuckets, orderBy: String?) throws -> [ModelObject] {
        guard keys.allIntegers else { return [] }
        let table = registry.table
        let statement = try table.rangeStatement(column: SQL.quote(table.columns[property]), orderBy: orderBy, in: connection)
        try statement.bind(values: [.integer(keys.low), .integer(keys.high)])
        defer { statement.reset() }
        let column = Int32(property)
        var result: [ModelObject] = []
        while try statement.step() {
            // (BETWEEN on an INTEGER column passes integers and reals only; a real counts when it equals a
            // key, as with `=`.)
            let value = statement.cell(at: column)
            switch value.kind {
            case .integer: guard keys.bucket(of: value.int64) != nil else { continue }
            case .real: guard let integer = Int64(exactly: value.double), keys.bucket(of: integer) != nil else { continue }
            default: continue
            }
            result.append(try anyObject(from: statement, registry: registry))
        }
        return result
    }
}
