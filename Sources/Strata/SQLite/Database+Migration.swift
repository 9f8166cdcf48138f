// What a ``Migrator`` reads and sets that SQLite keeps in its own places: the catalog (`sqlite_master`), the
// `user_version` number, the foreign key switch and `PRAGMA foreign_key_check`. Each runs as raw SQL on the
// handle (``Database/value(_:_:_:)``, ``Database/execute(_:_:)``), like the migration's own statements.
//
// On a handle over another engine (`remote`, PostgreSQL's): the catalog is the engine's introspector (the
// connection's current schema); there is no `user_version` (it reads 0, and setting another number throws:
// `registerUserVersion` steps need SQLite); there is no foreign key switch (the engine checks its constraints
// always: `foreignKeysEnabled()` reads false, so the migrator toggles nothing, and a migration's transaction
// defers the constraints declared DEFERRABLE instead); and no `foreign_key_check` is needed (a violation fails
// its statement, or the COMMIT for a deferred constraint).
extension Database {
    /// Whether the main database (on another engine: the current schema) has a table of this name.
    package func containsTable(named name: String) throws -> Bool {
        if let remote { return try mapped(remote) { try remote.introspector().tableNames().contains(name) } }
        return try value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name) == 1
    }

    /// The version number the application keeps in the database (SQLite's `user_version`; 0 until set, and
    /// always 0 on another engine, which has no such number).
    package func userVersion() throws -> Int {
        if remote != nil { return 0 }
        return try value(Int.self, "PRAGMA user_version") ?? 0
    }

    /// Sets the number ``userVersion()`` reads. On another engine 0 is what it reads already (nothing to
    /// reset); another number throws.
    func setUserVersion(_ version: Int) throws {
        if let remote {
            guard version != 0 else { return }
            throw DatabaseError(code: .misuse, message: "this handle runs on \(remote.engineName), which has no user_version: "
                                + "register the step with register(_:) instead of registerUserVersion(_:), to record it in strata_migrations")
        }
        try execute("PRAGMA user_version = \(version)")
    }

    /// Whether foreign keys are enforced now (`PRAGMA foreign_keys`). False on another engine: it has no
    /// switch to turn (its constraints are always checked), so nothing is toggled around a migration.
    func foreignKeysEnabled() throws -> Bool {
        if remote != nil { return false }
        return try value(Int.self, "PRAGMA foreign_keys") == 1
    }

    /// Turns foreign key enforcement on or off (SQLite ignores this inside a transaction).
    func setForeignKeysEnabled(_ enabled: Bool) throws {
        if remote != nil { return }
        try execute("PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")")
    }

    /// Inside a migration's transaction whose foreign keys are not checked statement by statement: on another
    /// engine, the constraints declared DEFERRABLE are checked at the COMMIT (`SET CONSTRAINTS ALL DEFERRED`),
    /// the nearest to SQLite's switch (the others, those schema sync makes among them, stay immediate); and
    /// the migrations of two connections wait for each other (a lock held until the transaction ends), so
    /// that each runs once. Nothing on SQLite, whose IMMEDIATE transaction holds the write lock already.
    func beginMigrationTransaction(deferringForeignKeys: Bool) throws {
        guard remote != nil else { return }
        try execute("SELECT pg_advisory_xact_lock(hashtext('strata_migrations'))")
        if deferringForeignKeys { try execute("SET CONSTRAINTS ALL DEFERRED") }
    }

    /// The rows whose parent is missing, as `PRAGMA foreign_key_check` lists them (none on another engine,
    /// which refuses such rows as they are written).
    func foreignKeyCheck() throws -> [ForeignKeyCheckRow] {
        if remote != nil { return [] }
        return try rows("PRAGMA foreign_key_check").map { row in
            ForeignKeyCheckRow(table: row["table"], rowID: row["rowid"], parent: row["parent"], foreignKeyID: row["fkid"])
        }
    }

    /// Creates `strata_migrations` when missing. On another engine `applied_at` is a `timestamptz` and a
    /// `seq` identity column keeps the order the migrations ran in (there is no rowid).
    func createMigrationTable() throws {
        let table = SQL.quote(Migrator.tableName)
        if remote != nil {
            return try execute("CREATE TABLE IF NOT EXISTS \(table) (seq bigint GENERATED ALWAYS AS IDENTITY, namespace text NOT NULL, "
                               + "id text NOT NULL, checksum text, applied_at timestamptz NOT NULL, PRIMARY KEY (namespace, id))")
        }
        try execute("CREATE TABLE IF NOT EXISTS \(table) (namespace TEXT NOT NULL, id TEXT NOT NULL, checksum TEXT, applied_at TEXT NOT NULL, PRIMARY KEY (namespace, id))")
    }

    /// The statement that records a migration (namespace, id, checksum, applied-at), in the engine's dialect.
    func migrationRecordUpsert() -> String {
        if let remote { return remote.dialect.migrationRecordUpsert(table: Migrator.tableName) }
        return connection.dialect.migrationRecordUpsert(table: Migrator.tableName)
    }

    /// The records of `namespace` in the order they were written: `id`, `checksum`, `applied_at` (ISO 8601 in
    /// UTC on another engine, whose column is a timestamp).
    func migrationRecords(namespace: String) throws -> [Row] {
        let table = SQL.quote(Migrator.tableName)
        if let remote {
            // A table another tool made has no `seq`: then the time, then the identifier, give the order.
            let hasSeq = try mapped(remote) { try remote.introspector().table(Migrator.tableName)?.column(named: "seq") != nil }
            return try rows("SELECT id, checksum, to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS applied_at "
                            + "FROM \(table) WHERE namespace = ? ORDER BY \(hasSeq ? "seq" : "applied_at, id")", namespace)
        }
        return try rows("SELECT id, checksum, applied_at FROM \(table) WHERE namespace = ? ORDER BY rowid", namespace)
    }

    /// Drops every table and view of ``tablesAndViews()``. On another engine the views go first and each
    /// drop cascades (a table others point at, a view over it); functions, types and sequences no column
    /// owns stay.
    func dropTablesAndViews() throws {
        var objects = try tablesAndViews()
        if remote != nil { objects = objects.filter(\.isView) + objects.filter { !$0.isView } }
        for object in objects {
            try execute("DROP \(object.isView ? "VIEW" : "TABLE") IF EXISTS \(SQL.quote(object.name))\(remote != nil ? " CASCADE" : "")")
        }
    }

    /// The user tables and views of the main database (not SQLite's own `sqlite_*` tables), in catalog order
    /// (on another engine: of the current schema, through its introspector).
    func tablesAndViews() throws -> [(name: String, isView: Bool)] {
        if let remote {
            return try mapped(remote) {
                let introspector = try remote.introspector()
                return try introspector.tableNames().map { name in (name: name, isView: try introspector.table(name)?.isView ?? false) }
            }
        }
        return try rows("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%'").map { row in
            let name: String = if case .text(let name)? = row["name"] { name } else { "" }
            return (name: name, isView: row["type"] == .text("view"))
        }
    }

    /// One row of ``foreignKeyCheck()``: the child table, the row's rowid (NULL in a WITHOUT ROWID table),
    /// the parent table and the foreign key's number, each as SQLite reported it (nil: no such column).
    struct ForeignKeyCheckRow {
        let table: SQLValue?
        let rowID: SQLValue?
        let parent: SQLValue?
        let foreignKeyID: SQLValue?
    }
}
