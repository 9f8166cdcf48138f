/// An error reported by the database: SQLite's extended result code (or, on another engine, the nearest one
/// beside the engine's own code, ``sqlState``) and message, the SQL, and the arguments.
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
    /// On an engine other than SQLite, its own code for the error (PostgreSQL's five-character SQLSTATE:
    /// `23505` a unique violation, `40001` a serialization failure); nil on SQLite, whose code is ``code``.
    /// ``code`` then holds the nearest SQLite code (`.constraintUnique` for `23505`), so that the same
    /// `catch` works on both engines.
    ///
    /// ```swift
    /// catch let error as DatabaseError where error.code == .constraintUnique {
    ///     print(error.sqlState ?? "SQLite")   // "23505" on PostgreSQL
    /// }
    /// ```
    public let sqlState: String?

    /// Makes an error; the library makes these, tests and wrappers may too.
    ///
    /// ```swift
    /// throw DatabaseError(code: .misuse, message: "database is closed")
    /// ```
    public init(code: ResultCode, message: String, sql: String? = nil,
                arguments: [SQLValue] = [], argumentsArePublic: Bool = false, sqlState: String? = nil) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.argumentsArePublic = argumentsArePublic
    }

    /// Whether the engine rolled the transaction back because it could not serialize it with another one:
    /// PostgreSQL's serialization failure (`40001`) or deadlock (`40P01`). Running the whole transaction
    /// again is the remedy (``Database/retryingOnConflict(maxAttempts:_:)`` does).
    ///
    /// ```swift
    /// catch let error as DatabaseError where error.isSerializationFailure { retry() }
    /// ```
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// "SQLite error 2067 (UNIQUE constraint failed: t.id) while executing `INSERT ...`".
    ///
    /// ```swift
    /// print(error)  // SQLite error 1: no such table: nope - while executing `SELECT * FROM nope`
    /// ```
    ///
    /// The description stays short enough for a log line: SQL past 2,000 characters and arguments past
    /// 32 entries are left out, with a marker saying how many (the
    /// `sql` and `arguments` properties keep them all).
    public var description: String {
        var text = sqlState.map { "PostgreSQL error \($0)" } ?? "SQLite error \(code.rawValue)"
        text += ": \(ErrorText.clipped(message, limit: ErrorText.sqlLimit))"
        if let sql { text += " - while executing `\(ErrorText.clipped(sql, limit: ErrorText.sqlLimit, of: "SQL"))`" }
        if !arguments.isEmpty {
            text += argumentsArePublic
                ? " with arguments [\(ErrorText.list(arguments.map(\.description), separator: ", ", of: "arguments"))]"
                : " with \(arguments.count) argument(s) (hidden)"
        }
        return text
    }
}

/// Bounds for the descriptions of errors, which may quote a statement of 40,000 parameters or a list of
/// thousands of columns: long text is cut, with a marker saying how much was left out.
enum ErrorText {
    /// The characters of SQL (or of a message) a description keeps.
    static let sqlLimit = 2_000
    /// The entries of a list (arguments, properties) a description keeps.
    static let listLimit = 32

    /// `text`, or its first `limit` characters and "… [N more characters left out]".
    static func clipped(_ text: String, limit: Int, of what: String? = nil) -> String {
        // `utf8.count` first: it is O(1) for native strings, and a count of characters is not.
        guard text.utf8.count > limit, text.count > limit else { return text }
        let kept = text.prefix(limit)
        let left = text.count - limit
        return "\(kept)… [\(left) more characters\(what.map { " of \($0)" } ?? "") left out]"
    }

    /// `items` joined, the first ``listLimit`` of them, and "… [N more <what> left out]".
    static func list(_ items: [String], separator: String, of what: String) -> String {
        guard items.count > listLimit else { return items.joined(separator: separator) }
        return items.prefix(listLimit).joined(separator: separator) + separator + "… [\(items.count - listLimit) more \(what) left out]"
    }
}
