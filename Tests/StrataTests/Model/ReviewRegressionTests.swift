import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Regression tests for the review's demo programs (fixed in c12488f): key changes, a relationship read
// after its database is gone, `let`/`weak` persistent properties, integer keys that are not the rowid,
// cascades and REPLACE reaching live instances, renamed columns keeping their indices, rollbacks that
// reuse rowids, failed statements, RETURNING through value/column, and prefetched self-references.

private final class RvDept: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RvTag: Model {
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

private final class RvPerson: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var manager: RvPerson?
    required init() {}
}

/// `let` key, persistent by default (every stored property).
private final class RvLetKey: Model {
    let id: Int64 = 0
    var name = ""
    required init() {}
}

/// A `let` listed explicitly.
private final class RvLetListed: Model {
    static let persistentProperties = ["id", "name", "fixed"]
    var id: Int64 = 0
    var name = ""
    let fixed = 3
    required init() {}
}

/// A `weak var` listed explicitly.
private final class RvWeakListed: Model {
    static let persistentProperties = ["id", "name", "buddy"]
    var id: Int64 = 0
    var name = ""
    weak var buddy: RvDept?
    required init() {}
}

/// Maps onto `RvDesc(id INTEGER PRIMARY KEY DESC, name TEXT)`: not a rowid alias.
private final class RvDesc: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// Maps onto `RvThing(id INT PRIMARY KEY, name TEXT)`: not a rowid alias.
private final class RvThing: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RvParent: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RvChild: Model {
    var id: Int64 = 0
    var parent_id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RvRenameV1: Model {
    static let tableName = "RvRenamed"
    static let uniqueIndices = [["name"]]
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RvRenameV2: Model {
    static let tableName = "RvRenamed"
    static let renamedColumns = ["title": "name"]
    static let uniqueIndices = [["title"]]
    var id: Int64 = 0
    var title = ""
    required init() {}
}

/// Maps onto a raw `INTEGER PRIMARY KEY` table without AUTOINCREMENT (rowids can be reused).
private final class RvReuse: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RvGuarded: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private struct RvAbort: Error {}

/// "id:name" of every row, by id.
private func contents(_ db: Database, _ table: String) throws -> [String] {
    try db.column(String.self, "SELECT id || ':' || coalesce(name, 'NULL') FROM \(table) ORDER BY id")
}

@Suite struct ReviewRegressionTests {

    // MARK: keychange

    @Test func changingTheKeyOfASavedInstanceIsRefused() throws {
        let db = try Database()
        let a = RvDept(); a.name = "A"; try db.save(a)
        let b = RvDept(); b.name = "B"; try db.save(b)
        #expect((a.id, b.id) == (1, 2))

        a.id = 2; a.name = "X"   // a DTO copied into `a`, key included
        let saveError = try #require(throws: ModelError.self) { try db.save(a) }
        #expect(saveError.kind == .invalidPrimaryKey)
        #expect(saveError.property == "id")
        #expect(try contents(db, "RvDept") == ["1:A", "2:B"])
        #expect(b.name == "B")
        #expect(!b.isDeleted)

        let deleteError = try #require(throws: ModelError.self) { try db.delete(a) }
        #expect(deleteError.kind == .invalidPrimaryKey)
        #expect(try contents(db, "RvDept") == ["1:A", "2:B"])
        #expect(a.isPersisted && !a.isDeleted)
        #expect(b.isPersisted && !b.isDeleted)

        #expect(try db.object(RvDept.self, forKey: 1) === a)
        #expect(try db.object(RvDept.self, forKey: 2) === b)

        // Putting the key back makes the instance usable again.
        a.id = 1
        try db.save(a)
        #expect(try contents(db, "RvDept") == ["1:X", "2:B"])
        try db.delete(a)
        #expect(try contents(db, "RvDept") == ["2:B"])
    }

    @Test func instanceFreedAfterARefusedKeyChangeLeavesNoDanglingEntry() throws {
        let db = try Database()
        weak var freed: RvDept?
        do {
            let a = RvDept(); a.name = "A"; try db.save(a)   // row 1
            a.id = 7
            let error = try #require(throws: ModelError.self) { try db.save(a) }
            #expect(error.kind == .invalidPrimaryKey)
            freed = a
        }
        #expect(freed == nil)
        let fresh = try #require(try db.object(RvDept.self, forKey: 1))
        #expect(fresh.id == 1)
        #expect(fresh.name == "A")
        #expect(fresh.isPersisted)
        #expect(try db.object(RvDept.self, forKey: 7) == nil)
        #expect(try contents(db, "RvDept") == ["1:A"])
    }

    // MARK: dangling-context

    @Test func faultReadAfterTheDatabaseIsReleasedIsNil() throws {
        var db: Database? = try Database()
        try db!.execute("CREATE TABLE RvPerson(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', manager INTEGER)")
        try db!.execute("INSERT INTO RvPerson VALUES (1, 'boss', NULL), (2, 'p', 1)")
        let p = try #require(try db!.object(RvPerson.self, forKey: 2))
        #expect(p.$manager.key == .integer(1))
        db = nil
        #expect(p.manager == nil)
        #expect(p.$manager.key == .integer(1))
        // The throwing form says why: the handle is gone (a load has nowhere to read; no empty answer).
        #expect(throws: DatabaseError.self) { try p.$manager.load() }
        #expect(p.name == "p")
    }

    @Test func heldRelationshipReadAfterTheDatabaseIsReleased() throws {
        var db: Database? = try Database()
        let m = RvPerson(); m.name = "m"
        let p = RvPerson(); p.name = "p"
        try db!.save(m)
        p.manager = m
        try db!.save(p)
        _ = try db!.objects(RvPerson.self, where: "WHERE name = 'p'")
        db = nil
        #expect(p.manager === m)
        #expect(p.$manager.key == .integer(m.id))
    }

    // MARK: let / weak persistent properties

    @Test func letKeyPropertyIsRejected() throws {
        let db = try Database()
        try db.execute("CREATE TABLE RvLetKey(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        try db.execute("INSERT INTO RvLetKey VALUES (42, 'x')")
        let fetchError = try #require(throws: ModelError.self) { try db.objects(RvLetKey.self) }
        #expect(fetchError.kind == .unsupportedType)
        #expect(fetchError.property == "id")
        #expect(fetchError.model == "RvLetKey")
        let lookupError = try #require(throws: ModelError.self) { try db.object(RvLetKey.self, forKey: 42) }
        #expect(lookupError.kind == .unsupportedType)
        #expect(lookupError.property == "id")
        let saveError = try #require(throws: ModelError.self) { try db.save(RvLetKey()) }
        #expect(saveError.kind == .unsupportedType)
        #expect(saveError.property == "id")
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvLetKey") == 1)
    }

    @Test func listedLetPropertyIsRejected() throws {
        let db = try Database()
        let saveError = try #require(throws: ModelError.self) { try db.save(RvLetListed()) }
        #expect(saveError.kind == .unsupportedType)
        #expect(saveError.property == "fixed")
        let fetchError = try #require(throws: ModelError.self) { try db.objects(RvLetListed.self) }
        #expect(fetchError.kind == .unsupportedType)
        #expect(fetchError.property == "fixed")
    }

    @Test func listedWeakPropertyIsRejected() throws {
        let db = try Database()
        let saveError = try #require(throws: ModelError.self) { try db.save(RvWeakListed()) }
        #expect(saveError.kind == .unsupportedType)
        #expect(saveError.property == "buddy")
        let fetchError = try #require(throws: ModelError.self) { try db.objects(RvWeakListed.self) }
        #expect(fetchError.kind == .unsupportedType)
        #expect(fetchError.property == "buddy")
    }

    // MARK: int-pk-desc

    @Test func integerPrimaryKeyDescIsNotTakenForTheRowID() throws {
        let db = try Database()
        try db.execute("CREATE TABLE RvDesc(id INTEGER PRIMARY KEY DESC, name TEXT)")
        try db.execute("INSERT INTO RvDesc(id, name) VALUES (2, 'two'); INSERT INTO RvDesc(id, name) VALUES (1, 'one')")
        // The key and the rowid differ.
        #expect(try db.column(String.self, "SELECT id || '@' || rowid FROM RvDesc ORDER BY id") == ["1@2", "2@1"])
        let one = try #require(try db.object(RvDesc.self, forKey: 1))
        let two = try #require(try db.object(RvDesc.self, forKey: 2))
        #expect((one.id, one.name) == (1, "one"))
        #expect((two.id, two.name) == (2, "two"))

        try db.execute("UPDATE RvDesc SET name = 'TWO' WHERE id = 2")
        #expect((two.id, two.name) == (2, "TWO"))
        #expect((one.id, one.name) == (1, "one"))

        one.name = "edited one"
        try db.save(one)
        #expect(try contents(db, "RvDesc") == ["1:edited one", "2:TWO"])
        #expect((two.id, two.name) == (2, "TWO"))
        #expect(try db.object(RvDesc.self, forKey: 1) === one)
        #expect(try db.object(RvDesc.self, forKey: 2) === two)
    }

    // MARK: int-pk

    @Test func intPrimaryKeyGetsARealKey() throws {
        let db = try Database()
        try db.execute("CREATE TABLE RvThing(id INT PRIMARY KEY, name TEXT)")
        let t = RvThing(); t.name = "a"
        try db.save(t)
        #expect(t.id == 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvThing WHERE id IS NULL") == 0)
        #expect(try contents(db, "RvThing") == ["1:a"])

        t.name = "b"
        try db.save(t)
        #expect(t.id == 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvThing") == 1)
        #expect(try contents(db, "RvThing") == ["1:b"])

        // The next key is max + 1, whatever the rowids.
        try db.execute("INSERT INTO RvThing(id, name) VALUES (10, 'ten')")
        let u = RvThing(); u.name = "u"
        try db.save(u)
        #expect(u.id == 11)
        #expect(try contents(db, "RvThing") == ["1:b", "10:ten", "11:u"])
        #expect(try db.object(RvThing.self, forKey: 11) === u)
        #expect(try db.object(RvThing.self, forKey: 1) === t)
    }

    // MARK: cascade

    @Test func cascadedDeleteReachesLiveInstances() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE RvParent(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE RvChild(id INTEGER PRIMARY KEY,
                parent_id INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL DEFAULT '',
                FOREIGN KEY (parent_id) REFERENCES RvParent(id) ON DELETE CASCADE);
            INSERT INTO RvParent VALUES (1, 'p'); INSERT INTO RvChild VALUES (10, 1, 'c');
            """)
        let parent = try #require(try db.object(RvParent.self, forKey: 1))
        let child = try #require(try db.object(RvChild.self, forKey: 10))
        try db.delete(parent)
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvChild") == 0)
        #expect(parent.isDeleted)
        #expect(child.isDeleted)
        #expect(!child.isPersisted)
        #expect(try db.object(RvChild.self, forKey: 10) == nil)

        // The same through raw SQL.
        try db.execute("INSERT INTO RvParent VALUES (2, 'q'); INSERT INTO RvChild VALUES (11, 2, 'd')")
        let child2 = try #require(try db.object(RvChild.self, forKey: 11))
        try db.execute("DELETE FROM RvParent WHERE id = 2")
        #expect(child2.isDeleted)
        #expect(try db.object(RvChild.self, forKey: 11) == nil)
    }

    // MARK: replace

    @Test func insertOrReplaceRefreshesTheLiveInstance() throws {
        let db = try Database()
        let d = RvDept(); d.name = "old"; try db.save(d)
        try db.execute("INSERT OR REPLACE INTO RvDept(id, name) VALUES (?, ?)", d.id, "new")
        #expect(try contents(db, "RvDept") == ["1:new"])
        #expect(d.name == "new")
        #expect(d.isPersisted)
        #expect(try db.object(RvDept.self, forKey: 1) === d)

        try db.execute("REPLACE INTO RvDept(id, name) VALUES (1, 'newer')")
        #expect(d.name == "newer")
    }

    @Test func replaceOverATextKeyRowRefreshesTheLiveInstance() throws {
        let db = try Database()
        let t = RvTag(); t.code = "k"; t.label = "old"; try db.save(t)
        try db.execute("REPLACE INTO RvTag(code, label) VALUES ('k', 'new')")
        // The replacing row has a new rowid.
        #expect(try db.column(String.self, "SELECT rowid || ':' || label FROM RvTag") == ["2:new"])
        #expect(t.label == "new")
    
        #expect(!t.isDeleted)
        // The instance still follows its row afterwards.
        try db.execute("UPDATE RvTag SET label = 'newer'")
        #expect(t.label == "newer")
    
        #expect(!t.isDeleted)
        #expect(try db.object(RvTag.self, forKey: "k") === t)
    }

    @Test func replaceOverAnIntKeyThatIsNotTheRowIDRefreshesTheLiveInstance() throws {
        let db = try Database()
        try db.execute("CREATE TABLE RvThing(id INT PRIMARY KEY, name TEXT)")
        let t = RvThing(); t.name = "old"; try db.save(t)
        try db.execute("INSERT OR REPLACE INTO RvThing(id, name) VALUES (?, 'new')", t.id)
        #expect(try db.column(String.self, "SELECT rowid || ':' || name FROM RvThing") == ["2:new"])
        #expect(t.name == "new")
    
        #expect(!t.isDeleted)
        #expect(try db.object(RvThing.self, forKey: t.id) === t)
    }

    // MARK: rename-index

    @Test func renamedColumnKeepsItsUniqueIndex() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(RvRenameV1.self)
        let first = RvRenameV1(); first.name = "a"
        try temp.db.save(first)
        #expect(throws: DatabaseError.self) { try temp.db.execute("INSERT INTO RvRenamed(name) VALUES ('a')") }

        let db = try temp.reopen()
        try db.syncSchema(RvRenameV2.self)
        #expect(try db.column(String.self, "SELECT name FROM pragma_table_info('RvRenamed') ORDER BY cid") == ["id", "title"])
        // A unique index on exactly (title) remains.
        let uniqueOnTitle = try db.value(Int.self, """
            SELECT count(*) FROM pragma_index_list('RvRenamed') AS l
            WHERE l."unique" = 1
              AND (SELECT group_concat(name) FROM pragma_index_info(l.name)) = 'title'
            """)
        #expect(uniqueOnTitle == 1)

        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO RvRenamed(title) VALUES ('a')")
        }
        #expect(error.code == .constraintUnique)
        let duplicate = RvRenameV2(); duplicate.title = "a"
        let saveError = try #require(throws: ModelError.self) { try db.save(duplicate) }
        #expect(saveError.kind == .duplicateKey)
        #expect(saveError.properties == ["title"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvRenamed WHERE title = 'a'") == 1)

        #expect(try db.schemaPlan(for: RvRenameV2.self).isEmpty)
        #expect(try db.syncSchema(RvRenameV2.self).isEmpty)
    }

    // MARK: rollback-reuse

    @Test func strataTablesDoNotReuseKeysAndRollbackRestores() throws {
        let db = try Database()
        let a = RvDept(); a.name = "A"; try db.save(a)   // row 1, the largest
        let b = RvDept(); b.name = "B"
        #expect(throws: RvAbort.self) {
            try db.transaction {
                try db.delete(a)
                try db.save(b)
                #expect(b.id == 2)   // AUTOINCREMENT: 1 is not reused
                throw RvAbort()
            }
        }
        #expect(!b.isPersisted)
        #expect(b.id == 0)
        #expect(b.name == "B")
        #expect(a.isPersisted && !a.isDeleted)
        #expect((a.id, a.name) == (1, "A"))
        #expect(try db.object(RvDept.self, forKey: 1) === a)
        #expect(try db.object(RvDept.self, forKey: 2) == nil)
        #expect(try contents(db, "RvDept") == ["1:A"])

        // b can be saved afterwards as a new row.
        try db.save(b)
        #expect(b.isPersisted && b.id != 1)
        #expect(try db.object(RvDept.self, forKey: b.id) === b)
    }

    @Test func rollbackOfAnInsertThatReusedADeletedRowIDRestoresTheDeletedInstance() throws {
        let db = try Database()
        try db.execute("CREATE TABLE RvReuse(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        let a = RvReuse(); a.name = "A"; try db.save(a)   // row 1, the largest
        #expect(a.id == 1)
        let b = RvReuse(); b.name = "B"
        #expect(throws: RvAbort.self) {
            try db.transaction {
                try db.delete(a)
                try db.save(b)
                #expect(b.id == 1)   // no AUTOINCREMENT: the freed rowid is taken again
                throw RvAbort()
            }
        }
        #expect(!b.isPersisted)
        #expect(b.id == 0)
        #expect(a.isPersisted && !a.isDeleted)
        #expect((a.id, a.name) == (1, "A"))
        #expect(try db.object(RvReuse.self, forKey: 1) === a)
        #expect(try contents(db, "RvReuse") == ["1:A"])

        // Both still work afterwards.
        a.name = "A2"; try db.save(a)
        try db.save(b)
        #expect(b.id == 2)
        #expect(try contents(db, "RvReuse") == ["1:A2", "2:B"])
    }

    // MARK: stmt-rollback

    @Test func failedStatementMarksNoInstanceDeleted() throws {
        let db = try Database()
        try db.syncSchema(RvGuarded.self)
        try db.execute("CREATE TRIGGER rv_guard BEFORE DELETE ON RvGuarded WHEN old.id = 3 BEGIN SELECT RAISE(ABORT, 'row 3 is protected'); END")
        var objects: [RvGuarded] = []
        for i in 1...3 { let g = RvGuarded(); g.name = "g\(i)"; try db.save(g); objects.append(g) }
        var seen: [DatabaseChange] = []
        let observation = db.observeChanges { seen += $0 }
        defer { observation.cancel() }

        // Caught inside the transaction, which then commits.
        var caught: (any Error)?
        try db.transaction {
            do { try db.execute("DELETE FROM RvGuarded") } catch { caught = error }
        }
        let error = try #require(caught as? DatabaseError)
        #expect(error.message.contains("row 3 is protected"))
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvGuarded") == 3)
        #expect(objects.map(\.isDeleted) == [false, false, false])
        #expect(objects.map(\.isPersisted) == [true, true, true])
        #expect(seen.flatMap(\.deletedRowIDs).isEmpty)

        // Thrown out of the transaction (rolled back).
        #expect(throws: DatabaseError.self) {
            try db.transaction { try db.execute("DELETE FROM RvGuarded") }
        }
        #expect(objects.map(\.isDeleted) == [false, false, false])
        #expect(seen.flatMap(\.deletedRowIDs).isEmpty)

        // Outside any transaction.
        #expect(throws: DatabaseError.self) { try db.execute("DELETE FROM RvGuarded") }
        #expect(objects.map(\.isDeleted) == [false, false, false])
        #expect(seen.flatMap(\.deletedRowIDs).isEmpty)

        // The instances still save as the rows they are.
        objects[0].name = "changed"
        try db.save(objects[0])
        #expect(try contents(db, "RvGuarded") == ["1:changed", "2:g2", "3:g3"])
        for (i, object) in objects.enumerated() { #expect(try db.object(RvGuarded.self, forKey: Int64(i + 1)) === object) }
    }

    // MARK: no-reconcile

    @Test func valueAndColumnReconcileLiveInstances() throws {
        let db = try Database()
        let d = RvDept(); d.name = "x"; try db.save(d)
        let deleted = try db.value(Int64.self, "DELETE FROM RvDept WHERE id = ? RETURNING id", d.id)
        #expect(deleted == 1)
        #expect(d.isDeleted)
        #expect(try db.object(RvDept.self, forKey: 1) == nil)
        #expect(try db.value(Int.self, "SELECT count(*) FROM RvDept") == 0)

        let e = RvDept(); e.name = "e"; try db.save(e)
        let f = RvDept(); f.name = "f"; try db.save(f)
        let names = try db.column(String.self, "UPDATE RvDept SET name = name || '!' WHERE id = ? RETURNING name", e.id)
        #expect(names == ["e!"])
        #expect(e.name == "e!")
        #expect(f.name == "f")

        let gone = try db.column(Int64.self, "DELETE FROM RvDept WHERE id = ? RETURNING id", f.id)
        #expect(gone == [f.id])
        #expect(f.isDeleted)
        #expect(!e.isDeleted)

        let rows = try db.rows("UPDATE RvDept SET name = 'via rows' RETURNING id")
        #expect(rows.count == 1)
        #expect(e.name == "via rows")
    }

    // MARK: prefetch-cycle

    @Test func prefetchedSelfReferenceDoesNotLeak() throws {
        weak var weakBoss: RvPerson?
        do {
            let db = try Database()
            try db.execute("CREATE TABLE RvPerson(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', manager INTEGER)")
            try db.execute("INSERT INTO RvPerson VALUES (1, 'boss', 1)")   // the boss manages herself
            let staff = try db.objects(RvPerson.self)
            try db.prefetch("manager", of: staff)
            let boss = try #require(staff.first)
            #expect(boss.manager === boss)
            weakBoss = boss
        }
        #expect(weakBoss == nil)
    }

    @Test func prefetchedTwoPersonCycleDoesNotLeak() throws {
        weak var weakA: RvPerson?
        weak var weakB: RvPerson?
        do {
            let db = try Database()
            try db.execute("CREATE TABLE RvPerson(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', manager INTEGER)")
            try db.execute("INSERT INTO RvPerson VALUES (1, 'a', 2), (2, 'b', 1)")   // each manages the other
            let staff = try db.objects(RvPerson.self, where: "ORDER BY id")
            try db.prefetch("manager", of: staff)
            #expect(staff[0].manager === staff[1])
            #expect(staff[1].manager === staff[0])
            weakA = staff[0]
            weakB = staff[1]
        }
        #expect(weakA == nil && weakB == nil)
    
    }

    @Test func prefetchedCycleThroughTwoTypesDoesNotLeak() throws {
        weak var weakTeam: RvTeam?
        weak var weakLead: RvLead?
        do {
            let db = try Database()
            try db.execute("CREATE TABLE RvTeam(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', lead INTEGER)")
            try db.execute("CREATE TABLE RvLead(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', team INTEGER)")
            try db.execute("INSERT INTO RvTeam VALUES (1, 'core', 1)")
            try db.execute("INSERT INTO RvLead VALUES (1, 'ada', 1)")
            let teams = try db.objects(RvTeam.self, prefetching: ["lead"])
            let leads = try db.objects(RvLead.self, prefetching: ["team"])
            #expect(teams[0].lead === leads[0])
            #expect(leads[0].team === teams[0])
            weakTeam = teams[0]
            weakLead = leads[0]
        }
        #expect(weakTeam == nil && weakLead == nil)
    }
}

private final class RvTeam: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var lead: RvLead?
    required init() {}
}

private final class RvLead: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var team: RvTeam?
    required init() {}
}

@Suite struct BareStatementTests {
    @Test func writesThroughABareStatementReachLiveInstancesBeforeTheNextModelCall() throws {
        let db = try Database()
        let item = BareItem(); item.name = "old"
        try db.save(item)
        try db.statement("UPDATE BareItem SET name = ? WHERE id = ?").run(["new", item.id])
        let again = try db.object(BareItem.self, forKey: item.id)
        #expect(again === item)
        #expect(item.name == "new")
        try db.statement("DELETE FROM BareItem").run()
        #expect(try db.objects(BareItem.self).isEmpty)
        #expect(item.isDeleted)
    }
}

private final class BareItem: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}
