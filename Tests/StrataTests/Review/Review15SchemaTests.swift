import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 15: schema sync over databases other tools made, read a second time. Additive sync never
// drops or rewrites what Strata did not create; the opt-in rebuild is all or nothing and keeps what is
// attached to the table; concurrent schema changes between plan and sync.

@Suite struct Review15SchemaTests {}

/// Every row of sqlite_master but the named tables' own CREATE TABLE, as text.
private func r15Master(_ db: Database, except tables: [String] = []) throws -> [String] {
    try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").compactMap { row in
        if case .text("table") = row.values[0], case .text(let name) = row.values[1], tables.contains(name) { return nil }
        return row.values.map(\.description).joined(separator: " | ")
    }
}

private func r15Statements(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
    var seen: [String] = []
    let trace = db.traceStatements { seen.append($0) }
    defer { trace.cancel() }
    try body()
    return seen
}

// MARK: Additive sync over a table with everything attached

private final class R15Everything: Model {
    static let tableName = "Ärzte \"Liste\""
    var id: Int64 = 0
    var name = ""
    var extra: String?
    var count = 0
    required init() {}
}

extension Review15SchemaTests {
    @Test func additiveSyncOverATableWithEverythingAttachedOnlyAddsColumns() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(#"""
            CREATE TABLE "Ärzte ""Liste""" (id INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT COLLATE NOCASE NOT NULL DEFAULT '' CHECK (length(Name) < 50),
              "Größe" VARCHAR(10) DEFAULT -1, made DATETIME DEFAULT CURRENT_TIMESTAMP, two "unsigned big int" DEFAULT (1+1),
              raw DEFAULT X'00FF', twice INTEGER GENERATED ALWAYS AS (two * 2) VIRTUAL, thrice INTEGER AS (two * 3) STORED);
            INSERT INTO "Ärzte ""Liste""" (Name) VALUES ('a'), ('b');
            DELETE FROM "Ärzte ""Liste""" WHERE Name = 'b';
            CREATE INDEX r15_partial ON "Ärzte ""Liste""" (Name) WHERE "Größe" > 0;
            CREATE INDEX r15_expr ON "Ärzte ""Liste""" (lower(Name), two DESC);
            CREATE VIEW r15_view AS SELECT id, Name, twice FROM "Ärzte ""Liste""";
            CREATE TABLE r15_log (at TEXT, what TEXT);
            CREATE TRIGGER r15_trg AFTER UPDATE ON "Ärzte ""Liste""" BEGIN INSERT INTO r15_log VALUES (datetime(), new.Name); END;
            CREATE TRIGGER r15_other AFTER INSERT ON r15_log BEGIN UPDATE "Ärzte ""Liste""" SET two = two WHERE 0; END;
            CREATE TABLE r15_child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES "Ärzte ""Liste""" (id) ON DELETE CASCADE);
            INSERT INTO r15_child VALUES (1, 1);
            """#)
        let table = "Ärzte \"Liste\""
        let before = try r15Master(temp.db, except: [table])
        let tableSQL = try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = ?", table)
        let sequence = try temp.db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = ?", table)
        let plan = try temp.db.schemaPlan(for: R15Everything.self)
        #expect(plan.steps.map(\.kind) == [.addColumn("extra"), .addColumn("count")], "\(plan)")
        #expect(try r15Master(temp.db, except: [table]) == before)
        let ran = try r15Statements(temp.db) { try temp.db.syncSchema(R15Everything.self) }
        #expect(ran.filter { $0.uppercased().hasPrefix("ALTER") || $0.uppercased().hasPrefix("CREATE") || $0.uppercased().hasPrefix("DROP") } == plan.steps.map(\.sql))
        #expect(try r15Master(temp.db, except: [table]) == before)
        let after = try #require(try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = ?", table))
        #expect(after.hasPrefix(String(try #require(tableSQL).dropLast())), "\(after)")
        #expect(try temp.db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = ?", table) == sequence)
        let x = R15Everything(); x.name = "c"
        try temp.db.save(x)
        #expect(x.id == 3)
        let stored = try temp.db.rows(#"SELECT "Größe", two, twice, thrice, raw FROM "Ärzte ""Liste""" WHERE id = 3"#).first?.values
        #expect(stored == [.text("-1"), .integer(2), .integer(4), .integer(6), .blob(Data([0, 255]))], "\(String(describing: stored))")
        #expect(try temp.db.schemaPlan(for: R15Everything.self).isEmpty)
    }
}

// MARK: STRICT tables

private final class R15StrictAny: Model {
    static let tableName = "r15_strict_any"
    var id: Int64 = 0
    var name = ""
    var anything: SQLValue = .null
    var maybe: SQLValue?
    required init() {}
}

extension Review15SchemaTests {
    @Test func anSQLValuePropertyAddedToAStrictTableIsAnAnyColumn() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_strict_any (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '') STRICT; INSERT INTO r15_strict_any (name) VALUES ('old')")
        try temp.db.syncSchema(R15StrictAny.self)
        let x = R15StrictAny(); x.name = "n"; x.anything = .text("12"); x.maybe = .real(1.5)
        try temp.db.save(x)
        #expect(try temp.db.rows("SELECT anything, typeof(anything), maybe FROM r15_strict_any WHERE id = ?", x.id).first?.values
                == [.text("12"), .text("text"), .real(1.5)])
    }
}

private final class R15StrictAnyColumns: Model {
    static let tableName = "r15_strict_cols"
    var id: Int64 = 0
    var code = ""
    var amount = 0.0
    required init() {}
}

