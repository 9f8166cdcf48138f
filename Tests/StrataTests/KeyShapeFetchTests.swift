import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Fetching models whose identity is not the rowid (issue 37, key shapes, round 3d): the key columns read
// once (the decoder takes lookUp's values), the rowid entry of a row fetched by key made only when a read
// by rowid needs it, the one-probe insert for text keys. Identity and values must stay exact through
// what moves rowids (REPLACE, VACUUM, `SET rowid`) and through raw SQL by key.

private final class KSPair: Model {
    static let tableName = "ks_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    var n: Int64 = 0
    var m: Int64 = 0
    required init() {}
}

private final class KSNamedPair: Model {
    static let tableName = "ks_named"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    var name = ""
    required init() {}
}

private final class KSParent: Model {
    static let tableName = "ks_parent"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class KSLink: Model {
    static let tableName = "ks_link"
    static let compositeKey = ["left", "right"]
    @Reference var left: KSParent?
    @Reference var right: KSParent?
    var weight: Int64 = 0
    required init() {}
}

private final class KSCode: Model {
    static let tableName = "ks_code"
    static let primaryKey = "code"
    var code = ""
    var n: Int64 = 0
    required init() {}
}

private final class KSCodeRowid: Model {
    static let tableName = "ks_code_rowid"
    static let primaryKey = "code"
    var code = ""
    var n: Int64 = 0
    required init() {}
}

@Suite struct KeyShapeFetchTests {
    private func opaque(_ object: AnyObject) -> UnsafeMutableRawPointer { Unmanaged.passUnretained(object).toOpaque() }

    private func pairTable(_ db: Database) throws {
        try db.execute("CREATE TABLE ks_pair(a INTEGER NOT NULL, b INTEGER NOT NULL, n INTEGER NOT NULL, m INTEGER NOT NULL, PRIMARY KEY (a, b))")
        try db.execute("INSERT INTO ks_pair VALUES (1, 1, 11, 110), (1, 2, 12, 120), (2, 1, 21, 210), (2, 2, 22, 220), (3, 1, 31, 310)")
    }

    @Test func aCompositeFetchRegistersByKeyAloneUntilARowidReadNeedsTheRowidEntries() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        let live = try db.objects(KSPair.self)
        let registry = try #require(live.first?._registry)
        // Five instances in the map by key, none yet by rowid (each would count twice).
        #expect(registry.liveCount == 5)
        #expect(live.map { [$0.a, $0.b, $0.n, $0.m] } == [[1, 1, 11, 110], [1, 2, 12, 120], [2, 1, 21, 210], [2, 2, 22, 220], [3, 1, 31, 310]])
        // A read by rowid makes them, in order: each rowid names its own instance.
        let rowids = try db.column(Int64.self, "SELECT rowid FROM ks_pair ORDER BY a, b")
        for (rowid, object) in zip(rowids, live) { #expect(registry.instance(rowID: rowid) === object) }
        #expect(registry.liveCount == 10)
        // Raw SQL by key and by rowid reaches the live instances (the update hook reports rowids).
        try db.execute("UPDATE ks_pair SET n = 99 WHERE a = 2 AND b = 1")
        try db.execute("UPDATE ks_pair SET m = 7 WHERE rowid = ?", rowids[4])
        #expect(live[2].n == 99 && live[4].m == 7 && live[0].n == 11)
        let again = try db.objects(KSPair.self)
        #expect(again.count == 5 && zip(again, live).allSatisfy { $0 === $1 })
    }

