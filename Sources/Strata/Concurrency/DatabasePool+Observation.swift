extension DatabasePool {
    /// The changes each commit of the pool's writer made to the table of `type`: one element per
    /// transaction (or per statement outside one) that touched it, with the row IDs inserted, updated
    /// and deleted and, for rows only the library's saves updated, the names of the changed properties.
    /// Raw SQL writes through the pool count; rolled-back ones never appear. A WITHOUT ROWID table has no
    /// row IDs: its change names the table with empty sets, as does the change of a table a commit dropped,
    /// renamed or altered. The stream ends when the pool closes or the
    /// loop stops.
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
        ValueObserver(pool: self, fetch: fetch, isDuplicate: nil).start()
    }

    /// A value observation (``observe(_:)``) that skips a result equal to the one yielded before.
    ///
    /// ```swift
    /// for try await names in pool.observe({ db in try db.objects(Employee.self).map(\.name) }) {
    ///     print(names)   // only when the list differs
    /// }
    /// ```
    public func observe<T: Sendable & Equatable>(_ fetch: @escaping @Sendable (Database) throws -> T) -> AsyncThrowingStream<T, any Error> {
        ValueObserver(pool: self, fetch: fetch, isDuplicate: { $0 == $1 }).start()
    }
}

/// One value observation: the tables its last fetch read, and whether a fetch runs or is due.
private final class ValueObserver<T: Sendable>: Sendable {
    struct State {
        var running = false
        var due = false
        /// Lowercased names of the tables the last fetch read (nil: before the first fetch ends).
        var region: Set<String>?
        var last: T?
        var finished = false
        var listener: Int?
    }
    /// Weak: the hub's listener holds this observer, and the pool holds the hub; when the pool goes away
    /// its streams end (``DatabasePool`` closes the hub in `deinit`).
    private let poolReference: WeakPool
    var pool: DatabasePool? { poolReference.pool }
    let fetch: @Sendable (Database) throws -> T
    let isDuplicate: (@Sendable (T, T) -> Bool)?
    let state = Locked(State())
    let stream: AsyncThrowingStream<T, any Error>
    let continuation: AsyncThrowingStream<T, any Error>.Continuation

    init(pool: DatabasePool, fetch: @escaping @Sendable (Database) throws -> T, isDuplicate: (@Sendable (T, T) -> Bool)?) {
        poolReference = WeakPool(pool)
        self.fetch = fetch
        self.isDuplicate = isDuplicate
        (stream, continuation) = AsyncThrowingStream<T, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func start() -> AsyncThrowingStream<T, any Error> {
        guard let pool else { return stream }
        // The listener holds the observer for as long as the observation runs.
        let listener = ChangeHub.Listener(changed: { changes in self.changed(changes) },
                                          closed: { self.end(nil) })
        // Marked running before the listener is added: a commit published in between then makes the first
        // fetch run once more, instead of starting a second fetch beside it (whose results could arrive in
        // either order, leaving the stream on the older value).
        state.withLock { $0.running = true }
        guard let id = pool.hub.add(listener) else {
            continuation.finish(throwing: DatabaseError(code: .misuse, message: "the pool is closed"))
            return stream
        }
        state.withLock { $0.listener = id }
        continuation.onTermination = { [weak self] _ in self?.end(nil) }
        run()
        return stream
    }

    private func changed(_ changes: [DatabaseChange]) {
        let shouldRun = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if let region = state.region, !changes.contains(where: { region.contains($0.table.sqlFolded) }) { return false }
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
            let outcome = Result { () throws -> (T, Set<String>) in
                try db.recordingReads { try DatabasePool.readTransaction(db, job: nil, fetch) }
            }
            pool.release(reader)
            switch outcome {
            case .failure(let error): end(error)
            case .success(let (value, region)):
                let yield = state.withLock { state -> Bool in
                    state.region = region
                    if let last = state.last, let isDuplicate, isDuplicate(last, value) { return false }
                    state.last = value
                    return true
                }
                if yield { continuation.yield(value) }
                let again = state.withLock { state -> Bool in
                    if state.due && !state.finished { state.due = false; return true }
                    state.running = false
                    return false
                }
                if again { run() }
            }
        }
    }

    private func end(_ error: (any Error)?) {
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            state.finished = true
            return state.listener
        }
        if let id { pool?.hub.remove(id) }
        continuation.finish(throwing: error)
    }
}

/// A weak reference to a pool that can cross threads. `@unchecked Sendable`: the reference is set once,
/// in `init`, and the runtime's weak loads are atomic.
private final class WeakPool: @unchecked Sendable {
    weak var pool: DatabasePool?
    init(_ pool: DatabasePool) { self.pool = pool }
}
