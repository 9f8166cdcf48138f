extension DatabasePool {
    /// The changes each commit of the pool's writer made to the table of `type`: one element per
    /// transaction (or per statement outside one) that touched it, with the row IDs inserted, updated
    /// and deleted and, for rows only the library's saves updated, the names of the changed properties.
    /// Raw SQL writes through the pool count; rolled-back ones never appear. A WITHOUT ROWID table has no
    /// row IDs: its change names the table with empty sets, as does the change of a table a commit dropped,
    /// renamed or altered. A row REPLACE conflict resolution removed (`INSERT OR REPLACE` through a UNIQUE
    /// index) is in ``DatabaseChange/deletedRowIDs`` only when the writer held a live instance of it: SQLite
    /// reports no such deletion. The stream ends when the pool closes or the loop stops.
    ///
    /// Nothing is dropped: the stream keeps every change until the loop takes it (its buffer is not
    /// bounded), so a loop that stops reading while it stays alive keeps them in memory. Leave the loop
    /// (or cancel its task) when you no longer read; for "the newest state" use `observe(_:)`, which
    /// keeps only the newest value.
    ///
    /// ```swift
    /// for await change in pool.changes(of: Employee.self) {
    ///     print("updated:", change.updatedRowIDs, change.updatedProperties)
    /// }
    /// ```
    public func changes<M: Model>(of type: M.Type) -> AsyncStream<DatabaseChange> {
        changes(ofTables: [type.tableName])
    }

    /// The changes each commit of the pool's writer made to the named tables (all tables when `tables`
    /// is nil), as ``changes(of:)`` describes.
    ///
    /// ```swift
    /// for await change in pool.changes(ofTables: ["auth_user"]) { print(change.insertedRowIDs) }
    /// ```
    public func changes(ofTables tables: [String]?) -> AsyncStream<DatabaseChange> {
        let wanted = tables.map { Set($0.map { $0.sqlFolded }) }
        let (stream, continuation) = AsyncStream<DatabaseChange>.makeStream(bufferingPolicy: .unbounded)
        let listener = ChangeHub.Listener(changed: { changes in
            for change in changes where wanted?.contains(change.table.sqlFolded) ?? true {
                continuation.yield(change)
            }
        }, closed: { continuation.finish() })
        guard let id = hub.add(listener) else {
            continuation.finish()
            return stream
        }
        // Weakly: the hub holds the listener, which holds this continuation (no cycle through the handler).
        continuation.onTermination = { [weak hub] _ in hub?.remove(id) }
        return stream
    }

    /// Runs `fetch` on a reader now and again after each commit that changed a table it read, and yields
    /// each result: a value observation. Bursts of commits are coalesced (one fetch runs at a time, and
    /// commits made meanwhile cause one more), rolled-back writes never cause one, and a slow consumer
    /// gets the newest value. The tables are those the fetch's statements read, as SQLite reports them
    /// when it prepares them. A fetch that throws ends the stream with its error.
    ///
    /// ```swift
    /// for try await count in pool.observe({ db in try db.count(Employee.self) }) {
    ///     print("employees:", count)
    /// }
    /// ```
    public func observe<T: Sendable>(_ fetch: @escaping @Sendable (Database) throws -> T) -> AsyncThrowingStream<T, any Error> {
        return ValueObserver(pool: self, fetch: fetch, isDuplicate: nil).start()
    }

    /// A value observation (``observe(_:)``) that skips a result equal to the one the consumer took last.
    ///
    /// ```swift
    /// for try await names in pool.observe({ db in try db.objects(Employee.self).map(\.name) }) {
    ///     print(names)   // only when the list differs
    /// }
    /// ```
    public func observe<T: Sendable & Equatable>(_ fetch: @escaping @Sendable (Database) throws -> T) -> AsyncThrowingStream<T, any Error> {
        return ValueObserver(pool: self, fetch: fetch, isDuplicate: { $0 == $1 }).start()
    }
}

/// One value observation: the tables its last fetch read, whether a fetch runs or is due, and the value
/// waiting for the consumer.
///
/// The stream is an unfolding one: the consumer's `next()` takes the newest value fetched since its last
/// call, or waits for one. (A buffering stream cannot tell which values the consumer took: an `Equatable`
/// result equal to the one the consumer holds, fetched while a different one waited unread in the buffer,
/// replaced it there and reached the consumer a second time in a row.)
private final class ValueObserver<T: Sendable>: Sendable {
    struct State {
        var running = false
        var due = false
        /// Lowercased names of the tables the last fetch read (nil: before the first fetch ends).
        var region: Set<String>?
        /// The value the consumer took last (compared with each new one when duplicates are skipped).
        var delivered: T?
        /// The newest value fetched that the consumer has not taken.
        var pending: T?
        /// Why the stream ends, once the pending value is taken (nil: it goes on).
        var ending: Result<Void, any Error>?
        /// No more fetches: the observation ended (the error, the pool closed, the consumer left).
        var finished = false
        /// The consumer's task was cancelled: its `next()` returns nil.
        var cancelled = false
        /// The consumer waiting in `next()` for a value.
        var waiter: CheckedContinuation<T?, any Error>?
        var listener: Int?
    }
    /// Weak: the hub's listener holds this observer, and the pool holds the hub; when the pool goes away
    /// its streams end (``DatabasePool`` closes the hub in `deinit`).
    private let poolReference: WeakPool
    var pool: DatabasePool? { poolReference.pool }
    let fetch: @Sendable (Database) throws -> T
    let isDuplicate: (@Sendable (T, T) -> Bool)?
    let state = Locked(State())

