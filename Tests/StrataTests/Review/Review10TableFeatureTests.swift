import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 10, table features: tables made by other tools (raw SQL here) with SQLite features a mapper may
// not expect — generated columns, STRICT, CHECK, NOCASE keys, triggers, key layouts, DEFAULT
// expressions, views and virtual tables, NUMERIC affinity — used through a model over the table.

// MARK: Models

private final class R10Gen: Model {
    static let tableName = "r10_gen"
    var id: Int64 = 0
    var body = ""
    var len = 0
    var shout = ""
    required init() {}
}

private final class R10Strict: Model {
    static let tableName = "r10_strict"
    var id: Int64 = 0
    var atInt: Date?
    var atText: Date?
    var atReal: Date?
    var tokenBlob: UUID?
    var tokenText: UUID?
    var flag = false
    var count = 0
    required init() {}
}

private final class R10StrictWrong: Model {
    static let tableName = "r10_strict_wrong"
    var id: Int64 = 0
    var amount = ""
    required init() {}
}

private final class R10StrictRaw: Model {
    static let tableName = "r10_strict_wrong"
    var id: Int64 = 0
    var amount: SQLValue = .integer(0)
    var price = Decimal(0)
    required init() {}
}

private final class R10Check: Model {
    static let tableName = "r10_check"
    var id: Int64 = 0
    var qty = 0
    var name = ""
    var note = ""
    required init() {}
}

private final class R10NoCase: Model {
    static let tableName = "r10_nocase"
    var id = ""
    var name = ""
    required init() {}
}

@Suite struct Review10TableFeatureTests {
    // MARK: Generated columns

