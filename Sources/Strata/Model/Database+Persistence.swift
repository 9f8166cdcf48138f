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
        let statement = try connection.cachedStatement(registry.table.deleteSQL)
        try statement.bind(values: [registry.metadata.key.accessor.load(object)])
        try runOwnWrite(statement)
        if isInTransaction { models.noteDeleted(object) }
        registry.detach(object, deleted: true)
        reconcileLiveInstances()
    }

    // MARK: Internals

    func save(_ object: ModelObject, registry: TypeRegistry) throws {
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

    private func insert(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata, table = registry.table
        let keyAccessor = metadata.key.accessor
        var key: SQLValue
        if metadata.keyIsInteger {
            let current = keyAccessor.int64Key(object) ?? 0
            if current == 0 && !metadata.randomKeys {
                let statement = try connection.cachedStatement(table.insertWithoutKeySQL)
                try bind(object, properties: 1..<metadata.properties.count, to: statement, registry: registry)
                try runOwnWrite(statement)
                let rowID = lastInsertRowID
                try keyAccessor.store(.integer(rowID), into: object)
                registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : String(rowID))
                if isInTransaction { object._insertGeneration = models.generation }
                return
            }
            key = .integer(current == 0 ? Int64.random(in: 1...Int64.max) : current)
            if current == 0 { try keyAccessor.store(key, into: object) }
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
    }

    /// INSERT, or UPDATE when the row exists already (a row written by another tool, or deleted and
    /// re-saved), with the key the instance holds.
    private func upsert(_ object: ModelObject, key: SQLValue, registry: TypeRegistry) throws {
        let table = registry.table
        let statement = try connection.cachedStatement(table.upsertSQL)
        try bind(object, properties: 0..<registry.metadata.properties.count, to: statement, registry: registry)
        var rowID: Int64 = 0
        if case .integer(let v) = key, table.keyIsRowID { rowID = v }
        models.ownWrite = true
        defer { models.ownWrite = false; statement.reset() }
        while try statement.step() {
            if table.selectsRowID { rowID = statement.int64(at: 0) }
        }
        registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : TypeRegistry.textKey(key))
        if isInTransaction { object._insertGeneration = models.generation }
    }

    private func update(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let count = metadata.properties.count
        guard count > 1 else { return }
        let statement = try connection.cachedStatement(registry.table.updateSQL)
        try bind(object, properties: 1..<metadata.properties.count, to: statement, registry: registry)
        do {
            try metadata.key.accessor.bind(object, to: statement, at: Int32(count))
        } catch let error as ValueConversionError {
            throw error.located(column: metadata.key.name, model: metadata.typeName, property: metadata.key.name)
        }
        try runOwnWrite(statement)
        if changes == 0 {
            // The row is gone (deleted by another connection): write it again rather than lose the values.
            try upsert(object, key: metadata.key.accessor.load(object), registry: registry)
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

    /// Steps a write the library makes itself, so the update hook does not schedule a refresh for it.
    @inline(__always)
    func runOwnWrite(_ statement: Statement) throws {
        models.ownWrite = true
        defer {
            models.ownWrite = false
            statement.reset()
        }
        while try statement.step() {}
    }
}
