import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 6 of issue 9 (write integrity): the neighbours of its ten points — pools and the async API,
// other key layouts, all-or-nothing refreshes of other types, stored formats of single changes, NaN.

private final class R6Counter: Model {
    static let tableName = "counter"
    var id: Int64 = 0
    var name = ""
    var count = 0
    var note = ""
    required init() {}
}

/// Narrow integers, a UUID, a Bool and a Float: each decodes only some stored values.
private final class R6Narrow: Model {
    static let tableName = "narrow"
    var id: Int64 = 0
    var small: UInt8 = 0
    var medium: Int32 = 0
    var maybe: Int16?
    var token = UUID()
    var flag = false
    var ratio: Float = 0
    var label = ""
    required init() {}
}

private final class R6TextKeyed: Model {
    static let tableName = "texty"
    var id = ""
    var name = ""
    required init() {}
}

private final class R6TextKeyedNoRowID: Model {
    static let tableName = "texty_norowid"
    var id = ""
    var name = ""
    required init() {}
}

private final class R6BigKey: Model {
    static let tableName = "bigkey"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R6Pair: Model {
    static let tableName = "pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b = ""
    var value = ""
    required init() {}
}

private final class R6BlobKeyed: Model {
    static let tableName = "blobkeyed"
    var id = UUID()
    var name = ""
    required init() {}
}

private final class R6Keyed: Model {
    static let tableName = "keyed"
    var id = ""
    var name = ""
    var note = ""
    required init() {}
}

private final class R6Numbers: Model {
    static let tableName = "numbers"
    var id: Int64 = 0
    var x = 0.0
    var y = 0.0
    required init() {}
}

@Suite struct Review6WriteTests {
    // MARK: Pools and async