    private func makeGenerated(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE r10_gen (id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT '',
                len INTEGER GENERATED ALWAYS AS (length(body)) VIRTUAL,
                shout TEXT GENERATED ALWAYS AS (upper(body)) STORED)
            """)
    }

    @Test func generatedColumnsAreReadAfterInsertAndUpdateAndNeverWritten() throws {
        let temp = try TemporaryDatabase()
        try makeGenerated(temp.db)
        let plan = try temp.db.schemaPlan(for: R10Gen.self)
        #expect(plan.isEmpty, "\(plan)")
        let g = R10Gen(); g.body = "abc"
        try temp.db.save(g)
        #expect(g.len == 3 && g.shout == "ABC")
        g.body = "hello"
        try temp.db.save(g)
        #expect(g.len == 5 && g.shout == "HELLO")
        // Writing a generated property is refused and writes nothing.
        g.len = 99
        let error = #expect(throws: ModelError.self) { try temp.db.save(g) }
        #expect(error?.kind == .readOnly && error?.message.contains("len") == true, "\(String(describing: error))")
        #expect(try temp.db.value(Int.self, "SELECT len FROM r10_gen") == 5)
        // Changing a generated property and a written one: refused, nothing written.
        g.body = "xy"
        #expect(throws: ModelError.self) { try temp.db.save(g) }
        #expect(try temp.db.value(String.self, "SELECT body FROM r10_gen") == "hello")
        // Undo the generated change: the body saves and the generated values follow.
        g.len = 5
        try temp.db.save(g)
        #expect(try temp.db.value(String.self, "SELECT body FROM r10_gen") == "xy")
        #expect(g.len == 2 && g.shout == "XY")
        // Raw SQL through the handle refreshes them too.
        try temp.db.execute("UPDATE r10_gen SET body = 'four'")
        #expect(g.len == 4 && g.shout == "FOUR")
        try temp.db.syncSchema(R10Gen.self)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM pragma_table_xinfo('r10_gen')") == 4)
    }

    @Test func aGeneratedColumnChangedOnANewInstanceIsRefused() throws {
        let temp = try TemporaryDatabase()
        try makeGenerated(temp.db)
        let g = R10Gen(); g.body = "abc"; g.len = 7
        // Either refused, or the generated value read back: never a failed INSERT with SQLite's bare error.
        do {
            try temp.db.save(g)
            #expect(g.len == 3)
        } catch let error as ModelError {
            #expect(error.kind == .readOnly && error.message.contains("len"), "\(error)")
            #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_gen") == 0)
        }
    }

    // MARK: STRICT

    @Test func strictColumnsGetFormatsTheirTypeAccepts() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_strict (id INTEGER PRIMARY KEY, atInt INTEGER, atText TEXT, atReal REAL,
                tokenBlob BLOB, tokenText TEXT, flag INTEGER NOT NULL DEFAULT 0, count INT NOT NULL DEFAULT 0) STRICT
            """)
        let s = R10Strict()
        let when = Date(timeIntervalSince1970: 1_600_000_000.25)
        let token = UUID()
        s.atInt = when; s.atText = when; s.atReal = when; s.tokenBlob = token; s.tokenText = token; s.flag = true; s.count = 3
        try temp.db.save(s)
        let row = try temp.db.rows("SELECT typeof(atInt) a, typeof(atText) b, typeof(atReal) c, typeof(tokenBlob) d, typeof(tokenText) e, flag FROM r10_strict")[0]
        #expect(row["a"] == .text("integer") && row["b"] == .text("text") && row["c"] == .text("real"))
        #expect(row["d"] == .text("blob") && row["e"] == .text("text") && row["flag"] == .integer(1))
        let temp2 = try temp.reopen()
        let back = try #require(try temp2.objects(R10Strict.self).first)
        #expect(back.atInt == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(back.atText.map { abs($0.timeIntervalSince(when)) < 0.001 } == true)
        #expect(back.atReal == when)
        #expect(back.tokenBlob == token && back.tokenText == token && back.flag && back.count == 3)
        // An update of each writes in the same format.
        back.atInt = Date(timeIntervalSince1970: 1_700_000_000.75)
        back.atText = Date(timeIntervalSince1970: 1_700_000_000)
        try temp2.save(back)
        let row2 = try temp2.rows("SELECT typeof(atInt) a, typeof(atText) b FROM r10_strict")[0]
        #expect(row2["a"] == .text("integer") && row2["b"] == .text("text"))
    }

    @Test func aWrongStorageClassInAStrictColumnNamesTheModelAndProperty() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_strict_wrong (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL DEFAULT 0, price INTEGER NOT NULL DEFAULT 0) STRICT")
        // A String property over a STRICT INTEGER column: refused by sync, naming the column.
        let sync = #expect(throws: (any Error).self) { try temp.db.save(R10StrictWrong()) }
        #expect("\(sync.map { "\($0)" } ?? "")".contains("\"amount\""))
        let w = R10StrictRaw(); w.amount = .text("12"); w.price = 2
        try temp.db.save(w)   // '12' converts losslessly
        #expect(try temp.db.value(String.self, "SELECT typeof(amount) || amount FROM r10_strict_wrong") == "integer12")
        w.amount = .text("twelve")
        let error = #expect(throws: DatabaseError.self) { try temp.db.save(w) }
        #expect(error?.code.rawValue == 3091, "\(String(describing: error))")
        #expect(error?.message.contains("R10StrictRaw") == true && error?.message.contains("amount") == true
                && error?.message.contains("key integer 1") == true, "\(String(describing: error))")
        #expect(try temp.db.value(Int.self, "SELECT amount FROM r10_strict_wrong") == 12)
        // A Decimal with a fraction cannot go into a STRICT INTEGER column either.
        w.amount = .integer(13); w.price = Decimal(string: "2.5")!
        let error2 = #expect(throws: DatabaseError.self) { try temp.db.save(w) }
        #expect(error2?.message.contains("price") == true, "\(String(describing: error2))")
        #expect(try temp.db.value(String.self, "SELECT amount || '/' || price FROM r10_strict_wrong") == "12/2")
        // Fixed, the next save writes both.
        w.price = 3
        try temp.db.save(w)
        #expect(try temp.db.value(String.self, "SELECT amount || '/' || price FROM r10_strict_wrong") == "13/3")
        let fresh = R10StrictRaw(); fresh.amount = .text("x")
        let error3 = #expect(throws: DatabaseError.self) { try temp.db.save(fresh) }
        #expect(error3?.message.contains("inserting a new R10StrictRaw") == true && error3?.message.contains("amount") == true, "\(String(describing: error3))")
        #expect(fresh.id == 0 && !fresh.isPersisted)
    }

    // MARK: CHECK

    @Test func aCheckViolationNamesTheConstraintAndASecondSaveWritesWhatChanged() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_check (id INTEGER PRIMARY KEY, qty INTEGER NOT NULL DEFAULT 0 CHECK (qty >= 0),
                name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '', CONSTRAINT short_name CHECK (length(name) < 10))
            """)
        let c = R10Check(); c.qty = -1; c.name = "a"
        let error = #expect(throws: (any Error).self) { try temp.db.save(c) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains("R10Check") && text.contains("CHECK"), "\(text)")
        #expect(!c.isPersisted && c.id == 0)
        c.qty = 1
        try temp.db.save(c)
        #expect(c.id != 0)
        c.name = "much too long a name"; c.note = "n1"
        let error2 = #expect(throws: (any Error).self) { try temp.db.save(c) }
        let text2 = "\(error2.map { "\($0)" } ?? "")"
        #expect(text2.contains("short_name") && text2.contains("R10Check"), "\(text2)")
        #expect(try temp.db.value(String.self, "SELECT name || '/' || note FROM r10_check") == "a/")
        // Another writer changes qty meanwhile; the fixed save writes name and note, not qty.
        let other = try Database(path: temp.path)
        try other.execute("UPDATE r10_check SET qty = 42")
        try other.close()
        c.name = "b"
        try temp.db.save(c)
        #expect(try temp.db.value(String.self, "SELECT qty || '/' || name || '/' || note FROM r10_check") == "42/b/n1")
        #expect(c.qty == 42)
        // Nothing left over: an unchanged save writes nothing.
        try temp.db.execute("UPDATE r10_check SET note = 'raw' WHERE 0")
        try temp.db.save(c)
    }

    // MARK: COLLATE NOCASE text key

    @Test func aNoCaseKeyHasOneLiveInstanceAndAnInsertNeverOverwrites() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_nocase (id TEXT PRIMARY KEY COLLATE NOCASE, name TEXT NOT NULL DEFAULT '')")
        let ada = R10NoCase(); ada.id = "Ada"; ada.name = "first"
        try temp.db.save(ada)
        let again = try temp.db.object(R10NoCase.self, forKey: "ada")
        #expect(again === ada)
        let upper = try temp.db.object(R10NoCase.self, forKey: "ADA")
        #expect(upper === ada)
        let list = try temp.db.objects(R10NoCase.self, where: "WHERE id = ?", "aDa")
        #expect(list.count == 1 && list.first === ada)
        let twin = R10NoCase(); twin.id = "ADA"; twin.name = "second"
        let error = #expect(throws: ModelError.self) { try temp.db.save(twin) }
        #expect(error?.kind == .duplicateKey)
        #expect(try temp.db.value(String.self, "SELECT id || '/' || name FROM r10_nocase") == "Ada/first")
        // Rows another tool wrote: fetched in two spellings, one instance.
        try temp.db.execute("INSERT INTO r10_nocase VALUES ('Bob', 'b')")
        let b1 = try #require(try temp.db.object(R10NoCase.self, forKey: "bob"))
        let b2 = try #require(try temp.db.object(R10NoCase.self, forKey: "BOB"))
        #expect(b1 === b2 && b1.id == "Bob")
        let all = try temp.db.objects(R10NoCase.self, forKeys: ["bob", "ADA", "Bob"])
        #expect(all.count >= 2 && all.allSatisfy { $0 === b1 || $0 === ada })
        try temp.db.execute("UPDATE r10_nocase SET name = 'raw' WHERE id = 'BOB'")
        #expect(b1.name == "raw")
        try temp.db.execute("DELETE FROM r10_nocase WHERE id = 'ada'")
        #expect(ada.isDeleted)
    }
}

// MARK: Batch 2 models

private final class R10Doc: Model {
    static let tableName = "r10_doc"
    var id: Int64 = 0
    var title = ""
    var updatedAt = ""
    var revisions = 0
    required init() {}
}

private final class R10Audit: Model {
    static let tableName = "r10_audit"
    var id: Int64 = 0
    var doc: Int64 = 0
    var note = ""
    required init() {}
}

private final class R10Tag: Model {
    static let tableName = "r10_tag"
    var id = ""
    var label = ""
    required init() {}
}

private final class R10Auto: Model {
    static let tableName = "r10_auto"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R10Desc: Model {
    static let tableName = "r10_desc"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R10NoRowID: Model {
    static let tableName = "r10_norowid"
    var id = ""
    var name = ""
    required init() {}
}

private final class R10IntKey: Model {
    static let tableName = "r10_intkey"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R10Rowid: Model {
    static let tableName = "r10_rowid"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var name = ""
    required init() {}
}

private final class R10Defaults: Model {
    static let tableName = "r10_defaults"
    var id: Int64 = 0
    var name = ""
    var created: Date?
    var julian = 0.0
    var level = 0
    required init() {}
}

private final class R10Partial: Model {
    static let tableName = "r10_partial"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

extension Review10TableFeatureTests {
    // MARK: Triggers

    @Test func anAfterUpdateTriggerOnTheSameRowReachesTheInstanceAndIsNotOverwritten() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', updatedAt TEXT NOT NULL DEFAULT '', revisions INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE r10_audit (id INTEGER PRIMARY KEY, doc INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '');
            CREATE TRIGGER r10_doc_touch AFTER UPDATE OF title ON r10_doc BEGIN
                UPDATE r10_doc SET updatedAt = 'touched-' || NEW.title, revisions = revisions + 1 WHERE id = NEW.id;
                UPDATE r10_audit SET note = 'title ' || NEW.title WHERE doc = NEW.id;
            END;
            """)
        let d = R10Doc(); d.title = "a"
        try temp.db.save(d)
        let audit = R10Audit(); audit.doc = d.id; audit.note = "none"
        try temp.db.save(audit)
        d.title = "b"
        try temp.db.save(d)
        #expect(d.updatedAt == "touched-b" && d.revisions == 1)
        #expect(audit.note == "title b")
        // The next save writes only what it changed, never the trigger's columns back.
        d.title = "c"
        try temp.db.save(d)
        #expect(try temp.db.value(String.self, "SELECT updatedAt || '/' || revisions FROM r10_doc") == "touched-c/2")
        #expect(d.updatedAt == "touched-c" && d.revisions == 2 && !d.hasChanges)
        // Another property changed by the user and the trigger's column: the user's is written, then the trigger's wins.
        d.title = "d"; d.updatedAt = "mine"
        try temp.db.save(d)
        #expect(try temp.db.value(String.self, "SELECT updatedAt FROM r10_doc") == "touched-d")
        #expect(d.updatedAt == "touched-d")
        #expect(audit.note == "title d")
    }

    @Test func anAfterInsertTriggerThatRewritesTheNewRowReachesTheInstance() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_tag (id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '');
            CREATE TRIGGER r10_tag_norm AFTER INSERT ON r10_tag BEGIN UPDATE r10_tag SET label = upper(NEW.label) WHERE id = NEW.id; END;
            """)
        let t = R10Tag(); t.id = "k"; t.label = "swift"
        try temp.db.save(t)
        #expect(t.label == "SWIFT")
        #expect(!t.hasChanges)
        try temp.db.save(t)
        #expect(try temp.db.value(String.self, "SELECT label FROM r10_tag") == "SWIFT")
    }

    @Test func anAfterInsertTriggerOnARowidTableRewritesTheNewRow() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', updatedAt TEXT NOT NULL DEFAULT '', revisions INTEGER NOT NULL DEFAULT 0);
            CREATE TRIGGER r10_doc_stamp AFTER INSERT ON r10_doc BEGIN UPDATE r10_doc SET updatedAt = 'created', title = trim(NEW.title) WHERE id = NEW.id; END;
            """)
        let d = R10Doc(); d.title = "  padded  "
        try temp.db.save(d)
        #expect(d.title == "padded" && d.updatedAt == "created")
        d.revisions = 5
        try temp.db.save(d)
        #expect(try temp.db.value(String.self, "SELECT title || '/' || updatedAt || '/' || revisions FROM r10_doc") == "padded/created/5")
    }

    @Test func aTriggerThatDeletesRowsMarksTheirInstancesDeleted() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', updatedAt TEXT NOT NULL DEFAULT '', revisions INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE r10_audit (id INTEGER PRIMARY KEY, doc INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '');
            CREATE TABLE r10_tag (id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
            CREATE TRIGGER r10_doc_archive AFTER UPDATE OF title ON r10_doc WHEN NEW.title = 'archived' BEGIN
                DELETE FROM r10_audit WHERE doc = NEW.id;
                DELETE FROM r10_tag WHERE label = 'doc' || NEW.id;
                DELETE FROM r10_doc WHERE id = NEW.id;
            END;
            """)
        let d = R10Doc(); d.title = "a"
        try temp.db.save(d)
        let a = R10Audit(); a.doc = d.id
        try temp.db.save(a)
        let t = R10Tag(); t.id = "x"; t.label = "doc\(d.id)"
        try temp.db.save(t)
        d.title = "archived"
        try temp.db.save(d)
        #expect(a.isDeleted)
        #expect(t.isDeleted)
        #expect(d.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_tag") == 0)
    }

    @Test func aTriggerWritingAWithoutRowIDTableReachesItsInstances() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', updatedAt TEXT NOT NULL DEFAULT '', revisions INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE r10_tag (id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
            CREATE TRIGGER r10_doc_tag AFTER UPDATE OF title ON r10_doc BEGIN UPDATE r10_tag SET label = NEW.title WHERE id = 'current'; END;
            """)
        let t = R10Tag(); t.id = "current"; t.label = "none"
        try temp.db.save(t)
        let d = R10Doc(); d.title = "a"
        try temp.db.save(d)
        d.title = "b"
        try temp.db.save(d)
        #expect(t.label == "b")
        // And its next save of an unchanged label writes nothing back.
        try temp.db.save(t)
        #expect(try temp.db.value(String.self, "SELECT label FROM r10_tag") == "b")
        // Raw SQL on the WITHOUT ROWID table itself.
        try temp.db.execute("UPDATE r10_tag SET label = 'raw'")
        #expect(t.label == "raw")
    }

    // MARK: Key layouts

    @Test func autoincrementNeverReusesAKey() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_auto (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL DEFAULT '')")
        let a = R10Auto(); a.name = "a"; try temp.db.save(a)
        let b = R10Auto(); b.name = "b"; try temp.db.save(b)
        #expect(a.id == 1 && b.id == 2)
        #expect(try temp.db.delete(b))
        let c = R10Auto(); c.name = "c"; try temp.db.save(c)
        #expect(c.id == 3)
        #expect(try temp.db.object(R10Auto.self, forKey: 3) === c)
        #expect(try temp.db.schemaPlan(for: R10Auto.self).isEmpty)
    }

    @Test(arguments: ["INTEGER PRIMARY KEY DESC", "INT PRIMARY KEY", "BIGINT PRIMARY KEY", "UNSIGNED BIG INT PRIMARY KEY", "INTEGER NOT NULL PRIMARY KEY DESC"])
    func anIntegerKeyThatIsNotTheRowIDGetsDistinctKeys(declaration: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_intkey (id \(declaration), name TEXT NOT NULL DEFAULT '')")
        #expect(try temp.db.schemaPlan(for: R10IntKey.self).isEmpty)
        let a = R10IntKey(); a.name = "a"; try temp.db.save(a)
        let b = R10IntKey(); b.name = "b"; try temp.db.save(b)
        #expect(a.id != 0 && b.id != 0 && a.id != b.id)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_intkey WHERE id IS NULL") == 0)
        #expect(try temp.db.object(R10IntKey.self, forKey: a.id) === a)
        let c = R10IntKey(); c.id = 100; c.name = "c"; try temp.db.save(c)
        #expect(try temp.db.value(String.self, "SELECT name FROM r10_intkey WHERE id = 100") == "c")
        try temp.db.execute("UPDATE r10_intkey SET name = 'raw' WHERE id = 100")
        #expect(c.name == "raw")
        // A duplicate key is an error, never an overwrite.
        let dup = R10IntKey(); dup.id = 100; dup.name = "dup"
        #expect(throws: ModelError.self) { try temp.db.save(dup) }
        #expect(try temp.db.value(String.self, "SELECT name FROM r10_intkey WHERE id = 100") == "raw")
        let reopened = try temp.reopen()
        let all = try reopened.objects(R10IntKey.self, where: "ORDER BY name")
        #expect(all.map(\.name) == ["a", "b", "raw"])
        let x = try #require(try reopened.object(R10IntKey.self, forKey: 100))
        x.name = "again"; try reopened.save(x)
        #expect(try reopened.delete(x))
        #expect(try reopened.value(Int.self, "SELECT count(*) FROM r10_intkey") == 2)
    }

    @Test func aWithoutRowIDTextKeyTableRoundTrips() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_norowid (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID")
        let a = R10NoRowID(); a.id = "a"; a.name = "x"; try temp.db.save(a)
        #expect(try temp.db.object(R10NoRowID.self, forKey: "a") === a)
        a.name = "y"; try temp.db.save(a)
        try temp.db.execute("UPDATE r10_norowid SET name = 'raw' WHERE id = 'a'")
        #expect(a.name == "raw")
        try temp.db.execute("DELETE FROM r10_norowid WHERE id = 'a'")
        #expect(a.isDeleted)
    }

    @Test func aTableWithoutAPrimaryKeyMapsByRowID() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_rowid (name TEXT NOT NULL DEFAULT ''); INSERT INTO r10_rowid VALUES ('x'), ('y')")
        #expect(try temp.db.schemaPlan(for: R10Rowid.self).isEmpty)
        let all = try temp.db.objects(R10Rowid.self, where: "ORDER BY rowid")
        #expect(all.map(\.rowid) == [1, 2] && all.map(\.name) == ["x", "y"])
        let z = R10Rowid(); z.name = "z"; try temp.db.save(z)
        #expect(z.rowid == 3)
        all[0].name = "x2"; try temp.db.save(all[0])
        #expect(try temp.db.value(String.self, "SELECT group_concat(name, ',') FROM (SELECT name FROM r10_rowid ORDER BY rowid)") == "x2,y,z")
        try temp.db.execute("UPDATE r10_rowid SET name = 'raw' WHERE rowid = 2")
        #expect(all[1].name == "raw")
    }

    // MARK: DEFAULT expressions

    @Test func defaultExpressionsFillWhatTheModelLeavesUnset() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_defaults (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
                created TEXT DEFAULT CURRENT_TIMESTAMP, julian REAL NOT NULL DEFAULT (julianday('now')), level INTEGER NOT NULL DEFAULT '7')
            """)
        #expect(try temp.db.schemaPlan(for: R10Defaults.self).isEmpty)
        let d = R10Defaults(); d.name = "n"
        try temp.db.save(d)
        let created = try #require(d.created)
        #expect(abs(created.timeIntervalSinceNow) < 120)
        #expect(d.julian > 2_460_000)
        #expect(d.level == 7)
        #expect(!d.hasChanges)
        #expect(try temp.db.value(String.self, "SELECT typeof(created) || typeof(julian) || typeof(level) FROM r10_defaults") == "textrealinteger")
        d.name = "m"; try temp.db.save(d)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_defaults WHERE typeof(created) = 'text' AND level = 7") == 1)
    }

    @Test func aNotNullColumnWithoutDefaultTheModelDoesNotMapIsAClearError() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_partial (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', secret TEXT NOT NULL); INSERT INTO r10_partial VALUES (1, 'a', 's')")
        let p = try #require(try temp.db.object(R10Partial.self, forKey: 1))
        p.name = "b"; try temp.db.save(p)
        let n = R10Partial(); n.name = "c"
        let error = #expect(throws: ModelError.self) { try temp.db.save(n) }
        #expect(error?.kind == .missingColumns && error?.message.contains("secret") == true)
    }
}

// MARK: Batch 3 models

private final class R10ViewModel: Model {
    static let tableName = "r10_view"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R10ViewExtra: Model {
    static let tableName = "r10_view"
    var id: Int64 = 0
    var name = ""
    var extra = 0
    required init() {}
}

private final class R10Search: Model {
    static let tableName = "r10_search"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var title = ""
    var body = ""
    required init() {}
}

private final class R10SearchExtra: Model {
    static let tableName = "r10_search"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var title = ""
    var missing = ""
    required init() {}
}

private final class R10NumText: Model {
    static let tableName = "r10_num"
    var id: Int64 = 0
    var v = ""
    required init() {}
}

private final class R10NumInt: Model {
    static let tableName = "r10_num"
    var id: Int64 = 0
    var v = 0
    required init() {}
}

private final class R10NumDouble: Model {
    static let tableName = "r10_num"
    var id: Int64 = 0
    var v = 0.0
    required init() {}
}

private final class R10NumDecimal: Model {
    static let tableName = "r10_num"
    var id: Int64 = 0
    var v = Decimal(0)
    required init() {}
}

private final class R10NoCaseNoRowID: Model {
    static let tableName = "r10_nocase_nr"
    var id = ""
    var name = ""
    required init() {}
}

private final class R10GenNoRowID: Model {
    static let tableName = "r10_gen_nr"
    var id = ""
    var body = ""
    var len = 0
    required init() {}
}

extension Review10TableFeatureTests {
    // MARK: Views and virtual tables

    @Test func aViewWithTheModelsTableNameIsNeverAlteredAndExplainsWhatItCannotDo() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_base (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO r10_base VALUES (1, 'a');
            CREATE VIEW r10_view AS SELECT id, name FROM r10_base;
            """)
        let schema = try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'r10_view'")
        #expect(try temp.db.schemaPlan(for: R10ViewModel.self).isEmpty)
        let v = try #require(try temp.db.object(R10ViewModel.self, forKey: 1))
        #expect(v.name == "a")
        v.name = "b"
        let error = #expect(throws: ModelError.self) { try temp.db.save(v) }
        #expect(error?.kind == .readOnly && error?.message.contains("view") == true, "\(String(describing: error))")
        let extra = #expect(throws: (any Error).self) { try temp.db.syncSchema(R10ViewExtra.self) }
        let text = "\(extra.map { "\($0)" } ?? "")"
        #expect(text.contains("view") && text.contains("extra"), "\(text)")
        #expect(try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'r10_view'") == schema)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE tbl_name = 'r10_view'") == 1)
    }

    @Test func anFTS5TableWithTheModelsTableName() throws {
        let temp = try TemporaryDatabase()
        do {
            try temp.db.execute("CREATE VIRTUAL TABLE r10_search USING fts5(title, body)")
        } catch {
            return   // no FTS5 in this SQLite
        }
        try temp.db.execute("INSERT INTO r10_search(title, body) VALUES ('swift', 'an orm'), ('sqlite', 'fts five')")
        #expect(try temp.db.schemaPlan(for: R10Search.self).isEmpty)
        let found = try temp.db.objects(R10Search.self, where: "WHERE r10_search MATCH ?", "orm")
        #expect(found.count == 1 && found.first?.title == "swift")
        let s = try #require(found.first)
        s.body = "an orm for swift"
        try temp.db.save(s)
        #expect(try temp.db.value(String.self, "SELECT body FROM r10_search WHERE rowid = ?", s.rowid) == "an orm for swift")
        let n = R10Search(); n.title = "new"; n.body = "row"
        try temp.db.save(n)
        #expect(n.rowid == 3)
        #expect(try temp.db.objects(R10Search.self, where: "WHERE r10_search MATCH 'row'").first === n)
        #expect(try temp.db.delete(n))
        let before = try temp.db.value(String.self, "SELECT group_concat(sql, ';') FROM sqlite_master")
        let error = #expect(throws: (any Error).self) { try temp.db.syncSchema(R10SearchExtra.self) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains("missing") && text.contains("r10_search"), "\(text)")
        #expect(try temp.db.value(String.self, "SELECT group_concat(sql, ';') FROM sqlite_master") == before)
    }

    // MARK: NUMERIC affinity

    @Test func numericAffinityValuesReadAsEachPropertyType() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_num (id INTEGER PRIMARY KEY, v NUMERIC);
            INSERT INTO r10_num VALUES (1, '1.0'), (2, '0123'), (3, '1e3'), (4, '1.5'), (5, 'abc'), (6, '12345678901234567890');
            """)
        let stored = try temp.db.column(String.self, "SELECT typeof(v) || ':' || v FROM r10_num ORDER BY id")
        #expect(stored == ["integer:1", "integer:123", "integer:1000", "real:1.5", "text:abc", "real:1.23456789012346e+19"])
        // A String property over a NUMERIC column is refused by sync, naming the column and the types that fit.
        let textError = #expect(throws: (any Error).self) { try temp.db.objects(R10NumText.self) }
        #expect("\(textError.map { "\($0)" } ?? "")".contains("column \"v\""))
        let ints = try Database(path: temp.path)
        let intError = #expect(throws: (any Error).self) { try ints.objects(R10NumInt.self, where: "ORDER BY id") }
        #expect("\(intError.map { "\($0)" } ?? "")".contains("v"))
        #expect(try ints.objects(R10NumInt.self, where: "WHERE id <= 3 ORDER BY id").map(\.v) == [1, 123, 1000])
        try ints.close()
        let doubles = try Database(path: temp.path)
        #expect(try doubles.objects(R10NumDouble.self, where: "WHERE id <= 4 ORDER BY id").map(\.v) == [1, 123, 1000, 1.5])
        try doubles.close()
        let decimals = try Database(path: temp.path)
        #expect(try decimals.objects(R10NumDecimal.self, where: "WHERE id <= 4 ORDER BY id").map(\.v) == [1, 123, 1000, Decimal(string: "1.5")!])
        try decimals.close()
    }

    @Test func aDecimalOverANumericColumnRoundTrips() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_num (id INTEGER PRIMARY KEY, v NUMERIC NOT NULL DEFAULT 0)")
        let d = R10NumDecimal(); d.v = Decimal(string: "1.10")!
        try temp.db.save(d)
        #expect(!d.hasChanges)
        d.v = Decimal(string: "0.1")! + Decimal(string: "0.2")!
        try temp.db.save(d)
        let again = try Database(path: temp.path)
        #expect(try again.object(R10NumDecimal.self, forKey: d.id)?.v == Decimal(string: "0.3")!)
        try again.close()
    }

    // MARK: More combinations

    @Test func aNoCaseKeyInAWithoutRowIDTable() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_nocase_nr (id TEXT PRIMARY KEY COLLATE NOCASE, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID")
        let ada = R10NoCaseNoRowID(); ada.id = "Ada"; ada.name = "first"
        try temp.db.save(ada)
        #expect(try temp.db.object(R10NoCaseNoRowID.self, forKey: "ada") === ada)
        #expect(try temp.db.objects(R10NoCaseNoRowID.self, where: "WHERE id = 'ADA'").first === ada)
        #expect(try temp.db.objects(R10NoCaseNoRowID.self, forKeys: ["aDA"]).first === ada)
        let twin = R10NoCaseNoRowID(); twin.id = "ADA"; twin.name = "second"
        let error = #expect(throws: ModelError.self) { try temp.db.save(twin) }
        #expect(error?.kind == .duplicateKey)
        try temp.db.execute("UPDATE r10_nocase_nr SET name = 'raw' WHERE id = 'ADA'")
        #expect(ada.name == "raw")
        ada.name = "mine"; try temp.db.save(ada)
        #expect(try temp.db.value(String.self, "SELECT id || '/' || name FROM r10_nocase_nr") == "Ada/mine")
        try temp.db.execute("DELETE FROM r10_nocase_nr WHERE id = 'aDa'")
        #expect(ada.isDeleted)
    }

    @Test func generatedColumnsInAWithoutRowIDTableAndABatchSave() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_gen_nr (id TEXT PRIMARY KEY, body TEXT NOT NULL DEFAULT '',
                len INTEGER GENERATED ALWAYS AS (length(body)) STORED) WITHOUT ROWID;
            CREATE TRIGGER r10_gen_nr_trim AFTER INSERT ON r10_gen_nr BEGIN UPDATE r10_gen_nr SET body = trim(body) WHERE id = NEW.id; END;
            """)
        let a = R10GenNoRowID(); a.id = "a"; a.body = " xy "
        let b = R10GenNoRowID(); b.id = "b"; b.body = "abc"
        try temp.db.save([a, b])
        #expect(a.body == "xy" && a.len == 2 && b.len == 3)
        a.body = "four"; b.body = "fivee"
        try temp.db.save([a, b])
        #expect(a.len == 4 && b.len == 5)
        try temp.db.transaction {
            a.body = "1"
            try temp.db.save(a)
            #expect(a.len == 1)
        }
        #expect(a.len == 1)
    }
}

