import Foundation

// What a handle offers only on SQLite: the public SQLite spellings (raw handle, library version, last
// rowid) and the journal mode, which SQLite keeps in the file.
extension Database {
    /// SQLite's raw connection handle, for calls Strata does not wrap (invalid once the database is closed).
    /// ```swift
    /// sqlite3_db_readonly(db.sqliteHandle, "main")
    /// ```
    public var sqliteHandle: OpaquePointer { connection.handle }

    /// The version of the SQLite library in use.
    ///
    /// ```swift
    /// Database.sqliteVersion  // "3.40.1"
    /// ```
    public static var sqliteVersion: String { Connection.engineVersion }

    /// The rowid of the most recent successful INSERT on this connection. SQLite only: PostgreSQL has no
    /// rowid, and a handle on it gives 0 (read the key with `INSERT … RETURNING` through `value(_:_:)`).
    /// ```swift
    /// try db.execute("INSERT INTO note(text) VALUES ('x')"); db.lastInsertRowID
    /// ```
    public var lastInsertRowID: Int64 { connection.isClosed ? 0 : connection.lastInsertedRowID }

    /// Sets the journal mode unless the file has it already (changing it needs a moment without other
    /// connections' transactions). Throws when SQLite keeps another mode.
    func setJournalMode(_ mode: JournalMode) throws {
        func pragma(_ sql: String) throws -> String? {
            let statement = try connection.prepare(sql)
            defer { statement.finalize() }
            return try statement.step() ? statement.string(at: 0).lowercased() : nil
        }
        // Two connections changing the mode of one file at once (two processes opening a new file) can each
        // hold the lock the other waits for: SQLite then answers SQLITE_BUSY at once, without its busy handler,
        // to one of them. That one tries again, within the busy timeout, unless the other set the mode meanwhile.
        let deadline = ContinuousClock.now + .milliseconds(configuration.busyTimeout.busyMilliseconds)
        var now: String?
        while true {
            do {
                guard try pragma("PRAGMA journal_mode") != mode.rawValue else { return }
                now = try pragma("PRAGMA journal_mode = \(mode.rawValue.uppercased())")
                break
            } catch let error as DatabaseError where error.code.primary == .busy && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        guard now == mode.rawValue || now == "memory" else {
            throw DatabaseError(code: .error, message: "the journal mode stayed \(now ?? "unknown") instead of \(mode.rawValue)",
                                sql: "PRAGMA journal_mode = \(mode.rawValue.uppercased())")
        }
    }
}