    @Test func asyncPoolWritesAndAHandleLoseNoIncrement() async throws {
        let temp = try TemporaryDatabase()
        let seed = R6Counter(); seed.name = "n"
        try temp.db.save(seed)
        let key = seed.id
        let pool = try DatabasePool(path: temp.path, readers: 2)
        let path = temp.path
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<50 {
                        try await pool.write { db in
                            let c = try #require(try db.object(R6Counter.self, forKey: key))
                            c.count += 1
                            try db.save(c)
                        }
                    }
                }
            }
            group.addTask {
                let db = try Database(path: path)
                let live = try #require(try db.object(R6Counter.self, forKey: key))
                for _ in 0..<50 {
                    try db.retryingOnConflict { live.count += 1; try db.save(live) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try temp.db.value(Int.self, "SELECT count FROM counter") == 150)
        let read = try await pool.read { db in try #require(try db.object(R6Counter.self, forKey: key)).count }
        #expect(read == 150)
        try await pool.close()
    }

    @Test func aHandlesLiveInstanceSeesAPoolsCommitAndBothColumnsPersist() async throws {
        let temp = try TemporaryDatabase()
        let seed = R6Counter(); seed.name = "n"; seed.note = "x"
        try temp.db.save(seed)
        let key = seed.id
        let pool = try DatabasePool(path: temp.path, readers: 1)
        seed.note = "handle"
        try await pool.write { db in
            let c = try #require(try db.object(R6Counter.self, forKey: key))
            c.name = "pool"
            try db.save(c)
        }
        #expect(try temp.db.object(R6Counter.self, forKey: key) === seed)
        #expect(seed.name == "pool" && seed.note == "handle")
        try temp.db.save(seed)
        let rows = try temp.db.rows("SELECT name, note FROM counter")
        #expect(rows[0]["name"] == .text("pool") && rows[0]["note"] == .text("handle"))
        // And a pool's reader reads the handle's commit.
        let fromPool = try await pool.read { db in try #require(try db.object(R6Counter.self, forKey: key)).note }
        #expect(fromPool == "handle")
        try await pool.close()
    }

    // MARK: All or nothing, other types

    @Test(arguments: [
        ("small", "300"), ("small", "-1"), ("medium", "4294967296"), ("maybe", "70000"),
        ("token", "'not-a-uuid'"), ("token", "x'00'"), ("flag", "'maybe'"),
        ("ratio", "'abc'"),
    ])
    func anUndecodableRawWriteLeavesTheInstanceWholeAndStale(column: String, value: String) throws {
        let temp = try TemporaryDatabase()
        let item = R6Narrow(); item.small = 1; item.medium = 2; item.label = "a"
        try temp.db.save(item)
        try temp.db.execute("UPDATE narrow SET label = 'raw', \"\(column)\" = \(value)")
        #expect(item.label == "a" && item.small == 1 && item.medium == 2)
        item.ratio = 0.5
        if column == "ratio" { item.small = 9 }
        let error = #expect(throws: ModelError.self) { try temp.db.save(item) }
        #expect(error?.kind == .stale)
        #expect(error?.property == column)
        #expect(try temp.db.value(String.self, "SELECT quote(\"\(column)\") FROM narrow") == (value == "'abc'" ? "'abc'" : try temp.db.value(String.self, "SELECT quote(\(value))")))
        #expect(try temp.db.value(String.self, "SELECT label FROM narrow") == "raw")
    }

    @Test func aRolledBackSavepointAroundAnUndecodableWriteLeavesTheInstanceUsable() throws {
        let temp = try TemporaryDatabase()
        let item = R6Narrow(); item.small = 1; item.label = "a"
        try temp.db.save(item)
        struct Undo: Error {}
        try temp.db.transaction {
            _ = try? temp.db.transaction {
                try temp.db.execute("UPDATE narrow SET small = 300, label = 'raw'")
                #expect(throws: ModelError.self) { try temp.db.object(R6Narrow.self, forKey: item.id) }
                throw Undo()
            }
            #expect(try temp.db.object(R6Narrow.self, forKey: item.id) === item)
            #expect(item.small == 1 && item.label == "a")
            item.medium = 7
            try temp.db.save(item)
        }
        let row = try temp.db.rows("SELECT small, medium, label FROM narrow")[0]
        #expect(row["small"] == .integer(1) && row["medium"] == .integer(7) && row["label"] == .text("a"))
    }

    @Test func aRolledBackScriptWithAnUndecodableWriteLeavesTheInstanceUsable() throws {
        let temp = try TemporaryDatabase()
        let item = R6Narrow(); item.small = 1; item.label = "a"
        try temp.db.save(item)
        #expect(throws: (any Error).self) {
            try temp.db.execute("BEGIN; UPDATE narrow SET small = 300, label = 'raw'; INSERT INTO nope VALUES (1)")
        }
        try temp.db.execute("ROLLBACK")
        #expect(try temp.db.object(R6Narrow.self, forKey: item.id) === item)
        item.medium = 7
        try temp.db.save(item)
        let row = try temp.db.rows("SELECT small, medium, label FROM narrow")[0]
        #expect(row["small"] == .integer(1) && row["medium"] == .integer(7) && row["label"] == .text("a"))
    }

    // MARK: Key layouts

    @Test(arguments: [
        "CREATE TABLE texty (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE texty (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID",
    ])
    func aRawReKeyOfATextKeyIsADeleteAndItsRollbackBringsTheInstanceBack(ddl: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(ddl)
        let a = R6TextKeyed(); a.id = "a"; a.name = "first"
        try temp.db.save(a)
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try temp.db.transaction {
                try temp.db.execute("UPDATE texty SET id = 'b' WHERE id = 'a'")
                #expect(a.isDeleted)
                let b = try #require(try temp.db.object(R6TextKeyed.self, forKey: "b"))
                #expect(b !== a && b.name == "first")
                throw Undo()
            }
        }
        #expect(!a.isDeleted)
        #expect(try temp.db.object(R6TextKeyed.self, forKey: "a") === a)
        #expect(try temp.db.object(R6TextKeyed.self, forKey: "b") == nil)
        a.name = "again"
        try temp.db.save(a)
        #expect(try temp.db.rows("SELECT id, name FROM texty").map { "\($0["id"]!) \($0["name"]!)" } == ["text 'a' text 'again'"])
        // Re-keyed for good: saving never re-creates 'a'.
        try temp.db.execute("UPDATE texty SET id = 'c' WHERE id = 'a'")
        #expect(a.isDeleted)
        a.name = "resurrected?"
        #expect(throws: ModelError.self) { try temp.db.save(a) }
        #expect(try temp.db.column(String.self, "SELECT id FROM texty") == ["c"])
    }

    @Test(arguments: [
        "CREATE TABLE blobkeyed (id BLOB PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE blobkeyed (id BLOB PRIMARY KEY, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID",
        "CREATE TABLE blobkeyed (id char(32) PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE blobkeyed (id char(36) PRIMARY KEY, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID",
    ])
    func uuidKeysInEachFormatFollowRawReKeysReplacesAndDeletes(ddl: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(ddl)
        let seeded = R6BlobKeyed(); seeded.name = "seed"
        try temp.db.save(seeded)
        let typeofKey = try temp.db.value(String.self, "SELECT typeof(id) FROM blobkeyed")
        let db = try temp.reopen()
        let a = R6BlobKeyed(); a.name = "a"
        let b = R6BlobKeyed(); b.name = "b"
        try db.save([a, b])
        #expect(try db.column(String.self, "SELECT DISTINCT typeof(id) FROM blobkeyed") == [typeofKey ?? "?"])
        // A raw INSERT OR REPLACE of a's key (bound in the column's format): a's instance follows its row.
        let stored = try #require(try db.rows("SELECT id FROM blobkeyed WHERE name = 'a'").first?["id"])
        try db.execute("INSERT OR REPLACE INTO blobkeyed (id, name) VALUES (?, 'replaced')", stored)
        #expect(!a.isDeleted && a.name == "replaced")
        // A raw delete of b: its instance is deleted; a save does not bring it back.
        try db.execute("DELETE FROM blobkeyed WHERE name = 'b'")
        #expect(b.isDeleted)
        b.name = "back?"
        #expect(throws: ModelError.self) { try db.save(b) }
        #expect(try db.column(String.self, "SELECT name FROM blobkeyed ORDER BY name") == ["replaced", "seed"])
        // Fetch by key in each format finds a.
        let again = try temp.reopen()
        #expect(try again.object(R6BlobKeyed.self, forKey: a.id)?.name == "replaced")
    }

    @Test(arguments: [
        "CREATE TABLE bigkey (id bigint NOT NULL PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE bigkey (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID",
        "CREATE TABLE bigkey (id INT PRIMARY KEY DESC, name TEXT NOT NULL DEFAULT '')",
    ])
    func aRolledBackInsertOfANonAliasKeyGivesTheKeyBackAndTheNextSaveChoosesAgain(ddl: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(ddl)
        let first = R6BigKey(); first.name = "first"
        try temp.db.save(first)
        #expect(first.id == 1)
        let item = R6BigKey(); item.name = "mine"
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try temp.db.transaction { try temp.db.save(item); #expect(item.id == 2); throw Undo() }
        }
        #expect(item.id == 0)
        let other = try Database(path: temp.path)
        let theirs = R6BigKey(); theirs.name = "theirs"
        try other.save(theirs)
        #expect(theirs.id == 2)
        try temp.db.save(item)
        #expect(item.id == 3)
        #expect(try temp.db.rows("SELECT id, name FROM bigkey ORDER BY id").map { "\($0["id"]!) \($0["name"]!)" }
                == ["integer 1 text 'first'", "integer 2 text 'theirs'", "integer 3 text 'mine'"])
    }

