// A handle on an engine other than SQLite (a ``RemoteConnection``, PostgreSQL's from StrataPostgres): raw
// SQL, transactions and schema sync run there through the driver protocols, each generic over the concrete
// connection (the existential is opened once per call). What needs SQLite's own machinery (bare statements,
// backup, journal modes) throws the stand-in connection's error, which names the engine.
extension Database {
    /// Opens a handle on `remote`. SQLite's connection is a closed stand-in whose every use throws an
    /// error saying the call is SQLite's own.
    ///
    /// ```swift
    /// let db = try Database(remote: PostgresConnection(url: url), configuration: Configuration())
    /// ```
    package convenience init(remote: any RemoteConnection, configuration: Configuration = Configuration()) throws {
        let message = "this call is SQLite's own (a bare statement, backup, journal modes, PRAGMAs, statement "
            + "tracing) and this handle runs on \(remote.engineName): use a SQLite handle for it"
        try self.init(remote: remote, standIn: Connection.standIn(message: message, configuration: configuration),
                      configuration: configuration)
    }

    /// The engine connection's counters and state, read out of line (SQLite's paths test ``isRemote`` only).
    @inline(never)
    var remoteState: (isClosed: Bool, isInTransaction: Bool, changes: Int, totalChanges: Int, maximumParameterCount: Int) {
        guard let remote else { return (true, false, 0, 0, 0) }
        return (remote.isClosed, remote.isInTransaction, remote.changes, remote.totalChanges, remote.maximumParameterCount)
    }

