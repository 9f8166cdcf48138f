import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Composite primary keys: many-to-many tables as peewee, SQLAlchemy and Django make them.

private final class CKNote: Model {
    static let tableName = "note"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class CKLabel: Model {
    static let tableName = "label"
    static let primaryKey = "code"
    var code = ""
    required init() {}
}

/// peewee's `notelabel`: the key parts are plain properties.
private final class NoteLabel: Model {
    static let tableName = "notelabel"
    static let compositeKey = ["note_id", "label_id"]
    var note_id: Int64 = 0
    var label_id = ""
    var weight = 0
    required init() {}
}

/// The same table, its key parts as references (found by their `_id` columns).
private final class NoteLabelLink: Model {
    static let tableName = "notelabel"
    static let compositeKey = ["note", "label"]
    @Reference var note: CKNote?
    @Reference var label: CKLabel?
    var weight = 0
    required init() {}
}

/// A composite key Strata creates.
private final class Grant: Model {
    static let compositeKey = ["user", "permission"]
    static let indices = [["permission"]]
    var user: Int64 = 0
    var permission = ""
    var level = 1
    required init() {}
}

/// A WITHOUT ROWID table keyed by a UUID stored as 32 hex digits and a number.
private final class Slot: Model {
    static let compositeKey = ["owner", "n"]
    var owner = UUID()
    var n = 0
    var value: String?
    required init() {}
}

private final class PointsAtComposite: Model {
    var id: Int64 = 0
    @Reference var grant: Grant?
    required init() {}
}

/// A composite-keyed model referring to its own type: refused like any reference to a composite key, so a
/// batch of such objects never reaches the insertion ordering of self-references.
private final class CompositeSelf: Model {
    static let compositeKey = ["tree", "n"]
    var tree: Int64 = 0
    var n = 0
    @Reference var parent: CompositeSelf?
    required init() {}
}

private func labelled() throws -> Database {
    let db = try TestDatabase.make()
    try db.execute("""
        CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '');
        CREATE TABLE label (code VARCHAR(16) PRIMARY KEY NOT NULL);
        CREATE TABLE notelabel ("note_id" INTEGER NOT NULL, "label_id" VARCHAR(16) NOT NULL, weight INTEGER NOT NULL DEFAULT 0,
                                PRIMARY KEY ("note_id", "label_id"),
                                FOREIGN KEY ("note_id") REFERENCES "note" ("id"), FOREIGN KEY ("label_id") REFERENCES "label" ("code"));
        INSERT INTO note VALUES (1, 'one'), (2, 'two');
        INSERT INTO label VALUES ('a'), ('b');
        INSERT INTO notelabel VALUES (1, 'a', 5), (1, 'b', 6), (2, 'a', 7);
        """)
    return db
}

@Suite struct CompositeKeyTests {
    @Test func readsFindsAndKeepsOneInstancePerRow() throws {
        let db = try labelled()
        #expect(try db.schemaPlan(for: NoteLabel.self).isEmpty)
        let all = try db.objects(NoteLabel.self, where: "ORDER BY $PK")
        #expect(all.map(\.weight) == [5, 6, 7])
        let found = try #require(try db.object(NoteLabel.self, forKey: CompositeKey(1, "b")))
        #expect(found === all[1])
        #expect(try db.object(NoteLabel.self, forKey: CompositeKey(2, "b")) == nil)
        #expect(try db.objects(NoteLabel.self, forKeys: [CompositeKey(2, "a"), CompositeKey(9, "x"), CompositeKey(1, "a")]).map(\.weight) == [7, 5])
        #expect(try CompositeKey(1, "b").description == "(1, 'b')")
        // One spelling per key, read back exactly: the identity map relies on it.
        let awkward: [[SQLValue]] = [
            [.integer(-5), .text("")], [.real(-0.0), .real(1e20)], [.text("a', 'b"), .text("x), (y")], [.null, .integer(Int64.min)],
            [.real(.infinity), .real(-.infinity)], [.integer(1), .real(1)], [.blob(Data()), .text("NULL")],
        ]
        for values in awkward {
            let spelled = CompositeKey(values: values).sqlValue
            #expect(try CompositeKey(sqlValue: spelled).values == values, "\(spelled)")
        }
        #expect(Set(awkward.map { CompositeKey(values: $0).description }).count == awkward.count)
        #expect(try CompositeKey(sqlValue: CompositeKey(1, "it's", 2.5, Data([1, 255])).sqlValue).values
            == [.integer(1), .text("it's"), .real(2.5), .blob(Data([1, 255]))])
    }

