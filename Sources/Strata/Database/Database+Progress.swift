import CSQLite

extension Database {
    /// The number of SQLite virtual-machine steps between two progress reports.
    static let progressInterval: Int32 = 1_000_000

    /// Runs `body` while SQLite's progress handler calls `report` with the steps run so far, about every
    /// million (nil: no handler). Used for long migrations.
    func reportingProgress<T>(_ report: ((Int) -> Void)?, _ body: () throws -> T) throws -> T {
        guard let report, !connection.isClosed else { return try body() }
        let box = ProgressBox(report)
        // Unretained: `box` outlives the handler, which is removed before this function returns.
        let context = Unmanaged.passUnretained(box).toOpaque()
        sqlite3_progress_handler(connection.handle, Database.progressInterval, { context in
            guard let context else { return 0 }
            let box = Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue()
            box.calls += 1
            box.report(box.calls * Int(Database.progressInterval))
            return 0
        }, context)
        defer {
            sqlite3_progress_handler(connection.handle, 0, nil, nil)
            withExtendedLifetime(box) {}
        }
        return try body()
    }
}

/// What SQLite's progress handler reaches through its context pointer.
private final class ProgressBox {
    let report: (Int) -> Void
    var calls = 0
    init(_ report: @escaping (Int) -> Void) { self.report = report }
}
