import Foundation
import Strata
import StrataTestSupport
import Testing

// `eraseDatabaseOnSchemaChange` erases the database under models already in use: their live instances are
// deleted with their rows, and the models map the new schema (their tables made again by sync) on both
// engines. On PostgreSQL the model kept the mapping of the dropped table, and its next save failed with
// 42P01 (relation does not exist).

private final class MENote: Model {
    static let tableName = "me_note"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class METag: Model {
    static let tableName = "me_tag"
    static let compositeKey = ["note", "label"]
    var note: Int64 = 0
    var label = ""
    required init() {}
}

/// Integers only: on PostgreSQL its instances keep their read stamps in their snapshot slots.
private final class MECounter: Model {
    static let tableName = "me_counter"
    var id: Int64 = 0
    var count: Int64 = 0
    required init() {}
}

private func migrator(_ sql: String) -> Migrator {
    var migrator = Migrator()
    migrator.eraseDatabaseOnSchemaChange = true
    migrator.register("create") { db in try db.execute(sql) }
    return migrator
}

@Suite struct MigrationEraseTests {
    @Test func modelsInUseMapTheErasedDatabaseAgain() throws {
        let test = try TestDatabase()
        let db = test.db
        try migrator(#"CREATE TABLE "me_t" ("a" TEXT)"#).migrate(db)
        let note = MENote(); note.title = "before"
        try db.save(note)
        let tag = METag(); tag.note = note.id; tag.label = "x"
        try db.save(tag)
        let counter = MECounter(); counter.count = 3
        try db.save(counter)
        #expect(try db.objects(MENote.self).count == 1)

        // The migration edited: the database is erased (the models' tables too) and migrated again.
        #expect(try migrator(#"CREATE TABLE "me_t" ("a" TEXT, "b" INTEGER)"#).migrate(db) == ["create"])
        #expect(try db.value(Int.self, #"SELECT count(*) FROM "me_t""#) == 0)

        // The live instances went with their rows; the models' tables are there again, empty.
        #expect(note.isDeleted)
        #expect(tag.isDeleted)
        #expect(counter.isDeleted)
        #expect(try db.objects(MECounter.self).isEmpty)
        let counterAgain = MECounter(); counterAgain.count = 4
        try db.save(counterAgain)
        counterAgain.count = 5
        try db.save(counterAgain)
        #expect(try db.objects(MECounter.self).map(\.count) == [5])
        #expect(try db.objects(MENote.self).isEmpty)
        #expect(try db.value(Int.self, #"SELECT count(*) FROM "me_note""#) == 0)

        // A new object is saved into the new table, and read back as the one live instance of its row.
        let again = MENote(); again.title = "after"
        try db.save(again)
        let againTag = METag(); againTag.note = again.id; againTag.label = "y"
        try db.save(againTag)
        #expect(try db.column(String.self, #"SELECT "title" FROM "me_note""#) == ["after"])
        #expect(try db.objects(MENote.self).map(\.title) == ["after"])
        #expect(try db.object(MENote.self, forKey: again.id) === again)
        #expect(try db.objects(METag.self).map(\.label) == ["y"])
        again.title = "edited"
        try db.save(again)
        #expect(try db.column(String.self, #"SELECT "title" FROM "me_note""#) == ["edited"])
    }

    @Test func aMigrationsWritesReachLiveInstancesAndAnUnsavedEditOverThemIsAConflict() throws {
        let test = try TestDatabase()
        let db = test.db
        let kept = MENote(); kept.title = "kept"
        let moved = MENote(); moved.title = "moved"
        try db.save([kept, moved])
        moved.title = "mine"   // not saved
        var migrator = Migrator()
        migrator.register("retitle") { db in
            try db.execute(#"UPDATE "me_note" SET "title" = 'migrated ' || "title""#)
            try db.execute(#"DELETE FROM "me_note" WHERE "title" = 'migrated kept'"#)
        }
        #expect(try migrator.migrate(db) == ["retitle"])
        // The row the migration deleted: its instance is deleted. The one it changed: the edit is kept, and
        // its save is a conflict (never an overwrite of the migration's value), after which it holds the row.
        #expect(kept.isDeleted)
        #expect(!moved.isDeleted && moved.title == "mine")
        let error = #expect(throws: ModelError.self) { try db.save(moved) }
        #expect(error?.kind == .conflict)
        #expect(moved.title == "migrated moved")
        #expect(try db.column(String.self, #"SELECT "title" FROM "me_note""#) == ["migrated moved"])
    }

    @Test func aPoolsReadersAndWriterMapTheErasedDatabase() async throws {
        try await withTestPool { pool in
            try await migrator(#"CREATE TABLE "me_t" ("a" TEXT)"#).migrate(pool)
            try await pool.write { db in let note = MENote(); note.title = "before"; try db.save(note) }
            #expect(try await pool.read { db in try db.objects(MENote.self).map(\.title) } == ["before"])
            #expect(try await migrator(#"CREATE TABLE "me_t" ("a" TEXT, "b" INTEGER)"#).migrate(pool) == ["create"])
            #expect(try await pool.read { db in try db.objects(MENote.self).map(\.title) } == [])
            try await pool.write { db in
                #expect(try db.objects(MENote.self).isEmpty)
                let note = MENote(); note.title = "after"
                try db.save(note)
            }
            #expect(try await pool.read { db in try db.objects(MENote.self).map(\.title) } == ["after"])
        }
    }
}
