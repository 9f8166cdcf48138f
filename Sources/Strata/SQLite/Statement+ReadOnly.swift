import CSQLite

extension Statement {
    /// Whether the statement makes no direct change to the database file (`sqlite3_stmt_readonly`).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
}
