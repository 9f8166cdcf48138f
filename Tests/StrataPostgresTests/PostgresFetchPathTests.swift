import Foundation
@testable import Strata
import StrataPostgres
import Testing

// The PostgreSQL fetch path of the benchmark (issue 35, sixth run): an integer key is its own identity
// (no text per row, found again at release by its snapshot word), integer cells are read from libpq's
// NUL-terminated text with one call each, and what a live instance keeps of its row is unchanged in
// meaning: raw writes, conflicts and rollbacks behave as before.

private final class PFNum: Model {
    static let tableName = "pf_num"
    var id: Int64 = 0
    var a: Int64 = 0
    var b = 0
    required init() {}
}

private final class PFMixed: Model {
    static let tableName = "pf_mixed"
    var id: Int64 = 0
    var n: Int64?
    var label = ""
    var flag = false
    var x: Double?
    var big: Int64 = 0
    required init() {}
}

/// A second handle on `db`'s schema (another writer).
private func otherWriter(_ db: Database) throws -> Database {
    let other = try Database(postgresURL: postgresURL ?? "")
    try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
    return other
}

@Suite("PostgreSQL fetch path", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresFetchPathTests {
    @Test func anIntegerKeyIsItsOwnIdentityAndItsTextStillNamesIt() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PFNum.self)
            try db.execute("INSERT INTO pf_num (id, a, b) VALUES (1, 10, 20), (2, 11, 21), (-7, 12, 22), (9223372036854775807, 13, 23)")
            let registry: TypeRegistry
            do {
                let fetched = try db.objects(PFNum.self, where: "ORDER BY id")
                #expect(fetched.map(\.id) == [-7, 1, 2, .max])
                #expect(fetched.map(\.a) == [12, 10, 11, 13] && fetched.map(\.b) == [22, 20, 21, 23])
                registry = try #require(fetched[0]._registry)
                // Registered under the integer itself (before: its decimal text).
                #expect(fetched.map { registry.registeredIdentity(of: $0) } == [.integer(-7), .integer(1), .integer(2), .integer(.max)])
                #expect(registry.textKey(of: fetched[0]) == "-7")
                #expect(try registry.rowKey(of: fetched[3]) == .integer(.max))
                // The key as an integer or as its canonical text finds the live instance; other spellings none.
                #expect(try db.object(PFNum.self, forKey: 2) === fetched[2])
                #expect(registry.instance(key: .text("2")) === fetched[2])
                #expect(registry.instance(key: .text("-7")) === fetched[0])
                #expect(registry.instance(key: .text("02")) == nil && registry.instance(key: .text("+2")) == nil)
                #expect(registry.instance(key: .text("two")) == nil && registry.instance(key: .real(2)) == nil)
                // A fetch again meets the same instances.
                let again = try db.objects(PFNum.self, where: "ORDER BY id")
                #expect(zip(again, fetched).allSatisfy { $0 === $1 })
            }
            // Released, each left the map (found by its snapshot's key word), and a fetch makes new ones.
            #expect(registry.liveCount == 0)
            let fresh = try db.objects(PFNum.self, where: "ORDER BY id")
            #expect(fresh.map(\.id) == [-7, 1, 2, .max] && registry.liveCount == 4)
            // A save of a fetched instance keys its UPDATE by its registered integer.
            fresh[1].a = 100
            try db.save(fresh[1])
            #expect(try db.value(Int.self, "SELECT a FROM pf_num WHERE id = 1") == 100)
            // A new instance that brings a live instance's key is refused, as before.
            let duplicate = PFNum()
            duplicate.id = 2
            #expect(modelError { try db.save(duplicate) }?.kind == .duplicateInstance)
        }
    }

    @Test func aLiveInstanceMetAfterARawWriteReadsItsRowAgainAndConflictsStillShow() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PFNum.self)
            try db.execute("INSERT INTO pf_num (id, a, b) VALUES (1, 10, 20), (2, 11, 21)")
            let objects = try db.objects(PFNum.self, where: "ORDER BY id")
            let registry = try #require(objects[0]._registry)
            #expect(registry.registeredIdentity(of: objects[0]) == .integer(1))
            // Every column spelled from the snapshot: no kept row per instance, the read stamp in its slot.
            #expect(registry.remoteReadStamps && db.models.remoteRows.isEmpty)
            #expect(objects.map { registry.readStamp(of: $0) } == [db.models.remoteRawWrites, db.models.remoteRawWrites])
            #expect(objects.map { db.remoteKnownTexts($0, registry: registry) } == [["1", "10", "20"], ["2", "11", "21"]])
            // The handle's own raw write: a lookup by key reads the row again, into the same instance.
            try db.execute("UPDATE pf_num SET b = 99 WHERE id = 1")
            #expect(registry.readStamp(of: objects[0]) == db.models.remoteRawWrites - 1)
            #expect(try db.object(PFNum.self, forKey: 1) === objects[0])
            #expect(objects[0].b == 99 && !objects[0].hasChanges)
            #expect(registry.readStamp(of: objects[0]) == db.models.remoteRawWrites)
            // Read again now: the next lookup runs no query.
            var statements: [String] = []
            let trace = db.traceStatements { statements.append($0) }
            #expect(try db.object(PFNum.self, forKey: 1) === objects[0])
            trace.cancel()
            #expect(statements.isEmpty)
            // A raw delete: the lookup finds no row and marks the instance deleted.
            try db.execute("DELETE FROM pf_num WHERE id = 2")
            #expect(try db.object(PFNum.self, forKey: 2) == nil)
            #expect(objects[1].isDeleted)

            // Another writer changes `a` and `b`; this instance changed `a`: a fetch takes `b` and records
            // the conflict on `a`, which the next save throws (the instance then holds the committed row).
            let other = try otherWriter(db)
            defer { try? other.close() }
            try other.execute("UPDATE pf_num SET a = 500, b = 600 WHERE id = 1")
            objects[0].a = 777
            let met = try db.objects(PFNum.self)
            #expect(met.count == 1 && met[0] === objects[0])
            #expect(objects[0].a == 777 && objects[0].b == 600)
            let error = modelError { try db.save(objects[0]) }
            #expect(error?.kind == .conflict && error?.properties == ["a"])
            #expect(objects[0].a == 500 && objects[0].b == 600 && !objects[0].hasChanges)
            objects[0].a = 777
            try db.save(objects[0])
            #expect(try db.rows("SELECT a, b FROM pf_num WHERE id = 1")[0].values == [.integer(777), .integer(600)])
            // A save's guard still sees another writer's change made after the last read.
            try other.execute("UPDATE pf_num SET a = 1 WHERE id = 1")
            objects[0].a = 2
            #expect(modelError { try db.save(objects[0]) }?.kind == .conflict)
            #expect(objects[0].a == 1)
        }
    }

    @Test func aRollbackStillRestoresInsertedUpdatedAndDeletedInstances() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PFNum.self)
            try db.execute("INSERT INTO pf_num (id, a, b) VALUES (1, 10, 20), (2, 11, 21)")
            #expect(try db.value(Int.self, "SELECT setval(pg_get_serial_sequence('pf_num', 'id'), 2)") == 2)
            let objects = try db.objects(PFNum.self, where: "ORDER BY id")
            let registry = try #require(objects[0]._registry)
            let inserted = PFNum()
            inserted.a = 5
            struct Undo: Error {}
            #expect(throws: Undo.self) {
                try db.transaction {
                    try db.save(inserted)
                    #expect(inserted.id > 2 && registry.registeredIdentity(of: inserted) == .integer(inserted.id))
                    objects[0].a = 1_000
                    try db.save(objects[0])
                    _ = try db.delete(objects[1])
                    #expect(objects[1].isDeleted)
                    throw Undo()
                }
            }
            // The insert is undone: the instance is new again, its key back to 0, in no map.
            #expect(!inserted.isPersisted && inserted.id == 0 && registry.registeredIdentity(of: inserted) == nil)
            // The update is undone: the instance read its row again.
            #expect(objects[0].a == 10 && !objects[0].hasChanges)
            // The delete is undone: the instance is the live instance of its row again.
            #expect(!objects[1].isDeleted && objects[1].a == 11 && objects[1].b == 21)
            #expect(registry.registeredIdentity(of: objects[1]) == .integer(2))
            #expect(try db.object(PFNum.self, forKey: 2) === objects[1])
            #expect(try db.column(Int.self, "SELECT a FROM pf_num ORDER BY id") == [10, 11])
            // Each read its row again: stamped now, and no kept row in the map.
            #expect(objects.map { registry.readStamp(of: $0) } == [db.models.remoteRawWrites, db.models.remoteRawWrites])
            #expect(db.models.remoteRows.isEmpty && db.remoteKeptTexts(inserted, registry: registry) == nil)
            // Both save again as before.
            objects[0].b = 30
            objects[1].b = 31
            try db.save(objects[0])
            try db.save(objects[1])
            #expect(try db.column(Int.self, "SELECT b FROM pf_num ORDER BY id") == [30, 31])
        }
    }

    @Test func cellsOfEveryKindReachTheirFieldsAroundNullsSignsAndTextColumns() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PFMixed.self)
            try db.execute("""
                INSERT INTO pf_mixed (id, n, label, flag, x, big) VALUES
                  (1, NULL, 'one', true, NULL, -9223372036854775808),
                  (2, -42, '', false, 2.5, 9223372036854775807),
                  (3, 123456789012345678, 'drei', true, -0.25, 0),
                  (4, 1234567890123456789, 'vier', false, 1e300, -1)
                """)
            let objects = try db.objects(PFMixed.self, where: "ORDER BY id")
            #expect(objects.map(\.id) == [1, 2, 3, 4])
            #expect(objects.map(\.n) == [nil, -42, 123_456_789_012_345_678, 1_234_567_890_123_456_789])
            #expect(objects.map(\.label) == ["one", "", "drei", "vier"])
            #expect(objects.map(\.flag) == [true, false, true, false])
            #expect(objects.map(\.x) == [nil, 2.5, -0.25, 1e300])
            #expect(objects.map(\.big) == [.min, .max, 0, -1])
            #expect(objects.allSatisfy { !$0.hasChanges })
            #expect(objects.map { $0._registry?.registeredIdentity(of: $0) } == [.integer(1), .integer(2), .integer(3), .integer(4)])
            // A table with a text column keeps each instance's texts (and its read stamp) in the map, as before.
            let registry = try #require(objects[0]._registry)
            #expect(!registry.remoteReadStamps && registry.readStamp(of: objects[0]) == nil)
            #expect(db.models.remoteRows.count == 4)
            #expect(db.remoteKeptTexts(objects[0], registry: registry) == ["one", "t", nil])
            #expect(db.remoteKeptTexts(objects[1], registry: registry) == ["", "f", "2.5"])
            #expect(db.remoteReadAt(objects[1], registry: registry) == db.models.remoteRawWrites)
            // A text column's change by another writer, met by this instance's own change: a conflict.
            let other = try otherWriter(db)
            defer { try? other.close() }
            try other.execute("UPDATE pf_mixed SET label = 'uno', n = 7 WHERE id = 1")
            objects[0].label = "eins"
            let met = try #require(try db.objects(PFMixed.self, where: "WHERE id = 1").first)
            #expect(met === objects[0] && met.n == 7 && met.label == "eins")
            let error = modelError { try db.save(objects[0]) }
            #expect(error?.kind == .conflict && error?.properties == ["label"])
            #expect(objects[0].label == "uno" && objects[0].n == 7)
            // The NULL and the stored values as the server holds them after a save of them all.
            objects[0].n = nil
            objects[0].x = 0.5
            objects[0].big = 5
            try db.save(objects[0])
            #expect(try db.rows("SELECT n IS NULL, x, big FROM pf_mixed WHERE id = 1")[0].values == [.integer(1), .real(0.5), .integer(5)])
        }
    }
}
