import CSQLite

extension Database {
    /// Inserts or updates `object` by its key. A new integer key of 0 (or nil) lets SQLite assign one,
    /// which the instance then holds; the instance becomes the live instance of its row.
    ///
    /// ```swift
    /// let ada = Employee(); ada.name = "Ada"
    /// try db.save(ada)        // INSERT; ada.employeeId is now set
    /// ada.name = "Ada L."
    /// try db.save(ada)        // UPDATE
    /// ```
    public func save<T: Model>(_ object: T) throws {
        try save(object, registry: registry(for: T.self))
        if !models.pending.isEmpty || !isInTransaction { reconcileLiveInstances() }
    }

    /// Saves many objects in one transaction. ```swift try db.save([ada, grace]) ```
    public func save<T: Model>(_ objects: [T]) throws {
        let registry = try registry(for: T.self)
        try transaction(.immediate) {
            for object in objects { try save(object, registry: registry) }
        }
    }

    /// Deletes the row of `object`; the instance's `isDeleted` becomes true.
    ///
    /// ```swift
    /// try db.delete(ada)
    /// ada.isDeleted  // true
    /// ```
    public func delete<T: Model>(_ object: T) throws {
        let registry = try registry(for: T.self)
        guard object._registry === registry, !object._isDeleted else {
            throw ModelError(object._isDeleted ? .deleted : .detached, model: registry.metadata.typeName,
                             object._isDeleted ? "the instance was deleted already" : "the instance was never saved to or fetched from this database")
        }
        let key = try registeredKey(of: object, registry: registry)
        let statement = try connection.cachedStatement(registry.table.deleteSQL)
        try statement.bind(values: [key])
        try runOwnWrite(statement, registry: registry, rowID: object._rowID)
        if isInTransaction { models.noteDeleted(object) }
        registry.detach(object, deleted: true)
        reconcileLiveInstances()
    }

    // MARK: Internals

    func save(_ object: ModelObject, registry: TypeRegistry) throws {
        try checkTransactionIsOpen()
        let metadata = registry.metadata
        if object._isDeleted {
            throw ModelError(.deleted, model: metadata.typeName, "the instance was deleted; make a new one to insert the row again")
        }
        if let owner = object._registry {
            guard owner === registry else {
                throw ModelError(.foreignInstance, model: metadata.typeName, "the instance belongs to another database handle")
            }
            try update(object, registry: registry)
        } else {
            try insert(object, registry: registry)
        }
    }

