// SQLite's connection settings around a table rebuild (the 12-step rebuild is SQLite's: PostgreSQL alters
// in place). Schema sync (Schema/Database+Schema.swift) calls these by their engine-neutral names.

extension Database {
    /// Runs `body`, the transaction of a table rebuild of `metadata`'s table, with the connection settings
    /// the rebuild needs: foreign keys off for the whole transaction (else DROP TABLE fires ON DELETE
    /// actions on child rows, pitfall 21), and `PRAGMA foreign_keys` is a silent no-op inside one (pitfall
    /// 20): it is turned off before BEGIN and restored after the end, as is `legacy_alter_table` (the
    /// rebuild's steps turn it on and off around the swap), whether the transaction committed or not.
    /// Foreign keys on inside an already open transaction cannot be turned off: a ``SchemaError``.
    func withRebuildSettings<T>(for metadata: ModelMetadata, _ body: () throws -> T) throws -> T {
        let foreignKeys = try value(Int64.self, "PRAGMA foreign_keys") == 1
        if foreignKeys && isInTransaction {
            throw SchemaError(
                model: metadata.typeName, table: metadata.tableName, column: nil,
                found: "a table rebuild requested inside an open transaction, with foreign keys on",
                expected: "no open transaction, so that foreign keys can be turned off for the rebuild",
                remedy: isPoolWriter
                    // Inside a pool every write is a transaction: the pool's own sync runs outside one.
                    ? "Sync before the write: call `try pool.blocking.syncSchema(\(metadata.typeName).self)` (or `try await pool.syncSchema(\(metadata.typeName).self)`) at startup, outside `pool.write`, whose closure always runs in a transaction."
                    : "Sync before the transaction begins: call `try db.syncSchema(\(metadata.typeName).self)` first.")
        }
        let legacyAlter = try value(Int64.self, "PRAGMA legacy_alter_table") ?? 0
        if foreignKeys { try connection.execute("PRAGMA foreign_keys = OFF") }
        let result = Result { try body() }
        // Connection settings outlive the transaction: restore both, whether it committed or not.
        try connection.execute("PRAGMA legacy_alter_table = \(legacyAlter == 0 ? "OFF" : "ON")")
        if foreignKeys { try connection.execute("PRAGMA foreign_keys = ON") }
        return try result.get()
    }
}
