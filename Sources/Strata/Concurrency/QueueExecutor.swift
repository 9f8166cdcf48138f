import Dispatch

/// A serial executor that runs its jobs on a pool handle's serial queue (issue 36: task locals).
///
/// The async pool calls run their closure as a job of the calling task on this executor, instead of as a
/// Dispatch block: the closure still runs on the handle's queue (never on a cooperative thread, serialized
/// with the synchronous calls' `queue.sync`), but inside the caller's task, so every `@TaskLocal` value the
/// caller bound (a request id, a tracing span) reads the same inside the closure. Swift has no API that
/// copies a task's locals to another thread; running in the task is the way to keep all of them.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    // Sound as `Sendable`: a `DispatchQueue` is thread-safe, and the executor holds nothing else.
    let queue: DispatchQueue

    init(_ queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// The isolation of one pool handle: an actor whose executor is the handle's queue. A method of it runs
/// on that queue, in the calling task.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
actor QueueIsolation {
    private let executor: QueueExecutor

    init(_ queue: DispatchQueue) { executor = QueueExecutor(queue) }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Runs `body` on the handle's queue, in the calling task (its task locals bound).
    func run<T: Sendable>(_ body: @Sendable () throws -> T) throws -> T { try body() }
}
