import Dispatch

// Writes outside a transaction (issue 36): statements SQLite refuses inside one (VACUUM, some PRAGMAs),
// and a barrier that has the database to itself.
extension DatabasePool {
    /// Runs `body` with the writer handle outside any transaction, for statements that cannot run in one
    /// (`VACUUM`): each statement commits on its own; other writes wait, reads go on. `body` runs on the
    /// writer's queue, the task suspends (`pool.blocking.writeWithoutTransaction` blocks instead). Cancelling the task interrupts the statement running and throws
    /// `CancellationError` (statements that completed stay written: there is no transaction to roll back).
    ///
    /// ```swift
    /// try await pool.writeWithoutTransaction { db in
    ///     try db.execute("VACUUM")
    /// }
    /// ```
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkUsable()
        return try await writer.run(PoolJob()) { db, job in
            try DatabasePool.cancellable(job) { try db.interruptingWhenCancelled(job) { try body(db) } }
        }
    }

    /// Waits for the reads running to finish, holds the reads issued meanwhile, and runs `body` with the
    /// writer handle outside any transaction: no other connection of the pool uses the database while it
    /// runs (GRDB's barrier write), for changes readers must not see half-done or that need no reader in
    /// the way (`PRAGMA journal_mode`, a checkpoint that truncates). The task suspends while the reads
    /// finish and while `body` runs on the writer's queue (`pool.blocking.barrierWriteWithoutTransaction`
    /// blocks instead). Cancelling the task interrupts
    /// `body`'s statement and throws `CancellationError`; the reads running are waited for in any case.
    ///
    /// ```swift
    /// try await pool.barrierWriteWithoutTransaction { db in
    ///     try db.execute("VACUUM")
    /// }
    /// ```
    @discardableResult
    public func barrierWriteWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkUsable()
        let barrier = ReaderBarrier(holding: readers, of: self)
        defer { barrier.release() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            barrier.whenReadersWait { continuation.resume() }
        }
        return try await writer.run(PoolJob()) { db, job in
            try DatabasePool.cancellable(job) { try db.interruptingWhenCancelled(job) { try body(db) } }
        }
    }
}

/// A block queued on every reader's queue that holds it until released: once every reader has reached
/// its block, the reads queued before are done, and those queued after wait. The readers count it as
/// load while it holds them (so a read issued meanwhile goes to any of them: all wait).
final class ReaderBarrier: @unchecked Sendable {
    // Sound as `Sendable`: the group and the semaphore are thread-safe, `readers` and `pool` never change.
    private let entered = DispatchGroup()
    private let gate = DispatchSemaphore(value: 0)
    private let readers: [SerialDatabase]
    private let pool: DatabasePool

    init(holding readers: [SerialDatabase], of pool: DatabasePool) {
        self.readers = readers
        self.pool = pool
        pool.isClosed.withLock { _ in for reader in readers { reader.load += 1 } }
        for reader in readers {
            entered.enter()
            reader.queue.async { [entered, gate] in
                entered.leave()
                gate.wait()
            }
        }
    }

    /// Blocks until every reader is held (the reads before the barrier are done).
    func waitForReaders() { entered.wait() }

    /// Calls `body` once every reader is held.
    func whenReadersWait(_ body: @escaping @Sendable () -> Void) {
        entered.notify(queue: DispatchQueue.global(), execute: body)
    }

    /// Lets the readers go on.
    func release() {
        pool.isClosed.withLock { _ in for reader in readers { reader.load -= 1 } }
        for _ in readers { gate.signal() }
    }
}
