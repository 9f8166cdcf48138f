import Strata

/// The statements `body` runs on `db`, as `traceStatements` reports them (BEGIN/COMMIT/SAVEPOINT and
/// reads included): what tests count where cost is the point.
///
/// ```swift
/// let run = try statements(db) { try db.save(order) }
/// #expect(run.filter { $0.hasPrefix("UPDATE") }.count == 1)
/// ```
public func statements(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
    var seen: [String] = []
    let trace = db.traceStatements { seen.append($0) }
    defer { trace.cancel() }
    try body()
    return seen
}
