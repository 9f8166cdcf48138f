// What a ``Migrator`` reads and sets that SQLite keeps in its own places: the catalog (`sqlite_master`), the
// `user_version` number, the foreign key switch and `PRAGMA foreign_key_check`. Each runs as raw SQL on the
// handle (``Database/value(_:_:_:)``, ``Database/execute(_:_:)``), like the migration's own statements.
extension Database {
    /// Whether the main database has a table of this name.
    package func containsTable(named name: String) throws -> Bool {
        try value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name) == 1
    }

    /// The version number the application keeps in the database (SQLite's `user_version`; 0 until set).
    package func userVersion() throws -> Int {
        try value(Int.self, "PRAGMA user_version") ?? 0
    }

    /// Sets the number ``userVersion()`` reads.
    func setUserVersion(_ version: Int) throws {
        try execute("PRAGMA user_version = \(version)")
    }

    /// Whether foreign keys are enforced now (`PRAGMA foreign_keys`).
    func foreignKeysEnabled() throws -> Bool {
        try value(Int.self, "PRAGMA foreign_keys") == 1
    }

    /// Turns foreign key enforcement on or off (SQLite ignores this inside a transaction).
    func setForeignKeysEnabled(_ enabled: Bool) throws {
        try execute("PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")")
    }

    /// The rows whose parent is missing, as `PRAGMA foreign_key_check` lists them.
    func foreignKeyCheck() throws -> [ForeignKeyCheckRow] {
        try rows("PRAGMA foreign_key_check").map { row in
            ForeignKeyCheckRow(table: row["table"], rowID: row["rowid"], parent: row["parent"], foreignKeyID: row["fkid"])
        }
    }

    /// The user tables and views of the main database (not SQLite's own `sqlite_*` tables), in catalog order.
    func tablesAndViews() throws -> [(name: String, isView: Bool)] {
        try rows("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%'").map { row in
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
