import Dispatch

/// One handle of a pool and the serial queue that is the only place it is used.
///
/// Work reaches the handle through its queue: synchronous calls with `queue.sync` (which runs the block
/// on the caller's thread once the queue is free), async calls with `queue.async` and a continuation, so
/// an awaiting task never holds a thread of Swift's cooperative pool while SQLite works or waits for a
/// lock: the work runs on a Dispatch thread, one at most per handle.
final class SerialDatabase: @unchecked Sendable {
    // Sound as `Sendable`: `database` is only touched by blocks running on `queue`, which is serial; the
    // `interrupter` (the raw handle) is used from other threads only to interrupt, which SQLite allows.
    let queue: DispatchQueue
    private let database: Database
    let interrupter: ConnectionInterrupter
    /// A ``QueueIsolation`` over `queue` where the platform has custom executors (typed `any Sendable`: a
    /// stored property cannot have a newer type than the deployment target).
    private let isolation: (any Sendable)?
    /// Work queued or running here (for reader selection); changed under the pool's lock.
    var load = 0

    /// Marks a pool's queues, so a call made from inside a closure of the same pool is recognized.
    static let poolKey = DispatchSpecificKey<ObjectIdentifier>()

    /// The handle's busy handler's state: the wait SQLite's busy timeout allows, and the call running.
    private let busyWait: BusyWait

    init(_ database: Database, label: String, pool: ObjectIdentifier) {
        self.database = database
        // (A handle on another engine cancels through it; SQLite's stand-in connection there is closed.)
        self.interrupter = database.remote.map { ConnectionInterrupter(cancel: $0.interrupter) } ?? database.connection.interrupter
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: SerialDatabase.poolKey, value: pool)
        if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *) {
            isolation = QueueIsolation(queue)
        } else {
            isolation = nil
        }
        busyWait = BusyWait(timeout: database.configuration.busyTimeout)
        if database.remote == nil { database.connection.installBusyHandler(busyWait) }
    }

    /// Run on the queue after each job (a replica pool's writer records its log position there: see
    /// ``ReplicaReads``); set before the handle is shared.
    var afterEach: ((Database) -> Void)?

    /// Objects that live as long as the handle (observation tokens); set at creation only.
    private var kept: [AnyObject] = []

    /// Keeps `object` alive as long as this handle (called before the handle is shared).
    func keep(_ object: AnyObject) { kept.append(object) }

    /// Runs `body` on the queue and waits for it (the caller's thread blocks).
    func sync<T>(_ body: (Database) throws -> T) rethrows -> T {
        try queue.sync {
            defer { afterEach?(database) }
            return try body(database)
        }
    }

    /// Runs `body` on the queue, later; nobody waits.
    func perform(_ body: @escaping @Sendable (Database) -> Void) {
        queue.async { body(self.database) }
    }

    /// Runs `body` on the queue; the task suspends, and `job` lets it be cancelled (see ``PoolJob``).
    /// Where the platform allows (see ``QueueExecutor``), `body` runs as a job of the calling task on the
    /// queue, so the caller's task-local values read the same inside it; else as a Dispatch block.
    func run<T: Sendable>(_ job: PoolJob, _ body: @escaping @Sendable (Database, PoolJob) throws -> T) async throws -> T {
        try await withTaskCancellationHandler {
            if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *), let isolation = isolation as? QueueIsolation {
                return try await isolation.run { try self.start(job, body) }
            }
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                queue.async { continuation.resume(with: Result { try self.start(job, body) }) }
            }
        } onCancel: {
            job.cancel()
        }
    }

    /// Runs `job` on the queue (the caller is on it), unless it was cancelled before it started.
    private func start<T>(_ job: PoolJob, _ body: (Database, PoolJob) throws -> T) throws -> T {
        guard job.start(interrupter) else { throw CancellationError() }
        // (After the job is finished: a cancellation no longer reaches the handle.)
        defer { afterEach?(database) }
        busyWait.job = job
        defer {
            busyWait.job = nil
            job.finish()
        }
        return try body(database, job)
    }
}

/// A pool handle's busy handler: SQLite's own schedule of waits for a lock another connection holds, up to
/// the busy timeout (as SQLite's busy timeout), that stops waiting as soon as the async call waiting is
/// cancelled (SQLite's interrupt does not end a busy wait): the call then throws `CancellationError` at
/// once instead of after the whole timeout.
final class BusyWait: @unchecked Sendable {
    // Sound as `Sendable`: `job` is only touched on the handle's queue (by `run` and by SQLite's busy handler,
    // which runs inside a statement on that queue).
    private let timeout: Int32
    /// The async call running on the handle, if any.
    var job: PoolJob?

    init(timeout: Duration) {
        self.timeout = timeout.busyMilliseconds
    }

    /// SQLite's `sqliteDefaultBusyCallback`: waits of 1, 2, 5 ... 100 ms, until the timeout is spent.
    private static let delays: [Int32] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    private static let totals: [Int32] = [0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228]

    /// Whether to try again after the `count`-th busy answer (1) or give up (0), having waited if so
    /// (installed by ``Connection/installBusyHandler(_:)``).
    func wait(_ count: Int32) -> Int32 {
        if job?.isCancelled == true { return 0 }
        let index = Int(count)
        var delay: Int32, prior: Int32
        if index < BusyWait.delays.count {
            delay = BusyWait.delays[index]; prior = BusyWait.totals[index]
        } else {
            delay = 100; prior = BusyWait.totals[BusyWait.totals.count - 1] &+ 100 &* (count - Int32(BusyWait.totals.count - 1))
        }
        if prior < 0 || prior >= timeout { return 0 }
        if prior + delay > timeout { delay = timeout - prior }
        // In slices, so that a cancellation stops the wait within 10 ms.
        while delay > 0 {
            let slice = min(delay, 10)
            Connection.sleep(milliseconds: slice)
            delay -= slice
            if job?.isCancelled == true { return 0 }
        }
        return 1
    }
}

/// One async call's state, shared by the task that waits and the queue that runs it: a cancelled call
/// that has not started never starts; one that is running has its statement interrupted
/// (SQLite's interrupt) and its transaction rolled back.
final class PoolJob: Sendable {
    private enum State { case waiting, running(ConnectionInterrupter), finished }
    private let state = Locked<(state: State, cancelled: Bool)>((.waiting, false))

    /// Whether cancellation was asked for.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Marks the job running on the connection `interrupter` interrupts; false when it was cancelled first.
    func start(_ interrupter: ConnectionInterrupter) -> Bool {
        state.withLock { value in
            guard !value.cancelled else { value.state = .finished; return false }
            value.state = .running(interrupter)
            return true
        }
    }

    /// Marks the job done: a later cancellation no longer touches the handle.
    func finish() {
        state.withLock { $0.state = .finished }
    }

    /// Cancels; interrupts the running statement, under the lock, so it can never reach a later job.
    func cancel() {
        state.withLock { value in
            value.cancelled = true
            if case .running(let interrupter) = value.state { interrupter.interrupt() }
        }
    }
}
