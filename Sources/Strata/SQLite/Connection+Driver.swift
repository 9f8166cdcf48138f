import CSQLite

// The SQLite connection as the engine-neutral ``DriverConnection``.
extension Connection: DriverConnection {
    var dialect: SQLiteDialect { SQLiteDialect() }

    var changes: Int { Int(sqlite3_changes64(handle)) }

    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// `PRAGMA data_version`: changes when another connection commits to the file.
    func commitToken() throws -> Int64 {
        let statement = try cachedStatement(Connection.dataVersionSQL)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    /// `PRAGMA schema_version`: changes with every schema change.
    func schemaToken() throws -> Int64 {
        let statement = try cachedStatement("PRAGMA schema_version")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : -1
    }

    func interrupt() { sqlite3_interrupt(handle) }

    /// The SQLite version linked in.
    static var engineVersion: String { String(cString: sqlite3_libversion()) }

    /// How many parameters one statement may bind.
    var maximumParameterCount: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }
}