    /// Runs `body`, throwing the engine's errors as ``DatabaseError``s.
    func mapped<C: RemoteConnection, T>(_ remote: C, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw remote.databaseError(error) }
    }

    // MARK: Raw SQL

    func remoteExecute<C: RemoteConnection>(_ remote: C, _ sql: String, arguments: [any ColumnValue]) throws {
        if try observedAlone(remote, sql, { try remoteExecute(remote, sql, arguments: arguments) }) { return }
        try notingRawWrite(remote, sql)
        try mapped(remote) {
            guard !arguments.isEmpty else { return try remote.execute(sql) }
            let statement = try remoteStatement(remote, sql, arguments)
            defer { statement.reset() }
            while try statement.step() {}
        }
        remoteFollowRawTransactionControl(remote, sql)
    }

    func remoteRows<C: RemoteConnection>(_ remote: C, _ sql: String, arguments: [any ColumnValue]) throws -> [Row] {
        var rows: [Row] = []
        if try observedAlone(remote, sql, { rows = try remoteRows(remote, sql, arguments: arguments) }) { return rows }
        try notingRawWrite(remote, sql)
        return try mapped(remote) {
            let statement = try remoteStatement(remote, sql, arguments)
            defer { statement.reset() }
            let names = (0..<statement.columnCount).map { statement.columnName(at: $0) }
            var rows: [Row] = []
            while try statement.step() {
                rows.append(Row(columnNames: names, values: (0..<statement.columnCount).map { statement.value(at: $0) }))
            }
            return rows
        }
    }

    func remoteColumn<C: RemoteConnection, T: ColumnValue>(_ remote: C, _ type: T.Type, _ sql: String,
                                                          arguments: [any ColumnValue], first: Bool) throws -> [T] {
        var values: [T] = []
        if try observedAlone(remote, sql, { values = try remoteColumn(remote, type, sql, arguments: arguments, first: first) }) { return values }
        try notingRawWrite(remote, sql)
        return try mapped(remote) {
            let statement = try remoteStatement(remote, sql, arguments)
            defer { statement.reset() }
            var values: [T] = []
            while try statement.step() {
                let value = statement.value(at: 0)
                if first && value.isNull { break }
                do { values.append(try T(sqlValue: value)) } catch let error as ValueConversionError {
                    throw error.located(column: statement.columnName(at: 0))
                }
                if first { break }
            }
            return values
        }
    }

    /// Raw SQL that may write (anything but a plain SELECT, SHOW or VALUES, or an EXPLAIN without ANALYZE):
    /// the live instances read before it are stale, and read their rows again when looked up by key (a fetch
    /// brings them up to date anyway), and the loaded `@Children` and `@Siblings` arrays load again. The engine tells no
    /// rows, so every model's instances are marked.
    /// An observed transaction reads the engine's write counters before its first write.
    private func notingRawWrite<C: RemoteConnection>(_ remote: C, _ sql: String) throws {
        if models.readRegion != nil { models.readRegion?.insert(Self.anyTable) }
        guard Self.mayWrite(sql) else { return }
        models.remoteRawWrites &+= 1
        models.changeCount &+= 1   // a reference known to have no row may find one now
        // Which rows the statement wrote the engine does not say: the loaded `@Children` arrays read their
        // children again when next read (a row inserted or moved under a parent, with no live instance).
        for registry in models.registries.values where registry.hasParentArrays { registry.dropEveryParentsArrays() }
        // (And the `@Siblings` arrays: the statement may have written a join table.)
        for entries in models.arraysByJoinTable.values {
            for (owners, array) in entries { for owner in owners.arrayOwners() { array.invalidate(of: owner) } }
        }
        try remoteWillWrite(remote)
        remoteNoteRawWrite(sql)
    }

    /// What an observed read's region holds when raw SQL read tables no one named (another engine tells
    /// none): any commit runs the observation again.
    static let anyTable = "*"

    static func mayWrite(_ sql: String) -> Bool {
        let words = SQL.leadingWords(sql, count: 2)
        switch words.first {
        case "select", "show", "values": return false
        case "explain" where words.dropFirst().first != "analyze": return false
        default: return true
        }
    }

    /// Runs `body` (the same raw statement) in a transaction of its own when the handle is observed, the
    /// statement may write and no transaction is open: the transaction is what reads the engine's write
    /// counters and tells the observers after COMMIT. A statement that cannot run in a transaction block
    /// (VACUUM, `… CONCURRENTLY`, CREATE/DROP DATABASE, ALTER SYSTEM, a script ending its own transaction)
    /// runs alone, and every table the handle maps is reported changed, rows unknown. False: not wrapped.
    private func observedAlone<C: RemoteConnection>(_ remote: C, _ sql: String, _ body: () throws -> Void) throws -> Bool {
        guard transactionDepth == 0, !models.remoteLog.runsAlone, !remote.isInTransaction, Self.mayWrite(sql), remoteObserved else { return false }
        let words = SQL.leadingWords(sql, count: 2)
        let blockless = ["vacuum", "reindex", "cluster"].contains(words.first ?? "") || SQL.mentions(sql, "concurrently")
            || (["create", "drop", "alter"].contains(words.first ?? "") && ["database", "system", "tablespace"].contains(words.dropFirst().first ?? ""))
            || ["begin", "commit", "end", "rollback", "start"].contains(where: { SQL.mentions(sql, $0) && Self.endsTransaction(sql, $0) })
        guard !blockless else {
            models.remoteLog.runsAlone = true
            defer { models.remoteLog.runsAlone = false }
            try body()
            remoteReportEveryTable()
            return true
        }
        try remoteTransaction(remote, .deferred, body)
        return true
    }

    /// Whether `word` stands as a statement of its own in `sql` (a script that ends its own transaction).
    private static func endsTransaction(_ sql: String, _ word: String) -> Bool {
        sql.split(separator: ";").contains { SQL.leadingWords(String($0), count: 1).first == word }
    }

    /// The cached statement for `sql` in the engine's spelling, with `arguments` bound (collection
    /// arguments spread into one parameter each first).
    private func remoteStatement<C: RemoteConnection>(_ remote: C, _ sql: String, _ arguments: [any ColumnValue]) throws -> C.Statement {
        let (sql, arguments) = try ArgumentList.expand(sql, arguments)
        let statement = try remote.cachedStatement(remote.engineSQL(sql))
        try statement.bind(values: arguments.map { try $0.sqlValue })
        return statement
    }

    // MARK: Transactions

    /// ``transaction(_:_:)`` on the engine: BEGIN (or a savepoint inside another block), COMMIT when `body`
    /// returns, ROLLBACK when it throws. A transaction the engine failed part-way (PostgreSQL refuses every
    /// statement after an error until the rollback, and answers COMMIT by rolling back) is rolled back and
    /// reported, never committed in part.
    func remoteTransaction<C: RemoteConnection, T>(_ remote: C, _ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        let nested = transactionDepth > 0 || remote.isInTransaction
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        let savepoint = "strata_\(transactionDepth)"
        try mapped(remote) { try remote.execute(nested ? "SAVEPOINT \(savepoint)" : remote.dialect.begin(kind)) }
        do {
            try remoteLogBegan(remote, nested: nested)
        } catch {
            try? remote.execute(nested ? "ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)" : "ROLLBACK")
            throw remote.databaseError(error)
        }
        let depth = remoteWriteDepth
        // (Levels raw SQL opened inside this one end with it.)
        defer { models.remoteRawLevels.removeAll { $0.depth >= depth } }
        func rollBack() {
            try? remote.execute(nested ? "ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)" : "ROLLBACK")
            remoteRestoreAfterRollback(remote, toDepth: depth - 1)
            remoteLogRolledBack(remote, nested: nested)
        }
        let result: T
        do {
            result = try body()
        } catch {
            rollBack()
            throw remote.databaseError(error)
        }
        if remote.transactionHasFailed {
            rollBack()
            throw DatabaseError(code: .abort, message: "a statement of the transaction failed and \(remote.engineName) aborted it; "
                                + "nothing the block wrote was committed (the block went on after an error it caught)",
                                sql: nested ? "RELEASE SAVEPOINT \(savepoint)" : "COMMIT", sqlState: "25P02")
        }
        do {
            if !nested { try remoteLogClosing(remote) }
            try remote.execute(nested ? "RELEASE SAVEPOINT \(savepoint)" : "COMMIT")
        } catch {
            rollBack()
            throw remote.databaseError(error)
        }
        if nested { remoteLogReleased() }
        // Committed: nothing left to undo; released: its writes belong to the enclosing level.
        if nested {
            for i in models.remoteWrites.indices where models.remoteWrites[i].depth >= depth { models.remoteWrites[i].depth = depth - 1 }
            for (id, refused) in models.refusedInTransaction where refused.depth >= depth {
                models.refusedInTransaction[id] = (refused.object, depth - 1)
            }
        } else {
            models.remoteWrites.removeAll()
            models.refusedInTransaction.removeAll()
            models.childTypesWrittenInTransaction.removeAll()
            remoteLogCommitted()
        }
        return result
    }

    // MARK: Schema

    func remoteSchemaPlan<C: RemoteConnection>(_ remote: C, _ type: any Model.Type) throws -> SchemaPlan {
        try mapped(remote) { try EngineSchemaSync.plan(type, dialect: remote.dialect, introspector: remote.introspector()) }
    }

    /// Syncs `types` (their referenced models first); the models not used yet on this handle are mapped from
    /// the catalog the sync read, so that their first use reads it no more.
    func remoteSyncSchema<C: RemoteConnection>(_ remote: C, _ types: [any Model.Type]) throws -> [SchemaPlan] {
        try mapped(remote) {
            let (plans, schema) = try EngineSchemaSync.syncAtomicallyReading(types, on: remote, introspect: remote.introspector)
            // (Inside a transaction a later rollback could undo the tables: they are mapped at first use then.)
            if !remote.isInTransaction && schemaWriter == nil {
                for type in types where models.registries[ObjectIdentifier(type)] == nil {
                    _ = try remoteRegistry(remote, for: type, schema: schema)
                }
            }
            return plans
        }
    }
}