extension Review15SchemaTests {
    /// An ANY column of a STRICT table stores every value as given (no affinity), unlike ANY elsewhere (NUMERIC).
    @Test func anAnyColumnOfAStrictTableMapsAStringKeepingItsDigits() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_strict_cols (id INTEGER PRIMARY KEY, code ANY NOT NULL DEFAULT '', amount ANY NOT NULL DEFAULT 0) STRICT")
        #expect(try temp.db.schemaPlan(for: R15StrictAnyColumns.self).isEmpty)
        let x = R15StrictAnyColumns(); x.code = "0123"; x.amount = 2.5
        try temp.db.save(x)
        #expect(try temp.db.rows("SELECT code, typeof(code) FROM r15_strict_cols").first?.values == [.text("0123"), .text("text")])
        let back = try #require(try temp.reopen().object(R15StrictAnyColumns.self, forKey: x.id))
        #expect(back.code == "0123" && back.amount == 2.5)
    }
}

// MARK: Rebuild: all or nothing

private final class R15CheckedInt: Model {
    static let tableName = "r15_checked"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var n = 0
    required init() {}
}

private final class R15Filler: Model {
    static let tableName = "r15_filler"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var body = 0
    required init() {}
}

extension Review15SchemaTests {
    @Test func aCheckThatRejectsACopiedRowRollsTheRebuildBackNamingTableAndMessage() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15_checked (id INTEGER PRIMARY KEY, n TEXT CHECK (typeof(n) = 'text'));
            INSERT INTO r15_checked VALUES (1, '5'), (2, '6');
            CREATE INDEX r15_checked_n ON r15_checked (n);
            """)
        let before = try schemaSnapshot(temp.db)
        let rows = try temp.db.rows("SELECT id, n, typeof(n) FROM r15_checked ORDER BY id").map(\.values)
        let error = #expect(throws: DatabaseError.self) { try temp.db.syncSchema(R15CheckedInt.self) }
        #expect(error?.code == .constraintCheck)
        #expect(error?.message.hasPrefix("CHECK constraint failed: typeof(n) = 'text' (schema sync of model R15CheckedInt, table \"r15_checked\", rebuilding it for column \"n\"") == true,
                "\(String(describing: error))")
        #expect(try schemaSnapshot(temp.db) == before)
        #expect(try temp.db.rows("SELECT id, n, typeof(n) FROM r15_checked ORDER BY id").map(\.values) == rows)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1)
        #expect(try temp.db.value(Int.self, "PRAGMA legacy_alter_table") == 0)
        #expect(!temp.db.isInTransaction)
    }

    @Test func aFullDiskHalfWayRollsTheRebuildBackAndTheHandleStaysUsable() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_filler (id INTEGER PRIMARY KEY, body TEXT, pad BLOB)")
        try temp.db.transaction {
            for i in 0..<400 { try temp.db.execute("INSERT INTO r15_filler (body, pad) VALUES (?, zeroblob(2000))", "\(i)") }
        }
        let before = try schemaSnapshot(temp.db)
        let pages = try #require(try temp.db.value(Int.self, "PRAGMA page_count"))
        try temp.db.execute("PRAGMA max_page_count = \(pages + 20)")
        let error = #expect(throws: DatabaseError.self) { try temp.db.syncSchema(R15Filler.self) }
        #expect(error?.code == .full)
        #expect(error?.message.contains("model R15Filler, table \"r15_filler\", rebuilding it for column \"body\"") == true, "\(String(describing: error))")
        #expect(try schemaSnapshot(temp.db) == before)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r15_filler WHERE typeof(body) = 'text'") == 400)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1)
        #expect(!temp.db.isInTransaction)
        try temp.db.execute("PRAGMA max_page_count = 1000000")
        let plan = try temp.db.syncSchema(R15Filler.self)
        #expect(plan.rebuildsTable)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r15_filler WHERE typeof(body) = 'integer'") == 400)
        #expect(try temp.db.value(String.self, "PRAGMA integrity_check") == "ok")
    }
}

// MARK: Rebuild keeps what is attached

private final class R15Kept: Model {
    static let tableName = "Ärzte \"Liste\""
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var name = ""
    var level = 0
    required init() {}
}

extension Review15SchemaTests {
    @Test func aRebuildKeepsViewsTriggersIndicesTheCounterAndChildForeignKeys() throws {
        let temp = try TemporaryDatabase()
        let table = "Ärzte \"Liste\""
        try temp.db.execute(#"""
            CREATE TABLE "Ärzte ""Liste""" (id INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT COLLATE NOCASE NOT NULL DEFAULT '' CHECK (length(Name) < 50),
              level TEXT, made DATETIME DEFAULT CURRENT_TIMESTAMP, two "unsigned big int" DEFAULT (1+1),
              twice INTEGER GENERATED ALWAYS AS (two * 2) VIRTUAL, UNIQUE (Name));
            INSERT INTO "Ärzte ""Liste""" (Name, level) VALUES ('a', '1'), ('b', '2'), ('c', '3');
            DELETE FROM "Ärzte ""Liste""" WHERE Name = 'c';
            CREATE INDEX r15_partial ON "Ärzte ""Liste""" (Name) WHERE level > 0;
            CREATE INDEX r15_expr ON "Ärzte ""Liste""" (lower(Name), two DESC);
            CREATE VIEW r15_view AS SELECT id, Name, twice FROM "Ärzte ""Liste""";
            CREATE TABLE r15_log (what TEXT);
            CREATE TRIGGER r15_trg AFTER UPDATE ON "Ärzte ""Liste""" BEGIN INSERT INTO r15_log VALUES (new.Name); END;
            CREATE TABLE r15_child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES "Ärzte ""Liste""" (id) ON DELETE CASCADE);
            INSERT INTO r15_child VALUES (1, 1), (2, 2);
            """#)
        let before = try r15Master(temp.db, except: [table])
        let plan = try temp.db.schemaPlan(for: R15Kept.self)
        #expect(plan.rebuildsTable)
        #expect(try r15Master(temp.db, except: [table]) == before)
        let applied = try temp.db.syncSchema(R15Kept.self)
        #expect(applied.steps == plan.steps)
        #expect(try r15Master(temp.db, except: [table]) == before)
        #expect(try temp.db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = ?", table) == 3)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_sequence") == 1)
        #expect(try temp.db.column(String.self, #"SELECT typeof(level) FROM "Ärzte ""Liste""" ORDER BY id"#) == ["integer", "integer"])
        #expect(try temp.db.rows("SELECT * FROM r15_view ORDER BY id").map(\.values) == [[.integer(1), .text("a"), .integer(4)], [.integer(2), .text("b"), .integer(4)]])
        let a = try #require(try temp.db.object(R15Kept.self, forKey: 1))
        a.level = 7
        try temp.db.save(a)
        #expect(try temp.db.column(String.self, "SELECT what FROM r15_log") == ["a"])
        let d = R15Kept(); d.name = "d"
        try temp.db.save(d)
        #expect(d.id == 4)
        #expect(try temp.db.delete(a))
        #expect(try temp.db.column(Int.self, "SELECT id FROM r15_child") == [2])
        #expect(try temp.db.value(String.self, "PRAGMA integrity_check") == "ok")
        #expect(try temp.db.rows("PRAGMA foreign_key_check").isEmpty)
    }
}

