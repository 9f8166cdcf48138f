
extension Database {
    /// Saves `object`: an INSERT for a new instance, an UPDATE of only the properties that changed since
    /// the instance last read or wrote its row for a saved one (nothing at all when none changed). A new
    /// integer key of 0 (or nil) lets SQLite assign one, which the instance then holds; the instance
    /// becomes the live instance of its row. Each column is written in the format it already uses.
    ///
    /// Outside a transaction the save runs in its own IMMEDIATE transaction, so what other connections
    /// committed is merged into the live instances first (see ``ModelError/Kind/conflict``).
    ///
    /// ```swift
    /// let ada = Employee(); ada.name = "Ada"
    /// try db.save(ada)        // INSERT; ada.employeeId is now set
    /// ada.name = "Ada L."
    /// try db.save(ada)        // UPDATE "Employee" SET "name" = ? WHERE "employeeId" = ?
    /// try db.save(ada)        // nothing changed: no SQL
    /// ```
    public func save<T: Model>(_ object: T) throws {
        // Unretained: the handle keeps its registries (no reference counting on a run of saves).
        try unretainedRegistry(for: T.self, checkingCommits: false)._withUnsafeGuaranteedRef { registry in
            do { try save(object, in: registry) } catch {
                noteRefusedSave(of: [object], registry: registry)
                throw error
            }
        }
    }

    /// A save inside a transaction block failed: when the block rolls back, `objects` read their rows again
    /// and drop their unsaved changes, which were made for the block (a retried block makes them again).
    /// When the failure itself ended the block's transaction (a trigger's RAISE(ROLLBACK), an ON CONFLICT
    /// ROLLBACK constraint, SQLITE_FULL), that rollback has happened: they read their rows now.
    /// The same holds inside a raw `BEGIN`: its rollback, or a failure that ended it, gives them their rows.
    /// A save of its own (outside any transaction) keeps the changes: only its own transaction is gone.
    @inline(never)
    private func noteRefusedSave(of objects: [ModelObject], registry: TypeRegistry) {
        let endedByFailure = models.failureEndedTransaction
        models.failureEndedTransaction = false
        if isInTransaction {
            for object in objects { models.refusedInTransaction[ObjectIdentifier(object)] = (object, transactionDepth) }
        } else if transactionDepth > 0 || endedByFailure {
            for object in objects where object._registry === registry && !object._isDeleted {
                refresh(object, registry: registry, .discard)
            }
        }
    }

    /// ``save(_:)-(T)`` with the type's registry.
    @inline(__always)
    private func save(_ object: ModelObject, in registry: TypeRegistry) throws {
        if object._registry === registry, !object._isDeleted, !registry.needsAttention(object) {
            if registry.updatesPlainWords, let start = registry.metadata.plainWordsStart, object._snapshotSlot != 0 {
                let changed = registry.contiguousWordChanges(of: object, start: start)
                if changed == 0 { return }
                if isInTransaction {
                    // The transaction merged other connections' commits when it began (see below).
                    try updatePlainWords(object, registry: registry, start: start, changed: changed)
                    if !models.pending.isEmpty { reconcileLiveInstances() }
                    return
                }
            }
            let changed = registry.changes(of: object)
            if changed.isEmpty { return }
            if isInTransaction {
                // The transaction merged other connections' commits when it began: `changed` stands.
                // (`registry(for:)` checked that it is still open.)
                if registry.updatesPlainWords, let start = registry.metadata.plainWordsStart {
                    try updatePlainWords(object, registry: registry, start: start, changed: changed.lowBits)
                } else {
                    try update(object, registry: registry, changed: changed)
                }
                if !models.pending.isEmpty { reconcileLiveInstances() }
                return
            }
        }
        try saveInsertingOrOutsideTransaction(object, registry: registry)
    }

    /// The rest of ``save(_:)-(T)``: a new instance, one that needs attention, or a save outside a transaction
    /// (out of line: a run of updates inside one keeps to the short path above).
    @inline(never)
    private func saveInsertingOrOutsideTransaction(_ object: ModelObject, registry: TypeRegistry) throws {
        if isInTransaction {
            try save(object, registry: registry)
            if !models.pending.isEmpty { reconcileLiveInstances() }
        } else {
            try keepingUnsavedChanges(of: [object], registry: registry) {
                try transaction(.immediate) {
                    if models.needsResync { try resyncBeforeOwnSave(registry) }
                    try savingInOwnTransaction { try save(object, registry: registry) }
                }
            }
        }
    }

