/// Hands each commit of a pool's writer to the streams that listen (``DatabasePool/changes(of:)``,
/// ``DatabasePool/observe(_:)``). It is called on the writer's queue after the commit; listeners only
/// yield or schedule work, never run SQL there.
final class ChangeHub: Sendable {
    struct Listener: Sendable {
        let changed: @Sendable ([DatabaseChange]) -> Void
        let closed: @Sendable () -> Void
    }
    private let listeners = Locked<(next: Int, all: [Int: Listener], isClosed: Bool)>((0, [:], false))

    /// Called after each registration (tests: a commit published right then).
    let afterAdd = Locked<(@Sendable () -> Void)?>(nil)

    /// Registers a listener; nil when the pool is closed already.
    func add(_ listener: Listener) -> Int? {
        let id = listeners.withLock { state -> Int? in
            guard !state.isClosed else { return nil }
            state.next += 1
            state.all[state.next] = listener
            return state.next
        }
        if id != nil, let hook = afterAdd.withLock({ $0 }) { hook() }
        return id
    }

    func remove(_ id: Int) {
        listeners.withLock { _ = $0.all.removeValue(forKey: id) }
    }

    /// How many listeners are registered (streams and observations running).
    var listenerCount: Int { listeners.withLock { $0.all.count } }

    func publish(_ changes: [DatabaseChange]) {
        let current = listeners.withLock { Array($0.all.values) }
        for listener in current { listener.changed(changes) }
    }

    /// Ends every stream (the pool closed).
    func close() {
        let current = listeners.withLock { state in
            state.isClosed = true
            defer { state.all.removeAll() }
            return Array(state.all.values)
        }
        for listener in current { listener.closed() }
    }
}
