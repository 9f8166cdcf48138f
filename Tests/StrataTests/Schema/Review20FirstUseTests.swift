import Foundation
import Testing
@testable import Strata
import StrataTestSupport

// First use, cheaper (issue 37, round 3): a table's CREATE statement searched for its five words in one pass,
// a column's affinity found once, DEFAULT NULL and the literals Strata writes compared without making strings,
// shadow tables looked for only where the catalog has a virtual table. What sync decides must not change.

/// A model over a table another tool made, with defaults of every kind the fast paths read.
private final class R20Item: Model {
    static let tableName = "r20_item"
    var id: Int64 = 0
    var name = ""
    var n: Int64 = 0
    var note: String?
    var qty: Int64 = 0
    var label = "plain"
    required init() {}
}

/// An ordinary model, used first, so that the handle's schema catalog is read before any virtual table exists.
private final class R20Plain: Model {
    static let tableName = "r20_plain"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

/// FTS5 `r20_notes`'s content table.
private final class R20NotesContent: Model {
    static let tableName = "r20_notes_content"
    var id: Int64 = 0
    var c0: String?
    var c1: String?
    required init() {}
}

@Suite struct Review20FirstUseTests {
    @Test func mentionsAnyOfAgreesWithOneWordAtATime() {
        let words = ["without", "strict", "references", "replace", "virtual"]
        let statements = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT) WITHOUT ROWID",
            "CREATE TABLE t(a, b) Strict",
            "CREATE TABLE c(p INTEGER REFERENCES parent(id) ON DELETE CASCADE, UNIQUE (p) ON CONFLICT REPLACE)",
            "CREATE VIRTUAL TABLE v USING fts5(x)",
            "CREATE TABLE \"Ärger\"(id INTEGER PRIMARY KEY, \"référence\" TEXT, refer TEXT, replac TEXT, withou INT)",
            "", "strict", "STRIC", "xreferencesx",
        ]
        for sql in statements {
            #expect(SQL.mentions(sql, anyOf: words) == words.map { SQL.mentions(sql, $0) }, "\(sql)")
        }
        #expect(SQL.mentions(statements[2], anyOf: words) == [false, false, true, true, false])
        #expect(SQL.mentions("CREATE TABLE t(a) STRICT", anyOf: ["without", "strict"]) == [false, true])
        // Words that are not lowercase ASCII letters first are looked for one at a time, with the same answers.
        #expect(SQL.mentions("a_b x1", anyOf: ["_b", "x1", "zz"]) == ["_b", "x1", "zz"].map { SQL.mentions("a_b x1", $0) })
        #expect(SQL.mentions("a_b x1", anyOf: ["x1", "zz"]) == [true, false])
    }

    @Test func defaultNullIsReadInEverySpelling() {
        func column(_ defaultSQL: String?) -> ColumnInfo {
            ColumnInfo(name: "c", declaredType: "TEXT", notNull: false, defaultSQL: defaultSQL, primaryKeyPosition: 0, hidden: 0)
        }
        // (Spaces and parentheses anywhere are skipped, as they were: `N ULL` and `(NULL` read as NULL too.)
        let null: [String?] = [nil, "NULL", "null", "Null", "(NULL)", " ( null ) ", "((NULL))", "\tNULL\n", "\u{00A0}NULL", "N ULL", "(NULL"]
        let notNull = ["0", "''", "'NULL'", "NULLX", "NUL", "x", "NULL1", "nullé", "\u{00A0}NUL"]
        #expect(null.map { column($0).defaultIsNull } == null.map { _ in true })
        #expect(notNull.map { column($0).defaultIsNull } == notNull.map { _ in false })
    }

    @Test func defaultsCompareWithTheValuesAsBefore() {
        #expect(TableMapping.default("0", is: .integer(0)))
        #expect(TableMapping.default("(0)", is: .integer(0)))
        #expect(TableMapping.default("-12", is: .integer(-12)))
        #expect(!TableMapping.default("7", is: .integer(0)))
        #expect(TableMapping.default("0.0", is: .integer(0)))
        #expect(TableMapping.default("''", is: .text("")))
        #expect(TableMapping.default("'plain'", is: .text("plain")))
        #expect(!TableMapping.default("'plain'", is: .text("plai")))
        #expect(!TableMapping.default("'plai'", is: .text("plain")))
        #expect(TableMapping.default("'it''s'", is: .text("it's")))
        #expect(!TableMapping.default("'it's'", is: .text("it's")))
        // Canonically equal text (é precomposed in the SQL, decomposed in the value) matched before and still does.
        #expect(TableMapping.default("'caf\u{E9}'", is: .text("cafe\u{301}")))
        #expect(TableMapping.default("0", is: .real(0)))
        #expect(TableMapping.default("NULL", is: .null))
    }

    @Test func aTableWithDefaultsOfEveryKindIsInSyncAndAnInsertLeavesItsOwnDefaults() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r20_item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'it''s', n INTEGER NOT NULL DEFAULT (7),
                note TEXT DEFAULT NULL, qty BIGINT NOT NULL DEFAULT 0, label varchar(20) NOT NULL DEFAULT 'plain');
            CREATE INDEX r20_item_n ON r20_item(n);
            """)
        #expect(try db.schemaPlan(for: R20Item.self).isEmpty)
        let item = R20Item()
        try db.save(item)
        // name and n have defaults of their own (not the init() values): the insert leaves them to SQLite; note's
        // DEFAULT NULL and qty's and label's, equal to the init() values, are written.
        let row = try db.rows("SELECT quote(name), quote(n), quote(note), quote(qty), typeof(qty), quote(label) FROM r20_item")
        #expect(row.map { $0.values } == [[.text("'it''s'"), .text("7"), .text("NULL"), .text("0"), .text("integer"), .text("'plain'")]])
        #expect(item.name == "it's" && item.n == 7 && item.note == nil && item.qty == 0 && item.label == "plain")
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'r20_item'")?.contains("label varchar(20)") == true)
    }

    @Test func aShadowTableMadeAfterTheCatalogWasReadIsStillReadOnly() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let plain = R20Plain()
        plain.title = "first"
        try db.save(plain)   // the catalog is read now: no virtual table yet
        try db.execute("""
            CREATE VIRTUAL TABLE r20_notes USING fts5(title, body);
            INSERT INTO r20_notes(title, body) VALUES ('one', 'alpha');
            """)
        let rows = try db.objects(R20NotesContent.self)
        #expect(rows.map(\.c0) == ["one"])
        rows[0].c0 = "changed"
        let error = #expect(throws: ModelError.self) { try db.save(rows[0]) }
        #expect(error?.kind == .readOnly)
        #expect(error?.message.contains("shadow table of the FTS5 table \"r20_notes\"") == true)
        #expect(try db.value(String.self, "SELECT c0 FROM r20_notes_content") == "one")
    }
}
