import Foundation
import StrataTestSupport
import Testing
@testable import Strata
import CSQLite

// Review 13: a second reader of the @Reference holder, the snapshot without NULL words, and the change
// streams of WITHOUT ROWID tables.

private final class R13Plain: Model {
    var id: Int64 = 0
    var a: Int64 = 0
    var b: Double = 0
    required init() {}
}

private final class R13Tag: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

private typealias Seen = SeenChanges<R13Tag>

@Suite struct Review13ReaderTests {
    /// A WITHOUT ROWID table with a column named rowid (so `SELECT rowid` prepares) is still WITHOUT
    /// ROWID: its writes are reported, and deciding so runs no statement a trace observer sees.
    @Test func aWithoutRowIDTableWithAColumnNamedRowIDIsReported() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE w (rowid TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        let seen = Seen(db)
        var traced: [String] = []
        let trace = db.traceStatements { traced.append($0) }
        try db.execute("INSERT INTO w (rowid, n) VALUES ('x', 1)")
        trace.cancel()
        #expect(traced.filter { $0 != "PRAGMA schema_version" } == ["INSERT INTO w (rowid, n) VALUES ('x', 1)"])
        #expect(seen.take(db) == ["w i[] u[] d[]"])
        try db.execute("UPDATE w SET n = 2 WHERE rowid = 'x'")
        #expect(seen.take(db) == ["w i[] u[] d[]"])
        #expect(try db.value(Int64.self, "SELECT n FROM w") == 2)
    }

    /// Writes to a WITHOUT ROWID table of an attached database are not the main table's.
    @Test func anAttachedWithoutRowIDTableOfTheSameNameIsNotReportedAsMain() throws {
        let temp = try TemporaryDatabase()
        let other = try TemporaryDatabase()
        let db = temp.db
        try other.db.execute("CREATE TABLE w (k INTEGER PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        try db.execute("CREATE TABLE w (k INTEGER PRIMARY KEY, n INTEGER)")
        try db.execute("ATTACH DATABASE '\(other.path)' AS aux")
        let seen = Seen(db)
        try db.execute("INSERT INTO aux.w (k, n) VALUES (1, 1)")
        #expect(seen.take(db) == [])
        try db.execute("INSERT INTO w (k, n) VALUES (1, 1)")
        #expect(seen.take(db) == ["w i[1] u[] d[]"])
        try db.execute("DETACH DATABASE aux")
    }

    /// A model of plain 8-byte numbers (a snapshot with no NULL-bit word) over a row another tool left
    /// NULL: the fetch throws instead of reading past the slot (run under the address sanitizer), and the
    /// rows that are whole save and read back as written.
    @Test func aPlainNumberModelOverNullColumnsStaysInItsSlot() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE R13Plain (id INTEGER PRIMARY KEY, a INTEGER, b REAL)")
        try db.execute("INSERT INTO R13Plain (id, a, b) VALUES (1, NULL, NULL), (2, 5, 2.5)")
        #expect(throws: (any Error).self) { try db.objects(R13Plain.self, where: "ORDER BY id") }
        let two = try #require(try db.object(R13Plain.self, forKey: 2))
        two.a = 6
        try db.save(two)
        #expect(try db.value(Int64.self, "SELECT a FROM R13Plain WHERE id = 2") == 6)
        try db.execute("UPDATE R13Plain SET a = NULL WHERE id = 2")
        #expect(two.a == 6 || two.a == 0)
        #expect(throws: (any Error).self) { try db.object(R13Plain.self, forKey: 1) }
    }

    /// Members that shared one weak box for their team after a prefetch: the team dies, each member reads
    /// it again (one instance for all), and one member moved to another team leaves the others' reads alone.
    @Test func membersSharingAWeakBoxReadTheirTeamAgainAfterItDied() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let ids: [Int64] = try {
            let teams = (1...2).map { n in let t = RTeam(); t.name = "team \(n)"; return t }
            try db.save(teams)
            for n in 1...4 { let m = RMember(); m.name = "m\(n)"; m.team = teams[0]; try db.save(m) }
            return teams.map(\.id)
        }()
        var fetched: [RTeam]? = try db.objects(RTeam.self, where: "ORDER BY id")
        try db.prefetch("members", of: fetched!)
        let members = fetched![0].members
        weak let old = fetched![0]
        fetched = nil
        #expect(old == nil)
        let again = try #require(members[0].team)
        #expect(again.id == ids[0] && members.allSatisfy { $0.team === again })
        let other = try #require(try db.object(RTeam.self, forKey: ids[1]))
        members[1].team = other
        try db.save(members[1])
        #expect(members[1].team === other && members[0].team === again && members[2].team === again)
        #expect(try db.value(Int64.self, "SELECT count(*) FROM RMember WHERE team = ?", ids[0]) == 3)
    }

    /// An instance deleted in a transaction and released inside it (its deinit may run only after the
    /// transaction let go of it): the transaction commits, and the row stays gone; a rollback brings back
    /// a row whose instance is fetched again with its values.
    @Test func aDeletedInstanceReleasedInsideItsTransaction() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let team = RTeam(); team.name = "a"
        try db.save(team)
        let id = team.id
        weak let weakTeam: RTeam? = team
        try db.transaction {
            let fetched = try #require(try db.object(RTeam.self, forKey: id))
            #expect(try db.delete(fetched))
        }
        _ = consume team
        #expect(weakTeam == nil)
        #expect(try db.count(RTeam.self) == 0)
        let b = RTeam(); b.name = "b"
        try db.save(b)
        let bid = b.id
        _ = consume b
        #expect(throws: CancellationError.self) {
            try db.transaction {
                let fetched = try #require(try db.object(RTeam.self, forKey: bid))
                #expect(try db.delete(fetched))
                throw CancellationError()
            }
        }
        #expect(try db.object(RTeam.self, forKey: bid)?.name == "b")
    }
}
