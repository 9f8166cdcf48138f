import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The map by key (issue 37, round 3c): trivial 32-byte entries in raw memory (the two parts of an integer
// pair inline, other keys in a side list), one probe per new row (a lookup returns the slot an insert
// uses, checked against changes in between), growth by doubling, backward-shift removal.

private final class KMGPair: Model {
    static let tableName = "kmg_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    var n: Int64 = 0
    required init() {}
}

private final class KMGCode: Model {
    static let tableName = "kmg_code"
    static let primaryKey = "code"
    var code = ""
    var n: Int64 = 0
    required init() {}
}

/// A ``KeyMap`` behind a class: Swift Testing's `#expect` and `#require` take copyable operands only.
final class KeyMapBox {
    private var map = KeyMap()
    var count: Int { map.count }
    var scrambled: Bool { map.scrambled }
    var holdsPairs: Bool { map.holdsPairs }
    var storedKeys: Int { map.storedKeys }
    var values: [Unmanaged<ModelObject>] { map.values }
    func find(_ key: IdentityKey, hash: UInt64) -> Unmanaged<ModelObject>? { map.find(key, hash: hash) }
    func lookUp(_ key: IdentityKey, hash: UInt64) -> (value: Unmanaged<ModelObject>?, slot: KeyMap.Slot) { map.lookUp(key, hash: hash) }
    func insert(_ value: Unmanaged<ModelObject>, for key: IdentityKey, hash: UInt64) -> Unmanaged<ModelObject>? {
        map.insert(value, for: key, hash: hash)
    }
    func insert(_ value: Unmanaged<ModelObject>, for key: IdentityKey, hash: UInt64, at slot: KeyMap.Slot) -> Unmanaged<ModelObject>? {
        map.insert(value, for: key, hash: hash, at: slot)
    }
    func index(of object: ModelObject, hash: UInt64) -> Int? { map.index(of: object, hash: hash) }
    func indexScanning(for object: ModelObject) -> Int? { map.indexScanning(for: object) }
    func key(at index: Int) -> IdentityKey { map.key(at: index) }
    func remove(at index: Int) { map.remove(at: index) }
}

@Suite struct KeyMapGrowthTests {
    private func opaque(_ object: ModelObject) -> UnsafeMutableRawPointer { Unmanaged.passUnretained(object).toOpaque() }

    @Test func twoHundredThousandPairsGrowThroughEveryGrowthByOneProbeEachAndLeaveByTheirInstance() throws {
        let map = KeyMapBox()
        // The benchmark's keys, in its order: a = r / 1000 + 1, b = r mod 1000 + 1.
        let keys: [IdentityKey] = (0..<200_000).map { (r: Int) -> IdentityKey in .pair(Int64(r / 1000 + 1), Int64(r % 1000 + 1)) }
        let objects = keys.map { _ in ModelObject() }
        for (key, object) in zip(keys, objects) {
            let hash = KeyMap.hash(key)
            let (found, slot) = map.lookUp(key, hash: hash)
            #expect(found == nil)
            #expect(map.insert(Unmanaged.passUnretained(object), for: key, hash: hash, at: slot) == nil)
        }
        #expect(map.count == 200_000 && map.holdsPairs)
        var misplaced = 0
        for (key, object) in zip(keys, objects) where map.find(key, hash: KeyMap.hash(key))?.toOpaque() != opaque(object) {
            misplaced += 1
        }
        #expect(misplaced == 0)
        #expect(map.find(.pair(201, 1), hash: KeyMap.hash(.pair(201, 1))) == nil)
        #expect(Set(map.values.map { $0.toOpaque() }) == Set(objects.map(opaque)))
        // Every entry leaves by its instance, found along its key's run; the map is empty after.
        var unfound = 0
        for (key, object) in zip(keys, objects).reversed() {
            guard let index = map.index(of: object, hash: KeyMap.hash(key)) else { unfound += 1; continue }
            #expect(map.key(at: index) == key)
            map.remove(at: index)
        }
        #expect(unfound == 0 && map.count == 0 && map.values.isEmpty)
        #expect(map.find(keys[0], hash: KeyMap.hash(keys[0])) == nil)
        withExtendedLifetime(objects) {}
    }

    @Test func aKeyRemovedAndRegisteredAgainFindsItsNewInstanceOnly() throws {
        let map = KeyMapBox()
        let key = IdentityKey.pair(3, 4)
        let first = ModelObject(), second = ModelObject()
        _ = map.insert(Unmanaged.passUnretained(first), for: key, hash: KeyMap.hash(key))
        try map.remove(at: #require(map.index(of: first, hash: KeyMap.hash(key))))
        #expect(map.find(key, hash: KeyMap.hash(key)) == nil && map.count == 0)
        let (found, slot) = map.lookUp(key, hash: KeyMap.hash(key))
        #expect(found == nil)
        #expect(map.insert(Unmanaged.passUnretained(second), for: key, hash: KeyMap.hash(key), at: slot) == nil)
        #expect(map.find(key, hash: KeyMap.hash(key))?.toOpaque() == opaque(second))
        #expect(map.index(of: first, hash: KeyMap.hash(key)) == nil && map.indexScanning(for: first) == nil)
        #expect(map.count == 1)
        withExtendedLifetime((first, second)) {}
    }

    @Test func aSlotTakenByAnotherKeySinceItsLookupIsProbedAgain() throws {
        let map = KeyMapBox()
        let objects = (0..<3).map { _ in ModelObject() }
        _ = map.insert(Unmanaged.passUnretained(objects[0]), for: .pair(1, 1), hash: 5)
        // Two keys of one hash: the second's lookup slot is taken by the first's insert.
        let (_, slot) = map.lookUp(.pair(2, 2), hash: 9)
        _ = map.insert(Unmanaged.passUnretained(objects[1]), for: .pair(3, 3), hash: 9)
        #expect(map.insert(Unmanaged.passUnretained(objects[2]), for: .pair(2, 2), hash: 9, at: slot) == nil)
        #expect(map.find(.pair(3, 3), hash: 9)?.toOpaque() == opaque(objects[1]))
        #expect(map.find(.pair(2, 2), hash: 9)?.toOpaque() == opaque(objects[2]))
        #expect(map.find(.pair(1, 1), hash: 5)?.toOpaque() == opaque(objects[0]))
        // A stale slot of a key registered since: the insert replaces, and says whom.
        let (_, stale) = map.lookUp(.pair(4, 4), hash: 5)
        _ = map.insert(Unmanaged.passUnretained(objects[0]), for: .pair(4, 4), hash: 5)
        #expect(map.insert(Unmanaged.passUnretained(objects[1]), for: .pair(4, 4), hash: 5, at: stale)?.toOpaque() == opaque(objects[0]))
        #expect(map.count == 4 && map.find(.pair(4, 4), hash: 5)?.toOpaque() == opaque(objects[1]))
        withExtendedLifetime(objects) {}
    }

    @Test func aThousandKeysOfOneHashKeepTheirOwnInstancesThroughRemovals() throws {
        let map = KeyMapBox()
        let keys: [IdentityKey] = (0..<1_000).map { (i: Int) -> IdentityKey in .pair(Int64(i), -Int64(i)) }
        let objects = keys.map { _ in ModelObject() }
        for (key, object) in zip(keys, objects) { _ = map.insert(Unmanaged.passUnretained(object), for: key, hash: 42) }
        #expect(map.count == 1_000 && map.scrambled)   // one run longer than the long probe: scattered since
        for i in stride(from: 0, to: 1_000, by: 2) {
            try map.remove(at: #require(map.index(of: objects[i], hash: 42)))
        }
        var wrong = 0
        for (i, key) in keys.enumerated() {
            let found = map.find(key, hash: 42)?.toOpaque()
            if found != (i.isMultiple(of: 2) ? nil : opaque(objects[i])) { wrong += 1 }
        }
        #expect(wrong == 0 && map.count == 500)
        withExtendedLifetime(objects) {}
    }

    @Test func textKeysOfEqualHashesAreTwoEntriesAndARemovedKeysPlaceIsReused() throws {
        let map = KeyMapBox()
        let objects = (0..<4).map { _ in ModelObject() }
        // (Longer than 15 bytes: shorter text keys are held in the entries, not the side list.)
        let nfc = IdentityKey(text: "caf\u{E9} of a long text key"), nfd = IdentityKey(text: "cafe\u{301} of a long text key")
        let other = IdentityKey(text: "item-1 of a long text key")
        _ = map.insert(Unmanaged.passUnretained(objects[0]), for: nfc, hash: 7)
        #expect(!map.holdsPairs && map.storedKeys == 1)
        _ = map.insert(Unmanaged.passUnretained(objects[1]), for: nfd, hash: 7)
        #expect(map.find(nfc, hash: 7)?.toOpaque() == opaque(objects[0]))
        #expect(map.find(nfd, hash: 7)?.toOpaque() == opaque(objects[1]))
        #expect(map.find(other, hash: 7) == nil)
        let index = try #require(map.index(of: objects[0], hash: 7))
        #expect(map.key(at: index) == nfc)
        map.remove(at: index)
        #expect(map.find(nfc, hash: 7) == nil && map.find(nfd, hash: 7)?.toOpaque() == opaque(objects[1]))
        // The removed key's place in the side list holds the next key.
        _ = map.insert(Unmanaged.passUnretained(objects[2]), for: other, hash: KeyMap.hash(other))
        #expect(map.storedKeys == 2 && map.count == 2)
        #expect(map.find(other, hash: KeyMap.hash(other))?.toOpaque() == opaque(objects[2]))
        let otherIndex = try #require(map.index(of: objects[2], hash: KeyMap.hash(other)))
        #expect(map.key(at: otherIndex) == other)
        withExtendedLifetime(objects) {}
    }

    @Test func aFirstKeyOfAnotherShapeMovesThePairsIntoTheSideListAndEveryPairIsStillFound() throws {
        let map = KeyMapBox()
        let keys: [IdentityKey] = (0..<100).map { (i: Int) -> IdentityKey in .pair(Int64(i), 1) }
        let objects = (0...100).map { _ in ModelObject() }
        for (key, object) in zip(keys, objects) { _ = map.insert(Unmanaged.passUnretained(object), for: key, hash: KeyMap.hash(key)) }
        #expect(map.holdsPairs)
        let mixed = IdentityKey(parts: [.integer(1), .text("x")])
        let (_, slot) = map.lookUp(mixed, hash: KeyMap.hash(mixed))
        #expect(map.insert(Unmanaged.passUnretained(objects[100]), for: mixed, hash: KeyMap.hash(mixed), at: slot) == nil)
        #expect(!map.holdsPairs && map.storedKeys == 101 && map.count == 101)
        var wrong = 0
        for (key, object) in zip(keys, objects) where map.find(key, hash: KeyMap.hash(key))?.toOpaque() != opaque(object) { wrong += 1 }
        #expect(wrong == 0)
        #expect(map.find(mixed, hash: KeyMap.hash(mixed))?.toOpaque() == opaque(objects[100]))
        let index = try #require(map.index(of: objects[5], hash: KeyMap.hash(keys[5])))
        #expect(map.key(at: index) == .pair(5, 1))
        withExtendedLifetime(objects) {}
    }

    @Test func fetchedCompositeAndTextRowsAreOneInstanceEachUntilReleasedThenNewOnes() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE kmg_pair(a INTEGER NOT NULL, b INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (a, b))")
        try db.execute("CREATE TABLE kmg_code(code TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID")
        try db.execute("""
            WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r WHERE x < 4999)
            INSERT INTO kmg_pair SELECT x / 100 + 1, x % 100 + 1, x FROM r
            """)
        try db.execute("""
            WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r WHERE x < 4999)
            INSERT INTO kmg_code SELECT 'item-' || (x + 1), x FROM r
            """)
        var pairs = try db.objects(KMGPair.self)
        var codes = try db.objects(KMGCode.self)
        #expect(pairs.count == 5_000 && codes.count == 5_000)
        #expect(pairs.allSatisfy { $0.n == ($0.a - 1) * 100 + $0.b - 1 })
        #expect(codes.allSatisfy { $0.code == "item-\($0.n + 1)" })
        let pairRegistry = try #require(db.models.registries[ObjectIdentifier(KMGPair.self)])
        let codeRegistry = try #require(db.models.registries[ObjectIdentifier(KMGCode.self)])
        do {
            let pairsAgain = try db.objects(KMGPair.self)
            let codesAgain = try db.objects(KMGCode.self)
            #expect(zip(pairs, pairsAgain).allSatisfy { $0 === $1 } && zip(codes, codesAgain).allSatisfy { $0 === $1 })
        }
        #expect(pairRegistry.registeredIdentity(of: pairs[4_999]) == .pair(50, 100))
        #expect(codeRegistry.registeredIdentity(of: codes[0]) == IdentityKey(text: "item-1"))
        weak let firstPair = pairs[0]
        pairs = []; codes = []
        #expect(firstPair == nil)
        #expect(!pairRegistry.hasTextKeys && !codeRegistry.hasTextKeys && pairRegistry.liveInstances.isEmpty)
        let third = try db.objects(KMGPair.self, matching: ["a": Int64(2)])
        #expect(third.count == 100 && third.map(\.b) == Array(1...100) && pairRegistry.liveInstances.count == 100)
    }
}
