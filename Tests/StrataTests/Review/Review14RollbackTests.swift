import Dispatch
import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 14 (second reader of the rollback rule for failed saves, commit 35f811a): inside a transaction
// block that rolls back, the instances it saved and those whose save failed in it read their rows again;
// instances it did not try to save keep their unsaved changes; a save of its own that fails keeps the edits.
// Probed over every kind of failure, key layout, relationship and batch, and the pool's and raw SQL's paths.

private final class R14Item: Model {
    static let tableName = "r14_item"
    var id: Int64 = 0
    var name = ""
    var qty = 0
    var note: String?
    required init() {}
}

/// Numbers only: saved through the plain-words path.
private final class R14Gauge: Model {
    static let tableName = "r14_gauge"
    var id: Int64 = 0
    var level = 0
    var reading = 0.0
    required init() {}
}

private final class R14Coded: Model {
    static let tableName = "r14_coded"
    var id = ""
    var name = ""
    var qty = 0
    required init() {}
}

private final class R14Tokened: Model {
    static let tableName = "r14_tokened"
    var id = UUID()
    var name = ""
    var qty = 0
    required init() {}
}

private final class R14Pair: Model {
    static let tableName = "r14_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b = ""
    var name = ""
    var qty = 0
    required init() {}
}

private final class R14Team: Model {
    static let tableName = "r14_team"
    var id: Int64 = 0
    var name = ""
    @Children(by: "team", orderBy: "name") var members: [R14Member]
    required init() {}
}

private final class R14Member: Model {
    static let tableName = "r14_member"
    var id: Int64 = 0
    var name = ""
    @Reference var team: R14Team?
    required init() {}
}

private final class R14Post: Model {
    static let tableName = "r14_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "r14_post_tag", from: "post_id", to: "tag_id") var tags: [R14Tag]
    required init() {}
}

private final class R14Tag: Model {
    static let tableName = "r14_tag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// Refers to its own type: a batch of new ones that refer to each other is inserted in an InsertionOrder.
private final class R14Node: Model {
    static let tableName = "r14_node"
    var id: Int64 = 0
    var name = ""
    @Reference var next: R14Node?
    required init() {}
}

/// Matched to existing rows by `serverID` when saved new (an upsert key).
private final class R14Synced: Model {
    static let tableName = "r14_synced"
    static let upsertKeys = ["serverID"]
    var id: Int64 = 0
    var serverID = ""
    var slug = ""
    required init() {}
}

private struct Undo: Error {}

/// Tables with a UNIQUE name, a CHECK on qty and a trigger refusing qty 666.
/// Two ways SQLite ends a transaction itself when an update of `r14_item` sets qty above 2 (a trigger's
/// RAISE(ROLLBACK), an ON CONFLICT ROLLBACK constraint), each with the statement that removes it.
private let transactionEndingGuards: [(create: String, drop: String)] = [
    ("CREATE TRIGGER r14_item_guard BEFORE UPDATE ON r14_item WHEN NEW.qty > 2 BEGIN SELECT RAISE(ROLLBACK, 'too many'); END", "DROP TRIGGER r14_item_guard"),
    ("CREATE TABLE r14_cap (qty INTEGER UNIQUE ON CONFLICT ROLLBACK); INSERT INTO r14_cap VALUES (3); CREATE TRIGGER r14_item_cap AFTER UPDATE ON r14_item BEGIN INSERT INTO r14_cap VALUES (NEW.qty); END", "DROP TRIGGER r14_item_cap"),
]

private func itemDatabase() throws -> TemporaryDatabase {
    let temp = try TemporaryDatabase()
    try temp.db.execute("""
        CREATE TABLE r14_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL CHECK (qty >= 0), note TEXT);
        CREATE TRIGGER r14_item_refuse BEFORE UPDATE ON r14_item WHEN NEW.qty = 666 BEGIN SELECT RAISE(ABORT, 'qty 666 refused'); END;
        INSERT INTO r14_item (name, qty, note) VALUES ('a', 1, 'n'), ('b', 2, 'n');
        """)
    return temp
}

@Suite struct Review14RollbackTests {
    // MARK: Saves of one instance that take more than one statement

    @Test func aNewObjectReferringToItselfWhoseUpdateFailsInABlockWritesNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        // The insert (self-reference unset) passes; the UPDATE that sets it breaks the CHECK.
        try db.execute("CREATE TABLE r14_node (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, next INTEGER REFERENCES r14_node (id) CHECK (next IS NULL OR next <> id))")
        let a = R14Node(); a.name = "a"; a.next = a
        try db.transaction {
            #expect(throws: (any Error).self) { try db.save(a) }
            // As outside a block: nothing written, the instance unsaved with its values.
            let rows = try db.value(Int.self, "SELECT count(*) FROM r14_node")
            #expect(rows == 0)
            #expect(a.id == 0 && a.next === a && a.name == "a")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_node") == 0)
        #expect(throws: (any Error).self) { try db.save(a) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_node") == 0)
        #expect(a.id == 0 && a.next === a)
    }