    @Test func aRawReKeyOfACompositeKeyReachesTheLiveInstance() throws {
        let temp = try TemporaryDatabase()
        let p = R6Pair(); p.a = 1; p.b = "x"; p.value = "v"
        try temp.db.save(p)
        try temp.db.execute("UPDATE pair SET b = 'y'")
        #expect(p.isDeleted)
        p.value = "w"
        #expect(throws: ModelError.self) { try temp.db.save(p) }
        #expect(try temp.db.rows("SELECT a, b, value FROM pair").map { "\($0["b"]!) \($0["value"]!)" } == ["text 'y' text 'v'"])
    }

    // MARK: NaN and infinities

    @Test func infinitiesRoundTripAndNaNIsRefusedOnInsertAndUpdateOfEveryShape() throws {
        let temp = try TemporaryDatabase()
        let n = R6Numbers(); n.x = .infinity; n.y = -.infinity
        try temp.db.save(n)
        #expect(try temp.db.rows("SELECT x, y FROM numbers")[0]["x"] == .real(.infinity))
        let again = try #require(try temp.reopen().object(R6Numbers.self, forKey: n.id))
        #expect(again.x == .infinity && again.y == -.infinity && !again.hasChanges)
        again.y = .nan
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(again) }
        #expect(error?.property == "y")
        let fresh = R6Numbers(); fresh.x = .nan
        let insertError = #expect(throws: ValueConversionError.self) { try temp.db.save(fresh) }
        #expect(insertError?.property == "x")
        let narrow = R6Narrow(); narrow.ratio = .nan
        let floatError = #expect(throws: ValueConversionError.self) { try temp.db.save(narrow) }
        #expect(floatError?.property == "ratio")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM numbers") == 1)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM numbers WHERE y IS NULL OR x IS NULL") == 0)
    }

    // MARK: Probes 2

    @Test func storedValuesOfAnotherClassAreNoChangeAfterARead() throws {
        final class Loose: Model {
            static let tableName = "loose"
            var id: Int64 = 0
            var flag = false
            var text = ""
            var real = 0.0
            var int = 0
            var token = UUID()
            var stamp = Date(timeIntervalSince1970: 0)
            var small: Int32 = 0
            var maybeText: String?
            var maybeReal: Double?
            var maybeInt: Int64?
            required init() {}
        }
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE loose (id INTEGER PRIMARY KEY, flag, text, real, int, token, stamp, small, maybeText, maybeReal, maybeInt);
            INSERT INTO loose VALUES (1, 1, 'a', 1.5, 1, '0f8fad5b-d9cb-469f-a165-70867728950e', 1.5, 1, 'a', 1.5, 1);
            INSERT INTO loose VALUES (2, 0, 5, 3, '12', '0F8FAD5B-D9CB-469F-A165-70867728950E', 7, 7.0, 5, 3, '12');
            INSERT INTO loose VALUES (3, 'true', 5.5, '2.5', 7.0, x'0f8fad5bd9cb469fa16570867728950e', '2024-01-02 03:04:05', '8', 5.5, '2.5', 7.0);
            """)
        let db = try temp.reopen()
        for key in [2, 3] as [Int64] {
            let before = try db.rows("SELECT * FROM loose WHERE id = ?", key)[0]
            let row = try #require(try db.object(Loose.self, forKey: key))
            #expect(row.changedProperties == [], "row \(key)")
            row.int += 1
            try db.save(row)
            let after = try db.rows("SELECT * FROM loose WHERE id = ?", key)[0]
            for column in ["flag", "text", "real", "token", "stamp", "small", "maybeText", "maybeReal", "maybeInt"] {
                #expect(after[column] == before[column], "row \(key) column \(column)")
            }
        }
    }

    /// SQLite's update hook says nothing of WITHOUT ROWID tables: a write through a bare `Statement` (which
    /// `execute` would have followed by reloading their live instances) must reach them too.
    @Test func aBareStatementsWriteToAWithoutRowIDTableReachesLiveInstances() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE keyed (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '') WITHOUT ROWID")
        let a = R6Keyed(); a.id = "a"; a.name = "mine"
        let b = R6Keyed(); b.id = "b"; b.name = "other"
        try temp.db.save([a, b])
        try temp.db.statement("UPDATE keyed SET name = 'raw' WHERE id = 'b'").run()
        #expect(try temp.db.object(R6Keyed.self, forKey: "b") === b)
        #expect(b.name == "raw" && !b.hasChanges)
        // Re-keyed by a bare statement: the instance no longer owns a row, and its save re-creates none.
        a.note = "unsaved"
        try temp.db.statement("UPDATE keyed SET id = 'c' WHERE id = 'a'").run()
        let error = #expect(throws: ModelError.self) { try temp.db.save(a) }
        #expect(error?.kind == .deleted || error?.kind == .notFound)
        #expect(a.isDeleted)
        // Deleted by one: the same.
        try temp.db.statement("DELETE FROM keyed WHERE id = 'b'").run()
        #expect(try temp.db.objects(R6Keyed.self).map(\.id) == ["c"])
        #expect(b.isDeleted)
        #expect(try temp.db.rows("SELECT id, name, note FROM keyed ORDER BY id").map { "\($0["id"]!) \($0["name"]!) \($0["note"]!)" }
                == ["text 'c' text 'mine' text ''"])
    }

    /// A rowid table keyed otherwise: raw SQL re-keys a row and another row takes the old key, in one
    /// script. The update hook said which row the instance had (its rowid now holds the new key): the
    /// instance is the re-keyed row's, so it is marked deleted and never writes into the row that took its
    /// key. (An INSERT OR REPLACE, whose old row is gone, is still followed.)
    @Test(arguments: [
        "CREATE TABLE keyed (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE keyed (id varchar(10) NOT NULL UNIQUE PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '')",
    ])
    func aRawReKeyThenAnInsertOfTheOldKeyLeavesTheInstanceDeleted(ddl: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(ddl)
        let a = R6Keyed(); a.id = "a"; a.name = "mine"
        try temp.db.save(a)
        a.note = "unsaved"
        try temp.db.execute("UPDATE keyed SET id = 'c' WHERE id = 'a'; INSERT INTO keyed (id, name) VALUES ('a', 'someone else')")
        #expect(a.isDeleted)
        #expect(a.name == "mine" && a.note == "unsaved")
        let error = #expect(throws: ModelError.self) { try temp.db.save(a) }
        #expect(error?.kind == .deleted)
        let other = try #require(try temp.db.object(R6Keyed.self, forKey: "a"))
        #expect(other !== a && other.name == "someone else" && other.note == "")
        #expect(try temp.db.rows("SELECT id, name, note FROM keyed ORDER BY id").map { "\($0["id"]!) \($0["name"]!) \($0["note"]!)" }
                == ["text 'a' text 'someone else' text ''", "text 'c' text 'mine' text ''"])
    }

    @Test func aRawReKeyThenAnInsertOfTheOldKeyOfACompositeKeyLeavesTheInstanceDeleted() throws {
        let temp = try TemporaryDatabase()
        let p = R6Pair(); p.a = 1; p.b = "x"; p.value = "mine"
        try temp.db.save(p)
        p.value = "unsaved"
        try temp.db.execute("UPDATE pair SET b = 'y'; INSERT INTO pair (a, b, value) VALUES (1, 'x', 'someone else')")
        #expect(p.isDeleted)
        #expect(throws: ModelError.self) { try temp.db.save(p) }
        #expect(try temp.db.rows("SELECT b, value FROM pair ORDER BY b").map { "\($0["b"]!) \($0["value"]!)" }
                == ["text 'x' text 'someone else'", "text 'y' text 'mine'"])
    }

    @Test func deleteAllOnWithoutRowIDAndCompositeKeysReachesLiveInstancesAndItsRollbackBringsThemBack() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE texty_norowid (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID")
        let a = R6TextKeyedNoRowID(); a.id = "a"; a.name = "x"
        let b = R6TextKeyedNoRowID(); b.id = "b"; b.name = "y"
        let p = R6Pair(); p.a = 1; p.b = "x"
        try temp.db.save([a, b])
        try temp.db.save(p)
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try temp.db.transaction {
                #expect(try temp.db.deleteAll(R6TextKeyedNoRowID.self, where: "WHERE id = ?", "a") == 1)
                #expect(try temp.db.deleteAll(R6Pair.self) == 1)
                #expect(a.isDeleted && !b.isDeleted && p.isDeleted)
                throw Undo()
            }
        }
        #expect(!a.isDeleted && !p.isDeleted)
        a.name = "kept"
        try temp.db.save(a)
        #expect(try temp.db.value(String.self, "SELECT name FROM texty_norowid WHERE id = 'a'") == "kept")
    }

    @Test func aClosedPoolsOtherCallsThrow() async throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try await pool.close()
        #expect(throws: (any Error).self) { try pool.backup(to: temp.folder.appendingPathComponent("copy.sqlite").path) }
        var thrown = false
        do { for try await _ in pool.observe({ db in try db.rows("SELECT 1").count }) {} } catch { thrown = true }
        #expect(thrown)
    }

    // MARK: More guards

    @Test func aFloatReadFromARealIsNoChangeAndItsColumnIsLeftAsItIs() throws {
        final class Gauge: Model {
            static let tableName = "gauge"
            var id: Int64 = 0
            var level: Float = 0
            var maybe: Float?
            var name = ""
            required init() {}
        }
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE gauge (id INTEGER PRIMARY KEY, level REAL NOT NULL, maybe REAL, name TEXT NOT NULL); INSERT INTO gauge VALUES (1, 0.1, 0.3, 'g')")
        let g = try #require(try temp.db.object(Gauge.self, forKey: 1))
        #expect(g.changedProperties == [])
        g.name = "h"
        try temp.db.save(g)
        #expect(try temp.db.value(String.self, "SELECT quote(level) || ' ' || quote(maybe) FROM gauge") == "0.1 0.3")
        let other = try Database(path: temp.path)
        try other.execute("UPDATE gauge SET name = 'other'")
        g.level = 2
        try temp.db.save(g)
        #expect(try temp.db.value(String.self, "SELECT quote(level) || ' ' || quote(maybe) || ' ' || name FROM gauge") == "2.0 0.3 other")
    }

    @Test(arguments: [
        "CREATE TABLE keyed (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE keyed (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '') WITHOUT ROWID",
    ])
    func aConflictOverATextKeyNamesModelKeyAndColumnAndTheRetryHelperApplies(ddl: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(ddl)
        let a = R6Keyed(); a.id = "k1"; a.name = "mine"
        try temp.db.save(a)
        let other = try Database(path: temp.path)
        try other.execute("UPDATE keyed SET name = 'theirs', note = 'n'")
        a.name = "changed"
        let error = #expect(throws: ModelError.self) { try temp.db.save(a) }
        #expect(error?.kind == .conflict)
        #expect(error?.key == .text("k1"))
        #expect(error?.model == "R6Keyed")
        #expect(error?.properties == ["name"])
        #expect(a.name == "theirs" && a.note == "n")
        try temp.db.retryingOnConflict { a.name += "+"; try temp.db.save(a) }
        #expect(try temp.db.value(String.self, "SELECT name || note FROM keyed") == "theirs+n")
    }

    @Test func keysSwappedByRawSQLLeaveBothInstancesDeleted() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE keyed (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '')")
        let a = R6Keyed(); a.id = "a"; a.name = "A"
        let b = R6Keyed(); b.id = "b"; b.name = "B"
        try temp.db.save([a, b])
        try temp.db.execute("UPDATE keyed SET id = 'tmp' WHERE id = 'a'; UPDATE keyed SET id = 'a' WHERE id = 'b'; UPDATE keyed SET id = 'b' WHERE id = 'tmp'")
        #expect(a.isDeleted && b.isDeleted)
        #expect(a.name == "A" && b.name == "B")
    }

    /// One legacy row with a column in each format another tool writes; a save of one changed property
    /// writes that column in its own format and leaves every other column byte-identical.
    @Test(arguments: ["django", "dateOnly", "isoZ", "isoMillisZ", "seconds", "millis", "real", "hex", "dashedUpper", "blob", "boolText", "boolInt"])
    func aSaveOfOneChangedPropertyKeepsItsColumnsFormatAndLeavesTheOthers(property: String) throws {
        final class Legacy: Model {
            static let tableName = "legacy"
            var id: Int64 = 0
            var django = Date(timeIntervalSince1970: 0)
            var dateOnly = Date(timeIntervalSince1970: 0)
            var isoZ = Date(timeIntervalSince1970: 0)
            var isoMillisZ = Date(timeIntervalSince1970: 0)
            var seconds = Date(timeIntervalSince1970: 0)
            var millis = Date(timeIntervalSince1970: 0)
            var real = Date(timeIntervalSince1970: 0)
            var hex = UUID()
            var dashedUpper = UUID()
            var blob = UUID()
            var boolText = false
            var boolInt = false
            required init() {}
        }
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE legacy (id INTEGER PRIMARY KEY, django datetime, dateOnly date, isoZ TEXT, isoMillisZ TEXT, seconds INTEGER,
                millis INTEGER, real REAL, hex char(32), dashedUpper varchar(36), blob BLOB, boolText TEXT, boolInt bool);
            INSERT INTO legacy VALUES (1, '2001-02-03 04:05:06.789000', '1999-12-31', '2020-01-02T03:04:05Z', '2020-01-02T03:04:05.123Z',
                1577934245, 1577934245123, 1577934245.5, '0f8fad5bd9cb469fa16570867728950e', '0F8FAD5B-D9CB-469F-A165-70867728950E',
                x'0f8fad5bd9cb469fa16570867728950e', 'f', 0);
            """)
        let columns = ["django", "dateOnly", "isoZ", "isoMillisZ", "seconds", "millis", "real", "hex", "dashedUpper", "blob", "boolText", "boolInt"]
        func stored() throws -> [String: String] {
            var result: [String: String] = [:]
            for c in columns { result[c] = try temp.db.value(String.self, "SELECT typeof(\"\(c)\") || ' ' || quote(\"\(c)\") FROM legacy") }
            return result
        }
        let before = try stored()
        let row = try #require(try temp.db.object(Legacy.self, forKey: 1))
        #expect(row.changedProperties == [])
        let when = Date(timeIntervalSince1970: 1_700_000_000.25)
        let token = try #require(UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7"))
        switch property {
        case "django": row.django = when
        case "dateOnly": row.dateOnly = Date(timeIntervalSince1970: 1_700_006_400)
        case "isoZ": row.isoZ = Date(timeIntervalSince1970: 1_700_000_000)
        case "isoMillisZ": row.isoMillisZ = when
        case "seconds": row.seconds = Date(timeIntervalSince1970: 1_700_000_000)
        case "millis": row.millis = when
        case "real": row.real = when
        case "hex": row.hex = token
        case "dashedUpper": row.dashedUpper = token
        case "blob": row.blob = token
        case "boolText": row.boolText = true
        default: row.boolInt = true
        }
        #expect(row.changedProperties == [property])
        try temp.db.save(row)
        let after = try stored()
        let expected: [String: String] = [
            "django": "text '2023-11-14 22:13:20.250000'", "dateOnly": "text '2023-11-15'", "isoZ": "text '2023-11-14T22:13:20Z'",
            "isoMillisZ": "text '2023-11-14T22:13:20.250Z'", "seconds": "integer 1700000000", "millis": "integer 1700000000250",
            "real": "real 1700000000.25", "hex": "text '7c9e6679742540de944be07fc1f90ae7'",
            "dashedUpper": "text '7C9E6679-7425-40DE-944B-E07FC1F90AE7'", "blob": "blob X'7C9E6679742540DE944BE07FC1F90AE7'",
            "boolText": "text 't'", "boolInt": "integer 1",
        ]
        #expect(after[property] == expected[property])
        for c in columns where c != property { #expect(after[c] == before[c], "\(c)") }
        #expect(!row.hasChanges)
        let again = try #require(try temp.reopen().object(Legacy.self, forKey: 1))
        #expect(again.changedProperties == [])
    }

    /// The check that an UPDATE re-keyed an instance's row must not take a plain raw update for one, in any
    /// key layout of a rowid table keyed otherwise.
    @Test func aRawUpdateOfOtherColumnsKeepsInstancesOfEveryNonRowIDKeyLive() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE bigkey (id bigint NOT NULL PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE blobkeyed (id BLOB PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE keyed (id varchar(10) COLLATE NOCASE PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '');
            """)
        let big = R6BigKey(); big.name = "b"
        let blob = R6BlobKeyed(); blob.name = "u"
        let text = R6Keyed(); text.id = "Key"; text.name = "t"
        let pair = R6Pair(); pair.a = 7; pair.b = "x"
        try temp.db.save(big); try temp.db.save(blob); try temp.db.save(text); try temp.db.save(pair)
        try temp.db.execute("UPDATE bigkey SET name = 'raw'; UPDATE blobkeyed SET name = 'raw'; UPDATE keyed SET name = 'raw'; UPDATE pair SET value = 'raw'")
        #expect(!big.isDeleted && big.name == "raw")
        #expect(!blob.isDeleted && blob.name == "raw")
        #expect(!text.isDeleted && text.name == "raw")
        #expect(!pair.isDeleted && pair.value == "raw")
        // Setting a key to the value it has (the same key, or one its collation equates) is no re-key.
        try temp.db.execute("UPDATE bigkey SET id = id, name = 'same'; UPDATE pair SET a = a, value = 'same'")
        #expect(!big.isDeleted && big.name == "same" && !pair.isDeleted && pair.value == "same")
        // A key changed in case only, under NOCASE: re-keyed too (the instance's key property could no longer
        // hold its registered key); the row's new instance is saved as any other.
        try temp.db.execute("UPDATE keyed SET id = 'KEY', name = 'case'")
        #expect(text.isDeleted && text.id == "Key")
        let renamed = try #require(try temp.db.object(R6Keyed.self, forKey: "KEY"))
        #expect(renamed !== text && renamed.id == "KEY" && renamed.name == "case")
        renamed.note = "saved"
        try temp.db.save(renamed)
        #expect(try temp.db.value(String.self, "SELECT id || ' ' || name || ' ' || note FROM keyed") == "KEY case saved")
    }
}
