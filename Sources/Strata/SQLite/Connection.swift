import CSQLite
import Foundation
import Logging

/// One SQLite connection: the raw handle, the prepared-statement cache, errors and tracing.
/// ``Database`` owns exactly one and adds the identity map and models on top.
final class Connection {
    let handle: OpaquePointer
    let path: String
    let argumentsArePublic: Bool
    let logger: Logger
    private var statements: [String: Statement] = [:]
    /// The statements ``Database/statement(_:)`` hands out, cached apart from the library's own: a caller
    /// may hold one between steps, and the library's use of a statement of the same text (a save, a fault)
    /// would otherwise reset it under them.
    private var callerStatements: [String: Statement] = [:]
    private(set) var isClosed = false
    /// What a call on the closed connection says (a stand-in's: which engine the handle runs on instead).
    var closedMessage = "the database is closed"
    /// Set while the tables statements read are recorded (``Database/recordingReads(_:)``): the cache is
    /// bypassed, since SQLite's authorizer reports reads only when a statement is prepared.
    var preparesFresh = false {
        didSet { freshStatements.removeAll { $0.statement == nil } }
    }
    /// The statements ``cachedStatement(_:)`` prepared fresh and some holder may still keep: finalized on
    /// ``close()``, so that no statement outlives the connection and keeps `sqlite3_close` from closing.
    private var freshStatements: [WeakStatement] = []
    /// `sqlite_master` as of the last schema read (see ``SchemaCatalog``).
    var schemaCatalog: SchemaCatalog?
    /// The async pool call whose cancellation interrupts this connection's statements, while its closure
    /// runs (``Database/interruptingWhenCancelled(_:_:)``).
    var cancellableJob: PoolJob?
    /// Whether this SQLite has the JSON functions (built in since 3.38, and optional before): fetches by
    /// many integer keys then bind them as one JSON array (``TableMapping/jsonInStatement(column:orderBy:in:)``).
    lazy var hasJSONEach: Bool = (try? prepare("SELECT value FROM json_each('[1]')")) != nil
    /// Called with each finished statement's SQL and duration (nanoseconds), while any is registered.
    /// Told when a statement fails, so the owner can distrust the changes it reported (see ``Database``).
    var statementFailed: (() -> Void)?
    /// The transaction statement the owner's authorizer refused just now (and forgets), if it refused one.
    var refusedTransactionStatement: (() -> String?)?
    /// Set when a writing bare `Statement` finished (``Statement/reportsWrites``): what it wrote to WITHOUT
    /// ROWID tables, which SQLite's update hook never reports, is for the owner to reload.
    var unreportedWrite = false
    /// The tables of `main` and `temp` that the statement being prepared may write, itself or through its
    /// triggers and foreign key actions, as the owner's authorizer reports them (cleared before each prepare).
    var preparedWrites: [String] = []
    /// Keeps, of the tables a statement may write, those whose rows SQLite's update hook never reports
    /// (WITHOUT ROWID tables); set by the owner.
    var silentTables: (([String]) -> [String])?
    /// The number of rows the update hook reported so far (the owner's running count).
    var reportedRows: (() -> Int)?
    /// Told when a statement that may write silent tables finished having changed rows the update hook did
    /// not report: the tables it may have written.
    var silentWritesHappened: (([String]) -> Void)?
    /// The savepoint statement (SAVEPOINT, RELEASE, ROLLBACK TO) being prepared, as the owner's authorizer
    /// reports it (cleared before each prepare).
    var preparedSavepoint: SavepointStatement?
    /// Told before a savepoint statement runs and after it finished (`ran`), except while ``tracksSavepoints``
    /// is off: SQLite's rollback hook says nothing of a `ROLLBACK TO`, so the owner keeps what each savepoint
    /// would bring back.
    var savepointStatement: ((_ statement: SavepointStatement, _ ran: Bool) -> Void)?
    /// Off while the library runs the savepoints of its own transaction blocks (which it restores itself).
    var tracksSavepoints = true
    private var traceObservers: [Int: (String, UInt64) -> Void] = [:]
    private var nextObserverID = 0