private final class R10Stamped: Model {
    static let tableName = "r10_stamped"
    var id: Int64 = 0
    var name = ""
    var created: Date?
    var seen: Date?
    required init() {}
}

extension Review10TableFeatureTests {
    @Test func dateDefaultsKeepTheirFormatOnLaterWrites() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_stamped (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
                created TEXT DEFAULT CURRENT_TIMESTAMP, seen REAL DEFAULT (julianday('now')))
            """)
        let s = R10Stamped(); s.name = "a"
        try temp.db.save(s)
        let created = try #require(s.created)
        #expect(abs(created.timeIntervalSinceNow) < 120)
        let seen = try #require(s.seen)
        #expect(abs(seen.timeIntervalSinceNow) < 120, "julian day read as \(seen)")
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let t = R10Stamped(); t.name = "b"; t.created = when; t.seen = when
        try temp.db.save(t)
        let rows = try temp.db.column(String.self, "SELECT created FROM r10_stamped ORDER BY id")
        #expect(rows.allSatisfy { $0.count == 19 && $0.dropFirst(10).first == " " }, "\(rows)")
        let seens = try temp.db.column(Double.self, "SELECT seen FROM r10_stamped ORDER BY id")
        #expect(seens.allSatisfy { $0 > 2_400_000 && $0 < 2_500_000 }, "\(seens)")
    }
}

private final class R10Julian: Model {
    static let tableName = "r10_julian"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

extension Review10TableFeatureTests {
    @Test func julianDayRowsAnotherToolWroteReadAndWriteAsJulianDays() throws {
        let temp = try TemporaryDatabase()
        // 2024-01-02 03:04:05 UTC is Julian day 2460311.6278356481...
        try temp.db.execute("CREATE TABLE r10_julian (id INTEGER PRIMARY KEY, at REAL NOT NULL); INSERT INTO r10_julian VALUES (1, julianday('2024-01-02 03:04:05'))")
        let j = try #require(try temp.db.object(R10Julian.self, forKey: 1))
        #expect(abs(j.at.timeIntervalSince1970 - 1_704_164_645) < 0.001)
        #expect(!j.hasChanges)
        j.at = Date(timeIntervalSince1970: 1_704_164_645 + 86_400)
        try temp.db.save(j)
        #expect(try temp.db.value(String.self, "SELECT datetime(at) FROM r10_julian") == "2024-01-03 03:04:05")
        #expect(!j.hasChanges)
        try temp.db.save(j)
        #expect(try ColumnFormat.julianDay.stored(.real(0)) == .real(2_440_587.5))
        #expect(try ColumnFormat.julianDay.native(.real(2_440_588.5)) == .real(86_400))
        #expect(ColumnFormat.detect(.date, declaredType: "REAL", sample: .real(2_460_311.5)) == .julianDay)
        #expect(ColumnFormat.detect(.date, declaredType: "REAL", sample: .real(1_704_164_645)) == .native)
        #expect(ColumnFormat.detect(.date, declaredType: "REAL", sample: nil, defaultSQL: "(julianday('now'))") == .julianDay)
    }
}

extension Review10TableFeatureTests {
    private func makeDocs(_ db: Database, _ triggers: String) throws {
        try db.execute("""
            CREATE TABLE r10_doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', updatedAt TEXT NOT NULL DEFAULT '', revisions INTEGER NOT NULL DEFAULT 0);
            \(triggers)
            """)
    }

    @Test func anInsertATriggerIgnoresIsNoInstanceOfAnotherRow() throws {
        let temp = try TemporaryDatabase()
        try makeDocs(temp.db, "CREATE TRIGGER r10_doc_skip BEFORE INSERT ON r10_doc WHEN NEW.title = 'skip' BEGIN SELECT RAISE(IGNORE); END;")
        let a = R10Doc(); a.title = "a"
        try temp.db.save(a)
        let skipped = R10Doc(); skipped.title = "skip"
        let error = #expect(throws: ModelError.self) { try temp.db.save(skipped) }
        #expect(error?.kind == .readOnly && error?.message.contains("RAISE(IGNORE)") == true, "\(String(describing: error))")
        #expect(!skipped.isPersisted && skipped.id == 0 && skipped.title == "skip")
        #expect(try temp.db.object(R10Doc.self, forKey: a.id) === a)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_doc") == 1)
        // In a batch, inside a transaction: the same, and the transaction goes on.
        try temp.db.transaction {
            let b = R10Doc(); b.title = "b"
            try temp.db.save(b)
            #expect(throws: ModelError.self) { try temp.db.save(skipped) }
            #expect(try temp.db.object(R10Doc.self, forKey: b.id) === b && skipped.id == 0)
        }
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_doc") == 2)
        skipped.title = "now"
        try temp.db.save(skipped)
        #expect(skipped.id == 3)
    }

    @Test func anInsertAnOnConflictIgnoreConstraintSkipsIsNoInstanceOfAnotherRow() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_tag (id TEXT PRIMARY KEY ON CONFLICT IGNORE, label TEXT NOT NULL DEFAULT '')")
        let a = R10Tag(); a.id = "k"; a.label = "first"
        try temp.db.save(a)
        try temp.db.execute("INSERT INTO r10_tag VALUES ('j', 'raw')")
        let j = R10Tag(); j.id = "j"; j.label = "mine"
        let error = #expect(throws: ModelError.self) { try temp.db.save(j) }
        #expect(error?.kind == .readOnly || error?.kind == .duplicateKey, "\(String(describing: error))")
        #expect(!j.isPersisted)
        #expect(try temp.db.value(String.self, "SELECT label FROM r10_tag WHERE id = 'j'") == "raw")
        #expect(try temp.db.object(R10Tag.self, forKey: "j") !== j)
    }

    @Test func anUpdateATriggerIgnoresDoesNotMarkTheInstanceDeleted() throws {
        let temp = try TemporaryDatabase()
        try makeDocs(temp.db, "CREATE TRIGGER r10_doc_freeze BEFORE UPDATE ON r10_doc WHEN OLD.title = 'frozen' BEGIN SELECT RAISE(IGNORE); END;")
        let a = R10Doc(); a.title = "frozen"
        try temp.db.save(a)
        a.revisions = 3
        let error = #expect(throws: ModelError.self) { try temp.db.save(a) }
        #expect(error?.kind == .readOnly && error?.message.contains("RAISE(IGNORE)") == true, "\(String(describing: error))")
        #expect(!a.isDeleted && a.revisions == 3 && a.hasChanges)
        try temp.db.transaction {
            let again = #expect(throws: ModelError.self) { try temp.db.save(a) }
            #expect(again?.kind == .readOnly)
            let live = try temp.db.object(R10Doc.self, forKey: a.id)
            #expect(!a.isDeleted && live === a)
        }
        #expect(try temp.db.value(Int.self, "SELECT revisions FROM r10_doc") == 0)
        // Unfrozen by another writer: the kept change saves.
        try temp.db.execute("DROP TRIGGER r10_doc_freeze")
        try temp.db.save(a)
        #expect(try temp.db.value(Int.self, "SELECT revisions FROM r10_doc") == 3)
    }

    @Test func anInsertATriggerDeletesAtOnceLeavesADeletedInstance() throws {
        let temp = try TemporaryDatabase()
        try makeDocs(temp.db, "CREATE TRIGGER r10_doc_drop AFTER INSERT ON r10_doc WHEN NEW.title = 'drop' BEGIN DELETE FROM r10_doc WHERE id = NEW.id; END;")
        let d = R10Doc(); d.title = "drop"
        try temp.db.save(d)
        #expect(d.isDeleted || !d.isPersisted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_doc") == 0)
        let e = R10Doc(); e.title = "keep"
        try temp.db.save(e)
        #expect(try temp.db.object(R10Doc.self, forKey: e.id) === e && !e.isDeleted)
    }

    @Test func triggerWritesInsideATransactionReachTheInstances() throws {
        let temp = try TemporaryDatabase()
        try makeDocs(temp.db, """
            CREATE TRIGGER r10_doc_touch AFTER UPDATE OF title ON r10_doc BEGIN UPDATE r10_doc SET updatedAt = 'touched-' || NEW.title, revisions = revisions + 1 WHERE id = NEW.id; END;
            CREATE TRIGGER r10_doc_stamp AFTER INSERT ON r10_doc BEGIN UPDATE r10_doc SET updatedAt = 'created' WHERE id = NEW.id; END;
            """)
        let d = R10Doc(); d.title = "a"
        try temp.db.transaction {
            try temp.db.save(d)
            #expect(d.updatedAt == "created")
            d.title = "b"
            try temp.db.save(d)
            #expect(d.updatedAt == "touched-b" && d.revisions == 1)
            d.title = "c"
            try temp.db.save(d)
            #expect(d.updatedAt == "touched-c" && d.revisions == 2)
        }
        #expect(try temp.db.value(String.self, "SELECT updatedAt || revisions FROM r10_doc") == "touched-c2")
        struct Undo: Error {}
        _ = try? temp.db.transaction {
            d.title = "x"
            try temp.db.save(d)
            #expect(d.revisions == 3)
            throw Undo()
        }
        #expect(d.title == "c" && d.updatedAt == "touched-c" && d.revisions == 2)
    }
}

extension Review10TableFeatureTests {
    @Test func aDeleteATriggerIgnoresLeavesTheInstanceLive() throws {
        let temp = try TemporaryDatabase()
        try makeDocs(temp.db, "CREATE TRIGGER r10_doc_keep BEFORE DELETE ON r10_doc WHEN OLD.title = 'keep' BEGIN SELECT RAISE(IGNORE); END;")
        let a = R10Doc(); a.title = "keep"
        try temp.db.save(a)
        let error = #expect(throws: ModelError.self) { try temp.db.delete(a) }
        #expect(error?.kind == .readOnly && error?.message.contains("DELETE") == true, "\(String(describing: error))")
        #expect(!a.isDeleted && a.isPersisted)
        #expect(try temp.db.object(R10Doc.self, forKey: a.id) === a)
        a.title = "gone"; try temp.db.save(a)
        #expect(try temp.db.delete(a) && a.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_doc") == 0)
        // A row another connection deleted first: still false, as documented.
        let b = R10Doc(); b.title = "b"; try temp.db.save(b)
        let other = try Database(path: temp.path)
        try other.execute("DELETE FROM r10_doc")
        try other.close()
        #expect(try temp.db.delete(b) == false)
    }
}

private final class R10Person: Model {
    static let tableName = "r10_person"
    var id = ""
    var name = ""
    required init() {}
}

private final class R10Pet: Model {
    static let tableName = "r10_pet"
    var id: Int64 = 0
    @Reference var owner: R10Person?
    required init() {}
}

extension Review10TableFeatureTests {
    private func makePeople(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE r10_person (id TEXT PRIMARY KEY COLLATE NOCASE, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE r10_pet (id INTEGER PRIMARY KEY, owner TEXT REFERENCES r10_person(id));
            INSERT INTO r10_person VALUES ('Ada', 'ada'), ('Bob', 'bob');
            INSERT INTO r10_pet VALUES (1, 'ada'), (2, 'ADA'), (3, 'Bob'), (4, 'bob');
            """)
    }

    @Test func referencesToANoCaseKeySpelledOtherwiseResolve() throws {
        let temp = try TemporaryDatabase()
        try makePeople(temp.db)
        let pets = try temp.db.objects(R10Pet.self, where: "ORDER BY id")
        #expect(pets.map { $0.owner?.name } == ["ada", "ada", "bob", "bob"])
        #expect(pets[0].owner === pets[1].owner)
        let again = try Database(path: temp.path)
        let prefetched = try again.objects(R10Pet.self, where: "ORDER BY id", prefetching: ["owner"])
        #expect(prefetched.map { $0.owner?.name } == ["ada", "ada", "bob", "bob"])
        try again.close()
    }
}

