import Dispatch

/// A `Sendable` set of handles on one database file in WAL mode: one writer and several readers, so
/// that threads and tasks read while one writes, and readers never see half a transaction.
///
/// Each handle has its own serial queue and identity map. The async calls run the SQLite work on those
/// queues, never on Swift's cooperative threads, so a server stays responsive while writes wait for the
/// lock. The blocking calls (`pool.blocking.read { }`, `pool.blocking.write { }`) are for synchronous
/// code. Model objects stay inside the closure that fetched them: return `Sendable` values (rows, counts,
/// keys, your own structs, or keys: a live instance belongs to the handle that read it).
///
/// ```swift
/// let pool = try DatabasePool(path: "app.sqlite", readers: 4)
/// try await pool.write { db in let order = Order(); order.total = 42; try db.save(order) }
/// let total = try await pool.read { db in try db.count(Order.self) }
/// ```
public final class DatabasePool: Sendable {
    /// The file all handles open.
    ///
    /// ```swift
    /// pool.path
    /// ```
    public let path: String
    let writer: SerialDatabase
    let readers: [SerialDatabase]
    let hub = ChangeHub()
    /// What other modules run beside the pool, by name (PostgreSQL's listener): closed with the pool.
    let companions = Locked<[String: any PoolCompanion]>([:])
    private let identity: PoolIdentity
    let isClosed = Locked(false)
    /// Whether the handles run on an engine other than SQLite.
    let isRemote: Bool
    /// Read-your-writes when the readers read a replica (``ReplicaReads``); nil otherwise.
    let replica: ReplicaReads?

    /// Opens the writer (setting WAL, unless `configuration.journalMode` names another mode or the pool
    /// is read-only) and `readers` read-only handles (`PRAGMA query_only`).
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite")
    /// ```
    public convenience init(path: String, readers: Int = 4, configuration: Database.Configuration = Database.Configuration()) throws {
        var writerConfiguration = configuration
        // (A read-only pool cannot change the file's mode: it reads in the one the file has.)
        writerConfiguration.journalMode = configuration.journalMode ?? (configuration.readOnly ? nil : .wal)
        var readerConfiguration = configuration
        readerConfiguration.journalMode = nil
        try self.init(path: path, readers: readers, opening: { isWriter in
            try Database(path: path, configuration: isWriter ? writerConfiguration : readerConfiguration)
        })
    }

    /// A pool of the handles `open` makes: first the writer (`true`), then each reader (`false`), which
    /// the pool makes refuse writes. `path` is what ``path`` says (a URL for another engine). With
    /// `replica`, the readers read a replica of the writer's database: see ``ReplicaReads``.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: url, readers: 4, opening: { _ in try Database(remote: PostgresConnection(url: url)) })
    /// ```
    package init(path: String, readers: Int, replica: ReplicaLog? = nil, opening open: (_ isWriter: Bool) throws -> Database) throws {
        self.path = path
        let identity = PoolIdentity()
        self.identity = identity
        let id = ObjectIdentifier(identity)
        let writerDatabase = try open(true)
        writerDatabase.isPoolWriter = true
        isRemote = writerDatabase.isRemote
        let writer = SerialDatabase(writerDatabase, label: "strata.pool.writer", pool: id)
        self.writer = writer
        var handles: [SerialDatabase] = []
        for index in 0..<max(1, readers) {
            let reader = try open(false)
            try reader.refuseWrites()
            // A model a reader meets first is synced by the writer (readers cannot write the schema).
            reader.schemaWriter = { type in
                try writer.sync { db in
                    func sync<T: Model>(_ type: T.Type) throws { try db.syncSchema(type) }
                    try sync(type)
                }
            }
            handles.append(SerialDatabase(reader, label: "strata.pool.reader.\(index)", pool: id))
        }
        self.readers = handles
        self.replica = try replica.map { try ReplicaReads($0, writer: writer, readers: handles, pool: id) }
        let hub = self.hub
        writer.keep(writerDatabase.observeChanges { changes in hub.publish(changes) })
        // On another engine observing costs statements (the write counters): only while a stream listens.
        if isRemote { writerDatabase.remoteObservationWanted = { hub.listenerCount > 0 } }
    }

    deinit {
        // Streams still listening end (their consumers see the end of the sequence).
        hub.close()
        closeCompanions()
    }

    // MARK: Synchronous (renamed)

