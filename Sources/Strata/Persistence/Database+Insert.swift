// Inserting a new instance: the INSERT (never an upsert, but for declared upsert keys), the key it gets, and
// registering the instance. The public entry points are in Database+Persistence.swift.
extension Database {
    /// INSERT, never an upsert: a row that has the key already is a ``ModelError/Kind/duplicateKey`` error.
    /// (A model's declared upsert keys are the one exception, and they match by those properties only.)
    func insert(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata, table = registry.table
        if !metadata.upsertKeys.isEmpty {
            let ownKey = try metadata.key.accessor.load(object)
            if try adoptRowMatchingUpsertKeys(object, registry: registry) {
                // Noted as an insert: a rollback (of this save, or of a batch or savepoint around it) makes the
                // instance unsaved again with its values and its own key, instead of the live instance of a
                // row it never wrote. The update runs in a savepoint, so that its failure undoes the adoption
                // inside a block too (where the block's rollback might never come).
                return try atomically {
                    noteInserted(object, registry: registry, keyWasAssigned: false, adoptedFromKey: ownKey)
                    try update(object, registry: registry)
                }
            }
        }
        if !table.requiredColumns.isEmpty {
            throw ModelError(.missingColumns, model: metadata.typeName, properties: table.requiredColumns,
                             "cannot insert into \"\(table.table)\": its NOT NULL column(s) \(table.requiredColumns.map { "\"\($0)\"" }.joined(separator: ", ")) have no default and the model does not map them. Fetching and updating work; to insert, add properties for them")
        }
        let keyAccessor = metadata.key.accessor
        let count = metadata.properties.count
        var key: SQLValue
        var keyWasAssigned = false
        if metadata.keyIsInteger {
            let current = keyAccessor.int64Key(object) ?? 0
            if current == 0 && !metadata.randomKeys && table.keyIsRowID {
                if table.insertsReturningRow { return try insertReturningRow(object, registry: registry, key: nil, keyWasAssigned: false) }
                let statement = try table.statement(.insertWithoutKey, in: connection)
                try bind(object, properties: 1..<count, to: statement, registry: registry)
                do {
                    try runOwnWrite(statement, registry: registry, rowID: 0, insert: true)
                } catch {
                    throw saveFailed(error, object: object, registry: registry, updating: nil, written: ColumnSet(1..<count))
                }
                if changes == 0 && !table.isView { throw writeIgnored(registry, key: nil) }
                let rowID = lastInsertRowID
                try keyAccessor.store(.integer(rowID), into: object)
                registry.register(object, rowID: rowID, textKey: nil)
                registry.capture(object)
                if table.hasInsertTriggers { refresh(object, registry: registry) }
                noteInserted(object, registry: registry, keyWasAssigned: true)
                return
            }
            if current == 0 {
                // Random keys (FCModel's choice), or the next key of an integer key that is not the rowid
                // (`INT PRIMARY KEY`, WITHOUT ROWID), which SQLite would otherwise leave NULL. Saves run in a
                // write transaction, so no other connection can take the same key before this INSERT.
                key = .integer(metadata.randomKeys ? Int64.random(in: 1...Int64.max) : try nextIntegerKey(registry))
                try keyAccessor.store(key, into: object)
                keyWasAssigned = true
            } else {
                key = .integer(current)
            }
        } else {
            if metadata.keyCount > 1 {
                // A key part that refers to a deleted object has no key (or a dead one): say so, not "unset".
                for i in 0..<metadata.keyCount where metadata.properties[i].related != nil {
                    if let error = deletedTarget(of: object, property: i, metadata: metadata) { throw error }
                }
            }
            key = try keyAccessor.load(object)
            let parts = metadata.keyCount > 1 ? try CompositeKey(sqlValue: key).values : [key]
            if parts.contains(where: \.isNull) {
                throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name,
                                 "the key must be set before saving (only integer keys are assigned by SQLite)")
            }
            if table.keyTextBecomesNumber, case .text(let text) = key,
               NumericText.isNumeral(text.trimmingCharacters(in: .whitespaces)) {
                throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name, key: key,
                                 "the key column \"\(table.table)\".\"\(table.columns[0])\" has numeric affinity, which would store the key '\(text)' as a number, and the row could not be found by its key again; nothing was written. Use a key that is not a numeral, or an integer key")
            }
            if metadata.keyCount == 1, table.schemaDefaults.first == 0, key == metadata.properties[0].defaultValue {
                // A key left at its init() value over a key column with a DEFAULT (a random hex id): the
                // DEFAULT makes it, and the instance reads it back. A rollback gives the instance its own again.
                return try insertReturningRow(object, registry: registry, key: nil, keyWasAssigned: false, originalKey: key)
            }
        }
        if registry.instance(key: key) != nil {
            if keyWasAssigned { try? keyAccessor.store(.integer(0), into: object) }
            throw ModelError(.duplicateInstance, model: metadata.typeName, property: metadata.key.name, key: key,
                             "another live instance already stands for the row with key \(key); change that one, or fetch it with object(_:forKey:)")
        }
        // A key another tool may store in another form (7 as '7' in a column with no type): the INSERT's
        // own check sees only the form it writes, so a row holding the other one is looked for first. Not
        // for a UUID's other case: that SELECT cost about 30% of every insert into a table with text UUID
        // keys (Strata's own included), for a column two tools write in two cases (Limitations).
        if table.keyHasTwoForms && !table.keyFormsAreCases, let stored = try storedForm(of: key, registry: registry) {
            if keyWasAssigned { try? keyAccessor.store(.integer(0), into: object) }
            throw ModelError(.duplicateKey, model: metadata.typeName, property: metadata.key.name, key: key,
                             "a row with this key exists already, stored as \(stored) in \"\(table.table)\".\"\(table.columns[0])\"; nothing was written")
        }
        if table.insertsReturningRow { return try insertReturningRow(object, registry: registry, key: key, keyWasAssigned: keyWasAssigned) }
        let statement = try table.statement(.insert, in: connection)
        var rowID: Int64 = 0
        if case .integer(let v) = key, table.keyIsRowID { rowID = v }
        do {
            try bind(object, properties: 0..<count, to: statement, registry: registry)
            // The rowid of a row keyed otherwise is not known before the insert: its first change is own.
            try ownWrite(registry: registry, rowID: rowID, insert: true, anyRow: !table.keyIsRowID) {
                defer { statement.reset() }
                while try statement.step() {
                    if table.selectsRowID { rowID = statement.int64(at: 0) }
                }
            }
            if changes == 0 && !table.isView { throw writeIgnored(registry, key: nil) }
        } catch {
            if keyWasAssigned { try? keyAccessor.store(.integer(0), into: object) }
            throw saveFailed(error, object: object, registry: registry, updating: nil, written: ColumnSet(0..<count))
        }
        registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : TypeRegistry.textKey(key))
        registry.capture(object)
        if table.hasInsertTriggers { refresh(object, registry: registry) }
        noteInserted(object, registry: registry, keyWasAssigned: keyWasAssigned)
    }

    /// The general INSERT, for tables with generated columns or schema defaults: writes every property but
    /// those (and the key, when `key` is nil: SQLite assigns it), leaves to its DEFAULT each property that
    /// still holds its `init()` value, and reads the stored row back into the instance (`RETURNING`), so it
    /// holds what the defaults and generated columns made.
    func insertReturningRow(_ object: ModelObject, registry: TypeRegistry, key: SQLValue?, keyWasAssigned: Bool,
                                    originalKey: SQLValue? = nil) throws {
        let metadata = registry.metadata, table = registry.table
        var included = ColumnSet()
        for i in (key == nil ? 1 : 0)..<metadata.properties.count { included.insert(i) }
        table.generated.forEach { included.remove($0) }
        for i in table.schemaDefaults where try metadata.properties[i].accessor.load(object) == metadata.properties[i].defaultValue {
            included.remove(i)
        }
        let statement = try table.insertStatement(included, in: connection)
        var rowID: Int64 = 0
        do {
            var count: Int32 = 0
            try bind(object, properties: included, to: statement, registry: registry, count: &count)
            // The row is decoded into a scratch instance first: a stored value the model cannot read (a
            // DEFAULT 'abc' of an Int property) fails the save with the instance as it was, key included.
            var stored: ModelObject?
            try ownWrite(registry: registry, rowID: 0, insert: true, anyRow: true) {
                defer { statement.reset() }
                guard try statement.step() else { return }
                let row = metadata.makeInstance()
                try decodeRow(statement, into: row, registry: registry)
                stored = row
                if table.selectsRowID { rowID = statement.int64(at: Int32(metadata.properties.count)) }
                while try statement.step() {}
            }
            if changes == 0 && !table.isView { throw writeIgnored(registry, key: nil) }
            if let stored {
                for property in metadata.properties {
                    let value = try property.accessor.load(stored)
                    if try property.accessor.load(object) != value { try property.accessor.store(value, into: object) }
                }
            }
        } catch {
            if keyWasAssigned { try? metadata.key.accessor.store(.integer(0), into: object) }
            throw saveFailed(error, object: object, registry: registry, updating: nil, written: included)
        }
        let stored = try metadata.key.accessor.load(object)
        if table.keyIsRowID { rowID = try Int64(sqlValue: stored) }
        registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : TypeRegistry.textKey(stored))
        registry.capture(object)
        // (RETURNING gives the row before AFTER triggers ran.)
        if table.hasInsertTriggers { refresh(object, registry: registry) }
        noteInserted(object, registry: registry, keyWasAssigned: originalKey == nil && (keyWasAssigned || key == nil), adoptedFromKey: originalKey)
    }

    /// When a row has the values of the model's upsert keys that `object` has, makes `object` the live
    /// instance of that row (taking its key; its snapshot is the row, so the update that follows writes
    /// what differs). Throws when another live instance stands for the row already.
    func adoptRowMatchingUpsertKeys(_ object: ModelObject, registry: TypeRegistry) throws -> Bool {
        let metadata = registry.metadata, table = registry.table
        let conditions = metadata.upsertKeys.map { "\(SQL.quote(table.columns[$0])) = ?" }.joined(separator: " AND ")
        // Two rows at most: a second one means the values name no single row, which no guess may settle.
        let statement = try connection.cachedStatement("SELECT \(table.selectColumns) FROM \(SQL.quote(table.table)) WHERE \(conditions) LIMIT 2")
        defer { statement.reset() }
        try bind(object, properties: metadata.upsertKeys, to: statement, registry: registry)
        guard try statement.step() else { return false }
        let row = metadata.makeInstance()
        try decodeRow(statement, into: row, registry: registry)
        let key = try metadata.key.accessor.load(row)
        if try statement.step() {
            let names = metadata.upsertKeys.map { metadata.properties[$0].name }
            let other = table.key(from: statement).map { " and \($0)" } ?? ""
            throw ModelError(.duplicateKey, model: metadata.typeName, key: key, properties: names,
                             "the upsert-key values (\(names.joined(separator: ", "))) of the new instance match more than one row of \"\(table.table)\" (keys \(key)\(other)), so they name no single row to update; nothing was written. Make the upsert keys unique (a UNIQUE index over them) or remove the duplicate rows")
        }
        if registry.instance(key: key) != nil {
            throw ModelError(.duplicateInstance, model: metadata.typeName, key: key,
                             properties: metadata.upsertKeys.map { metadata.properties[$0].name },
                             "the row with these upsert-key values already has a live instance; change that one")
        }
        let rowID = table.selectsRowID ? statement.int64(at: Int32(metadata.properties.count))
            : (table.keyIsRowID ? (try Int64(sqlValue: key)) : 0)
        try metadata.key.accessor.store(key, into: object)
        registry.register(object, rowID: rowID, textKey: table.keyIsRowID ? nil : TypeRegistry.textKey(key))
        registry.capture(object, row: row)
        return true
    }

    /// The key of the row that has `key` in any of its forms (``TableMapping/keyHasTwoForms``), as stored.
    func storedForm(of key: SQLValue, registry: TypeRegistry) throws -> SQLValue? {
        let table = registry.table
        let statement = try connection.cachedStatement("SELECT \(table.keyColumnList) FROM \(SQL.quote(table.table)) WHERE \(table.keyClause) LIMIT 1")
        defer { statement.reset() }
        try table.bindKey(key, to: statement, at: 1)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// `max(key) + 1` of a table whose integer key SQLite does not assign: the largest number among the
    /// keys (`key < ''`: SQLite orders every text after every number, so a plain `max` would give a text key
    /// another tool stored, 'abc' or '7', and `+ 1` a key that may be taken); in a column with no type, whose
    /// integer keys may be stored as their text ('7'), the largest such text too. Both searches use the key's
    /// index.
    func nextIntegerKey(_ registry: TypeRegistry) throws -> Int64 {
        let metadata = registry.metadata, column = SQL.quote(registry.table.columns[0]), table = SQL.quote(metadata.tableName)
        let numbers = "SELECT coalesce(max(\(column)), 0) FROM \(table) WHERE \(column) < ''"
        let texts = "SELECT coalesce(max(CAST(\(column) AS INTEGER)), 0) FROM \(table) WHERE \(column) >= '' AND \(column) < x''"
        let statement = try connection.cachedStatement(registry.table.keyHasTwoForms && metadata.keyIsInteger
            ? "SELECT max((\(numbers)), (\(texts))) + 1" : "SELECT (\(numbers)) + 1")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 1
    }

    /// A child of `registry` was saved with another parent: inside a transaction, a rollback drops every
    /// loaded array over its type (the instance that could find them may be freed by then).
    func noteChildMoved(_ registry: TypeRegistry) {
        if isInTransaction { models.childTypesWrittenInTransaction.insert(ObjectIdentifier(registry)) }
    }

    /// After an insert: the loaded arrays of the new row's parents (``Children``) are dropped, so their next
    /// read includes it; inside a transaction, the insert is remembered, so a rollback can make the instance
    /// unsaved again.
    func noteInserted(_ object: ModelObject, registry: TypeRegistry, keyWasAssigned: Bool, adoptedFromKey: SQLValue? = nil) {
        models.changeCount &+= 1   // (WITHOUT ROWID tables have no update hook)
        if registry.hasParentArrays { registry.dropParentsArrays(of: object, holdingIt: false) }
        if isInTransaction {
            models.insertedInTransaction.append(InsertedInstance(object: object, depth: transactionDepth, keyWasAssigned: keyWasAssigned,
                                                                 adoptedFromKey: adoptedFromKey))
        }
    }
}
