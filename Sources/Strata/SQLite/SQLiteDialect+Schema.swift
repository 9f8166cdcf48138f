import CSQLite

// SQLite's answers to the dialect's schema-sync questions.

extension SQLiteDialect {
    /// `RENAME COLUMN` came with SQLite 3.25.
    var altersRenameColumn: Bool { sqlite3_libversion_number() >= 3_025_000 }
}
