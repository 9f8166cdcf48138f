import Foundation

// After a statement or a commit: live instances are brought in line with the rows SQLite reported
// changed (refreshed, marked deleted, moved), including rows SQLite removed without reporting them.

extension Database {
    /// Runs one statement-level operation so that a failure leaves live instances as the database has
    /// them: the changes SQLite reported since it began are re-checked against the rows (some statements of
    /// a script may have succeeded, the failing one was undone), and if the failure rolled back a whole
    /// transaction, live instances are restored.
    @inline(__always)
    func guardingChanges<T>(inTransaction: Bool? = nil, _ body: () throws -> T) throws -> T {
        let wasInTransaction = inTransaction ?? isInTransaction
        do {
            return try body()
        } catch {
            statementFailed(wasInTransaction: wasInTransaction)
            throw error
        }
    }

    /// After a failed statement: what SQLite reported may have been undone, so pending changes are checked
    /// against the database when they are applied; a whole-transaction rollback restores live instances.
    func statementFailed(wasInTransaction: Bool) {
        models.pendingCommitted = 0
        if !models.pending.isEmpty { models.verifyPending = true }
        if models.rolledBack {
            if wasInTransaction && !isInTransaction {
                models.failureEndedTransaction = true
                restoreLiveInstancesAfterRollback(toDepth: 0)
            } else {
                models.rolledBack = false   // only the failed statement's own implicit transaction
            }
        }
    }

    /// Applies writes not yet reflected in live instances (those of a bare `Statement`).
    func applyPendingChanges() {
        if (!models.pending.isEmpty || models.rolledBack || models.silentWrites || models.schemaMoved) && !models.ownWrite { reconcileLiveInstances() }
        if connection.unreportedWrite && !models.ownWrite { applyUnreportedWrites() }
    }

    /// After a bare `Statement` wrote: SQLite's update hook reported nothing of WITHOUT ROWID tables, so
    /// their live instances are reloaded (or marked deleted) and the loaded arrays over them dropped, as
    /// ``execute(_:_:)`` does after raw SQL. Out of line: rarely taken.
    @inline(never)
    func applyUnreportedWrites() {
        connection.unreportedWrite = false
        models.changeCount &+= 1   // a row a missing reference points to may exist now
        guard models.withoutRowIDRegistries > 0 || !models.arraysByJoinTable.isEmpty else { return }
        refreshWithoutRowIDInstances()
        dropArraysOverJoinTablesWithoutRowID()
    }

