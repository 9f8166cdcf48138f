/// An error PostgreSQL or libpq reported: the SQLSTATE, the message and the SQL that failed.
///
/// `sqlState` is the server's five-character code (`23505` a unique violation, `57014` a cancelled
/// statement, `42P01` an undefined table). libpq reports none when a connection cannot be opened; the
/// driver then gives `08001` (the standard's "unable to establish connection"), and it gives `22023` to
/// arguments it rejects before sending them.
///
/// ```swift
/// do { try connection.execute("INSERT INTO t(id) VALUES (1)") }
/// catch let error as PostgresError where error.sqlState == "23505" {
///     print(error.message, error.sql ?? "")
/// }
/// ```
package struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE, when there is one.
    package let sqlState: String?
    /// The server's or libpq's message, without its trailing newline.
    package let message: String
    /// The SQL that failed, when there is one.
    package let sql: String?

    package init(sqlState: String?, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// `PostgreSQL error 23505 (duplicate key value violates unique constraint "t_pkey") while executing `…``.
    package var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " " + sqlState }
        text += " (" + message + ")"
        if let sql { text += " while executing `" + sql + "`" }
        return text
    }
}
