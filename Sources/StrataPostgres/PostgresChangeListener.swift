import CLibPQ
import Foundation
import Strata

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pool's ear for other connections' commits: its own libpq connection, `LISTEN strata_changes`, and a
/// thread of its own (never a cooperative one) that waits on the socket and hands each committed
/// transaction's notifications to the pool's streams as ``DatabaseChange``s.
///
/// The notifications come from the statement-level triggers ``DatabasePool/installChangeNotifications(for:)``
/// installs; PostgreSQL delivers them at commit only (a rolled-back transaction sends none), in commit
/// order. Those of the pool's own writer are skipped: its commits reach the streams from the writer, by key
/// and property, already.
final class PostgresChangeListener: PoolCompanion, @unchecked Sendable {
    /// The channel the triggers notify.
    static let channel = "strata_changes"

    // Confined to the listening thread after `start`, but for `stopped` (locked).
    private let connection: PostgresConnection
    private let schema: String
    private let ownProcess: Int32
    private weak var pool: DatabasePool?
    private let stopped = NSLock()
    private var isStopped = false
    private let done = DispatchSemaphore(value: 0)

    /// Connects with `url`, listens, and starts the thread. `ownProcess`: the writer's backend process id,
    /// whose notifications are skipped.
    init(url: String, pool: DatabasePool, ownProcess: Int32) throws {
        connection = try PostgresConnection(url: url)
        try connection.execute("LISTEN \(Self.channel)")
        schema = try Self.currentSchema(connection)
        self.pool = pool
        self.ownProcess = ownProcess
        let thread = Thread { [self] in run() }
        thread.name = Self.threadName
        thread.start()
    }

    /// The schema the connection creates tables in (the statement is gone before the thread starts: the
    /// connection is the thread's from then on).
    private static func currentSchema(_ connection: PostgresConnection) throws -> String {
        let statement = try connection.prepare("SELECT current_schema()")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.text(at: 0) ?? "public"
    }

    /// The primary's log position, as a replica pool compares them.
    private static func position(_ connection: PostgresConnection) throws -> UInt64 {
        let statement = try connection.prepare(PostgresReplica.committedSQL)
        defer { statement.reset() }
        _ = try statement.step()
        return UInt64(clamping: Int64(statement.text(at: 0) ?? "") ?? 0)
    }

    /// Stops the thread and, once it ends, its connection. (Called on the listening thread itself, when the
    /// pool went away while it published, it does not wait for itself.)
    func close() {
        stopped.withLock { isStopped = true }
        if Thread.current.name != Self.threadName { done.wait() }
    }

    private static let threadName = "strata.postgres.listener"


    private var shouldStop: Bool { stopped.withLock { isStopped } }

    /// Waits on the socket (a fifth of a second at a time, to notice `close`), reads what arrived, and
    /// publishes it.
    private func run() {
        defer {
            try? connection.close()
            done.signal()
        }
        guard let handle = connection.handle else { return }
        while !shouldStop {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            guard ready > 0 else { continue }
            guard PQconsumeInput(handle) == 1 else { return }   // the connection broke: no more notifications
            var batch: [(process: Int32, payload: String)] = []
            while let notification = PQnotifies(handle) {
                batch.append((notification.pointee.be_pid, String(cString: notification.pointee.extra)))
                PQfreemem(notification)
            }
            if !batch.isEmpty { publish(batch) }
        }
    }

    /// One trigger's notification: schema, table, operation, transaction, and the keys of the rows (nil
    /// when too many for one notification, or a composite key).
    struct Payload: Decodable {
        let s: String
        let t: String
        let o: String
        let x: Int64
        let k: [Key?]?
        enum Key: Decodable, Hashable {
            case integer(Int64)
            case text(String)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let value = try? container.decode(Int64.self) { self = .integer(value) } else { self = .text(try container.decode(String.self)) }
            }
        }
    }

    /// Publishes the notifications of each transaction (consecutive ones of one process and transaction)
    /// as one list of changes, a table each.
    private func publish(_ batch: [(process: Int32, payload: String)]) {
        guard let pool else { return }
        var current: (process: Int32, transaction: Int64)?
        var changes: [String: DatabaseChange] = [:]
        var order: [String] = []
        // A replica pool's observations read the standby: they wait for the primary's position now (past
        // these commits); unreadable, the reads go to the primary (the pool's rule for an unknown position).
        if pool.readsReplica {
            pool.raiseReplicaTarget(to: try? Self.position(connection))
        }
        func flush() {
            if !order.isEmpty { pool.publish(order.compactMap { changes[$0] }) }
            changes.removeAll()
            order.removeAll()
        }
        for (process, text) in batch where process != ownProcess {
            guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(text.utf8)), payload.s == schema else { continue }
            if let current, current != (process, payload.x) { flush() }
            current = (process, payload.x)
            if changes[payload.t] == nil { order.append(payload.t) }
            var change = changes[payload.t] ?? DatabaseChange(table: payload.t, modelType: nil)
            Self.apply(payload, to: &change)
            changes[payload.t] = change
        }
        flush()
    }

    static func apply(_ payload: Payload, to change: inout DatabaseChange) {
        guard let keys = payload.k, !keys.contains(nil) else {
            change.listsEveryRow = false
            return
        }
        for case let key? in keys {
            switch (payload.o, key) {
            case ("INSERT", .integer(let id)): change.insertedRowIDs.insert(id)
            case ("INSERT", .text(let text)): change.insertedKeys.insert(.text(text))
            case ("UPDATE", .integer(let id)): if !change.insertedRowIDs.contains(id) { change.updatedRowIDs.insert(id) }
            case ("UPDATE", .text(let text)): if !change.insertedKeys.contains(.text(text)) { change.updatedKeys.insert(.text(text)) }
            case ("DELETE", .integer(let id)):
                change.deletedRowIDs.insert(id)
                change.insertedRowIDs.remove(id)
                change.updatedRowIDs.remove(id)
            case ("DELETE", .text(let text)):
                change.deletedKeys.insert(.text(text))
                change.insertedKeys.remove(.text(text))
                change.updatedKeys.remove(.text(text))
            default: change.listsEveryRow = false
            }
        }
    }
}