    /// Brings live instances up to date with the writes SQLite reported since the last call: rows deleted
    /// mark their instance `isDeleted`, rows updated or replaced are reloaded; then, when a transaction
    /// ended, either delivers its changes (commit) or restores live instances (rollback).
    func reconcileLiveInstances() {
        if models.rolledBack {
            if isInTransaction {
                // A rollback cannot leave a transaction open: the flag is left over from a bare statement
                // that failed in autocommit mode (its implicit transaction), and nothing is to be restored.
                models.rolledBack = false
            } else {
                // The changes still pending came after the rollback (the hook dropped the undone ones) or
                // were committed before it: they are applied and delivered below.
                restoreLiveInstancesAfterRollback(toDepth: 0)
            }
        }
        if !models.pending.isEmpty {
            let pending = models.pending
            models.pending.removeAll(keepingCapacity: true)
            models.pendingCommitted = 0
            let verify = models.verifyPending
            models.verifyPending = false
            let inTransaction = isInTransaction
            var suspects: Set<ObjectIdentifier> = []
            var childTypesWritten: Set<ObjectIdentifier> = []
            var joinTablesWritten: Set<String> = []
            var lastTable = ""
            defer {
                models.mayReplace = false
                for name in joinTablesWritten {
                    for (owners, array) in models.arraysByJoinTable[name] ?? [] {
                        for owner in owners.arrayOwners() { array.invalidate(of: owner) }
                    }
                }
                for registry in models.registries.values where childTypesWritten.contains(ObjectIdentifier(registry)) {
                    registry.dropEveryParentsArrays()
                }
                for registry in models.registries.values where suspects.contains(ObjectIdentifier(registry)) {
                    markInstancesWithoutRows(registry)
                }
            }
            var rowIDNames: [String: String] = [:]
            for change in pending {
                // After a failure, a reported insert or delete counts only if the row really is there or gone.
                if verify && change.operation != .update {
                    let name = rowIDNames[change.table] ?? rowIDName(of: change.table)
                    rowIDNames[change.table] = name
                    if rowExists(table: change.table, rowIDName: name, rowID: change.rowID) != (change.operation == .insert) { continue }
                }
                models.record(table: change.table, operation: change.operation, rowID: change.rowID, own: change.own)
                // A join table's rows are no model's: the loaded @Siblings arrays over it are read again.
                if !models.arraysByJoinTable.isEmpty && change.table != lastTable {
                    lastTable = change.table
                    let name = lastTable.sqlFolded
                    if models.arraysByJoinTable[name] != nil { joinTablesWritten.insert(name) }
                }
                // An own write is already in its instance; other model types over the same table still need it.
                guard !change.own || change.writer != nil else { continue }
                for registry in models.registries(forTable: change.table) {
                    if change.own && ObjectIdentifier(registry) == change.writer { continue }
                    // Rows SQLite removes without telling: those an INSERT OR REPLACE (or UPDATE OR REPLACE)
                    // replaced through a UNIQUE index, and the old rowid of an UPDATE that changed it (the hook
                    // reports the new).
                    if !change.own && ((change.operation != .delete && models.mayReplace)
                        || (change.operation == .update && registry.table.keyIsRowID && registry.instance(rowID: change.rowID) == nil)) {
                        suspects.insert(ObjectIdentifier(registry))
                    }
                    // A row raw SQL inserted, or updated with no live instance to follow it, may be a child of
                    // any parent: the loaded arrays over its table are read again.
                    if change.operation == .insert && registry.hasParentArrays { childTypesWritten.insert(ObjectIdentifier(registry)) }
                    if inTransaction && registry.hasParentArrays { models.childTypesWrittenInTransaction.insert(ObjectIdentifier(registry)) }
                    if change.operation == .insert, registry.table.selectsRowID {
                        moveReplacedInstance(registry: registry, rowID: change.rowID)
                        continue
                    }
                    guard let object = registry.instance(rowID: change.rowID) else {
                        if change.operation == .update && registry.hasParentArrays { childTypesWritten.insert(ObjectIdentifier(registry)) }
                        // An UPDATE that gave the row another rowid (`SET rowid = ...`; the hook reports the new
                        // one): the live instance of the row's key follows it, as after an INSERT OR REPLACE.
                        if change.operation == .update, registry.table.selectsRowID { moveReplacedInstance(registry: registry, rowID: change.rowID) }
                        continue
                    }
                    if (change.operation == .delete && !verify)
                        || (change.operation == .update && registry.table.selectsRowID
                            && rowHasAnotherKey(change.rowID, than: object, registry: registry)) {
                        // Deleted, or re-keyed: the row the instance stood for now has another key (a row
                        // that took the old key meanwhile is not the instance's).
                        if inTransaction { models.noteDeleted(object) }
                        registry.detach(object, deleted: true)
                    } else {
                        // An UPDATE, or an INSERT OR REPLACE over a row that has a live instance (SQLite reports
                        // no DELETE for the replaced row).
                        refresh(object, registry: registry)
                    }
                }
            }
        }
        if !isInTransaction { transactionEnded() }
    }

    /// Marks deleted the live instances of `registry` whose rows are gone, checked in one query per
    /// chunk of keys (after raw SQL that may have removed or re-keyed rows without SQLite reporting it).
    private func markInstancesWithoutRows(_ registry: TypeRegistry) {
        let live = registry.liveInstances.filter { !$0._isDeleted }
        let table = registry.table
        if table.keyCount > 1 {
            // A composite key: one lookup per instance (rare: raw SQL that changed keys or replaced rows).
            for object in live {
                guard let statement = try? connection.cachedStatement("SELECT 1 FROM \(SQL.quote(table.table)) WHERE \(table.keyClause)") else { continue }
                defer { statement.reset() }
                guard let key = try? registeredKeyValue(of: object, registry: registry),
                      (try? table.bindKey(key, to: statement, at: 1)) != nil, (try? statement.step()) == false else { continue }
                if isInTransaction { models.noteDeleted(object) }
                recordSilentDelete(of: object, registry: registry)
                registry.detach(object, deleted: true)
            }
            return
        }
        let column = table.keyIsRowID ? table.rowIDName : SQL.quote(registry.table.columns[0])
        var start = 0
        while start < live.count {
            let chunk = live[start..<min(start + 500, live.count)]
            start += chunk.count
            guard let keys = try? chunk.map({ table.keyIsRowID ? .integer($0._rowID) : try table.storedKey(registeredKeyValue(of: $0, registry: registry)) })
            else { continue }
            // A key another tool may store in another form (7 and '7', a UUID's two cases) is looked for in
            // both, and either form found stands for the key.
            let twoForms = table.keyHasTwoForms
            let bound = twoForms ? keys.flatMap(table.keyForms(ofStored:)) : keys
            guard let statement = try? connection.prepare("SELECT \(column) FROM \(SQL.quote(table.table)) WHERE \(column) IN (\(SQL.placeholders(bound.count)))")
            else { continue }
            defer { statement.finalize() }
            var found: Set<SQLValue> = []
            guard (try? statement.bind(values: bound)) != nil else { continue }
            while (try? statement.step()) == true {
                let value = statement.value(at: 0)
                if twoForms { found.formUnion(table.keyForms(ofStored: value)) } else { found.insert(value) }
            }
            for (object, key) in zip(chunk, keys) where !found.contains(key) {
                if isInTransaction { models.noteDeleted(object) }
                recordSilentDelete(of: object, registry: registry)
                registry.detach(object, deleted: true)
            }
        }
    }