// MARK: Concurrency

private final class R15Shared: Model {
    static let tableName = "r15_shared"
    static let indices: [[String]] = [["name"], ["code"]]
    static let uniqueIndices: [[String]] = [["code"]]
    var id: Int64 = 0
    var name = ""
    var code = ""
    required init() {}
}

private final class R15Grown: Model {
    static let tableName = "r15_grown"
    var id: Int64 = 0
    var name = ""
    var note: String?
    required init() {}
}

extension Review15SchemaTests {
    @Test func twoHandlesSyncingTheSameNewModelAtOnceMakeOneTable() throws {
        let temp = try TemporaryDatabase()
        let path = temp.path
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let db = try Database(path: path, configuration: .patient)
                try db.syncSchema(R15Shared.self)
                let x = R15Shared(); x.name = "n"; x.code = UUID().uuidString
                try db.save(x)
                try db.close()
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        let failures = errors.withLock { $0 }
        #expect(failures == [])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r15_shared") == 6)
        let names = try indexNames("r15_shared", in: temp.db)
        #expect(names.count == 3, "\(names)")
        #expect(try temp.db.schemaPlan(for: R15Shared.self).isEmpty)
    }

    @Test func aDjangoStyleCopyBetweenPlanAndSyncIsPlannedAgain() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_grown (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT ''); INSERT INTO r15_grown VALUES (1, 'a')")
        let plan = try temp.db.schemaPlan(for: R15Grown.self)
        #expect(plan.steps.map(\.kind) == [.addColumn("note")])
        let other = try Database(path: temp.path)
        try other.execute("""
            BEGIN;
            CREATE TABLE new__r15_grown (id INTEGER PRIMARY KEY, note TEXT, name TEXT NOT NULL DEFAULT '', tag TEXT);
            INSERT INTO new__r15_grown (id, name, note) SELECT id, name, 'from django' FROM r15_grown;
            DROP TABLE r15_grown;
            ALTER TABLE new__r15_grown RENAME TO r15_grown;
            COMMIT;
            """)
        let applied = try temp.db.syncSchema(R15Grown.self)
        #expect(applied.isEmpty, "\(applied)")
        let a = try #require(try temp.db.object(R15Grown.self, forKey: 1))
        #expect(a.name == "a" && a.note == "from django")
        a.note = "mine"
        try temp.db.save(a)
        #expect(try other.rows("SELECT note, name FROM r15_grown").map(\.values) == [[.text("mine"), .text("a")]])
        try other.close()
    }

    @Test func aPoolReaderReadsThroughAnotherToolsReorderingCopy() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_grown (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT); INSERT INTO r15_grown VALUES (1, 'a', 'x')")
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        let first = try pool.blocking.read { db in try db.object(R15Grown.self, forKey: 1).map { "\($0.name)/\($0.note ?? "nil")" } }
        #expect(first == "a/x")
        let other = try Database(path: temp.path)
        try other.execute("""
            BEGIN;
            CREATE TABLE new__r15_grown (note TEXT, id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO new__r15_grown (id, name, note) SELECT id, name, note || '2' FROM r15_grown;
            DROP TABLE r15_grown;
            ALTER TABLE new__r15_grown RENAME TO r15_grown;
            COMMIT;
            """)
        for _ in 0..<3 {
            let again = try pool.blocking.read { db in try db.objects(R15Grown.self).map { "\($0.id)/\($0.name)/\($0.note ?? "nil")" } }
            #expect(again == ["1/a/x2"])
        }
        try other.close()
        try pool.blocking.close()
    }
}

// MARK: Rebuild over unusual definitions

private final class R15Commented: Model {
    static let tableName = "r15_commented"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var n = 0
    var note: String?
    required init() {}
}

private final class R15StrictNoRowID: Model {
    static let tableName = "r15_strict_nr"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id = ""
    var n = 0
    var raw: SQLValue?
    required init() {}
}

private final class R15Hub: Model {
    static let tableName = "r15_hub"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var title = ""
    var rank = 0
    required init() {}
}