    /// Renamed `pool.blocking.write { }` (``Blocking/write(_:)``). Unavailable rather than deprecated: as an
    /// overload of the async ``write(_:)-(@Sendable (Database) throws -> T)``, Swift chose it in top-level code
    /// even under `await`, so `try await pool.write { }` in `main.swift` blocked the main thread; a deprecated
    /// overload would still be chosen there.
    ///
    /// ```swift
    /// try pool.blocking.write { db in try db.save(Employee()) }
    /// ```
    @available(*, unavailable, renamed: "blocking.write", message: "in synchronous code call pool.blocking.write { }; in async code (top-level code included) try await pool.write { }")
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try blocking.write(body)
    }

    /// Renamed `pool.blocking.read { }` (``Blocking/read(_:)``); unavailable for the reason given at the
    /// renamed `write`.
    ///
    /// ```swift
    /// let names = try pool.blocking.read { db in try db.objects(Employee.self).map(\.name) }
    /// ```
    @available(*, unavailable, renamed: "blocking.read", message: "in synchronous code call pool.blocking.read { }; in async code (top-level code included) try await pool.read { }")
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try blocking.read(body)
    }

    // MARK: Async

    /// Runs `body` with the writer handle, in an IMMEDIATE transaction, on the writer's queue: the task
    /// suspends and no cooperative thread waits. Cancelling the task rolls the write back and throws
    /// `CancellationError` (a write that already committed returns its value).
    ///
    /// ```swift
    /// let id = try await pool.write { db in
    ///     let order = Order(); order.total = 42
    ///     try db.save(order)
    ///     return order.id
    /// }
    /// ```
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkUsable()
        return try await writer.run(PoolJob()) { db, job in
            try DatabasePool.cancellable(job) {
                try db.transaction(.immediate) {
                    let result = try db.interruptingWhenCancelled(job) { try body(db) }
                    if job.isCancelled { throw CancellationError() }
                    return result
                }
            }
        }
    }

    /// Runs `body` with a reader handle on its queue (the least busy reader), in a DEFERRED transaction;
    /// the task suspends meanwhile. Cancelling the task interrupts the read and throws `CancellationError`.
    ///
    /// ```swift
    /// let count = try await pool.read { db in try db.count(Employee.self) }
    /// ```
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkUsable()
        if let replica { return try await replica.read(in: self, body) }
        let reader = acquireReader()
        defer { release(reader) }
        return try await reader.run(PoolJob()) { db, job in
            try DatabasePool.cancellable(job) { try DatabasePool.readTransaction(db, job: job, body) }
        }
    }

    /// Syncs the table of `type` on the writer, outside any transaction, so that an opt-in rebuild
    /// (``ModelDeclaration/schemaRebuild``) can run: call it at startup for such models. Other models
    /// need no call: their first use syncs them, through the writer.
    ///
    /// ```swift
    /// try await pool.syncSchema(Shelf.self)
    /// ```
    @discardableResult
    public func syncSchema<M: Model>(_ type: M.Type) async throws -> SchemaPlan {
        try checkUsable()
        return try await writer.run(PoolJob()) { db, _ in try db.syncSchema(type) }
    }

    /// Renamed `pool.blocking.syncSchema(_:)`; unavailable for the reason given at the renamed `write`.
    ///
    /// ```swift
    /// try pool.blocking.syncSchema(Shelf.self)
    /// ```
    @available(*, unavailable, renamed: "blocking.syncSchema", message: "in synchronous code call pool.blocking.syncSchema(_:); in async code (top-level code included) try await pool.syncSchema(_:)")
    @discardableResult
    public func syncSchema<M: Model>(_ type: M.Type) throws -> SchemaPlan {
        try blocking.syncSchema(type)
    }

    // MARK: Lifecycle

    /// Waits for the work already queued, then closes every handle; later calls throw `.misuse`.
    ///
    /// When a connection cannot close (SQLite's ``ResultCode/busy``: a statement prepared outside the library is
    /// still open on it), the error is thrown, the pool takes no new work, and calling `close()` again
    /// tries the connections still open. Calls made at the same time (or again) return once every
    /// handle is closed.
    ///
    /// ```swift
    /// try pool.blocking.close()
    /// ```
    @available(*, unavailable, renamed: "blocking.close", message: "in synchronous code call pool.blocking.close(); in async code (top-level code included) try await pool.close()")
    public func close() throws {
        try closeBlocking()
    }

    /// The blocking close (``Blocking/close()``), which the async one runs off the cooperative threads.
    func closeBlocking() throws {
        try checkNotNested()
        let wasClosed = isClosed.withLock { closed in defer { closed = true }; return closed }
        if !wasClosed {
            hub.close()
            closeCompanions()
        }
        // Every call closes through each handle's queue, after the work queued there: a close made while
        // another waits returns once the handles are closed too (it returned at once, with them still
        // open); after a close that failed (a statement kept a connection open) the handles still open are
        // tried again. `Database.close()` does nothing on a closed handle.
        var failure: (any Error)?
        for handle in readers + (replica.map { [$0.primary] } ?? []) + [writer] {
            do { try handle.sync { try $0.close() } } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// Waits for the work already queued, without holding a cooperative thread, then closes every handle;
    /// later calls throw `.misuse` (`pool.blocking.close()` blocks instead; see there for a close that fails).
    ///
    /// ```swift
    /// try await pool.close()
    /// ```
    public func close() async throws {
        try checkNotNested()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try self.closeBlocking() }) }
        }
    }

    /// Copies the WAL back into the database file (SQLite's WAL checkpoint) on the writer's queue.
    /// `.passive` copies what it can without waiting; `.truncate` waits for readers and empties the WAL.
    ///
    /// ```swift
    /// let result = try pool.checkpoint(.truncate)
    /// print(result.logFrames, result.checkpointedFrames)   // 0 0: the WAL is empty
    /// ```
    @discardableResult
    public func checkpoint(_ mode: Database.CheckpointMode = .passive) throws -> Database.CheckpointResult {
        try checkUsable()
        return try writer.sync { try $0.checkpoint(mode) }
    }

    /// Copies the whole database, as of one moment, into the file at `path` (replacing its content),
    /// with SQLite's online backup, from a reader: writes go on meanwhile.
    ///
    /// ```swift
    /// try pool.backup(to: "/backups/app-2026-11-25.sqlite")
    /// ```
    public func backup(to path: String) throws {
        try checkUsable()
        let reader = acquireReader()
        defer { release(reader) }
        try reader.sync { db in
            let destination = try Database(path: path)
            defer { try? destination.close() }
            try db.backup(to: destination)
        }
    }

    // MARK: Helpers

    /// Throws when the pool is closed or the caller is inside a closure of this pool (which would wait
    /// for itself).
    func checkUsable() throws {
        try checkNotNested()
        try checkOpen()
    }

    func checkOpen() throws {
        if isClosed.withLock({ $0 }) {
            throw DatabaseError(code: .misuse, message: "the pool is closed")
        }
    }

    private func checkNotNested() throws {
        guard DispatchQueue.getSpecific(key: SerialDatabase.poolKey) == ObjectIdentifier(identity) else { return }
        throw DatabaseError(code: .misuse, message: "a pool call inside a read or write closure of the same pool would wait for itself; use the `db` the closure was given")
    }

    /// The reader with the least work queued (ties: the first).
    func acquireReader() -> SerialDatabase {
        isClosed.withLock { _ in
            var best = readers[0]
            for reader in readers.dropFirst() where reader.load < best.load { best = reader }
            best.load += 1
            return best
        }
    }

    func release(_ reader: SerialDatabase) {
        isClosed.withLock { _ in reader.load -= 1 }
    }

    /// A read transaction; run once more when the writer changed the schema for a model this read met
    /// first, after the read had begun (its snapshot cannot see the new table: see `schemaWriter`).
    static func readTransaction<T>(_ db: Database, job: PoolJob?, _ body: (Database) throws -> T) throws -> T {
        for attempt in 0..<2 {
            do {
                let result = try db.transaction(.deferred) {
                    let result = try db.interruptingWhenCancelled(job) { try body(db) }
                    if job?.isCancelled == true { throw CancellationError() }
                    if db.models.needsFreshSnapshot { throw SnapshotTooOld() }
                    return result
                }
                return result
            } catch where db.models.needsFreshSnapshot && attempt == 0 {
                db.models.needsFreshSnapshot = false
            }
        }
        db.models.needsFreshSnapshot = false
        throw DatabaseError(code: .schema, message: "the schema changed twice while one pool read began; try again")
    }

    /// Turns the error of a statement interrupted by cancellation, or of a wait for another connection's
    /// lock that cancellation ended (see ``BusyWait``), into `CancellationError`.
    static func cancellable<T>(_ job: PoolJob, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where (error.code.primary == .interrupt || error.code.primary == .busy) && job.isCancelled {
            throw CancellationError()
        }
    }
}

/// Thrown inside a pool read whose snapshot predates the schema the writer just made for it.
struct SnapshotTooOld: Error {}

/// What identifies one pool's queues (see ``SerialDatabase/poolKey``).
private final class PoolIdentity: Sendable {}
