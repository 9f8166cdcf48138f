import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// A `@Children` prefetch over a child column no index starts with scans the child table once between the
// least and the greatest owner key and tests each row against the owners' keys itself; over an indexed
// column it asks SQLite for the keys' rows (`IN`, through the index). Both must give each owner exactly
// the children `WHERE column = key ORDER BY …` gives it.

private final class CPTeam: Model {
    static let tableName = "cp_team"
    var id: Int64 = 0
    var name = ""
    @Children(by: "team", orderBy: "name") var members: [CPMember]
    required init() {}
}

private final class CPMember: Model {
    static let tableName = "cp_member"
    var id: Int64 = 0
    var name = ""
    @Reference var team: CPTeam?
    required init() {}
}

/// A model over an R*Tree virtual table (its `id` is the rowid), whose columns are declared INT.
private final class CPBox: Model {
    static let tableName = "cp_box"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var low = 0
    var high = 0
    required init() {}
}

@Suite struct ChildrenPrefetchTests {
    /// Teams with the given keys; members spread over them, over keys no team has (between and beyond
    /// them), and over values no integer key equals: NULL, a REAL, text (and text that reads as one of
    /// the keys, which the INTEGER column stores as that integer).
    private func makeTables(_ db: Database, teams: [Int64], indexed: Bool) throws {
        try db.execute("CREATE TABLE cp_team (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        try db.execute("CREATE TABLE cp_member (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', team INTEGER)")
        if indexed { try db.execute("CREATE INDEX cp_member_team ON cp_member (team)") }
        for key in teams { try db.execute("INSERT INTO cp_team (id, name) VALUES (?, ?)", key, "T\(key)") }
        let sorted = teams.sorted()
        var id: Int64 = 1
        for (i, key) in sorted.enumerated() {
            // Names repeat, so the child key breaks the ties of the declared order.
            for n in 0..<(i % 4 + 1) {
                try db.execute("INSERT INTO cp_member (id, name, team) VALUES (?, ?, ?)", id, "M\(n % 2)", key)
                id += 1
            }
        }
        let odd: [SQLValue] = [.null, .real(2.5), .text("x"), .text("\(sorted[0])"), .integer(sorted[0] &+ 1),
                               .integer(sorted.last! &- 1), .integer(-1)]
        for value in odd {
            try db.execute("INSERT INTO cp_member (id, name, team) VALUES (?, 'odd', ?)", id, value)
            id += 1
        }
    }

    /// Each owner's member ids as `WHERE team = key ORDER BY name, id` gives them, read with plain SQL.
    private func expected(_ db: Database, _ keys: [Int64]) throws -> [Int64: [Int64]] {
        var result: [Int64: [Int64]] = [:]
        for key in keys {
            result[key] = try db.rows("SELECT id FROM cp_member WHERE team = ? ORDER BY name, id", key).map { row -> Int64 in
                if case .integer(let id) = row[0] { return id }
                return -1
            }
        }
        return result
    }

    private func check(teams keys: [Int64], fetching condition: String, indexed: Bool, scanned: Bool? = nil) throws {
        let temp = try TestDatabase()
        try makeTables(temp.db, teams: keys, indexed: indexed)
        let db = try temp.reopen()
        let log = StatementLog(db)
        try db.syncSchema(CPTeam.self)
        try db.syncSchema(CPMember.self)
        let (teams, statements) = try log.during {
            try db.objects(CPTeam.self, where: condition, prefetching: ["members"])
        }
        let memberQueries = statements.filter { $0.contains(#"FROM "cp_member""#) }
        #expect(memberQueries.count == 1, "\(statements)")
        if scanned ?? !indexed {
            #expect(memberQueries.allSatisfy { $0.contains("BETWEEN ? AND ?") && !$0.contains(" IN (") }, "\(memberQueries)")
        } else {
            #expect(memberQueries.allSatisfy { $0.contains("json_each(") }, "\(memberQueries)")
        }
        // The only other statement: the owners' table's greatest rowid, when an index could serve many owners.
        let others = statements.filter { !$0.contains(#"FROM "cp_member""#) && !$0.contains(#"FROM "cp_team" WHERE"#) && $0 != #"SELECT "cp_team"."id", "cp_team"."name" FROM "cp_team""# }
        #expect(others == (indexed && teams.count > 64 ? [#"SELECT max(rowid) FROM "cp_team""#] : []), "\(statements)")
        let want = try expected(db, teams.map(\.id))
        #expect(!teams.isEmpty)
        let (got, after) = log.during { teams.map { ($0.id, $0.members.map(\.id)) } }
        #expect(after.isEmpty, "reading prefetched children ran \(after)")
        for (key, ids) in got { #expect(ids == want[key], "team \(key)") }
        // Each child's relationship is its team, with no query.
        let (parents, fault) = log.during { teams.allSatisfy { team in team.members.allSatisfy { $0.team === team } } }
        #expect(parents && fault.isEmpty)
        // The same as loading each team's children one by one, on another handle.
        let other = try temp.reopen()
        for team in try other.objects(CPTeam.self, where: condition) {
            #expect(try team.$members.load().map(\.id) == want[team.id], "team \(team.id), loaded alone")
        }
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func anUnindexedColumnIsScannedOnceAndEachRowTestedAgainstTheKeys() throws {
        // Dense keys (the array lookup), some owners left out so that rows between them are skipped.
        try check(teams: Array(1...40), fetching: "WHERE id % 3 <> 0", indexed: false)
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func scatteredAndExtremeKeysAreFoundToo() throws {
        // Keys too far apart for the array lookup, up to the ends of Int64 (their span overflows).
        let keys: [Int64] = [Int64.min + 1, -5_000_000_000, -3, 0, 7, 1 << 40, Int64.max - 1]
        try check(teams: keys, fetching: "", indexed: false)
        try check(teams: keys, fetching: "WHERE id <> 7", indexed: false)
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func aRealEqualToAnIntegerKeyIsAChildAsWithEquals() throws {
        // SQLite keeps -2^63 as a REAL even in an INTEGER column, and `=` still matches it to that integer.
        for indexed in [false, true] {
            let temp = try TestDatabase()
            try temp.db.execute("CREATE TABLE cp_team (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
            try temp.db.execute("CREATE TABLE cp_member (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', team INTEGER)")
            if indexed { try temp.db.execute("CREATE INDEX cp_member_team ON cp_member (team)") }
            try temp.db.execute("INSERT INTO cp_team (id) VALUES (?), (1)", Int64.min)
            try temp.db.execute("INSERT INTO cp_member (id, team) VALUES (1, ?), (2, ?), (3, 1)", -0x1p63, Int64.min)
            #expect(try temp.db.value(String.self, "SELECT typeof(team) FROM cp_member WHERE id = 1") == "real")
            let db = try temp.reopen()
            let teams = try db.objects(CPTeam.self, where: "ORDER BY id", prefetching: ["members"])
            #expect(teams.map { $0.members.map(\.id) } == [[1, 2], [3]], "indexed: \(indexed)")
            let other = try temp.reopen()
            #expect(try other.objects(CPTeam.self, where: "ORDER BY id").map { try $0.$members.load().map(\.id) } == [[1, 2], [3]])
        }
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func anIndexedColumnIsSearchedThroughItsIndexForFewOwners() throws {
        try check(teams: Array(1...40), fetching: "WHERE id % 3 <> 0", indexed: true)
        // More than 64 owners, but under a quarter of the teams.
        try check(teams: Array(1...400), fetching: "WHERE id <= 90", indexed: true)
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func anIndexedColumnIsScannedForOwnersThatAreMostOfTheirTable() throws {
        try check(teams: Array(1...200), fetching: "", indexed: true, scanned: true)
        try check(teams: Array(1...400), fetching: "WHERE id % 3 <> 0", indexed: true, scanned: true)
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func theScanDecisionFollowsTheTable() throws {
        let temp = try TestDatabase()
        try makeTables(temp.db, teams: [1, 2], indexed: false)
        try temp.db.execute("CREATE TABLE cp_other (id INTEGER PRIMARY KEY, team TEXT, n INTEGER, m INTEGER, k INTEGER)")
        try temp.db.execute("CREATE INDEX cp_other_mk ON cp_other (m, k)")
        let db = try temp.reopen()
        try db.syncSchema(CPMember.self)
        let member = try #require(db.models.registries[ObjectIdentifier(CPMember.self)]).table
        #expect(member.integerColumns.contains(2) && !member.indexedColumns.contains(2))   // team: INTEGER, no index
        #expect(!member.integerColumns.contains(0) && member.indexedColumns.contains(0))   // the key
        #expect(!member.integerColumns.contains(1) && !member.indexedColumns.contains(1))  // name: TEXT
        try db.execute("CREATE INDEX cp_member_team_name ON cp_member (team, name)")
        let again = try temp.reopen()
        try again.syncSchema(CPMember.self)
        let indexed = try #require(again.models.registries[ObjectIdentifier(CPMember.self)]).table
        #expect(indexed.integerColumns.contains(2) && indexed.indexedColumns.contains(2))  // an index starts with it now
        #expect(!indexed.indexedColumns.contains(1))                                       // its second column
        // A virtual table's module decides what its INTEGER columns hold: never scanned and tested here.
        try temp.db.execute("CREATE VIRTUAL TABLE cp_box USING rtree_i32(id, low, high)")
        let virtual = try temp.reopen()
        #expect(try TableInfo.read("cp_box", in: virtual.connection)?.isVirtual == true)
        #expect(try TableInfo.read("cp_member", in: virtual.connection)?.isVirtual == false)
        try virtual.syncSchema(CPBox.self)
        let box = try #require(virtual.models.registries[ObjectIdentifier(CPBox.self)]).table
        #expect(box.integerColumns.isEmpty)
    }
}

@Suite struct KeyBucketsTests {
    @Test func denseIntegerKeysAreNumberedInOrderAndFoundByOffset() {
        var buckets = KeyBuckets()
        #expect(buckets.bucket(adding: .integer(10)) == 0)
        #expect(buckets.bucket(adding: .integer(12)) == 1)
        #expect(buckets.bucket(adding: .integer(10)) == 0)     // a repeated key keeps its bucket
        #expect(buckets.bucket(adding: .integer(11)) == 2)
        buckets.seal()
        #expect(buckets.allIntegers && buckets.low == 10 && buckets.high == 12)
        #expect([9, 10, 11, 12, 13, Int64.min, Int64.max].map { buckets.bucket(of: $0) } == [nil, 0, 2, 1, nil, nil, nil])
        #expect(buckets.bucket(of: SQLValue.integer(12)) == 1)
        #expect(buckets.bucket(of: SQLValue.text("12")) == nil)
        #expect(buckets.keys == [.integer(10), .integer(12), .integer(11)])
    }

    @Test func scatteredAndOtherKeysAreHashed() {
        var buckets = KeyBuckets()
        for key in [Int64.min, 0, Int64.max] { _ = buckets.bucket(adding: .integer(key)) }
        buckets.seal()   // a span that overflows: no array
        #expect([Int64.min, 0, Int64.max, 1, -1].map { buckets.bucket(of: $0) } == [0, 1, 2, nil, nil])
        // A real equal to an integer key is that key (SQLite's `=`); another real is no key.
        #expect([SQLValue.real(0), .real(-0x1p63), .real(0.5), .real(.nan), .real(0x1p63)].map { buckets.bucket(of: $0) } == [1, 0, nil, nil, nil])
        var text = KeyBuckets()
        #expect(text.bucket(adding: .text("a")) == 0)
        #expect(text.bucket(adding: .integer(1)) == 1)
        text.seal()
        #expect(!text.allIntegers)
        #expect(text.bucket(of: SQLValue.text("a")) == 0 && text.bucket(of: SQLValue.text("b")) == nil)
        #expect(text.bucket(of: 1) == 1)
        #expect(!KeyBuckets().allIntegers)
    }
}

extension ChildrenPrefetchTests {
    @Test func prefetchGroupsLiveChildrenByTheirRowNotTheirUnsavedChanges() throws {
        let db = try TestDatabase.make()
        let t = CPTeam(), u = CPTeam()
        try db.save([t, u])
        let members = (0..<4).map { i in let m = CPMember(); m.name = "m\(i)"; m.team = t; return m }
        try db.save(members)
        members[0].team = u                          // not saved
        members[1].team = CPTeam()                   // an unsaved new team
        members[2].team = nil                        // not saved
        let teams = try db.objects(CPTeam.self, where: "ORDER BY id", prefetching: ["members"])
        let prefetched = teams.map { $0.members.map(\.name) }
        #expect(prefetched == [["m0", "m1", "m2", "m3"], []])
        #expect(try teams.map { try $0.$members.reload().map(\.name) } == prefetched)   // as the lazy load
        #expect(members[0].team === u && members[2].team == nil)   // the unsaved changes stay
    }
}