    /// Saves many objects in one IMMEDIATE transaction: all of them, or none. As with ``save(_:)-(T)``,
    /// instances that changed nothing write nothing: a batch with nothing to save runs no SQL at all (no
    /// transaction, so no write lock).
    ///
    /// ```swift
    /// try db.save([ada, grace])   // BEGIN IMMEDIATE, one INSERT or UPDATE each (changed columns only), COMMIT
    /// try db.save([ada, grace])   // nothing changed since: no SQL
    /// ```
    public func save<T: Model>(_ objects: [T]) throws {
        let registry = try registry(for: T.self, checkingCommits: false)
        let ownFields = registry.metadata.ownTypeFields
        let order = ownFields.isEmpty ? nil : InsertionOrder(objects, fields: ownFields)
        let saveAll = {
            try self.transaction(.immediate) {
                if self.models.needsResync { try self.resyncBeforeOwnSave(registry) }
                try self.savingInOwnTransaction {
                    if let order { return try self.save(order, registry: registry) }
                    for object in objects { try self.save(object, registry: registry) }
                }
            }
        }
        // Inside a transaction the batch is a savepoint, whose rollback gave the instances saved before the
        // failing one their rows: they take their edits back, as a failed save of one instance keeps its
        // edits, until the enclosing block rolls back too (then they read their rows again, so that a retried
        // block applies its changes once).
        if isInTransaction {
            do { return try keepingUnsavedChanges(of: objects, registry: registry, saveAll) } catch {
                noteRefusedSave(of: objects, registry: registry)
                throw error
            }
        }
        try keepingUnsavedChanges(of: objects, registry: registry, saveAll)
    }

    /// Saves a batch in `order` (new objects that refer to each other): the references it defers are unset
    /// for the inserts, then set and written by an UPDATE. On failure the new objects' references to their
    /// own type are put back exactly as they were (which object holds which strongly included: an insert's
    /// write makes a reference to a saved object strong, which would turn around the holds of a cycle).
    private func save(_ order: InsertionOrder, registry: TypeRegistry) throws {
        let fields = registry.metadata.ownTypeFields
        var before: [(object: ModelObject, field: AnyFieldIO, state: ReferenceState)] = []
        for object in order.ordered where object._registry == nil {
            for field in fields { if let state = field.referenceState(of: object) { before.append((object, field, state)) } }
        }
        for (object, field, _) in order.deferred { field.setHoldsItself(object, false) }
        do {
            do {
                for object in order.ordered { try save(object, registry: registry) }
            } catch let error as ModelError where error.kind == .missingValue {
                // A deferred reference over a NOT NULL column: the cycle cannot be inserted.
                let metadata = registry.metadata
                let names = order.deferred.compactMap { deferred in
                    metadata.properties.first { if case .generic(let io) = $0.accessor { io === deferred.field } else { false } }?.name
                }
                guard let name = error.property, names.contains(name) else { throw error }
                throw ModelError(.unsavedRelated, model: metadata.typeName, property: name,
                                 "new \(metadata.typeName) objects refer to each other in a cycle through \"\(name)\", whose column is NOT NULL: one of them must be inserted before the other has a key. Save one with \"\(name)\" set to a saved object first, or make the column nullable. Nothing was written")
            }
            for (object, field, target) in order.deferred { field.holdUnsaved(target, in: object) }
            for (object, _, _) in order.deferred { try update(object, registry: registry) }
        } catch {
            for (object, field, state) in before { field.restoreReferenceState(state, of: object) }
            throw error
        }
    }

