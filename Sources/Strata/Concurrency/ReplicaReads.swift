// Reads from a replica (issue 35, point 10): a pool whose readers connect to a copy of the writer's database
// that replays the writer's log (PostgreSQL's hot standby), with read-your-writes after the pool's own
// commits. The engine's part (what a log position is, how to ask for it) comes from StrataPostgres as
// ``ReplicaLog``; the waiting, the falling back to the primary and the bookkeeping are here.

/// How an engine tells a pool where its writer's log is and how far a replica has replayed it.
///
/// ```swift
/// let log = ReplicaLog(timeout: .seconds(2),
///                      committed: { db in try db.value(Int64.self, "SELECT ...").map(UInt64.init) ?? 0 },
///                      replayed: { db in try db.value(Int64.self, "SELECT ...").map(UInt64.init) },
///                      openPrimaryReader: { try Database(postgresURL: primary) })
/// ```
package struct ReplicaLog: Sendable {
    /// How long a read waits for the replica to replay the pool's last commit before it reads from the
    /// primary instead.
    package var timeout: Duration
    /// On the writer, after its work: a log position at or past the end of everything it committed.
    package var committed: @Sendable (Database) throws -> UInt64
    /// On a reader: the position the replica has replayed to (nil when it is not replaying).
    package var replayed: @Sendable (Database) throws -> UInt64?
    /// Opens the handle a read falls back to: a connection to the primary (the pool makes it read-only).
    package var openPrimaryReader: @Sendable () throws -> Database

    package init(timeout: Duration, committed: @escaping @Sendable (Database) throws -> UInt64,
                 replayed: @escaping @Sendable (Database) throws -> UInt64?,
                 openPrimaryReader: @escaping @Sendable () throws -> Database) {
        self.timeout = timeout
        self.committed = committed
        self.replayed = replayed
        self.openPrimaryReader = openPrimaryReader
    }
}

/// Thrown inside a replica read whose table the writer just created but the replica has not replayed in
/// time: the read runs again on the primary.
struct ReplicaBehind: Error {}

/// A replica pool's read-your-writes: the log position of the pool's last commit, the wait for a reader's
/// replica to replay it, and the read-only handle on the primary a read falls back to.
final class ReplicaReads: Sendable {
    private struct State {
        /// The position every read must see: at or past the end of the writer's last commit.
        var target: UInt64 = 0
        /// The writer's position could not be read after its last job: reads go to the primary until it is.
        var unknown = false
        /// A wait timed out and no read has found the replica caught up since: reads that find it behind
        /// go to the primary at once instead of waiting again.
        var lagging = false
    }

    private let log: ReplicaLog
    private let state = Locked(State())
    /// The read-only handle on the primary that reads fall back to (one: they take turns on it).
    let primary: SerialDatabase

    /// Opens the fallback handle, has the writer record its position after each job (the first now), and
    /// has each reader wait for the replica after the writer creates a table for it.
    init(_ log: ReplicaLog, writer: SerialDatabase, readers: [SerialDatabase], pool: ObjectIdentifier) throws {
        self.log = log
        let primaryDatabase = try log.openPrimaryReader()
        try primaryDatabase.refuseWrites()
        primaryDatabase.schemaWriter = { type in
            try writer.sync { db in
                func sync<T: Model>(_ type: T.Type) throws { try db.syncSchema(type) }
                try sync(type)
            }
        }
        primary = SerialDatabase(primaryDatabase, label: "strata.pool.primary-reader", pool: pool)
        let target = try writer.sync { try log.committed($0) }
        state.withLock { $0.target = target }
        writer.afterEach = { [weak self] db in self?.recordCommit(db) }
        // Observers start reads when they hear of a commit: its position is recorded before they do.
        writer.sync { db in db.beforePublishingCommit = { [weak self] db in self?.recordCommit(db) } }
        for reader in readers {
            reader.sync { db in
                let sync = db.schemaWriter
                // (`db` holds the closure: unowned; the pool, which holds `self`, outlives its handles' work.)
                db.schemaWriter = { [weak self, unowned db] type in
                    try sync?(type)
                    guard let self else { return }
                    guard try self.caughtUp(db, job: nil) else { throw ReplicaBehind() }
                }
            }
        }
    }

    /// Raises the position reads wait for to `position` (another connection's commit the pool heard of:
    /// the reads its observations start must see it).
    /// nil: the position could not be read; reads go to the primary until the writer records one.
    func raiseTarget(to position: UInt64?) {
        state.withLock { state in
            if let position { state.target = max(state.target, position) } else { state.unknown = true }
        }
    }

    /// Records the writer's position after a job (on the writer's queue, before the job's caller resumes).
    private func recordCommit(_ db: Database) {
        guard !db.isClosed else { return }
        do {
            let position = try log.committed(db)
            state.withLock { state in
                state.target = max(state.target, position)
                state.unknown = false
            }
        } catch {
            state.withLock { $0.unknown = true }
        }
    }

    /// Whether the replica `db` reads has replayed the pool's last commit, waiting for it up to the
    /// timeout (in growing naps of 1 to 10 ms; a cancelled `job` ends the wait).
    func caughtUp(_ db: Database, job: PoolJob?) throws -> Bool {
        let (target, unknown, lagging) = state.withLock { ($0.target, $0.unknown, $0.lagging) }
        if unknown { return false }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: log.timeout)
        var nap: Int32 = 1
        while true {
            if let replayed = try log.replayed(db), replayed >= target {
                if lagging { state.withLock { $0.lagging = false } }
                return true
            }
            let left = clock.now.duration(to: deadline)
            if lagging || left <= .zero {
                state.withLock { $0.lagging = true }
                return false
            }
            if job?.isCancelled == true { throw CancellationError() }
            Connection.sleep(milliseconds: min(nap, max(1, left.busyMilliseconds)))
            nap = min(nap * 2, 10)
        }
    }

    /// ``DatabasePool/read(_:)`` on a replica pool: on the least busy reader once its replica has replayed
    /// the pool's last commit, else on the primary.
    func read<T: Sendable>(in pool: DatabasePool, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let reader = pool.acquireReader()
        let outcome: Outcome<T>
        do {
            defer { pool.release(reader) }
            outcome = try await reader.run(PoolJob()) { db, job in
                try DatabasePool.cancellable(job) { try self.onReplica(db, job: job, body) }
            }
        }
        if case .read(let value) = outcome { return value }
        return try await primary.run(PoolJob()) { db, job in
            try DatabasePool.cancellable(job) { try DatabasePool.readTransaction(db, job: job, body) }
        }
    }

    /// ``DatabasePool/Blocking/read(_:)`` on a replica pool (see ``read(in:_:)``).
    func blockingRead<T: Sendable>(in pool: DatabasePool, _ body: @Sendable (Database) throws -> T) throws -> T {
        let reader = pool.acquireReader()
        let outcome: Outcome<T>
        do {
            defer { pool.release(reader) }
            outcome = try reader.sync { db in try onReplica(db, job: nil, body) }
        }
        if case .read(let value) = outcome { return value }
        return try primary.sync { db in try DatabasePool.readTransaction(db, job: nil, body) }
    }

    private enum Outcome<T: Sendable>: Sendable { case read(T), behind }

    private func onReplica<T: Sendable>(_ db: Database, job: PoolJob?, _ body: (Database) throws -> T) throws -> Outcome<T> {
        guard try caughtUp(db, job: job) else { return .behind }
        do {
            return .read(try DatabasePool.readTransaction(db, job: job, body))
        } catch is ReplicaBehind {
            return .behind
        }
    }
}