    /// The key `object` was registered under, after checking that its key property still holds it:
    /// the identity of a saved instance is its row, so changing the key property is refused (insert a new
    /// instance with the new key and delete the old one instead).
    private func registeredKey(of object: ModelObject, registry: TypeRegistry) throws -> SQLValue {
        let metadata = registry.metadata
        let current = try metadata.key.accessor.load(object)
        let registered: SQLValue
        if registry.table.keyIsRowID {
            registered = .integer(object._rowID)
        } else if let text = registry.textKey(of: object), TypeRegistry.textKey(current) != text {
            registered = .text(text)
        } else {
            return current
        }
        guard registered == current else {
            throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name,
                             "the key of a saved instance changed from \(registered) to \(current); a saved instance stays the same row: save a new instance with the new key and delete this one")
        }
        return current
    }

    private func insert(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata, table = registry.table
        let keyAccessor = metadata.key.accessor
        var key: SQLValue
        var keyWasAssigned = false
        if metadata.keyIsInteger {
            let current = keyAccessor.int64Key(object) ?? 0
            if current == 0 && !metadata.randomKeys && table.keyIsRowID {
                let statement = try connection.cachedStatement(table.insertWithoutKeySQL)
                try bind(object, properties: 1..<metadata.properties.count, to: statement, registry: registry)
                try runOwnWrite(statement, registry: registry, rowID: 0)
                let rowID = lastInsertRowID
                try keyAccessor.store(.integer(rowID), into: object)
                registry.register(object, rowID: rowID, textKey: nil)
                noteInserted(object, keyWasAssigned: true)
                return
            }
            if current == 0 {
                // Random keys (FCModel's choice), or the next key of an integer key that is not the rowid
                // (`INT PRIMARY KEY`), which SQLite would otherwise leave NULL.
                let next = metadata.randomKeys ? Int64.random(in: 1...Int64.max)
                    : (try value(Int64.self, "SELECT coalesce(max(\(SQL.quote(metadata.key.name))), 0) + 1 FROM \(SQL.quote(metadata.tableName))") ?? 1)
                key = .integer(next)
                try keyAccessor.store(key, into: object)
                keyWasAssigned = true
            } else {
                key = .integer(current)
            }
        } else {
            key = try keyAccessor.load(object)
            if key.isNull {
                throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name,
                                 "the key must be set before saving (only integer keys are assigned by SQLite)")
            }
        }
        if registry.instance(key: key) != nil {
            throw ModelError(.duplicateInstance, model: metadata.typeName, property: metadata.key.name,
                             "another live instance already stands for the row with key \(key); change that one, or fetch it with object(_:forKey:)")
        }
        try upsert(object, key: key, registry: registry)
        noteInserted(object, keyWasAssigned: keyWasAssigned)
    }

    /// Remembers an insert made inside a transaction, so a rollback can make the instance unsaved again.
    private func noteInserted(_ object: ModelObject, keyWasAssigned: Bool) {
        if isInTransaction { models.insertedInTransaction.append((object, transactionDepth, keyWasAssigned)) }
    }

    /// INSERT, or UPDATE when the row exists already (a row written by another tool, or deleted and
    /// re-saved), with the key the instance holds.
    private func upsert(_ object: ModelObject, key: SQLValue, registry: TypeRegistry) throws {
        let table = registry.table
        let statement = try connection.cachedStatement(table.upsertSQL)
        try bind(object, properties: 0..<registry.metadata.properties.count, to: statement, registry: registry)
        var rowID: Int64 = 0
        if case .integer(let v) = key, table.keyIsRowID { rowID = v }
        // The rowid of a row keyed otherwise is not known before the upsert: its first change is own.
        try ownWrite(registry: registry, rowID: rowID, anyRow: !table.keyIsRowID) {
            defer { statement.reset() }
            while try statement.step() {
                if table.selectsRowID { rowID = statement.int64(at: 0) }
            }
        }
        registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : TypeRegistry.textKey(key))
    }

    private func update(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let count = metadata.properties.count
        let key = try registeredKey(of: object, registry: registry)
        guard count > 1 else { return }
        let statement = try connection.cachedStatement(registry.table.updateSQL)
        try bind(object, properties: 1..<count, to: statement, registry: registry)
        try statement.bind(key, at: Int32(count))
        try runOwnWrite(statement, registry: registry, rowID: object._rowID)
        if changes == 0 {
            // The row is gone (deleted by another connection): write it again rather than lose the values.
            try upsert(object, key: key, registry: registry)
        }
    }

    /// Binds the given properties to parameters 1, 2, ... in order.
    @inline(__always)
    private func bind(_ object: ModelObject, properties: Range<Int>, to statement: Statement, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let handle = statement.handle
        try metadata.fastFields.withUnsafeBufferPointer { fields in
            var index: Int32 = 1
            for i in properties {
                if fields[i]?.bind(object, to: handle, at: index) != true {
                    do {
                        try metadata.properties[i].accessor.bind(object, to: statement, at: index)
                    } catch let error as ValueConversionError {
                        let name = metadata.properties[i].name
                        throw error.located(column: name, model: metadata.typeName, property: name)
                    }
                }
                index += 1
            }
        }
    }

    /// Steps a write the library makes to one row itself (`rowID`; any row for an insert), so the update
    /// hook does not schedule a refresh for it; rows changed through it (cascades, triggers) still are.
    @inline(__always)
    func runOwnWrite(_ statement: Statement, registry: TypeRegistry, rowID: Int64) throws {
        try ownWrite(registry: registry, rowID: rowID) {
            defer { statement.reset() }
            while try statement.step() {}
        }
    }

    @inline(__always)
    private func ownWrite(registry: TypeRegistry, rowID: Int64, anyRow: Bool = false, _ body: () throws -> Void) throws {
        models.ownWrite = true
        models.ownRowID = rowID
        models.ownAnyRow = anyRow
        models.ownTable = registry.tableNameCString   // shares the registry's buffer: no copy
        defer {
            models.ownWrite = false
            models.ownAnyRow = false
        }
        try guardingChanges(body)
    }
}