extension Review15SchemaTests {
    @Test func aRebuildKeepsCommentsWithCommasAndParenthesesInTheDefinition() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15_commented (
              id INTEGER PRIMARY KEY, -- the key, (really)
              n TEXT /* was text, (sadly) */ NOT NULL DEFAULT '0',
              kept TEXT DEFAULT 'a,b)' -- trailing, )
            );
            INSERT INTO r15_commented (id, n) VALUES (1, '12');
            """)
        let plan = try temp.db.syncSchema(R15Commented.self)
        #expect(plan.rebuildsTable)
        let columns = try columnsOf("r15_commented", in: temp.db)
        #expect(columns.map(\.name) == ["id", "n", "kept", "note"])
        #expect(columns.map(\.type) == ["INTEGER", "INTEGER", "TEXT", "TEXT"])
        #expect(columns[2].defaultSQL == "'a,b)'")
        #expect(try temp.db.rows("SELECT n, typeof(n), kept FROM r15_commented").first?.values == [.integer(12), .text("integer"), .text("a,b)")])
    }

    @Test func aRebuildOfAStrictWithoutRowIDTableKeepsBothOptions() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15_strict_nr (id TEXT PRIMARY KEY, n TEXT, extra ANY) WITHOUT ROWID, STRICT;
            INSERT INTO r15_strict_nr VALUES ('a', '7', x'01'), ('b', '9', 2.5);
            """)
        let plan = try temp.db.syncSchema(R15StrictNoRowID.self)
        #expect(plan.rebuildsTable)
        let sql = try #require(try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'r15_strict_nr'"))
        #expect(sql.hasSuffix("WITHOUT ROWID, STRICT"), "\(sql)")
        #expect(try columnsOf("r15_strict_nr", in: temp.db).map(\.type) == ["TEXT", "INTEGER", "ANY", "ANY"])
        #expect(try temp.db.rows("SELECT id, n, extra FROM r15_strict_nr ORDER BY id").map(\.values)
                == [[.text("a"), .integer(7), .blob(Data([1]))], [.text("b"), .integer(9), .real(2.5)]])
        #expect(throws: DatabaseError.self) { try temp.db.execute("UPDATE r15_strict_nr SET n = 'x' WHERE id = 'a'") }   // still STRICT
        let b = try #require(try temp.db.object(R15StrictNoRowID.self, forKey: "b"))
        b.raw = .text("0012")
        try temp.db.save(b)
        #expect(try temp.db.value(String.self, "SELECT raw FROM r15_strict_nr WHERE id = 'b'") == "0012")
    }

    @Test func aRebuildKeepsTriggersOfOtherTablesAnFTSIndexAndAWritableView() throws {
        let temp = try TemporaryDatabase()
        do { try temp.db.execute("CREATE VIRTUAL TABLE r15_probe USING fts5(x); DROP TABLE r15_probe") } catch { return }
        try temp.db.execute("""
            CREATE TABLE r15_hub (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', rank TEXT);
            INSERT INTO r15_hub VALUES (1, 'swift orm', '1'), (2, 'sqlite file', '2');
            CREATE VIRTUAL TABLE r15_hub_fts USING fts5(title, content='r15_hub', content_rowid='id');
            INSERT INTO r15_hub_fts(r15_hub_fts) VALUES ('rebuild');
            CREATE TRIGGER r15_hub_ai AFTER INSERT ON r15_hub BEGIN INSERT INTO r15_hub_fts(rowid, title) VALUES (new.id, new.title); END;
            CREATE TRIGGER r15_hub_ad AFTER DELETE ON r15_hub BEGIN INSERT INTO r15_hub_fts(r15_hub_fts, rowid, title) VALUES ('delete', old.id, old.title); END;
            CREATE TABLE r15_inbox (title TEXT);
            CREATE TRIGGER r15_inbox_ai AFTER INSERT ON r15_inbox BEGIN INSERT INTO r15_hub (title, rank) VALUES (new.title, 0); END;
            CREATE VIEW r15_hub_view AS SELECT id, title FROM r15_hub;
            CREATE TRIGGER r15_hub_view_ins INSTEAD OF INSERT ON r15_hub_view BEGIN INSERT INTO r15_hub (title) VALUES (new.title); END;
            """)
        let before = try r15Master(temp.db, except: ["r15_hub"])
        #expect(try temp.db.syncSchema(R15Hub.self).rebuildsTable)
        #expect(try r15Master(temp.db, except: ["r15_hub"]) == before)
        try temp.db.execute("INSERT INTO r15_inbox VALUES ('from the inbox'); INSERT INTO r15_hub_view (title) VALUES ('through the view')")
        #expect(try temp.db.column(String.self, "SELECT title FROM r15_hub ORDER BY id") == ["swift orm", "sqlite file", "from the inbox", "through the view"])
        #expect(try temp.db.column(Int.self, "SELECT rowid FROM r15_hub_fts WHERE r15_hub_fts MATCH 'inbox OR orm' ORDER BY rowid") == [1, 3])
        let h = R15Hub(); h.title = "saved model"
        try temp.db.save(h)
        #expect(try temp.db.column(Int.self, "SELECT rowid FROM r15_hub_fts WHERE r15_hub_fts MATCH 'model'") == [Int(h.id)])
        #expect(try temp.db.value(String.self, "PRAGMA integrity_check") == "ok")
    }

    @Test func anotherConnectionsColumnAddedBetweenPlanAndRebuildIsKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_hub (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', rank TEXT); INSERT INTO r15_hub VALUES (1, 't', '3')")
        let plan = try temp.db.schemaPlan(for: R15Hub.self)
        #expect(plan.rebuildsTable)
        let other = try Database(path: temp.path)
        try other.execute("ALTER TABLE r15_hub ADD COLUMN theirs TEXT DEFAULT 'x'; CREATE INDEX r15_theirs ON r15_hub (theirs)")
        try other.close()
        let applied = try temp.db.syncSchema(R15Hub.self)
        #expect(applied.rebuildsTable)
        #expect(try temp.db.rows("SELECT id, title, rank, theirs FROM r15_hub").map(\.values) == [[.integer(1), .text("t"), .integer(3), .text("x")]])
        #expect(try indexNames("r15_hub", in: temp.db) == ["r15_theirs"])
    }

    @Test func twoHandlesRebuildingTheSameTableAtOnceRebuildItOnce() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_hub (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', rank TEXT)")
        try temp.db.transaction { for i in 0..<2000 { try temp.db.execute("INSERT INTO r15_hub (title, rank) VALUES ('t', ?)", "\(i)") } }
        let path = temp.path
        let results = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let db = try Database(path: path, configuration: .patient)
                let plan = try db.syncSchema(R15Hub.self)
                results.withLock { $0.append(plan.rebuildsTable ? "rebuilt" : plan.isEmpty ? "in sync" : "\(plan)") }
                try db.close()
            } catch {
                results.withLock { $0.append("\(error)") }
            }
        }
        let seen = results.withLock { $0 }
        #expect(seen.sorted() == ["in sync", "in sync", "in sync", "rebuilt"], "\(seen)")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r15_hub WHERE typeof(rank) = 'integer'") == 2000)
    }
}

