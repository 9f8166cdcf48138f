import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Automatic, additive schema evolution (issue 3, "Automatic schema evolution").
// Model versions are separate classes sharing one `tableName`, as an app's model looks before and
// after an upgrade.

private final class SyncGadget: Model {
    static let tableName = "Gadget"
    var id: Int64 = 0
    var name = ""
    var price = 0.0
    var inStock = true
    var rating = 3
    var note: String?
    var serial: Int64?
    var payload = Data()
    var scratch = 0
    static let persistentProperties: [String] = ["id", "name", "price", "inStock", "rating", "note", "serial", "payload"]
    required init() {}
}

private final class ShelfV1: Model {
    static let tableName = "Shelf"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class ShelfV2: Model {
    static let tableName = "Shelf"
    var id: Int64 = 0
    var name = ""
    var capacity = 12
    var label = "unlabelled"
    var height: Double?
    required init() {}
}

/// Same table, with indices declared.
private final class ShelfIndexed: Model {
    static let tableName = "Shelf"
    static let indices: [[String]] = [["name"], ["name", "capacity"]]
    static let uniqueIndices: [[String]] = [["label"]]
    var id: Int64 = 0
    var name = ""
    var capacity = 12
    var label = "unlabelled"
    var height: Double?
    required init() {}
}

/// Same table, one index dropped from the declaration.
private final class ShelfFewerIndices: Model {
    static let tableName = "Shelf"
    static let indices: [[String]] = [["name", "capacity"]]
    var id: Int64 = 0
    var name = ""
    var capacity = 12
    var label = "unlabelled"
    var height: Double?
    required init() {}
}

/// `name` changed from String to Int, plus a new property that must not be added either.
private final class ShelfNameIsInt: Model {
    static let tableName = "Shelf"
    var id: Int64 = 0
    var name = 0
    var extra = 5
    required init() {}
}

/// Only `id` and `title`, for tables that have more columns.
private final class SyncNote: Model {
    static let tableName = "Note"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class SyncNoteOptionalTitle: Model {
    static let tableName = "Note"
    var id: Int64 = 0
    var title: String?
    required init() {}
}

// MARK: Helpers

/// Every row of sqlite_master, as text, in a stable order.
func schemaSnapshot(_ db: Database) throws -> [String] {
    try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map { row in
        row.values.map(\.description).joined(separator: " | ")
    }
}

/// `PRAGMA table_xinfo` rows as (name, type, notnull, dflt_value, pk).
func columnsOf(_ table: String, in db: Database) throws -> [(name: String, type: String, notNull: Bool, defaultSQL: String?, pk: Int64)] {
    try db.rows("PRAGMA table_xinfo(\(SQL.quote(table)))").map { row in
        func text(_ name: String) -> String? { if case .text(let s)? = row[name] { s } else { nil } }
        func int(_ name: String) -> Int64 { if case .integer(let v)? = row[name] { v } else { -1 } }
        return (text("name") ?? "", text("type") ?? "", int("notnull") == 1, text("dflt_value"), int("pk"))
    }
}

/// Names of the indices of `table` (all origins), sorted.
func indexNames(_ table: String, in db: Database) throws -> [String] {
    try db.column(String.self, "SELECT name FROM pragma_index_list(?) ORDER BY name", table)
}

@Suite struct SchemaSyncTests {
    @Test func tableIsCreatedOnFirstUseKeyFirstWithTypesAndDefaults() throws {
        let db = try Database()
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'Gadget'") == 0)
        let gadget = SyncGadget(); gadget.name = "lamp"
        try db.save(gadget)
        #expect(gadget.id == 1)
        #expect(try db.value(String.self, "SELECT type FROM sqlite_master WHERE name = 'Gadget'") == "table")

        let columns = try columnsOf("Gadget", in: db)
        #expect(columns.map(\.name) == ["id", "name", "price", "inStock", "rating", "note", "serial", "payload"])
        #expect(columns.map(\.type) == ["INTEGER", "TEXT", "REAL", "INTEGER", "INTEGER", "TEXT", "INTEGER", "BLOB"])
        #expect(columns[0].pk == 1)
        #expect(columns.dropFirst().allSatisfy { $0.pk == 0 })
        // Non-optional: NOT NULL DEFAULT <value in a fresh init()>; optional: nullable, no default.
        #expect(columns[1].notNull && columns[1].defaultSQL == "''")
        #expect(columns[2].notNull && columns[2].defaultSQL == "0.0")
        #expect(columns[3].notNull && columns[3].defaultSQL == "1")
        #expect(columns[4].notNull && columns[4].defaultSQL == "3")
        #expect(!columns[5].notNull && columns[5].defaultSQL == nil)
        #expect(!columns[6].notNull && columns[6].defaultSQL == nil)
        #expect(columns[7].notNull && columns[7].defaultSQL == "X''")
        // `scratch` is not listed, so it has no column.
        #expect(!columns.contains { $0.name == "scratch" })
        // The key is the rowid alias: SQLite assigned it.
        #expect(try db.value(Int64.self, "SELECT rowid FROM Gadget WHERE name = 'lamp'") == 1)
    }

