import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The map by key of tables whose key is not the rowid (issue 37, key shapes): `KeyMap` replaced a
// SipHash dictionary and its reverse map (instance -> key); an instance's entry is found again by the key
// its snapshot remembers, its key properties, or a scan. Identity stays exact through what moves rowids
// and keys underneath.

private final class R20KSPair: Model {
    static let tableName = "r20ks_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    var name = ""
    required init() {}
}

private final class R20KSCode: Model {
    static let tableName = "r20ks_code"
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

@Suite struct Review20KeyShapeTests {
    private func pairTable(_ db: Database) throws {
        try db.execute("CREATE TABLE r20ks_pair(a INTEGER NOT NULL, b INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (a, b))")
        try db.execute("INSERT INTO r20ks_pair VALUES (1, 1, 'p'), (1, 2, 'q'), (2, 1, 'r'), (2, 2, 's'), (3, 1, 't')")
    }

    @Test func theKeyMapFindsEveryKeyThroughClusteredInsertsReplacementsAndRemovals() throws {
        let map = KeyMapBox()
        // Second parts a power of two apart cluster under the low-bits placement: the map must scatter them.
        let keys = (0..<3_000).map { IdentityKey.pair(Int64($0 % 7), Int64($0) << 20) }
        let objects = keys.map { _ in ModelObject() }
        for (key, object) in zip(keys, objects) {
            #expect(map.insert(Unmanaged.passUnretained(object), for: key, hash: KeyMap.hash(key)) == nil)
        }
        #expect(map.count == 3_000 && map.scrambled)
        for (key, object) in zip(keys, objects) {
            #expect(map.find(key, hash: KeyMap.hash(key))?.toOpaque() == Unmanaged.passUnretained(object).toOpaque())
        }
        // A second instance under a key replaces the first, which the insert returns.
        let replacement = ModelObject()
        let replaced = map.insert(Unmanaged.passUnretained(replacement), for: keys[10], hash: KeyMap.hash(keys[10]))
        #expect(replaced?.toOpaque() == Unmanaged.passUnretained(objects[10]).toOpaque() && map.count == 3_000)
        #expect(map.index(of: objects[10], hash: KeyMap.hash(keys[10])) == nil && map.indexScanning(for: objects[10]) == nil)
        // Every even entry removed, found by its instance along its hash's run (as a scan finds it).
        for i in stride(from: 0, to: keys.count, by: 2) {
            let object = i == 10 ? replacement : objects[i]
            let index = try #require(map.index(of: object, hash: KeyMap.hash(keys[i])))
            #expect(map.indexScanning(for: object) == index && map.key(at: index) == keys[i])
            map.remove(at: index)
        }
        #expect(map.count == 1_500)
        for (i, key) in keys.enumerated() {
            let found = map.find(key, hash: KeyMap.hash(key))?.toOpaque()
            #expect(found == (i.isMultiple(of: 2) ? nil : Unmanaged.passUnretained(objects[i]).toOpaque()))
        }
        // Text keys compare by UTF-8 bytes: NFC and NFD spellings are two keys.
        let nfc = IdentityKey(text: "caf\u{E9}"), nfd = IdentityKey(text: "cafe\u{301}")
        _ = map.insert(Unmanaged.passUnretained(objects[0]), for: nfc, hash: KeyMap.hash(nfc))
        #expect(map.find(nfd, hash: KeyMap.hash(nfd)) == nil)
        #expect(map.find(nfc, hash: KeyMap.hash(nfc))?.toOpaque() == Unmanaged.passUnretained(objects[0]).toOpaque())
        withExtendedLifetime((objects, replacement)) {}
    }

    @Test func aCompositeKeyInstanceStaysOnItsRowThroughVacuumAndRowidsRenumbered() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        try db.execute("DELETE FROM r20ks_pair WHERE a = 1")   // rowids 1 and 2 free: VACUUM may renumber the others
        let live = try db.objects(R20KSPair.self, matching: [:], orderBy: "a, b")
        #expect(live.map(\.name) == ["r", "s", "t"])
        try db.execute("VACUUM")
        try db.execute("UPDATE r20ks_pair SET rowid = rowid + 100")
        // The hook reports the rows' new rowids: raw SQL by rowid reaches the instances at once.
        try db.execute("UPDATE r20ks_pair SET name = 'by rowid' WHERE rowid = (SELECT max(rowid) FROM r20ks_pair)")
        #expect(live[2].name == "by rowid" && live[0].name == "r")
        let again = try db.objects(R20KSPair.self, matching: [:], orderBy: "a, b")
        #expect(again.count == 3 && zip(again, live).allSatisfy { $0 === $1 })
        #expect(try db.object(R20KSPair.self, forKey: CompositeKey(2, 2)) === live[1])
        // Raw SQL by key and a save both reach the one row of each instance.
        try db.execute("UPDATE r20ks_pair SET name = 'raw' WHERE a = 3 AND b = 1")
        #expect(live[2].name == "raw")
        live[0].name = "saved"
        try db.save(live[0])
        #expect(try db.column(String.self, "SELECT name FROM r20ks_pair ORDER BY a, b") == ["saved", "s", "raw"])
    }

