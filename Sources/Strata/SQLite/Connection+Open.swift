import CSQLite

// Opening a SQLite connection the way a ``Database`` asks for it: the open flags of its configuration, and
// what it sets and asks right after opening (foreign keys, whether the file is new).
extension Connection {
    /// Opens the file at `path` read-only or read-write (creating it) as `configuration` says, with
    /// extended result codes and `file:` URIs, for use by one thread at a time.
    convenience init(path: String, configuration: Database.Configuration) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_URI
        flags |= configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try self.init(path: path, flags: flags, busyTimeout: configuration.busyTimeout,
                      argumentsArePublic: configuration.publicArguments, logger: configuration.logger)
    }

    /// A SQLite connection that is already closed, standing in for one of `engine` in a ``Database`` that
    /// runs on another engine: every path that would ask SQLite throws `message` (``closedError(sql:)``),
    /// since a closed connection is a state the handle's every call already checks.
    static func standIn(message: String, configuration: Database.Configuration) throws -> Connection {
        let connection = try Connection(path: ":memory:", configuration: configuration)
        try connection.close()
        connection.closedMessage = message
        return connection
    }

    /// Turns foreign key enforcement on (`PRAGMA foreign_keys = ON`; SQLite's default is off).
    func enableForeignKeys() throws {
        try execute("PRAGMA foreign_keys = ON")
    }

    /// Whether the connection opened a file that SQLite just created or found empty (no page yet), which
    /// it may write: not an in-memory or temporary database, nor a file another tool made. Asked of SQLite
    /// once the file is open, so that a `file:` URI and a symbolic link name the file they open.
    func isNewFile() throws -> Bool {
        guard sqlite3_db_readonly(handle, "main") == 0,
              let name = sqlite3_db_filename(handle, "main"), name.pointee != 0 else { return false }
        let statement = try prepare("PRAGMA main.page_count")
        defer { statement.finalize() }
        return try statement.step() && statement.int64(at: 0) == 0
    }
}
