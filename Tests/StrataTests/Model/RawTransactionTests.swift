import Foundation
import Strata
import StrataTestSupport
import Testing

// Transactions that raw SQL opens and ends (`BEGIN`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`, `ROLLBACK`,
// `COMMIT`) reach the live instances as the library's own do, on both engines: a rollback makes the
// instances inserted since new again (an engine-given key back to 0) and those updated or deleted since
// read their rows again; a release or commit keeps them. (SQLite's hooks tell this; on PostgreSQL the
// statements are read: before, a raw rollback left an undone insert holding a key no row has.)

private final class RTItem: Model {
    static let tableName = "rt_item"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private func names(_ db: Database) throws -> [String] {
    try db.column(String.self, #"SELECT "name" FROM "rt_item" ORDER BY "id""#)
}

@Suite struct RawTransactionTests {
    @Test func aRawRollbackToASavepointInsideABlockUndoesInsertsUpdatesAndDeletes() throws {
        let test = try TestDatabase()
        let db = test.db
        let first = RTItem(); first.name = "first"
        let second = RTItem(); second.name = "second"
        try db.save([first, second])
        let kept = RTItem(); kept.name = "kept"
        let undone = RTItem(); undone.name = "undone"
        try db.transaction {
            try db.save(kept)
            try db.execute(#"SAVEPOINT "Raw Point""#)
            first.name = "inside"
            try db.save(first)
            try db.save(undone)
            try db.delete(second)
            #expect(second.isDeleted && undone.id != 0)
            try db.execute(#"ROLLBACK TO SAVEPOINT "Raw Point""#)
            #expect(first.name == "first" && !first.hasChanges)
            #expect(!second.isDeleted)
            #expect(undone.id == 0 && !undone.isPersisted)
            try db.execute(#"RELEASE "Raw Point""#)
        }
        #expect(kept.isPersisted)
        #expect(try names(db) == ["first", "second", "kept"])
        #expect(try db.object(RTItem.self, forKey: second.id) === second)
        try db.save(undone)   // new again: it inserts
        #expect(try names(db) == ["first", "second", "kept", "undone"])
    }

    @Test func aRawBeginThenRollbackUndoesTheSavesBetween() throws {
        let test = try TestDatabase()
        let db = test.db
        let old = RTItem(); old.name = "old"
        try db.save(old)
        let new = RTItem(); new.name = "new"
        try db.execute("BEGIN")
        try db.save(new)
        old.name = "changed"
        try db.save(old)
        try db.execute("ROLLBACK")
        #expect(new.id == 0 && !new.isPersisted)
        #expect(old.name == "old" && !old.hasChanges)
        #expect(try names(db) == ["old"])
        try db.save(new)
        #expect(try names(db) == ["old", "new"])
        #expect(try db.object(RTItem.self, forKey: new.id) === new)
    }

    @Test func aReleasedRawSavepointsWritesAreUndoneByTheRollbackAroundIt() throws {
        let test = try TestDatabase()
        let db = test.db
        try db.syncSchema(RTItem.self)   // (the table outside the transaction rolled back)
        let item = RTItem(); item.name = "a"
        try db.execute("BEGIN; SAVEPOINT inner_point")
        try db.save(item)
        try db.execute("RELEASE SAVEPOINT inner_point")
        #expect(item.isPersisted)
        try db.execute("ROLLBACK")
        #expect(item.id == 0 && !item.isPersisted)
        #expect(try names(db) == [])
    }

    @Test func aRawCommitKeepsTheSavesAndALaterRollbackUndoesNothingOfThem() throws {
        let test = try TestDatabase()
        let db = test.db
        let item = RTItem(); item.name = "a"
        try db.execute("BEGIN")
        try db.save(item)
        try db.execute("COMMIT")
        let later = RTItem(); later.name = "b"
        try db.execute("BEGIN")
        try db.save(later)
        try db.execute("ROLLBACK")
        #expect(item.isPersisted && item.name == "a")
        #expect(later.id == 0 && !later.isPersisted)
        #expect(try names(db) == ["a"])
    }

    @Test func aScriptThatOpensAndRollsBackASavepointInOneCallIsFollowed() throws {
        let test = try TestDatabase()
        let db = test.db
        let item = RTItem(); item.name = "a"
        try db.save(item)
        try db.transaction {
            try db.execute(#"SAVEPOINT s; UPDATE "rt_item" SET "name" = 'x'"#)
            #expect(try db.objects(RTItem.self).map(\.name) == ["x"])   // (PostgreSQL: at the fetch)
            item.name = "mine"
            try db.save(item)
            try db.execute("/* undo */ ROLLBACK TO s; RELEASE s")
        }
        #expect(item.name == "a" && !item.hasChanges)
        #expect(try names(db) == ["a"])
    }
}