    @Test func createdTableRoundTripsValues() throws {
        let db = try Database()
        let gadget = SyncGadget()
        gadget.name = "kettle"; gadget.price = 19.5; gadget.inStock = false; gadget.rating = 5
        gadget.note = "hot"; gadget.serial = 9_000_000_000; gadget.payload = Data([1, 2, 3])
        try db.save(gadget)
        let db2Row = try #require(try db.rows("SELECT * FROM Gadget").first)
        #expect(db2Row["name"] == .text("kettle"))
        #expect(db2Row["price"] == .real(19.5))
        #expect(db2Row["inStock"] == .integer(0))
        #expect(db2Row["serial"] == .integer(9_000_000_000))
        #expect(db2Row["payload"] == .blob(Data([1, 2, 3])))
    }

    @Test func addedPropertyAddsColumnWithDefaultAndExistingRowsReadIt() throws {
        let temp = try TemporaryDatabase()
        for name in ["a", "b"] {
            let shelf = ShelfV1(); shelf.name = name
            try temp.db.save(shelf)
        }
        let db = try temp.reopen()
        // Dry run first: the steps, with their SQL, and nothing applied.
        let plan = try db.schemaPlan(for: ShelfV2.self)
        #expect(plan.table == "Shelf")
        #expect(plan.steps.map(\.kind) == [.addColumn("capacity"), .addColumn("label"), .addColumn("height")])
        #expect(plan.steps[0].sql == #"ALTER TABLE "Shelf" ADD COLUMN "capacity" INTEGER NOT NULL DEFAULT 12"#)
        #expect(plan.steps[1].sql == #"ALTER TABLE "Shelf" ADD COLUMN "label" TEXT NOT NULL DEFAULT 'unlabelled'"#)
        #expect(plan.steps[2].sql == #"ALTER TABLE "Shelf" ADD COLUMN "height" REAL"#)
        #expect(try columnsOf("Shelf", in: db).map(\.name) == ["id", "name"])

        let shelves = try db.objects(ShelfV2.self, where: "ORDER BY id")
        #expect(shelves.map(\.name) == ["a", "b"])
        #expect(shelves.map(\.capacity) == [12, 12])
        #expect(shelves.map(\.label) == ["unlabelled", "unlabelled"])
        #expect(shelves.map(\.height) == [nil, nil])
        let columns = try columnsOf("Shelf", in: db)
        #expect(columns.map(\.name) == ["id", "name", "capacity", "label", "height"])
        #expect(columns[2].notNull && columns[2].defaultSQL == "12")
        #expect(!columns[4].notNull)

        // Version 1 still works on the evolved table (new columns take their defaults).
        let old = ShelfV1(); old.name = "c"
        try db.save(old)
        #expect(try db.value(Int.self, "SELECT capacity FROM Shelf WHERE name = 'c'") == 12)
        #expect(try db.syncSchema(ShelfV2.self).isEmpty)
    }

