import CSQLite
import Foundation

extension Database {
    /// Calls `observer` after each commit (or after each statement outside a transaction) with the rows
    /// each table gained, changed and lost, coalesced per transaction; rolled-back changes are not reported.
    ///
    /// ```swift
    /// let observation = db.observeChanges { changes in
    ///     for change in changes { print(change.table, change.insertedRowIDs) }
    /// }
    /// try db.save(Department())    // prints: Department [1]
    /// ```
    public func observeChanges(_ observer: @escaping ([DatabaseChange]) -> Void) -> ChangeObservation {
        models.nextObserverID += 1
        models.observers[models.nextObserverID] = observer
        return ChangeObservation(context: models, id: models.nextObserverID)
    }

    /// Installs SQLite's update, commit and rollback hooks; they only record, never run SQL.
    func installChangeHooks() {
        models.database = self
        // Unretained: the context lives as long as the connection (both owned by this Database), and the
        // hooks are removed with the connection when it closes.
        let context = Unmanaged.passUnretained(models).toOpaque()
        sqlite3_update_hook(connection.handle, { context, operation, _, table, rowID in
            guard let context, let table else { return }
            let models = Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue()
            if models.ownWrite && models.observers.isEmpty { return }
            models.pending.append(.init(operation: operation, table: String(cString: table), rowID: rowID, own: models.ownWrite))
        }, context)
        // `DELETE FROM t` without WHERE uses the truncate optimization, which skips the update hook.
        // Answering SQLITE_IGNORE to SQLITE_DELETE (on user tables) turns it off: rows are deleted one by one
        // and reported. The authorizer runs when statements are prepared, never per row.
        // DROP TABLE / DROP VIEW also ask for SQLITE_DELETE on the dropped table, right after their own
        // SQLITE_DROP_* check, and treat SQLITE_IGNORE there as "skip the drop silently": so the SQLITE_DELETE
        // that directly follows a SQLITE_DROP_* is allowed. (Prepare runs on one thread, so the flag cannot
        // interleave with another statement's checks.)
        sqlite3_set_authorizer(connection.handle, { context, action, table, _, _, _ in
            guard let context else { return SQLITE_OK }
            let models = Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue()
            let afterDrop = models.authorizingDrop
            switch action {
            case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
                models.authorizingDrop = true
            case SQLITE_DELETE:
                models.authorizingDrop = false
                guard !afterDrop, let table, strncmp(table, "sqlite_", 7) != 0 else { return SQLITE_OK }
                return SQLITE_IGNORE
            default:
                models.authorizingDrop = false
            }
            return SQLITE_OK
        }, context)
        sqlite3_commit_hook(connection.handle, { context in
            guard let context else { return 0 }
            Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue().committed = true
            return 0
        }, context)
        sqlite3_rollback_hook(connection.handle, { context in
            guard let context else { return }
            Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue().rolledBack = true
        }, context)
    }

    /// Brings live instances up to date with the writes SQLite reported since the last call: rows deleted
    /// mark their instance `isDeleted`, rows updated are reloaded; then, when a transaction ended, either
    /// delivers its changes (commit) or restores the instances it touched (rollback).
    func reconcileLiveInstances() {
        if models.rolledBack {
            restoreLiveInstancesAfterRollback()
            return
        }
        if !models.pending.isEmpty {
            let pending = models.pending
            models.pending.removeAll(keepingCapacity: true)
            let inTransaction = isInTransaction
            for change in pending {
                models.record(table: change.table, operation: change.operation, rowID: change.rowID)
                guard !change.own, let registry = models.registry(forTable: change.table),
                      let object = registry.instance(rowID: change.rowID) else { continue }
                if change.operation == SQLITE_DELETE {
                    if inTransaction { models.noteDeleted(object) }
                    registry.detach(object, deleted: true)
                } else if change.operation == SQLITE_UPDATE {
                    refresh(object, registry: registry)
                }
            }
        }
        if !isInTransaction { transactionEnded(committed: true) }
    }

    /// After a rollback: live instances hold the database's values again; rows inserted in the rolled-back
    /// part no longer exist, so their instances become unsaved; rows deleted in it are back.
    func restoreLiveInstancesAfterRollback() {
        models.pending.removeAll()
        models.rolledBack = false
        let deleted = models.deletedInTransaction.values
        var live: [(ModelObject, TypeRegistry)] = []
        for registry in models.registries.values {
            live += registry.liveInstances.map { ($0, registry) }
        }
        for object in deleted { if let registry = object._registry { live.append((object, registry)) } }
        for (object, registry) in live {
            refresh(object, registry: registry)
            if object._isDeleted && object._insertGeneration == models.generation {
                registry.detach(object, deleted: false)
                object._insertGeneration = .max
                if registry.metadata.keyIsInteger && !registry.metadata.randomKeys {
                    try? registry.metadata.key.accessor.store(.integer(0), into: object)
                }
            }
        }
        if !isInTransaction {
            models.deletedInTransaction.removeAll()
            models.transactionChanges.removeAll()
            models.nextGeneration()
        }
    }

    /// SQLite's update hook is silent for WITHOUT ROWID tables, so after raw SQL that changed rows, live
    /// instances of models on such tables are all reloaded (or marked deleted).
    func refreshWithoutRowIDInstances() {
        for registry in models.registries.values where !registry.table.hasRowID {
            for object in registry.liveInstances {
                if isInTransaction { models.noteDeleted(object) }
                refresh(object, registry: registry)
            }
        }
    }

    /// Reloads one live instance from its row; a missing row marks it deleted.
    func refresh(_ object: ModelObject, registry: TypeRegistry) {
        do {
            let found: Bool
            if registry.table.hasRowID {
                let statement = try connection.cachedStatement(registry.table.selectByRowIDSQL)
                try statement.bind(values: [.integer(object._rowID)])
                defer { statement.reset() }
                found = try statement.step()
                if found { try decodeRow(statement, into: object, registry: registry) }
            } else {
                let key = try registry.metadata.key.accessor.load(object)
                let statement = try connection.cachedStatement(registry.table.selectByKeySQL)
                try statement.bind(values: [key])
                defer { statement.reset() }
                found = try statement.step()
                if found { try decodeRow(statement, into: object, registry: registry) }
            }
            if found {
                if object._isDeleted {
                    let key = try registry.metadata.key.accessor.load(object)
                    registry.register(object, rowID: object._rowID, textKey: registry.keyIsRowID ? nil : TypeRegistry.textKey(key))
                }
            } else {
                registry.detach(object, deleted: true)
            }
        } catch {
            // The row exists but no longer decodes (another tool wrote a bad value): the instance keeps its
            // previous values; the next fetch of the row reports the error.
            configuration.logger.warning("Strata could not refresh a live \(registry.metadata.typeName): \(error)")
        }
    }

    private func transactionEnded(committed: Bool) {
        if models.committed {
            models.committed = false
            models.nextGeneration()
        }
        if !models.deletedInTransaction.isEmpty { models.deletedInTransaction.removeAll() }
        guard !models.transactionChanges.isEmpty else { return }
        let changes = Array(models.transactionChanges.values)
        models.transactionChanges.removeAll()
        for observer in models.observers.values { observer(changes) }
    }

    /// Marks the registries for a new sync when the schema changed underneath (a raw ALTER, say).
    func checkSchemaVersion() {
        guard let version = try? value(Int64.self, "PRAGMA schema_version") else { return }
        if models.schemaVersion != -1 && version != models.schemaVersion { models.needsResync = true }
    }
}
