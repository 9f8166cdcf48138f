
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
        if _slowPath(isRemote) { return try remoteSave(object) }
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
    /// ROLLBACK constraint, ``ResultCode/full``), that rollback has happened: they read their rows now.
    /// The same holds inside a raw `BEGIN`: its rollback, or a failure that ended it, gives them their rows.
    /// A save of its own (outside any transaction) keeps the changes: only its own transaction is gone.
    @inline(never)
    func noteRefusedSave(of objects: [ModelObject], registry: TypeRegistry) {
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
    func save(_ object: ModelObject, in registry: TypeRegistry) throws {
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
    func saveInsertingOrOutsideTransaction(_ object: ModelObject, registry: TypeRegistry) throws {
        if isInTransaction {
            if insertsPlainWords(object, registry: registry) {
                try insertPlainWords(object, registry: registry)
            } else {
                try save(object, registry: registry)
            }
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
        if let remote {
            let registry = try remoteRegistry(remote, for: T.self)
            let outer = transactionDepth
            let ownFields = registry.metadata.ownTypeFields
            let order = ownFields.isEmpty ? nil : InsertionOrder(objects, fields: ownFields)
            // As on SQLite: the rollback gives the instances their rows, then each takes back the changes it
            // had before the call; a batch that failed inside a block gives every instance of it its row
            // again when that block rolls back.
            do {
                return try keepingUnsavedChanges(of: objects, registry: registry) {
                    try transaction(.immediate) {
                        if let order { return try save(order, registry: registry) }
                        for object in objects { try remoteSave(remote, object, registry: registry) }
                    }
                }
            } catch {
                for object in objects {
                    models.refusedInTransaction[ObjectIdentifier(object)] = outer > 0 ? (object, outer) : nil
                }
                throw error
            }
        }
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
    func save(_ order: InsertionOrder, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        // The deferred references' properties: index and name.
        let deferredProperties = order.deferred.compactMap { deferred in
            metadata.properties.firstIndex { if case .generic(let io) = $0.accessor { io === deferred.field } else { false } }
                .map { (index: $0, name: metadata.properties[$0].name) }
        }
        func cycleError(_ name: String) -> ModelError {
            ModelError(.unsavedRelated, model: metadata.typeName, property: name,
                       "new \(metadata.typeName) objects refer to each other in a cycle through \"\(name)\", whose column is NOT NULL: one of them must be inserted before the other has a key. Save one with \"\(name)\" set to a saved object first, or make the column nullable. Nothing was written")
        }
        // A deferred reference over a NOT NULL column (as the table mapping read it): the cycle cannot be
        // inserted, which is told before anything is written, on every engine.
        if let notNull = deferredProperties.first(where: { registry.table.notNullColumns.contains($0.index) }) { throw cycleError(notNull.name) }
        let fields = metadata.ownTypeFields
        var before: [(object: ModelObject, field: AnyFieldIO, state: ReferenceState)] = []
        for object in order.ordered where object._registry == nil {
            for field in fields { if let state = field.referenceState(of: object) { before.append((object, field, state)) } }
        }
        for (object, field, _) in order.deferred { field.setHoldsItself(object, false) }
        // (On another engine each insert and the deferred updates are its saves.)
        func saveOne(_ object: ModelObject) throws {
            if let remote { try remoteSave(remote, object, registry: registry) } else { try save(object, registry: registry) }
        }
        do {
            do {
                for object in order.ordered { try saveOne(object) }
            } catch let error as ModelError where error.kind == .missingValue {
                // A deferred reference over a column made NOT NULL since the mapping read it.
                guard let name = error.property, deferredProperties.contains(where: { $0.name == name }) else { throw error }
                throw cycleError(name)
            }
            for (object, field, target) in order.deferred { field.holdUnsaved(target, in: object) }
            for (object, _, _) in order.deferred { if remote != nil { try saveOne(object) } else { try update(object, registry: registry) } }
        } catch {
            for (object, field, state) in before { field.restoreReferenceState(state, of: object) }
            throw error
        }
    }

    /// Runs `body`, a save of `objects` in a transaction of its own. When it fails, the rollback gave the
    /// instances the database's values: each then takes back the unsaved changes it had before the call
    /// (saved in the rolled-back transaction, they are unsaved again), but the instance whose conflict the
    /// error reports, which holds the committed values so that its change can be applied again.
    func keepingUnsavedChanges(of objects: [ModelObject], registry: TypeRegistry, _ body: () throws -> Void) throws {
        /// A change to put back: a value, or a reference's assignment of an object never saved (which has no
        /// key to load; the rollback made it unsaved again if the transaction had inserted it).
        enum Edit { case value(SQLValue), unsavedTarget(AnyFieldIO, ModelObject) }
        var edits: [(object: ModelObject, changes: [(index: Int, edit: Edit)], remembered: [(index: Int, word: SnapshotWord)])] = []
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
            var remembered: [(index: Int, word: SnapshotWord)] = []
            changed.forEach { i in
                if let word = registry.snapshotWord(of: object, at: i) { remembered.append((i, word)) }
                if let value = try? properties[i].accessor.load(object) {
                    changes.append((i, .value(value)))
                } else if case .generic(let io) = properties[i].accessor, let target = io.heldTarget(of: object), target._registry == nil {
                    changes.append((i, .unsavedTarget(io, target)))
                }
            }
            edits.append((object, changes, remembered))
        }
        // No transaction (and no write lock) for a batch that changed nothing.
        if nothingToSave { return }
        if edits.isEmpty { return try body() }
        models.lastConflicted = nil
        do {
            try body()
        } catch {
            let conflicted = (error as? ModelError)?.kind == .conflict ? models.lastConflicted : nil
            for (object, changes, remembered) in edits where object._registry === registry && !object._isDeleted && ObjectIdentifier(object) != conflicted {
                // A refresh the failure cut short (SQLite interrupted, an I/O error) left the snapshot holding
                // what the rolled-back transaction wrote: it remembers the row as read before the call again,
                // so that the fetch the stale error asks for keeps these changes instead of taking the row's.
                if registry.staleInstances[ObjectIdentifier(object)] != nil { registry.capture(object, words: remembered) }
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
        if let remote {
            try remoteObservedAlone(remote) { try remoteDelete(remote, object, registry: registry) }
            return true
        }
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        let key = try registeredKey(of: object, registry: registry)
        let statement = try registry.table.statement(.delete, in: connection)
        try registry.table.bindKey(key, to: statement, at: 1)
        do {
            try runOwnWrite(statement, registry: registry, rowID: object._rowID, deleting: true)
        } catch let error as DatabaseError where error.code.primary == .constraint && error.message.hasPrefix("FOREIGN KEY constraint failed") {
            // RESTRICT reports a trigger constraint, NO ACTION a foreign key constraint (SQLite's extended codes): the message tells.
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
    /// committed values, so the block applies its change to them. On PostgreSQL a serialization failure or
    /// a deadlock (``DatabaseError/isSerializationFailure``, which roll the whole transaction back) runs it
    /// again too.
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
            } catch let error as DatabaseError where error.isSerializationFailure && attempt < maxAttempts {
                attempt += 1   // PostgreSQL's 40001 or 40P01: the transaction rolled back whole, so it runs again
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
    func resyncBeforeOwnSave(_ registry: TypeRegistry) throws {
        try resyncAll(for: ObjectIdentifier(registry.metadata.type))
    }

    /// Runs `body`, the save Strata opened the current transaction (or savepoint) for.
    func savingInOwnTransaction<T>(_ body: () throws -> T) throws -> T {
        let outer = models.ownSaveDepth
        models.ownSaveDepth = transactionDepth
        defer { models.ownSaveDepth = outer }
        return try body()
    }

    /// Runs `body`, the statements of one save, all or nothing: in a savepoint inside a transaction block,
    /// directly inside the transaction Strata opened for the save (whose rollback undoes them): no
    /// SAVEPOINT statements for a save of its own or a batch.
    func atomically<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth == models.ownSaveDepth { return try body() }
        return try transaction(nil, body)
    }

    func readOnlyError(_ registry: TypeRegistry, _ reason: String) -> ModelError {
        ModelError(.readOnly, model: registry.metadata.typeName, "cannot write: \(reason); nothing was written")
    }

    /// The key `object` was registered under, after checking that its key property still holds it
    /// (``TypeRegistry/checkedKey(of:)``).
    func registeredKey(of object: ModelObject, registry: TypeRegistry) throws -> SQLValue {
        try registry.checkedKey(of: object)
    }
}
