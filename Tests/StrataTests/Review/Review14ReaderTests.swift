import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 14, second reader of the day's library changes (c1f9e0c..): the rollback rule for failed saves in
// transaction blocks (refusedInTransaction), the new savepoints around a self-referencing insert and an
// upsert adoption, TableInfo.rowIDName, the NUL-byte checks and raw-identifier property names.

private final class R14RItem: Model {
    static let tableName = "r14r_item"
    var id: Int64 = 0
    var name = ""
    var qty = 0
    required init() {}
}

private final class R14RNode: Model {
    static let tableName = "r14r_node"
    var id: Int64 = 0
    var name = ""
    @Reference var next: R14RNode?
    required init() {}
}

private final class R14RSynced: Model {
    static let tableName = "r14r_synced"
    static let upsertKeys = ["serverID"]
    var id: Int64 = 0
    var serverID = ""
    var slug = ""
    required init() {}
}

private struct R14RUndo: Error {}

private final class R14RLog: @unchecked Sendable {
    var statements: [String] = []
}

private func itemDatabase() throws -> TemporaryDatabase {
    let temp = try TemporaryDatabase()
    try temp.db.execute("""
        CREATE TABLE r14r_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL CHECK (qty >= 0));
        CREATE TRIGGER r14r_item_guard BEFORE UPDATE ON r14r_item WHEN NEW.qty > 50 BEGIN SELECT RAISE(ROLLBACK, 'too many'); END;
        INSERT INTO r14r_item (name, qty) VALUES ('a', 1), ('b', 2);
        """)
    return temp
}

