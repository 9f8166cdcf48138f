/// Something another module runs beside a pool (PostgreSQL's listener for other connections' changes),
/// closed when the pool closes or goes away.
package protocol PoolCompanion: AnyObject, Sendable {
    /// Stops it; called once, from any thread.
    func close()
}

extension DatabasePool {
    /// The companion named `name`, made by `make` the first time (under the pool's lock: one is made).
    /// A closed pool makes none and throws.
    package func companion<C: PoolCompanion>(_ name: String, make: () throws -> C) throws -> C {
        try checkOpen()
        return try companions.withLock { all in
            if let existing = all[name] as? C { return existing }
            let made = try make()
            all[name] = made
            return made
        }
    }

    /// Hands `changes` (another connection's commits) to the pool's streams and value observations, as
    /// the writer's own commits are.
    package func publish(_ changes: [DatabaseChange]) {
        hub.publish(changes)
    }

    /// Whether the readers read a replica (whose reads wait for ``raiseReplicaTarget(to:)``'s position).
    package var readsReplica: Bool { replica != nil }

    /// Makes reads wait until the replica replayed `position` (the engine's log position of another
    /// connection's commit, before the pool publishes it); nil when it could not be read: reads go to the
    /// primary until the writer records a position.
    package func raiseReplicaTarget(to position: UInt64?) {
        replica?.raiseTarget(to: position)
    }

    /// Closes every companion (the pool closed).
    func closeCompanions() {
        let all = companions.withLock { all in defer { all.removeAll() }; return Array(all.values) }
        for companion in all { companion.close() }
    }
}