    init(path: String, flags: Int32, busyTimeout: Duration, argumentsArePublic: Bool, logger: Logger) throws {
        // SQLite reads the path as a C string: a NUL byte would make it open the file named by what precedes.
        guard !path.utf8.contains(0) else {
            throw DatabaseError(code: ResultCode(rawValue: SQLITE_CANTOPEN), message: "the path contains a NUL byte (U+0000)")
                .opening(path.replacingOccurrences(of: "\u{0}", with: "\\0"))
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let db { sqlite3_close(db) }
            throw DatabaseError(code: ResultCode(rawValue: code), message: message).opening(path)
        }
        self.handle = db
        self.path = path
        self.argumentsArePublic = argumentsArePublic
        self.logger = logger
        sqlite3_extended_result_codes(db, 1)
        JSONCanonical.register(on: db)   // what key-path conditions on JSON properties compare
        DateText.registerLayoutFunction(on: db)   // what UPDATEs of date-text columns write through
        sqlite3_busy_timeout(db, busyTimeout.busyMilliseconds)
        if logger.logLevel <= .debug { updateTrace() }
        do {
            // Opening is lazy in SQLite: read the schema now so a file that is not a database fails here.
            try execute("SELECT count(*) FROM sqlite_master")
        } catch {
            sqlite3_close(db)
            isClosed = true  // deinit still runs for this fully initialized instance: it must not close again
            throw (error as? DatabaseError)?.opening(path) ?? error
        }
        if let name = sqlite3_db_filename(db, "main"), name.pointee != 0 { fileName = String(cString: name) }
    }

    deinit {
        if !isClosed {
            statements.values.forEach { $0.finalize() }
            callerStatements.values.forEach { $0.finalize() }
            sqlite3_close_v2(handle)
        }
    }

