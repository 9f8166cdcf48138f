// What StrataTools (`inspect`, `diff`, `generate`) and the `strata` command read of a SQLite catalog besides
// each table's ``TableInfo``: the tables and views, the stored SQL of every object, the triggers and the
// `user_version` number. `package`: those modules read the schema through this one introspector.

extension SQLiteIntrospector {
    /// One object of the catalog (`sqlite_master`): its type (`table`, `view`, `index` or `trigger`), name,
    /// table, and the statement that made it (nil for an automatic index).
    package struct CatalogEntry: Sendable {
        package let type: String
        package let name: String
        package let table: String
        package let sql: String?
    }

    /// The tables and views, by name as SQLite orders them case-insensitively (then exactly); SQLite's own
    /// (`sqlite_sequence`, `sqlite_stat1` … `sqlite_stat4`: ``isEngineTable(_:)``) only with
    /// `includingInternal`.
    package func tablesAndViews(includingInternal: Bool = false) throws -> [CatalogEntry] {
        try entries("""
            SELECT type, name, name, sql FROM sqlite_master
            WHERE type IN ('table', 'view')\(includingInternal ? "" : " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
            ORDER BY name COLLATE NOCASE, name
            """)
    }

    /// Whether `table` is one SQLite makes and keeps for itself (AUTOINCREMENT's `sqlite_sequence`,
    /// ANALYZE's `sqlite_stat1` … `sqlite_stat4`): a user cannot make a table whose name begins `sqlite_`.
    package static func isEngineTable(_ table: String) -> Bool {
        table.lowercased().hasPrefix("sqlite_")
    }

    /// Every object that has a statement (automatic indices have none), SQLite's own left out, in catalog
    /// order.
    package func storedStatements() throws -> [CatalogEntry] {
        try entries("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    }

    /// The triggers, by name.
    package func triggers() throws -> [CatalogEntry] {
        try entries("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
    }

    /// The rows of a catalog query selecting type, name, table and SQL.
    private func entries(_ sql: String) throws -> [CatalogEntry] {
        let statement = try connection.prepare(sql)
        defer { statement.finalize() }
        var entries: [CatalogEntry] = []
        while try statement.step() {
            entries.append(CatalogEntry(type: statement.string(at: 0), name: statement.string(at: 1), table: statement.string(at: 2),
                                        sql: statement.isNull(at: 3) ? nil : statement.string(at: 3)))
        }
        return entries
    }
}

extension Database {
    /// Makes this handle refuse every write (`PRAGMA query_only = ON`), run as raw SQL like any statement the
    /// caller runs: a pool's readers, and the `strata` command's inspecting tools, which open a WAL file
    /// read-write this way (see its `openReadOnly`).
    package func refuseWrites() throws {
        if let remote { return try mapped(remote) { try remote.refuseWrites() } }
        try execute("PRAGMA query_only = ON")
    }
}
