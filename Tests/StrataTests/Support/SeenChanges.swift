@testable import Strata

/// What an observer of `db` saw, one line per change: "table i[..] u[..] d[..]". `take` makes a model call
/// (fetching `Probe`) first, since a bare statement's writes are told then.
final class SeenChanges<Probe: Model> {
    var lines: [String] = []
    var observation: ChangeObservation?
    init(_ db: Database) {
        observation = db.observeChanges { [unowned self] changes in
            for change in changes.sorted(by: { $0.table < $1.table }) {
                self.lines.append("\(change.table) i\(change.insertedRowIDs.sorted()) u\(change.updatedRowIDs.sorted()) d\(change.deletedRowIDs.sorted())")
            }
        }
    }
    /// What was seen by the next model call.
    func take(_ db: Database) -> [String] {
        _ = try? db.objects(Probe.self)
        defer { lines.removeAll() }
        return lines
    }
}
