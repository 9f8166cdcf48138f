import Foundation
import Logging

/// A handle on one SQLite database: one connection, its prepared statements, and (for models) its
/// identity map of live instances.
///
/// A handle is not `Sendable`: it belongs to one isolation domain at a time (move it with `sending`).
///
/// ```swift
/// let db = try Database(path: "company.sqlite")    // created when missing
/// let scratch = try Database()                      // private, in memory
/// try db.execute("CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, text TEXT)")
/// try db.execute("INSERT INTO note(text) VALUES (?)", "hello")
/// let count = try db.value(Int.self, "SELECT count(*) FROM note")
/// ```
public final class Database {
    let connection: Connection
    /// The engine this handle runs on when it is not SQLite (``connection`` is then a closed stand-in);
    /// nil on SQLite. See Database+Remote.swift.
    package let remote: (any RemoteConnection)?
    /// Whether ``remote`` is set: what SQLite's hot paths test (one load, no existential to look at).
    let isRemote: Bool
    /// The configuration the database was opened with.
    ///
    /// ```swift
    /// db.configuration.busyTimeout
    /// ```
    public let configuration: Configuration
    /// Live model instances and per-type state; see the Model folder.
    let models = ModelContext()
    var transactionDepth = 0
    /// On a pool reader: syncs a model's table through the pool's writer (readers cannot write).
    var schemaWriter: ((any Model.Type) throws -> Void)?
    /// The writer of a ``DatabasePool``: every write there runs in a transaction, so errors point at
    /// the pool's calls (`pool.syncSchema`) rather than at this handle's.
    var isPoolWriter = false
    /// On another engine: whether observers want the commits now (a pool's writer asks its streams); nil:
    /// whenever observers are registered.
    var remoteObservationWanted: (() -> Bool)?
    /// Called after a commit, before its observers hear of it (a replica pool records the commit's log
    /// position there, so that the reads the observers start wait for it).
    var beforePublishingCommit: ((Database) -> Void)?