    @Test func declaredIndicesAreCreatedAndDroppedWhenUndeclared() throws {
        let temp = try TemporaryDatabase()
        try temp.db.save(ShelfV2())
        #expect(try indexNames("Shelf", in: temp.db) == [])

        var db = try temp.reopen()
        let applied = try db.syncSchema(ShelfIndexed.self)
        #expect(Set(applied.steps.map(\.kind)) == [
            .createIndex("strata_Shelf_name_29c6ed99"), .createIndex("strata_Shelf_name_capacity_1a0489a7"),
            .createIndex("strata_unique_Shelf_label_b76e68b9"),
        ])
        #expect(applied.steps.contains { $0.sql == #"CREATE UNIQUE INDEX "strata_unique_Shelf_label_b76e68b9" ON "Shelf" ("label")"# })
        #expect(try indexNames("Shelf", in: db) == ["strata_Shelf_name_29c6ed99", "strata_Shelf_name_capacity_1a0489a7", "strata_unique_Shelf_label_b76e68b9"])
        #expect(try db.value(Int.self, "SELECT \"unique\" FROM pragma_index_list('Shelf') WHERE name = 'strata_unique_Shelf_label_b76e68b9'") == 1)
        #expect(try db.column(String.self, "SELECT name FROM pragma_index_info('strata_Shelf_name_capacity_1a0489a7') ORDER BY seqno") == ["name", "capacity"])
        #expect(try db.syncSchema(ShelfIndexed.self).isEmpty)

        // A plain index no longer declared is dropped; a UNIQUE one stays (sync never drops one: see
        // aUniqueIndexAnotherModelDeclaresIsNotDroppedByAFreshHandle), until the user drops it.
        db = try temp.reopen()
        let fewer = try db.syncSchema(ShelfFewerIndices.self)
        #expect(fewer.steps.map(\.kind) == [.dropIndex("strata_Shelf_name_29c6ed99")])
        #expect(try indexNames("Shelf", in: db) == ["strata_Shelf_name_capacity_1a0489a7", "strata_unique_Shelf_label_b76e68b9"])
        #expect(try db.syncSchema(ShelfFewerIndices.self).isEmpty)
        try db.execute(#"DROP INDEX "strata_unique_Shelf_label_b76e68b9""#)
        #expect(try temp.reopen().syncSchema(ShelfFewerIndices.self).isEmpty)
    }

    @Test func indicesMadeByHandOrOtherToolsSurvive() throws {
        let temp = try TemporaryDatabase()
        try temp.db.save(ShelfV2())
        try temp.db.execute("""
            CREATE INDEX my_shelf_height ON Shelf(height);
            CREATE INDEX ix_Shelf_label ON Shelf(label);
            CREATE INDEX Shelf_capacity_name ON Shelf(capacity, name);
            CREATE INDEX "Shelf+index+name" ON Shelf(name DESC);
            """)
        let handMade = ["Shelf+index+name", "Shelf_capacity_name", "ix_Shelf_label", "my_shelf_height"]
        // A model with indices declared, then one without any: only Strata's own come and go.
        var db = try temp.reopen()
        try db.syncSchema(ShelfIndexed.self)
        #expect(Set(try indexNames("Shelf", in: db)).isSuperset(of: handMade))
        db = try temp.reopen()
        let plan = try db.syncSchema(ShelfV2.self)
        #expect(plan.steps.allSatisfy { if case .dropIndex(let name) = $0.kind { name.hasPrefix("strata_") } else { false } })
        // (Strata's UNIQUE index stays: sync never drops one.)
        #expect(try indexNames("Shelf", in: db) == handMade + ["strata_unique_Shelf_label_b76e68b9"])
        #expect(try db.syncSchema(ShelfV2.self).isEmpty)
    }

