import CSQLite
import Foundation

// SQLite's update, commit and rollback hooks and its authorizer: what tells the identity map which rows
// and tables a statement changed or read, told to the identity map through its ``ChangeSink`` methods.

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
            Unmanaged<ModelContext>.fromOpaque(context)._withUnsafeGuaranteedRef {
                $0.rowChanged(RowOperation(updateHookCode: operation), table: table, rowID: rowID)
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
            Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue().willCommit()
            return 0
        }, context)
        sqlite3_rollback_hook(connection.handle, { context in
            guard let context else { return }
            Unmanaged<ModelContext>.fromOpaque(context).takeUnretainedValue().didRollBack()
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
    func hasRowID(_ table: String) -> Bool {
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
        if isRemote { return try remoteRecordingReads(body) }
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

/// Whether SQLite reads a boolean pragma's value as on: `on`, `yes`, `true`, `full`, `extra` or a number
/// other than 0 (`sqlite3GetBoolean`); anything else is off.
func pragmaValueIsOn(_ value: String) -> Bool {
    let value = value.lowercased()
    if let first = value.first, first.isASCII, first.isNumber {
        return Int(value.prefix(while: { $0.isASCII && $0.isNumber })).map { $0 != 0 } ?? true
    }
    return ["on", "yes", "true", "full", "extra"].contains(value)
}

extension RowOperation {
    /// The operation of an update-hook report (`SQLITE_INSERT`, `SQLITE_DELETE`, else `SQLITE_UPDATE`).
    @inline(__always)
    init(updateHookCode code: Int32) {
        self = code == SQLITE_INSERT ? .insert : code == SQLITE_DELETE ? .delete : .update
    }
}
