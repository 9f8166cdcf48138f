/// How an engine spells the SQL that differs between engines: quoting, placeholders, column types,
/// inserts that return keys, key lists, literals, transactions and what ALTER TABLE can do.
///
/// Shared code builds its statements through the connection's dialect; the SQLite one is
/// ``SQLiteDialect``.
///
/// ```swift
/// let sql = "SELECT * FROM \(dialect.quote("order")) WHERE id IN \(dialect.keyList(parameter: 1))"
/// ```
package protocol SQLDialect: Sendable {
    /// An identifier quoted for this engine.
    func quote(_ identifier: String) -> String
    /// The placeholder of the `index`-th parameter (1-based).
    func placeholder(_ index: Int) -> String
    /// The row source for a list of keys bound as one parameter (`json_each(?)` on SQLite, an array on
    /// PostgreSQL), selecting a column named `value`.
    func keyList(parameter index: Int) -> String
    /// The condition that `expression` (SQL, quoted) equals one of the keys of an array bound as the
    /// `index`-th parameter (``keyArray(_:)``'s value): `expression = ANY($n)` on PostgreSQL, which
    /// types the array by the expression's column. Nil where the engine has no arrays (SQLite binds a JSON
    /// array through ``keyList(parameter:)``, or a list of parameters).
    func anyKey(_ expression: String, parameter index: Int) -> String?
    /// The value that binds `keys` as the one parameter of ``anyKey(_:parameter:)``.
    func keyArray(_ keys: [SQLValue]) -> SQLValue
    /// A literal for a value, for DDL defaults only (values of statements are always bound).
    func literal(_ value: SQLValue) -> String
    /// The statement that opens a transaction of the given kind.
    func begin(_ kind: Database.TransactionKind) -> String
    /// The suffix of an INSERT that returns the new row's integer key.
    var returningRowID: String { get }
    /// The collation that compares text without regard to case.
    var caseInsensitiveCollation: String { get }
    /// Whether ALTER TABLE can drop a column in place (else a rebuild is needed).
    var altersDropColumn: Bool { get }

    // MARK: Migrations
    /// The statement that records a migration in `table` (columns namespace, id, checksum, applied_at, keyed
    /// by namespace and id), replacing an earlier record of the same migration; its four parameters bind
    /// those columns in that order.
    func migrationRecordUpsert(table: String) -> String

    // MARK: Schema sync
    /// Whether ALTER TABLE can rename a column in place (`RENAME COLUMN`).
    var altersRenameColumn: Bool { get }

    // MARK: Column types
    /// The declared type of a column that stores `type`; `strict` for a table whose engine checks declared
    /// types (SQLite's STRICT tables, which take ANY for a column of no preference).
    func columnType(_ type: ColumnType, strict: Bool) -> String
    /// The column definition after the name of a single-column key the engine assigns: an integer key
    /// when `integer`, else a text key the caller assigns.
    func singleKeyDefinition(integer: Bool, format: ColumnFormat.Kind?) -> String
    /// The declared type of a column for a property stored as `type` in `format` (see the extension).
    func columnType(_ type: ColumnType, format: ColumnFormat.Kind?, strict: Bool) -> String
    /// The literal of a column's DDL default for a value of `format` (see the extension).
    func defaultLiteral(_ value: SQLValue, format: ColumnFormat.Kind?) -> String
}

extension SQLDialect {
    /// No array condition by default (see ``anyKey(_:parameter:)``).
    ///
    /// ```swift
    /// SQLiteDialect().anyKey("\"id\"", parameter: 1)   // nil
    /// ```
    package func anyKey(_ expression: String, parameter index: Int) -> String? { nil }

    /// NULL by default: an engine without arrays binds key lists otherwise.
    ///
    /// ```swift
    /// SQLiteDialect().keyArray([.integer(1)])   // .null
    /// ```
    package func keyArray(_ keys: [SQLValue]) -> SQLValue { .null }

    /// The declared type of a column for a property stored as `type` in `format` (a date, a UUID, a Bool,
    /// a Decimal, JSON): engines with types of their own for those (PostgreSQL's `TIMESTAMPTZ`, `UUID`,
    /// `BOOLEAN`, `NUMERIC`, `JSONB`) override it; by default, the storage type's.
    ///
    /// ```swift
    /// SQLiteDialect().columnType(.real, format: .date, strict: false)  // "REAL"
    /// ```
    package func columnType(_ type: ColumnType, format: ColumnFormat.Kind?, strict: Bool) -> String {
        columnType(type, strict: strict)
    }

    /// The literal of a column's DDL default for a value in Strata's native encoding of `format`; by
    /// default ``literal(_:)``.
    ///
    /// ```swift
    /// SQLiteDialect().defaultLiteral(.integer(0), format: .bool)  // "0"
    /// ```
    package func defaultLiteral(_ value: SQLValue, format: ColumnFormat.Kind?) -> String {
        literal(value)
    }
}
