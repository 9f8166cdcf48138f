/// An error reported by SQLite: its extended result code and message, the SQL, and the arguments.
///
/// Argument values are kept out of `description` unless the database was opened with
/// ``Database/Configuration/publicArguments`` set, so that logs do not leak user data.
///
/// ```swift
/// do { try db.execute("INSERT INTO user(email) VALUES (?)", "a@b.c") }
/// catch let error as DatabaseError where error.code == .constraintUnique {
///     print(error.message, error.sql ?? "")
/// }
/// ```
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The extended result code.
    ///
    /// ```swift
    /// if error.code == .busy { retry() }
    /// ```
    public let code: ResultCode
    /// SQLite's message.
    ///
    /// ```swift
    /// print(error.message)  // "no such table: nope"
    /// ```
    public let message: String
    /// The SQL that failed, when there is one.
    ///
    /// ```swift
    /// print(error.sql ?? "-")
    /// ```
    public let sql: String?
    /// The bound arguments, when there were any.
    ///
    /// ```swift
    /// error.arguments  // [.integer(1)]
    /// ```
    public let arguments: [SQLValue]
    /// Whether `description` may show the arguments.
    ///
    /// ```swift
    /// error.argumentsArePublic
    /// ```
    public let argumentsArePublic: Bool

    /// Makes an error; the library makes these, tests and wrappers may too.
    ///
    /// ```swift
    /// throw DatabaseError(code: .misuse, message: "database is closed")
    /// ```
    public init(code: ResultCode, message: String, sql: String? = nil,
                arguments: [SQLValue] = [], argumentsArePublic: Bool = false) {
        self.code = code
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.argumentsArePublic = argumentsArePublic
    }

    /// "SQLite error 2067 (UNIQUE constraint failed: t.id) while executing `INSERT ...`".
    ///
    /// ```swift
    /// print(error)  // SQLite error 1: no such table: nope - while executing `SELECT * FROM nope`
    /// ```
    public var description: String {
        var text = "SQLite error \(code.rawValue): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        if !arguments.isEmpty {
            text += argumentsArePublic ? " with arguments \(arguments)" : " with \(arguments.count) argument(s) (hidden)"
        }
        return text
    }
}
