import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The identity map of rows whose key is not the rowid: a fetch reads a native integer-pair or text key from
// the key columns, returns the live instance without decoding the row, and registers new instances under
// their parts (issue 37). Each neighbour of the fast shapes goes through the decoded path.

private final class R19IKPair: Model {
    static let tableName = "r19ik_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    var name = ""
    required init() {}
}

private final class R19IKParent: Model {
    static let tableName = "r19ik_parent"
    var id: Int64 = 0
    required init() {}
}

private final class R19IKLink: Model {
    static let tableName = "r19ik_link"
    static let compositeKey = ["left", "right"]
    @Reference var left: R19IKParent?
    @Reference var right: R19IKParent?
    var weight = 0
    required init() {}
}

private final class R19IKMixed: Model {
    static let tableName = "r19ik_mixed"
    static let compositeKey = ["n", "code"]
    var n: Int64 = 0
    var code = ""
    var name = ""
    required init() {}
}

private final class R19IKCode: Model {
    static let tableName = "r19ik_code"
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

@Suite struct Review19IdentityKeyTests {
    @Test func aTwoIntegerKeyFetchesOneInstancePerRowAndALookupByKeyFindsIt() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE r19ik_pair(a INTEGER NOT NULL, b INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (a, b))")
        try db.execute("INSERT INTO r19ik_pair VALUES (1, 2, 'x'), (2, 1, 'y'), (1, 1, 'z')")
        let first = try db.objects(R19IKPair.self, matching: [:], orderBy: "a, b")
        #expect(first.map(\.name) == ["z", "x", "y"])
        let again = try db.objects(R19IKPair.self, matching: [:], orderBy: "b, a")
        #expect(again.map(\.name) == ["z", "y", "x"])
        #expect(again[0] === first[0] && again[1] === first[2] && again[2] === first[1])
        #expect(try db.object(R19IKPair.self, forKey: CompositeKey(1, 2)) === first[1])
        #expect(try db.object(R19IKPair.self, forKey: CompositeKey(2, 2)) == nil)
        // A live instance keeps its unsaved change through a fetch that meets its row (not decoded again).
        first[1].name = "changed"
        _ = try db.objects(R19IKPair.self)
        #expect(first[1].name == "changed" && first[1].hasChanges)
        // A save of a new object with a live instance's key is refused, naming the key.
        let duplicate = R19IKPair(); duplicate.a = 1; duplicate.b = 2
        #expect(throws: ModelError.self) { try db.save(duplicate) }
        // Raw SQL's change reaches the live instance found by its parts.
        try db.save(first[1])
        try db.execute("UPDATE r19ik_pair SET name = 'raw' WHERE a = 2 AND b = 1")
        #expect(first[2].name == "raw")
    }

    @Test func releasedInstancesLeaveTheMapAndTheNextFetchMakesNewOnesWithTheRowsValues() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE r19ik_code(code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL) WITHOUT ROWID")
        try db.execute("INSERT INTO r19ik_code VALUES ('a', 'one'), ('b', 'two')")
        weak var released: R19IKCode?
        do {
            let objects = try db.objects(R19IKCode.self, matching: [:], orderBy: "code")
            released = objects[0]
            #expect(objects.map(\.name) == ["one", "two"])
        }
        #expect(released == nil)
        try db.execute("UPDATE r19ik_code SET name = 'uno' WHERE code = 'a'")
        let fresh = try db.objects(R19IKCode.self, matching: [:], orderBy: "code")
        #expect(fresh.map(\.name) == ["uno", "two"])
        #expect(try db.object(R19IKCode.self, forKey: "a") === fresh[0])
        #expect(try db.object(R19IKCode.self, forKey: "A") == nil)
    }

    @Test func textKeysThatDifferOnlyInTheirBytesAreTwoInstances() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try db.execute("CREATE TABLE r19ik_code(code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL) WITHOUT ROWID")
        try db.execute("INSERT INTO r19ik_code VALUES (?, 'nfc'), (?, 'nfd')", "caf\u{E9}", "cafe\u{301}")
        let objects = try db.objects(R19IKCode.self, matching: [:], orderBy: "name")
        #expect(objects.count == 2)
        #expect(objects[0] !== objects[1])
        #expect(try db.objects(R19IKCode.self, matching: [:], orderBy: "name").map(\.name) == ["nfc", "nfd"])
        #expect(try db.object(R19IKCode.self, forKey: "cafe\u{301}")?.name == "nfd")
        // A number in the text key column (SQLite keeps what it was given) is decoded as text, one instance.
        try db.execute("INSERT INTO r19ik_code VALUES (5, 'number')")
        let number = try #require(try db.object(R19IKCode.self, forKey: "5"))
        #expect(number.name == "number")
        #expect(try db.objects(R19IKCode.self, where: "name = 'number'").first === number)
    }

    @Test func referenceKeysAndMixedKeysKeepOneInstancePerRow() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        let p1 = R19IKParent(), p2 = R19IKParent()
        try db.save(p1); try db.save(p2)
        let link = R19IKLink(); link.left = p1; link.right = p2; link.weight = 3
        try db.save(link)
        let fetched = try db.objects(R19IKLink.self)
        #expect(fetched.count == 1 && fetched[0] === link)
        #expect(fetched[0].left === p1 && fetched[0].right === p2)

        let mixed = R19IKMixed(); mixed.n = 7; mixed.code = "x"; mixed.name = "first"
        try db.save(mixed)
        #expect(try db.objects(R19IKMixed.self).first === mixed)
        #expect(try db.object(R19IKMixed.self, forKey: CompositeKey(7, "x")) === mixed)
        try db.delete(mixed)
        #expect(try db.object(R19IKMixed.self, forKey: CompositeKey(7, "x")) == nil)
    }

    @Test func aPoolReaderAndTheWriterEachKeepTheirOwnInstances() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in
            try db.execute("CREATE TABLE r19ik_pair(a INTEGER NOT NULL, b INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (a, b))")
            try db.execute("INSERT INTO r19ik_pair VALUES (1, 2, 'x')")
        }
        let same = try await pool.read { db in
            let one = try db.objects(R19IKPair.self), two = try db.objects(R19IKPair.self)
            return one.count == 1 && one[0] === two[0] && one[0].name == "x"
        }
        #expect(same)
        try await pool.write { db in
            let object = try #require(try db.object(R19IKPair.self, forKey: CompositeKey(1, 2)))
            object.name = "y"
            try db.save(object)
        }
        #expect(try await pool.read { db in try db.objects(R19IKPair.self).map(\.name) } == ["y"])
    }
}