// MARK: Fixtures

/// familysearch's `FSMyArtifacts`: `DEFAULT notArchived` (a bare identifier), a table-level nullable TEXT key.
private final class R15FSMyArtifacts: Model {
    static let tableName = "FSMyArtifacts"
    static let primaryKey = "localId"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var localId = ""
    var listType = 0
    var cacheHash: String?
    var lastFetchDate = 0.0
    var archiveState = ""
    var pinned: Bool?
    required init() {}
}

/// familysearch's `Source`: `"resourceType" TEXT ''` (a typo in the declared type), `sortYear` now an Int.
private final class R15FSSource: Model {
    static let tableName = "Source"
    static let primaryKey = "localId"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var localId = ""
    var title: String?
    var resourceType: String?
    var sortYear: Int?
    var lastFetchDate = 0.0
    var syncInFlightStatus = 0
    var syncStatus = 0
    required init() {}
}

extension Review15SchemaTests {
    @Test(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
    func familySearchTablesRebuildKeepingTheOtherToolsDefinitions() throws {
        let temp = try TemporaryDatabase(copying: try #require(Fixtures.path("familysearch_app.sqlite3") as String?))
        let db = temp.db
        try db.execute("""
            INSERT INTO FSMyArtifacts (localId, listType, cacheHash, lastFetchDate) VALUES ('a', 1, 'h', 1.5);
            INSERT INTO Source (localId, title, resourceType, sortYear, lastFetchDate, syncInFlightStatus, syncStatus) VALUES ('s', 'T', 'book', '1900', 2.5, 0, 1);
            """)
        let others = try r15Master(db, except: ["FSMyArtifacts", "Source"])
        let artifactsSQL = try #require(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'FSMyArtifacts'"))

        let artifacts = try db.syncSchema(R15FSMyArtifacts.self)
        #expect(artifacts.steps.map(\.kind) == [.addColumn("pinned")], "\(artifacts)")
        let after = try #require(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'FSMyArtifacts'"))
        #expect(after.contains("archiveState TEXT NOT NULL DEFAULT notArchived") && after.contains(#"PRIMARY KEY("localId")"#), "\(after)")
        #expect(after.replacingOccurrences(of: #", "pinned" INTEGER"#, with: "") == artifactsSQL)
        #expect(try db.object(R15FSMyArtifacts.self, forKey: "a")?.archiveState == "notArchived")

        let source = try db.syncSchema(R15FSSource.self)
        #expect(source.rebuildsTable)
        let columns = try columnsOf("Source", in: db)
        #expect(columns.first { $0.name == "resourceType" }?.type == "TEXT ''")
        #expect(columns.first { $0.name == "sortYear" }?.type == "INTEGER")
        #expect(columns.first { $0.name == "citation" }?.defaultSQL == "''")
        #expect(try indexNames("Source", in: db) == ["INDEX_source_server", "sqlite_autoindex_Source_1"])
        #expect(try db.rows("SELECT localId, sortYear, typeof(sortYear), resourceType, notes FROM Source").map(\.values)
                == [[.text("s"), .integer(1900), .text("integer"), .text("book"), .text("")]])
        #expect(try r15Master(db, except: ["FSMyArtifacts", "Source"]) == others)
        #expect(try db.value(String.self, "PRAGMA integrity_check") == "ok")
        let again = try temp.reopen()
        #expect(try again.schemaPlan(for: R15FSMyArtifacts.self).isEmpty)
        #expect(try again.schemaPlan(for: R15FSSource.self).isEmpty)
    }
}

private final class R15Bracketed: Model {
    static let tableName = "r15 bracketed"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var amount = 0
    var label: String?
    required init() {}
}

extension Review15SchemaTests {
    @Test func aPoolReaderWhoseColumnAnotherToolDroppedHasItAddedBackByTheWriter() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_grown (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', note TEXT); INSERT INTO r15_grown VALUES (1, 'a', 'x')")
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        #expect(try pool.blocking.read { db in try db.object(R15Grown.self, forKey: 1)?.note } == "x")
        let other = try Database(path: temp.path)
        try other.execute("ALTER TABLE r15_grown DROP COLUMN note")
        let again = try pool.blocking.read { db in try db.objects(R15Grown.self).map { "\($0.id)/\($0.name)/\($0.note ?? "nil")" } }
        #expect(again == ["1/a/nil"])
        #expect(try other.column(String.self, "SELECT name FROM pragma_table_info('r15_grown')") == ["id", "name", "note"])
        try other.close()
        try pool.blocking.close()
    }

    @Test func aRebuildOverBracketAndBacktickQuotedNames() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE [r15 bracketed] ([id] INTEGER PRIMARY KEY, `amount` TEXT NOT NULL DEFAULT '0', [label] TEXT); INSERT INTO [r15 bracketed] VALUES (1, '5', 'l')")
        let plan = try temp.db.syncSchema(R15Bracketed.self)
        #expect(plan.rebuildsTable)
        #expect(try columnsOf("r15 bracketed", in: temp.db).map(\.type) == ["INTEGER", "INTEGER", "TEXT"])
        #expect(try temp.db.object(R15Bracketed.self, forKey: 1)?.amount == 5)
    }
}