    @Test func aKeyChangedByRawSQLLeavesTheOldInstanceAndTheNewKeyGetsItsOwn() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        let old = try #require(try db.object(R20KSPair.self, forKey: CompositeKey(1, 2)))
        try db.execute("UPDATE r20ks_pair SET b = 9 WHERE a = 1 AND b = 2")
        #expect(old.isDeleted)
        #expect(try db.object(R20KSPair.self, forKey: CompositeKey(1, 2)) == nil)
        let moved = try #require(try db.object(R20KSPair.self, forKey: CompositeKey(1, 9)))
        #expect(moved !== old && moved.name == "q" && moved.a == 1 && moved.b == 9)
        #expect(try db.objects(R20KSPair.self, matching: [:], orderBy: "a, b").map(\.b) == [1, 9, 1, 2, 1])
    }

    @Test func aRowDeletedAndInsertedAgainWithTheSameKeyIsANewInstanceAndTheOldOneLeavesCleanly() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        var old: R20KSPair? = try db.object(R20KSPair.self, forKey: CompositeKey(2, 1))
        #expect(try db.delete(try #require(old)))
        try db.execute("INSERT INTO r20ks_pair VALUES (2, 1, 'again')")
        let fresh = try #require(try db.object(R20KSPair.self, forKey: CompositeKey(2, 1)))
        #expect(fresh !== old && fresh.name == "again" && old?.isDeleted == true)
        old = nil   // the deleted instance's release must not take the new one's entry
        #expect(try db.object(R20KSPair.self, forKey: CompositeKey(2, 1)) === fresh)
        #expect(fresh._registry?.registeredIdentity(of: fresh) == .pair(2, 1))
    }

    @Test func anInstanceWhoseKeyPropertyChangedIsFoundByItsRegisteredKeyAndLeavesTheMapWhenReleased() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try pairTable(db)
        weak var released: R20KSPair?
        do {
            let live = try #require(try db.object(R20KSPair.self, forKey: CompositeKey(1, 2)))
            released = live
            live.a = 7; live.b = 7   // unsaved: the instance still stands for row (1, 2)
            #expect(live._registry?.registeredIdentity(of: live) == .pair(1, 2))
            #expect(live._registry?.textKey(of: live) == "(1, 2)")
            #expect(throws: ModelError.self) { try db.save(live) }
            // Without its snapshot, the entry is still found (by a scan), never another instance's.
            live._registry?.releaseSnapshot(live)
            #expect(live._registry?.registeredIdentity(of: live) == .pair(1, 2))
        }
        #expect(released == nil)
        let again = try #require(try db.object(R20KSPair.self, forKey: CompositeKey(1, 2)))
        #expect(again.a == 1 && again.b == 2 && again.name == "q")
        #expect(again._registry?.registeredIdentity(of: again) == .pair(1, 2))
        #expect(try db.object(R20KSPair.self, forKey: CompositeKey(7, 7)) == nil)
    }

    @Test func aTextKeyedInstanceReleasedAndFetchedAgainIsNewAndAChangedKeyKeepsItsRegisteredOne() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE r20ks_code(code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL) WITHOUT ROWID")
        try db.execute("INSERT INTO r20ks_code VALUES ('a', 'one'), ('b', 'two'), ('caf\u{E9}', 'nfc'), ('cafe\u{301}', 'nfd')")
        var all = try db.objects(R20KSCode.self, matching: [:], orderBy: "code")
        #expect(all.map(\.name) == ["one", "two", "nfd", "nfc"])
        #expect(try db.object(R20KSCode.self, forKey: "caf\u{E9}") === all[3])
        let b = all[1]
        all = []
        b.code = "zz"
        #expect(b._registry?.textKey(of: b) == "b")
        try db.execute("UPDATE r20ks_code SET name = 'raw' WHERE code = 'b'")
        #expect(b.name == "raw")
        weak var released: R20KSCode?
        do {
            let a = try #require(try db.object(R20KSCode.self, forKey: "a"))
            released = a
            a.code = "changed"
        }
        #expect(released == nil)
        let a = try #require(try db.object(R20KSCode.self, forKey: "a"))
        #expect(a.code == "a" && a.name == "one" && a._registry?.textKey(of: a) == "a")
        #expect(try db.objects(R20KSCode.self).count == 4)
    }
}