    @Test func rawSQLReachesFetchedCompositeInstancesBeforeAnyRowidReadAndReleasesLeaveNoEntry() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        var live: [KSPair]? = try db.objects(KSPair.self)
        let registry = try #require(live?.first?._registry)
        #expect(registry.liveCount == 5)
        // The first model call after the write reads its reports by rowid: the pending entries are made then.
        try db.execute("UPDATE ks_pair SET n = n + 1000")
        #expect(live?.map(\.n) == [1011, 1012, 1021, 1022, 1031])
        #expect(registry.liveCount == 10)
        // Released in fetch order, then in reverse: both maps empty each time, nothing left dangling.
        live = nil
        #expect(registry.liveCount == 0)
        var second: [KSPair]? = try db.objects(KSPair.self, matching: [:], orderBy: "a DESC, b DESC")
        #expect(second?.map(\.n) == [1031, 1022, 1021, 1012, 1011] && registry.liveCount == 5)
        second = nil
        #expect(registry.liveCount == 0)
        var third: [KSPair]? = try db.objects(KSPair.self)
        #expect(registry.liveCount == 5)
        third?.reverse()
        third = nil
        #expect(registry.liveCount == 0)
        try db.execute("UPDATE ks_pair SET n = 5 WHERE a = 1 AND b = 1")
        let fresh = try #require(try db.object(KSPair.self, forKey: CompositeKey(1, 1)))
        #expect(fresh.n == 5 && fresh.m == 110)
    }

