import CSQLite

extension Database {
    /// How much a WAL checkpoint does (`sqlite3_wal_checkpoint_v2`'s modes).
    ///
    /// ```swift
    /// try db.checkpoint(.truncate)
    /// ```
    public enum CheckpointMode: Sendable {
        /// Copies what it can without waiting for readers or the writer.
        ///
        /// ```swift
        /// .passive
        /// ```
        case passive
        /// Waits for the writer, then copies everything.
        ///
        /// ```swift
        /// .full
        /// ```
        case full
        /// Like `.full`, then waits for readers so the next writer starts the WAL over.
        ///
        /// ```swift
        /// .restart
        /// ```
        case restart
        /// Like `.restart`, and truncates the WAL file to zero bytes.
        ///
        /// ```swift
        /// .truncate
        /// ```
        case truncate

        var rawValue: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .full: SQLITE_CHECKPOINT_FULL
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// What a checkpoint found and did.
    ///
    /// ```swift
    /// let result = try db.checkpoint()
    /// print(result.logFrames - result.checkpointedFrames, "frames still only in the WAL")
    /// ```
    public struct CheckpointResult: Sendable, Equatable {
        /// Frames in the WAL (-1: the database is not in WAL mode).
        ///
        /// ```swift
        /// result.logFrames
        /// ```
        public let logFrames: Int
        /// Frames copied into the database file.
        ///
        /// ```swift
        /// result.checkpointedFrames
        /// ```
        public let checkpointedFrames: Int
    }

    /// Runs a WAL checkpoint on the main database; outside a transaction.
    ///
    /// ```swift
    /// let result = try db.checkpoint(.truncate)
    /// ```
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> CheckpointResult {
        if connection.isClosed { throw connection.closedError(sql: nil) }
        var log: Int32 = 0
        var done: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(connection.handle, "main", mode.rawValue, &log, &done)
        guard code == SQLITE_OK else { throw connection.error(code: code, sql: "PRAGMA wal_checkpoint") }
        return CheckpointResult(logFrames: Int(log), checkpointedFrames: Int(done))
    }

    /// Copies this whole database, as of one moment, into `destination` (replacing all it held), with
    /// SQLite's online backup API. The destination's live instances are re-read afterwards.
    ///
    /// The copy takes the source's page size (a destination in WAL leaves it for the copy and returns, which
    /// needs no other connection to have it open) and text encoding (only into a database that never had a
    /// schema). A query-only destination (a pool's reader) is refused.
    ///
    /// ```swift
    /// let copy = try Database(path: "copy.sqlite")
    /// try db.backup(to: copy)
    /// ```
    public func backup(to destination: Database) throws {
        if connection.isClosed { throw connection.closedError(sql: nil) }
        if destination.connection.isClosed { throw destination.connection.closedError(sql: nil) }
        // SQLite's backup writes through `PRAGMA query_only`: a pool's reader (or a handle the caller made
        // query-only) would have its file replaced behind the pool's writer and its observers.
        if try destination.pragmaText("PRAGMA query_only") == "1" {
            throw DatabaseError(code: .readOnly, message: "attempt to write a readonly database: backing up \(path) into \(destination.path), "
                                    + "a query-only handle (PRAGMA query_only, as a pool's readers are); restore through a writer")
        }
        // Pages of another text encoding copied into a database that ever had a schema (whose encoding is
        // fixed: `schema_version` is past 0) leave the destination's
        // connection unable to run any statement ("attached databases must use the same text encoding as main
        // database") until it is opened again: refused while nothing changed.
        let sourceEncoding = try pragmaText("PRAGMA main.encoding")
        let destinationEncoding = try destination.pragmaText("PRAGMA main.encoding")
        if sourceEncoding != destinationEncoding, try destination.pragmaText("PRAGMA main.schema_version") != "0" {
            throw DatabaseError(code: .error, message: "cannot back up \(path) into \(destination.path): its text encoding is "
                                    + "\(destinationEncoding ?? "?") and the source's \(sourceEncoding ?? "?"); SQLite copies a database of another "
                                    + "encoding only into an empty one (a new file)")
        }
        // SQLite cannot change the page size of a database in WAL mode (the backup then fails with a bare
        // SQLITE_READONLY): a destination in WAL whose pages differ from the source's (a new file Strata made,
        // 4 KiB, and a source of 8 KiB pages) leaves WAL for the copy and comes back to it afterwards.
        let sourcePageSize = try pragmaText("PRAGMA main.page_size")
        let destinationPageSize = try destination.pragmaText("PRAGMA main.page_size")
        var leftWAL = false
        if sourcePageSize != destinationPageSize, try destination.pragmaText("PRAGMA main.journal_mode")?.lowercased() == "wal" {
            do {
                try destination.setJournalMode(.delete)
            } catch let error as DatabaseError {
                throw DatabaseError(code: error.code,
                                    message: "cannot back up into \(destination.path): it is in WAL mode with pages of "
                                        + "\(destinationPageSize ?? "?") bytes and the source's are \(sourcePageSize ?? "?") bytes; SQLite changes the "
                                        + "page size only of a database that leaves WAL, which needs no other connection to have it open (\(error.message))",
                                    sql: error.sql)
            }
            leftWAL = true
        }
        defer { if leftWAL { try? destination.setJournalMode(.wal) } }
        /// SQLite's error, naming the destination (and the page sizes, when they are why).
        func failure(_ code: Int32) -> DatabaseError {
            let error = destination.connection.error(code: code, sql: nil)
            var message = "\(error.message): backing up \(path) into \(destination.path)"
            if error.code.primary == .readOnly, sourcePageSize != destinationPageSize,
               sqlite3_db_readonly(destination.connection.handle, "main") == 0 {
                // (An in-memory destination that holds pages already.)
                message += ", whose pages are \(destinationPageSize ?? "?") bytes and the source's \(sourcePageSize ?? "?") bytes, "
                    + "which SQLite cannot change for an in-memory database"
            }
            return DatabaseError(code: error.code, message: message)
        }
        guard let backup = sqlite3_backup_init(destination.connection.handle, "main", connection.handle, "main") else {
            throw failure(sqlite3_errcode(destination.connection.handle))
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE else { throw failure(step) }
        guard finish == SQLITE_OK else { throw failure(finish) }
        // The destination's pages were replaced under it: its schema and every live instance are read again.
        destination.models.needsResync = true
        destination.models.changeCount &+= 1
        try destination.resyncAll()
        destination.refreshAllLiveInstances()
        if leftWAL {
            leftWAL = false
            try destination.setJournalMode(.wal)
        }
    }

    /// The first column of the first row of a PRAGMA, as text (nil: no row), outside the library's models.
    fileprivate func pragmaText(_ sql: String) throws -> String? {
        let statement = try connection.prepare(sql)
        defer { statement.finalize() }
        return try statement.step() ? statement.string(at: 0) : nil
    }
}
