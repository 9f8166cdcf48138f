import CSQLite

// What schema sync and the failure diagnoses ask the SQLite connection, under engine-neutral names.

extension Connection {
    /// Whether the connection holds a read or write transaction on the main database (`sqlite3_txn_state`
    /// is not `SQLITE_TXN_NONE`): an explicit one, or a read still under way. What it reads then comes
    /// from that transaction's snapshot, which cannot see a table another connection made since.
    var holdsSnapshot: Bool { sqlite3_txn_state(handle, "main") != SQLITE_TXN_NONE }

    /// The reader of this connection's schema.
    var introspector: SQLiteIntrospector { SQLiteIntrospector(self) }
}

extension Statement {
    /// The declared type of a result column that is a table's column (`sqlite3_column_decltype`); nil when
    /// SQLite reports none (an expression, say).
    func declaredType(at index: Int32) -> String? {
        sqlite3_column_decltype(handle, index).map { String(cString: $0) }
    }
}

extension Database {
    /// The reader of this handle's schema (StrataTools reads the schema through it too: `package`).
    package var introspector: SQLiteIntrospector { SQLiteIntrospector(connection) }
}