    /// Reports to observers the row of a live instance that SQLite removed without an update-hook call (an
    /// `INSERT OR REPLACE` through a UNIQUE index): the change set lists it as deleted, as the hook would have.
    /// Rows no live instance stood for stay unknown (see ``DatabaseChange/deletedRowIDs``). A WITHOUT ROWID
    /// table has no row IDs to report.
    private func recordSilentDelete(of object: ModelObject, registry: TypeRegistry) {
        guard !models.observers.isEmpty, registry.table.hasRowID, !object._isDeleted else { return }
        models.record(table: registry.metadata.tableName, operation: .delete, rowID: object._rowID)
    }

    /// The name that reaches `table`'s rowid in SQL (``TableInfo/rowIDName``: `_rowid_` or `oid` when a
    /// column of the table is named `rowid`); `rowid` when the table cannot be read.
    func rowIDName(of table: String) -> String {
        let wasUntraced = connection.untraced
        connection.untraced = true
        defer { connection.untraced = wasUntraced }
        return ((try? TableInfo.read(table, in: connection)) ?? nil)?.rowIDName ?? "rowid"
    }

    /// Whether `table` has a row with `rowID`, reached as `rowIDName` (true when it cannot tell).
    func rowExists(table: String, rowIDName: String, rowID: Int64) -> Bool {
        guard let statement = try? connection.cachedStatement("SELECT 1 FROM \(SQL.quote(table)) WHERE \(rowIDName) = ?") else { return true }
        defer { statement.reset() }
        guard (try? statement.bind(values: [.integer(rowID)])) != nil, let found = try? statement.step() else { return true }
        return found
    }

    /// Whether the row `rowID` of a table keyed otherwise than by rowid exists and holds a key that is not
    /// the one `object` was registered under: an UPDATE the hook reported for the instance's row changed
    /// its key (false when it cannot tell; the refresh by key then decides).
    private func rowHasAnotherKey(_ rowID: Int64, than object: ModelObject, registry: TypeRegistry) -> Bool {
        let table = registry.table
        let sql = "SELECT \(table.keyColumnList) FROM \(SQL.quote(registry.metadata.tableName)) WHERE \(table.rowIDName) = ?"
        guard let statement = try? connection.cachedStatement(sql) else { return false }
        defer { statement.reset() }
        guard (try? statement.bind(values: [.integer(rowID)])) != nil, (try? statement.step()) == true,
              let key = table.key(from: statement) else { return false }
        return registry.instance(key: key) !== object
    }

    /// `INSERT OR REPLACE` over a row whose key is not the rowid gives the row a new rowid and reports
    /// no DELETE for the old one (and an `UPDATE ... SET rowid` reports only the new rowid): the live
    /// instance with that key (if any) follows its row.
    private func moveReplacedInstance(registry: TypeRegistry, rowID: Int64) {
        guard registry.hasTextKeys else { return }
        let table = registry.table
        let sql = "SELECT \(table.keyColumnList) FROM \(SQL.quote(registry.metadata.tableName)) WHERE \(table.rowIDName) = ?"
        guard let statement = try? connection.cachedStatement(sql) else { return }
        defer { statement.reset() }
        guard (try? statement.bind(values: [.integer(rowID)])) != nil, (try? statement.step()) == true,
              let key = table.key(from: statement), let object = registry.instance(key: key), object._rowID != rowID else { return }
        let textKey = registry.textKey(of: object)
        registry.register(object, rowID: rowID, textKey: textKey)
        refresh(object, registry: registry)
    }

}