    /// Opens (and creates, unless read-only) the database file at `path`.
    ///
    /// ```swift
    /// let db = try Database(path: "/tmp/app.sqlite")
    /// ```
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.connection = try Connection(path: path, configuration: configuration)
        self.remote = nil
        self.isRemote = false
        do {
            if configuration.foreignKeys { try connection.enableForeignKeys() }
            if let mode = try configuration.journalMode ?? (connection.isNewFile() ? .wal : nil) { try setJournalMode(mode) }
        } catch let error as DatabaseError {
            throw error.opening(path)   // a locked file, say: which one
        }
        installChangeHooks()
        // The COMMIT or ROLLBACK the authorizer refused inside a transaction block, for the error's message.
        connection.refusedTransactionStatement = { [weak self] in
            defer { self?.models.refusedTransactionStatement = nil }
            return self?.models.refusedTransactionStatement
        }
        // Writes to WITHOUT ROWID tables, which the update hook never reports, are told by the statements
        // that may make them (see `Connection.noteSilentWrites`).
        connection.silentTables = { [weak self] tables in self?.silentTables(tables) ?? [] }
        connection.reportedRows = { [weak self] in self?.models.changeCount ?? 0 }
        connection.silentWritesHappened = { [weak self] tables in self?.silentWritesHappened(tables) }
        // A statement stepped outside the library's own calls (a bare `Statement`) may fail after SQLite
        // reported changes it then undid; they are checked against the rows before they reach live instances.
        connection.statementFailed = { [weak self] in
            guard let self else { return }
            models.verifyPending = !models.pending.isEmpty || models.verifyPending
            models.pendingCommitted = 0
        }
    }

    /// A handle on another engine's connection, with SQLite's closed `standIn` (see Database+Remote.swift).
    init(remote: any RemoteConnection, standIn: Connection, configuration: Configuration) {
        self.configuration = configuration
        self.connection = standIn
        self.remote = remote
        self.isRemote = true
    }

    /// Opens a private in-memory database, gone when the handle is closed.
    ///
    /// ```swift
    /// let db = try Database()
    /// ```
    public convenience init(configuration: Configuration = Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    /// The path the database was opened with (`:memory:` for a private in-memory one).
    /// ```swift
    /// print(db.path)
    /// ```
    public var path: String { remote?.location ?? connection.path }

    /// Finalizes every statement and closes the connection; reports SQLite's error if it cannot.
    /// Later calls throw `.misuse`.
    ///
    /// ```swift
    /// try db.close()
    /// ```
    public func close() throws {
        if let remote { return try mapped(remote) { try remote.close() } }
        try connection.close()
    }

    /// Whether the handle was closed (on another engine: its connection).
    var isClosed: Bool { isRemote ? remoteState.isClosed : connection.isClosed }

    /// The error of a call on a closed handle.
    func closedError() -> DatabaseError {
        remote == nil ? connection.closedError(sql: nil) : DatabaseError(code: .misuse, message: "the database is closed")
    }

    /// How many `?` parameters one statement may bind (SQLite's variable-number limit).
    /// ```swift
    /// db.maximumArguments  // 32766
    /// ```
    public var maximumArguments: Int {
        isRemote ? remoteState.maximumParameterCount : (connection.isClosed ? 0 : connection.maximumParameterCount)
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    ///
    /// ```swift
    /// db.changes
    /// ```
    public var changes: Int { isRemote ? remoteState.changes : (connection.isClosed ? 0 : connection.changes) }

    /// Rows changed by INSERT, UPDATE and DELETE since the database was opened.
    ///
    /// ```swift
    /// db.totalChanges
    /// ```
    public var totalChanges: Int { isRemote ? remoteState.totalChanges : (connection.isClosed ? 0 : connection.totalChanges) }

    /// Whether a transaction is open.
    ///
    /// ```swift
    /// db.isInTransaction  // false
    /// ```
    public var isInTransaction: Bool { isRemote ? remoteState.isInTransaction : (!connection.isClosed && connection.isInTransaction) }

    /// A cached prepared statement for one SQL statement, reset and ready to bind. It is cached for you, apart
    /// from the library's own statements: a save or a fault that runs the same SQL never resets one you hold.
    ///
    /// ```swift
    /// let insert = try db.statement("INSERT INTO note(text) VALUES (?)")
    /// try insert.run(["one"]); try insert.run(["two"])
    /// ```
    public func statement(_ sql: String) throws -> Statement {
        let statement = try connection.callerStatement(sql)
        // Its writes to WITHOUT ROWID tables reach live instances at the next model call.
        if !statement.isReadOnly { statement.reportsWrites = true }
        return statement
    }

    /// Calls `observer` with the SQL (parameters unexpanded) of each statement as it finishes, until the
    /// returned token is cancelled or released. Useful to count queries in tests. The observer runs while
    /// SQLite finishes the statement: it must not use or close this database. The `PRAGMA data_version`
    /// a handle runs before model calls outside a transaction (to notice other connections' commits) is
    /// not reported; the debug log shows it.
    ///
    /// ```swift
    /// var seen: [String] = []
    /// let trace = db.traceStatements { seen.append($0) }
    /// defer { trace.cancel() }
    /// ```
    public func traceStatements(_ observer: @escaping (String) -> Void) -> StatementTrace {
        if let remote { return remoteTraceStatements(remote, observer) }
        let id = connection.addTraceObserver { sql, _ in observer(sql) }
        return StatementTrace(connection: connection, id: id)
    }

    /// ``traceStatements(_:)`` on another engine: the connection reports each statement (in its own
    /// spelling, `$1` for `?`) as it sends it.
    private func remoteTraceStatements(_ remote: any RemoteConnection, _ observer: @escaping (String) -> Void) -> StatementTrace {
        models.nextTraceID += 1
        let id = models.nextTraceID
        models.traceObservers[id] = observer
        let models = self.models
        remote.statementObserver = { sql in for observer in models.traceObservers.values { observer(sql) } }
        return StatementTrace(cancel: { [weak models, weak remote] in
            models?.traceObservers[id] = nil
            if models?.traceObservers.isEmpty ?? true { remote?.statementObserver = nil }
        })
    }
}

/// A registration made by ``Database/traceStatements(_:)``; tracing stops on `cancel()` or release.
///
/// ```swift
/// let trace = db.traceStatements { print($0) }
/// trace.cancel()
/// ```
public final class StatementTrace {
    private weak var connection: Connection?
    private let id: Int
    /// Another engine's: what stops it.
    private var stop: (() -> Void)?

    init(connection: Connection, id: Int) {
        self.connection = connection
        self.id = id
    }

    init(cancel: @escaping () -> Void) {
        id = 0
        stop = cancel
    }

    deinit { cancel() }

    /// Stops tracing.
    ///
    /// ```swift
    /// trace.cancel()
    /// ```
    public func cancel() {
        connection?.removeTraceObserver(id)
        connection = nil
        stop?()
        stop = nil
    }
}