private final class R10StrictGrow: Model {
    static let tableName = "r10_strict_grow"
    var id: Int64 = 0
    var name = ""
    var price = Decimal(0)
    var at = Date(timeIntervalSince1970: 0)
    var flag = false
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var blob = Data()
    var tags: [String] = []
    var link: URL?
    var ratio: Float = 0
    var small: Int8 = 0
    var maybe: Double?
    required init() {}
}

extension Review10TableFeatureTests {
    @Test func syncAddsColumnsToAStrictTableWithStrictTypes() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_strict_grow (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '') STRICT; INSERT INTO r10_strict_grow (name) VALUES ('old')")
        let plan = try temp.db.syncSchema(R10StrictGrow.self)
        #expect(!plan.isEmpty)
        let types = try temp.db.column(String.self, "SELECT type FROM pragma_table_xinfo('r10_strict_grow') ORDER BY cid")
        #expect(types.allSatisfy { ["INT", "INTEGER", "REAL", "TEXT", "BLOB", "ANY"].contains($0.uppercased()) }, "\(types)")
        let g = R10StrictGrow(); g.name = "n"; g.price = Decimal(string: "12.50")!; g.at = Date(timeIntervalSince1970: 1_700_000_000.5)
        g.flag = true; g.token = UUID(); g.blob = Data([1, 2]); g.tags = ["a"]; g.link = URL(string: "https://x.y"); g.ratio = 0.5; g.small = -3; g.maybe = 2
        try temp.db.save(g)
        let again = try temp.reopen()
        let back = try #require(try again.object(R10StrictGrow.self, forKey: g.id))
        #expect(back.price == Decimal(string: "12.5")! && back.at == g.at && back.flag && back.token == g.token && back.blob == g.blob)
        #expect(back.tags == ["a"] && back.link == g.link && back.ratio == 0.5 && back.small == -3 && back.maybe == 2)
        let old = try #require(try again.objects(R10StrictGrow.self, where: "WHERE name = 'old'").first)
        #expect(old.price == 0 && !old.flag)
    }
}

