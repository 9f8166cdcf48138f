import Foundation
import StrataTestSupport
import Testing
@testable import Strata

private final class R2Emp: Model {
    static let persistentProperties = ["id", "name", "manager", "mentor"]
    var id: Int64 = 0
    var name = ""
    @Reference var manager: R2Emp?
    @Reference var mentor: R2Emp?
    @Children(by: "manager") var reports: [R2Emp]
    @Children(by: "mentor") var mentees: [R2Emp]
    required init() {}
}

private final class WeakBox { weak var object: AnyObject?; init(_ o: AnyObject) { object = o } }

/// Every object reachable from `roots` through manager, mentor, reports and mentees (reading them).
private func reachable(_ roots: [R2Emp]) -> [R2Emp] {
    var seen = Set<ObjectIdentifier>(), out: [R2Emp] = [], stack = roots
    while let e = stack.popLast() {
        guard seen.insert(ObjectIdentifier(e)).inserted else { continue }
        out.append(e)
        if let m = e.manager { stack.append(m) }
        if let m = e.mentor { stack.append(m) }
        stack += e.reports
        stack += e.mentees
    }
    return out
}

private func staff(_ db: Database) throws {
    try db.execute("CREATE TABLE R2Emp (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', manager INTEGER, mentor INTEGER)")
    // manager: 1 -> nil, 2 -> 1, 3 -> 1, 4 -> 2, 5 -> 4, 6 -> 6 (self), 7 <-> 8 (loop)
    // mentor: 1 -> 5, 2 <-> 3, 4 -> 1, 5 -> 5, 6 -> 7, 7 -> 6, 8 -> 2
    let rows: [(Int, Int?, Int?)] = [(1, nil, 5), (2, 1, 3), (3, 1, 2), (4, 2, 1), (5, 4, 5), (6, 6, 7), (7, 8, 6), (8, 7, 2)]
    for (id, manager, mentor) in rows {
        try db.execute("INSERT INTO R2Emp VALUES (?, ?, ?, ?)", id, "e\(id)", manager, mentor)
    }
}

@Suite struct Review2LeakTests {
    @Test(arguments: [
        ["manager.reports"], ["reports.manager"], ["manager.reports", "mentor.mentees"],
        ["reports.manager.reports", "mentor.reports.mentor.mentees"], ["manager.manager.reports", "mentees.manager.reports"],
        [String](),
    ])
    func selfReferencingPathsLeaveNoCycle(paths: [String]) throws {
        let db = try Database()
        try staff(db)
        var boxes: [WeakBox] = []
        do {
            var all = try db.objects(R2Emp.self, where: "ORDER BY id", prefetching: paths)
            // Read every way round, twice, with reloads in between.
            for _ in 0..<2 {
                for e in all {
                    _ = e.manager?.reports.map { $0.mentor?.mentees.count ?? 0 }
                    _ = e.reports.map { $0.manager?.mentor?.reports.count ?? 0 }
                    _ = e.mentees.map { $0.mentor?.manager?.reports.count ?? 0 }
                }
                for e in all where e.id % 2 == 0 { _ = try e.$reports.reload(); _ = try e.$mentees.reload() }
            }
            let reached = reachable(all)
            #expect(reached.count == 8)
            // Each object's arrays are right.
            for e in reached {
                let expectedReports = reached.filter { $0.$manager.key == .integer(e.id) }.map(\.id).sorted()
                #expect(e.reports.map(\.id) == expectedReports, "\(e.id)")
            }
            boxes = reached.map(WeakBox.init)
            all = []
        }
        let alive = boxes.compactMap { ($0.object as? R2Emp)?.id }
        #expect(alive.isEmpty, "still alive: \(alive)")
        _ = db
    }

    /// A child re-parented (saved) after its old parent loaded it, then loaded by its new parent too.
    @Test func aChildInTwoParentsArraysLeavesNoCycle() throws {
        let db = try Database()
        try staff(db)
        var boxes: [WeakBox] = []
        do {
            let e4 = try #require(try db.object(R2Emp.self, forKey: 4))
            let e2 = try #require(e4.manager)        // e4 holds e2
            #expect(e2.reports.map(\.id) == [4])     // partly weak: e4 held weakly
            let e3 = try #require(try db.object(R2Emp.self, forKey: 3))
            #expect(e3.reports.map(\.id) == [])
            e4.manager = e3
            try db.save(e4)
            #expect(!e3.$reports.isLoaded && !e2.$reports.isLoaded)   // the move dropped both arrays
            #expect(e3.reports.map(\.id) == [4])
            #expect(try e2.$reports.reload().map(\.id) == [])
            boxes = [e4, e3, e2].map(WeakBox.init)
        }
        let alive = boxes.compactMap { ($0.object as? R2Emp)?.id }
        #expect(alive.isEmpty, "still alive: \(alive)")
        _ = db
    }

    /// Rolled-back re-parenting and deletes around partly weak arrays.
    @Test func rollbacksAroundPartlyWeakArraysLeaveNoCycle() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try staff(db)
        var boxes: [WeakBox] = []
        do {
            var all = try db.objects(R2Emp.self, where: "ORDER BY id", prefetching: ["manager.reports", "mentor.mentees"])
            struct Boom: Error {}
            try? db.transaction {
                let e5 = all[4]
                e5.manager = all[0]
                try db.save(e5)
                _ = try all[0].$reports.reload()
                try db.delete(all[2])
                _ = all[0].reports
                let n = R2Emp(); n.name = "new"; n.manager = all[0]; n.mentor = all[1]
                try db.save(n)
                _ = try all[0].$reports.reload()
                _ = all[1].mentees
                throw Boom()
            }
            #expect(all[0].reports.map(\.id) == [2, 3])
            #expect(all[3].reports.map(\.id) == [5])
            boxes = reachable(all).map(WeakBox.init)
            all = []
        }
        let alive = boxes.compactMap { ($0.object as? R2Emp)?.id }
        #expect(alive.isEmpty, "still alive: \(alive)")
        _ = temp
    }
}