    @Test func aCompositeFetchAfterRowsReplacedAndVacuumedYieldsOneLiveInstancePerRowWithItsValues() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        let live = try db.objects(KSPair.self)
        // REPLACE deletes the row and inserts it again under a new rowid; VACUUM may renumber the rest.
        try db.execute("INSERT OR REPLACE INTO ks_pair VALUES (1, 2, 1200, 1201)")
        try db.execute("DELETE FROM ks_pair WHERE a = 1 AND b = 1")
        try db.execute("VACUUM")
        try db.execute("UPDATE ks_pair SET rowid = rowid + 100 WHERE a = 3")
        let again = try db.objects(KSPair.self, matching: [:], orderBy: "a, b")
        #expect(again.map { [$0.a, $0.b, $0.n, $0.m] } == [[1, 2, 1200, 1201], [2, 1, 21, 210], [2, 2, 22, 220], [3, 1, 31, 310]])
        #expect(Set(again.map { ObjectIdentifier($0) }).count == 4)
        #expect(again[1] === live[2] && again[2] === live[3] && again[3] === live[4])
        #expect(live[0].isDeleted)
        // Each instance answers to its row's rowid as it is now.
        let registry = try #require(again.first?._registry)
        for object in again {
            let rowid = try #require(try db.column(Int64.self, "SELECT rowid FROM ks_pair WHERE a = ? AND b = ?", object.a, object.b).first)
            #expect(registry.instance(rowID: rowid) === object)
        }
        try db.execute("UPDATE ks_pair SET n = -1 WHERE a = 3 AND b = 1")
        #expect(again[3].n == -1)
        #expect(try db.objects(KSPair.self, matching: [:], orderBy: "a, b").map { opaque($0) } == again.map { opaque($0) })
    }

    @Test func aRowReplacedByRawSQLUnderANewRowidReachesTheLiveInstanceOrANewOne() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE ks_named(a INTEGER NOT NULL, b INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (a, b))")
        try db.execute("INSERT INTO ks_named VALUES (1, 1, 'one'), (1, 2, 'two'), (2, 1, 'three')")
        let live = try db.objects(KSNamedPair.self)
        #expect(live.map(\.name) == ["one", "two", "three"])
        let before = try db.column(Int64.self, "SELECT rowid FROM ks_named WHERE a = 1 AND b = 2")
        try db.execute("REPLACE INTO ks_named VALUES (1, 2, 'replaced')")
        let after = try db.column(Int64.self, "SELECT rowid FROM ks_named WHERE a = 1 AND b = 2")
        #expect(before != after)
        let again = try db.objects(KSNamedPair.self)
        #expect(again.map(\.name) == ["one", "three", "replaced"] || again.map(\.name) == ["one", "replaced", "three"])
        let replaced = try #require(again.first { $0.b == 2 })
        #expect(replaced.name == "replaced")
        // Whatever instance stands for the row now, it is the one the key and the rowid both find.
        #expect(try db.object(KSNamedPair.self, forKey: CompositeKey(1, 2)) === replaced)
        let registry = try #require(replaced._registry)
        #expect(registry.instance(rowID: after[0]) === replaced)
        #expect(again.first { $0.b == 1 && $0.a == 1 } === live[0])
        try db.execute("UPDATE ks_named SET name = 'by key' WHERE a = 1 AND b = 2")
        #expect(replaced.name == "by key")
        #expect(try db.column(String.self, "SELECT quote(name) FROM ks_named WHERE a = 1 AND b = 2") == ["'by key'"])
    }

    @Test func compositeReferenceKeysAreReadOnceIntoTheReferencesAndTheirSnapshot() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE ks_parent(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.execute("CREATE TABLE ks_link(left INTEGER NOT NULL REFERENCES ks_parent(id), right INTEGER NOT NULL REFERENCES ks_parent(id), weight INTEGER NOT NULL, PRIMARY KEY (left, right))")
        try db.execute("INSERT INTO ks_parent VALUES (1, 'p1'), (2, 'p2'), (3, 'p3')")
        try db.execute("INSERT INTO ks_link VALUES (1, 2, 12), (2, 3, 23), (3, 1, 31)")
        let links = try db.objects(KSLink.self)
        #expect(links.map { [$0.$left.key, $0.$right.key] } == [[.integer(1), .integer(2)], [.integer(2), .integer(3)], [.integer(3), .integer(1)]])
        #expect(links.map(\.weight) == [12, 23, 31])
        #expect(links.map { $0.left?.name } == ["p1", "p2", "p3"] && links.map { $0.right?.name } == ["p2", "p3", "p1"])
        // The snapshot holds the keys: an unchanged instance saves nothing, a changed one its column only.
        let registry = try #require(links.first?._registry)
        #expect(registry.registeredIdentity(of: links[1]) == .pair(2, 3))
        for link in links {
            #expect(registry.changes(of: link).isEmpty)
            for i in 0..<3 { #expect(registry.rememberedWord(of: link, at: i)?.bits == registry.metadata.snapshotWord(of: link, at: i).bits) }
        }
        links[1].weight = 230
        #expect(registry.changes(of: links[1]) == ColumnSet(low: 1 << 2))
        try db.save(links[1])
        #expect(try db.column(String.self, "SELECT quote(weight) FROM ks_link ORDER BY left") == ["12", "230", "31"])
        try db.execute("UPDATE ks_link SET weight = 0 WHERE left = 3 AND right = 1")
        #expect(links[2].weight == 0)
        let again = try db.objects(KSLink.self)
        #expect(again.count == 3 && zip(again, links).allSatisfy { $0 === $1 })
    }

    @Test func textKeysNonASCIIAreOneInstanceEachStoredAsTheirBytesAndFoundAgain() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE ks_code(code TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID")
        // NFC and NFD spellings of "café" are two rows (SQLite compares bytes), as are the others.
        let codes = ["caf\u{E9}", "cafe\u{301}", "\u{1F600}x", "\u{65E5}\u{672C}", "plain"]
        for (i, code) in codes.enumerated() { try db.execute("INSERT INTO ks_code VALUES (?, ?)", code, Int64(i)) }
        let live = try db.objects(KSCode.self, matching: [:], orderBy: "n")
        #expect(live.map { Array($0.code.utf8) } == codes.map { Array($0.utf8) })
        #expect(live.map(\.n) == [0, 1, 2, 3, 4])
        let registry = try #require(live.first?._registry)
        #expect(registry.liveCount == 5)
        for object in live { #expect(registry.registeredIdentity(of: object) == IdentityKey(text: object.code)) }
        // Unchanged instances save nothing (their snapshot word is their key's hash); raw SQL by key reaches them.
        for object in live {
            #expect(registry.changes(of: object).isEmpty)
            #expect(registry.rememberedWord(of: object, at: 0)?.bits == SnapshotWord(text: object.code).bits)
        }
        try db.execute("UPDATE ks_code SET n = 100 WHERE code = ?", "cafe\u{301}")
        #expect(live[1].n == 100 && live[0].n == 0)
        let again = try db.objects(KSCode.self, matching: [:], orderBy: "code")
        #expect(Set(again.map { ObjectIdentifier($0) }) == Set(live.map { ObjectIdentifier($0) }))
        for code in codes {
            #expect(try db.object(KSCode.self, forKey: code) === live.first { Array($0.code.utf8) == Array(code.utf8) })
        }
        live[4].n = 44
        #expect(registry.changes(of: live[4]) == ColumnSet(low: 1 << 1))
        try db.save(live[4])
        #expect(try db.column(String.self, "SELECT quote(n) || typeof(code) FROM ks_code ORDER BY code") == ["100text", "0text", "44text", "3text", "2text"])
    }

    @Test func aTextKeyedRowReplacedByRawSQLUnderANewRowidReachesItsInstance() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE ks_code_rowid(code TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL)")
        try db.execute("INSERT INTO ks_code_rowid VALUES ('\u{E9}t\u{E9}', 1), ('hiver', 2)")
        let live = try db.objects(KSCodeRowid.self)
        #expect(live.map(\.n) == [1, 2])
        try db.execute("UPDATE ks_code_rowid SET rowid = rowid + 50 WHERE code = 'hiver'")
        try db.execute("UPDATE ks_code_rowid SET n = 20 WHERE code = 'hiver'")
        #expect(live[1].n == 20)
        try db.execute("REPLACE INTO ks_code_rowid VALUES ('\u{E9}t\u{E9}', 10)")
        let again = try db.objects(KSCodeRowid.self, matching: [:], orderBy: "n")
        #expect(again.map(\.code) == ["\u{E9}t\u{E9}", "hiver"] && again.map(\.n) == [10, 20])
        #expect(again[1] === live[1])
        let rowid = try #require(try db.column(Int64.self, "SELECT rowid FROM ks_code_rowid WHERE code = ?", "\u{E9}t\u{E9}").first)
        #expect(again[0]._registry?.instance(rowID: rowid) === again[0])
        try db.execute("UPDATE ks_code_rowid SET n = 11 WHERE rowid = ?", rowid)
        #expect(again[0].n == 11)
    }

    @Test func textKeysOfEqualHashesTakeTheOneProbeInsertAndKeepTheirOwnInstances() throws {
        let map = KeyMapBox()
        let first = ModelObject(), keys = ["\u{E9}", "e\u{301}", "\u{1F600}", "a", "b"].map { IdentityKey(text: $0 + " of a long text key") }
        // A first text key moves the map to the side list; the rest all take one hash, through lookUp's slot.
        // (Longer than 15 bytes: shorter text keys are held in the entries.)
        #expect(map.insert(Unmanaged.passUnretained(first), for: .pair(9, 9), hash: KeyMap.hash(.pair(9, 9))) == nil)
        let objects = keys.map { _ in ModelObject() }
        for (key, object) in zip(keys, objects) {
            let (found, slot) = map.lookUp(key, hash: 42)
            #expect(found == nil)
            #expect(map.insert(Unmanaged.passUnretained(object), for: key, hash: 42, at: slot) == nil)
        }
        #expect(map.count == 6 && !map.holdsPairs && map.storedKeys == 6)
        for (key, object) in zip(keys, objects) {
            #expect(map.find(key, hash: 42)?.toOpaque() == opaque(object))
            let index = try #require(map.index(of: object, hash: 42))
            #expect(map.key(at: index) == key)
        }
        // A removed key's place is reused by the next one-probe insert; the others stay found.
        map.remove(at: try #require(map.index(of: objects[1], hash: 42)))
        let late = ModelObject(), lateKey = IdentityKey(text: "\u{65E5} of a long text key")
        let (_, slot) = map.lookUp(lateKey, hash: 42)
        #expect(map.insert(Unmanaged.passUnretained(late), for: lateKey, hash: 42, at: slot) == nil)
        #expect(map.storedKeys == 6 && map.count == 6)
        #expect(map.find(keys[1], hash: 42) == nil && map.find(lateKey, hash: 42)?.toOpaque() == opaque(late))
        for i in [0, 2, 3, 4] { #expect(map.find(keys[i], hash: 42)?.toOpaque() == opaque(objects[i])) }
        #expect(map.find(.pair(9, 9), hash: KeyMap.hash(.pair(9, 9)))?.toOpaque() == opaque(first))
        withExtendedLifetime((first, objects, late)) {}
    }
}