    /// Finalizes every statement and closes; a failure (e.g. SQLITE_BUSY) is reported, not hidden.
    func close() throws {
        guard !isClosed else { return }
        statements.values.forEach { $0.finalize() }
        statements.removeAll()
        callerStatements.values.forEach { $0.finalize() }
        callerStatements.removeAll()
        // Those prepared fresh for observed reads that a cache of the models' kept (an UPDATE's) would
        // otherwise keep the connection from closing.
        freshStatements.forEach { $0.statement?.finalize() }
        freshStatements.removeAll()
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw error(code: code, sql: nil) }
        isClosed = true
    }

    // MARK: Statements

    /// A cached prepared statement for `sql`, reset and ready.
    func cachedStatement(_ sql: String) throws -> Statement { try cached(sql, forCaller: false) }

    /// ``cachedStatement(_:)`` from the cache of the statements handed to the caller (``callerStatements``).
    func callerStatement(_ sql: String) throws -> Statement { try cached(sql, forCaller: true) }

    @inline(__always)
    private func cached(_ sql: String, forCaller: Bool) throws -> Statement {
        if preparesFresh {
            let statement = try prepare(sql)
            freshStatements.append(WeakStatement(statement))
            return statement
        }
        if let statement = forCaller ? callerStatements[sql] : statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        if forCaller { callerStatements[sql] = statement } else { statements[sql] = statement }
        return statement
    }

    /// A new prepared statement for exactly one SQL statement.
    func prepare(_ sql: String) throws -> Statement {
        guard !isClosed else { throw closedError(sql: sql) }
        try checkHasNoNul(sql)
        var stmt: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        preparedWrites.removeAll()
        preparedSavepoint = nil
        let code = sql.withCString { sqlite3_prepare_v3(handle, $0, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, &tail) }
        guard code == SQLITE_OK else { throw error(code: code, sql: sql) }
        let silent = silentTargets()
        let savepoint = preparedSavepoint
        preparedSavepoint = nil
        guard let stmt else {
            throw DatabaseError(code: .misuse, message: "no SQL statement in the text", sql: sql)
        }
        if let tail, tail.pointee != 0 {
            // Whatever follows must be only whitespace or comments: preparing it must yield no statement.
            var extra: OpaquePointer?
            let extraCode = sqlite3_prepare_v2(handle, tail, -1, &extra, nil)
            if extraCode != SQLITE_OK || extra != nil {
                sqlite3_finalize(extra)
                sqlite3_finalize(stmt)
                throw DatabaseError(code: .misuse, message: "more than one statement; use execute(_:) without arguments for a script", sql: sql)
            }
        }
        let statement = Statement(connection: self, sql: sql, handle: stmt)
        if !silent.isEmpty { statement.silentTargets = silent }
        if let savepoint { statement.savepoint = savepoint }
        return statement
    }

    /// Throws when `sql` holds a NUL byte: SQLite reads SQL as a C string and would stop there, running
    /// what precedes (an UPDATE without its WHERE clause). Text with NUL bytes is bound as an argument.
    private func checkHasNoNul(_ sql: String) throws {
        guard sql.utf8.contains(0) else { return }
        throw DatabaseError(code: .misuse, message: "the SQL contains a NUL byte (U+0000), where SQLite would stop reading it; bind such text as an argument",
                            sql: sql)
    }

    /// The tables the statement just prepared may write that SQLite's update hook never reports.
    private func silentTargets() -> [String] {
        guard !preparedWrites.isEmpty, let silentTables else { return [] }
        let written = preparedWrites
        preparedWrites.removeAll()
        return silentTables(written)
    }

    /// Runs `step` (which steps a statement that may write `silent` tables to its end), and tells the owner
    /// when it changed rows the update hook did not report: SQLite's count of changed rows (which counts
    /// those of triggers and foreign key actions) grew by more than the rows the hook reported.
    func noteSilentWrites<T>(_ silent: [String], _ step: () throws -> T) rethrows -> T {
        let changesBefore = sqlite3_total_changes64(handle), reportedBefore = reportedRows?() ?? 0
        defer {
            let changed = sqlite3_total_changes64(handle) - changesBefore
            let reported = Int64((reportedRows?() ?? 0) &- reportedBefore)
            if changed > reported { silentWritesHappened?(silent) }
        }
        return try step()
    }

    /// Runs SQL that may hold several statements (no arguments), each to completion.
    func execute(_ script: String) throws {
        guard !isClosed else { throw closedError(sql: script) }
        try checkHasNoNul(script)
        try script.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                preparedWrites.removeAll()
                preparedSavepoint = nil
                let code = sqlite3_prepare_v2(handle, current, -1, &stmt, &tail)
                guard code == SQLITE_OK else {
                    // The statement that failed, not the whole script: the statements before it ran.
                    throw error(code: code, sql: Connection.firstStatement(of: current))
                }
                next = tail
                guard let stmt else { continue }  // whitespace or a comment
                defer { sqlite3_finalize(stmt) }
                // A script binds nothing: a `?` (or `:name`) would run as NULL, an `UPDATE … SET x = ?` would
                // clear every row's x. Refused, as a statement given fewer arguments than parameters is.
                let parameters = sqlite3_bind_parameter_count(stmt)
                if parameters > 0 {
                    let statement = String(cString: sqlite3_sql(stmt)).trimmingCharacters(in: .whitespacesAndNewlines)
                    throw DatabaseError(code: .range, message: "the statement has \(parameters) parameter(s), 0 argument(s) were given",
                                        sql: statement.hasSuffix(";") ? String(statement.dropLast()) : statement)
                }
                let silent = silentTargets()
                let savepoint = tracksSavepoints ? preparedSavepoint : nil
                preparedSavepoint = nil
                func run() -> Int32 {
                    var result = sqlite3_step(stmt)
                    while result == SQLITE_ROW { result = sqlite3_step(stmt) }
                    return result
                }
                if let savepoint { savepointStatement?(savepoint, false) }
                let result = silent.isEmpty ? run() : noteSilentWrites(silent, run)
                if let savepoint, result == SQLITE_DONE { savepointStatement?(savepoint, true) }
                guard result == SQLITE_DONE else {
                    // The failing statement alone, without the whitespace before it or its semicolon.
                    let statement = String(cString: sqlite3_sql(stmt)).trimmingCharacters(in: .whitespacesAndNewlines)
                    throw error(code: result, sql: statement.hasSuffix(";") ? String(statement.dropLast()) : statement)
                }
            }
        }
    }

    /// The first statement of `text` (up to the first `;` that ends a complete statement, as
    /// `sqlite3_complete` sees it: not one in a string, a comment or a trigger's body), without that `;`
    /// and the whitespace around it; all of `text` when no `;` ends one.
    static func firstStatement(of text: UnsafePointer<CChar>) -> String {
        let bytes = Array(UnsafeBufferPointer(start: text, count: strlen(text)))
        var candidate: [CChar] = []
        candidate.reserveCapacity(bytes.count + 1)
        for byte in bytes {
            candidate.append(byte)
            guard byte == 0x3B else { continue }   // ;
            candidate.append(0)
            defer { candidate.removeLast() }
            if sqlite3_complete(candidate) != 0 {
                // (Without the NUL and the `;`.)
                return String(decoding: candidate.dropLast(2).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ``execute(_:)`` of the library's own transaction statements: their savepoints are not told to the owner.
    func executeUntracked(_ script: String) throws {
        let tracked = tracksSavepoints
        tracksSavepoints = false
        defer { tracksSavepoints = tracked }
        try execute(script)
    }

    // MARK: Errors

    func error(code: Int32, sql: String?, arguments: [SQLValue] = []) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        // The connection's last error belongs to this failure when their primary codes agree.
        let resolved = (extended & 0xFF) == (code & 0xFF) ? extended : code
        if (code & 0xFF) == SQLITE_AUTH, let statement = refusedTransactionStatement?() {
            if statement.hasPrefix("PRAGMA") {
                return DatabaseError(code: ResultCode(rawValue: resolved),
                                     message: "\(statement) inside a migration's transaction is not allowed: SQLite ignores it there, so a "
                                        + "DROP TABLE would still run the ON DELETE actions of the tables pointing at the dropped one. Register "
                                        + "the migration without foreignKeyChecks: .immediate: the default (.deferred) and foreignKeyChecks: "
                                        + ".disabled (`-- strata: foreign-keys disabled`) turn foreign keys off before its transaction begins "
                                        + "and run PRAGMA foreign_key_check before it commits",
                                     sql: sql, arguments: arguments, argumentsArePublic: argumentsArePublic)
            }
            return DatabaseError(code: ResultCode(rawValue: resolved),
                                 message: "\(statement) inside a transaction Strata began (a transaction block, a pool's write, a migration) "
                                    + "is not allowed: the block commits when it returns and rolls back when it throws. A migration that "
                                    + "manages its own transaction is registered with inTransaction: false (`-- strata: no-transaction`)",
                                 sql: sql, arguments: arguments, argumentsArePublic: argumentsArePublic)
        }
        var message = String(cString: sqlite3_errmsg(handle))
        // The file is the cause (read-only, damaged, unreadable, full): which file, once the connection is open
        // (opening names it itself).
        if let fileName, Connection.fileCodes.contains(code & 0xFF) { message += " (\(fileName))" }
        return DatabaseError(code: ResultCode(rawValue: resolved), message: message,
                             sql: sql, arguments: arguments, argumentsArePublic: argumentsArePublic)
    }

    /// The primary result codes whose cause is the database file rather than the statement.
    private static let fileCodes: Set<Int32> = [SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB]

    /// The main database's file, once the connection is open; nil for an in-memory or temporary database.
    private var fileName: String?

    func closedError(sql: String?) -> DatabaseError {
        DatabaseError(code: .misuse, message: closedMessage, sql: sql)
    }

    // MARK: Tracing

    /// Registers an observer of finished statements; returns a token for ``removeTraceObserver(_:)``.
    func addTraceObserver(_ observer: @escaping (String, UInt64) -> Void) -> Int {
        nextObserverID += 1
        traceObservers[nextObserverID] = observer
        updateTrace()
        return nextObserverID
    }

    func removeTraceObserver(_ id: Int) {
        traceObservers[id] = nil
        updateTrace()
    }

    private func updateTrace() {
        guard !isClosed else { return }
        if traceObservers.isEmpty && logger.logLevel > .debug {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        // Unretained: the connection outlives its own trace registration (removed in close/deinit with the handle).
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_PROFILE), { _, context, statement, nanoseconds in
            guard let context, let statement, let nanoseconds else { return 0 }
            let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
            let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? ""
            connection.traced(sql: sql, nanoseconds: nanoseconds.load(as: UInt64.self))
            return 0
        }, context)
    }

    /// The statement a handle runs to notice other connections' commits; not reported to trace observers,
    /// which count the statements the library runs for the caller's work.
    static let dataVersionSQL = "PRAGMA data_version"

    /// Set while the library reads what it needs for its own bookkeeping (the schema's catalog when it
    /// decides which tables are WITHOUT ROWID): those statements are not reported to trace observers.
    var untraced = false

    private func traced(sql: String, nanoseconds: UInt64) {
        if untraced { return }
        if logger.logLevel <= .debug {
            logger.debug("\(sql)", metadata: ["ms": "\(Double(nanoseconds) / 1_000_000)"])
        }
        if sql == Connection.dataVersionSQL { return }
        for observer in traceObservers.values { observer(sql, nanoseconds) }
    }
}

/// A SAVEPOINT, RELEASE or ROLLBACK TO statement: what it does, and to which savepoint.
struct SavepointStatement {
    enum Operation { case begin, release, rollback }
    let operation: Operation
    let name: String
}

/// A statement that does not keep itself alive (see ``Connection/freshStatements``).
private struct WeakStatement {
    weak var statement: Statement?
    init(_ statement: Statement) { self.statement = statement }
}

extension DatabaseError {
    /// This error of opening the file at `path`, with the path in its message (a folder said to be one):
    /// "file is not a database: /tmp/notes.txt".
    func opening(_ path: String) -> DatabaseError {
        var isFolder: ObjCBool = false
        let folder = path != ":memory:" && !path.hasPrefix("file:")
            && FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        if message.contains(path), !folder { return self }   // (an error that names the file already)
        return DatabaseError(code: code, message: "\(message): \(path)" + (folder ? " is a directory, not a database file" : ""),
                             sql: sql, arguments: arguments, argumentsArePublic: argumentsArePublic)
    }
}
