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
        /// Open read-only (the file must exist).
        ///
        /// ```swift
        /// configuration.readOnly = true
        /// ```
        public var readOnly = false
        /// How long to wait for another connection's lock before failing with `.busy`.
        /// ```swift
        /// configuration.busyTimeout = .seconds(1)
        /// ```
        public var busyTimeout: Duration = .seconds(5)
        /// Whether errors and logs may show argument values (off: they show only the count).
        /// ```swift
        /// configuration.publicArguments = true
        /// ```
        public var publicArguments = false
        /// Turns on `PRAGMA foreign_keys` (SQLite's default is off; Strata's is on, like GRDB's).
        /// ```swift
        /// configuration.foreignKeys = false
        /// ```
        public var foreignKeys = true
        /// The journal mode to set when the database opens. `nil` (the default): a file Strata creates
        /// gets WAL, and a file that exists is left alone: a file in WAL stays in WAL (that mode is stored
        /// in the file, so switching to it changes it for every other tool too), any other opens in
        /// SQLite's default DELETE (TRUNCATE and PERSIST are per connection). A ``DatabasePool`` always
        /// uses WAL unless this names another mode.
        ///
        /// ```swift
        /// var configuration = Database.Configuration()
        /// configuration.journalMode = .wal      // opt an existing file in to WAL
        /// let db = try Database(path: "legacy.sqlite", configuration: configuration)
        /// ```
        public var journalMode: JournalMode?
        /// Where SQL (`.debug`, with timings) and schema sync are logged: routine steps (a new table, column
        /// or index) at `.debug`; a table rebuild and renames at `.info`; what sync keeps against the model
        /// (a UNIQUE index no longer declared) at `.warning`.
        /// ```swift
        /// configuration.logger = Logger(label: "app.db")
        /// ```
        public var logger = Logger(label: "Strata")

        /// The defaults: read-write, 5 s busy timeout, hidden arguments, foreign keys on.
        /// ```swift
        /// let configuration = Database.Configuration()
        /// ```
        public init() {}
    }

    /// SQLite's journal modes (`PRAGMA journal_mode`) for files.
    ///
    /// ```swift
    /// configuration.journalMode = .wal
    /// ```
    public enum JournalMode: String, Sendable, CaseIterable {
        /// Write-ahead log: readers never block the writer nor see half a transaction.
        ///
        /// ```swift
        /// .wal
        /// ```
        case wal
        /// A rollback journal, deleted at each commit (SQLite's default).
        ///
        /// ```swift
        /// .delete
        /// ```
        case delete
        /// A rollback journal, truncated at each commit.
        ///
        /// ```swift
        /// .truncate
        /// ```
        case truncate
        /// A rollback journal whose header is zeroed at each commit.
        ///
        /// ```swift
        /// .persist
        /// ```
        case persist
    }

    /// The kind of lock a transaction takes when it begins.
    ///
    /// ```swift
    /// try db.transaction(.immediate) { try db.execute("UPDATE t SET x = x + 1") }
    /// ```
    public enum TransactionKind: String, Sendable {
        /// Locks on first read or write.
        ///
        /// ```swift
        /// TransactionKind.deferred
        /// ```
        case deferred = "DEFERRED"
        /// Takes the write lock at once.
        ///
        /// ```swift
        /// TransactionKind.immediate
        /// ```
        case immediate = "IMMEDIATE"
        /// Takes an exclusive lock at once.
        ///
        /// ```swift
        /// TransactionKind.exclusive
        /// ```
        case exclusive = "EXCLUSIVE"
    }
}

extension Duration {
    /// This duration in whole milliseconds, within what SQLite's busy timeout takes: a negative one is 0 (no
    /// wait), one past `Int32.max` ms (24.8 days) is `Int32.max`. Any duration converts without overflowing.
    var busyMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        if seconds > Int64(Int32.max) / 1000 { return Int32.max }
        return Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }
}
