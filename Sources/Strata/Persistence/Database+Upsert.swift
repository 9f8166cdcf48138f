// An explicit insert-or-update (issue 36): `db.upsert(object)`, by primary key or by the model's upsert keys.
extension Database {
    /// Inserts `object`'s row, or updates the row that has its primary key (or, when the model declares
    /// ``ModelDeclaration/upsertKeys``, the row with its values of those properties) with its values, and
    /// returns the live instance of that row. A plain ``save(_:)-(T)`` refuses a new object whose key is taken
    /// (an object decoded from JSON, say): `upsert` is how to say "this row, whatever it holds now".
    ///
    /// - When the row exists and another instance is live for it, that instance takes `object`'s values
    ///   (every property but the key) and is returned: one row keeps one instance. `object` stays new.
    /// - When the row exists and no instance is live for it, `object` becomes its live instance (it takes
    ///   the row's key when matched by upsert keys) and only the columns that differ are written.
    /// - Otherwise `object` is inserted, as by `save`.
    ///
    /// On PostgreSQL the row's live instance (read when none was live) takes `object`'s values and is
    /// returned; `object` stays new.
    ///
    /// All or nothing: a failure (a CHECK or NOT NULL constraint, a unique index) leaves the table, `object`
    /// and the live instance as they were. An `object` that is already live is saved.
    ///
    /// ```swift
    /// let fromServer = try JSONDecoder().decode(Employee.self, from: json)   // key 7, which is stored already
    /// try db.save(fromServer)                       // throws: duplicate key
    /// let employee = try db.upsert(fromServer)      // UPDATE of the row 7's changed columns
    /// employee.name = "Ada L."
    /// try db.save(employee)                         // an UPDATE: the instance is live
    /// ```
    @discardableResult
    public func upsert<T: Model>(_ object: T) throws -> T {
        if _slowPath(isRemote) { return try remoteUpsert(object) }
        let registry = try registry(for: T.self, checkingCommits: false)
        if object._registry != nil {
            try save(object)
            return object
        }
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        if object._isDeleted {
            throw ModelError(.deleted, model: registry.metadata.typeName, "the instance was deleted; make a new one to insert the row again")
        }
        // The live instance's values before it takes `object`'s, for a failure to give back.
        var merged: (live: ModelObject, values: [(index: Int, value: SQLValue)])?
        let nested = isInTransaction
        do {
            let result: ModelObject = try transaction {
                if !nested && models.needsResync { try resyncBeforeOwnSave(registry) }
                return try savingInOwnTransaction {
                    guard let key = try keyOfRowToUpsert(object, registry: registry) else {
                        try save(object, registry: registry)
                        return object
                    }
                    if let live = registry.instance(key: key), !live._isDeleted {
                        if registry.hasStaleInstances { try refreshingStale(live, registry: registry) }
                        merged = (live, try values(of: live, registry: registry))
                        try copyValues(of: object, into: live, registry: registry)
                        try save(live, registry: registry)
                        return live
                    }
                    try adoptRow(key: key, for: object, registry: registry)
                    return object
                }
            }
            if !models.pending.isEmpty { reconcileLiveInstances() }
            return unsafeDowncast(result, to: T.self)
        } catch {
            // The rollback gave the live instance its row's values; it takes back those it had before.
            if let (live, values) = merged, live._registry === registry, !live._isDeleted {
                for (index, value) in values { try? registry.metadata.properties[index].accessor.store(value, into: live) }
                if let notify = registry.metadata.observationNotifier { notify(live) }
            }
            throw error
        }
    }

    /// The key of the row `object` upserts: the row with its upsert-key values when the model declares
    /// them, else the row with its primary key; nil when there is no such row (or `object` has no key yet).
    func keyOfRowToUpsert(_ object: ModelObject, registry: TypeRegistry) throws -> SQLValue? {
        let metadata = registry.metadata, table = registry.table
        let statement: Statement
        if metadata.upsertKeys.isEmpty {
            let key = try metadata.key.accessor.load(object)
            if metadata.keyIsInteger, key == .integer(0) || key.isNull { return nil }
            let parts = metadata.keyCount > 1 ? try CompositeKey(sqlValue: key).values : [key]
            if parts.contains(where: \.isNull) { return nil }
            statement = try connection.cachedStatement("SELECT \(table.keyColumnList) FROM \(SQL.quote(table.table)) WHERE \(table.keyClause) LIMIT 2")
            try table.bindKey(key, to: statement, at: 1)
        } else {
            let conditions = metadata.upsertKeys.map { "\(SQL.quote(table.columns[$0])) = ?" }.joined(separator: " AND ")
            statement = try connection.cachedStatement("SELECT \(table.keyColumnList) FROM \(SQL.quote(table.table)) WHERE \(conditions) LIMIT 2")
            try bind(object, properties: metadata.upsertKeys, to: statement, registry: registry)
        }
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        guard let key = table.key(from: statement) else {
            throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name, key: statement.value(at: 0),
                             "the row to upsert in \"\(table.table)\" has a key \(metadata.typeName) cannot read; nothing was written")
        }
        if try statement.step() {
            let names = metadata.upsertKeys.isEmpty ? [metadata.key.name] : metadata.upsertKeys.map { metadata.properties[$0].name }
            let other = table.key(from: statement).map { " and \($0)" } ?? ""
            throw ModelError(.duplicateKey, model: metadata.typeName, key: key, properties: names,
                             "the values of \(names.joined(separator: ", ")) match more than one row of \"\(table.table)\" (keys \(key)\(other)), so they name no single row to upsert; nothing was written. Make them unique (a UNIQUE index over them) or remove the duplicate rows")
        }
        return key
    }

    /// Every property value of `object` but its key, as it would be saved.
    func values(of object: ModelObject, registry: TypeRegistry) throws -> [(index: Int, value: SQLValue)] {
        let properties = registry.metadata.properties
        return try (registry.metadata.keyCount..<properties.count).map { ($0, try properties[$0].accessor.load(object)) }
    }

    /// Gives `live` the values of every property of `object` but the key (all read first: a reference to an
    /// unsaved object throws before `live` changes).
    func copyValues(of object: ModelObject, into live: ModelObject, registry: TypeRegistry) throws {
        let properties = registry.metadata.properties
        for (index, value) in try values(of: object, registry: registry) {
            if try properties[index].accessor.load(live) != value { try properties[index].accessor.store(value, into: live) }
        }
        if let notify = registry.metadata.observationNotifier { notify(live) }
    }

    /// Makes `object` the live instance of the row with `key` (its snapshot the row, so the update writes
    /// what differs), then updates the row. Noted as an insert that adopted a row: a rollback makes `object`
    /// new again, with its own key.
    private func adoptRow(key: SQLValue, for object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata, table = registry.table
        let ownKey = try metadata.key.accessor.load(object)
        let statement = try table.statement(.selectByKey, in: connection)
        try table.bindKey(key, to: statement, at: 1)
        defer { statement.reset() }
        guard try statement.step() else { return try save(object, registry: registry) }
        let row = metadata.makeInstance()
        try decodeRow(statement, into: row, registry: registry)
        let rowID = table.selectsRowID ? statement.int64(at: Int32(metadata.properties.count))
            : (table.keyIsRowID ? (try Int64(sqlValue: key)) : 0)
        statement.reset()
        try metadata.key.accessor.store(key, into: object)
        registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : TypeRegistry.textKey(key))
        registry.capture(object, row: row)
        noteInserted(object, registry: registry, keyWasAssigned: false, adoptedFromKey: ownKey)
        try update(object, registry: registry)
    }
}
