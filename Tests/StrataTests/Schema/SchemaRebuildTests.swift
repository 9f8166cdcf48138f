import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Opt-in schema changes: rename hints and the 12-step rebuild (DESIGN.md "Must hold", SQLITE_PITFALLS
// items 19-22). Model versions are separate classes sharing one `tableName`.

// MARK: Rename models

private final class RnPersonV1: Model {
    static let tableName = "RnPerson"
    var id: Int64 = 0
    var name = ""
    var age = 0
    required init() {}
}

private final class RnPersonV2: Model {
    static let tableName = "RnPerson"
    static let renamedColumns = ["fullName": "name"]
    var id: Int64 = 0
    var fullName = ""
    var age = 0
    required init() {}
}

/// The table renamed too, and a column it gained.
private final class RnPeople: Model {
    static let tableName = "people"
    static let previousTableNames = ["RnPerson"]
    static let renamedColumns = ["fullName": "name"]
    var id: Int64 = 0
    var fullName = ""
    var age = 0
    var email: String?
    required init() {}
}

/// Renamed and retyped at once: `age` was TEXT (made by another tool), `years` is an Int.
private final class RnAgeRetyped: Model {
    static let tableName = "RnPerson"
    static let renamedColumns = ["years": "age"]
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var name = ""
    var years = 0
    required init() {}
}

// MARK: Rebuild models

/// Over a table another tool made: `reading` was TEXT, is now an Int; `label`, `legacy`, `flags` stay as they were.
private final class GaugeNever: Model {
    static let tableName = "Gauge"
    var id: Int64 = 0
    var reading = 0
    var label: String?
    required init() {}
}

private final class GaugeRebuilt: Model {
    static let tableName = "Gauge"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    static let indices: [[String]] = [["label", "reading"]]
    var id: Int64 = 0
    var reading = 0
    var label: String?
    required init() {}
}

/// `code` was TEXT, is an Int now; `Child` rows reference `Parent` with ON DELETE CASCADE.
private final class CascadeParent: Model {
    static let tableName = "Parent"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var code = 0
    required init() {}
}

/// `title` was NOT NULL, is optional now (a NOT NULL to remove).
private final class MemoOptional: Model {
    static let tableName = "Memo"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var title: String?
    required init() {}
}

/// `title` was nullable, is non-optional now (a NOT NULL to add).
private final class MemoRequired: Model {
    static let tableName = "Memo"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var title = "untitled"
    required init() {}
}

/// The same without the opt-in.
private final class MemoRequiredNever: Model {
    static let tableName = "Memo"
    var id: Int64 = 0
    var title = "untitled"
    required init() {}
}

/// `size` was INTEGER, is text now; the table has a VIRTUAL and a STORED generated column.
private final class GeneratedDoc: Model {
    static let tableName = "Doc"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var body: String?
    var size = ""
    required init() {}
}

/// An AUTOINCREMENT table whose `amount` was TEXT.
private final class Ledger: Model {
    static let tableName = "Ledger"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var amount = 0.0
    required init() {}
}

/// A text key, so rows are found by rowid: rowids must survive the rebuild.
private final class TextKeyed: Model {
    static let tableName = "Tagged"
    static let primaryKey = "code"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var code = ""
    var weight = 0
    required init() {}
}

/// peewee's `notebook`: `title` VARCHAR(80) is nullable there; non-optional here, so a rebuild adds NOT NULL.
private final class PwNotebook: Model {
    static let tableName = "notebook"
    static let primaryKey = "notebook_id"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var notebook_id: Int64 = 0
    var owner_id: Int64 = 0
    var title = ""
    required init() {}
}

/// SQLAlchemy's `posts`: `published_on` is DATE (NUMERIC affinity) holding text; here it is a String.
/// The table has AUTOINCREMENT, a generated column, a UNIQUE constraint, and `post_tags` rows referencing it.
private final class SAPostText: Model {
    static let tableName = "posts"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var user_id: Int64 = 0
    var title = ""
    var published_on: String?
    required init() {}
}

// MARK: Helpers

private func makeGauge(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE Gauge(id INTEGER PRIMARY KEY, reading TEXT NOT NULL DEFAULT '', label VARCHAR(20) COLLATE NOCASE UNIQUE,
                           legacy BLOB, flags INTEGER NOT NULL DEFAULT 4 CHECK (flags >= 0));
        CREATE INDEX other_tool_reading ON Gauge(reading DESC);
        CREATE INDEX other_tool_partial ON Gauge(label) WHERE flags > 4;
        CREATE TRIGGER gauge_touch AFTER UPDATE OF reading ON Gauge BEGIN UPDATE Gauge SET flags = flags + 1 WHERE id = new.id; END;
        CREATE VIEW gauge_labels AS SELECT label FROM Gauge;
        INSERT INTO Gauge(id, reading, label, legacy, flags) VALUES (1, '10', 'a', x'01ff', 4), (2, ' 42 ', 'b', NULL, 5), (3, '7', NULL, x'', 9);
        """)
}

/// Every row of a table as text, in rowid order, for before/after comparisons.
private func dump(_ table: String, _ db: Database) throws -> [String] {
    try db.rows("SELECT rowid AS r, * FROM \(SQL.quote(table)) ORDER BY rowid").map { $0.description }
}

private func foreignKeysOn(_ db: Database) throws -> Bool {
    try db.value(Int.self, "PRAGMA foreign_keys") == 1
}

@Suite struct SchemaRebuildTests {
    // MARK: Rename hints

    @Test func renameHintRenamesTheColumnAndKeepsData() throws {
        let temp = try TemporaryDatabase()
        for (name, age) in [("Ada", 36), ("Grace", 45)] {
            let person = RnPersonV1(); person.name = name; person.age = age
            try temp.db.save(person)
        }
        try temp.db.execute("CREATE INDEX person_by_name ON RnPerson(name)")
        let db = try temp.reopen()
        let plan = try db.schemaPlan(for: RnPersonV2.self)
        #expect(plan.steps.map(\.kind) == [.renameColumn(from: "name", to: "fullName")])
        #expect(plan.steps[0].sql == #"ALTER TABLE "RnPerson" RENAME COLUMN "name" TO "fullName""#)
        #expect(!plan.rebuildsTable)

        let people = try db.objects(RnPersonV2.self, where: "ORDER BY id")
        #expect(people.map(\.fullName) == ["Ada", "Grace"])
        #expect(people.map(\.age) == [36, 45])
        #expect(try columnsOf("RnPerson", in: db).map(\.name) == ["id", "fullName", "age"])
        // The other tool's index follows the column.
        #expect(try db.column(String.self, "SELECT name FROM pragma_index_info('person_by_name')") == ["fullName"])
        #expect(try db.syncSchema(RnPersonV2.self).isEmpty)
        #expect(try temp.reopen().schemaPlan(for: RnPersonV2.self).isEmpty)
    }

    @Test func renameHintWithBothColumnsPresentIsASchemaError() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE RnPerson(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', fullName TEXT NOT NULL DEFAULT '', age INTEGER NOT NULL DEFAULT 0);
            INSERT INTO RnPerson(name, fullName) VALUES ('old', 'new');
            """)
        let before = try schemaSnapshot(db)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(RnPersonV2.self) }
        #expect(error.column == "fullName")
        #expect(error.found.contains("\"fullName\"") && error.found.contains("\"name\""))
        #expect(error.table == "RnPerson")
        #expect(try schemaSnapshot(db) == before)
        #expect(try db.rows("SELECT name, fullName FROM RnPerson").map(\.values) == [[.text("old"), .text("new")]])
    }

    @Test func renameHintWhenTheOldColumnIsGoneAddsTheColumn() throws {
        let db = try Database()
        // A fresh database: the hint has nothing to rename, the table is created with the new name.
        let plan = try db.syncSchema(RnPersonV2.self)
        #expect(plan.steps.first?.kind == .createTable)
        #expect(try columnsOf("RnPerson", in: db).map(\.name) == ["id", "fullName", "age"])
    }

    @Test func previousTableNameRenamesTheTableAndChildForeignKeysFollow() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE RnPerson(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', age INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE Pet(id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES RnPerson(id) ON DELETE CASCADE);
            INSERT INTO RnPerson(id, name, age) VALUES (1, 'Ada', 36), (2, 'Grace', 45);
            INSERT INTO Pet(id, owner_id) VALUES (10, 1), (11, 2);
            """)
        let db = try temp.reopen()
        let plan = try db.schemaPlan(for: RnPeople.self)
        #expect(plan.steps.map(\.kind) == [.renameTable(from: "RnPerson", to: "people"),
                                           .renameColumn(from: "name", to: "fullName"), .addColumn("email")])
        #expect(plan.steps[0].sql == #"ALTER TABLE "RnPerson" RENAME TO "people""#)
        #expect(plan.steps[1].sql == #"ALTER TABLE "people" RENAME COLUMN "name" TO "fullName""#)

        let applied = try db.syncSchema(RnPeople.self)
        #expect(applied.steps == plan.steps)
        #expect(try db.objects(RnPeople.self, where: "ORDER BY id").map(\.fullName) == ["Ada", "Grace"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'RnPerson'") == 0)
        // The child's foreign key now names the renamed table and still cascades.
        #expect(try db.value(String.self, "SELECT \"table\" FROM pragma_foreign_key_list('Pet')") == "people")
        try db.execute("DELETE FROM people WHERE id = 1")
        #expect(try db.column(Int.self, "SELECT id FROM Pet") == [11])
        #expect(try db.syncSchema(RnPeople.self).isEmpty)
    }

    @Test func previousTableNameWhileTheNewTableExistsIsASchemaError() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE RnPerson(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE people(id INTEGER PRIMARY KEY, fullName TEXT NOT NULL DEFAULT '', age INTEGER NOT NULL DEFAULT 0, email TEXT);
            """)
        let before = try schemaSnapshot(db)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(RnPeople.self) }
        #expect(error.found.contains("\"RnPerson\"") && error.found.contains("\"people\""))
        #expect(try schemaSnapshot(db) == before)
    }

    @Test func renameHintNamingNoPropertyIsAModelError() throws {
        final class BadHint: Model {
            static var tableName: String { "BadHint" }
            static var renamedColumns: [String: String] { ["nosuch": "old"] }
            var id: Int64 = 0
            required init() {}
        }
        let error = try #require(throws: ModelError.self) { try Database().syncSchema(BadHint.self) }
        #expect(error.property == "nosuch")
    }

    // MARK: Rebuild policy

    @Test func typeChangeWithoutOptInIsASchemaErrorAndChangesNothing() throws {
        let temp = try TemporaryDatabase()
        try makeGauge(temp.db)
        let db = try temp.reopen()
        let before = try schemaSnapshot(db)
        let rows = try dump("Gauge", db)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(GaugeNever.self) }
        #expect(error.table == "Gauge" && error.column == "reading")
        #expect(error.found.contains("TEXT") && error.expected.contains("INTEGER"))
        #expect(error.remedy.contains("SchemaRebuild.whenNeeded"))
        #expect(throws: SchemaError.self) { try db.schemaPlan(for: GaugeNever.self) }
        #expect(try schemaSnapshot(db) == before)
        #expect(try dump("Gauge", db) == rows)
    }

    @Test func typeChangeRebuildsKeepingRowsUndeclaredColumnsIndicesAndTriggers() throws {
        let temp = try TemporaryDatabase()
        try makeGauge(temp.db)
        var db = try temp.reopen()
        let indexSQLBefore = try db.column(String.self, "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql NOT NULL ORDER BY name")
        let before = try schemaSnapshot(db)

        // Dry run: the rebuild, statement by statement, and nothing changed.
        let plan = try db.schemaPlan(for: GaugeRebuilt.self)
        #expect(plan.rebuildsTable)
        #expect(try schemaSnapshot(db) == before)
        let sql = plan.steps.map(\.sql)
        #expect(sql.first == """
            CREATE TABLE "strata_new_Gauge" (id INTEGER PRIMARY KEY, reading INTEGER NOT NULL DEFAULT 0, \
            label VARCHAR(20) COLLATE NOCASE UNIQUE, legacy BLOB, flags INTEGER NOT NULL DEFAULT 4 CHECK (flags >= 0))
            """)
        #expect(sql.contains(#"INSERT INTO "strata_new_Gauge" ("id", "reading", "label", "legacy", "flags") SELECT "id", "reading", "label", "legacy", "flags" FROM "Gauge""#))
        #expect(sql.contains(#"SELECT "id" FROM "strata_new_Gauge" WHERE typeof("reading") NOT IN ('integer', 'null') LIMIT 10"#))
        #expect(Array(sql.drop { !$0.hasPrefix("PRAGMA legacy_alter_table = ON") }.prefix(4)) == [
            "PRAGMA legacy_alter_table = ON", #"DROP TABLE "Gauge""#, #"ALTER TABLE "strata_new_Gauge" RENAME TO "Gauge""#,
            "PRAGMA legacy_alter_table = OFF",
        ])
        #expect(sql.contains("CREATE INDEX other_tool_reading ON Gauge(reading DESC)"))
        #expect(sql.contains { $0.hasPrefix("CREATE TRIGGER gauge_touch") })
        #expect(plan.steps.contains { $0.kind == .rebuildCheck(column: nil, expectation: #"no foreign key violation in "Gauge" (table, rowid, parent, columns)"#) })
        #expect(plan.steps.last?.kind == .createIndex("strata_Gauge_label_reading_b476cd19"))

        let applied = try db.syncSchema(GaugeRebuilt.self)
        #expect(applied.steps == plan.steps)
        #expect(try foreignKeysOn(db))
        #expect(try db.value(Int.self, "PRAGMA legacy_alter_table") == 0)

        // Every row, converted by INTEGER affinity; the undeclared columns untouched.
        let gauges = try db.objects(GaugeRebuilt.self, where: "ORDER BY id")
        #expect(gauges.map(\.reading) == [10, 42, 7])
        #expect(gauges.map(\.label) == ["a", "b", nil])
        #expect(try db.column(String.self, "SELECT typeof(reading) FROM Gauge ORDER BY id") == ["integer", "integer", "integer"])
        #expect(try db.rows("SELECT rowid, id, reading, label, flags FROM Gauge ORDER BY rowid").map(\.values) == [
            [.integer(1), .integer(1), .integer(10), .text("a"), .integer(4)],
            [.integer(2), .integer(2), .integer(42), .text("b"), .integer(5)],
            [.integer(3), .integer(3), .integer(7), .null, .integer(9)],
        ])
        #expect(try db.rows("SELECT legacy FROM Gauge ORDER BY id").map { $0["legacy"] } == [.blob(Data([1, 255])), .null, .blob(Data())])
        let columns = try columnsOf("Gauge", in: db)
        #expect(columns.map(\.name) == ["id", "reading", "label", "legacy", "flags"])
        #expect(columns.map(\.type) == ["INTEGER", "INTEGER", "VARCHAR(20)", "BLOB", "INTEGER"])
        #expect(columns[1].notNull && columns[1].defaultSQL == "0")
        #expect(columns[4].notNull && columns[4].defaultSQL == "4")

        // Every index (the other tool's, the UNIQUE constraint's, and the one the model declares), the
        // trigger, the view and the CHECK constraint.
        let indexSQLAfter = try db.column(String.self, "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql NOT NULL AND name NOT LIKE 'strata_%' ORDER BY name")
        #expect(indexSQLAfter == indexSQLBefore)
        #expect(try indexNames("Gauge", in: db) == ["other_tool_partial", "other_tool_reading", "sqlite_autoindex_Gauge_1", "strata_Gauge_label_reading_b476cd19"])
        try db.execute("UPDATE Gauge SET reading = 11 WHERE id = 1")
        #expect(try db.value(Int.self, "SELECT flags FROM Gauge WHERE id = 1") == 5)   // the trigger fired
        #expect(try db.column(String.self, "SELECT label FROM gauge_labels WHERE label NOT NULL ORDER BY label") == ["a", "b"])
        #expect(throws: DatabaseError.self) { try db.execute("UPDATE Gauge SET flags = -1 WHERE id = 2") }
        #expect(throws: DatabaseError.self) { try db.execute("UPDATE Gauge SET label = 'A' WHERE id = 2") }   // UNIQUE, NOCASE
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'strata_new_%'") == 0)

        // In sync now, in this handle and a fresh one; the model saves as usual.
        #expect(try db.syncSchema(GaugeRebuilt.self).isEmpty)
        db = try temp.reopen()
        #expect(try db.schemaPlan(for: GaugeRebuilt.self).isEmpty)
        let more = GaugeRebuilt(); more.reading = 99
        try db.save(more)
        #expect(more.id == 4)
        #expect(try db.value(Int.self, "SELECT flags FROM Gauge WHERE id = 4") == 4)
    }

    @Test func valueThatDoesNotConvertStopsTheRebuildAndChangesNothing() throws {
        let temp = try TemporaryDatabase()
        try makeGauge(temp.db)
        try temp.db.execute("INSERT INTO Gauge(id, reading) VALUES (7, 'abc'), (8, '1.5')")
        let db = try temp.reopen()
        let before = try schemaSnapshot(db)
        let rows = try dump("Gauge", db)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(GaugeRebuilt.self) }
        #expect(error.column == "reading")
        #expect(error.found.contains("2 row(s)") && error.found.contains("(7)") && error.found.contains("(8)"))
        #expect(error.expected.contains("INTEGER"))
        #expect(error.remedy.contains("rolled back"))
        #expect(try schemaSnapshot(db) == before)
        #expect(try dump("Gauge", db) == rows)
        #expect(try foreignKeysOn(db))
        #expect(!db.isInTransaction)
    }

    @Test func childRowsWithOnDeleteCascadeSurviveTheParentsRebuild() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Parent(id INTEGER PRIMARY KEY, code TEXT NOT NULL DEFAULT '');
            CREATE TABLE Child(id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES Parent(id) ON DELETE CASCADE, name TEXT);
            INSERT INTO Parent(id, code) VALUES (1, '100'), (2, '200');
            INSERT INTO Child(id, parent_id, name) VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c');
            """)
        let db = try temp.reopen()
        #expect(try foreignKeysOn(db))
        let children = try dump("Child", db)
        let plan = try db.syncSchema(CascadeParent.self)
        #expect(plan.rebuildsTable)
        #expect(plan.steps.contains { $0.sql.contains("FROM pragma_foreign_key_check('Child')") })
        // With foreign keys on, DROP TABLE Parent would have deleted every child (pitfall 21).
        #expect(try dump("Child", db) == children)
        #expect(try db.column(Int.self, "SELECT code FROM Parent ORDER BY id") == [100, 200])
        #expect(try foreignKeysOn(db))
        // The foreign key still works against the rebuilt parent.
        try db.execute("DELETE FROM Parent WHERE id = 1")
        #expect(try db.column(Int.self, "SELECT id FROM Child") == [3])
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO Child(parent_id) VALUES (42)") }
    }

    @Test func foreignKeyViolationAfterTheRebuildRollsItBack() throws {
        let temp = try TemporaryDatabase(configuration: { var c = Database.Configuration(); c.foreignKeys = false; return c }())
        try temp.db.execute("""
            CREATE TABLE Parent(id INTEGER PRIMARY KEY, code TEXT NOT NULL DEFAULT '');
            CREATE TABLE Child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES Parent(id));
            INSERT INTO Parent(id, code) VALUES (1, '100');
            INSERT INTO Child(id, parent_id) VALUES (1, 1), (2, 99);
            """)
        let db = try temp.reopen()
        let before = try schemaSnapshot(db)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(CascadeParent.self) }
        #expect(error.expected.contains("foreign key") && error.expected.contains("\"Child\""))
        #expect(error.found.contains("Child") && error.found.contains("Parent"))
        // The violation names its foreign key's column, not only the key's id.
        #expect(error.found.contains("(Child, 2, Parent, parent_id)"))
        #expect(try schemaSnapshot(db) == before)
        #expect(try db.column(String.self, "SELECT code FROM Parent") == ["100"])
        #expect(try foreignKeysOn(db))
    }

    @Test func rebuildInsideAnOpenTransactionIsAClearError() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Parent(id INTEGER PRIMARY KEY, code TEXT NOT NULL DEFAULT ''); INSERT INTO Parent(code) VALUES ('5')")
        let db = try temp.reopen()
        let before = try schemaSnapshot(db)
        let error = try #require(throws: SchemaError.self) {
            try db.transaction { try db.syncSchema(CascadeParent.self) }
        }
        #expect(error.found.contains("transaction") && error.found.contains("foreign keys on"))
        #expect(error.remedy.contains("syncSchema(CascadeParent.self)"))
        #expect(!db.isInTransaction)
        #expect(try foreignKeysOn(db))
        #expect(try schemaSnapshot(db) == before)
        // First use inside a transaction reports the same, and outside it the rebuild runs.
        #expect(throws: SchemaError.self) { try db.transaction { _ = try db.objects(CascadeParent.self) } }
        #expect(try db.objects(CascadeParent.self).map(\.code) == [5])
    }

    @Test func rebuildInsideATransactionWorksWhenForeignKeysAreOff() throws {
        var configuration = Database.Configuration()
        configuration.foreignKeys = false
        let temp = try TemporaryDatabase(configuration: configuration)
        try temp.db.execute("CREATE TABLE Parent(id INTEGER PRIMARY KEY, code TEXT NOT NULL DEFAULT ''); INSERT INTO Parent(code) VALUES ('5')")
        let db = try temp.reopen(configuration: configuration)
        let plan = try db.transaction {
            #expect(db.isInTransaction)
            return try db.syncSchema(CascadeParent.self)
        }
        #expect(plan.rebuildsTable)
        #expect(try db.value(String.self, "SELECT typeof(code) FROM Parent") == "integer")
        #expect(try !foreignKeysOn(db))
    }

    @Test func notNullIsRemovedForAnOptionalProperty() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Memo(id INTEGER PRIMARY KEY, title TEXT CONSTRAINT must NOT NULL ON CONFLICT ABORT DEFAULT 'x'); INSERT INTO Memo(title) VALUES ('one')")
        let db = try temp.reopen()
        let plan = try db.syncSchema(MemoOptional.self)
        #expect(plan.steps.first?.sql == #"CREATE TABLE "strata_new_Memo" (id INTEGER PRIMARY KEY, title TEXT DEFAULT 'x')"#)
        let memo = MemoOptional()
        try db.save(memo)
        // The column's DEFAULT applies to a property still holding its init() value (nil here).
        #expect(memo.title == "x")
        memo.title = nil
        try db.save(memo)
        #expect(try db.rows("SELECT title FROM Memo ORDER BY id").map { $0["title"] } == [.text("one"), .null])
        #expect(try db.syncSchema(MemoOptional.self).isEmpty)
    }

    @Test func notNullIsAddedForANonOptionalPropertyUnlessRowsHoldNull() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Memo(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO Memo(id, title) VALUES (1, 'one'), (2, NULL), (3, NULL)")
        var db = try temp.reopen()
        let before = try schemaSnapshot(db)
        // Without the opt-in, a non-optional property over a nullable column is accepted as it is.
        #expect(try db.schemaPlan(for: MemoRequiredNever.self).isEmpty)

        let error = try #require(throws: SchemaError.self) { try db.syncSchema(MemoRequired.self) }
        #expect(error.column == "title")
        #expect(error.expected.contains("NOT NULL"))
        #expect(error.found.contains("2 row(s)") && error.found.contains("(2), (3)"))
        #expect(try schemaSnapshot(db) == before)

        try db.execute("UPDATE Memo SET title = 'filled' WHERE title IS NULL")
        db = try temp.reopen()
        let plan = try db.syncSchema(MemoRequired.self)
        #expect(plan.steps.map(\.sql).contains(#"CREATE TABLE "strata_new_Memo" (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT 'untitled')"#))
        let columns = try columnsOf("Memo", in: db)
        #expect(columns[1].notNull && columns[1].defaultSQL == "'untitled'")
        #expect(try db.column(String.self, "SELECT title FROM Memo ORDER BY id") == ["one", "filled", "filled"])
    }

    @Test func generatedColumnsSurviveAndAreNotCopied() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Doc(id INTEGER PRIMARY KEY, body TEXT, size INTEGER NOT NULL DEFAULT 0,
                             body_length INTEGER GENERATED ALWAYS AS (length(body)) VIRTUAL,
                             shout TEXT AS (upper(body)) STORED);
            INSERT INTO Doc(id, body, size) VALUES (1, 'abc', 3), (2, NULL, 0);
            """)
        let db = try temp.reopen()
        let plan = try db.syncSchema(GeneratedDoc.self)
        #expect(plan.steps.contains { $0.sql == #"INSERT INTO "strata_new_Doc" ("id", "body", "size") SELECT "id", "body", "size" FROM "Doc""# })
        #expect(try db.rows("SELECT hidden FROM pragma_table_xinfo('Doc') WHERE name IN ('body_length', 'shout') ORDER BY name").map { $0["hidden"] }
                == [.integer(2), .integer(3)])
        #expect(try db.rows("SELECT size, body_length, shout FROM Doc ORDER BY id").map(\.values)
                == [[.text("3"), .integer(3), .text("ABC")], [.text("0"), .null, .null]])
        #expect(try db.objects(GeneratedDoc.self, where: "ORDER BY id").map(\.size) == ["3", "0"])
        try db.execute("UPDATE Doc SET body = 'hello' WHERE id = 2")
        #expect(try db.value(Int.self, "SELECT body_length FROM Doc WHERE id = 2") == 5)
        #expect(try db.syncSchema(GeneratedDoc.self).isEmpty)
    }

    @Test func autoincrementCounterIsKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Ledger(id INTEGER PRIMARY KEY AUTOINCREMENT, amount TEXT NOT NULL DEFAULT '0');
            INSERT INTO Ledger(amount) VALUES ('1.5'), ('2'), ('3.25');
            DELETE FROM Ledger WHERE id = 3;
            """)
        let db = try temp.reopen()
        #expect(try db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = 'Ledger'") == 3)
        let plan = try db.syncSchema(Ledger.self)
        #expect(plan.steps.contains { $0.sql.hasPrefix("INSERT INTO sqlite_sequence") })
        #expect(try db.rows("SELECT name, seq FROM sqlite_sequence").map(\.values) == [[.text("Ledger"), .integer(3)]])
        #expect(try db.objects(Ledger.self, where: "ORDER BY id").map(\.amount) == [1.5, 2])
        let entry = Ledger(); entry.amount = 9
        try db.save(entry)
        #expect(entry.id == 4)   // not 3: the deleted key is not reused
    }

    @Test func rowIDsOfATextKeyedTableAreKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Tagged(code TEXT PRIMARY KEY NOT NULL, weight TEXT);
            INSERT INTO Tagged(rowid, code, weight) VALUES (5, 'b', '2'), (9, 'a', '1');
            """)
        let db = try temp.reopen()
        try db.syncSchema(TextKeyed.self)
        #expect(try db.rows("SELECT rowid, code, weight FROM Tagged ORDER BY rowid").map(\.values)
                == [[.integer(5), .text("b"), .integer(2)], [.integer(9), .text("a"), .integer(1)]])
        let tagged = try #require(try db.object(TextKeyed.self, forKey: "a"))
        #expect(tagged.weight == 1)
        try db.execute("UPDATE Tagged SET weight = 7 WHERE code = 'a'")
        #expect(tagged.weight == 7)
    }

    @Test func renameAndRebuildInOneSyncMatchTheDryRun() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE RnPerson(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', age TEXT);
            CREATE INDEX person_age ON RnPerson(age);
            INSERT INTO RnPerson(name, age) VALUES ('Ada', '36'), ('Grace', '45');
            """)
        let db = try temp.reopen()
        let plan = try db.schemaPlan(for: RnAgeRetyped.self)
        #expect(plan.steps.first?.kind == .renameColumn(from: "age", to: "years"))
        #expect(plan.steps.contains { $0.sql == #"CREATE INDEX person_age ON RnPerson("years")"# })
        let applied = try db.syncSchema(RnAgeRetyped.self)
        #expect(applied.steps.map(\.kind) == plan.steps.map(\.kind))
        #expect(try db.objects(RnAgeRetyped.self, where: "ORDER BY id").map(\.years) == [36, 45])
        #expect(try db.column(String.self, "SELECT name FROM pragma_index_info('person_age')") == ["years"])
        let columns = try columnsOf("RnPerson", in: db)
        #expect(columns.map(\.name) == ["id", "name", "years"])
        #expect(columns[2].type == "INTEGER" && columns[2].notNull && columns[2].defaultSQL == "0")
        #expect(try db.syncSchema(RnAgeRetyped.self).isEmpty)
    }

    @Test func liveInstancesStayAttachedThroughARebuild() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Memo(id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT ''); INSERT INTO Memo(title) VALUES ('one')")
        let db = try temp.reopen()
        final class MemoV1: Model {
            static var tableName: String { "Memo" }
            var id: Int64 = 0
            var title = ""
            required init() {}
        }
        let live = try #require(try db.object(MemoV1.self, forKey: 1))
        try db.syncSchema(MemoOptional.self)
        #expect(!live.isDeleted && live.isPersisted)
        live.title = "changed"
        try db.save(live)
        #expect(try db.object(MemoOptional.self, forKey: 1)?.title == "changed")
    }

    // MARK: Fixtures

    @Test(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
    func peeweeNotebookRebuildKeepsNotesThatReferenceIt() throws {
        let path = try #require(Fixtures.path("peewee_notes.sqlite3"))
        let temp = try TemporaryDatabase(copying: path)
        let db = temp.db
        #expect(try foreignKeysOn(db))
        let notes = try dump("note", db)
        #expect(try db.rows("SELECT id, notebook_id FROM note ORDER BY id").map(\.values)
                == [[.integer(1), .integer(1)], [.integer(2), .null], [.integer(3), .integer(2)]])
        let otherTables = try db.rows("SELECT name, sql FROM sqlite_master WHERE tbl_name != 'notebook' ORDER BY name").map(\.description)
        let indexSQL = try db.column(String.self, "SELECT sql FROM sqlite_master WHERE tbl_name = 'notebook' AND type = 'index' AND sql NOT NULL ORDER BY name")

        let plan = try db.syncSchema(PwNotebook.self)
        #expect(plan.rebuildsTable)
        #expect(plan.steps.first?.sql == #"SELECT "notebook_id" FROM "notebook" WHERE "title" IS NULL LIMIT 10"#)
        #expect(plan.steps.contains { $0.sql == """
            CREATE TABLE "strata_new_notebook" ("notebook_id" INTEGER NOT NULL PRIMARY KEY, "owner_id" INTEGER NOT NULL, \
            "title" VARCHAR(80) NOT NULL DEFAULT '', FOREIGN KEY ("owner_id") REFERENCES "author" ("id") ON DELETE CASCADE)
            """ })
        #expect(plan.steps.contains { $0.sql.contains("FROM pragma_foreign_key_check('note')") })

        // peewee's own migrator set every note.notebook_id to NULL here (ON DELETE SET NULL fired by DROP TABLE).
        #expect(try dump("note", db) == notes)
        #expect(try foreignKeysOn(db))
        #expect(try db.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try db.objects(PwNotebook.self, where: "ORDER BY notebook_id").map(\.title) == ["Engines", "Engines"])
        #expect(try columnsOf("notebook", in: db).map(\.notNull) == [true, true, true])
        #expect(try db.column(String.self, "SELECT sql FROM sqlite_master WHERE tbl_name = 'notebook' AND type = 'index' AND sql NOT NULL ORDER BY name") == indexSQL)
        #expect(try db.rows("SELECT name, sql FROM sqlite_master WHERE tbl_name != 'notebook' ORDER BY name").map(\.description) == otherTables)
        #expect(try db.value(String.self, "SELECT \"table\" FROM pragma_foreign_key_list('notebook')") == "author")

        // The foreign keys work both ways after the rebuild.
        try db.execute("DELETE FROM notebook WHERE notebook_id = 1")
        #expect(try db.rows("SELECT notebook_id FROM note ORDER BY id").map { $0["notebook_id"] } == [.null, .null, .integer(2)])
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO notebook(owner_id, title) VALUES (999, 'orphan')") }
        #expect(try temp.reopen().schemaPlan(for: PwNotebook.self).isEmpty)
    }

    @Test(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
    func sqlalchemyPostsRebuildKeepsGeneratedColumnSequenceAndChildRows() throws {
        let path = try #require(Fixtures.path("sqlalchemy_blog.sqlite3"))
        let temp = try TemporaryDatabase(copying: path)
        let db = temp.db
        let postTags = try dump("post_tags", db)
        let indexSQL = try db.column(String.self, "SELECT sql FROM sqlite_master WHERE tbl_name = 'posts' AND type = 'index' AND sql NOT NULL ORDER BY name")
        let plan = try db.syncSchema(SAPostText.self)
        #expect(plan.rebuildsTable)
        // Alembic's batch mode failed here: "cannot INSERT into generated column body_length" (pitfall 22).
        #expect(plan.steps.contains { $0.sql == #"INSERT INTO "strata_new_posts" ("id", "user_id", "title", "body", "published_on", "updated_at") SELECT "id", "user_id", "title", "body", "published_on", "updated_at" FROM "posts""# })
        #expect(try db.rows("SELECT id, published_on, typeof(published_on), body_length FROM posts ORDER BY id").map(\.values) == [
            [.integer(1), .text("2020-01-03"), .text("text"), .integer(10)],
            [.integer(2), .null, .text("null"), .null],
            [.integer(3), .text("2021-06-30"), .text("text"), .integer(24)],
        ])
        #expect(try db.value(String.self, "SELECT type FROM pragma_table_xinfo('posts') WHERE name = 'published_on'") == "TEXT")
        #expect(try db.value(Int.self, "SELECT hidden FROM pragma_table_xinfo('posts') WHERE name = 'body_length'") == 2)
        #expect(try db.rows("SELECT name, seq FROM sqlite_sequence WHERE name LIKE '%posts'").map(\.values) == [[.text("posts"), .integer(3)]])
        #expect(try dump("post_tags", db) == postTags)
        #expect(try db.column(String.self, "SELECT sql FROM sqlite_master WHERE tbl_name = 'posts' AND type = 'index' AND sql NOT NULL ORDER BY name") == indexSQL)
        #expect(try indexNames("posts", in: db).contains("sqlite_autoindex_posts_1"))   // the UNIQUE constraint
        #expect(try foreignKeysOn(db))
        #expect(try db.rows("PRAGMA foreign_key_check").isEmpty)
        let post = SAPostText(); post.user_id = 1; post.title = "After"; post.published_on = "2024-02-29"
        try db.save(post)
        #expect(post.id == 4)
        #expect(try temp.reopen().schemaPlan(for: SAPostText.self).isEmpty)
    }
}