    @Test func savesUpdatesInsertsAndDeletesByTheWholeKey() throws {
        let db = try labelled()
        let link = try #require(try db.object(NoteLabel.self, forKey: CompositeKey(1, "b")))
        link.weight = 60
        let log = StatementLog(db)
        let (_, ran) = try log.during { try db.save(link) }
        // (By the whole key; PostgreSQL spells the placeholders `$n` and adds its guard of the columns read.)
        #expect(ran.contains { $0.hasPrefix(#"UPDATE "notelabel" SET "weight" = "#) && $0.contains(#" WHERE "note_id" = "#) && $0.contains(#" AND "label_id" = "#) })
        #expect(try db.column(Int.self, "SELECT weight FROM notelabel ORDER BY note_id, label_id") == [5, 60, 7])

        let new = NoteLabel(); new.note_id = 2; new.label_id = "b"; new.weight = 8
        try db.save(new)
        #expect(try db.object(NoteLabel.self, forKey: CompositeKey(2, "b")) === new)
        let twin = NoteLabel(); twin.note_id = 2; twin.label_id = "b"
        #expect(try #require(throws: ModelError.self) { try db.save(twin) }.kind == .duplicateInstance)

        #expect(try db.delete(link))
        #expect(link.isDeleted)
        #expect(try db.column(String.self, "SELECT note_id || label_id FROM notelabel ORDER BY 1") == ["1a", "2a", "2b"])

        // A key part of a saved instance cannot change: the instance stays its row.
        new.label_id = "a"
        #expect(try #require(throws: ModelError.self) { try db.save(new) }.kind == .invalidPrimaryKey)
    }

    @Test func aDuplicateRowWrittenElsewhereIsADuplicateKeyError() throws {
        let temp = try TestDatabase()
        try temp.db.execute("CREATE TABLE notelabel (note_id INTEGER NOT NULL, label_id TEXT NOT NULL, weight INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (note_id, label_id))")
        let other = try temp.openAnother()
        try other.execute("INSERT INTO notelabel VALUES (1, 'a', 1)")
        let copy = NoteLabel(); copy.note_id = 1; copy.label_id = "a"
        let error = try #require(throws: ModelError.self) { try temp.db.save(copy) }
        #expect(error.kind == .duplicateKey && error.key == .text("(1, 'a')") && error.properties == ["note_id", "label_id"])
        try other.close()
    }