    /// Runs `body`, a save of `objects` in a transaction of its own. When it fails, the rollback gave the
    /// instances the database's values: each then takes back the unsaved changes it had before the call
    /// (saved in the rolled-back transaction, they are unsaved again), but the instance whose conflict the
    /// error reports, which holds the committed values so that its change can be applied again.
    private func keepingUnsavedChanges(of objects: [ModelObject], registry: TypeRegistry, _ body: () throws -> Void) throws {
        /// A change to put back: a value, or a reference's assignment of an object never saved (which has no
        /// key to load; the rollback made it unsaved again if the transaction had inserted it).
        enum Edit { case value(SQLValue), unsavedTarget(AnyFieldIO, ModelObject) }
        var edits: [(object: ModelObject, changes: [(index: Int, edit: Edit)])] = []
        let properties = registry.metadata.properties
        // Whether every object is a live instance that a save would leave alone (as `save(_:)` does one).
        var nothingToSave = true
        for object in objects {
            guard object._registry === registry && !object._isDeleted else {
                nothingToSave = false
                continue
            }
            if registry.needsAttention(object) { nothingToSave = false }
            let changed = registry.changes(of: object)
            if changed.isEmpty { continue }
            nothingToSave = false
            var changes: [(index: Int, edit: Edit)] = []
            changed.forEach { i in
                if let value = try? properties[i].accessor.load(object) {
                    changes.append((i, .value(value)))
                } else if case .generic(let io) = properties[i].accessor, let target = io.heldTarget(of: object), target._registry == nil {
                    changes.append((i, .unsavedTarget(io, target)))
                }
            }
            edits.append((object, changes))
        }
        // No transaction (and no write lock) for a batch that changed nothing.
        if nothingToSave { return }
        if edits.isEmpty { return try body() }
        models.lastConflicted = nil
        do {
            try body()
        } catch {
            let conflicted = (error as? ModelError)?.kind == .conflict ? models.lastConflicted : nil
            for (object, changes) in edits where object._registry === registry && !object._isDeleted && ObjectIdentifier(object) != conflicted {
                for (i, edit) in changes {
                    switch edit {
                    case .value(let value): try? properties[i].accessor.store(value, into: object)
                    case .unsavedTarget(let io, let target): io.holdUnsaved(target, in: object)
                    }
                }
                if let notify = registry.metadata.observationNotifier { notify(object) }
            }
            throw error
        }
    }

    /// Deletes the row of `object` and returns true; the instance's `isDeleted` becomes true. An instance
    /// that was never saved, or is deleted already, is left alone and the result is false (also when
    /// another connection deleted the row first). A delete a foreign key refuses (RESTRICT, or NO ACTION
    /// checked at once or at the commit of the delete's own transaction) throws a ``DatabaseError`` whose
    /// message names the model, the key and the rows that still point at it, and changes nothing.
    ///
    /// ```swift
    /// try db.delete(ada)    // true
    /// ada.isDeleted         // true
    /// try db.delete(Employee())   // false: never saved
    /// ```
    @discardableResult
    public func delete<T: Model>(_ object: T) throws -> Bool {
        let registry = try registry(for: T.self, checkingCommits: false)
        guard let owner = object._registry else { return false }
        guard owner === registry else {
            throw ModelError(.foreignInstance, model: registry.metadata.typeName, "the instance belongs to another database handle")
        }
        if object._isDeleted { return false }
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        let key = try registeredKey(of: object, registry: registry)
        let statement = try registry.table.statement(.delete, in: connection)
        try registry.table.bindKey(key, to: statement, at: 1)
        do {
            try runOwnWrite(statement, registry: registry, rowID: object._rowID, deleting: true)
        } catch let error as DatabaseError where error.code.primary == .constraint && error.message.hasPrefix("FOREIGN KEY constraint failed") {
            // RESTRICT reports SQLITE_CONSTRAINT_TRIGGER, NO ACTION SQLITE_CONSTRAINT_FOREIGNKEY: the message tells.
            throw explainingForeignKeyFailure(error, registry: registry, key: key)
        }
        let deleted = changes > 0
        // No row deleted, but the row is there: a BEFORE DELETE trigger's RAISE(IGNORE) skipped the delete.
        if !deleted && !registry.table.isView && rowExists(registry, key: key) { throw writeIgnored(registry, key: key, deleting: true) }
        if isInTransaction { models.noteDeleted(object) }
        registry.detach(object, deleted: true)
        reconcileLiveInstances()
        return deleted
    }

