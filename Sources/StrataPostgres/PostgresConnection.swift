import CLibPQ
import Strata

/// One libpq connection to a PostgreSQL server, as the engine-neutral `DriverConnection`.
///
/// It opens with a conninfo string or a URL (`postgresql:///app?host=/run/pg&user=app`), speaks UTF-8
/// (`client_encoding` is set at open), and prepares statements server-side with generated names
/// (`strata_1`, `strata_2`, …), deallocated when an uncached statement goes away. The server's notices are
/// dropped, not printed. Its SQL is PostgreSQL's:
/// parameters are `$1`, `$2`, … (``PostgresSQL/numberingPlaceholders(_:)`` rewrites `?`). Like a SQLite
/// connection it is used by one thread at a time; ``canceller`` may be handed to another to stop it.
///
/// ```swift
/// let connection = try PostgresConnection(url: "postgresql:///app?host=/run/pg")
/// try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY, name text)")
/// let insert = try connection.prepare("INSERT INTO t VALUES ($1, $2)")
/// try insert.bind(values: [.integer(1), .text("a")])
/// _ = try insert.step()
/// ```
package final class PostgresConnection: DriverConnection {
    /// The `PGconn`; nil once closed.
    package private(set) var handle: OpaquePointer?
    /// Stops the statement this connection runs, from any thread (see ``interrupt()``).
    package let canceller: PostgresCanceller
    private var cache: [String: PostgresStatement] = [:]
    private var statementNumber = 0
    /// Called with the SQL of each statement the connection runs (a script once, a prepared statement at
    /// each execution), before it runs: what tests count statements with (`traceStatements` watches
    /// SQLite's connection). Nil: nothing is called.
    package var statementObserver: ((String) -> Void)?

    package private(set) var changes = 0
    package private(set) var totalChanges = 0
    /// The first column of the last row an `INSERT … RETURNING` gave back, when it is an integer: PostgreSQL
    /// has no rowid (a stand-in, see `PostgresDialect.returningRowID`). 0 before any.
    package private(set) var lastInsertedRowID: Int64 = 0

    package var dialect: PostgresDialect { PostgresDialect() }
    /// The conninfo string or URL the connection opened with.
    package let url: String

    /// Opens a connection with a libpq conninfo string (`host=/run/pg dbname=app`) or URL
    /// (`postgresql:///app?host=/run/pg`), in UTF-8.
    package init(url: String) throws {
        guard let handle = PQconnectdb(url) else {
            throw PostgresError(sqlState: "08001", message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(sqlState: "08001", message: message)
        }
        guard PQsetClientEncoding(handle, "UTF8") == 0 else {
            let message = Self.text(PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(sqlState: "08001", message: "cannot set client_encoding to UTF8: " + message)
        }
        // The server's NOTICEs (a DROP … CASCADE lists what it dropped) are not printed on stderr, as libpq's
        // default processor would: they are dropped (logging them is left to the pool work of issue 35).
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        self.handle = handle
        self.url = url
        self.canceller = PostgresCanceller(PQgetCancel(handle))
    }

    deinit {
        cache.removeAll()
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection: the cached statements go, the server ends the session. Closing twice does
    /// nothing; using the connection afterwards throws (SQLSTATE 08003).
    package func close() throws {
        guard let handle else { return }
        self.handle = nil
        cache.removeAll()
        PQfinish(handle)
    }

    /// Runs one or more `;`-separated statements without parameters (one round trip, and one implicit
    /// transaction for the batch when none is open); ``changes`` is the last statement's count and
    /// ``totalChanges`` adds every statement's.
    package func execute(_ script: String) throws {
        let handle = try openHandle(sql: script)
        statementObserver?(script)
        // PQsendQuery, then each statement's result in turn (PQexec would keep only the last one's): every
        // statement's changed rows are counted, and the first error is thrown once all results are read.
        guard PQsendQuery(handle, script) == 1 else {
            throw PostgresError(sqlState: "08006", message: Self.text(PQerrorMessage(handle)), sql: script)
        }
        var failure: (any Error)?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            guard failure == nil else { continue }
            do {
                try check(result, sql: script)
                record(result)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Prepares `sql` on the server under a generated name; the statement is deallocated when it goes away.
    package func prepare(_ sql: String) throws -> PostgresStatement {
        let handle = try openHandle(sql: sql)
        statementNumber += 1
        let name = "strata_\(statementNumber)"
        let prepared = PQprepare(handle, name, sql, 0, nil)
        defer { PQclear(prepared) }
        try check(prepared, sql: sql)
        let description = PQdescribePrepared(handle, name)
        do {
            try check(description, sql: sql)
        } catch {
            PQclear(description)
            deallocate(name)
            throw error
        }
        return PostgresStatement(connection: self, name: name, sql: sql, description: description)
    }

    /// A statement prepared once per connection for the same SQL, reset before it is handed out again.
    package func cachedStatement(_ sql: String) throws -> PostgresStatement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// `PQtransactionStatus`: in a transaction, or in a failed one (which only a ROLLBACK ends).
    package var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// A stand-in: the server's WAL insert position (`pg_current_wal_insert_lsn()`), which moves with every commit that
    /// wrote (and with other WAL writes, so it may change when nothing this connection reads did: safe for
    /// a token that is only compared). Not available on a standby; issue 35's observation work replaces it.
    package func commitToken() throws -> Int64 {
        try singleInteger("SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::int8")
    }

    /// A stand-in: the number of `pg_class` rows and the sum of their `xmin`s, which change when a
    /// relation is created, altered (its row is rewritten) or dropped. Issue 35's schema work replaces it.
    package func schemaToken() throws -> Int64 {
        try singleInteger("SELECT (count(*) * 4294967296 + coalesce(sum(xmin::text::int8), 0))::int8 FROM pg_class")
    }

    /// Asks the server to cancel the statement running now (`PQcancel`); the statement then fails with
    /// SQLSTATE 57014. Callable from any thread through ``canceller``.
    package func interrupt() { canceller.cancel() }

    // MARK: - For the statements

    func openHandle(sql: String?) throws -> OpaquePointer {
        guard let handle else { throw PostgresError(sqlState: "08003", message: "the connection is closed", sql: sql) }
        return handle
    }

    /// Throws the error a result carries (or the connection's, when libpq returned none).
    func check(_ result: OpaquePointer?, sql: String) throws {
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: break
        }
        var message = ""
        var sqlState: String?
        if let result {
            if let field = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) { sqlState = String(cString: field) }
            if let field = PQresultErrorField(result, Int32(UInt8(ascii: "M"))) { message = String(cString: field) }
        }
        if message.isEmpty, let handle { message = Self.text(PQerrorMessage(handle)) }
        throw PostgresError(sqlState: sqlState, message: message, sql: sql)
    }

    /// Counts the rows an INSERT, UPDATE, DELETE or MERGE changed (`PQcmdTuples`); other commands leave
    /// ``changes`` as it was, as SQLite's counter does.
    func record(_ result: OpaquePointer?) {
        // The command tag and the count read from libpq's bytes: no `String` per statement.
        guard let result, let status = PQcmdStatus(result) else { return }
        let isInsert = Self.tag(status, is: "INSERT")
        guard isInsert || Self.tag(status, is: "UPDATE") || Self.tag(status, is: "DELETE") || Self.tag(status, is: "MERGE"),
              let tuples = PQcmdTuples(result), let count = Self.count(tuples) else { return }
        changes = count
        totalChanges += count
        let rows = PQntuples(result)
        if isInsert, rows > 0, PQnfields(result) > 0, PQgetisnull(result, rows - 1, 0) == 0,
           let text = PQgetvalue(result, rows - 1, 0), let key = Int64(String(cString: text)) {
            lastInsertedRowID = key
        }
    }

    /// Whether a command tag starts with `prefix` (ASCII).
    @inline(__always)
    private static func tag(_ status: UnsafePointer<CChar>, is prefix: StaticString) -> Bool {
        let bytes = prefix.utf8Start
        for i in 0..<prefix.utf8CodeUnitCount where UInt8(bitPattern: status[i]) != bytes[i] { return false }
        return true
    }

    /// The decimal count `PQcmdTuples` spells (`"1"`), nil when it is empty or not one.
    static func count(_ text: UnsafePointer<CChar>) -> Int? {
        var value = 0
        var index = 0
        while text[index] != 0 {
            let digit = UInt8(bitPattern: text[index]) &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times.addingReportingOverflow(Int(digit))
            guard !o1, !o2 else { return nil }
            value = next
            index += 1
        }
        return index == 0 ? nil : value
    }

    /// Deallocates a prepared statement (best effort: nothing to do once the connection is closed).
    func deallocate(_ name: String) {
        guard let handle, PQtransactionStatus(handle) != PQTRANS_INERROR else { return }
        PQclear(PQexec(handle, "DEALLOCATE " + dialect.quote(name)))
    }

    private func singleInteger(_ sql: String) throws -> Int64 {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    private static func text(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).trimmingTrailingNewlines()
    }
}

/// Cancels what a connection runs, from any thread: libpq's `PGcancel`, which `PQcancel` only reads (libpq
/// documents it as safe to use from a thread other than the connection's).
///
/// ```swift
/// let canceller = connection.canceller
/// Thread.detachNewThread { Thread.sleep(forTimeInterval: 1); canceller.cancel() }
/// ```
package final class PostgresCanceller: @unchecked Sendable {
    // @unchecked: the pointer is set once and only read; PQcancel is thread-safe on it.
    private let pointer: OpaquePointer?

    init(_ pointer: OpaquePointer?) { self.pointer = pointer }

    deinit { if let pointer { PQfreeCancel(pointer) } }

    /// Sends the cancel request; `false` when it could not be sent (the server may still have finished).
    @discardableResult
    package func cancel() -> Bool {
        guard let pointer else { return false }
        var buffer = [CChar](repeating: 0, count: 256)
        return PQcancel(pointer, &buffer, Int32(buffer.count)) == 1
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while let last = text.last, last.isNewline || last == " " { text.removeLast() }
        return text
    }
}
