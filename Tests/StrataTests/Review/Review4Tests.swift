import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Second reader's tests of save([...]) ordering of self-referencing batches (ef6abb1) and of the index of
// array owners (b93a205, f226e8e).

private final class R4Person: Model {
    static let persistentProperties = ["id", "name", "partner", "mentor"]
    var id: Int64 = 0
    var name = ""
    @Reference var partner: R4Person?
    @Reference var mentor: R4Person?
    required init() {}
    convenience init(_ name: String) { self.init(); self.name = name }
}

private final class R4TextPerson: Model {
    var id = ""
    @Reference var partner: R4TextPerson?
    required init() {}
    convenience init(_ id: String) { self.init(); self.id = id }
}

private final class R4Parent: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "parent", orderBy: "id") var kids: [R4Kid]
    required init() {}
}

private final class R4Kid: Model {
    var id: Int64 = 0
    @Reference var parent: R4Parent?
    required init() {}
}

private final class R4TextParent: Model {
    var id = ""
    var name = ""
    @Children(by: "parent", orderBy: "id") var kids: [R4TextKid]
    required init() {}
}

private final class R4TextKid: Model {
    var id: Int64 = 0
    @Reference var parent: R4TextParent?
    required init() {}
}

private final class R4WeakBox { weak var object: AnyObject?; init(_ o: AnyObject) { object = o } }
private struct R4Undo: Error {}

private func stored(_ db: Database, _ column: String, of person: R4Person) throws -> Int64? {
    try db.value(Int64.self, "SELECT \(column) FROM R4Person WHERE id = ?", arguments: [person.id])
}

@Suite struct Review4Tests {
    // MARK: save([...]) of a self-referencing batch