    // PostgreSQL: a raw UPDATE reaches live instances at their next lookup or fetch (by design)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: raw SQL reaches a live instance at its next lookup or fetch (by design), not at once")) func rawSQLReachesLiveInstances() throws {
        let db = try labelled()
        let link = try #require(try db.object(NoteLabel.self, forKey: CompositeKey(1, "a")))
        try db.execute("UPDATE $T SET weight = 50 WHERE note_id = 1 AND label_id = 'a'", for: NoteLabel.self)
        #expect(link.weight == 50)
        try db.execute("UPDATE $T SET label_id = 'b' WHERE note_id = 2", for: NoteLabel.self)
        let moved = try #require(try db.object(NoteLabel.self, forKey: CompositeKey(2, "b")))
        #expect(moved.weight == 7)
        try db.execute("DELETE FROM $T WHERE note_id = 1 AND label_id = 'a'", for: NoteLabel.self)
        #expect(link.isDeleted)
    }

    @Test func keyPartsCanBeReferences() throws {
        let db = try labelled()
        let plan = try db.schemaPlan(for: NoteLabelLink.self)
        #expect(plan.isEmpty && plan.columns["note"] == "note_id" && plan.columns["label"] == "label_id")
        let link = try #require(try db.object(NoteLabelLink.self, forKey: CompositeKey(2, "a")))
        #expect(link.note?.title == "two" && link.label?.code == "a")
        let new = NoteLabelLink()
        new.note = try db.object(CKNote.self, forKey: 2)
        new.label = try db.object(CKLabel.self, forKey: "b")
        new.weight = 9
        try db.save(new)
        #expect(try db.value(Int.self, "SELECT weight FROM notelabel WHERE note_id = 2 AND label_id = 'b'") == 9)
    }

    // PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())")) func aTableStrataCreatesHasTheCompositeKey() throws {
        let temp = try TestDatabase()
        let grant = Grant(); grant.user = 7; grant.permission = "read"
        try temp.db.save(grant)
        let sql = try #require(try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'Grant'"))
        #expect(sql == #"CREATE TABLE "Grant" ("user" INTEGER NOT NULL, "permission" TEXT NOT NULL, "level" INTEGER NOT NULL DEFAULT 1, PRIMARY KEY ("user", "permission"))"#)
        let unset = Grant(); unset.permission = "write"
        try temp.db.save(unset)   // user 0 is a value like any other: no key is assigned
        #expect(try temp.db.count(Grant.self) == 2)
        let fresh = try temp.reopen()
        #expect(try fresh.schemaPlan(for: Grant.self).isEmpty)
        #expect(try fresh.object(Grant.self, forKey: CompositeKey(7, "read"))?.level == 1)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func keyPartsKeepTheirColumnsFormats() throws {
        let db = try TestDatabase.make()
        try db.execute("""
            CREATE TABLE Slot (owner char(32) NOT NULL, n INTEGER NOT NULL, value TEXT, PRIMARY KEY (owner, n)) WITHOUT ROWID;
            INSERT INTO Slot VALUES ('0f8fad5bd9cb469fa16570867728950e', 1, 'x');
            """)
        let owner = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        let slot = try #require(try db.object(Slot.self, forKey: CompositeKey(owner, 1)))
        #expect(slot.value == "x")
        slot.value = "y"
        try db.save(slot)
        let second = Slot(); second.owner = owner; second.n = 2
        try db.save(second)
        #expect(try db.column(String.self, "SELECT owner || ':' || n || ':' || ifnull(value, '-') FROM Slot ORDER BY n")
            == ["0f8fad5bd9cb469fa16570867728950e:1:y", "0f8fad5bd9cb469fa16570867728950e:2:-"])
        try db.execute("UPDATE $T SET value = 'raw' WHERE n = 1", for: Slot.self)
        #expect(slot.value == "raw")
        #expect(try db.delete(second))
        #expect(try db.count(Slot.self) == 1)
    }

    @Test func aTextPartBeginningWithACombiningMarkIsSavedAndDeleted() throws {
        // "\u{0301}x" spelled in the key as '\u{0301}x': read by Characters, the quote and the accent
        // were one grapheme and the key did not parse.
        let db = try TestDatabase.make()
        try db.execute("CREATE TABLE notelabel(note_id INTEGER NOT NULL, label_id TEXT NOT NULL, weight INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (note_id, label_id))")
        try db.execute("INSERT INTO notelabel VALUES (1, ?, 1), (2, ?, 1)", "\u{0301}x", "y\u{0301}")
        #expect(CompositeKey.parse("(1, '\u{0301}x', 'a''\u{0301}', 2.5, NULL)")
            == [.integer(1), .text("\u{0301}x"), .text("a'\u{0301}"), .real(2.5), .null])
        let link = try #require(try db.object(NoteLabel.self, forKey: CompositeKey(1, "\u{0301}x")))
        link.weight = 2
        try db.save(link)
        #expect(try db.value(Int64.self, "SELECT weight FROM notelabel WHERE note_id = 1") == 2)
        #expect(try db.delete(link))
        #expect(try db.column(String.self, "SELECT label_id FROM notelabel") == ["y\u{0301}"])
    }

    // PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())")) func mismatchesAreClearErrors() throws {
        let db = try labelled()
        final class WrongKey: Model {
            static let tableName = "notelabel"
            var id: Int64 = 0
            required init() {}
        }
        let error = try #require(throws: SchemaError.self) { try db.objects(WrongKey.self) }
        #expect(error.remedy.contains(#"static let compositeKey = ["note_id", "label_id"]"#))
        let reference = try #require(throws: ModelError.self) { try db.syncSchema(PointsAtComposite.self) }
        #expect(reference.kind == .unsupportedType && reference.property == "grant")
        let root = CompositeSelf(), leaf = CompositeSelf()
        leaf.n = 1; leaf.parent = root
        let selfReference = try #require(throws: ModelError.self) { try db.save([root, leaf]) }
        #expect(selfReference.kind == .unsupportedType && selfReference.model == "CompositeSelf" && selfReference.property == "parent")
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'CompositeSelf'") == 0)
    }
}
