/// One connection of an engine, as the library uses it: prepare and run SQL, the transaction state, the
/// counters that tell what changed, interruption, and statement tracing.
///
/// Engine-specific capabilities (SQLite's journal modes, backup, checkpoints, `user_version`) live on the
/// engine's own types; the library's shared code asks only for what this protocol names, with the SQL it
/// needs spelled by the connection's ``SQLDialect`` and the schema read by its ``SchemaIntrospector``.
///
/// ```swift
/// func count<C: DriverConnection>(_ connection: C, _ table: String) throws -> Int64 {
///     let statement = try connection.cachedStatement("SELECT count(*) FROM \(connection.dialect.quote(table))")
///     defer { statement.reset() }
///     return try statement.step() ? statement.int64(at: 0) : 0
/// }
/// ```
package protocol DriverConnection: AnyObject {
    associatedtype Statement: DriverStatement
    associatedtype Dialect: SQLDialect

    /// How this engine spells what differs between engines.
    var dialect: Dialect { get }
    /// Prepares a statement, reusing a cached one for the same SQL.
    func cachedStatement(_ sql: String) throws -> Statement
    /// Prepares a statement that is not cached.
    func prepare(_ sql: String) throws -> Statement
    /// Runs one or more statements without arguments.
    func execute(_ script: String) throws
    /// Closes the connection; using it afterwards throws.
    func close() throws

    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }
    /// Rows changed since the connection opened.
    var totalChanges: Int { get }
    /// Whether a transaction is open.
    var isInTransaction: Bool { get }
    /// The integer key of the row the last INSERT made.
    var lastInsertedRowID: Int64 { get }
    /// A number that changes when another connection commits (compared, never interpreted).
    func commitToken() throws -> Int64
    /// A number that changes when the schema changes (compared, never interpreted).
    func schemaToken() throws -> Int64
    /// Stops the statement running now, from any thread.
    func interrupt()
}
