import CSQLite

// SQLite's answers to the dialect's schema-sync questions.

extension SQLiteDialect {
    /// `RENAME COLUMN` came with SQLite 3.25.
    var altersRenameColumn: Bool { sqlite3_libversion_number() >= 3_025_000 }

    /// The type's own name (its affinity); in a STRICT table, which takes only INT, INTEGER, REAL, TEXT, BLOB
    /// and ANY, `ANY` for NUMERIC, which stores values as given there as an SQLValue expects.
    func columnType(_ type: ColumnType, strict: Bool) -> String {
        strict && type == .numeric ? "ANY" : type.rawValue
    }

    /// An integer key is the rowid (`AUTOINCREMENT`: a deleted key is never handed out again); a text key
    /// (a UUID key too: SQLite has no UUID type) is declared NOT NULL, which SQLite's primary keys are not by themselves.
    func singleKeyDefinition(integer: Bool, format: ColumnFormat.Kind?) -> String {
        integer ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "TEXT PRIMARY KEY NOT NULL"
    }
}
