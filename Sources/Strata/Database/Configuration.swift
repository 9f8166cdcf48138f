import Logging

extension Database {
    /// How a ``Database`` opens its connection.
    ///
    /// ```swift
    /// var configuration = Database.Configuration()
    /// configuration.busyTimeout = .milliseconds(100)
    /// configuration.logger.logLevel = .debug   // log every statement with its duration
    /// let db = try Database(path: "app.sqlite", configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Open read-only (the file must exist). ```swift configuration.readOnly = true ```
        public var readOnly = false
        /// How long to wait for another connection's lock before failing with `.busy`.
        /// ```swift configuration.busyTimeout = .seconds(1) ```
        public var busyTimeout: Duration = .seconds(5)
        /// Whether errors and logs may show argument values (off: they show only the count).
        /// ```swift configuration.publicArguments = true ```
        public var publicArguments = false
        /// Turns on `PRAGMA foreign_keys` (SQLite's default is off; Strata's is on, like GRDB's).
        /// ```swift configuration.foreignKeys = false ```
        public var foreignKeys = true
        /// Where SQL (`.debug`, with timings) and schema changes (`.info`) are logged.
        /// ```swift configuration.logger = Logger(label: "app.db") ```
        public var logger = Logger(label: "Strata")

        /// The defaults: read-write, 5 s busy timeout, hidden arguments, foreign keys on.
        /// ```swift let configuration = Database.Configuration() ```
        public init() {}
    }

    /// The kind of lock a transaction takes when it begins.
    ///
    /// ```swift
    /// try db.transaction(.immediate) { try db.execute("UPDATE t SET x = x + 1") }
    /// ```
    public enum TransactionKind: String, Sendable {
        /// Locks on first read or write. ```swift TransactionKind.deferred ```
        case deferred = "DEFERRED"
        /// Takes the write lock at once. ```swift TransactionKind.immediate ```
        case immediate = "IMMEDIATE"
        /// Takes an exclusive lock at once. ```swift TransactionKind.exclusive ```
        case exclusive = "EXCLUSIVE"
    }
}