private final class R10BadDefault: Model {
    static let tableName = "r10_bad_default"
    var id: Int64 = 0
    var name = ""
    var level = 0
    required init() {}
}

extension Review10TableFeatureTests {
    @Test func aDefaultThePropertyCannotReadIsAClearErrorAndNoRow() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_bad_default (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', level INTEGER NOT NULL DEFAULT 'abc')")
        let b = R10BadDefault(); b.name = "x"
        do {
            try temp.db.save(b)
            Issue.record("saved, level \(b.level)")
        } catch {
            #expect("\(error)".contains("level"), "\(error)")
        }
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_bad_default") == 0)
        #expect(!b.isPersisted && b.id == 0)
        b.level = 4
        try temp.db.save(b)
        #expect(b.id == 1 && b.level == 4)
    }
}

private final class R10Note: Model {
    static let tableName = "r10_note"
    var id = ""
    var body = ""
    var touched = ""
    var other = ""
    required init() {}
}

extension Review10TableFeatureTests {
    @Test func anUpdateTriggerOfAWithoutRowIDTableReachesTheInstanceItWrote() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r10_note (id TEXT PRIMARY KEY, body TEXT NOT NULL DEFAULT '', touched TEXT NOT NULL DEFAULT '', other TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
            CREATE TRIGGER r10_note_touch AFTER UPDATE OF body ON r10_note BEGIN
                UPDATE r10_note SET touched = 'touched-' || NEW.body WHERE id = NEW.id;
                UPDATE r10_note SET other = 'by ' || NEW.id WHERE id <> NEW.id;
            END;
            """)
        let a = R10Note(); a.id = "a"; a.body = "x"
        let b = R10Note(); b.id = "b"; b.body = "y"
        try temp.db.save([a, b])
        a.body = "z"
        try temp.db.save(a)
        #expect(a.touched == "touched-z")
        #expect(b.other == "by a")
        #expect(!a.hasChanges && !b.hasChanges)
        a.body = "w"
        try temp.db.transaction { try temp.db.save(a) }
        #expect(a.touched == "touched-w")
    }
}

extension Review10TableFeatureTests {
    @Test func anUpdateAUniqueOnConflictIgnoreSkipsKeepsTheInstanceAndItsChange() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '' UNIQUE ON CONFLICT IGNORE, updatedAt TEXT NOT NULL DEFAULT '', revisions INTEGER NOT NULL DEFAULT 0)")
        let a = R10Doc(); a.title = "a"; try temp.db.save(a)
        let b = R10Doc(); b.title = "b"; try temp.db.save(b)
        b.title = "a"
        let error = #expect(throws: ModelError.self) { try temp.db.save(b) }
        #expect(error?.kind == .readOnly && error?.message.contains("ON CONFLICT IGNORE") == true, "\(String(describing: error))")
        #expect(!b.isDeleted && b.title == "a" && b.hasChanges)
        #expect(try temp.db.value(String.self, "SELECT group_concat(title, ',') FROM (SELECT title FROM r10_doc ORDER BY id)") == "a,b")
        b.title = "c"
        try temp.db.save(b)
        #expect(try temp.db.value(String.self, "SELECT title FROM r10_doc WHERE id = ?", b.id) == "c")
    }
}

extension Review10TableFeatureTests {
    @Test func aTextKeyWithADefaultExpressionIsMadeByTheDatabase() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_tag (id TEXT PRIMARY KEY NOT NULL DEFAULT (lower(hex(randomblob(16)))), label TEXT NOT NULL DEFAULT '')")
        let a = R10Tag(); a.label = "a"
        try temp.db.save(a)
        let b = R10Tag(); b.label = "b"
        try temp.db.save(b)
        #expect(a.id.count == 32 && b.id.count == 32 && a.id != b.id, "\(a.id) \(b.id)")
        #expect(try temp.db.object(R10Tag.self, forKey: a.id) === a)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_tag WHERE id = ''") == 0)
        let c = R10Tag(); c.id = "mine"; c.label = "c"
        try temp.db.save(c)
        #expect(c.id == "mine")
        // Rolled back: unsaved again, with its own (empty) key, and saved later with a new one.
        struct Undo: Error {}
        let d = R10Tag(); d.label = "d"
        _ = try? temp.db.transaction {
            try temp.db.save(d)
            #expect(d.id.count == 32)
            throw Undo()
        }
        #expect(!d.isPersisted && d.id == "")
        try temp.db.save(d)
        #expect(d.id.count == 32 && d.isPersisted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r10_tag") == 4)
    }
}

private final class R10BlobKey: Model {
    static let tableName = "r10_blobkey"
    var id = UUID()
    var name = ""
    var at: Date?
    required init() {}
}

extension Review10TableFeatureTests {
    @Test func aStrictWithoutRowIDTableKeyedByABlobUUID() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r10_blobkey (id BLOB PRIMARY KEY, name TEXT NOT NULL DEFAULT '', at INTEGER) STRICT, WITHOUT ROWID")
        let a = R10BlobKey(); a.name = "a"; a.at = Date(timeIntervalSince1970: 1_700_000_000)
        try temp.db.save(a)
        #expect(try temp.db.value(String.self, "SELECT typeof(id) || length(id) || typeof(at) FROM r10_blobkey") == "blob16integer")
        #expect(try temp.db.object(R10BlobKey.self, forKey: a.id) === a)
        #expect(try temp.db.objects(R10BlobKey.self, forKeys: [a.id]).first === a)
        try temp.db.execute("UPDATE r10_blobkey SET name = 'raw'")
        #expect(a.name == "raw")
        a.name = "mine"; try temp.db.save(a)
        let again = try temp.reopen()
        let back = try #require(try again.object(R10BlobKey.self, forKey: a.id))
        #expect(back.name == "mine" && back.at == a.at)
        #expect(try again.delete(back))
        #expect(try again.value(Int.self, "SELECT count(*) FROM r10_blobkey") == 0)
    }
}