    init(pool: DatabasePool, fetch: @escaping @Sendable (Database) throws -> T, isDuplicate: (@Sendable (T, T) -> Bool)?) {
        poolReference = WeakPool(pool)
        self.fetch = fetch
        self.isDuplicate = isDuplicate
    }

    /// Ends the observation when the stream (with its iterators) is released or its consumer cancelled:
    /// only the stream's producing closure holds it.
    private final class Subscription: Sendable {
        let observer: ValueObserver
        init(_ observer: ValueObserver) { self.observer = observer }
        deinit { observer.end(nil) }
    }

    func start() -> AsyncThrowingStream<T, any Error> {
        let subscription = Subscription(self)
        let stream = AsyncThrowingStream<T, any Error>(unfolding: { try await subscription.observer.next() })
        guard let pool else {
            end(nil)
            return stream
        }
        // The listener holds the observer for as long as the observation runs.
        let listener = ChangeHub.Listener(changed: { changes in self.changed(changes) },
                                          closed: { self.end(nil) })
        // Marked running before the listener is added: a commit published in between then makes the first
        // fetch run once more, instead of starting a second fetch beside it (whose results could arrive in
        // either order, leaving the stream on the older value).
        state.withLock { $0.running = true }
        guard let id = pool.hub.add(listener) else {
            end(DatabaseError(code: .misuse, message: "the pool is closed"))
            return stream
        }
        let ended = state.withLock { state -> Bool in
            state.listener = id
            return state.finished
        }
        // (The consumer may have left already.)
        if ended { pool.hub.remove(id); return stream }
        run()
        return stream
    }

    /// The consumer's `next()`: the newest value not taken yet, or the end, or a wait for either.
    private func next() async throws -> T? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
                let outcome = state.withLock { state -> Result<T?, any Error>? in
                    if state.cancelled { return .success(nil) }
                    if let value = state.pending {
                        state.pending = nil
                        state.delivered = value
                        return .success(value)
                    }
                    if let ending = state.ending {
                        state.ending = .success(())   // ends once: later calls return nil
                        return ending.map { nil }
                    }
                    // (Two consumers at once: the first one's wait ends.)
                    state.waiter?.resume(returning: nil)
                    state.waiter = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<T?, any Error>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
            end(nil)
        }
    }

    private func changed(_ changes: [DatabaseChange]) {
        let shouldRun = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if let region = state.region, !region.contains(Database.anyTable),
               !changes.contains(where: { region.contains($0.table.sqlFolded) }) { return false }
            if state.running { state.due = true; return false }
            state.running = true
            return true
        }
        if shouldRun { run() }
    }

    /// Fetches on the least busy reader's queue (never on the writer's, which is publishing).
    private func run() {
        guard let pool else { return end(nil) }
        do { try pool.checkOpen() } catch { return end(error) }
        let reader = pool.acquireReader()
        reader.perform { [self] db in
            // (The observation may have ended while this waited for the reader: no SQL for nobody.)
            guard !state.withLock({ $0.finished }) else { return pool.release(reader) }
            // A replica pool's reader reads once its replica replayed the commit heard of; one that lags
            // (or has not replayed a table the writer just made) has the primary read instead.
            if let replica = pool.replica, !((try? replica.caughtUp(db, job: nil)) ?? false) {
                pool.release(reader)
                return replica.primary.perform { [self] db in fetched(on: db) }
            }
            let outcome = fetching(on: db)
            pool.release(reader)
            if let replica = pool.replica, case .failure(let error) = outcome, error is ReplicaBehind {
                return replica.primary.perform { [self] db in fetched(on: db) }
            }
            deliver(outcome)
        }
    }

    private func fetching(on db: Database) -> Result<(T, Set<String>), any Error> {
        Result { try db.recordingReads { try DatabasePool.readTransaction(db, job: nil, fetch) } }
    }

    private func fetched(on db: Database) {
        guard !state.withLock({ $0.finished }) else { return }
        deliver(fetching(on: db))
    }

    private func deliver(_ outcome: Result<(T, Set<String>), any Error>) {
        switch outcome {
        case .failure(let error): end(error)
        case .success(let (value, region)):
            let waiter = state.withLock { state -> CheckedContinuation<T?, any Error>? in
                state.region = region
                guard !state.finished else { return nil }
                // Compared with what the consumer holds: a value equal to it replaces a different one it
                // has not taken (the newest state is the one it has), and is not delivered again.
                if let delivered = state.delivered, let isDuplicate, isDuplicate(delivered, value) {
                    state.pending = nil
                    return nil
                }
                guard let waiter = state.waiter else {
                    state.pending = value
                    return nil
                }
                state.waiter = nil
                state.delivered = value
                return waiter
            }
            waiter?.resume(returning: value)
            let again = state.withLock { state -> Bool in
                if state.due && !state.finished { state.due = false; return true }
                state.running = false
                return false
            }
            if again { run() }
        }
    }

    /// Ends the observation: no more fetches; the consumer takes the pending value, then the end (`error`).
    func end(_ error: (any Error)?) {
        let (id, waiter) = state.withLock { state -> (Int?, CheckedContinuation<T?, any Error>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            // A consumer waiting (so no value is pending) gets the end now; otherwise its next call does.
            let waiter = state.waiter
            state.waiter = nil
            state.ending = waiter != nil ? .success(()) : error.map { .failure($0) } ?? .success(())
            return (state.listener, waiter)
        }
        if let id { pool?.hub.remove(id) }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }
}

/// A weak reference to a pool that can cross threads. `@unchecked Sendable`: the reference is set once,
/// in `init`, and the runtime's weak loads are atomic.
private final class WeakPool: @unchecked Sendable {
    weak var pool: DatabasePool?
    init(_ pool: DatabasePool) { self.pool = pool }
}