    @Test func aNewObjectAdoptingARowWhoseUpdateFailsInABlockStaysNewWithItsOwnKey() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14_synced (id INTEGER PRIMARY KEY, serverID TEXT NOT NULL UNIQUE, slug TEXT NOT NULL UNIQUE);
            INSERT INTO r14_synced VALUES (1, 's1', 'one'), (2, 's2', 'two');
            """)
        let incoming = R14Synced(); incoming.serverID = "s1"; incoming.slug = "two"   // slug taken by row 2
        try db.transaction {
            #expect(throws: ModelError.self) { try db.save(incoming) }
            // As outside a block: the save took nothing, the instance is new with its own key.
            #expect(incoming.id == 0 && incoming.slug == "two")
        }
        #expect(incoming.id == 0)
        let one = try #require(try db.object(R14Synced.self, forKey: 1))
        #expect(one !== incoming && one.slug == "one")
        // Outside a block, the same.
        let again = R14Synced(); again.serverID = "s2"; again.slug = "one"
        #expect(throws: ModelError.self) { try db.save(again) }
        #expect(again.id == 0 && again.slug == "one")
    }

    @Test func aStaleInstanceRefusedInABlockStaysStaleAndItsBystandersKeepTheirEdits() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let b = try #require(try db.object(R14Item.self, forKey: 2))
        b.note = "unsaved"
        let other = try Database(path: temp.path)
        try other.execute("UPDATE r14_item SET qty = 'lots' WHERE id = 1")   // another tool: no Int
        let error = #expect(throws: ModelError.self) {
            try db.transaction { a.name = "z"; try db.save(a) }
        }
        #expect(error?.kind == .stale)
        #expect(b.note == "unsaved" && b.changedProperties == ["note"])
        try other.execute("UPDATE r14_item SET qty = 3 WHERE id = 1")
        #expect(try db.object(R14Item.self, forKey: 1) === a)
        #expect(a.qty == 3)
        try db.transaction { a.name = "z"; try db.save(a) }
        #expect(try db.value(String.self, "SELECT name FROM r14_item WHERE id = 1") == "z")
    }

    // MARK: Batches inside a block

    @Test func aFailedBatchCaughtInsideABlockKeepsTheEditsOfEveryInstanceOfIt() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let b = try #require(try db.object(R14Item.self, forKey: 2))
        try db.transaction {
            a.qty = 10
            b.qty = 20; b.name = "a"                    // a's name: the batch fails at b
            #expect(throws: ModelError.self) { try db.save([a, b]) }
            // The batch wrote nothing and, as a failed save of a single instance in a block, took nothing.
            #expect(a.qty == 10 && a.hasChanges)
            #expect(b.qty == 20 && b.name == "a" && b.hasChanges)
            b.name = "b"
            try db.save([a, b])
        }
        #expect(try db.rows("SELECT qty FROM r14_item ORDER BY id").map { $0[0] } == [.integer(10), .integer(20)])
        #expect(!a.hasChanges && !b.hasChanges)
    }

    @Test func aFailedBatchThenARolledBackBlockGivesEveryInstanceOfItItsRow() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let b = try #require(try db.object(R14Item.self, forKey: 2))
        #expect(throws: ModelError.self) {
            try db.transaction {
                a.qty = 10
                b.qty = 20; b.name = "a"
                try db.save([a, b])
            }
        }
        #expect(a.qty == 1 && !a.hasChanges && b.qty == 2 && b.name == "b" && !b.hasChanges)
    }

    @Test func aFailedBatchOfPlainNumberModelsCaughtInABlockKeepsTheirEdits() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r14_gauge (id INTEGER PRIMARY KEY, level INTEGER NOT NULL, reading REAL NOT NULL); INSERT INTO r14_gauge VALUES (1, 1, 0.5), (2, 2, 0.25)")
        let gauges = try db.objects(R14Gauge.self, where: "1 ORDER BY id")
        try db.transaction {
            gauges[0].level = 10
            gauges[1].level = 20; gauges[1].reading = .nan
            do { try db.save(gauges) } catch {}
            #expect(gauges[0].level == 10 && gauges[0].changedProperties == ["level"])
            #expect(gauges[1].level == 20 && gauges[1].reading.isNaN)
            gauges[1].reading = 1
            try db.save(gauges)
        }
        #expect(try db.rows("SELECT level, reading FROM r14_gauge ORDER BY id").map { [$0[0], $0[1]] }
                == [[.integer(10), .real(0.5)], [.integer(20), .real(1)]])
        #expect(!gauges[0].hasChanges && !gauges[1].hasChanges)
    }

    // MARK: Every kind of failure

    @Test(arguments: ["unique", "check", "trigger", "nan"])
    func eachFailureInABlockGivesTheTriedInstanceItsRowAndLeavesBystanders(kind: String) throws {
        let temp = try itemDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r14_gauge (id INTEGER PRIMARY KEY, level INTEGER NOT NULL, reading REAL NOT NULL); INSERT INTO r14_gauge VALUES (1, 1, 0.5)")
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let bystander = try #require(try db.object(R14Item.self, forKey: 2))
        let gauge = try #require(try db.object(R14Gauge.self, forKey: 1))
        bystander.note = "unsaved"
        var attempts = 0
        func block() throws {
            attempts += 1
            a.note = "edited"
            switch kind {
            case "unique": a.name = "b"
            case "check": a.qty = -1
            case "trigger": a.qty = 666
            default: gauge.level += 1; gauge.reading = .nan
            }
            if kind == "nan" { try db.save(gauge) } else { try db.save(a) }
        }
        #expect(throws: (any Error).self) { try db.transaction { try block() } }
        if kind == "nan" {
            #expect(a.note == "edited" && a.changedProperties == ["note"])   // edited, never saved by the block
        } else {
            #expect(a.name == "a" && a.qty == 1 && a.note == "n" && !a.hasChanges)
        }
        #expect(gauge.level == 1 && gauge.reading == 0.5 && !gauge.hasChanges)
        #expect(bystander.note == "unsaved" && bystander.changedProperties == ["note"])
        // Outside a block, the same failure keeps every edit.
        #expect(throws: (any Error).self) { try block() }
        #expect(a.note == "edited" && a.hasChanges)
        if kind == "nan" { #expect(gauge.level == 2 && gauge.reading.isNaN) }
        #expect(try db.rows("SELECT name, qty, note FROM r14_item WHERE id = 1").first.map { [$0[0], $0[1], $0[2]] }
                == [.text("a"), .integer(1), .text("n")])
        #expect(try db.value(Int.self, "SELECT level FROM r14_gauge") == 1)
    }

    @Test(arguments: transactionEndingGuards.map(\.create))
    func aSaveWhoseFailureRolledBackTheWholeBlockGivesTheInstanceItsRow(ddl: String) throws {
        let temp = try itemDatabase()
        let db = temp.db
        try db.execute(ddl)
        let a = try #require(try db.object(R14Item.self, forKey: 2))   // qty 2
        let bystander = try #require(try db.object(R14Item.self, forKey: 1))
        bystander.note = "unsaved"
        // SQLite ends the block's transaction itself (RAISE(ROLLBACK), an ON CONFLICT ROLLBACK constraint).
        #expect(throws: (any Error).self) {
            try db.transaction { a.qty += 1; try db.save(a) }
        }
        #expect(a.qty == 2 && !a.hasChanges)
        #expect(bystander.note == "unsaved" && bystander.changedProperties == ["note"])
        #expect(throws: (any Error).self) {
            try db.transaction { a.qty += 1; a.name = "c"; try db.save([a]) }
        }
        #expect(a.qty == 2 && a.name == "b" && !a.hasChanges)
        // A save of its own keeps its edits.
        a.qty += 1
        #expect(throws: (any Error).self) { try db.save(a) }
        #expect(a.qty == 3 && a.hasChanges)
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 2") == 2)
    }

    /// The same inside a raw `BEGIN` (no block): the transaction the edit was made for is gone, so the
    /// instance reads its row (as an instance saved earlier in it does), and a retried raw transaction
    /// applies its increment once. A save of its own refused the same way afterwards keeps its edit.
    @Test(arguments: transactionEndingGuards, ["one", "batch"])
    func aSaveWhoseFailureEndedARawTransactionGivesTheInstanceItsRow(ddl: (create: String, drop: String), kind: String) throws {
        let temp = try itemDatabase()
        let db = temp.db
        try db.execute(ddl.create)
        let a = try #require(try db.object(R14Item.self, forKey: 2))   // qty 2
        let b = try #require(try db.object(R14Item.self, forKey: 1))
        let save = { (item: R14Item) in kind == "one" ? try db.save(item) : try db.save([item]) }
        try db.execute("BEGIN IMMEDIATE")
        b.note = "saved first"
        try save(b)
        a.qty += 1
        #expect(throws: (any Error).self) { try save(a) }
        #expect(!db.isInTransaction)
        #expect(a.qty == 2 && !a.hasChanges)
        #expect(b.note == "n" && !b.hasChanges)
        // A save of its own refused the same way keeps its edit.
        a.qty += 1
        #expect(throws: (any Error).self) { try save(a) }
        #expect(a.qty == 3 && a.changedProperties == ["qty"])
        a.qty = 2
        // The retried raw transaction, once nothing refuses it, stores one increment.
        try db.execute(ddl.drop)
        try db.execute("BEGIN IMMEDIATE")
        a.qty += 1
        try save(a)
        try db.execute("COMMIT")
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 2") == 3)
        #expect(a.qty == 3 && !a.hasChanges)
    }

    @Test func aSaveThatFilledTheDatabaseInABlockGivesTheInstanceItsRowAndTheNextBlockWorks() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let bystander = try #require(try db.object(R14Item.self, forKey: 2))
        bystander.qty = 9
        let pages = try #require(try db.value(Int.self, "PRAGMA page_count"))
        try db.execute("PRAGMA max_page_count = \(pages)")
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { a.note = String(repeating: "x", count: 200_000); try db.save(a) }
        }
        #expect(error?.code.primary == .full)
        #expect(a.note == "n" && !a.hasChanges)
        #expect(bystander.qty == 9 && bystander.changedProperties == ["qty"])
        try db.execute("PRAGMA max_page_count = 1000000")
        try db.transaction { a.note = "short"; try db.save(a) }
        #expect(try db.value(String.self, "SELECT note FROM r14_item WHERE id = 1") == "short")
    }

    @Test func aDeferredForeignKeyFailingAtCommitGivesSavedInstancesTheirRowsAndNewOnesTheirUnsavedState() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        // Django's schema: the reference is DEFERRABLE INITIALLY DEFERRED, checked at COMMIT.
        try db.execute("""
            CREATE TABLE r14_team (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
            CREATE TABLE r14_member (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
                team INTEGER NULL REFERENCES r14_team (id) DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO r14_team (name) VALUES ('red');
            INSERT INTO r14_member (name, team) VALUES ('m1', 1);
            """)
        let red = try #require(try db.object(R14Team.self, forKey: 1))
        let m1 = try #require(try db.object(R14Member.self, forKey: 1))
        #expect(try red.$members.load().map(\.name) == ["m1"])
        let fresh = R14Member(); fresh.name = "new"; fresh.team = red
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction {
                m1.name = "renamed"
                try db.save(m1)
                try db.save(fresh)
                try db.execute("DELETE FROM r14_team WHERE id = 1")   // both members now point nowhere
            }
        }
        #expect(error?.code.primary == .constraint)
        #expect(m1.name == "m1" && !m1.hasChanges && m1.team === red)
        #expect(fresh.id == 0 && fresh.name == "new" && fresh.team === red && !fresh.isDeleted)
        #expect(!red.isDeleted && red.name == "red")
        #expect(try red.$members.load().map(\.name) == ["m1"])
        // The retried block applies the rename and the insert once.
        try db.transaction {
            m1.name = "renamed"
            try db.save(m1)
            try db.save(fresh)
        }
        #expect(try db.column(String.self, "SELECT name FROM r14_member ORDER BY id") == ["renamed", "new"])
        #expect(try red.$members.load().map(\.name) == ["new", "renamed"])
    }

    @Test func aConflictInABlockLeavesTheCommittedValuesAndARetryAppliesTheChangeOnce() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let other = try Database(path: temp.path)
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        a.qty += 1   // unsaved, made on qty 1
        try other.execute("UPDATE r14_item SET qty = 5 WHERE id = 1")
        let error = #expect(throws: ModelError.self) {
            try db.transaction { try db.save(a) }
        }
        #expect(error?.kind == .conflict)
        #expect(a.qty == 5 && !a.hasChanges)
        try db.retryingOnConflict { a.qty += 1; try db.save(a) }
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 6)
    }

    @Test func aRowDeletedUnderneathStaysDeletedAfterTheBlockRollsBack() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let other = try Database(path: temp.path)
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let b = try #require(try db.object(R14Item.self, forKey: 2))
        #expect(throws: (any Error).self) {
            try db.transaction(.deferred) {
                b.qty = 7
                try db.save(b)                                   // the block holds the write lock from here
                try db.execute("DELETE FROM r14_item WHERE id = 1")
                a.qty = 9
                try db.save(a)                                   // notFound
            }
        }
        #expect(!a.isDeleted && a.qty == 1 && !a.hasChanges)     // the delete was rolled back with the block
        #expect(b.qty == 2 && !b.hasChanges)
        try other.execute("DELETE FROM r14_item WHERE id = 1")
        a.qty = 9
        let error = #expect(throws: ModelError.self) { try db.transaction { try db.save(a) } }
        #expect(error?.kind == .notFound || error?.kind == .deleted)
        #expect(a.isDeleted)
    }

    // MARK: Key layouts

    @Test(arguments: [
        "CREATE TABLE r14_coded (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL)",
        "CREATE TABLE r14_coded (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL) WITHOUT ROWID",
    ])
    func textKeysFollowTheRule(ddl: String) throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(ddl)
        try db.execute("INSERT INTO r14_coded VALUES ('x', 'a', 1), ('y', 'b', 2)")
        let x = try #require(try db.object(R14Coded.self, forKey: "x"))
        let y = try #require(try db.object(R14Coded.self, forKey: "y"))
        y.qty = 42   // never saved by the block
        #expect(throws: ModelError.self) {
            try db.transaction { x.qty = 3; x.name = "b"; try db.save(x) }
        }
        #expect(x.qty == 1 && x.name == "a" && !x.hasChanges)
        #expect(y.qty == 42 && y.changedProperties == ["qty"])
        #expect(throws: Undo.self) {
            try db.transaction { try db.save(y); throw Undo() }
        }
        #expect(y.qty == 2 && !y.hasChanges)
        try db.transaction { x.qty = 3; try db.save(x) }
        #expect(try db.value(Int.self, "SELECT qty FROM r14_coded WHERE id = 'x'") == 3)
    }

    @Test(arguments: [
        "CREATE TABLE r14_tokened (id BLOB PRIMARY KEY, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL)",
        "CREATE TABLE r14_tokened (id char(36) PRIMARY KEY, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL) WITHOUT ROWID",
    ])
    func uuidKeysFollowTheRule(ddl: String) throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(ddl)
        let x = R14Tokened(); x.name = "a"; x.qty = 1
        let y = R14Tokened(); y.name = "b"; y.qty = 2
        try db.save([x, y])
        #expect(throws: ModelError.self) {
            try db.transaction { x.qty = 3; x.name = "b"; try db.save(x) }
        }
        #expect(x.qty == 1 && x.name == "a" && !x.hasChanges)
        // A new one whose insert fails keeps its values and key, unsaved; the retry inserts it once.
        let z = R14Tokened(); z.name = "a"; z.qty = 9
        let key = z.id
        #expect(throws: ModelError.self) { try db.transaction { try db.save(z) } }
        #expect(z.id == key && z.name == "a" && z.qty == 9)
        z.name = "c"
        try db.transaction { try db.save(z) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_tokened") == 3)
    }

    @Test(arguments: [
        "CREATE TABLE r14_pair (a INTEGER NOT NULL, b TEXT NOT NULL, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL, PRIMARY KEY (a, b))",
        "CREATE TABLE r14_pair (a INTEGER NOT NULL, b TEXT NOT NULL, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID",
    ])
    func compositeKeysFollowTheRule(ddl: String) throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(ddl)
        try db.execute("INSERT INTO r14_pair VALUES (1, 'x', 'a', 1), (1, 'y', 'b', 2)")
        let pairs = try db.objects(R14Pair.self, where: "1 ORDER BY b")
        let (x, y) = (pairs[0], pairs[1])
        #expect(throws: ModelError.self) {
            try db.transaction {
                y.qty = 20
                try db.save(y)
                x.qty = 3; x.name = "b"
                try db.save(x)
            }
        }
        #expect(x.qty == 1 && x.name == "a" && !x.hasChanges)
        #expect(y.qty == 2 && !y.hasChanges)
        try db.transaction { y.qty = 20; try db.save(y) }
        #expect(try db.value(Int.self, "SELECT sum(qty) FROM r14_pair") == 21)
    }

    // MARK: Relationships

    @Test func aFailedSaveOfAMemberMovedToAnotherTeamPutsItBackInItsTeam() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14_team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE r14_member (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, team INTEGER REFERENCES r14_team (id));
            INSERT INTO r14_team VALUES (1, 'red'), (2, 'blue');
            INSERT INTO r14_member VALUES (1, 'm1', 1), (2, 'm2', 2);
            """)
        let red = try #require(try db.object(R14Team.self, forKey: 1))
        let blue = try #require(try db.object(R14Team.self, forKey: 2))
        let m1 = try #require(try db.object(R14Member.self, forKey: 1))
        #expect(try red.$members.load().map(\.name) == ["m1"])
        #expect(try blue.$members.load().map(\.name) == ["m2"])
        #expect(throws: ModelError.self) {
            try db.transaction {
                m1.team = blue
                m1.name = "m2"   // UNIQUE
                try db.save(m1)
            }
        }
        #expect(m1.team === red && m1.name == "m1" && !m1.hasChanges)
        #expect(try red.$members.load().map(\.name) == ["m1"])
        #expect(try blue.$members.load().map(\.name) == ["m2"])
        // A move saved in a block that then rolls back is undone as well.
        #expect(throws: Undo.self) {
            try db.transaction {
                m1.team = blue
                try db.save(m1)
                #expect(try blue.$members.load().map(\.name) == ["m1", "m2"])
                throw Undo()
            }
        }
        #expect(m1.team === red && !m1.hasChanges)
        #expect(try red.$members.load().map(\.name) == ["m1"])
        #expect(try blue.$members.load().map(\.name) == ["m2"])
    }

    @Test func siblingsAddedAndRemovedInABlockThatRollsBackAreAsBefore() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14_post (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE r14_tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE r14_post_tag (id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, tag_id INTEGER NOT NULL);
            INSERT INTO r14_post VALUES (1, 'p');
            INSERT INTO r14_tag VALUES (1, 'swift'), (2, 'orm');
            INSERT INTO r14_post_tag (post_id, tag_id) VALUES (1, 1);
            """)
        let post = try #require(try db.object(R14Post.self, forKey: 1))
        let swift = try #require(try db.object(R14Tag.self, forKey: 1))
        let orm = try #require(try db.object(R14Tag.self, forKey: 2))
        #expect(try post.$tags.load().map(\.name) == ["swift"])
        #expect(throws: Undo.self) {
            try db.transaction {
                try post.$tags.add(orm)
                try post.$tags.remove(swift)
                #expect(try post.$tags.load().map(\.name) == ["orm"])
                throw Undo()
            }
        }
        #expect(try post.$tags.load().map(\.name) == ["swift"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_post_tag") == 1)
        // A savepoint's add, rolled back alone, while the outer block's add commits.
        try db.transaction {
            try post.$tags.add(orm)
            try? db.transaction { try post.$tags.remove(swift); throw Undo() }
        }
        #expect(try post.$tags.load().map(\.name) == ["swift", "orm"])
    }

    // MARK: New objects

    @Test func aNewObjectInsertedInABlockThatRollsBackIsInsertedOnceByTheRetry() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let fresh = R14Item(); fresh.name = "c"; fresh.qty = 3
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        #expect(throws: ModelError.self) {
            try db.transaction {
                try db.save(fresh)
                a.name = "b"
                try db.save(a)
            }
        }
        #expect(fresh.id == 0 && fresh.name == "c" && fresh.qty == 3)
        #expect(a.name == "a" && !a.hasChanges)
        try db.transaction { try db.save(fresh); a.qty = 4; try db.save(a) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_item") == 3)
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 4)
    }

    @Test func aNewObjectWhoseInsertFailedInABlockKeepsItsValues() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let fresh = R14Item(); fresh.name = "a"; fresh.qty = 3   // UNIQUE
        #expect(throws: ModelError.self) { try db.transaction { try db.save(fresh) } }
        #expect(fresh.id == 0 && fresh.name == "a" && fresh.qty == 3)
        fresh.name = "c"
        try db.transaction { try db.save(fresh) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_item") == 3)
    }

    @Test func aBatchOfNewObjectsReferringToEachOtherRolledBackWithItsBlockIsInsertedOnceByTheRetry() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r14_node (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, next INTEGER REFERENCES r14_node (id))")
        let a = R14Node(); a.name = "a"
        let b = R14Node(); b.name = "b"
        a.next = b; b.next = a
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.save([a, b])
                #expect(a.id != 0 && b.id != 0)
                throw Undo()
            }
        }
        #expect(a.id == 0 && b.id == 0 && a.next === b && b.next === a)
        // A batch that fails (a third node's name is taken) inside a block, caught: the cycle stays intact.
        let c = R14Node(); c.name = "a"; c.next = a
        try db.transaction {
            #expect(throws: ModelError.self) { try db.save([a, b, c]) }
            #expect(a.id == 0 && b.id == 0 && c.id == 0 && a.next === b && b.next === a && c.next === a)
            c.name = "c"
            try db.save([a, b, c])
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_node") == 3)
        #expect(try db.column(String.self, "SELECT n.name || '>' || m.name FROM r14_node n JOIN r14_node m ON m.id = n.next ORDER BY n.name")
                == ["a>b", "b>a", "c>a"])
    }

    // MARK: Deletes

    @Test func aDeleteInABlockThatRollsBackBringsTheInstanceBackWithItsUnsavedEdits() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        a.note = "unsaved"
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(a)
                #expect(a.isDeleted)
                throw Undo()
            }
        }
        #expect(!a.isDeleted && a.qty == 1)
        #expect(a.note == "unsaved" && a.changedProperties == ["note"])
        try db.save(a)
        #expect(try db.value(String.self, "SELECT note FROM r14_item WHERE id = 1") == "unsaved")
    }

    @Test func aRefusedDeleteInABlockThatRollsBackKeepsTheUnsavedEdits() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            PRAGMA foreign_keys = ON;
            CREATE TABLE r14_team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE r14_member (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team INTEGER REFERENCES r14_team (id) ON DELETE RESTRICT);
            INSERT INTO r14_team VALUES (1, 'red'); INSERT INTO r14_member VALUES (1, 'm1', 1);
            """)
        let red = try #require(try db.object(R14Team.self, forKey: 1))
        red.name = "unsaved"
        #expect(throws: (any Error).self) {
            try db.transaction { try db.delete(red) }
        }
        #expect(!red.isDeleted && red.name == "unsaved" && red.changedProperties == ["name"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_team") == 1)
    }

    @Test func aSavepointThatSavedAgainAndRolledBackLeavesWhatTheOuterBlockSaved() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        try db.transaction {
            a.qty = 5
            try db.save(a)
            do {
                try db.transaction {
                    a.qty = 6
                    try db.save(a)
                    a.name = "b"
                    try db.save(a)          // UNIQUE: the savepoint rolls back
                }
            } catch {}
            #expect(a.qty == 5 && a.name == "a" && !a.hasChanges)
        }
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 5)
        #expect(a.qty == 5 && !a.hasChanges)
    }

    // MARK: Raw transactions

    @Test func aFailedSaveInsideARawTransactionFollowsItsRollbackOrCommit() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        try db.execute("BEGIN")
        a.qty = 5; a.name = "b"
        #expect(throws: ModelError.self) { try db.save(a) }
        #expect(a.qty == 5 && a.hasChanges)
        try db.execute("ROLLBACK")
        #expect(a.qty == 1 && a.name == "a" && !a.hasChanges)
        try db.execute("BEGIN")
        a.qty = 5; a.name = "b"
        #expect(throws: ModelError.self) { try db.save(a) }
        try db.execute("COMMIT")
        #expect(a.qty == 5 && a.name == "b" && a.hasChanges)
        a.name = "a"
        try db.save(a)
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 5)
    }

    // MARK: Observers

    @Test func observersHearExactlyTheCommittedChangesAndSavedInstancesEndClean() throws {
        let temp = try itemDatabase()
        let db = temp.db
        var heard: [DatabaseChange] = []
        let observation = db.observeChanges { heard += $0 }
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        let b = try #require(try db.object(R14Item.self, forKey: 2))
        let fresh = R14Item(); fresh.name = "c"
        try db.transaction {
            a.qty = 10
            try db.save(a)
            do { try db.transaction { b.qty = 20; try db.save(b); try db.save(fresh); throw Undo() } } catch {}
            b.name = "a"
            do { try db.save([b]) } catch {}
            b.name = "b"
        }
        _ = observation
        #expect(!a.hasChanges && a.qty == 10)
        #expect(b.qty == 2 && b.name == "b" && !b.hasChanges)
        #expect(fresh.id == 0)
        #expect(heard.count == 1)
        #expect(heard.first?.table == "r14_item")
        #expect(heard.first?.updatedRowIDs == [1] && heard.first?.insertedRowIDs == [] && heard.first?.deletedRowIDs == [])
    }

    @Test func aDeferredBlockThatMetAnotherCommitSinceItsReadGivesTheCommittedValueAndTheRetryAddsOnce() throws {
        let temp = try itemDatabase()
        let db = temp.db
        try db.execute("PRAGMA journal_mode = WAL")
        let other = try Database(path: temp.path)
        let item = try #require(try db.object(R14Item.self, forKey: 1))
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction(.deferred) {
                _ = try db.objects(R14Item.self)                        // the block's snapshot
                try other.execute("UPDATE r14_item SET qty = 5 WHERE id = 1")
                item.qty += 1
                try db.save(item)                                       // SQLITE_BUSY_SNAPSHOT
            }
        }
        #expect(error?.code == .busySnapshot)
        #expect(item.qty == 5 && !item.hasChanges)
        try db.transaction(.deferred) { item.qty += 1; try db.save(item) }
        #expect(try db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 6)
    }

    @Test func aLinkRefusedInsideABlockLeavesTheLoadedSiblingsAsTheRowsAre() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14_post (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE r14_tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE r14_post_tag (id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, tag_id INTEGER NOT NULL);
            CREATE TRIGGER r14_no_orm BEFORE INSERT ON r14_post_tag WHEN NEW.tag_id = 2 BEGIN SELECT RAISE(ABORT, 'no orm'); END;
            INSERT INTO r14_post VALUES (1, 'p');
            INSERT INTO r14_tag VALUES (1, 'swift'), (2, 'orm'), (3, 'sql');
            INSERT INTO r14_post_tag (post_id, tag_id) VALUES (1, 1);
            """)
        let post = try #require(try db.object(R14Post.self, forKey: 1))
        let orm = try #require(try db.object(R14Tag.self, forKey: 2))
        let sql = try #require(try db.object(R14Tag.self, forKey: 3))
        #expect(try post.$tags.load().map(\.name) == ["swift"])
        try db.transaction {
            try post.$tags.add(sql)
            do { try post.$tags.add(orm) } catch {}
        }
        #expect(try post.$tags.load().map(\.name) == ["swift", "sql"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14_post_tag") == 2)
    }

    @Test func aRawRollbackToAfterAFailedSaveKeepsItsEditsUntilTheTransactionRollsBack() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14Item.self, forKey: 1))
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.execute("SAVEPOINT mine")
                a.qty = 5; a.name = "b"
                do { try db.save(a) } catch {}
                try db.execute("ROLLBACK TO mine")
                // A raw savepoint is no block: the instance reads its row, its unsaved edits (made on it) kept.
                #expect(a.qty == 5 && a.name == "b" && a.hasChanges)
                throw Undo()
            }
        }
        // The block that tried the save rolled back: the edits are undone with it.
        #expect(a.qty == 1 && a.name == "a" && !a.hasChanges)
    }

    @Test func aBlockFailingAtCommitTellsObserversNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14_team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE r14_member (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
                team INTEGER REFERENCES r14_team (id) DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO r14_team VALUES (1, 'red');
            """)
        var heard: [DatabaseChange] = []
        let observation = db.observeChanges { heard += $0 }
        let red = try #require(try db.object(R14Team.self, forKey: 1))
        let m = R14Member(); m.name = "m"; m.team = red
        #expect(throws: DatabaseError.self) {
            try db.transaction {
                try db.save(m)
                red.name = "renamed"
                try db.save(red)
                try db.execute("DELETE FROM r14_team")
            }
        }
        #expect(heard.isEmpty)
        #expect(red.name == "red" && !red.hasChanges && !red.isDeleted && m.id == 0)
        try db.transaction { try db.save(m); red.name = "renamed"; try db.save(red) }
        _ = observation
        #expect(heard.map(\.table).sorted() == ["r14_member", "r14_team"])
        #expect(heard.first { $0.table == "r14_member" }?.insertedRowIDs == [1])
        #expect(heard.first { $0.table == "r14_team" }?.updatedRowIDs == [1])
    }

    // MARK: Concurrency

    @Test(arguments: [Database.TransactionKind.immediate, .deferred])
    func twoHandlesOnTwoThreadsCountEveryIncrementOnce(kind: Database.TransactionKind) throws {
        let temp = try itemDatabase()
        let path = temp.path
        let committed = Locked(0)
        let unexpected = Locked<[String]>([])
        let deadline = Date().addingTimeInterval(120)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            guard let db = try? Database(path: path), let item = try? db.object(R14Item.self, forKey: 1) else {
                unexpected.withLock { $0.append("open") }
                return
            }
            for _ in 0..<50 {
                // Retried until it commits: a deferred block meets the other handle's lock (SQLITE_BUSY at
                // once), an immediate one waits for it; either way each increment lands once.
                while Date() < deadline {
                    do {
                        if kind == .immediate {
                            try db.retryingOnConflict { item.qty += 1; try db.save(item) }
                        } else {
                            try db.transaction(.deferred) { item.qty += 1; try db.save(item) }
                        }
                        committed.withLock { $0 += 1 }
                        break
                    } catch let error as DatabaseError where error.code.primary == .busy {
                        usleep(500)
                    } catch {
                        unexpected.withLock { $0.append("\(error)") }
                        break
                    }
                }
            }
        }
        #expect(unexpected.withLock { $0 } == [])
        #expect(committed.withLock { $0 } == 100)
        #expect(try temp.db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 1 + committed.withLock { $0 })
    }

    @Test func twoPoolsIncrementingTheSameRowAsynchronouslyCountEveryIncrementOnce() async throws {
        let temp = try itemDatabase()
        try temp.db.execute("PRAGMA journal_mode = WAL")
        let pools = [try DatabasePool(path: temp.path, readers: 1), try DatabasePool(path: temp.path, readers: 1)]
        let held = [HeldItem(), HeldItem()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for p in 0..<2 {
                let pool = pools[p], box = held[p]
                group.addTask {
                    for _ in 0..<50 {
                        try await pool.write { db in
                            // The writer's live instance, kept across writes: each write merges the other
                            // pool's commits into it first.
                            let item = try box.item ?? #require(try db.object(R14Item.self, forKey: 1))
                            box.item = item
                            item.qty += 1
                            try db.save(item)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try temp.db.value(Int.self, "SELECT qty FROM r14_item WHERE id = 1") == 101)
    }

    @Test func anAsyncPoolWriteWhoseBatchFailedGivesItsInstancesTheirRows() async throws {
        let temp = try itemDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        await #expect(throws: ModelError.self) {
            try await pool.write { db in
                let a = try #require(try db.object(R14Item.self, forKey: 1))
                let b = try #require(try db.object(R14Item.self, forKey: 2))
                a.qty = 10; b.qty = 20; b.name = "a"
                try db.save([a, b])
            }
        }
        let seen = try await pool.write { db in
            let a = try #require(try db.object(R14Item.self, forKey: 1))
            let b = try #require(try db.object(R14Item.self, forKey: 2))
            return [a.qty, b.qty, a.hasChanges || b.hasChanges ? 1 : 0]
        }
        #expect(seen == [1, 2, 0])
    }
}

/// Holds a pool writer's live instance between writes (touched only inside them, one at a time).
private final class HeldItem: @unchecked Sendable {
    var item: R14Item?
}
