#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a pthread mutex: what the pool and the async API share across threads.
///
/// `Synchronization.Mutex` would need macOS 15 / iOS 18, and ThreadSanitizer does not model it (it
/// reports its accesses as races); a pthread mutex it understands, and it runs everywhere Strata does.
/// The mutex lives in its own allocation so that its address never moves (pthread requires that).
///
/// ```swift
/// let count = Locked(0)
/// count.withLock { $0 += 1 }
/// ```
final class Locked<Value>: @unchecked Sendable {
    // Sound as `Sendable`: `value` is only reached inside `withLock`, while the mutex is held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