    /// Runs `body` in an IMMEDIATE transaction, again (up to `maxAttempts` times in all) when it throws a
    /// ``ModelError`` of kind ``ModelError/Kind/conflict``: the conflicting instance then holds the
    /// committed values, so the block applies its change to them.
    ///
    /// ```swift
    /// try db.retryingOnConflict {
    ///     counter.value += 1
    ///     try db.save(counter)
    /// }
    /// ```
    @discardableResult
    public func retryingOnConflict<T>(maxAttempts: Int = 5, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try transaction(.immediate, body)
            } catch let error as ModelError where error.kind == .conflict && attempt < maxAttempts {
                attempt += 1
            }
        }
    }

    // MARK: Internals

    func save(_ object: ModelObject, registry: TypeRegistry) throws {
        try checkTransactionIsOpen()
        let metadata = registry.metadata
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        if object._isDeleted {
            throw ModelError(.deleted, model: metadata.typeName, "the instance was deleted; make a new one to insert the row again")
        }
        if let owner = object._registry {
            guard owner === registry else {
                throw ModelError(.foreignInstance, model: metadata.typeName, "the instance belongs to another database handle")
            }
            try update(object, registry: registry)
        } else {
            let selfReferences = metadata.fieldsHoldingItself(object)
            if selfReferences.isEmpty { return try insert(object, registry: registry) }
            // A new object that refers to itself: inserted with those references unset (it has no key
            // yet), then updated with its own key, in a savepoint: the two statements are one save, all or
            // nothing (inside a block too, where a failed update would otherwise leave the insert behind).
            try atomically {
                for field in selfReferences { field.setHoldsItself(object, false) }
                do {
                    defer { for field in selfReferences { field.setHoldsItself(object, true) } }
                    try insert(object, registry: registry)
                }
                try update(object, registry: registry)
            }
        }
    }

    /// The save's model was looked up before the transaction Strata opened for it began; beginning it merged
    /// other connections' commits, and one of them changed the schema (another tool rebuilt the table, and
    /// dropped or moved columns the mapping names). The model's table is synced again, inside that
    /// transaction, before the save writes: columns the model declares and the table lost are added back,
    /// the other tool's are kept, live instances read their rows again. Out of line: rarely taken.
    @inline(never)
    private func resyncBeforeOwnSave(_ registry: TypeRegistry) throws {
        try resyncAll(for: ObjectIdentifier(registry.metadata.type))
    }

    /// Runs `body`, the save Strata opened the current transaction (or savepoint) for.
    private func savingInOwnTransaction<T>(_ body: () throws -> T) throws -> T {
        let outer = models.ownSaveDepth
        models.ownSaveDepth = transactionDepth
        defer { models.ownSaveDepth = outer }
        return try body()
    }

    /// Runs `body`, the statements of one save, all or nothing: in a savepoint inside a transaction block,
    /// directly inside the transaction Strata opened for the save (whose rollback undoes them): no
    /// SAVEPOINT statements for a save of its own or a batch.
    private func atomically<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth == models.ownSaveDepth { return try body() }
        return try transaction(nil, body)
    }

    private func readOnlyError(_ registry: TypeRegistry, _ reason: String) -> ModelError {
        ModelError(.readOnly, model: registry.metadata.typeName, "cannot write: \(reason); nothing was written")
    }

    /// The key `object` was registered under, after checking that its key property still holds it
    /// (``TypeRegistry/checkedKey(of:)``).
    private func registeredKey(of object: ModelObject, registry: TypeRegistry) throws -> SQLValue {
        try registry.checkedKey(of: object)
    }

    /// INSERT, never an upsert: a row that has the key already is a ``ModelError/Kind/duplicateKey`` error.
    /// (A model's declared upsert keys are the one exception, and they match by those properties only.)
    private func insert(_ object: ModelObject, registry: TypeRegistry) throws {
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
    private func insertReturningRow(_ object: ModelObject, registry: TypeRegistry, key: SQLValue?, keyWasAssigned: Bool,
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
    private func adoptRowMatchingUpsertKeys(_ object: ModelObject, registry: TypeRegistry) throws -> Bool {
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
    private func storedForm(of key: SQLValue, registry: TypeRegistry) throws -> SQLValue? {
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
    private func nextIntegerKey(_ registry: TypeRegistry) throws -> Int64 {
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
    private func noteChildMoved(_ registry: TypeRegistry) {
        if isInTransaction { models.childTypesWrittenInTransaction.insert(ObjectIdentifier(registry)) }
    }

    /// After an insert: the loaded arrays of the new row's parents (``Children``) are dropped, so their next
    /// read includes it; inside a transaction, the insert is remembered, so a rollback can make the instance
    /// unsaved again.
    private func noteInserted(_ object: ModelObject, registry: TypeRegistry, keyWasAssigned: Bool, adoptedFromKey: SQLValue? = nil) {
        models.changeCount &+= 1   // (WITHOUT ROWID tables have no update hook)
        if registry.hasParentArrays { registry.dropParentsArrays(of: object, holdingIt: false) }
        if isInTransaction {
            models.insertedInTransaction.append(InsertedInstance(object: object, depth: transactionDepth, keyWasAssigned: keyWasAssigned,
                                                                 adoptedFromKey: adoptedFromKey))
        }
    }

    /// UPDATE of the properties that changed since the snapshot; none changed: nothing. A row that is
    /// gone (0 rows changed) is never re-inserted: the instance is marked deleted and the save throws.
    @inline(never)   // (kept out of updatePlainWords, which falls back to it)
    private func update(_ object: ModelObject, registry: TypeRegistry, changed known: ColumnSet? = nil) throws {
        let metadata = registry.metadata
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        // (With `known`, the caller checked the instance needs no attention.)
        if known == nil && registry.needsAttention(object) { try throwConflictOrStale(object, registry: registry) }
        // A changed key property is refused here: the instance stays the row it was.
        let key = try registeredKey(of: object, registry: registry)
        var changed = known ?? registry.changes(of: object)
        for part in 0..<metadata.keyCount { changed.remove(part) }
        guard !changed.isEmpty else { return }
        if !registry.table.generated.isEmpty {
            var written = changed
            registry.table.generated.forEach { written.remove($0) }
            if written != changed {
                let names = registry.table.generated.indices.filter { !written.contains($0) && changed.contains($0) }.map { metadata.properties[$0].name }
                throw ModelError(.readOnly, model: metadata.typeName, property: names.first, key: key, properties: names,
                                 "\(names.joined(separator: ", ")) map(s) to generated column(s), which SQLite computes: they are read, never written; nothing was written")
            }
        }
        let statement = try registry.table.updateStatement(changed, in: connection)
        var count: Int32 = 0
        try bind(object, properties: changed, to: statement, registry: registry, count: &count)
        try registry.table.bindKey(key, to: statement, at: count + 1)
        do {
            try runOwnWrite(statement, registry: registry, rowID: object._rowID, writing: object)
        } catch {
            throw saveFailed(error, object: object, registry: registry, updating: key, written: changed)
        }
        // (A view's INSTEAD OF trigger makes its changes in other tables: SQLite counts none for the view.)
        guard changes > 0 || registry.table.isView else { throw rowGoneOrWriteIgnored(object, registry: registry, key: key) }
        if registry.hasParentArrays && registry.dropArraysOfMovedChild(object, changed: changed) { noteChildMoved(registry) }
        updated(object, properties: changed, registry: registry)
        // Generated columns follow the columns written, with no update-hook report of their own, as do the
        // writes of a WITHOUT ROWID table's triggers to its own rows: read them.
        if !registry.table.generated.isEmpty || (!registry.table.hasRowID && registry.table.hasUpdateTriggers) {
            refresh(object, registry: registry)
        }
    }

    /// ``update(_:registry:changed:)`` inside a transaction for the most common shape
    /// (``TypeRegistry/updatesPlainWords``): the key and each changed field read and bound in place, with no
    /// ``SQLValue`` and no lookup per save, and the statement stepped here. The same checks, in the same
    /// order; a key property changed since the instance was registered takes the general path, which refuses it.
    private func updatePlainWords(_ object: ModelObject, registry: TypeRegistry, start: Int, changed known: UInt64) throws {
        guard Int64(bitPattern: loadPlainWord(object, start: start, index: 0)) == object._rowID else {
            return try update(object, registry: registry, changed: ColumnSet(low: known))
        }
        let changed = known & ~1
        guard changed != 0 else { return }
        // Unretained: the mapping's cache of statements holds it for this one use.
        try registry.table.unretainedUpdateStatement(ColumnSet(low: changed), in: connection)._withUnsafeGuaranteedRef {
            try updatePlainWords(object, registry: registry, start: start, changed: changed, statement: $0)
        }
    }

    /// The rest of ``updatePlainWords(_:registry:start:changed:)``, with its statement.
    @inline(__always)
    private func updatePlainWords(_ object: ModelObject, registry: TypeRegistry, start: Int, changed: UInt64, statement: Statement) throws {
        let reals = registry.plainRealMask
        var parameter: Int32 = 1
        var bits = changed
        while bits != 0 {
            let i = bits.trailingZeroBitCount
            if !bindPlainWord(object, start: start, index: i, isReal: reals & (1 << UInt64(i)) != 0, to: statement, at: parameter) {
                try bindConverting(object, property: i, to: statement, at: parameter, registry: registry)
            }
            parameter += 1
            bits &= bits - 1
        }
        let rowID = object._rowID
        statement.bind(int64: rowID, at: parameter)
        do {
            try ownWrite(registry: registry, rowID: rowID, inTransaction: true) {
                defer { statement.reset() }
                while try statement.step() {}
            }
        } catch {
            throw saveFailed(error, object: object, registry: registry, updating: .integer(rowID), written: ColumnSet(low: changed))
        }
        guard connection.changes > 0 else {
            throw rowGoneOrWriteIgnored(object, registry: registry, key: .integer(rowID))
        }
        if registry.hasParentArrays && registry.dropArraysOfMovedChild(object, changed: ColumnSet(low: changed)) { noteChildMoved(registry) }
        if object._snapshotSlot != 0 {
            registry.capturePlainWords(object, start: start, properties: changed)
        } else {
            registry.capture(object, properties: ColumnSet(low: changed))
        }
        if !models.observers.isEmpty { recordUpdate(object, properties: ColumnSet(low: changed), registry: registry) }
    }

    /// The error a failed INSERT or UPDATE of a save throws (out of line: the save's hot path stays short): a
    /// UNIQUE or NOT NULL violation as a ``ModelError`` (``duplicateKeyError(_:object:registry:)``); any other
    /// constraint (CHECK, a STRICT column's type, a foreign key, a trigger's RAISE) as SQLite's error, code,
    /// SQL and arguments kept, with a message that goes on to name the model, the key (`updating`, nil for an
    /// insert) and the properties written — the column's property, when SQLite names a column.
    @inline(never)
    private func saveFailed(_ error: any Error, object: ModelObject, registry: TypeRegistry, updating key: SQLValue?, written: ColumnSet) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if error.code.isUniqueViolation || error.code == .constraintNotNull {
            return duplicateKeyError(error, object: object, registry: registry)
        }
        guard error.code.primary == .constraint else { return error }
        let metadata = registry.metadata, table = registry.table
        // "cannot store TEXT value in INTEGER column t.amount" (STRICT): the column is named.
        var names: [String] = []
        if error.message.hasPrefix("cannot store"), let column = error.message.split(separator: ".").last,
           let index = table.columns.firstIndex(where: { $0.sqlNameEquals(column) }) {
            names = [metadata.properties[index].name + (table.columns[index] == metadata.properties[index].name ? "" : " (column \"\(table.columns[index])\")")]
        } else {
            names = written.indices.filter { $0 < metadata.properties.count }.map { metadata.properties[$0].name }
        }
        let what = key.map { "updating \(metadata.typeName) (key \($0))" } ?? "inserting a new \(metadata.typeName)"
        let message = "\(error.message): \(what), writing \(names.isEmpty ? "no property" : names.joined(separator: ", ")) of table \"\(table.table)\". Nothing was written"
        return DatabaseError(code: error.code, message: message, sql: error.sql, arguments: error.arguments,
                             argumentsArePublic: error.argumentsArePublic)
    }

    /// After an UPDATE that changed no row: ``writeIgnored(_:key:)`` when the row is there (a BEFORE UPDATE
    /// trigger's `RAISE(IGNORE)` skipped it: the instance keeps its changes), else ``rowGone(_:registry:key:)``.
    /// (Out of line: the failure path reads the row by key.)
    @inline(never)
    private func rowGoneOrWriteIgnored(_ object: ModelObject, registry: TypeRegistry, key: SQLValue) -> ModelError {
        rowExists(registry, key: key) ? writeIgnored(registry, key: key) : rowGone(object, registry: registry, key: key)
    }

    /// Whether the table of `registry` has a row with `key` (false when it cannot tell). Read on failure paths.
    @inline(never)
    private func rowExists(_ registry: TypeRegistry, key: SQLValue) -> Bool {
        let table = registry.table
        guard let statement = try? connection.cachedStatement("SELECT 1 FROM \(SQL.quote(table.table)) WHERE \(table.keyClause)") else { return false }
        defer { statement.reset() }
        return (try? table.bindKey(key, to: statement, at: 1)) != nil && (try? statement.step()) == true
    }

    /// The error for an INSERT (`key` nil), UPDATE or DELETE that SQLite skipped without an error: a
    /// trigger's `RAISE(IGNORE)`, or for an insert or update an `ON CONFLICT IGNORE` constraint. No row was written;
    /// the instance stays as it was (unsaved, or with its changes, or not deleted).
    private func writeIgnored(_ registry: TypeRegistry, key: SQLValue?, deleting: Bool = false) -> ModelError {
        let metadata = registry.metadata
        let what = key == nil ? "the INSERT of a new \(metadata.typeName)" : deleting ? "the DELETE" : "the UPDATE"
        let kept = key == nil ? "and stays unsaved" : deleting ? "and is not deleted" : "and its unsaved changes"
        return ModelError(.readOnly, model: metadata.typeName, key: key,
                          "\(what) \(deleting ? "deleted" : "wrote") no row of \"\(registry.table.table)\": a trigger's RAISE(IGNORE)\(deleting ? "" : ", or an ON CONFLICT IGNORE constraint,") skipped it. Nothing was written; the instance keeps its values \(kept)")
    }

    /// After an UPDATE that changed no row: the row is gone, so the instance is marked deleted (a save never
    /// re-creates a row); the error to throw.
    private func rowGone(_ object: ModelObject, registry: TypeRegistry, key: SQLValue) -> ModelError {
        if isInTransaction { models.noteDeleted(object) }
        registry.detach(object, deleted: true)
        return ModelError(.notFound, model: registry.metadata.typeName, key: key,
                          "the row is gone: another connection or raw SQL deleted it, or changed its key, after this instance read it. Nothing was written (a save never re-creates a row); the instance is now marked deleted")
    }

    /// After an UPDATE of `properties`: they are the instance's stored values now; observers hear of them.
    @inline(__always)
    private func updated(_ object: ModelObject, properties changed: ColumnSet, registry: TypeRegistry) {
        registry.capture(object, properties: changed)
        if !models.observers.isEmpty { recordUpdate(object, properties: changed, registry: registry) }
    }

    @inline(never)
    private func recordUpdate(_ object: ModelObject, properties changed: ColumnSet, registry: TypeRegistry) {
        let metadata = registry.metadata
        models.recordProperties(changed.indices.map { metadata.properties[$0].name }, table: metadata.tableName, rowID: object._rowID)
    }

    /// Throws the conflict or stale error recorded for `object`; a conflicted instance first takes the
    /// committed values, so that applying the change again works.
    private func throwConflictOrStale(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let key = try? registeredKey(of: object, registry: registry)
        if let error = staleError(object, registry: registry, key: key) { throw error }
        let columns = registry.conflicts.removeValue(forKey: ObjectIdentifier(object)) ?? []
        refresh(object, registry: registry, .discard)
        models.lastConflicted = ObjectIdentifier(object)
        throw ModelError(.conflict, model: metadata.typeName, key: key, properties: columns,
                         "another connection or raw SQL changed \(columns.joined(separator: ", ")) after this instance read them, and this instance changed them too. Nothing was written; the instance now holds the committed values: apply the change again and save (Database.retryingOnConflict does this)")
    }

    /// Binds the properties of a set to parameters 1, 2, ... in order; `count` is how many.
    @inline(__always)
    private func bind(_ object: ModelObject, properties: ColumnSet, to statement: Statement, registry: TypeRegistry, count: inout Int32) throws {
        var index: Int32 = 1
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals {
            // Fields of 8-byte numbers side by side, all bound natively.
            try reals.withUnsafeBufferPointer { reals in
                try properties.forEach { i in
                    if !bindPlainWord(object, start: start, index: i, isReal: reals[i], to: statement, at: index) {
                        try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                    }
                    index += 1
                }
            }
            count = index - 1
            return
        }
        try registry.fields.withUnsafeBufferPointer { fields in
            try properties.forEach { i in
                if fields[i]?.bind(object, to: statement, at: index) != true {
                    try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                }
                index += 1
            }
        }
        count = index - 1
    }

    /// Binds the given properties to parameters 1, 2, ... in order, each in its column's format.
    @inline(__always)
    func bind<Properties: Sequence<Int>>(_ object: ModelObject, properties: Properties, to statement: Statement, registry: TypeRegistry) throws {
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals {
            // Fields of 8-byte numbers side by side, all bound natively.
            try reals.withUnsafeBufferPointer { reals in
                var index: Int32 = 1
                for i in properties {
                    if !bindPlainWord(object, start: start, index: i, isReal: reals[i], to: statement, at: index) {
                        try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                    }
                    index += 1
                }
            }
            return
        }
        try registry.fields.withUnsafeBufferPointer { fields in
            var index: Int32 = 1
            for i in properties {
                if fields[i]?.bind(object, to: statement, at: index) != true {
                    try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                }
                index += 1
            }
        }
    }

    /// Binds one property through its codec and its column's format; NaN is refused (SQLite would
    /// store NULL, which a non-optional property cannot read back).
    @inline(never)   // the rare path of the binding loops
    private func bindConverting(_ object: ModelObject, property i: Int, to statement: Statement, at index: Int32, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        do {
            if case .jsonText = registry.table.formats[i], case .generic(let io) = metadata.properties[i].accessor {
                try statement.bind(try io.load(object, format: registry.table.formats[i]), at: index)
                return
            }
            if metadata.properties[i].related != nil, let error = deletedTarget(of: object, property: i, metadata: metadata) { throw error }
            var value = try metadata.properties[i].accessor.load(object)
            if case .real(let d) = value, d.isNaN {
                throw ValueConversionError(expected: Double.self, found: value,
                                           reason: "NaN cannot be stored: SQLite would store NULL; store nil in an optional, or a number")
            }
            // A Decimal NaN's text ("NaN") is no number any fetch could read back.
            if metadata.properties[i].formatKind == .decimal, case .text("NaN") = value {
                var error = ValueConversionError(expected: Double.self, found: value,
                                                 reason: "NaN cannot be stored: no fetch could read it back; store nil in an optional, or a number")
                error.expected = "Decimal"
                throw error
            }
            let format = registry.table.formats[i]
            if format == .dateText { value = try registry.table.storedDate(value, at: i) } else if format != .native { value = try format.stored(value) }
            try statement.bind(value, at: index)
        } catch var error as ValueConversionError {
            // Everything refused here was on its way in: "cannot store", not "cannot read".
            error.writing = true
            let name = metadata.properties[i].name
            throw error.located(column: name, model: metadata.typeName, property: name)
        } catch let error as ModelError where error.kind == .unsavedRelated && error.property == nil {
            // A reference's field knows the related type only: the error names the model saved and its property.
            throw ModelError(.unsavedRelated, model: metadata.typeName, property: metadata.properties[i].name, error.message)
        }
    }

    /// The error of a reference (property `i`) about to be written while it holds an object whose row was
    /// deleted (through this handle, by `delete` or by raw SQL it saw): its key names no row any more (and
    /// an object deleted before it was assigned has no key at all, which would store NULL). nil when the
    /// property holds no deleted object. Only written columns are checked: a saved row whose reference
    /// points at a since-deleted row, unchanged, saves its other properties as before.
    @inline(never)
    func deletedTarget(of object: ModelObject, property i: Int, metadata: ModelMetadata) -> ModelError? {
        let property = metadata.properties[i]
        guard let related = property.related, case .generic(let io) = property.accessor,
              let target = io.heldTarget(of: object), target._isDeleted else { return nil }
        let relatedName = _typeName(related, qualified: false)
        let targetKey = (try? ModelMetadata.of(related).key.accessor.load(target)).map { "\($0)" } ?? "unknown"
        let ownerKey = object._registry != nil ? try? metadata.key.accessor.load(object) : nil
        let owner = ownerKey.map { "\(metadata.typeName) (key \($0))" } ?? "the new \(metadata.typeName)"
        return ModelError(.deleted, model: metadata.typeName, property: property.name, key: ownerKey,
                          "\(owner).\(property.name) refers to the \(relatedName) with key \(targetKey), which was deleted: its row is gone, so there is no key to store (storing it, or NULL, would lose the relationship silently). Nothing was written. Set \(property.name) to a saved \(relatedName), or to nil")
    }

    /// Steps a write the library makes to one row itself (`rowID`; any row for an insert), so the update
    /// hook does not schedule a refresh for it; rows changed through it (cascades, triggers) still are.
    @inline(__always)
    func runOwnWrite(_ statement: Statement, registry: TypeRegistry, rowID: Int64, insert: Bool = false, deleting: Bool = false,
                     writing object: ModelObject? = nil) throws {
        try ownWrite(registry: registry, rowID: rowID, insert: insert, deleting: deleting, writing: object) {
            defer { statement.reset() }
            while try statement.step() {}
        }
    }

    /// Runs `body`, the library's own write of one row (`rowID`; for an insert, any row when `anyRow` or
    /// `rowID` is 0), so that the update hook knows it; `inTransaction` when the caller knows a transaction
    /// is open (spares asking SQLite).
    @inline(__always)
    private func ownWrite(registry: TypeRegistry, rowID: Int64, insert: Bool = false, anyRow: Bool = false, deleting: Bool = false,
                          inTransaction: Bool? = nil, writing object: ModelObject? = nil,
                          _ body: () throws -> Void) throws {
        models.ownWrite = true
        models.ownRowID = rowID
        models.ownInsert = insert
        models.ownAnyRow = insert && (anyRow || rowID == 0)
        models.ownTable = UnsafePointer(registry.tableNameCString)   // the registry's own string: no copy
        models.ownShared = registry.sharesTable
        models.ownRegistry = ObjectIdentifier(registry)
        // A trigger's INSERT OR REPLACE elsewhere may delete rows without a report: check after.
        let mayReplace = registry.triggersMayReplace
        if mayReplace { models.mayReplace = true }
        do {
            defer {
                models.ownWrite = false
                models.ownAnyRow = false
            }
            try guardingChanges(inTransaction: inTransaction, body)
        }
        // What triggers did before an insert (deleting a row whose rowid the new row then takes, say) reaches
        // live instances before the new instance is registered.
        if insert && !models.pending.isEmpty { reconcileLiveInstances() }
        if mayReplace && models.pending.isEmpty { models.mayReplace = false }   // the triggers wrote nothing
        if models.withoutRowIDRegistries > 0 { refreshWithoutRowIDInstances(affectedBy: registry, deleting: deleting, inserting: insert, writing: object) }
    }
}
