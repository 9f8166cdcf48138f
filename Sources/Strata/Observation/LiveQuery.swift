#if canImport(Observation)
import Observation

/// The result of a fetch that stays current: an `@Observable` object on the main actor whose ``value``
/// is the newest result of `fetch`, fetched again on a reader of the pool after each commit that changed
/// a table the fetch read (``DatabasePool/observe(_:)-9ir01``). A SwiftUI view that reads ``value`` redraws when
/// it changes; any other code can read it, or watch it with `withObservationTracking`. The observation
/// stops when the object is released.
///
/// The fetch runs off the main actor, on the pool's reader queues, and returns a `Sendable` value: counts,
/// names, value types made from the rows (live model instances belong to the handle that read them and
/// stay there). With an `Equatable` value, a result equal to the current one changes nothing.
///
/// ```swift
/// @MainActor final class Inbox {
///     let unread: LiveQuery<Int>
///     init(pool: DatabasePool) {
///         unread = LiveQuery(pool) { db in try db.count(Message.self, where: "read = 0") }
///     }
/// }
/// // In SwiftUI: Text("\(inbox.unread.value ?? 0) unread")
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class LiveQuery<Value: Sendable> {
    /// The newest result; nil until the first fetch ends (or when it threw: see ``error``).
    ///
    /// ```swift
    /// let count = query.value ?? 0
    /// ```
    public private(set) var value: Value?
    /// The error the fetch threw, which ended the observation (nil while it runs).
    ///
    /// ```swift
    /// if let error = query.error { print("stopped:", error) }
    /// ```
    public private(set) var error: (any Error)?

    /// The task that takes the observation's values; cancelled on release, which ends the observation.
    @ObservationIgnored private let runner = Runner()

    /// Observes `fetch` on `pool`: the first fetch starts now.
    ///
    /// ```swift
    /// let titles = LiveQuery(pool) { db in try db.objects(Note.self).map(\.title) }
    /// ```
    public init(_ pool: DatabasePool, fetch: @escaping @Sendable (Database) throws -> Value) {
        start(pool.observe(fetch))
    }

    /// Observes `fetch` on `pool`, skipping results equal to the current ``value``.
    ///
    /// ```swift
    /// let count = LiveQuery(pool) { db in try db.count(Note.self) }   // Int: Equatable
    /// ```
    public init(_ pool: DatabasePool, fetch: @escaping @Sendable (Database) throws -> Value) where Value: Equatable {
        start(pool.observe(fetch))
    }

    private func start(_ stream: AsyncThrowingStream<Value, any Error>) {
        runner.task = Task { [weak self] in
            do {
                for try await value in stream {
                    guard let self else { return }
                    self.value = value
                }
            } catch {
                self?.error = error
            }
        }
    }

    /// Holds the task so that `deinit`, which is not isolated to the main actor, can cancel it.
    private final class Runner: @unchecked Sendable {
        /// Set once, on the main actor, before anything reads it; read in `deinit`.
        var task: Task<Void, Never>?
        deinit { task?.cancel() }
    }
}
#endif
