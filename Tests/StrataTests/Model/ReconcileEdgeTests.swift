import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Live instances at the edges of what the update hook reports: transactions begun by raw SQL, REPLACE
// conflict resolution declared by the schema, savepoints rolled back by raw SQL, attached databases,
// several model types over one table, triggers, WITHOUT ROWID cascades, and failed batch saves.

private final class EdgeItem: Model {
    static let tableName = "edge_item"
    var id: Int64 = 0
    var name = ""
    var count = 0
    required init() {}
}

/// A second model type over `edge_item`.
private final class EdgeItemName: Model {
    static let tableName = "edge_item"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class EdgeUser: Model {
    static let tableName = "edge_user"
    var id: Int64 = 0
    var email = ""
    required init() {}
}

private final class EdgeCode: Model {
    static let tableName = "edge_code"
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

private final class EdgeParent: Model {
    static let tableName = "edge_parent"
    var id: Int64 = 0
    required init() {}
}

private final class EdgeChild: Model {
    static let tableName = "edge_child"
    static let primaryKey = "code"
    var code = ""
    var parent_id: Int64?
    var sponsor_id: Int64?
    required init() {}
}

private final class EdgeNode: Model {
    static let tableName = "edge_node"
    var id: Int64 = 0
    var name = ""
    @Reference var parent: EdgeNode?
    required init() {}
}

@Suite struct ReconcileEdgeTests {
    // MARK: Transactions begun by raw SQL

    @Test(arguments: ["BEGIN IMMEDIATE", "BEGIN", "SAVEPOINT outer_x"])
    func aSaveInsideARawTransactionNeverOverwritesAnotherConnectionsCommit(_ begin: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.save(EdgeItem())
        let a = try Database(path: temp.path), b = try Database(path: temp.path)
        let mine = try #require(try a.object(EdgeItem.self, forKey: 1))
        let theirs = try #require(try b.object(EdgeItem.self, forKey: 1))
        theirs.count = 5
        try b.save(theirs)
        try a.execute(begin)
        mine.count += 1
        let error = #expect(throws: ModelError.self) { try a.save(mine) }
        #expect(error?.kind == .conflict)
        #expect(mine.count == 5)   // the committed value, to apply the change to again
        mine.count += 1
        try a.save(mine)
        try a.execute(begin.hasPrefix("SAVEPOINT") ? "RELEASE outer_x" : "COMMIT")
        #expect(try a.value(Int.self, "SELECT count FROM edge_item WHERE id = 1") == 6)
    }

    @Test func aRawTransactionMergesADifferentColumnAndKeepsBoth() throws {
        let temp = try TemporaryDatabase()
        try temp.db.save(EdgeItem())
        let a = try Database(path: temp.path), pool = try DatabasePool(path: temp.path)
        let mine = try #require(try a.object(EdgeItem.self, forKey: 1))
        try pool.blocking.write { db in
            let theirs = try #require(try db.object(EdgeItem.self, forKey: 1))
            theirs.count = 7
            try db.save(theirs)
        }
        try a.execute("BEGIN IMMEDIATE")
        mine.name = "mine"
        try a.save(mine)
        try a.execute("COMMIT")
        #expect(mine.count == 7)
        #expect(try a.rows("SELECT name, count FROM edge_item").first?["name"] == .text("mine"))
        #expect(try a.value(Int.self, "SELECT count FROM edge_item") == 7)
    }

    @Test(arguments: [false, true])
    func aReadOnlyTransactionLeavesLaterCallsMergingCommits(raw: Bool) throws {
        let temp = try TemporaryDatabase()
        try temp.db.save(EdgeItem())
        let a = try Database(path: temp.path), b = try Database(path: temp.path)
        let mine = try #require(try a.object(EdgeItem.self, forKey: 1))
        if raw {
            try a.execute("BEGIN")
            _ = try a.object(EdgeItem.self, forKey: 1)
            try a.execute("COMMIT")   // no write: SQLite calls no commit hook
        } else {
            try a.transaction(.deferred) { _ = try a.object(EdgeItem.self, forKey: 1) }
        }
        let theirs = try #require(try b.object(EdgeItem.self, forKey: 1))
        theirs.count = 5
        try b.save(theirs)
        _ = try a.object(EdgeItem.self, forKey: 1)
        #expect(mine.count == 5)
    }

    // MARK: ON CONFLICT REPLACE in the schema

