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
        sqlite3_update_hook(connection.handle, { context, operation, database, table, rowID in
            guard let context, let table, let database else { return }
            // Models map tables of the main (or temp) database; a table of the same name in an attached
            // database is another table.
            guard isMainOrTemp(database) else { return }
            // No retain: the context outlives its connection's hooks (see above).
            Unmanaged<ModelContext>.fromOpaque(context)._withUnsafeGuaranteedRef { models in
                models.changeCount &+= 1
                // Only the very row the library is writing is "own" (its instance is already up to date),
                // by the kind of change the library makes; rows that cascades and triggers change through it
                // are handled like any other write. The first change to that row only: a trigger writing the
                // same row again is a foreign change.
                var own = false
                if models.ownWrite && (operation == SQLITE_INSERT) == models.ownInsert
                    && (models.ownAnyRow || rowID == models.ownRowID)
                    && models.ownTable.map({ sameIdentifier($0, table) }) == true {
                    own = true
                    models.ownAnyRow = false
                    models.ownRowID = Int64.min
                }
                if own && models.observers.isEmpty && !models.ownShared { return }
                models.pending.append(.init(operation: operation, table: String(cString: table), rowID: rowID, own: own,
                                            writer: own && models.ownShared ? models.ownRegistry : nil))
            }
        }, context)
        // `DELETE FROM t` without WHERE uses the truncate optimization, which skips the update hook.
        // Answering SQLITE_IGNORE to SQLITE_DELETE (on user tables) turns it off: rows are deleted one by one
        // and reported. The authorizer runs when statements are prepared, never per row.
        // DROP TABLE / DROP VIEW also ask for SQLITE_DELETE on the dropped table, right after their own
        // SQLITE_DROP_* check, and treat SQLITE_IGNORE there as "skip the drop silently": so the SQLITE_DELETE
        // that directly follows a SQLITE_DROP_* is allowed. (Prepare runs on one thread, so the flag cannot
        // interleave with another statement's checks.)
        sqlite3_set_authorizer(connection.handle, { context, action, table, name, database, _ in
            guard let context else { return SQLITE_OK }
            let models = Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue()
            let afterDrop = models.authorizingDrop
            switch action {
            case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
                models.authorizingDrop = true
                if action == SQLITE_DROP_TABLE || action == SQLITE_DROP_TEMP_TABLE, let table { models.movedTables.insert(String(cString: table).sqlFolded) }
                if !models.silentTables.isEmpty { models.silentTables.removeAll() }
            case SQLITE_DELETE:
                models.authorizingDrop = false
                guard !afterDrop, let table, strncmp(table, "sqlite_", 7) != 0 else { return SQLITE_OK }
                noteWriteTarget(models, table, database)
                return SQLITE_IGNORE
            case SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_TABLE, SQLITE_ALTER_TABLE:
                models.authorizingDrop = false
                // (For SQLITE_ALTER_TABLE the third argument is the database, the fourth the table.)
                if action == SQLITE_ALTER_TABLE, let name { models.movedTables.insert(String(cString: name).sqlFolded) }
                if !models.silentTables.isEmpty { models.silentTables.removeAll() }
            case SQLITE_INSERT, SQLITE_UPDATE:
                models.authorizingDrop = false
                if let table, strncmp(table, "sqlite_", 7) != 0 { noteWriteTarget(models, table, database) }
            case SQLITE_READ:
                models.authorizingDrop = false
                if models.readRegion != nil, let table { models.readRegion?.insert(String(cString: table).sqlFolded) }
            case SQLITE_SAVEPOINT:
                models.authorizingDrop = false
                // (The third argument is the operation: BEGIN, RELEASE or ROLLBACK; the fourth the savepoint.)
                if let table, let name, let connection = models.database?.connection {
                    let operation: SavepointStatement.Operation = strcmp(table, "BEGIN") == 0 ? .begin
                        : strcmp(table, "RELEASE") == 0 ? .release : .rollback
                    connection.preparedSavepoint = SavepointStatement(operation: operation, name: String(cString: name))
                }
            case SQLITE_PRAGMA:
                models.authorizingDrop = false
                // (The third argument is the pragma's name, the fourth its value, if it sets one.)
                guard models.refusesForeignKeysOff, let table, let name, sqlite3_stricmp(table, "foreign_keys") == 0,
                      !pragmaValueIsOn(String(cString: name)) else { return SQLITE_OK }
                models.refusedTransactionStatement = "PRAGMA foreign_keys = \(String(cString: name))"
                return SQLITE_DENY
            case SQLITE_TRANSACTION:
                models.authorizingDrop = false
                // (For SQLITE_TRANSACTION the third argument is the operation: BEGIN, COMMIT or ROLLBACK.)
                guard models.ownsTransaction else { return SQLITE_OK }
                models.refusedTransactionStatement = table.map { String(cString: $0) } ?? "COMMIT"
                return SQLITE_DENY
            default:
                models.authorizingDrop = false
            }
            return SQLITE_OK
        }, context)
        sqlite3_commit_hook(connection.handle, { context in
            guard let context else { return 0 }
            let models = Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue()
            models.committed = true
            models.transactionMerged = false
            models.pendingCommitted = models.pending.count
            if !models.savepoints.isEmpty { models.savepoints.removeAll() }
            return 0
        }, context)
        sqlite3_rollback_hook(connection.handle, { context in
            guard let context else { return }
            let models = Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue()
            models.rolledBack = true
            models.transactionMerged = false
            // What the rolled-back transaction wrote is dropped now: changes reported after this (a statement
            // SQLite re-prepares after a schema change rolls back its implicit transaction, then runs and
            // commits; a script goes on after its ROLLBACK) are real, and delivered when they commit.
            // (Those a commit hook saw before, of an earlier transaction of the same script, stay.)
            if models.pending.count > models.pendingCommitted { models.pending.removeSubrange(models.pendingCommitted...) }
            if !models.transactionChanges.isEmpty { models.transactionChanges.removeAll() }
            models.silentWrites = false
            if !models.savepoints.isEmpty { models.savepoints.removeAll() }
        }, context)
        connection.savepointStatement = { [weak self] statement, ran in self?.savepointStatement(statement, ran: ran) }
    }

    /// Raw SQL's savepoints: before a SAVEPOINT runs, what was reported so far is applied and the changes
    /// recorded for observers are kept with the savepoint; after a `ROLLBACK TO` (which fires no hook) the
    /// changes reported since are dropped, those kept come back, and live instances read their rows again;
    /// a RELEASE forgets the savepoints it released.
    func savepointStatement(_ statement: SavepointStatement, ran: Bool) {
        switch statement.operation {
        case .begin:
            // Applied before it runs; kept once it began (a SAVEPOINT that failed opened none).
            if !ran {
                if !models.ownWrite { reconcileLiveInstances() }
            } else {
                models.savepoints.append((statement.name, models.transactionChanges))
            }
        case .release:
            guard ran, let index = models.savepoints.lastIndex(where: { $0.name.sqlFolded == statement.name.sqlFolded }) else { return }
            models.savepoints.removeSubrange(index...)
        case .rollback:
            guard ran, isInTransaction else { return }
            if let index = models.savepoints.lastIndex(where: { $0.name.sqlFolded == statement.name.sqlFolded }) {
                // Everything reported since the savepoint began is undone (what came before was applied then).
                models.pending.removeAll()
                models.pendingCommitted = 0
                models.silentWrites = false
                models.transactionChanges = models.savepoints[index].changes
                models.savepoints.removeSubrange((index + 1)...)
            } else {
                // A savepoint begun before this handle tracked it: reported inserts and deletes are checked.
                if !models.pending.isEmpty { models.verifyPending = true }
                if !models.ownWrite { reconcileLiveInstances() }
            }
            restoreLiveInstancesAfterPartialRollback()
        }
    }

    /// Of the tables a statement may write, those whose rows SQLite's update hook never reports: WITHOUT
    /// ROWID tables (whose `rowid` does not prepare), remembered until this handle prepares a statement that
    /// creates, drops or alters a table, or another connection commits.
    func silentTables(_ tables: [String]) -> [String] {
        var silent: [String] = []
        for table in tables {
            let key = table.sqlFolded
            if let known = models.silentTables[key] {
                if known && !silent.contains(table) { silent.append(table) }
                continue
            }
            let withoutRowID = !hasRowID(table)
            models.silentTables[key] = withoutRowID
            if withoutRowID && !silent.contains(table) { silent.append(table) }
        }
        return silent
    }

    /// Whether `table` has a rowid: `rowid` selects from it, and its CREATE statement does not end in
    /// WITHOUT ROWID (a WITHOUT ROWID table may name a column `rowid`, which then selects). The schema's
    /// catalog is read once per schema version, untraced (it is no statement of the caller's work).
    private func hasRowID(_ table: String) -> Bool {
        guard let statement = try? connection.prepare("SELECT rowid FROM \(SQL.quote(table)) LIMIT 0") else { return false }
        statement.finalize()
        let wasUntraced = connection.untraced
        connection.untraced = true
        defer { connection.untraced = wasUntraced }
        guard let catalog = try? SchemaCatalog.current(in: connection), let entry = catalog.tables[table.sqlFolded] else { return true }
        return !TableInfo.tableOptions(entry.sql).contains("WITHOUTROWID")
    }

    /// A statement changed rows of WITHOUT ROWID `tables` (which SQLite's update hook never reports): each
    /// is reported to observers as changed, with no row IDs, at the end of the transaction.
    func silentWritesHappened(_ tables: [String]) {
        models.silentWrites = true
        guard !models.observers.isEmpty else { return }
        for table in tables { models.recordTable(table) }
    }

    /// Runs `body` and returns, with its result, the tables its statements read (lowercased): statements
    /// are prepared afresh meanwhile, so that SQLite's authorizer reports what each one reads.
    func recordingReads<T>(_ body: () throws -> T) throws -> (T, Set<String>) {
        models.readRegion = []
        connection.preparesFresh = true
        let result: T
        do {
            defer { connection.preparesFresh = false }
            result = try body()
        } catch {
            models.readRegion = nil
            throw error
        }
        let region = models.readRegion ?? []
        models.readRegion = nil
        return (result, withShadowTables(region))
    }

    /// `region` with the shadow tables of the virtual tables in it: a full-text (FTS3/4/5) or R*Tree table is
    /// read through its module, and written through its shadow tables (`notes_content`, `notes_data`, ...),
    /// which are what SQLite's update hook reports. (A table merely named like one, `notes_archive` beside a
    /// virtual `notes`, counts too: it costs a fetch, never a missed change.)
    private func withShadowTables(_ region: Set<String>) -> Set<String> {
        guard !region.isEmpty else { return region }
        let wasUntraced = connection.untraced
        connection.untraced = true
        defer { connection.untraced = wasUntraced }
        guard let catalog = try? SchemaCatalog.current(in: connection) else { return region }
        var result = region
        for name in region {
            guard let entry = catalog.tables[name], !entry.isView, TableInfo.isVirtualTable(entry.sql) else { continue }
            let prefix = name + "_"
            for shadow in catalog.tables.keys where shadow.hasPrefix(prefix) { result.insert(shadow) }
        }
        return result
    }

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
                if verify && change.operation != SQLITE_UPDATE {
                    let name = rowIDNames[change.table] ?? rowIDName(of: change.table)
                    rowIDNames[change.table] = name
                    if rowExists(table: change.table, rowIDName: name, rowID: change.rowID) != (change.operation == SQLITE_INSERT) { continue }
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
                    if !change.own && ((change.operation != SQLITE_DELETE && models.mayReplace)
                        || (change.operation == SQLITE_UPDATE && registry.table.keyIsRowID && registry.instance(rowID: change.rowID) == nil)) {
                        suspects.insert(ObjectIdentifier(registry))
                    }
                    // A row raw SQL inserted, or updated with no live instance to follow it, may be a child of
                    // any parent: the loaded arrays over its table are read again.
                    if change.operation == SQLITE_INSERT && registry.hasParentArrays { childTypesWritten.insert(ObjectIdentifier(registry)) }
                    if inTransaction && registry.hasParentArrays { models.childTypesWrittenInTransaction.insert(ObjectIdentifier(registry)) }
                    if change.operation == SQLITE_INSERT, registry.table.selectsRowID {
                        moveReplacedInstance(registry: registry, rowID: change.rowID)
                        continue
                    }
                    guard let object = registry.instance(rowID: change.rowID) else {
                        if change.operation == SQLITE_UPDATE && registry.hasParentArrays { childTypesWritten.insert(ObjectIdentifier(registry)) }
                        continue
                    }
                    if (change.operation == SQLITE_DELETE && !verify)
                        || (change.operation == SQLITE_UPDATE && registry.table.selectsRowID
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
        models.record(table: registry.metadata.tableName, operation: SQLITE_DELETE, rowID: object._rowID)
    }

    /// The name that reaches `table`'s rowid in SQL (``TableInfo/rowIDName``: `_rowid_` or `oid` when a
    /// column of the table is named `rowid`); `rowid` when the table cannot be read.
    private func rowIDName(of table: String) -> String {
        let wasUntraced = connection.untraced
        connection.untraced = true
        defer { connection.untraced = wasUntraced }
        return ((try? TableInfo.read(table, in: connection)) ?? nil)?.rowIDName ?? "rowid"
    }

    /// Whether `table` has a row with `rowID`, reached as `rowIDName` (true when it cannot tell).
    private func rowExists(table: String, rowIDName: String, rowID: Int64) -> Bool {
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
    /// no DELETE for the old one: the live instance with that key (if any) follows its row.
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

    /// After a rollback (of the whole transaction, `toDepth` 0, or of the savepoint opened at `toDepth`):
    /// instances inserted in the rolled-back part become unsaved again (keys SQLite assigned go back to
    /// 0), and every other live instance, and those deleted in the transaction, hold the database's values.
    func restoreLiveInstancesAfterRollback(toDepth depth: Int) {
        // (A whole-transaction rollback's undone changes went when its hook fired: those pending now came
        // after it. A savepoint's rollback fires no hook.)
        if depth > 0 {
            models.pending.removeAll()
            models.pendingCommitted = 0
        }
        models.rolledBack = false
        // A schema sync inside the rolled-back part is undone too: sync again on next use.
        checkSchemaVersion()
        // First the inserts, so that a rowid they took and the rollback freed cannot be mistaken for theirs.
        let undone = models.insertedInTransaction.filter { $0.depth >= depth }
        models.insertedInTransaction.removeAll { $0.depth >= depth }
        for insert in undone {
            guard let registry = insert.object._registry else { continue }
            makeUnsaved(insert, registry: registry)
        }
        let live = liveAndDeletedInstances()
        if !undone.isEmpty { releaseUndoneInserts(undone.map(\.object), heldBy: live) }
        var refused: Set<ObjectIdentifier> = []
        if !models.refusedInTransaction.isEmpty {
            for (id, entry) in models.refusedInTransaction where entry.depth >= depth { refused.insert(id) }
            for id in refused { models.refusedInTransaction[id] = nil }
        }
        refreshAfterRollback(live, discarding: refused)
        if !isInTransaction {
            models.refusedInTransaction.removeAll()
            models.childTypesWrittenInTransaction.removeAll()
            releaseSnapshotsOfDeleted()
            models.insertedInTransaction.removeAll()
        }
    }

    /// After a `ROLLBACK TO` of raw SQL: the changes recorded for observers in the transaction are checked
    /// against the rows, since which of them the rollback undid SQLite does not say. A row reported
    /// inserted that is gone, or reported deleted that is there, is no longer reported. (An update the
    /// rollback undid cannot be told from one it kept, and stays reported.)
    private func dropUndoneChanges() {
        for (key, recorded) in models.transactionChanges {
            // (A change with no rows at all stands for a WITHOUT ROWID table's: it cannot be checked.)
            guard !recorded.insertedRowIDs.isEmpty || !recorded.updatedRowIDs.isEmpty || !recorded.deletedRowIDs.isEmpty else { continue }
            var change = recorded
            let name = rowIDName(of: change.table)
            for rowID in change.insertedRowIDs where !rowExists(table: change.table, rowIDName: name, rowID: rowID) {
                change.insertedRowIDs.remove(rowID)
                change.updatedProperties[rowID] = nil
                change.unknownProperties.remove(rowID)
            }
            for rowID in change.deletedRowIDs where rowExists(table: change.table, rowIDName: name, rowID: rowID) {
                change.deletedRowIDs.remove(rowID)
            }
            let rowsLeft = !change.insertedRowIDs.isEmpty || !change.updatedRowIDs.isEmpty || !change.deletedRowIDs.isEmpty
            models.transactionChanges[key] = rowsLeft ? change : nil
        }
    }

    /// At the end of a transaction: the instances deleted in it that stay deleted let go of the snapshots
    /// they kept for a rollback (``TypeRegistry/detach(_:deleted:)``).
    private func releaseSnapshotsOfDeleted() {
        for object in models.deletedInTransaction.values where object._isDeleted { object._registry?.releaseSnapshot(object) }
        models.deletedInTransaction.removeAll()
        models.deletionOrder.removeAll()
    }

    /// Every live instance, and those deleted in the open transaction (which a rollback may bring back),
    /// the most recently deleted first (see ``ModelContext/deletionOrder``).
    private func liveAndDeletedInstances() -> [(ModelObject, TypeRegistry)] {
        var live: [(ModelObject, TypeRegistry)] = []
        for registry in models.registries.values {
            live += registry.liveInstances.map { ($0, registry) }
        }
        var seen = Set<ObjectIdentifier>()
        for id in models.deletionOrder.reversed() where seen.insert(id).inserted {
            if let object = models.deletedInTransaction[id], let registry = object._registry, object._isDeleted {
                live.append((object, registry))
            }
        }
        return live
    }

    /// After raw SQL that may have rolled back to a savepoint of its own (`ROLLBACK TO x`), which SQLite's
    /// rollback hook does not report, inside a transaction that goes on: instances inserted in the
    /// transaction whose rows are gone become unsaved again (keys SQLite assigned go back to 0), and every
    /// other live instance, and those deleted in the transaction, hold the database's values again.
    func restoreLiveInstancesAfterPartialRollback() {
        models.pending.removeAll()
        models.pendingCommitted = 0
        checkSchemaVersion()
        if !models.transactionChanges.isEmpty { dropUndoneChanges() }
        var kept: [InsertedInstance] = []
        var undone: [ModelObject] = []
        for insert in models.insertedInTransaction {
            guard let registry = insert.object._registry else { continue }
            // An adopted row existed before: its adoption was undone when the row no longer holds what the
            // adopting UPDATE wrote.
            let stands = insert.adoptedFromKey == nil ? rowExists(of: insert.object, registry: registry)
                : rowHoldsSnapshot(of: insert.object, registry: registry)
            if stands {
                kept.append(insert)
            } else {
                makeUnsaved(insert, registry: registry)
                undone.append(insert.object)
            }
        }
        models.insertedInTransaction = kept
        let live = liveAndDeletedInstances()
        if !undone.isEmpty { releaseUndoneInserts(undone, heldBy: live) }
        refreshAfterRollback(live)
    }

    /// Every instance of `live` reads its row again after a rollback; one the rollback brought back from
    /// deleted drops the loaded arrays of its parents (loaded without it meanwhile), and the loaded
    /// many-to-many arrays are dropped.
    private func refreshAfterRollback(_ live: [(ModelObject, TypeRegistry)], discarding refused: Set<ObjectIdentifier> = []) {
        for (object, registry) in live {
            let wasDeleted = object._isDeleted
            // Deleted before the part rolled back, and its key saved again by another instance whose insert
            // stands: the row is that instance's, and this one stays deleted.
            if wasDeleted && rowHasAnotherInstance(object, registry: registry) { continue }
            // An instance whose save the rolled-back block tried and failed drops the changes it made for it.
            refresh(object, registry: registry, !refused.isEmpty && refused.contains(ObjectIdentifier(object)) ? .discard : .rollback)
            if wasDeleted && !object._isDeleted && registry.hasParentArrays {
                registry.dropParentsArrays(of: object, holdingIt: false)
            }
        }
        dropJoinTableArrays(of: live)
        // Rows of child types the rolled-back part wrote may be back under parents whose arrays were loaded
        // meanwhile, with no live instance to find them by. (Kept for the transaction: a savepoint's writes
        // are not told apart from the rest.)
        for registry in models.registries.values where models.childTypesWrittenInTransaction.contains(ObjectIdentifier(registry)) {
            registry.dropEveryParentsArrays()
        }
    }

    /// Whether a live instance other than `object` (one deleted in the transaction) stands for its row:
    /// one inserted with the same key after the delete.
    private func rowHasAnotherInstance(_ object: ModelObject, registry: TypeRegistry) -> Bool {
        func other(_ found: ModelObject?) -> Bool { found.map { $0 !== object && !$0._isDeleted } ?? false }
        if registry.table.keyIsRowID { return other(registry.instance(rowID: object._rowID)) }
        guard let key = try? registeredKeyValue(of: object, registry: registry) else { return false }
        return other(registry.instance(key: key))
    }

    /// After a rollback: the loaded many-to-many arrays (``Siblings``) of `live` are dropped, and read
    /// again next time, since what the rollback undid in their join tables (an `add` or `remove`) no
    /// live instance shows.
    private func dropJoinTableArrays(of live: [(ModelObject, TypeRegistry)]) {
        for (object, registry) in live {
            for array in registry.metadata.heldArrays where array.droppedOnRollback { array.invalidate(of: object) }
        }
    }

    /// The statement that selects the row of a live instance, bound (the caller steps and resets it): by
    /// rowid when the key is the rowid, else by the key the instance was registered under (its rowid may
    /// have changed, e.g. through INSERT OR REPLACE).
    func selectRow(of object: ModelObject, registry: TypeRegistry) throws -> Statement {
        let table = registry.table
        if table.keyIsRowID {
            let statement = try table.statement(.selectByRowID, in: connection)
            try statement.bind(values: [.integer(object._rowID)])
            return statement
        }
        let statement = try table.statement(.selectByKey, in: connection)
        try table.bindKey(registeredKeyValue(of: object, registry: registry), to: statement, at: 1)
        return statement
    }

    /// An instance whose insert (or adoption of a row) a rollback undid: unsaved again, with the key it had
    /// before (0 where SQLite assigned it).
    private func makeUnsaved(_ insert: InsertedInstance, registry: TypeRegistry) {
        if registry.hasParentArrays { registry.dropParentsArrays(of: insert.object, holdingIt: true) }
        // An object with no row has no children nor links: the arrays it loaded in the undone part go.
        for array in registry.metadata.heldArrays { array.invalidate(of: insert.object) }
        registry.detach(insert.object, deleted: false)
        let key = registry.metadata.key.accessor
        if let own = insert.adoptedFromKey {
            try? key.store(own, into: insert.object)
        } else if insert.keyWasAssigned {
            try? key.store(.integer(0), into: insert.object)
        }
    }

    /// Whether the row of a live instance holds every value of its snapshot (true when it cannot tell).
    private func rowHoldsSnapshot(of object: ModelObject, registry: TypeRegistry) -> Bool {
        do {
            let statement = try selectRow(of: object, registry: registry)
            defer { statement.reset() }
            guard try statement.step() else { return false }
            let fresh = registry.metadata.makeInstance()
            try decodeRow(statement, into: fresh, registry: registry)
            for i in 0..<registry.metadata.properties.count {
                guard let remembered = registry.rememberedWord(of: object, at: i) else { return true }
                if !registry.refreshWord(of: fresh, at: i).matches(remembered) { return false }
            }
            return true
        } catch {
            return true
        }
    }

    /// Whether the row of a live instance exists (true when it cannot tell).
    private func rowExists(of object: ModelObject, registry: TypeRegistry) -> Bool {
        do {
            let statement = try selectRow(of: object, registry: registry)
            defer { statement.reset() }
            return try statement.step()
        } catch {
            return true
        }
    }

    /// SQLite's update hook is silent for WITHOUT ROWID tables, so after raw SQL that changed rows, live
    /// instances of models on such tables are all reloaded (or marked deleted), and the loaded arrays of
    /// their parents are read again (a row may have been inserted).
    func refreshWithoutRowIDInstances() {
        for registry in models.registries.values where !registry.table.hasRowID {
            for object in registry.liveInstances { refresh(object, registry: registry) }
            if registry.hasParentArrays {
                registry.dropEveryParentsArrays()
                if isInTransaction { models.childTypesWrittenInTransaction.insert(ObjectIdentifier(registry)) }
            }
        }
    }

    /// After raw SQL that changed rows: the loaded ``Siblings`` arrays over a WITHOUT ROWID join table are
    /// dropped (the update hook says nothing of its rows).
    func dropArraysOverJoinTablesWithoutRowID() {
        guard !models.arraysByJoinTable.isEmpty, let version = try? schemaVersion() else { return }
        if models.joinTablesWithoutRowID?.version != version {
            // A table without a rowid (or none yet) does not prepare a SELECT of it.
            // (A WITHOUT ROWID table with a column named rowid prepares one: hasRowID reads its CREATE too.)
            let names = models.arraysByJoinTable.keys.filter { !hasRowID($0) }
            models.joinTablesWithoutRowID = (version, names)
        }
        for name in models.joinTablesWithoutRowID?.names ?? [] {
            for (owners, array) in models.arraysByJoinTable[name] ?? [] {
                for owner in owners.arrayOwners() { array.invalidate(of: owner) }
            }
        }
    }

    /// After the library's own write to the table of `writer`: the live instances of WITHOUT ROWID tables it
    /// may have changed unreported are reloaded: those of other model types over the same table, those a
    /// trigger of that table may write, and, for a delete, those whose foreign keys point at it (ON DELETE
    /// CASCADE / SET NULL / SET DEFAULT), at any depth: through the rows the cascade deleted in other tables
    /// (the update hook reported them) and through the tables of those instances in turn. (The row the
    /// writer wrote is its caller's to update — `object`, when given, is left alone; its other instances are
    /// reloaded when a delete may have cascaded back into its own table: a self-referencing tree, or a cycle
    /// through other tables, or when the table has triggers, which may write its other rows.)
    func refreshWithoutRowIDInstances(affectedBy writer: TypeRegistry, deleting: Bool, inserting: Bool = false, writing object: ModelObject? = nil) {
        let parent = writer.table.lowercasedName
        // The tables whose rows a delete removed, directly or by cascade: their children may cascade too.
        var deleted: Set<String> = [parent]
        if deleting {
            var last = ""
            for change in models.pending where change.operation == SQLITE_DELETE && change.table != last {
                last = change.table
                deleted.insert(last.sqlFolded)
            }
        }
        let ownTriggers = inserting ? writer.table.hasInsertTriggers : deleting ? writer.table.hasDeleteTriggers : writer.table.hasUpdateTriggers
        var waiting = models.registries.values.filter { !$0.table.hasRowID && ($0 !== writer || deleting || ownTriggers) }
        var found = true
        while found {
            found = false
            for (index, registry) in waiting.enumerated().reversed() {
                if registry === writer {
                    // Its own rows go only by a cascade that reached its table again, or change by its triggers.
                    guard ownTriggers || !registry.table.parentTables.isDisjoint(with: deleted) else { continue }
                } else {
                    guard registry.table.lowercasedName == parent || (deleting && !registry.table.parentTables.isDisjoint(with: deleted))
                        || (!writer.table.triggerSQL.isEmpty && writer.table.triggersMayWrite(registry.table.table)) else { continue }
                }
                waiting.remove(at: index)
                found = true
                for live in registry.liveInstances where !live._isDeleted && live !== object { refresh(live, registry: registry) }
                // The cascade may have deleted rows of this table (unreported): its own children may have gone too.
                if deleting { deleted.insert(registry.table.lowercasedName) }
            }
        }
    }

    /// Reloads one live instance from its row, all or nothing: the row is decoded into a scratch
    /// instance first, and only a row that decodes completely reaches the live one.
    ///
    /// A property the instance changed and has not saved keeps its value while the row still holds the
    /// value it was read with; when the row changed it too, ``RefreshMode`` decides.
    /// A missing row marks the instance deleted; a row that does not decode leaves the instance as it
    /// was and marks it stale (saving it throws, naming the property and the stored value).
    /// Rows are found by rowid when the key is the rowid, else by the key the instance was registered
    /// under (its rowid may have changed, e.g. through INSERT OR REPLACE).
    func refresh(_ object: ModelObject, registry: TypeRegistry, _ mode: RefreshMode = .merge) {
        let table = registry.table, metadata = registry.metadata
        let id = ObjectIdentifier(object)
        do {
            let statement = try selectRow(of: object, registry: registry)
            defer { statement.reset() }
            guard try statement.step() else {
                if isInTransaction && !object._isDeleted { models.noteDeleted(object) }
                registry.detach(object, deleted: true)
                return
            }
            let fresh = metadata.makeInstance()
            try decodeRow(statement, into: fresh, registry: registry)
            let rowID = table.selectsRowID ? statement.int64(at: Int32(metadata.properties.count)) : object._rowID

            // Decide every property first, then apply: nothing reaches the instance unless all of it does.
            let slot = object._snapshotSlot
            var values: [(index: Int, value: SQLValue)] = []
            var words: [(index: Int, word: SnapshotWord)] = []
            var conflicting: [String] = []
            var settled: [String] = []   // changed here, over a row a rollback put back as it was read
            var movedInConflict = false
            for i in 0..<metadata.properties.count {
                let stored = registry.refreshWord(of: fresh, at: i)
                let current = registry.refreshWord(of: object, at: i)
                if mode != .discard, slot != 0, let remembered = registry.rememberedWord(of: object, at: i), !current.matches(remembered) {
                    // Changed here and not saved: kept while the row holds what it was read with.
                    if stored.matches(remembered) {
                        if mode == .rollback { settled.append(metadata.properties[i].name) }
                        continue
                    }
                    if mode == .merge {
                        conflicting.append(metadata.properties[i].name)
                        if registry.parentKeyColumns.contains(i) { movedInConflict = true }
                        continue
                    }
                }
                // (A JSON value whose text differs but that is equal, a nested set's, say, is no change either.)
                if current.matches(stored) || metadata.properties[i].accessor.holdsEqualJSONValue(object, fresh) {
                    // The instance keeps its value: remembered as it holds it (a -0.0 the row holds as 0 is
                    // no change of the instance's, and not one to save again).
                    words.append((i, registry.storedWord(of: object, at: i)))
                } else {
                    words.append((i, stored))
                    values.append((i, try metadata.properties[i].accessor.load(fresh)))
                }
            }
            for (i, value) in values { try metadata.properties[i].accessor.store(value, into: object) }
            if registry.hasParentArrays && !values.isEmpty {
                var changed = ColumnSet()
                for (i, _) in values { changed.insert(i) }
                registry.dropArraysOfMovedChild(object, changed: changed)
            }
            // The row names another parent while the instance keeps its own unsaved one (a conflict): which
            // loaded arrays showed or now miss it is not known from the instance, so all of its type are dropped.
            if movedInConflict { registry.dropEveryParentsArrays() }
            if !values.isEmpty, let notify = metadata.observationNotifier { notify(object) }
            if slot == 0 { registry.capture(object) } else { registry.capture(object, words: words) }
            registry.staleInstances[id] = nil
            if !conflicting.isEmpty {
                let known = registry.conflicts[id] ?? []
                registry.conflicts[id] = known + conflicting.filter { !known.contains($0) }
            } else if mode == .discard {
                registry.conflicts[id] = nil
            } else if !settled.isEmpty, let known = registry.conflicts[id] {
                // A rollback put back the row this instance's unsaved change was made on: the conflict with
                // the write it undid is gone with it.
                let remaining = known.filter { !settled.contains($0) }
                registry.conflicts[id] = remaining.isEmpty ? nil : remaining
            }
            if object._isDeleted || rowID != object._rowID {
                let key = try metadata.key.accessor.load(object)
                registry.register(object, rowID: rowID,
                                  textKey: table.keyIsRowID ? nil : registry.textKey(of: object) ?? TypeRegistry.textKey(key))
            }
        } catch {
            // The row exists but does not decode (another tool wrote a value the model cannot read), or SQLite
            // could not read it (interrupted, locked, an I/O error): the instance keeps every previous value
            // and refuses to be saved until it reads its row again.
            let property = (error as? ValueConversionError)?.property
            registry.staleInstances[id] = (property, "\(error)", !(error is DatabaseError))
            configuration.logger.warning("Strata could not refresh a live \(metadata.typeName): \(error)")
        }
    }

    /// The error reading or saving a stale instance throws (one whose row did not decode when it was last
    /// refreshed); nil when it is not stale.
    func staleError(_ object: ModelObject, registry: TypeRegistry, key: SQLValue?) -> ModelError? {
        guard let stale = registry.staleInstances[ObjectIdentifier(object)] else { return nil }
        guard stale.undecodable else {
            // (SQLite's own failure, not the row's values: reading the row again is all it takes.)
            return ModelError(.stale, model: registry.metadata.typeName, property: stale.property, key: key,
                              "the instance could not be refreshed from its row (\(stale.reason)); it keeps its previous values and cannot be saved until it reads its row again: fetch it again")
        }
        return ModelError(.stale, model: registry.metadata.typeName, property: stale.property, key: key,
                          "the instance could not be refreshed from its row (\(stale.reason)); it keeps its previous values and cannot be read through a fetch or saved. Fix the stored value, or map the column to a type that reads it (an optional for NULLs), and fetch the row again")
    }

    /// A fetch met a live instance that is stale: it reads its row again, and throws while the row still
    /// does not decode (as a fetch of that row through another handle does). Out of line: rarely taken.
    @usableFromInline @inline(never)
    func refreshingStale(_ object: ModelObject, registry: TypeRegistry) throws {
        guard registry.staleInstances[ObjectIdentifier(object)] != nil else { return }
        refresh(object, registry: registry)
        let key: SQLValue? = registry.keyIsRowID ? .integer(object._rowID) : try? registry.metadata.key.accessor.load(object)
        if let error = staleError(object, registry: registry, key: key) { throw error }
    }

    /// Merges what other connections (other handles, a pool's writer, other processes) committed since
    /// this handle last looked into its live instances. `PRAGMA data_version` tells whether anything was
    /// committed; which rows changed it does not say, so every live instance is re-read (merging).
    func mergeForeignCommits() throws {
        let statement = try connection.cachedStatement(Connection.dataVersionSQL)
        let version: Int64
        do {
            defer { statement.reset() }
            version = try statement.step() ? statement.int64(at: 0) : 0
        } catch let error as DatabaseError where error.code.primary == .busy || error.code.primary == .locked {
            // The caller's own statement has not run yet: say what the wait was for, not which pragma waited.
            throw DatabaseError(code: error.code, message: "\(error.message): another connection held the database "
                + "locked past the busy timeout while this handle looked for other connections' commits, before the call ran")
        }
        guard version != models.dataVersion else { return }
        let previous = models.dataVersion
        models.dataVersion = version
        if previous == nil { return }
        models.changeCount &+= 1
        models.silentTables.removeAll()   // another connection may have made a table WITHOUT ROWID
        // Another connection changed the schema (a migration, another tool's rebuild): plan every synced model
        // again first (re-adding what a rebuild dropped), so the refresh reads the tables as they are now.
        checkSchemaVersion()
        do {
            // (Formats decided on empty columns are decided again too: the other connection may have written
            // the first rows, in its tool's format.)
            if models.needsResync { try resyncAll() } else { try redecideFormatsOfEmptyColumns() }
        } catch {
            models.dataVersion = previous   // the next call tries again
            throw error
        }
        refreshAllLiveInstances()
        dropAllLoadedArrays()
    }

    /// After this handle's migrations changed the schema (a table rebuilt, dropped or renamed: SQLite's update
    /// hook reports none of the rows that moved), what a foreign commit brings on: every synced model is
    /// planned again and every live instance reads its row again (one whose row is gone is marked deleted).
    /// A sync that fails is left for the model's next use, which throws it.
    func followOwnSchemaChange() {
        checkSchemaVersion()
        guard models.needsResync, !isInTransaction else { return }
        models.changeCount &+= 1
        do {
            try resyncAll()
        } catch {
            configuration.logger.warning("Strata could not sync the models again after the migrations: \(error)")
            return
        }
        refreshAllLiveInstances()
        dropAllLoadedArrays()
    }

    /// Drops every loaded ``Children`` and ``Siblings`` array of the handle's live instances: after another
    /// connection's commit, which may have added children or links that no live instance shows.
    func dropAllLoadedArrays() {
        for registry in models.registries.values where !registry.metadata.heldArrays.isEmpty {
            let arrays = registry.metadata.heldArrays
            for object in registry.arrayOwners(clearing: true) { for array in arrays { array.invalidate(of: object) } }
        }
    }

    /// Re-reads every live instance from its row (merging: unsaved changes are kept, conflicts recorded).
    func refreshAllLiveInstances() {
        let waiting = models.waitingSync?.models ?? []
        for (id, registry) in models.registries where !waiting.contains(id) {
            for object in registry.liveInstances { refresh(object, registry: registry) }
        }
    }

    /// The key value an instance of a table keyed otherwise than by rowid was registered under.
    private func registeredKeyValue(of object: ModelObject, registry: TypeRegistry) throws -> SQLValue {
        guard let text = registry.textKey(of: object) else { return try registry.metadata.key.accessor.load(object) }
        if registry.metadata.keyIsInteger, let value = Int64(text) { return .integer(value) }
        return .text(text)
    }

    private func transactionEnded() {
        let committed = models.committed
        models.committed = false
        // Tables the transaction dropped, renamed or altered: SQLite's update hook reports none of the rows
        // that went or moved, so observers hear of each such table as changed, rows unknown (an observed
        // fetch that read one runs again, and throws when its table is gone).
        if committed && models.schemaMoved && !models.observers.isEmpty {
            for table in models.movedTables { models.recordTable(table) }
        }
        // A schema change the transaction committed (not one a sync under way makes: it restores the flag).
        if models.schemaMoved && models.syncing.isEmpty && !models.followsSchemaLater {
            if committed { followSchemaChange() } else { models.movedTables.removeAll() }
        }
        if !models.savepoints.isEmpty { models.savepoints.removeAll() }
        models.silentWrites = false
        if !models.childTypesWrittenInTransaction.isEmpty { models.childTypesWrittenInTransaction.removeAll() }
        if !models.deletedInTransaction.isEmpty { releaseSnapshotsOfDeleted() }
        if !models.insertedInTransaction.isEmpty { models.insertedInTransaction.removeAll() }
        if !models.refusedInTransaction.isEmpty { models.refusedInTransaction.removeAll() }
        guard !models.transactionChanges.isEmpty else { return }
        let changes = Array(models.transactionChanges.values)
        models.transactionChanges.removeAll()
        // The transaction is over: observers may read and write through the handle (FCModel's notification
        // handlers fetch again). The `transaction` block whose COMMIT ended it is still on the stack; its
        // depth would make their calls take the committed transaction for one SQLite rolled back.
        let depth = transactionDepth
        transactionDepth = 0
        defer { transactionDepth = depth }
        for observer in models.observers.values { observer(changes) }
    }

    /// Marks the registries for a new sync when the schema changed underneath (a raw ALTER, say).
    func checkSchemaVersion() {
        guard let version = try? schemaVersion() else { return }
        if models.schemaVersion != -1 && version != models.schemaVersion { models.needsResync = true }
    }

    /// `PRAGMA schema_version`, read directly (not through the raw-SQL path, which reconciles).
    func schemaVersion() throws -> Int64 {
        let statement = try connection.cachedStatement("PRAGMA schema_version")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : -1
    }
}

/// How a refresh treats a property the instance changed and has not saved, when its row changed too.
enum RefreshMode {
    /// Another connection's commit or raw SQL: the instance keeps its value and the property is
    /// recorded as a conflict, so the next save throws instead of overwriting the other write.
    case merge
    /// A rollback: the change was made on values the rollback undid, so the row's value wins. (Unsaved
    /// changes to properties whose rows hold again what the instance read are kept, and their conflicts
    /// with the undone writes are forgotten.)
    case rollback
    /// Every property takes the row's value (settling a conflict).
    case discard
}

/// Notes, from the authorizer, a table the statement being prepared may write (of `main` or `temp`).
private func noteWriteTarget(_ models: ModelContext, _ table: UnsafePointer<CChar>, _ database: UnsafePointer<CChar>?) {
    guard let database, isMainOrTemp(database), let connection = models.database?.connection else { return }
    let name = String(cString: table)
    if !connection.preparedWrites.contains(name) { connection.preparedWrites.append(name) }
}

/// Whether a database name the update hook reports is `main` or `temp` (not an attached database).
@inline(__always)
func isMainOrTemp(_ name: UnsafePointer<CChar>) -> Bool {
    (name[0] == 0x6D && name[1] == 0x61 && name[2] == 0x69 && name[3] == 0x6E && name[4] == 0)       // "main"
        || (name[0] == 0x74 && name[1] == 0x65 && name[2] == 0x6D && name[3] == 0x70 && name[4] == 0) // "temp"
}

/// Whether two table names are the same to SQLite, as `sqlite3_stricmp` decides: ASCII letters compare
/// without case, every other byte as it is. Inline, because the update hook asks it for every row written.
@inline(__always)
func sameIdentifier(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Bool {
    var i = 0
    while true {
        let x = UInt8(bitPattern: a[i]), y = UInt8(bitPattern: b[i])
        if x != y {
            let foldedX = x &- 65 < 26 ? x | 0x20 : x, foldedY = y &- 65 < 26 ? y | 0x20 : y
            if foldedX != foldedY { return false }
        } else if x == 0 {
            return true
        }
        i += 1
    }
}

/// Whether SQLite reads a boolean pragma's value as on: `on`, `yes`, `true`, `full`, `extra` or a number
/// other than 0 (`sqlite3GetBoolean`); anything else is off.
func pragmaValueIsOn(_ value: String) -> Bool {
    let value = value.lowercased()
    if let first = value.first, first.isASCII, first.isNumber {
        return Int(value.prefix(while: { $0.isASCII && $0.isNumber })).map { $0 != 0 } ?? true
    }
    return ["on", "yes", "true", "full", "extra"].contains(value)
}