    /// The UPDATE that closes the cycle fails (a trigger): nothing is written, both objects are new again and
    /// still refer to each other, and a second save after the cause is gone writes both references.
    @Test func aFailedClosingUpdateLeavesBothNewAndLinked() throws {
        let db = try Database()
        try db.syncSchema(R4Person.self)
        try db.execute("CREATE TRIGGER r4_no_update BEFORE UPDATE ON R4Person BEGIN SELECT RAISE(ABORT, 'no updates'); END")
        let (a, b) = (R4Person("a"), R4Person("b"))
        a.partner = b; b.partner = a
        #expect(throws: (any Error).self) { try db.save([a, b]) }
        #expect(a.id == 0 && b.id == 0)
        #expect(a.partner === b && b.partner === a)
        #expect(try db.value(Int.self, "SELECT count(*) FROM R4Person") == 0)
        try db.execute("DROP TRIGGER r4_no_update")
        try db.save([a, b])
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "partner", of: b) == a.id)
    }

    /// A failed insert mid-batch (a UNIQUE name): both new again, linked, and savable once fixed.
    @Test func aFailedInsertLeavesBothNewAndLinked() throws {
        let db = try Database()
        try db.execute("CREATE TABLE R4Person (id INTEGER PRIMARY KEY, name TEXT UNIQUE, partner INTEGER, mentor INTEGER)")
        try db.execute("INSERT INTO R4Person (id, name) VALUES (100, 'taken')")
        let (a, b) = (R4Person("a"), R4Person("taken"))
        a.partner = b; b.partner = a
        #expect(throws: (any Error).self) { try db.save([a, b]) }
        #expect(a.id == 0 && b.id == 0 && a.partner === b && b.partner === a)
        b.name = "b"
        try db.save([a, b])
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "partner", of: b) == a.id)
    }

    /// a was assigned b first, so a holds b strongly and b holds a weakly. A failed save of [b, a] defers a's
    /// reference; afterwards a must still keep b alive (as before the call).
    /// (Failing in the closing UPDATE, or in the second INSERT.)
    @Test(arguments: [false, true])
    func aFailedSaveKeepsTheStrongHoldWhereItWas(failingInsert: Bool) throws {
        let db = try Database()
        try db.execute("CREATE TABLE R4Person (id INTEGER PRIMARY KEY, name TEXT UNIQUE, partner INTEGER, mentor INTEGER)")
        if failingInsert {
            try db.execute("INSERT INTO R4Person (id, name) VALUES (100, 'taken')")
        } else {
            try db.execute("CREATE TRIGGER r4_no_update2 BEFORE UPDATE ON R4Person BEGIN SELECT RAISE(ABORT, 'no updates'); END")
        }
        let a = R4Person("a")
        let box: R4WeakBox
        do {
            let b = R4Person(failingInsert ? "taken" : "b")
            box = R4WeakBox(b)
            a.partner = b; b.partner = a
            #expect(throws: (any Error).self) { try db.save([b, a]) }
        }
        #expect(box.object != nil)   // a holds b
        #expect(a.partner === box.object)
    }

    /// The same after a successful save of [b, a], then the same batch failing elsewhere is not needed: a
    /// successful save leaves no strong cycle, and both are freed when dropped.
    @Test func aSavedCycleGivenInEitherOrderIsFreed() throws {
        let db = try Database()
        var boxes: [R4WeakBox] = []
        for reversed in [false, true] {
            do {
                let (a, b) = (R4Person("a"), R4Person("b"))
                a.partner = b; b.partner = a
                a.mentor = b; b.mentor = a
                try db.save(reversed ? [b, a] : [a, b])
                boxes += [R4WeakBox(a), R4WeakBox(b)]
                #expect(a.partner === b && b.partner === a && a.mentor === b && b.mentor === a)
            }
        }
        #expect(boxes.allSatisfy { $0.object == nil })
    }

    /// A new object that the batch refers to but does not contain: nothing is written.
    @Test func aReferenceToANewObjectOutsideTheBatchWritesNothing() throws {
        let db = try Database()
        try db.syncSchema(R4Person.self)
        let (a, b, outside) = (R4Person("a"), R4Person("b"), R4Person("outside"))
        a.partner = b; b.partner = a; a.mentor = outside
        let error = #expect(throws: ModelError.self) { try db.save([a, b]) }
        #expect(error?.kind == .unsavedRelated)
        #expect(a.id == 0 && b.id == 0 && outside.id == 0)
        #expect(a.partner === b && b.partner === a && a.mentor === outside)
        #expect(try db.value(Int.self, "SELECT count(*) FROM R4Person") == 0)
    }

    /// An object given twice, a saved object in the cycle's reach, and a cycle through two properties.
    @Test func duplicatesSavedObjectsAndTwoProperties() throws {
        let db = try Database()
        let saved = R4Person("saved")
        try db.save(saved)
        let (a, b) = (R4Person("a"), R4Person("b"))
        a.partner = b; b.mentor = a
        saved.partner = a; a.mentor = saved
        try db.save([a, saved, b, a, b])
        #expect(try db.value(Int.self, "SELECT count(*) FROM R4Person") == 3)
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "mentor", of: b) == a.id)
        #expect(try stored(db, "partner", of: saved) == a.id && stored(db, "mentor", of: a) == saved.id)
        #expect(!a.hasChanges && !b.hasChanges && !saved.hasChanges)
    }

    /// Text keys.
    @Test func textKeyedCycle() throws {
        let db = try Database()
        let (a, b, c) = (R4TextPerson("a"), R4TextPerson("b"), R4TextPerson("c"))
        a.partner = b; b.partner = c; c.partner = a
        try db.save([a, b, c])
        #expect(try db.value(String.self, "SELECT partner FROM R4TextPerson WHERE id = 'c'") == "a")
        #expect(try db.value(String.self, "SELECT partner FROM R4TextPerson WHERE id = 'a'") == "b")
        #expect(!a.hasChanges && !b.hasChanges && !c.hasChanges)
    }

    /// A cycle over a nullable column while another (NOT NULL) column fails: the original error, not a
    /// misleading "cycle" one, and both stay new and linked.
    @Test func aNotNullFailureOnAnotherColumnIsReportedAsItself() throws {
        let db = try Database()
        try db.execute("CREATE TABLE R4Person (id INTEGER PRIMARY KEY, name TEXT NOT NULL CHECK (name <> ''), partner INTEGER, mentor INTEGER)")
        let (a, b) = (R4Person("a"), R4Person(""))
        a.partner = b; b.partner = a
        let error = #expect(throws: (any Error).self) { try db.save([a, b]) }
        #expect((error as? ModelError)?.kind != .unsavedRelated)
        #expect(a.id == 0 && b.id == 0 && a.partner === b && b.partner === a)
    }

    /// Foreign keys enforced, the self-reference DEFERRABLE INITIALLY DEFERRED, or immediate with a cascade.
    @Test(arguments: ["DEFERRABLE INITIALLY DEFERRED", "ON DELETE CASCADE"])
    func aCycleUnderEnforcedForeignKeys(clause: String) throws {
        let db = try Database()
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("CREATE TABLE R4Person (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', partner INTEGER REFERENCES R4Person(id) \(clause), mentor INTEGER REFERENCES R4Person(id))")
        let (a, b) = (R4Person("a"), R4Person("b"))
        a.partner = b; b.partner = a; b.mentor = a
        try db.save([a, b])
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "partner", of: b) == a.id)
    }

    /// Inside an enclosing transaction that goes on after the failed batch: the batch leaves nothing, the
    /// objects are new and linked, and saving them again in the same transaction works.
    @Test func aFailedBatchInsideATransactionThatGoesOn() throws {
        let db = try Database()
        try db.execute("CREATE TABLE R4Person (id INTEGER PRIMARY KEY, name TEXT UNIQUE, partner INTEGER, mentor INTEGER)")
        try db.execute("INSERT INTO R4Person (id, name) VALUES (100, 'taken')")
        let (a, b) = (R4Person("a"), R4Person("taken"))
        a.partner = b; b.partner = a
        try db.transaction {
            #expect(throws: (any Error).self) { try db.save([a, b]) }
            #expect(a.id == 0 && b.id == 0 && a.partner === b && b.partner === a)
            b.name = "b"
            try db.save([a, b])
        }
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "partner", of: b) == a.id)
        #expect(try db.value(Int.self, "SELECT count(*) FROM R4Person") == 3)
    }

    /// retryingOnConflict: the first attempt inserts the new pair, then meets a conflict on a saved object
    /// of the batch; the retry writes everything once.
    @Test func aRetriedBatchWritesThePairOnce() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let saved = R4Person("saved")
        try db.save(saved)
        let other = try Database(path: temp.path)
        try other.execute("UPDATE R4Person SET name = 'theirs' WHERE id = ?", arguments: [saved.id])
        let (a, b) = (R4Person("a"), R4Person("b"))
        var attempts = 0
        try db.retryingOnConflict {
            attempts += 1
            a.partner = b; b.partner = a
            saved.name = "mine"
            saved.mentor = a
            try db.save([a, b, saved])
        }
        #expect(attempts >= 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM R4Person") == 3)
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "partner", of: b) == a.id)
        #expect(try stored(db, "mentor", of: saved) == a.id)
        try other.close()
    }

    // MARK: The index of array owners

    /// A parent that loaded its array, deleted in a transaction that is rolled back: while it was deleted a
    /// pass compacted the index (raw SQL into the child table), so after the rollback it is not among the
    /// owners, and raw SQL adding a child later leaves its array stale.
    @Test func anOwnerBroughtBackByARollbackStaysIndexed() throws {
        let db = try Database()
        let p = R4Parent(); p.name = "p"
        try db.save(p)
        let k = R4Kid(); k.parent = p
        try db.save(k)
        #expect(p.kids.count == 1)
        #expect(throws: R4Undo.self) {
            try db.transaction {
                try db.delete(p)
                try db.execute("INSERT INTO R4Kid (parent) VALUES (9999)")
                throw R4Undo()
            }
        }
        #expect(!p.isDeleted)
        try db.execute("INSERT INTO R4Kid (parent) VALUES (?)", arguments: [p.id])
        #expect(p.kids.count == 2)
    }

    /// A parent saved and its array loaded in a transaction that is rolled back: it is new again, and once
    /// saved again its array follows raw SQL into the child table.
    @Test func anOwnerWhoseInsertWasUndoneDoesNotKeepItsArray() throws {
        let db = try Database()
        _ = try db.objects(R4Kid.self)
        let p = R4Parent(); p.name = "p"
        #expect(throws: R4Undo.self) {
            try db.transaction {
                try db.save(p)
                let k = R4Kid(); k.parent = p
                try db.save(k)
                #expect(p.kids.count == 1)
                throw R4Undo()
            }
        }
        #expect(p.id == 0)
        #expect(p.kids.isEmpty)   // new: no rows
        try db.save(p)
        try db.execute("INSERT INTO R4Kid (parent) VALUES (?)", arguments: [p.id])
        #expect(p.kids.count == 1)
    }

    /// Text-keyed owners on a rowid table re-keyed by raw INSERT OR REPLACE (a new rowid), and on a WITHOUT
    /// ROWID table: their loaded arrays follow a later raw insert of a child.
    @Test(arguments: [false, true])
    func textKeyedOwnersFollowRawChildInserts(withoutRowID: Bool) throws {
        let db = try Database()
        try db.execute("CREATE TABLE R4TextParent (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '')\(withoutRowID ? " WITHOUT ROWID" : "")")
        _ = try db.objects(R4TextKid.self)
        let p = R4TextParent(); p.id = "p"
        try db.save(p)
        let k = R4TextKid(); k.parent = p
        try db.save(k)
        #expect(p.kids.count == 1)
        try db.execute("INSERT OR REPLACE INTO R4TextParent (id, name) VALUES ('p', 'renamed')")
        #expect(p.name == "renamed" && !p.isDeleted)
        #expect(p.kids.count == 1)
        // A nested rollback of a delete, and a prefetch, in between.
        #expect(throws: R4Undo.self) {
            try db.transaction {
                try db.transaction { try db.delete(p); try db.execute("INSERT INTO R4TextKid (parent) VALUES ('zz')"); throw R4Undo() }
            }
        }
        _ = try db.objects(R4TextParent.self, prefetching: ["kids"])
        #expect(p.kids.count == 1)
        try db.execute("INSERT INTO R4TextKid (parent) VALUES ('p')")
        #expect(p.kids.count == 2)
    }
}
