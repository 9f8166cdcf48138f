/// SQLite's spelling of what differs between engines (see ``SQLDialect``).
///
/// ```swift
/// SQLiteDialect().keyList(parameter: 1)   // "json_each(?)"
/// ```
struct SQLiteDialect: SQLDialect {
    func quote(_ identifier: String) -> String { SQL.quote(identifier) }

    func placeholder(_ index: Int) -> String { "?" }

    /// A JSON array bound as text, read by `json_each`, whose `value` column holds each key.
    func keyList(parameter index: Int) -> String { "json_each(?)" }

    func literal(_ value: SQLValue) -> String { SQL.literal(value) }

    func begin(_ kind: Database.TransactionKind) -> String { "BEGIN \(kind.rawValue) TRANSACTION" }

    var returningRowID: String { " RETURNING rowid" }

    var caseInsensitiveCollation: String { "NOCASE" }

    /// SQLite drops a column in place only when nothing refers to it; Strata rebuilds instead.
    var altersDropColumn: Bool { false }

    // MARK: Migrations
    func migrationRecordUpsert(table: String) -> String {
        "INSERT OR REPLACE INTO \(quote(table)) (namespace, id, checksum, applied_at) VALUES (?, ?, ?, ?)"
    }
}