    @Test func anInsertIntoATableThatReplacesOnConflictFailsInsteadOfDeletingTheOtherRow() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE edge_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE ON CONFLICT REPLACE)")
        let ada = EdgeUser(); ada.email = "a@x"
        try db.save(ada)
        let other = EdgeUser(); other.email = "a@x"
        let error = #expect(throws: ModelError.self) { try db.save(other) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.key == .integer(ada.id))
        #expect(try db.count(EdgeUser.self) == 1)
        #expect(!ada.isDeleted && other.id == 0)
        // An update moving onto the other row's value fails the same way.
        let bob = EdgeUser(); bob.email = "b@x"
        try db.save(bob)
        bob.email = "a@x"
        #expect(throws: ModelError.self) { try db.save(bob) }
        #expect(try db.column(String.self, "SELECT email FROM edge_user ORDER BY id") == ["a@x", "b@x"])
    }

    @Test func anExplicitKeyOverAReplacingPrimaryKeyIsADuplicateNotAReplacement() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE edge_user(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, email TEXT NOT NULL DEFAULT ''); INSERT INTO edge_user VALUES (1, 'someone else')")
        let mine = EdgeUser(); mine.id = 1; mine.email = "mine"
        let error = #expect(throws: ModelError.self) { try db.save(mine) }
        #expect(error?.kind == .duplicateKey)
        #expect(try db.value(String.self, "SELECT email FROM edge_user WHERE id = 1") == "someone else")
    }

    @Test func aTableThatMerelyMentionsReplaceKeepsPlainStatements() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE edge_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL DEFAULT 'on conflict replace')")
        var sql: [String] = []
        let trace = db.traceStatements { sql.append($0) }
        try db.save(EdgeUser())
        trace.cancel()
        #expect(sql.contains { $0.hasPrefix("INSERT INTO \"edge_user\"") })
    }

    @Test func aTriggersReplaceInAnotherTableMarksTheReplacedInstanceDeleted() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
            CREATE TABLE edge_item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', count INTEGER NOT NULL DEFAULT 0);
            CREATE TRIGGER edge_item_log AFTER INSERT ON edge_item BEGIN
                INSERT OR REPLACE INTO edge_user(email) VALUES (NEW.name);
            END;
            INSERT INTO edge_user(id, email) VALUES (1, 'x');
            """)
        let user = try #require(try db.object(EdgeUser.self, forKey: 1))
        let item = EdgeItem(); item.name = "x"
        try db.save(item)
        #expect(try db.count(EdgeUser.self, where: "id = 1") == 0)
        #expect(user.isDeleted)
    }

    // MARK: Keys changed by REPLACE

    @Test func updateOrReplaceOntoAnotherKeyMarksTheMovedInstanceDeleted() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let a = EdgeItem(); a.name = "a"
        let b = EdgeItem(); b.name = "b"
        try db.save([a, b])
        try db.execute("UPDATE OR REPLACE $T SET id = 2 WHERE id = 1", for: EdgeItem.self)
        #expect(a.isDeleted)
        #expect(!b.isDeleted && b.name == "a")   // the instance of key 2 holds what row 2 holds now
    }

    // MARK: Which change is the library's own

    @Test func aTriggersDeleteBeforeAnInsertIsNotTakenForTheInsert() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_code(code TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '');
            CREATE TRIGGER edge_code_evict BEFORE INSERT ON edge_code BEGIN DELETE FROM edge_code WHERE label = NEW.label; END;
            INSERT INTO edge_code VALUES ('A', 'same');
            """)
        let a = try #require(try db.object(EdgeCode.self, forKey: "A"))
        let b = EdgeCode(); b.code = "B"; b.label = "same"
        try db.save(b)
        #expect(try db.count(EdgeCode.self, where: "code = 'A'") == 0)
        #expect(a.isDeleted)
        #expect(!b.isDeleted && b.isPersisted)
    }

    @Test func aTriggersInsertDuringAnUpdateIsNotTakenForTheUpdate() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', count INTEGER NOT NULL DEFAULT 0);
            CREATE TRIGGER edge_item_touch BEFORE UPDATE OF name ON edge_item BEGIN
                UPDATE edge_item SET count = count + 1 WHERE id <> NEW.id;
            END;
            INSERT INTO edge_item VALUES (1, 'a', 0), (2, 'b', 0);
            """)
        let one = try #require(try db.object(EdgeItem.self, forKey: 1))
        let two = try #require(try db.object(EdgeItem.self, forKey: 2))
        one.name = "a2"
        try db.save(one)
        #expect(two.count == 1)
        #expect(one.count == 0 && !one.hasChanges)
    }

    // MARK: Savepoints of raw SQL

    @Test func aRawRollbackToASavepointRestoresLiveInstances() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let a = EdgeItem(); a.name = "before"
        try db.save(a)
        let kept = EdgeItem(); kept.name = "kept"
        let undone = EdgeItem(); undone.name = "undone"
        let deleted = try #require(try db.object(EdgeItem.self, forKey: a.id))
        try db.transaction {
            try db.save(kept)
            try db.execute("SAVEPOINT x")
            try db.execute("UPDATE edge_item SET name = 'inside' WHERE id = 1")
            try db.save(undone)
            try db.delete(deleted)
            #expect(a.name == "inside" && a.isDeleted)
            try db.execute("ROLLBACK TO x")
            try db.execute("RELEASE x")
        }
        #expect(a.name == "before" && !a.isDeleted)
        #expect(undone.id == 0 && !undone.isPersisted)
        #expect(try db.object(EdgeItem.self, forKey: 3) == nil)
        #expect(kept.isPersisted && kept.id == 2)
        #expect(try db.column(String.self, "SELECT name FROM edge_item ORDER BY id") == ["before", "kept"])
        try db.save(undone)   // unsaved again: it inserts
        #expect(undone.isPersisted)
    }

    // MARK: Attached databases

    @Test(arguments: ["DELETE FROM aux.edge_item WHERE id = 1", "UPDATE aux.edge_item SET name = 'aux2' WHERE id = 1"])
    func aTableOfTheSameNameInAnAttachedDatabaseIsAnotherTable(_ sql: String) throws {
        let temp = try TemporaryDatabase(), other = try TemporaryDatabase(), db = temp.db
        let a = EdgeItem(); a.name = "main"
        try db.save(a)
        try other.db.execute("CREATE TABLE edge_item(id INTEGER PRIMARY KEY, name TEXT, count INTEGER); INSERT INTO edge_item VALUES (1, 'aux', 0)")
        try db.execute("ATTACH DATABASE ? AS aux", other.path)
        try db.execute(sql)
        #expect(!a.isDeleted && a.name == "main")
        a.name = "edit"
        try db.save(a)
        #expect(try db.value(String.self, "SELECT name FROM main.edge_item WHERE id = 1") == "edit")
    }

    // MARK: Several model types over one table

    @Test func aSaveAndADeleteThroughOneModelReachTheOtherModelsInstance() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let full = EdgeItem(); full.name = "a"
        try db.save(full)
        let summary = try #require(try db.object(EdgeItemName.self, forKey: full.id))
        full.name = "from full"
        try db.save(full)
        #expect(summary.name == "from full" && !summary.hasChanges)
        summary.name = "from summary"
        try db.save(summary)
        #expect(full.name == "from summary" && !full.hasChanges)
        try db.delete(full)
        #expect(summary.isDeleted)
    }

    @Test func anUnsavedChangeOfTheOtherModelBecomesAConflict() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let full = EdgeItem(); full.name = "a"
        try db.save(full)
        let summary = try #require(try db.object(EdgeItemName.self, forKey: full.id))
        summary.name = "summary's"
        full.name = "full's"
        try db.save(full)
        let error = #expect(throws: ModelError.self) { try db.save(summary) }
        #expect(error?.kind == .conflict)
        #expect(summary.name == "full's")
    }

    // MARK: WITHOUT ROWID tables, which the update hook never reports

    @Test func cascadesOfTheLibrarysOwnDeleteReachWithoutRowIDInstances() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_parent(id INTEGER PRIMARY KEY);
            CREATE TABLE edge_child(code TEXT PRIMARY KEY,
                parent_id INTEGER REFERENCES edge_parent(id) ON DELETE CASCADE,
                sponsor_id INTEGER REFERENCES edge_parent(id) ON DELETE SET NULL) WITHOUT ROWID;
            INSERT INTO edge_parent VALUES (1), (2);
            INSERT INTO edge_child VALUES ('a', 1, 2), ('b', 2, 1);
            """)
        let a = try #require(try db.object(EdgeChild.self, forKey: "a"))
        let b = try #require(try db.object(EdgeChild.self, forKey: "b"))
        let parent = try #require(try db.object(EdgeParent.self, forKey: 1))
        #expect(try db.delete(parent))
        #expect(a.isDeleted)
        #expect(!b.isDeleted && b.sponsor_id == nil && !b.hasChanges)
    }

    @Test func aTriggerOfASavedTableReachesWithoutRowIDInstances() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', count INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE edge_code(code TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
            CREATE TRIGGER edge_item_label AFTER UPDATE ON edge_item BEGIN UPDATE edge_code SET label = NEW.name; END;
            INSERT INTO edge_item VALUES (1, 'a', 0); INSERT INTO edge_code VALUES ('c', '');
            """)
        let code = try #require(try db.object(EdgeCode.self, forKey: "c"))
        let item = try #require(try db.object(EdgeItem.self, forKey: 1))
        item.name = "renamed"
        try db.save(item)
        #expect(code.label == "renamed")
    }

    // MARK: Text keys another tool stored as invalid UTF-8

    @Test func aTextKeyThatIsNotValidUTF8IsAnErrorNotAnotherRow() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_code(code TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '');
            INSERT INTO edge_code VALUES (CAST(x'61ff62' AS TEXT), 'x'), (CAST(x'61fe62' AS TEXT), 'y');
            """)
        let error = #expect(throws: ModelError.self) { try db.objects(EdgeCode.self) }
        #expect(error?.kind == .invalidPrimaryKey)
        #expect(error?.message.contains("61 ff 62") == true)
        // A key that really holds U+FFFD is valid text, and its own row.
        try db.execute("DELETE FROM edge_code")
        try db.execute("INSERT INTO edge_code VALUES (?, 'z'), ('c', 'w')", "a\u{FFFD}b")
        #expect(try db.objects(EdgeCode.self, where: "ORDER BY code").map(\.label) == ["z", "w"])
        let replacement = try #require(try db.object(EdgeCode.self, forKey: "a\u{FFFD}b"))
        replacement.label = "z2"
        try db.save(replacement)
        #expect(try db.value(String.self, "SELECT label FROM edge_code WHERE code = ?", "a\u{FFFD}b") == "z2")
    }

    // MARK: Found by the second reader of this change

    @Test func aRawTransactionAfterAReadOnlyRawTransactionStillMerges() throws {
        let temp = try TemporaryDatabase()
        try temp.db.save(EdgeItem())
        let a = try Database(path: temp.path), b = try Database(path: temp.path)
        try a.execute("BEGIN")
        let mine = try #require(try a.object(EdgeItem.self, forKey: 1))
        try a.execute("COMMIT")   // read-only: SQLite calls no commit hook
        let theirs = try #require(try b.object(EdgeItem.self, forKey: 1))
        theirs.count = 5
        try b.save(theirs)
        try a.execute("BEGIN")
        mine.count += 1
        let error = #expect(throws: ModelError.self) { try a.save(mine) }
        #expect(error?.kind == .conflict)
        try a.execute("COMMIT")
        #expect(try a.value(Int.self, "SELECT count FROM edge_item WHERE id = 1") == 5)
    }

    @Test func retryingABatchSaveAppliesTheOtherObjectsChangeOnce() throws {
        let temp = try TemporaryDatabase()
        try temp.db.save([EdgeItem(), EdgeItem()])
        let a = try Database(path: temp.path), b = try Database(path: temp.path)
        let first = try #require(try a.object(EdgeItem.self, forKey: 1))
        let second = try #require(try a.object(EdgeItem.self, forKey: 2))
        let theirs = try #require(try b.object(EdgeItem.self, forKey: 1))
        theirs.count = 10
        try b.save(theirs)
        first.count += 1   // conflicts with b's commit when the retry's transaction merges
        try a.retryingOnConflict {
            first.count += 1
            second.count += 1
            try a.save([second, first])   // second saved in the savepoint, then first conflicts
        }
        #expect(try a.value(Int.self, "SELECT count FROM edge_item WHERE id = 2") == 1)
        #expect(second.count == 1 && first.count == 11)
    }

    @Test func notNullOnConflictReplaceLeavesTriggerConflictClausesAlone() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '');
            CREATE TABLE edge_seen(tag TEXT PRIMARY KEY);
            CREATE TRIGGER edge_user_seen AFTER INSERT ON edge_user BEGIN
                INSERT OR IGNORE INTO edge_seen(tag) VALUES (NEW.email);
            END;
            """)
        let a = EdgeUser(); a.email = "x"
        try db.save(a)
        let b = EdgeUser(); b.email = "x"
        try db.save(b)
        #expect(try db.count(EdgeUser.self) == 2)
    }

    @Test func aFailedBatchSaveKeepsAnAssignmentOfANewObject() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE edge_node(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent INTEGER REFERENCES edge_node(id))")
        try db.execute("INSERT INTO edge_node(id, name) VALUES (1, 'o'), (2, 'x'), (3, 'y')")
        let o = try #require(try db.object(EdgeNode.self, forKey: 1))
        let y = try #require(try db.object(EdgeNode.self, forKey: 3))
        let p = EdgeNode(); p.name = "p"
        o.parent = p
        o.name = "o2"
        y.name = "x"   // collides with row 2: the batch fails after p and o were written
        #expect(throws: ModelError.self) { try db.save([p, o, y]) }
        #expect(p.id == 0 && o.name == "o2" && o.parent === p)
        y.name = "y2"
        try db.save([p, o, y])
        #expect(try db.value(Int64.self, "SELECT parent FROM edge_node WHERE name = 'o2'") == p.id)
    }

    @Test func aSaveOnATableWithTriggersReadsOnlyWhatTheTriggersMayWrite() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', count INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE edge_code(code TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
            CREATE TABLE edge_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL DEFAULT '');
            CREATE TRIGGER edge_item_total AFTER UPDATE ON edge_item BEGIN UPDATE edge_user SET email = email || '.' WHERE id = 1; END;
            INSERT INTO edge_item(id) VALUES (1); INSERT INTO edge_code VALUES ('a', ''), ('b', '');
            INSERT INTO edge_user(id) VALUES (1), (2), (3);
            """)
        let codes = try db.objects(EdgeCode.self), users = try db.objects(EdgeUser.self)
        let item = try #require(try db.object(EdgeItem.self, forKey: 1))
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.transaction {
            for _ in 0..<3 { item.count += 1; try db.save(item) }
        }
        trace.cancel()
        #expect(users[0].email == "...")
        // Each save: its UPDATE and the reload of the one user row the trigger changed; no WITHOUT ROWID
        // table the trigger never names is re-read, and no check for replaced rows (the trigger says no REPLACE).
        #expect(statements.filter { $0.hasPrefix("UPDATE") }.count == 3)
        #expect(statements.filter { $0.contains("edge_code") }.isEmpty)
        #expect(statements.filter { $0.contains("IN (") }.isEmpty)
        withExtendedLifetime((codes, users)) {}
    }

    // MARK: A failed save keeps unsaved changes

    @Test func aBatchSaveThatFailsOnAConflictKeepsTheOtherInstancesChanges() throws {
        let temp = try TemporaryDatabase()
        let s1 = EdgeItem(); s1.name = "x"
        let s2 = EdgeItem(); s2.name = "y"
        try temp.db.save([s1, s2])
        let a = try Database(path: temp.path)
        let x = try #require(try a.object(EdgeItem.self, forKey: 1))
        let y = try #require(try a.object(EdgeItem.self, forKey: 2))
        x.name = "x edited"
        y.count = 1
        try temp.db.execute("UPDATE edge_item SET count = 50 WHERE id = 2")
        let error = #expect(throws: ModelError.self) { try a.save([x, y]) }
        #expect(error?.kind == .conflict)
        #expect(x.name == "x edited" && x.changedProperties == ["name"])
        #expect(y.count == 50)   // the committed value
        y.count += 1
        try a.save([x, y])
        #expect(try a.rows("SELECT name, count FROM edge_item ORDER BY id").map { $0["name"] } == [.text("x edited"), .text("y")])
        #expect(try a.column(Int.self, "SELECT count FROM edge_item ORDER BY id") == [0, 51])
    }

    @Test func aSaveThatFailsAtCommitKeepsItsChanges() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE edge_parent(id INTEGER PRIMARY KEY);
            CREATE TABLE edge_item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
                count INTEGER NOT NULL DEFAULT 0 REFERENCES edge_parent(id) DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO edge_parent VALUES (0), (1); INSERT INTO edge_item VALUES (1, 'a', 0);
            """)
        let item = try #require(try db.object(EdgeItem.self, forKey: 1))
        item.name = "b"
        item.count = 9   // no such parent: the commit fails
        #expect(throws: DatabaseError.self) { try db.save(item) }
        #expect(item.name == "b" && item.count == 9)
        #expect(Set(item.changedProperties) == ["name", "count"])
        item.count = 1
        try db.save(item)
        #expect(try db.value(String.self, "SELECT name FROM edge_item WHERE id = 1") == "b")
    }
}