@Suite struct Review14ReaderTests {
    @Test func anInstanceInsertedInABlockWhoseLaterSaveRolledBackTheBlockBecomesNewAgain() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let x = R14RItem(); x.name = "x"; x.qty = 5
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.save(x)
                x.qty = 99   // the trigger's RAISE(ROLLBACK) ends the block's transaction
                try db.save(x)
            }
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14r_item WHERE name = 'x'") == 0)
        // Inserted in a rolled-back block: new again, with its values, not deleted.
        #expect(!x.isDeleted)
        #expect(x.id == 0)
        try db.transaction { x.qty = 6; try db.save(x) }
        #expect(try db.value(Int.self, "SELECT qty FROM r14r_item WHERE name = 'x'") == 6)
    }

    @Test func anInstanceInsertedInABlockWhoseLaterSaveRolledBackTheBlockAndWasCaughtBecomesNewAgain() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let x = R14RItem(); x.name = "x"; x.qty = 5
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.save(x)
                x.qty = 99
                do { try db.save(x) } catch {}
                #expect(!x.isDeleted)
            }
        }
        #expect(!x.isDeleted)
        #expect(x.id == 0)
    }

    @Test func aSelfReferencingNewObjectSavedOnItsOwnRunsNoSavepoint() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r14r_node (id INTEGER PRIMARY KEY, name TEXT NOT NULL, next INTEGER REFERENCES r14r_node (id))")
        let a = R14RNode(); a.name = "a"; a.next = a
        let log = R14RLog()
        let trace = db.traceStatements { log.statements.append($0) }
        try db.save(a)
        trace.cancel()
        #expect(!log.statements.contains { $0.hasPrefix("SAVEPOINT") })
        #expect(try db.value(Int64.self, "SELECT next FROM r14r_node") == a.id)
    }

    @Test func anAdoptingSaveOnItsOwnRunsNoSavepoint() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14r_synced (id INTEGER PRIMARY KEY, serverID TEXT NOT NULL UNIQUE, slug TEXT NOT NULL UNIQUE);
            INSERT INTO r14r_synced VALUES (1, 's1', 'one');
            """)
        let incoming = R14RSynced(); incoming.serverID = "s1"; incoming.slug = "uno"
        let log = R14RLog()
        let trace = db.traceStatements { log.statements.append($0) }
        try db.save(incoming)
        trace.cancel()
        #expect(!log.statements.contains { $0.hasPrefix("SAVEPOINT") })
        #expect(incoming.id == 1)
    }

    @Test func anOrdinarySaveInABlockRunsOnlyItsUpdate() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14RItem.self, forKey: 1))
        let log = R14RLog()
        try db.transaction {
            let trace = db.traceStatements { log.statements.append($0) }
            a.qty = 3
            try db.save(a)
            let n = R14RItem(); n.name = "n"
            try db.save(n)
            trace.cancel()
        }
        #expect(log.statements.count == 2)
    }

    @Test func refusedEntriesDoNotOutliveTheBlock() throws {
        let temp = try itemDatabase()
        let db = temp.db
        weak var weakA: R14RItem?
        try db.transaction {
            let a = try #require(try db.object(R14RItem.self, forKey: 1))
            weakA = a
            a.qty = -1
            #expect(throws: (any Error).self) { try db.save(a) }
            #expect(db.models.refusedInTransaction.count == 1)
        }
        #expect(db.models.refusedInTransaction.isEmpty)
        #expect(weakA == nil)
    }

    @Test func refusedEntriesAreDroppedByARawCommitOrRollback() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14RItem.self, forKey: 1))
        for end in ["COMMIT", "ROLLBACK"] {
            try db.execute("BEGIN")
            a.qty = -1
            #expect(throws: (any Error).self) { try db.save(a) }
            try db.execute(end)
            #expect(db.models.refusedInTransaction.isEmpty, "\(end)")
            a.qty = 4
            try db.save(a)
            #expect(try db.value(Int.self, "SELECT qty FROM r14r_item WHERE id = 1") == 4)
        }
    }

    @Test func aRefusedSaveInABlockRawlyCommittedDoesNotDiscardTheNextBlocksEdits() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14RItem.self, forKey: 1))
        let b = try #require(try db.object(R14RItem.self, forKey: 2))
        // A refused save noted in a block whose transaction a raw COMMIT ended.
        #expect(throws: (any Error).self) {
            try db.transaction {
                a.qty = -1
                do { try db.save(a); Issue.record("saved") } catch {}
                try db.execute("COMMIT")
            }
        }
        a.qty = 7
        b.qty = 8
        #expect(throws: R14RUndo.self) {
            try db.transaction { try db.save(b); throw R14RUndo() }
        }
        #expect(a.qty == 7 && a.changedProperties == ["qty"])
        #expect(b.qty == 2)
    }
}

extension Review14ReaderTests {
    @Test func aSelfReferencingNewObjectWhoseUpdateFailsInARawTransactionWritesNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r14r_node (id INTEGER PRIMARY KEY, name TEXT NOT NULL, next INTEGER REFERENCES r14r_node (id) CHECK (next IS NULL OR next <> id))")
        let a = R14RNode(); a.name = "a"; a.next = a
        try db.execute("BEGIN IMMEDIATE")
        #expect(throws: (any Error).self) { try db.save(a) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14r_node") == 0)
        try db.execute("COMMIT")
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14r_node") == 0)
        #expect(a.id == 0 && a.next === a)
    }

    @Test func aBatchWithASelfReferencingNewObjectRunsNoSavepointOfItsOwn() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r14r_node (id INTEGER PRIMARY KEY, name TEXT NOT NULL, next INTEGER REFERENCES r14r_node (id) CHECK (next IS NULL OR next <> id OR name <> 'bad'))")
        let a = R14RNode(); a.name = "a"; a.next = a
        let b = R14RNode(); b.name = "b"
        let log = R14RLog()
        let trace = db.traceStatements { log.statements.append($0) }
        try db.save([a, b])
        trace.cancel()
        #expect(log.statements.filter { $0.hasPrefix("SAVEPOINT") || $0.hasPrefix("RELEASE") }.isEmpty)
        #expect(try db.value(Int64.self, "SELECT next FROM r14r_node WHERE name = 'a'") == a.id)
        // In a block, the batch is one savepoint, and a failing self-reference in it undoes the batch.
        let c = R14RNode(); c.name = "c"
        let bad = R14RNode(); bad.name = "bad"; bad.next = bad
        try db.transaction {
            #expect(throws: (any Error).self) { try db.save([c, bad]) }
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r14r_node") == 2)
        #expect(c.id == 0 && bad.id == 0 && bad.next === bad)
    }
}

private final class R14RBox: @unchecked Sendable {
    weak var item: R14RItem?
    var strong: R14RItem?
}

extension Review14ReaderTests {
    @Test func aPoolWriteWhoseSaveFailedAndThatThrewLeavesNothingNotedAndTheInstanceItsRow() async throws {
        let temp = try itemDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        let box = R14RBox()
        await #expect(throws: R14RUndo.self) {
            try await pool.write { db in
                let a = try #require(try db.object(R14RItem.self, forKey: 1))
                box.strong = a
                a.qty = 4
                try db.save(a)
                a.qty = -1
                do { try db.save(a); Issue.record("saved") } catch {}
                throw R14RUndo()
            }
        }
        let seen = try await pool.write { db in
            (db.models.refusedInTransaction.count, box.strong?.qty ?? -99, box.strong?.hasChanges ?? true)
        }
        #expect(seen.0 == 0 && seen.1 == 1 && !seen.2)
        // A failed save caught, then the block commits: the instance keeps its edit, nothing stays noted.
        let kept = try await pool.write { db in
            let a = try #require(try db.object(R14RItem.self, forKey: 1))
            a.qty = -5
            do { try db.save(a); Issue.record("saved") } catch {}
            return a.qty
        }
        #expect(kept == -5)
        let after = try await pool.write { db in
            (db.models.refusedInTransaction.count, box.strong?.qty ?? -99, box.strong?.changedProperties ?? [])
        }
        #expect(after.0 == 0 && after.1 == -5 && after.2 == ["qty"])
        box.strong = nil
        try await pool.close()
    }

    @Test func aRetryingBodyThatSwallowsAFailedSaveAndCommitsKeepsTheEditAndNotesNothing() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14RItem.self, forKey: 1))
        let b = try #require(try db.object(R14RItem.self, forKey: 2))
        try db.retryingOnConflict {
            a.qty = -1
            do { try db.save(a); Issue.record("saved") } catch {}
            b.qty += 1
            try db.save(b)
        }
        #expect(db.models.refusedInTransaction.isEmpty)
        #expect(a.qty == -1 && a.changedProperties == ["qty"])
        #expect(b.qty == 3 && !b.hasChanges)
        // A later block that rolls back does not take a's edit (its refusal was the committed block's).
        #expect(throws: R14RUndo.self) { try db.transaction { b.qty += 1; try db.save(b); throw R14RUndo() } }
        #expect(a.qty == -1 && b.qty == 3)
    }

    @Test func closingInsideABlockAfterARefusedSaveLeavesNothingNoted() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let box = R14RBox()
        #expect(throws: (any Error).self) {
            try db.transaction {
                let a = try #require(try db.object(R14RItem.self, forKey: 1))
                box.item = a
                a.qty = -1
                do { try db.save(a); Issue.record("saved") } catch {}
                try db.close()
            }
        }
        #expect(db.models.refusedInTransaction.isEmpty)
        #expect(box.item == nil)
        #expect(try Database(path: temp.path).value(Int.self, "SELECT qty FROM r14r_item WHERE id = 1") == 1)
    }

    @Test func aRefusalInAReleasedSavepointIsUndoneByTheOuterRollbackButNotByASiblings() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14RItem.self, forKey: 1))
        let b = try #require(try db.object(R14RItem.self, forKey: 2))
        try db.transaction {
            try db.transaction {
                a.qty = 5; try db.save(a)
                a.qty = -1
                do { try db.save(a); Issue.record("saved") } catch {}
            }
            #expect(db.models.refusedInTransaction.first?.value.depth == 1)
            #expect(throws: R14RUndo.self) { try db.transaction { b.qty = 7; try db.save(b); throw R14RUndo() } }
            // The sibling's rollback leaves a's caught refusal alone.
            #expect(a.qty == -1 && b.qty == 2)
            #expect(db.models.refusedInTransaction.count == 1)
        }
        // The outer block committed a's qty 5; a keeps its unsaved -1.
        #expect(try db.value(Int.self, "SELECT qty FROM r14r_item WHERE id = 1") == 5)
        #expect(a.qty == -1 && a.changedProperties == ["qty"])
        #expect(db.models.refusedInTransaction.isEmpty)
    }
}

extension Review14ReaderTests {
    @Test func aParameterNameWithANulByteBindsNoOtherParameter() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let statement = try db.statement("UPDATE r14r_item SET qty = :q WHERE name = :n")
        try statement.bind("a", named: ":n")
        // SQLite reads the name as a C string: ":q\0x" would be cut to ":q" and bind that parameter.
        let error = #expect(throws: DatabaseError.self) { try statement.bind(40, named: ":q\u{0}x") }
        #expect(error?.code.primary == .range)
        #expect(error?.message.contains("NUL") == true)
        let unbound = #expect(throws: DatabaseError.self) { try statement.bind(40, named: ":n\u{0}") }
        #expect(unbound?.code.primary == .range)
        try statement.bind(3, named: ":q")
        while try statement.step() {}
        #expect(try db.value(Int.self, "SELECT qty FROM r14r_item WHERE name = 'a'") == 3)
    }
}

private final class R14RCrew: Model {
    static let tableName = "r14r_crew"
    var id: Int64 = 0
    var `crew name` = ""
    @Children(by: "home crew", orderBy: "name") var `crew members`: [R14RSailor]
    required init() {}
}

private final class R14RSailor: Model {
    static let tableName = "r14r_sailor"
    var id: Int64 = 0
    var name = ""
    @Reference var `home crew`: R14RCrew?
    required init() {}
}

extension Review14ReaderTests {
    @Test func rawIdentifierRelationshipsLoadPrefetchAndFollowWrites() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let crew = R14RCrew(); crew.`crew name` = "blue"
        try db.save(crew)
        let x = R14RSailor(); x.name = "x"; x.`home crew` = crew
        let y = R14RSailor(); y.name = "y"; y.`home crew` = crew
        try db.save([x, y])
        #expect(crew.`crew members`.map(\.name) == ["x", "y"])
        let fresh = try Database(path: temp.path)
        defer { try? fresh.close() }
        let crews = try fresh.objects(R14RCrew.self, prefetching: ["crew members"])
        #expect(crews.first?.`crew members`.map(\.name) == ["x", "y"])
        let sailors = try fresh.objects(R14RSailor.self, prefetching: ["home crew"])
        #expect(sailors.map { $0.`home crew`?.`crew name` } == ["blue", "blue"])
        try db.execute("DELETE FROM r14r_sailor WHERE name = 'y'")
        #expect(crew.`crew members`.map(\.name) == ["x"])
        #expect(try db.objects(R14RSailor.self, matching: ["home crew": crew.id]).count == 1)
    }

    @Test func aRefusedInstanceDeletedLaterInTheRolledBackBlockComesBackWithItsRow() throws {
        let temp = try itemDatabase()
        let db = temp.db
        let a = try #require(try db.object(R14RItem.self, forKey: 1))
        #expect(throws: R14RUndo.self) {
            try db.transaction {
                a.qty = -1
                do { try db.save(a); Issue.record("saved") } catch {}
                try db.delete(a)
                throw R14RUndo()
            }
        }
        #expect(!a.isDeleted && a.qty == 1 && !a.hasChanges)
        a.qty = 2
        try db.save(a)
        #expect(try db.value(Int.self, "SELECT qty FROM r14r_item WHERE id = 1") == 2)
    }
}

extension Review14ReaderTests {
    @Test func anAdoptionInABlockSurvivesASiblingSavepointsRollbackAndIsUndoneByTheBlocks() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r14r_synced (id INTEGER PRIMARY KEY, serverID TEXT NOT NULL UNIQUE, slug TEXT NOT NULL UNIQUE);
            INSERT INTO r14r_synced VALUES (1, 's1', 'one'), (2, 's2', 'two'), (3, 's3', 'three');
            """)
        let incoming = R14RSynced(); incoming.serverID = "s1"; incoming.slug = "uno"
        let other = try #require(try db.object(R14RSynced.self, forKey: 2))
        try db.transaction {
            try db.save(incoming)   // adopts row 1 in a savepoint of its own, released
            #expect(incoming.id == 1)
            #expect(throws: R14RUndo.self) { try db.transaction { other.slug = "dos"; try db.save(other); throw R14RUndo() } }
            // The sibling savepoint's rollback leaves the adoption alone.
            #expect(incoming.id == 1 && other.slug == "two")
            #expect(try db.object(R14RSynced.self, forKey: 1) === incoming)
        }
        #expect(try db.value(String.self, "SELECT slug FROM r14r_synced WHERE id = 1") == "uno")
        // In a block that rolls back, the adoption is undone: new again with its own key and values.
        let again = R14RSynced(); again.serverID = "s3"; again.slug = "trois"
        #expect(throws: R14RUndo.self) { try db.transaction { try db.save(again); #expect(again.id == 3); throw R14RUndo() } }
        #expect(again.id == 0 && again.slug == "trois")
        let three = try #require(try db.object(R14RSynced.self, forKey: 3))
        #expect(three !== again && three.slug == "three")
        #expect(other.slug == "two" && !other.hasChanges)
    }
}
