import Dispatch
import Foundation
import Strata
import StrataPostgres
import Testing

// Models on PostgreSQL through `Database`: one live instance per row, saves of what changed only, a change
// made by others never overwritten (a conflict instead), rows gone, deletes, rollbacks undone in the live
// instances, composite and text keys, and two connections incrementing one row without losing a write.

private final class PGItem: Model {
    static let tableName = "item"
    static let uniqueIndices = [["code"]]
    var id: Int64 = 0
    var code = ""
    var name = ""
    var score = 0.0
    var count = 0
    var flag = false
    var note: String?
    var data = Data()
    required init() {}
}

private final class PGPair: Model {
    static let tableName = "pair"
    static let compositeKey = ["left", "right"]
    var left: Int64 = 0
    var right: Int64 = 0
    var label = ""
    required init() {}
}

private final class PGCode: Model {
    static let tableName = "tag"
    static let primaryKey = "code"
    var code = ""
    var title = ""
    required init() {}
}

private func item(_ code: String, _ name: String, count: Int = 0) -> PGItem {
    let item = PGItem()
    item.code = code
    item.name = name
    item.count = count
    return item
}


@Suite("PostgreSQL models", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresModelTests {
    @Test func aSavedRowIsOneLiveInstanceAndReadsBackEveryValue() throws {
        try withDatabase { db in
            let ada = item("a", "Ada", count: 3)
            ada.score = 0.1
            ada.flag = true
            ada.data = Data([0, 1, 0xFF])
            try db.save(ada)
            #expect(ada.id == 1)   // the identity column assigned it
            try db.save(item("b", "Grace"))
            // What PostgreSQL stored, read by raw SQL.
            #expect(try db.rows("SELECT id, code, name, score, count, flag, note, data FROM item WHERE id = 1")[0].values
                    == [.integer(1), .text("a"), .text("Ada"), .real(0.1), .integer(3), .integer(1), .null, .blob(Data([0, 1, 0xFF]))])
            // The live instance, by key, by clause, by key-path condition.
            #expect(try db.object(PGItem.self, forKey: 1) === ada)
            #expect(try db.objects(PGItem.self, where: "name = ?", "Ada").first === ada)
            #expect(try db.objects(PGItem.self, where: \.count >= 3).map(\.code) == ["a"])
            #expect(try db.first(PGItem.self, where: "ORDER BY id DESC")?.name == "Grace")
            #expect(try db.objects(PGItem.self, orderBy: .descending(\.id)).map(\.code) == ["b", "a"])
            #expect(try db.count(PGItem.self) == 2)
            #expect(try db.object(PGItem.self, forKey: 99) == nil)
            // A second handle reads its own instances, with the same values.
            let other = try Database(postgresURL: postgresURL ?? "")
            defer { try? other.close() }
            try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
            let read = try #require(try other.object(PGItem.self, forKey: 1))
            #expect(read !== ada)
            #expect(read.code == "a" && read.name == "Ada" && read.score == 0.1 && read.count == 3 && read.flag && read.note == nil
                    && read.data == Data([0, 1, 0xFF]))
            #expect(!read.hasChanges)
        }
    }

    @Test func aSaveWritesOnlyWhatChangedAndNeverOverwritesAnotherWriter() throws {
        try withDatabase { db in
            let ada = item("a", "Ada")
            try db.save(ada)
            try db.execute("UPDATE item SET count = 41 WHERE id = 1")   // another writer, a column the instance did not change
            ada.name = "Ada L."
            try db.save(ada)
            #expect(try db.rows("SELECT name, count FROM item")[0].values == [.text("Ada L."), .integer(41)])
            #expect(!ada.hasChanges)
            try db.save(ada)   // nothing changed: nothing written
            // A fetch brings the instance up to date with the column it had not changed.
            #expect(ada.count == 0)
            _ = try db.objects(PGItem.self)
            #expect(ada.count == 41 && !ada.hasChanges)
        }
    }

    @Test func aChangeOfTheSameColumnByAnotherWriterIsAConflictNotAnOverwrite() throws {
        try withDatabase { db in
            let ada = item("a", "Ada", count: 1)
            try db.save(ada)
            try db.execute("UPDATE item SET count = 10 WHERE id = 1")
            ada.count += 1   // from 1, without having seen the 10
            let conflict = modelError { try db.save(ada) }
            #expect(conflict?.kind == .conflict)
            #expect(conflict?.properties == ["count"])
            #expect(ada.count == 10 && !ada.hasChanges)   // the committed value, to apply the change to again
            #expect(try db.value(Int.self, "SELECT count FROM item") == 10)
            // Applying it again works; so does the retry helper.
            try db.retryingOnConflict {
                ada.count += 1
                try db.save(ada)
            }
            #expect(try db.value(Int.self, "SELECT count FROM item") == 11)
            // A conflict a fetch met is thrown by the next save.
            try db.execute("UPDATE item SET name = 'other' WHERE id = 1")
            ada.name = "mine"
            _ = try db.object(PGItem.self, forKey: 1)
            #expect(modelError { try db.save(ada) }?.kind == .conflict)
            #expect(ada.name == "other")
        }
    }

    @Test func rawWritesReachLiveInstancesOnTheirNextLookUp() throws {
        try withDatabase { db in
            let ada = item("a", "Ada"), grace = item("b", "Grace")
            try db.save([ada, grace])
            // Raw SQL of this handle: the instances read before it read their rows again when looked up.
            try db.execute("UPDATE item SET name = upper(name), count = 5")
            #expect(ada.name == "Ada")   // not yet looked up
            #expect(try db.object(PGItem.self, forKey: ada.id) === ada)
            #expect(ada.name == "ADA" && ada.count == 5 && !ada.hasChanges)
            // A local change survives; the column it did not change follows the row.
            grace.note = "mine"
            try db.execute("/* a comment first */ UPDATE item SET count = 6 WHERE code = 'b'")
            #expect(try db.object(PGItem.self, forKey: grace.id) === grace)
            #expect(grace.count == 6 && grace.note == "mine" && grace.name == "GRACE")
            try db.save(grace)
            #expect(try db.value(String.self, "SELECT note FROM item WHERE code = 'b'") == "mine")
            // A row deleted by raw SQL: the lookup finds none and the instance is marked deleted.
            _ = try db.rows("DELETE FROM item WHERE code = ? RETURNING id", "a")
            #expect(try db.object(PGItem.self, forKey: ada.id) == nil)
            #expect(ada.isDeleted)
        }
    }

    @Test func aRowGoneIsNeverInsertedAgainAndDeletesMarkInstances() throws {
        try withDatabase { db in
            let ada = item("a", "Ada"), grace = item("b", "Grace")
            try db.save([ada, grace])
            try db.execute("DELETE FROM item WHERE id = ?", ada.id)
            ada.name = "Ada L."
            #expect(modelError { try db.save(ada) }?.kind == .notFound)
            #expect(ada.isDeleted)
            #expect(modelError { try db.save(ada) }?.kind == .deleted)
            #expect(try db.value(Int.self, "SELECT count(*) FROM item") == 1)
            #expect(try db.delete(grace))
            #expect(grace.isDeleted)
            #expect(try db.object(PGItem.self, forKey: grace.id) == nil)
            #expect(try db.value(Int.self, "SELECT count(*) FROM item") == 0)
        }
    }

    @Test func aRollbackMakesItsInsertsNewAndRereadsItsUpdatesAndDeletes() throws {
        try withDatabase { db in
            let kept = item("k", "Kept"), gone = item("g", "Gone")
            try db.save([kept, gone])
            let added = item("n", "New")
            struct Refused: Error {}
            var refused = false
            do {
                try db.transaction {
                    try db.save(added)
                    kept.name = "Changed"
                    try db.save(kept)
                    _ = try db.delete(gone)
                    throw Refused()
                }
            } catch is Refused {
                refused = true
            }
            #expect(refused)
            #expect(added.id == 0 && !added.isPersisted)   // new again, the key the engine gave gone (as on SQLite): its next save inserts it
            #expect(kept.name == "Kept" && !kept.hasChanges)
            #expect(!gone.isDeleted)
            #expect(try db.object(PGItem.self, forKey: gone.id) === gone)
            try db.save(added)
            #expect(try db.column(String.self, "SELECT code FROM item ORDER BY id") == ["k", "g", "n"])
            // A savepoint's rollback undoes only its own writes.
            try db.transaction {
                kept.name = "Outer"
                try db.save(kept)
                try? db.transaction {
                    gone.name = "Inner"
                    try db.save(gone)
                    throw Refused()
                }
                #expect(gone.name == "Gone")
            }
            #expect(try db.column(String.self, "SELECT name FROM item ORDER BY id") == ["Outer", "Gone", "New"])
        }
    }

    @Test func aDuplicateUniqueValueIsAModelErrorAndTheInstanceStaysNew() throws {
        try withDatabase { db in
            try db.save(item("a", "Ada"))
            let twin = item("a", "Twin")
            let error = modelError { try db.save(twin) }
            #expect(error?.kind == .duplicateKey)
            #expect(!twin.isPersisted)
            #expect(try db.value(Int.self, "SELECT count(*) FROM item") == 1)
        }
    }

    @Test func compositeAndTextKeysKeepOneInstancePerRow() throws {
        try withDatabase { db in
            let pair = PGPair()
            pair.left = 1
            pair.right = 2
            pair.label = "one-two"
            try db.save(pair)
            #expect(try db.object(PGPair.self, forKey: CompositeKey(1, 2)) === pair)
            #expect(try db.objects(PGPair.self).first === pair)
            pair.label = "changed"
            try db.save(pair)
            #expect(try db.value(String.self, "SELECT label FROM pair WHERE \"left\" = 1 AND \"right\" = 2") == "changed")

            let tag = PGCode()
            tag.code = "café"
            tag.title = "Coffee"
            try db.save(tag)
            #expect(try db.object(PGCode.self, forKey: "café") === tag)
            #expect(try db.object(PGCode.self, forKey: "cafe\u{301}") == nil)   // another key (NFD): another row, none here
            tag.title = "Kaffee"
            try db.save(tag)
            #expect(try db.value(String.self, "SELECT title FROM tag") == "Kaffee")
        }
    }

    @Test func twoConnectionsIncrementingOneRowLoseNothing() throws {
        try withDatabase { db in
            let counter = item("c", "counter")
            try db.save(counter)
            let schema = try db.value(String.self, "SELECT current_schema()") ?? ""
            let failures = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let handle = try Database(postgresURL: postgresURL ?? "")
                    defer { try? handle.close() }
                    try handle.execute("SET search_path TO \(schema)")
                    let mine = try #require(try handle.object(PGItem.self, forKey: 1))
                    for _ in 0..<200 {
                        try handle.retryingOnConflict(maxAttempts: 1_000) {
                            mine.count += 1
                            try handle.save(mine)
                        }
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                    Issue.record("\(error)")
                }
            }
            #expect(failures.withLock { $0 } == 0)
            #expect(try db.value(Int.self, "SELECT count FROM item WHERE id = 1") == 400)
        }
    }
}

/// A value behind a lock, for the threads of a test.
private final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
