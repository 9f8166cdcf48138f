import CSQLite

extension Database {
    /// The number of SQLite virtual-machine steps between two progress reports.
    static let progressInterval: Int32 = 1_000_000

    /// Runs `body` while SQLite's progress handler calls `report` with the steps run so far, about every
    /// million (nil: no handler). Used for long migrations.
    func reportingProgress<T>(_ report: ((Int) -> Void)?, _ body: () throws -> T) throws -> T {
        guard let report, !connection.isClosed else { return try body() }
        // SQLite has one progress handler per connection: while this one reports, it also answers for a
        // pool call's cancellation (see `interruptingWhenCancelled`), which gets its own back afterwards.
        let box = ProgressBox(report, job: connection.cancellableJob)
        // Unretained: `box` outlives the handler, which is replaced before this function returns.
        let context = Unmanaged.passUnretained(box).toOpaque()
        sqlite3_progress_handler(connection.handle, Database.progressInterval, { context in
            guard let context else { return 0 }
            let box = Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue()
            box.calls += 1
            box.report(box.calls * Int(Database.progressInterval))
            return box.job?.isCancelled == true ? 1 : 0
        }, context)
        defer {
            installCancellationHandler()
            withExtendedLifetime(box) {}
        }
        return try body()
    }

    /// Runs `body` (a pool call's closure) with this connection's statements interrupted, within 1,000
    /// SQLite steps, once `job` is cancelled. `sqlite3_interrupt` alone is lost when it lands between two
    /// statements: SQLite clears it as the next one starts. The handler is off again before the
    /// transaction ends, so a rollback and the refresh of live instances after it always run.
    func interruptingWhenCancelled<T>(_ job: PoolJob?, _ body: () throws -> T) rethrows -> T {
        guard let job, !connection.isClosed else { return try body() }
        connection.cancellableJob = job
        installCancellationHandler()
        defer {
            connection.cancellableJob = nil
            installCancellationHandler()
        }
        return try body()
    }

    /// The progress handler for the current pool call's cancellation, or none.
    private func installCancellationHandler() {
        guard !connection.isClosed else { return }
        guard let job = connection.cancellableJob else {
            sqlite3_progress_handler(connection.handle, 0, nil, nil)
            return
        }
        // Unretained: the job outlives the handler, which `interruptingWhenCancelled` removes.
        sqlite3_progress_handler(connection.handle, 1_000, { context in
            guard let context else { return 0 }
            return Unmanaged<PoolJob>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
        }, Unmanaged.passUnretained(job).toOpaque())
    }
}

/// What SQLite's progress handler reaches through its context pointer.
private final class ProgressBox {
    let report: (Int) -> Void
    let job: PoolJob?
    var calls = 0
    init(_ report: @escaping (Int) -> Void, job: PoolJob?) {
        self.report = report
        self.job = job
    }
}
