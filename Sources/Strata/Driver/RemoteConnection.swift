/// A connection of an engine other than SQLite that a ``Database`` runs on (StrataPostgres opens one over
/// libpq). The handle speaks the driver protocols to it; what only SQLite has (its change hooks, backup,
/// checkpoints, `user_version`) is not asked of it, and a call that needs it throws an error naming the
/// engine.
///
/// ```swift
/// extension Database {
///     public convenience init(postgresURL url: String) throws {
///         try self.init(remote: PostgresConnection(url: url), configuration: Configuration())
///     }
/// }
/// ```
package protocol RemoteConnection: DriverConnection where Statement: RemoteStatement {
    /// The engine's name, for messages ("PostgreSQL").
    var engineName: String { get }
    /// Where the connection goes, for messages and ``Database/path`` (a URL with any password as `***`).
    var location: String { get }
    /// Whether the connection was closed.
    var isClosed: Bool { get }
    /// How many parameters one statement may bind.
    var maximumParameterCount: Int { get }
    /// Whether the open transaction failed part-way and the engine refuses statements until it rolls back
    /// (PostgreSQL's "in failed transaction" state).
    var transactionHasFailed: Bool { get }
    /// `sql` with the library's `?` parameters spelled the engine's way (never inside literals or
    /// comments).
    func engineSQL(_ sql: String) -> String
    /// The schema as it is now, read in one batch.
    func introspector() throws -> any SchemaIntrospector
    /// A new connection to the same database, opened as this one was (``Migrator``'s replay of the applied
    /// migrations in a scratch schema of its own).
    func openAnother() throws -> any RemoteConnection
    /// Makes the connection refuse writes from now on (a pool's readers).
    func refuseWrites() throws
    /// Stops the statement running now; callable from any thread.
    var interrupter: @Sendable () -> Void { get }
    /// The error a handle throws for one of the engine's: a ``DatabaseError`` with the engine's code
    /// (`sqlState`) and the nearest ``ResultCode``; any other error as it is.
    func databaseError(_ error: any Error) -> any Error
    /// How many rows the open transaction inserted, updated and deleted so far in each table of the
    /// connection's schemas (by table name; tables it did not write may be missing): what tells observers
    /// which tables raw SQL, cascades and triggers wrote, as the engine has no update hook.
    func writeCounts() throws -> [String: WriteCounts]
    /// Called with each statement's SQL as it is sent (``Database/traceStatements(_:)``); nil: nothing.
    var statementObserver: ((String) -> Void)? { get set }
}

/// Rows a transaction inserted, updated and deleted in one table (see ``RemoteConnection/writeCounts()``).
package struct WriteCounts: Sendable, Equatable {
    package var inserted: Int64 = 0
    package var updated: Int64 = 0
    package var deleted: Int64 = 0
    package init(inserted: Int64 = 0, updated: Int64 = 0, deleted: Int64 = 0) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