// MARK: Table options after a comment

private final class R15NoRowIDCommented: Model {
    static let tableName = "r15_nr_commented"
    var id = ""
    var n = 0
    required init() {}
}

private final class R15StrictCommented: Model {
    static let tableName = "r15_strict_commented"
    var id: Int64 = 0
    var code = ""
    var extra: SQLValue?
    required init() {}
}

extension Review15SchemaTests {
    /// SQLite stores a comment written before the statement's end: `) WITHOUT ROWID /* (c) */`.
    @Test func aWithoutRowIDTableWhoseDefinitionEndsInACommentHoldingAParenthesis() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_nr_commented (id TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID /* keyed by code (text) */")
        #expect(try temp.db.schemaPlan(for: R15NoRowIDCommented.self).isEmpty)
        let x = R15NoRowIDCommented(); x.id = "a"; x.n = 1
        try temp.db.save(x)
        x.n = 2
        try temp.db.save(x)
        #expect(try temp.reopen().object(R15NoRowIDCommented.self, forKey: "a")?.n == 2)
        #expect(try temp.db.delete(try #require(try temp.db.object(R15NoRowIDCommented.self, forKey: "a"))))
    }

    @Test func aStrictTableWhoseDefinitionEndsInACommentHoldingAParenthesis() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_strict_commented (id INTEGER PRIMARY KEY, code ANY NOT NULL DEFAULT '') STRICT -- codes keep their zeros (0012)\n")
        try temp.db.syncSchema(R15StrictCommented.self)
        let x = R15StrictCommented(); x.code = "0012"; x.extra = .integer(3)
        try temp.db.save(x)
        #expect(try temp.reopen().object(R15StrictCommented.self, forKey: x.id)?.code == "0012")
        #expect(try temp.db.value(String.self, "SELECT type FROM pragma_table_info('r15_strict_commented') WHERE name = 'extra'") == "ANY")
    }
}

private final class R15Fraction: Model {
    static let tableName = "r15_fraction"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var ratio = 0.0
    var kept: Double?
    required init() {}
}

extension Review15SchemaTests {
    /// `DEFAULT .5` and `DEFAULT -.25` (numbers without a leading digit) are one value each when a rebuild
    /// replaces or keeps a column's default.
    @Test func aRebuildReplacesADefaultWrittenWithoutALeadingDigit() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_fraction (id INTEGER PRIMARY KEY, ratio TEXT DEFAULT .5, kept REAL DEFAULT -.25); INSERT INTO r15_fraction (id) VALUES (1)")
        let plan = try temp.db.syncSchema(R15Fraction.self)
        #expect(plan.rebuildsTable)
        let columns = try columnsOf("r15_fraction", in: temp.db)
        #expect(columns.map(\.type) == ["INTEGER", "REAL", "REAL"])
        #expect(columns.map(\.defaultSQL) == [nil, "0.0", "-.25"])
        #expect(try temp.db.rows("SELECT ratio, typeof(ratio), kept FROM r15_fraction").first?.values == [.real(0.5), .text("real"), .real(-0.25)])
    }
}

private final class R15Apostrophe: Model {
    static let tableName = "it's \"here\""
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var n = 0
    required init() {}
}

extension Review15SchemaTests {
    @Test func aRebuildOfAnAutoincrementTableWhoseNameHoldsBothQuotesKeepsItsCounter() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(#"""
            CREATE TABLE "it's ""here""" (id INTEGER PRIMARY KEY AUTOINCREMENT, n TEXT NOT NULL DEFAULT '0');
            INSERT INTO "it's ""here""" (n) VALUES ('1'), ('2'), ('3');
            DELETE FROM "it's ""here""" WHERE id = 3;
            CREATE TABLE "child's" (id INTEGER PRIMARY KEY, p INTEGER REFERENCES "it's ""here""" (id));
            INSERT INTO "child's" VALUES (1, 2);
            """#)
        #expect(try temp.db.syncSchema(R15Apostrophe.self).rebuildsTable)
        #expect(try temp.db.rows("SELECT name, seq FROM sqlite_sequence").map(\.values) == [[.text("it's \"here\""), .integer(3)]])
        let x = R15Apostrophe()
        try temp.db.save(x)
        #expect(x.id == 4)
        #expect(try temp.db.rows("PRAGMA foreign_key_check").isEmpty)
        let bad = #expect(throws: DatabaseError.self) { try temp.db.execute(#"DELETE FROM "it's ""here""" WHERE id = 2"#) }
        #expect(bad?.code == .constraintForeignKey)
    }
}

private final class R15UniqueOverDuplicates: Model {
    static let tableName = "r15_dupes"
    static let uniqueIndices: [[String]] = [["code"]]
    var id: Int64 = 0
    var code = ""
    var added: String?
    required init() {}
}

private final class R15IndexTypo: Model {
    static let tableName = "r15_typo"
    static let indices: [[String]] = [["nosuch"]]
    var id: Int64 = 0
    var name = ""
    required init() {}
}

