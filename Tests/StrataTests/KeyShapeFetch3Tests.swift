import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Fetching models whose identity is not the rowid (issue 37, key shapes, round 3e): two `@Reference` key
// parts stored into their states from the key a fetch read, the columns after the key read in one loop when
// they are 8-byte numbers side by side (``KeyedLayout``), and text keys of at most 15 UTF-8 bytes held in the
// identity map's entries rather than its side list. Values, snapshots and identity must stay exact.

private final class K3Parent: Model {
    static let tableName = "k3_parent"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class K3Link: Model {
    static let tableName = "k3_link"
    static let compositeKey = ["left", "right"]
    @Reference var left: K3Parent?
    @Reference var right: K3Parent?
    var i: Int64 = 0
    var x: Double = 0
    var j: Int64 = 0
    required init() {}
}

private final class K3Code: Model {
    static let tableName = "k3_code"
    static let primaryKey = "code"
    var code = ""
    var n: Int64 = 0
    var r: Double = 0
    required init() {}
}

@Suite struct KeyShapeFetch3Tests {
    private func linkTables(_ db: Database) throws {
        try db.execute("CREATE TABLE k3_parent(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.execute("""
            CREATE TABLE k3_link(left INTEGER NOT NULL REFERENCES k3_parent(id), right INTEGER NOT NULL REFERENCES k3_parent(id),
                                 i INTEGER NOT NULL, x REAL NOT NULL, j INTEGER NOT NULL, PRIMARY KEY (left, right))
            """)
        try db.execute("INSERT INTO k3_parent VALUES (1, 'p1'), (2, 'p2'), (3, 'p3')")
        try db.execute("INSERT INTO k3_link VALUES (1, 2, 12, 1.5, -12), (2, 3, 23, -2.25, -23), (3, 1, 31, 0.125, -31)")
    }

    @Test func referenceKeyPartsAndANumberTailAreReadIntoTheirFieldsAndSnapshot() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try linkTables(db)
        let links = try db.objects(K3Link.self)
        #expect(links.map { [$0.$left.key, $0.$right.key] } == [[.integer(1), .integer(2)], [.integer(2), .integer(3)], [.integer(3), .integer(1)]])
        #expect(links.map(\.i) == [12, 23, 31] && links.map(\.x) == [1.5, -2.25, 0.125] && links.map(\.j) == [-12, -23, -31])
        #expect(links.map { $0.left?.name } == ["p1", "p2", "p3"] && links.map { $0.right?.name } == ["p2", "p3", "p1"])
        let registry = try #require(links.first?._registry)
        #expect(registry.keyedLayout?.referenceStates != nil && registry.keyedLayout?.tailStart != nil)
        // Each snapshot word is the one the field gives now: nothing to save, and one changed column each.
        for link in links {
            #expect(registry.changes(of: link).isEmpty)
            for c in 0..<5 { #expect(registry.rememberedWord(of: link, at: c)?.bits == registry.metadata.snapshotWord(of: link, at: c).bits) }
        }
        links[0].x = 9.75
        links[2].j = 7
        #expect(registry.changes(of: links[0]) == ColumnSet(low: 1 << 3) && registry.changes(of: links[2]) == ColumnSet(low: 1 << 4))
        try db.save(links[0])
        try db.save(links[2])
        #expect(try db.column(String.self, "SELECT quote(left) || quote(right) || ':' || quote(i) || ',' || quote(x) || ',' || quote(j) FROM k3_link ORDER BY left")
                == ["12:12,9.75,-12", "23:23,-2.25,-23", "31:31,0.125,7"])
        // Raw SQL by key reaches the live instances; a fetch again gives them back, one per row.
        try db.execute("UPDATE k3_link SET i = 230, x = 4.5 WHERE left = 2 AND right = 3")
        let again = try db.objects(K3Link.self)
        #expect(again.count == 3 && zip(again, links).allSatisfy { $0 === $1 })
        #expect(links[1].i == 230 && links[1].x == 4.5 && registry.changes(of: links[1]).isEmpty)
    }

    @Test func referenceKeyedRowsReleasedThenFetchedAgainAreNewInstancesWithTheRowsValues() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try linkTables(db)
        var links: [K3Link]? = try db.objects(K3Link.self)
        let registry = try #require(links?.first?._registry)
        #expect(registry.liveCount == 3)
        links = nil
        #expect(registry.liveCount == 0)
        try db.execute("INSERT INTO k3_link VALUES (1, 1, 11, 1.0, -11)")
        try db.execute("UPDATE k3_link SET j = 5 WHERE left = 3")
        let fresh = try db.objects(K3Link.self, matching: [:], orderBy: "left, right")
        #expect(fresh.map { [$0.$left.key, $0.$right.key] } == [[.integer(1), .integer(1)], [.integer(1), .integer(2)], [.integer(2), .integer(3)], [.integer(3), .integer(1)]])
        #expect(fresh.map(\.i) == [11, 12, 23, 31] && fresh.map(\.j) == [-11, -12, -23, 5] && fresh.map(\.x) == [1.0, 1.5, -2.25, 0.125])
        #expect(Set(fresh.map(ObjectIdentifier.init)).count == 4 && registry.liveCount == 4)
        for link in fresh { #expect(registry.changes(of: link).isEmpty) }
    }

    @Test func aTailColumnThatCannotBeReadFailsTheFetchNamingItAndLeavesNoInstanceRegistered() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try linkTables(db)
        // A text in the INTEGER column j (no affinity can make it a number): the fetch names the column.
        try db.execute("UPDATE k3_link SET j = 'not a number' WHERE left = 2")
        #expect {
            try db.objects(K3Link.self)
        } throws: { error in
            "\(error)".contains("j") && "\(error)".contains("not a number")
        }
        try db.execute("UPDATE k3_link SET j = -22 WHERE left = 2")
        let links = try db.objects(K3Link.self)
        #expect(links.map(\.j) == [-12, -22, -31] && links.map(\.i) == [12, 23, 31])
        let registry = try #require(links.first?._registry)
        #expect(registry.liveCount == 3)
        for link in links { #expect(registry.changes(of: link).isEmpty) }
    }

    /// Text keys around the 15 bytes an entry holds (ASCII and not), NFC and NFD spellings, and the empty key.
    private let codes = ["", "a", "a\u{0}", "abcdefghijklmno", "abcdefghijklmnop", "\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}x",
                         "\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}xy", "caf\u{E9}", "cafe\u{301}", "\u{1F600}\u{65E5}\u{672C}\u{8A9E}!!!!"]

    @Test func textKeysShortAndLongAreOneInstanceEachFoundAgainAndTheirOwnRegisteredKeys() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE k3_code(code TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL, r REAL NOT NULL) WITHOUT ROWID")
        for (i, code) in codes.enumerated() { try db.execute("INSERT INTO k3_code VALUES (?, ?, ?)", code, Int64(i), Double(i) / 4) }
        #expect(codes.map(\.utf8.count) == [0, 1, 2, 15, 16, 15, 16, 5, 6, 17])
        let live = try db.objects(K3Code.self, matching: [:], orderBy: "n")
        #expect(live.map { Array($0.code.utf8) } == codes.map { Array($0.utf8) })
        #expect(live.map(\.n) == Array(0..<Int64(codes.count)) && live.map(\.r) == codes.indices.map { Double($0) / 4 })
        let registry = try #require(live.first?._registry)
        #expect(Set(live.map(ObjectIdentifier.init)).count == codes.count && registry.liveCount == codes.count)
        for object in live {
            #expect(registry.registeredIdentity(of: object) == IdentityKey(text: object.code))
            #expect(registry.changes(of: object).isEmpty)
            #expect(registry.rememberedWord(of: object, at: 0)?.bits == SnapshotWord(text: object.code).bits)
        }
        for code in codes {
            #expect(try db.object(K3Code.self, forKey: code) === live.first { Array($0.code.utf8) == Array(code.utf8) })
        }
        #expect(try db.object(K3Code.self, forKey: "abcdefghijklmn") == nil && db.object(K3Code.self, forKey: "cafe") == nil)
        // Only the keys longer than 15 bytes take a place in the side list.
        #expect(registry.keyMapStoredKeys == 3)
        let again = try db.objects(K3Code.self, matching: [:], orderBy: "code")
        #expect(Set(again.map(ObjectIdentifier.init)) == Set(live.map(ObjectIdentifier.init)))
        // A raw write by key reaches its instance; a save writes its row only.
        try db.execute("UPDATE k3_code SET n = 100 WHERE code = ?", "a\u{0}")
        #expect(live[2].n == 100 && live[1].n == 1)
        live[8].r = 8.5
        try db.save(live[8])
        #expect(try db.column(String.self, "SELECT quote(r) FROM k3_code WHERE code = ?", "cafe\u{301}") == ["8.5"])
        #expect(try db.column(String.self, "SELECT quote(r) FROM k3_code WHERE code = ?", "caf\u{E9}") == ["1.75"])
    }

    @Test func textKeysReleasedAndDeletedLeaveTheMapAndTheRestAreStillFound() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE k3_code(code TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL, r REAL NOT NULL) WITHOUT ROWID")
        for (i, code) in codes.enumerated() { try db.execute("INSERT INTO k3_code VALUES (?, ?, ?)", code, Int64(i), 0.5) }
        var live: [K3Code] = try db.objects(K3Code.self, matching: [:], orderBy: "n")
        let registry = try #require(live.first?._registry)
        // Let every other instance go (short and long keys), delete one more.
        let kept = live.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element)
        live = []
        #expect(registry.liveCount == kept.count)
        #expect(try db.delete(kept[1]))
        #expect(registry.liveCount == kept.count - 1)
        for (i, code) in codes.enumerated() {
            let found = try db.object(K3Code.self, forKey: code)
            #expect(found?.n == (i == 2 ? nil : Int64(i)))
            if i.isMultiple(of: 2) && i != 2 { #expect(found === kept[i / 2]) }
        }
        // Fetched again: the kept instances, new ones for the others, each its own row's.
        let again = try db.objects(K3Code.self, matching: [:], orderBy: "n")
        #expect(again.map(\.n) == codes.indices.filter { $0 != 2 }.map(Int64.init))
        #expect(again.map { Array($0.code.utf8) } == codes.enumerated().filter { $0.offset != 2 }.map { Array($0.element.utf8) })
        #expect(again[0] === kept[0] && again[3] === kept[2] && Set(again.map(ObjectIdentifier.init)).count == codes.count - 1)
        for object in again { #expect(registry.registeredIdentity(of: object) == IdentityKey(text: object.code)) }
    }
}
