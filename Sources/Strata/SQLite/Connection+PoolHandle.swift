import CSQLite

// What a pool's handle (``SerialDatabase``) needs of its SQLite connection: a way to interrupt it from
// another thread, and a busy handler that a cancelled call can cut short (``BusyWait``).

/// Interrupts a connection's running statement from any thread: it holds SQLite's raw handle, used only for
/// `sqlite3_interrupt`, which SQLite allows from other threads (while the connection is open); or, for a
/// handle on another engine, that engine's canceller (PostgreSQL's `PQcancel`).
///
/// ```swift
/// let interrupter = db.connection.interrupter   // on the handle's queue
/// interrupter.interrupt()                        // from anywhere
/// ```
struct ConnectionInterrupter: @unchecked Sendable {
    // Sound as `Sendable`: the handle is only ever passed to `sqlite3_interrupt`, which is thread-safe; the
    // other engine's canceller is `@Sendable`.
    private let handle: OpaquePointer?
    private let cancel: (@Sendable () -> Void)?

    init(_ handle: OpaquePointer) {
        self.handle = handle
        cancel = nil
    }

    /// Interrupts through another engine's canceller.
    init(cancel: @escaping @Sendable () -> Void) {
        handle = nil
        self.cancel = cancel
    }

    /// Stops the statement running now on the connection (it fails with `SQLITE_INTERRUPT`, or the other
    /// engine's cancellation error).
    func interrupt() {
        if let cancel { cancel() } else if let handle { sqlite3_interrupt(handle) }
    }
}

extension Connection {
    /// What interrupts this connection from another thread (see ``ConnectionInterrupter``).
    var interrupter: ConnectionInterrupter { ConnectionInterrupter(handle) }

    /// Replaces the connection's busy timeout with `busyWait`'s handler. Unretained: the caller keeps
    /// `busyWait` alive as long as the connection.
    func installBusyHandler(_ busyWait: BusyWait) {
        sqlite3_busy_handler(handle, { context, count in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().wait(count)
        }, Unmanaged.passUnretained(busyWait).toOpaque())
    }

    /// Sleeps the calling thread (`sqlite3_sleep`), as SQLite's own busy handler does between tries.
    static func sleep(milliseconds: Int32) {
        sqlite3_sleep(milliseconds)
    }
}