extension Review15SchemaTests {
    /// Pitfall 27: a UNIQUE index over duplicates fails, and the sync's other steps go with it.
    @Test func aUniqueIndexOverDuplicatesRollsTheWholeSyncBackNamingTheIndex() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_dupes (id INTEGER PRIMARY KEY, code TEXT NOT NULL DEFAULT ''); INSERT INTO r15_dupes (code) VALUES ('a'), ('a')")
        let before = try schemaSnapshot(temp.db)
        let plan = try temp.db.schemaPlan(for: R15UniqueOverDuplicates.self)
        #expect(plan.steps.map(\.kind).first == .addColumn("added"))
        let error = #expect(throws: DatabaseError.self) { try temp.db.syncSchema(R15UniqueOverDuplicates.self) }
        #expect(error?.code == .constraintUnique)
        #expect(error?.message.contains("model R15UniqueOverDuplicates, table \"r15_dupes\", creating index \"strata_unique_r15_dupes_code_") == true, "\(String(describing: error))")
        #expect(try schemaSnapshot(temp.db) == before)
    }

    /// Pitfall 26: an index naming no property is refused, never made over a string constant.
    @Test func anIndexNamingNoPropertyIsRefused() throws {
        let temp = try TemporaryDatabase()
        #expect(throws: (any Error).self) { try temp.db.syncSchema(R15IndexTypo.self) }
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'index'") == 0)
    }
}

extension Review15SchemaTests {
    @Test func aPoolReadersFirstUseOfAModelThatNeedsARebuildHasTheWriterRebuild() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15_hub (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', rank TEXT);
            INSERT INTO r15_hub VALUES (1, 'a', '4');
            CREATE TABLE r15_child (id INTEGER PRIMARY KEY, hub INTEGER REFERENCES r15_hub (id) ON DELETE CASCADE);
            INSERT INTO r15_child VALUES (1, 1);
            """)
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        let ranks = try await pool.read { db in try db.objects(R15Hub.self).map(\.rank) }
        #expect(ranks == [4])
        let check = try await pool.read { db in
            try db.rows("SELECT typeof(rank) FROM r15_hub").map(\.values) + db.rows("SELECT id FROM r15_child").map(\.values)
        }
        #expect(check == [[.text("integer")], [.integer(1)]])
        let foreignKeys = try await pool.write { db in try db.value(Int.self, "PRAGMA foreign_keys") }
        #expect(foreignKeys == 1)
        try await pool.close()
    }
}

/// A table without a primary key, mapped by its rowid, that has a column named `oid`.
private final class R15RowIDRows: Model {
    static let tableName = "r15_rows"
    static let primaryKey = "rowid"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var rowid: Int64 = 0
    var oid: String?
    var n = 0
    required init() {}
}

extension Review15SchemaTests {
    /// The rowid is copied under the name a column does not take (`_rowid_` here, `oid` being a column).
    @Test func aRebuildKeepsRowIDsWhenAColumnIsNamedLikeOneOfTheirAliases() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15_rows (oid TEXT, n TEXT NOT NULL DEFAULT '0');
            INSERT INTO r15_rows (rowid, oid, n) VALUES (5, 'five', '5'), (9, 'nine', '9'), (2, 'two', '2');
            CREATE TABLE r15_tagged (code TEXT PRIMARY KEY, rowid INTEGER, n TEXT NOT NULL DEFAULT '0');
            INSERT INTO r15_tagged (_rowid_, code, rowid, n) VALUES (7, 'a', 100, '1'), (3, 'b', 200, '2');
            """)
        #expect(try temp.db.syncSchema(R15RowIDRows.self).rebuildsTable)
        #expect(try temp.db.rows("SELECT _rowid_, oid, n FROM r15_rows ORDER BY _rowid_").map(\.values) == [
            [.integer(2), .text("two"), .integer(2)], [.integer(5), .text("five"), .integer(5)], [.integer(9), .text("nine"), .integer(9)],
        ])
        #expect(try temp.db.object(R15RowIDRows.self, forKey: 9)?.oid == "nine")
        #expect(try temp.db.syncSchema(R15TaggedWithRowIDColumn.self).rebuildsTable)
        #expect(try temp.db.rows("SELECT _rowid_, code, rowid, n FROM r15_tagged ORDER BY _rowid_").map(\.values) == [
            [.integer(3), .text("b"), .integer(200), .integer(2)], [.integer(7), .text("a"), .integer(100), .integer(1)],
        ])
    }
}

private final class R15TaggedWithRowIDColumn: Model {
    static let tableName = "r15_tagged"
    static let primaryKey = "code"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var code = ""
    var rowid: Int64?
    var n = 0
    required init() {}
}

private final class R15DefaultNull: Model {
    static let tableName = "r15_default_null"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var level = 0
    var label = ""
    required init() {}
}

extension Review15SchemaTests {
    /// A nullable column declared `DEFAULT NULL` that a rebuild makes NOT NULL takes the property's default:
    /// NOT NULL over DEFAULT NULL would refuse every insert that leaves it out.
    @Test func aColumnMadeNotNullByARebuildDoesNotKeepDefaultNull() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_default_null (id INTEGER PRIMARY KEY, level INTEGER DEFAULT NULL, label TEXT DEFAULT (NULL)); INSERT INTO r15_default_null VALUES (1, 3, 'x')")
        #expect(try temp.db.syncSchema(R15DefaultNull.self).rebuildsTable)
        let columns = try columnsOf("r15_default_null", in: temp.db)
        #expect(columns.map(\.notNull) == [false, true, true])
        #expect(columns.map(\.defaultSQL) == [nil, "0", "''"])
        let x = R15DefaultNull()
        try temp.db.save(x)
        try temp.db.execute("INSERT INTO r15_default_null (id) VALUES (10)")
        #expect(try temp.db.rows("SELECT level, label FROM r15_default_null WHERE id IN (?, 10)", x.id).map(\.values) == [[.integer(0), .text("")], [.integer(0), .text("")]])
    }
}

private final class R15DefaultNullKept: Model {
    static let tableName = "r15_default_null_kept"
    var id: Int64 = 0
    var level = 0
    var label = ""
    var note: String?
    required init() {}
}