    @Test func anExistingEquivalentIndexServesTheDeclaration() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE Shelf(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', capacity INTEGER NOT NULL DEFAULT 12,
                               label TEXT NOT NULL DEFAULT 'x', height REAL);
            CREATE INDEX shelf_name ON Shelf(name);
            CREATE UNIQUE INDEX shelf_label ON Shelf(label);
            """)
        let plan = try db.schemaPlan(for: ShelfIndexed.self)
        // (name) and UNIQUE (label) exist already under other names; only (name, capacity) is missing.
        #expect(plan.steps.map(\.kind) == [.createIndex("strata_Shelf_name_capacity_1a0489a7")])
    }

    @Test func changedPropertyTypeIsASchemaErrorAndChangesNothing() throws {
        let temp = try TemporaryDatabase()
        let shelf = ShelfV1(); shelf.name = "keep me"
        try temp.db.save(shelf)
        let db = try temp.reopen()
        let before = try schemaSnapshot(db)

        let error = try #require(throws: SchemaError.self) { try db.syncSchema(ShelfNameIsInt.self) }
        #expect(error.table == "Shelf")
        #expect(error.column == "name")
        #expect(error.model == "ShelfNameIsInt")
        #expect(error.found.contains("TEXT"))
        #expect(error.expected.contains("INTEGER"))
        #expect(error.description.contains("\"Shelf\"") && error.description.contains("\"name\""))
        // Every entry point reports it, and nothing (not even the new "extra" column) was applied.
        #expect(throws: SchemaError.self) { try db.schemaPlan(for: ShelfNameIsInt.self) }
        #expect(throws: SchemaError.self) { try db.objects(ShelfNameIsInt.self) }
        #expect(throws: SchemaError.self) { try db.save(ShelfNameIsInt()) }
        #expect(try schemaSnapshot(db) == before)
        #expect(try db.column(String.self, "SELECT name FROM Shelf") == ["keep me"])
    }

    @Test func optionalPropertyOverNotNullColumnIsASchemaError() throws {
        let db = try Database()
        try db.execute("CREATE TABLE Note(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        let before = try schemaSnapshot(db)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(SyncNoteOptionalTitle.self) }
        #expect(error.column == "title")
        #expect(error.found == "NOT NULL")
        #expect(try schemaSnapshot(db) == before)
    }

    @Test func dryRunChangesNothing() throws {
        let db = try Database()
        let plan = try db.schemaPlan(for: ShelfIndexed.self)
        #expect(plan.steps.first?.kind == .createTable)
        #expect(plan.steps.first?.sql.hasPrefix(#"CREATE TABLE "Shelf" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL DEFAULT ''"#) == true)
        #expect(plan.steps.count == 4)
        #expect(!plan.isEmpty)
        #expect(try schemaSnapshot(db) == [])
        // Asking again gives the same plan: still nothing applied.
        #expect(try db.schemaPlan(for: ShelfIndexed.self).steps == plan.steps)

        try db.execute("CREATE TABLE Shelf(id INTEGER PRIMARY KEY, name TEXT)")
        let before = try schemaSnapshot(db)
        let evolve = try db.schemaPlan(for: ShelfIndexed.self)
        #expect(evolve.steps.count == 6)  // 3 columns, 3 indices
        #expect(try schemaSnapshot(db) == before)
    }

    @Test func secondSyncIsEmptyInTheSameAndAFreshHandle() throws {
        let temp = try TemporaryDatabase()
        let first = try temp.db.syncSchema(ShelfIndexed.self)
        #expect(first.steps.count == 4)
        #expect(try temp.db.syncSchema(ShelfIndexed.self).isEmpty)
        #expect(try temp.db.schemaPlan(for: ShelfIndexed.self).isEmpty)
        let db = try temp.reopen()
        #expect(try db.schemaPlan(for: ShelfIndexed.self).isEmpty)
        #expect(try db.syncSchema(ShelfIndexed.self).isEmpty)
        #expect(try db.schemaPlan(for: ShelfIndexed.self).description == "ShelfIndexed: in sync")
    }

    @Test func unmappedColumnsAreKeptAndIgnored() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE Note(id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', legacy TEXT,
                              flags INTEGER NOT NULL DEFAULT 4)
            """)
        let note = SyncNote(); note.title = "hello"
        try db.save(note)
        let row = try #require(try db.rows("SELECT * FROM Note").first)
        #expect(row["title"] == .text("hello"))
        #expect(row["legacy"] == .null)
        #expect(row["flags"] == .integer(4))
        #expect(try columnsOf("Note", in: db).map(\.name) == ["id", "title", "legacy", "flags"])
    }

    @Test func extraNotNullColumnWithoutDefaultRefusesInsertsOnly() throws {
        let db = try Database()
        try db.execute("CREATE TABLE Note(id INTEGER PRIMARY KEY, title TEXT, owner_id INTEGER NOT NULL); INSERT INTO Note VALUES (1, 'a', 7)")
        let before = try schemaSnapshot(db)
        let error = try #require(throws: ModelError.self) { try db.save(SyncNote()) }
        #expect(error.kind == .missingColumns && error.properties == ["owner_id"])
        #expect(error.description.contains("owner_id") && error.description.contains("Note"))
        #expect(try schemaSnapshot(db) == before)
        #expect(try db.value(Int.self, "SELECT count(*) FROM Note") == 1)
        // Reading and updating the rows that exist work.
        let note = try #require(try db.object(SyncNote.self, forKey: 1))
        note.title = "b"
        try db.save(note)
        #expect(try db.rows("SELECT title, owner_id FROM Note").first?.values == [.text("b"), .integer(7)])
    }

    @Test func tableWithoutTheDeclaredKeyIsASchemaError() throws {
        let db = try Database()
        try db.execute("CREATE TABLE Note(ident INTEGER PRIMARY KEY, title TEXT)")
        let error = try #require(throws: SchemaError.self) { try db.objects(SyncNote.self) }
        #expect(error.column == "id")
        #expect(error.found.contains("ident"))
    }

    @Test func schemaChangedUnderneathIsSyncedAgain() throws {
        let db = try Database()
        try db.save(ShelfV2())
        // Another tool rebuilds the table without the new columns; the next use adds them back.
        try db.execute("DROP TABLE Shelf; CREATE TABLE Shelf(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        let shelf = ShelfV2(); shelf.name = "again"
        try db.save(shelf)
        #expect(try columnsOf("Shelf", in: db).map(\.name) == ["id", "name", "capacity", "label", "height"])
        #expect(try db.value(Int.self, "SELECT capacity FROM Shelf WHERE name = 'again'") == 12)
    }
}

@Suite struct SchemaCatalogTests {
    /// First use reads sqlite_master once per schema version, not once per model (which made the first
    /// use of N models quadratic in the number of tables).
    @Test func firstUseOfManyModelsScansSqliteMasterOnce() throws {
        let temp = try TemporaryDatabase()
        for index in 0..<200 { try temp.db.execute("CREATE TABLE other_\(index)(x INTEGER); CREATE INDEX other_\(index)_x ON other_\(index)(x)") }
        try temp.db.syncSchema(AsyncItem.self)
        try temp.db.syncSchema(AsyncOther.self)
        try temp.db.syncSchema(KPPerson.self)
        let db = try temp.reopen()
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        _ = try db.count(AsyncItem.self)
        _ = try db.count(AsyncOther.self)
        _ = try db.count(KPPerson.self)
        trace.cancel()
        #expect(statements.filter { $0.contains("sqlite_master") }.count == 1, "\(statements.filter { $0.contains("sqlite_master") })")
    }
}
