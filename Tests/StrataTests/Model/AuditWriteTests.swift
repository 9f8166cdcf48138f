import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Second reading of issue 9 (write integrity): keys, upsert keys, closed handles, NaN and NULL.

/// A model with an upsert key beside its integer key (also used by Review2WriteTests).
final class SyncedNote: Model {
    static let upsertKeys = ["serverID"]
    static let uniqueIndices = [["serverID"], ["slug"]]
    var id: Int64 = 0
    var serverID: String?
    var slug = ""
    var text = ""
    required init() {}
}

private struct Payload: Codable, Equatable {
    var weight: Double
}

private enum Mood: String, Codable, ColumnValue {
    case calm, busy
}

private final class Measured: Model {
    var id: Int64 = 0
    var reading: Double?
    var payload = Payload(weight: 0)
    var count = 0
    var flag = false
    var stamp = Date(timeIntervalSince1970: 0)
    var token = UUID()
    var label = ""
    var mood = Mood.calm
    required init() {}
}

private final class TextKeyed: Model {
    var id = ""
    var name = ""
    required init() {}
}

@Suite struct AuditWriteTests {
    // MARK: Upsert keys

    /// A new instance that adopts a row by its upsert key, then fails to update it (a UNIQUE violation on
    /// another column): nothing was written, so the instance is what it was — unsaved, with its values.
    @Test func aFailedUpsertLeavesTheInstanceUnsavedWithItsValues() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        let b = SyncedNote(); b.serverID = "s-2"; b.slug = "b"
        try temp.db.save([a, b])
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "b"; incoming.text = "new"
        let error = #expect(throws: ModelError.self) { try db.save(incoming) }
        #expect(error?.kind == .duplicateKey)
        #expect(!incoming.isPersisted)
        #expect(incoming.id == 0)
        #expect(incoming.slug == "b" && incoming.text == "new")
        #expect(try db.object(SyncedNote.self, forKey: 1) !== incoming)
        // Fixed and saved again, it updates the row it matches.
        incoming.slug = "a2"
        try db.save(incoming)
        #expect(incoming.id == 1)
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "new")
    }

    /// The same in a batch: the failing object is another one.
    @Test func aFailedBatchLeavesAnUpsertedInstanceUnsavedWithItsValues() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        try temp.db.save(a)
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "a"; incoming.text = "new"
        let clash = SyncedNote(); clash.serverID = "s-9"; clash.slug = "a"
        #expect(throws: ModelError.self) { try db.save([incoming, clash]) }
        #expect(incoming.text == "new")
        #expect(!incoming.isPersisted && incoming.id == 0)
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "old")
        try db.save(incoming)
        #expect(incoming.id == 1)
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "new")
    }

    /// A savepoint rolled back after an upsert: the instance is unsaved again, its values kept.
    @Test func aRolledBackSavepointUndoesAnUpsertAdoption() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        try temp.db.save(a)
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "a"; incoming.text = "new"
        try db.transaction {
            struct Undo: Error {}
            _ = try? db.transaction {
                try db.save(incoming)
                #expect(incoming.id == 1)
                throw Undo()
            }
            #expect(!incoming.isPersisted && incoming.id == 0 && incoming.text == "new")
        }
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "old")
        #expect(try db.object(SyncedNote.self, forKey: 1)?.text == "old")
    }

    /// A NULL upsert key matches nothing (NULL is never equal): two such instances are two rows.
    @Test func aNilUpsertKeyInserts() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.slug = "a"
        let b = SyncedNote(); b.slug = "b"
        try temp.db.save(a)
        try temp.db.save(b)
        #expect(a.id == 1 && b.id == 2)
    }

    // MARK: Keys

    @Test func aCallerChosenTextKeyThatCollidesNamesModelAndKey() throws {
        let temp = try TemporaryDatabase()
        let first = TextKeyed(); first.id = "k"; first.name = "first"
        try temp.db.save(first)
        let db = try temp.reopen()
        let second = TextKeyed(); second.id = "k"; second.name = "second"
        let error = #expect(throws: ModelError.self) { try db.save(second) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.model == "TextKeyed")
        #expect(error?.key == .text("k"))
        #expect(!second.isPersisted)
        #expect(try db.value(String.self, "SELECT name FROM TextKeyed") == "first")
    }

    // MARK: NaN and NULL

    @Test func nanInAnOptionalDoubleIsRefusedNamingTheProperty() throws {
        let temp = try TemporaryDatabase()
        let m = Measured(); m.reading = .nan
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(m) }
        #expect(error?.property == "reading")
        #expect(!m.isPersisted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM Measured") == 0)
    }

    @Test func nanInACodablePropertyIsRefusedNamingTheProperty() throws {
        let temp = try TemporaryDatabase()
        let m = Measured(); m.payload = Payload(weight: .nan)
        var thrown: (any Error)?
        do { try temp.db.save(m) } catch { thrown = error }
        #expect(thrown != nil)
        #expect("\(thrown.map { "\($0)" } ?? "")".contains("payload"))
        #expect(!m.isPersisted)
        // An update too.
        let saved = Measured()
        try temp.db.save(saved)
        saved.payload = Payload(weight: .nan)
        thrown = nil
        do { try temp.db.save(saved) } catch { thrown = error }
        #expect("\(thrown.map { "\($0)" } ?? "")".contains("payload"))
        #expect(try temp.db.value(String.self, "SELECT payload FROM Measured WHERE id = ?", saved.id)?.contains("0") == true)
    }

    @Test(arguments: ["count", "flag", "stamp", "token", "label", "mood", "payload"])
    func aNullInANonOptionalColumnNamesTableKeyAndColumn(column: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Measured (id INTEGER PRIMARY KEY, reading REAL, payload TEXT, count INTEGER, flag INTEGER,
                stamp REAL, token TEXT, label TEXT, mood TEXT);
            INSERT INTO Measured VALUES (7, 1.5, '{"weight":1}', 1, 1, 0, '0F8FAD5B-D9CB-469F-A165-70867728950E', 'l', 'calm');
            """)
        try temp.db.execute("UPDATE Measured SET \"\(column)\" = NULL")
        let error = #expect(throws: ValueConversionError.self) { try temp.db.object(Measured.self, forKey: 7) }
        #expect(error?.table == "Measured")
        #expect(error?.key == .integer(7))
        #expect(error?.column == column)
        #expect(error?.found == .null)
    }

    // MARK: Closed handles

    @Test func everyCallOnAClosedHandleThrows() throws {
        let temp = try TemporaryDatabase()
        let dept = Department(); dept.name = "Sales"
        try temp.db.save(dept)
        let ada = Employee(); ada.name = "Ada"; ada.department = dept
        try temp.db.save(ada)
        let db = temp.db
        try db.close()
        #expect(throws: (any Error).self) { try db.object(Employee.self, forKey: ada.employeeId) }
        #expect(throws: (any Error).self) { try db.objects(Employee.self) }
        #expect(throws: (any Error).self) { try db.objects(Employee.self, forKeys: [ada.employeeId]) }
        #expect(throws: (any Error).self) { try db.count(Employee.self) }
        #expect(throws: (any Error).self) { try db.first(Employee.self) }
        #expect(throws: (any Error).self) { try db.prefetch("department", of: [ada]) }
        #expect(throws: (any Error).self) { try ada.$department.load() }
        ada.name = "Ada L."
        #expect(throws: (any Error).self) { try db.save(ada) }
        #expect(throws: (any Error).self) { try db.save([ada]) }
        #expect(throws: (any Error).self) { try db.delete(ada) }
        #expect(throws: (any Error).self) { try db.delete(Employee()) }
        #expect(throws: (any Error).self) { try db.transaction { } }
        #expect(throws: (any Error).self) { try db.retryingOnConflict { } }
        #expect(throws: (any Error).self) { try db.execute("SELECT 1") }
        #expect(throws: (any Error).self) { try db.rows("SELECT 1") }
        #expect(throws: (any Error).self) { try db.deleteAll(Employee.self) }
        #expect(throws: (any Error).self) { try db.schemaPlan(for: Employee.self) }
        #expect(!ada.isDeleted)
    }

    @Test func aClosedPoolThrows() throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try pool.blocking.close()
        #expect(throws: (any Error).self) { try pool.blocking.write { try $0.execute("CREATE TABLE x (a)") } }
        #expect(throws: (any Error).self) { try pool.blocking.read { try $0.rows("SELECT 1").count } }
        #expect(throws: (any Error).self) { try pool.blocking.syncSchema(Department.self) }
        #expect(throws: (any Error).self) { try pool.checkpoint() }
    }

    @Test func aClosedPoolThrowsFromAsyncCalls() async throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try await pool.close()
        await #expect(throws: (any Error).self) { try await pool.write { try $0.execute("CREATE TABLE y (a)") } }
        await #expect(throws: (any Error).self) { try await pool.read { try $0.rows("SELECT 1").count } }
        await #expect(throws: (any Error).self) { try await pool.syncSchema(Department.self) }
    }

    // MARK: Round 2 probes

    @Test func nanInADateOrAFloatIsRefused() throws {
        let temp = try TemporaryDatabase()
        let m = Measured(); m.stamp = Date(timeIntervalSince1970: .nan)
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(m) }
        #expect(error?.property == "stamp")
        let saved = Measured()
        try temp.db.save(saved)
        saved.stamp = Date(timeIntervalSince1970: .nan)
        let again = #expect(throws: ValueConversionError.self) { try temp.db.save(saved) }
        #expect(again?.property == "stamp")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM Measured WHERE stamp IS NULL") == 0)
    }

    @Test func rowsWithANullTextKeyAreAnErrorNotACrash() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE TextKeyed (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT ''); INSERT INTO TextKeyed VALUES (NULL, 'a'), (NULL, 'b'), ('k', 'c')")
        var thrown: (any Error)?
        do { _ = try temp.db.objects(TextKeyed.self) } catch { thrown = error }
        #expect(thrown != nil)
        #expect("\(thrown.map { "\($0)" } ?? "")".contains("id"))
        #expect(try temp.db.object(TextKeyed.self, forKey: "k")?.name == "c")
    }

    @Test func textKeysDifferingInCaseAreTwoRows() throws {
        let temp = try TemporaryDatabase()
        let lower = TextKeyed(); lower.id = "k"; lower.name = "lower"
        let upper = TextKeyed(); upper.id = "K"; upper.name = "upper"
        try temp.db.save(lower)
        try temp.db.save(upper)
        #expect(try temp.db.object(TextKeyed.self, forKey: "K") === upper)
        #expect(try temp.db.object(TextKeyed.self, forKey: "k") === lower)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM TextKeyed") == 2)
    }

    @Test func aNoCaseKeyCollisionNamesTheStoredKey() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE TextKeyed (id TEXT PRIMARY KEY COLLATE NOCASE NOT NULL, name TEXT NOT NULL DEFAULT ''); INSERT INTO TextKeyed VALUES ('k', 'c')")
        let upper = TextKeyed(); upper.id = "K"; upper.name = "upper"
        let error = #expect(throws: ModelError.self) { try temp.db.save(upper) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.key == .text("k"))
        #expect(!upper.isPersisted)
    }

    @Test func aBatchMixingInsertsUpdatesAndAFailureWritesNothingAndKeepsEveryChange() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.slug = "a"; a.text = "a0"
        let b = SyncedNote(); b.slug = "b"; b.text = "b0"
        try temp.db.save([a, b])
        a.text = "a1"
        let fresh = SyncedNote(); fresh.slug = "fresh"; fresh.text = "f"
        b.slug = "a"   // duplicates a's slug: fails
        let error = #expect(throws: ModelError.self) { try temp.db.save([a, fresh, b]) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.key == .integer(1))
        #expect(a.text == "a1" && a.hasChanges)
        #expect(!fresh.isPersisted && fresh.id == 0 && fresh.text == "f")
        #expect(b.slug == "a" && b.hasChanges)
        #expect(try temp.db.rows("SELECT id, slug, text FROM SyncedNote ORDER BY id").map { "\($0["slug"]!)/\($0["text"]!)" }
                == ["text 'a'/text 'a0'", "text 'b'/text 'b0'"])
        b.slug = "b2"
        try temp.db.save([a, fresh, b])
        #expect(fresh.id == 3)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM SyncedNote") == 3)
    }

    @Test func savingAnInstanceWhoseRowAnotherHandleDeletedNeverRecreatesIt() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.slug = "a"; a.text = "a0"
        try temp.db.save(a)
        let other = try Database(path: temp.path)
        try other.execute("DELETE FROM SyncedNote")
        a.text = "a1"
        let error = #expect(throws: ModelError.self) { try temp.db.save(a) }
        #expect(error?.kind == .deleted || error?.kind == .notFound)
        #expect(a.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM SyncedNote") == 0)
        // Inside a transaction too.
        let b = SyncedNote(); b.slug = "b"
        try temp.db.save(b)
        try other.execute("DELETE FROM SyncedNote")
        b.text = "b1"
        #expect(throws: (any Error).self) { try temp.db.transaction { try temp.db.save(b) } }
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM SyncedNote") == 0)
    }

    @Test func deferredTransactionsNeverLoseAnIncrementSilently() throws {
        let temp = try TemporaryDatabase()
        let seed = SyncedNote(); seed.slug = "c"; seed.text = "0"
        try temp.db.save(seed)
        let path = temp.path
        let committed = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            guard let db = try? Database(path: path), let note = try? db.object(SyncedNote.self, forKey: 1) else { return }
            for _ in 0..<50 {
                do {
                    try db.transaction(.deferred) {
                        note.text = String((Int(note.text) ?? 0) + 1)
                        try db.save(note)
                    }
                    committed.withLock { $0 += 1 }
                } catch {}
            }
        }
        let final = try temp.db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1")
        #expect(final == String(committed.withLock { $0 }))
    }
}

private final class AuditPost: Model {
    static let tableName = "blog_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id", orderBy: "name") var tags: [AuditTag]
    required init() {}
}

private final class AuditTag: Model {
    static let tableName = "blog_tag"
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class AuditGrant: Model {
    static let compositeKey = ["user", "permission"]
    var user: Int64 = 0
    var permission = ""
    var level = 1
    required init() {}
}

@Suite struct AuditWriteRound3Tests {
    @Test func siblingsAndChildrenOfAClosedHandleThrow() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE "blog_post" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL);
            CREATE TABLE "blog_tag" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(30) NOT NULL);
            CREATE TABLE "blog_post_tags" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "post_id" integer NOT NULL, "tag_id" integer NOT NULL);
            INSERT INTO blog_post (title) VALUES ('one'); INSERT INTO blog_tag (name) VALUES ('swift'), ('orm');
            INSERT INTO blog_post_tags (post_id, tag_id) VALUES (1, 1);
            """)
        let post = try #require(try temp.db.object(AuditPost.self, forKey: 1))
        let orm = try #require(try temp.db.object(AuditTag.self, forKey: 2))
        let team = RTeam(); team.name = "t"
        try temp.db.save(team)
        try temp.db.close()
        #expect(throws: (any Error).self) { try post.$tags.load() }
        #expect(throws: (any Error).self) { try post.$tags.reload() }
        #expect(throws: (any Error).self) { try post.$tags.add(orm) }
        #expect(throws: (any Error).self) { try post.$tags.remove(orm) }
        #expect(throws: (any Error).self) { try team.$members.load() }
        #expect(throws: (any Error).self) { try team.$members.reload() }
    }

    /// A handle released (not closed) while its instances live on: the throwing loads of @Siblings and
    /// @Children say so, as after `close()`, instead of reading as empty (a relationship load that fails
    /// throws). The plain reads stay [] (a getter cannot throw).
    @Test func siblingsAndChildrenOfAReleasedHandleThrow() throws {
        let temp = try TemporaryDatabase()
        var db: Database? = try Database(path: temp.path)   // a handle of its own, released below
        try db!.execute("""
            CREATE TABLE "blog_post" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL);
            CREATE TABLE "blog_tag" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(30) NOT NULL);
            CREATE TABLE "blog_post_tags" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "post_id" integer NOT NULL, "tag_id" integer NOT NULL);
            INSERT INTO blog_post (title) VALUES ('one'); INSERT INTO blog_tag (name) VALUES ('swift');
            INSERT INTO blog_post_tags (post_id, tag_id) VALUES (1, 1);
            """)
        let post = try #require(try db!.object(AuditPost.self, forKey: 1))
        let team = RTeam(); team.name = "t"
        try db!.save(team)
        db = nil
        #expect(throws: DatabaseError.self) { try post.$tags.load() }
        #expect(throws: DatabaseError.self) { try team.$members.load() }
        #expect(post.tags.isEmpty)
        #expect(team.members.isEmpty)
        #expect(post.title == "one")
    }

    @Test func aCompositeKeyCollisionNamesTheKey() throws {
        let temp = try TemporaryDatabase()
        let first = AuditGrant(); first.user = 1; first.permission = "read"; first.level = 1
        try temp.db.save(first)
        let db = try temp.reopen()
        let second = AuditGrant(); second.user = 1; second.permission = "read"; second.level = 2
        let error = #expect(throws: ModelError.self) { try db.save(second) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.model == "AuditGrant")
        #expect(error?.key != nil)
        #expect(error?.properties == ["user", "permission"])
        #expect(!second.isPersisted)
    }

    @Test func aDeleteRolledBackWithItsSavepointBringsTheInstanceBack() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.slug = "a"
        try temp.db.save(a)
        try temp.db.transaction {
            struct Undo: Error {}
            _ = try? temp.db.transaction {
                try temp.db.delete(a)
                #expect(a.isDeleted)
                throw Undo()
            }
            #expect(!a.isDeleted)
            #expect(try temp.db.object(SyncedNote.self, forKey: 1) === a)
            a.text = "kept"
            try temp.db.save(a)
        }
        #expect(try temp.db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "kept")
    }

    @Test func aNullWrittenByAnotherHandleMakesTheInstanceStaleNamingTheColumn() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Measured (id INTEGER PRIMARY KEY, reading REAL, payload TEXT, count INTEGER, flag INTEGER,
                stamp REAL, token TEXT, label TEXT, mood TEXT)
            """)
        let m = Measured(); m.count = 3
        try temp.db.save(m)
        let other = try Database(path: temp.path)
        try other.execute("UPDATE Measured SET count = NULL, flag = 1")
        m.label = "mine"
        let error = #expect(throws: ModelError.self) { try temp.db.save(m) }
        #expect(error?.kind == .stale)
        #expect(error?.property == "count")
        #expect(m.count == 3 && m.label == "mine" && !m.flag)
        #expect(try temp.db.value(String.self, "SELECT label FROM Measured") == "")
        try other.execute("UPDATE Measured SET count = 4")
        try temp.db.save(m)
        #expect(m.count == 4 && m.flag)
        #expect(try temp.db.value(String.self, "SELECT label FROM Measured") == "mine")
    }
}

private final class SharedA: Model {
    static let tableName = "shared"
    static let uniqueIndices = [["code"]]
    var id: Int64 = 0
    var code = ""
    required init() {}
}

private final class SharedB: Model {
    static let tableName = "shared"
    var id: Int64 = 0
    var code = ""
    required init() {}
}

private final class Tagged: Model {
    static let indices = [["label"]]
    var id: Int64 = 0
    var label = ""
    var other = ""
    required init() {}
}

@Suite struct AuditIndexTests {
    @Test func aUniqueIndexAnotherModelDeclaresIsNotDroppedByAFreshHandle() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(SharedA.self)
        let db = try temp.reopen()
        try db.syncSchema(SharedB.self)
        // A handle knows only the models it has synced: SharedB's sync must not drop the UNIQUE index
        // SharedA declared (sync never drops a UNIQUE index), so no duplicate gets in meanwhile.
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'shared' AND sql LIKE 'CREATE UNIQUE%'") == 1)
        let first = SharedB(); first.code = "A1"
        try db.save(first)
        let second = SharedB(); second.code = "A1"
        #expect(throws: ModelError.self) { try db.save(second) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM shared") == 1)
        #expect(try temp.reopen().syncSchema(SharedA.self).isEmpty)
    }

    @Test func anIndexWhoseNameDiffersOnlyInCaseIsASchemaError() throws {
        let temp = try TemporaryDatabase()
        let name = try #require(try Database().schemaPlan(for: Tagged.self).steps.compactMap { step -> String? in
            if case .createIndex(let n) = step.kind { return n } else { return nil }
        }.first)
        try temp.db.execute("CREATE TABLE Tagged (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL DEFAULT '', other TEXT NOT NULL DEFAULT '')")
        try temp.db.execute("CREATE INDEX \"\(name.uppercased())\" ON Tagged (other)")
        #expect(throws: SchemaError.self) { try temp.db.syncSchema(Tagged.self) }
        #expect(try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE type = 'index'")?.contains("other") == true)
    }
}

private final class RemoteItem: Model {
    static let tableName = "remote_item"
    static let upsertKeys = ["source", "remoteID"]
    var id: Int64 = 0
    var source: String?
    var remoteID = UUID()
    var title = ""
    required init() {}
}

@Suite struct AuditUpsertFormatTests {
    @Test func aCompositeUpsertKeyMatchesInTheColumnsFormatAndANilPartMatchesNothing() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE remote_item (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, source varchar(10) NULL, remoteID char(32) NOT NULL, title varchar(20) NOT NULL);
            INSERT INTO remote_item VALUES (5, 'web', '0f8fad5bd9cb469fa16570867728950e', 'old');
            INSERT INTO remote_item VALUES (6, NULL, '7c9e6679742540de944be07fc1f90ae7', 'orphan');
            """)
        let incoming = RemoteItem(); incoming.source = "web"
        incoming.remoteID = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        incoming.title = "new"
        try temp.db.save(incoming)
        #expect(incoming.id == 5)
        #expect(try temp.db.value(String.self, "SELECT title FROM remote_item WHERE id = 5") == "new")
        let orphan = RemoteItem()
        orphan.remoteID = try #require(UUID(uuidString: "7C9E6679-7425-40DE-944B-E07FC1F90AE7"))
        orphan.title = "second orphan"
        try temp.db.save(orphan)
        #expect(orphan.id == 7)
        #expect(try temp.db.value(String.self, "SELECT remoteID FROM remote_item WHERE id = 7") == "7c9e6679742540de944be07fc1f90ae7")
    }
}

private final class Priced: Model {
    var id: Int64 = 0
    var price = Decimal(0)
    var discount: Decimal?
    required init() {}
}

@Suite struct AuditDecimalNaNTests {
    /// A Decimal NaN would be stored as the text "NaN", which no fetch can read back: refused on save,
    /// naming the property, as a Double NaN is.
    @Test func aDecimalNaNIsRefusedOnSaveNamingTheProperty() throws {
        let temp = try TemporaryDatabase()
        let p = Priced(); p.price = .nan
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(p) }
        #expect(error?.property == "price")
        #expect(!p.isPersisted)
        let q = Priced()
        try temp.db.save(q)
        q.discount = .nan
        let again = #expect(throws: ValueConversionError.self) { try temp.db.save(q) }
        #expect(again?.property == "discount")
        #expect(try temp.reopen().objects(Priced.self).count == 1)
    }
}