extension Review15SchemaTests {
    /// `DEFAULT NULL` (MySQL dumps, many tools) is no default a non-optional property leaves to the schema:
    /// a fresh instance stores its 0 and "", not NULL.
    @Test func aDefaultNullColumnUnderANonOptionalPropertyStoresTheInitialValue() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_default_null_kept (id INTEGER PRIMARY KEY, level INTEGER DEFAULT NULL, label TEXT DEFAULT (NULL), note TEXT DEFAULT NULL)")
        #expect(try temp.db.schemaPlan(for: R15DefaultNullKept.self).isEmpty)
        let x = R15DefaultNullKept()
        try temp.db.save(x)
        #expect(try temp.db.rows("SELECT level, label, note FROM r15_default_null_kept").map(\.values) == [[.integer(0), .text(""), .null]])
        let back = try #require(try temp.reopen().object(R15DefaultNullKept.self, forKey: x.id))
        #expect(back.level == 0 && back.label == "" && back.note == nil)
    }
}

private final class R15Parent: Model {
    static let tableName = "r15_parent"
    static let indices: [[String]] = [["name"]]
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R15Kid: Model {
    static let tableName = "r15_kid"
    static let indices: [[String]] = [["name"]]
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .cascade) var parent: R15Parent?
    required init() {}
}

extension Review15SchemaTests {
    /// Six handles at once, each creating the parent's table and then the child's, whose foreign key names it.
    @Test func handlesCreatingAChildAndItsParentAtOnceMakeEachTableAndIndexOnce() throws {
        let temp = try TemporaryDatabase()
        let path = temp.path
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { i in
            do {
                let db = try Database(path: path, configuration: .patient)
                if i % 2 == 0 { try db.syncSchema(R15Kid.self) }   // which syncs the parent first
                let p = R15Parent(); p.name = "p\(i)"
                let k = R15Kid(); k.name = "k\(i)"; k.parent = p
                try db.save(p)
                try db.save(k)
                try db.close()
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        let failures = errors.withLock { $0 }
        #expect(failures == [])
        #expect(try temp.db.objects(R15Kid.self).filter { $0.parent != nil }.count == 6)
        #expect(try indexNames("r15_kid", in: temp.db).count == 1)
        #expect(try indexNames("r15_parent", in: temp.db).count == 1)
        #expect(try temp.db.rows("PRAGMA foreign_key_check").isEmpty)
    }
}

/// sqlalchemy_blog's STRICT `events`, gaining an SQLValue and a Decimal column.
private final class R15SAEvent: Model {
    static let tableName = "events"
    var id: Int64 = 0
    var kind = ""
    var payload: Data?
    var at = 0.0
    var extra: SQLValue?
    var amount: Decimal?
    required init() {}
}

/// sqlalchemy_blog's WITHOUT ROWID `settings`, gaining a column.
private final class R15SASetting: Model {
    static let tableName = "settings"
    static let primaryKey = "key"
    var key = ""
    var value: String?
    var scope = "global"
    required init() {}
}

extension Review15SchemaTests {
    @Test(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
    func sqlalchemyStrictAndWithoutRowIDTablesGainColumnsAndKeepTheirOptions() throws {
        let temp = try TemporaryDatabase(copying: try #require(Fixtures.path("sqlalchemy_blog.sqlite3") as String?))
        let db = temp.db
        let others = try r15Master(db, except: ["events", "settings"])
        let events = try db.syncSchema(R15SAEvent.self)
        #expect(events.steps.map(\.sql) == [#"ALTER TABLE "events" ADD COLUMN "extra" ANY"#, #"ALTER TABLE "events" ADD COLUMN "amount" TEXT"#])
        let settings = try db.syncSchema(R15SASetting.self)
        #expect(settings.steps.map(\.kind) == [.addColumn("scope")])
        #expect(try db.value(Int.self, "SELECT strict FROM pragma_table_list WHERE name = 'events'") == 1)
        #expect(try db.value(Int.self, "SELECT wr FROM pragma_table_list WHERE name = 'settings'") == 1)
        #expect(try r15Master(db, except: ["events", "settings"]) == others)
        let e = R15SAEvent(); e.kind = "k"; e.at = 1.5; e.extra = .text("007"); e.amount = Decimal(string: "12.50")
        try db.save(e)
        let s = R15SASetting(); s.key = "theme"; s.value = "dark"
        try db.save(s)
        let again = try temp.reopen()
        let back = try #require(try again.object(R15SAEvent.self, forKey: e.id))
        #expect(back.extra == .text("007") && back.amount == Decimal(string: "12.5"))
        #expect(try again.object(R15SASetting.self, forKey: "theme")?.scope == "global")
        #expect(try again.schemaPlan(for: R15SAEvent.self).isEmpty && again.schemaPlan(for: R15SASetting.self).isEmpty)
    }
}

private final class R15SPost: Model {
    static let tableName = "r15_spost"
    var id: Int64 = 0
    @Siblings(through: "r15_spost_tag", from: "post_id", to: "tag_id") var tags: [R15STag]
    required init() {}
}

private final class R15STag: Model {
    static let tableName = "r15_stag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

extension Review15SchemaTests {
    /// An ANY column of a STRICT join table keeps text as text ('1' stays '1', as in a column with no type):
    /// siblings find integer keys stored either way.
    @Test func siblingsThroughAStrictJoinTableOfAnyColumnsFindKeysStoredAsText() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15_spost (id INTEGER PRIMARY KEY);
            CREATE TABLE r15_stag (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE r15_spost_tag (post_id ANY, tag_id ANY) STRICT;
            INSERT INTO r15_spost VALUES (1), (2);
            INSERT INTO r15_stag VALUES (1, 'a'), (2, 'b');
            INSERT INTO r15_spost_tag VALUES ('1', '1'), ('1', 2), (2, '2');
            """)
        let post = try #require(try temp.db.object(R15SPost.self, forKey: 1))
        #expect(try post.$tags.load().map(\.name) == ["a", "b"])
        let other = try #require(try temp.db.object(R15SPost.self, forKey: 2))
        #expect(try other.$tags.load().map(\.name) == ["b"])
    }
}
