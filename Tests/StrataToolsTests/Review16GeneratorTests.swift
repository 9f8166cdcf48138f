import Foundation
import Testing
import Strata
import StrataTestSupport
@testable import StrataTools

// Review 16: `strata generate` over the columns other tools declare beyond Fixtures/interop's Item tables.

@Suite struct Review16GeneratorTests {
    /// Django's `TimeField` is `time NOT NULL` ('13:14:15.123456' text, NUMERIC affinity): the generated
    /// property was a `Double`, which cannot read a single row (and wrote REAL seconds, which Django's
    /// parse_time fails on). A time of day is now SQLValue, NOT NULL included, starting at midnight; the
    /// model syncs with an empty plan and reads and writes the tool's text.
    /// SQLAlchemy's `JSON` NOT NULL (`data JSON NOT NULL`, NUMERIC affinity, holding `{"a": [1, 2]}`) was
    /// generated as a `Double`, which read none of its rows ("SQLValue cannot be NOT NULL", said the note;
    /// sync accepts a non-optional SQLValue over NOT NULL). It is SQLValue now, starting at `null`, the text
    /// SQLAlchemy stores for None; the generated model syncs, reads every row and inserts.
    @Test func aNotNullJSONColumnBecomesSQLValue() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE docs (\n\tid INTEGER NOT NULL, \n\tdata JSON NOT NULL, \n\tnote JSON, \n\tPRIMARY KEY (id)\n)")
        try db.execute(#"INSERT INTO docs (data, note) VALUES ('{"a": [1, 2], "b": "\u00e9"}', 'null'), ('[]', NULL), ('2.5', '"x"')"#)
        let table = try #require(try DatabaseSchema(reading: db).tables.first { $0.name == "docs" })
        #expect(ModelGenerator().model(for: table).source == """
            final class Docs: Model {
                static let tableName = "docs"
                var id: Int64 = 0
                var data: SQLValue = .text("null")  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
                var note: SQLValue = .null  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
                required init() {}
            }
            """)
        #expect(try db.schemaPlan(for: Docs.self).isEmpty)
        let rows = try db.objects(Docs.self, where: "ORDER BY id")
        #expect(rows.map(\.data) == [.text(#"{"a": [1, 2], "b": "\u00e9"}"#), .text("[]"), .real(2.5)])
        try db.save(Docs())
        #expect(try db.value(String.self, "SELECT data FROM docs WHERE id = 4") == "null")
    }

    @Test func aTimeOfDayColumnBecomesSQLValue() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "ext_opening" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "at_time" time NOT NULL, "closes" TIME, "since" datetime NOT NULL)"#)
        try db.execute("INSERT INTO ext_opening (at_time, closes, since) VALUES ('13:14:15.123456', '18:00:00', '2024-01-02 03:04:05')")
        let schema = try DatabaseSchema(reading: db)
        let table = try #require(schema.tables.first { $0.name == "ext_opening" })
        #expect(ModelGenerator().model(for: table).source == """
            final class ExtOpening: Model {
                static let tableName = "ext_opening"
                var id: Int64 = 0
                var at_time: SQLValue = .text("00:00:00")  // a time of day: .text("13:14:15.123456") as the tool stores it
                var closes: SQLValue = .null  // a time of day: .text("13:14:15.123456") as the tool stores it
                var since: Date = Date(timeIntervalSince1970: 0)
                required init() {}
            }
            """)
        // The generated class, as written: an empty plan, every row read, a save and an insert in the tool's text.
        #expect(try db.schemaPlan(for: ExtOpening.self).isEmpty)
        let row = try #require(try db.object(ExtOpening.self, forKey: 1))
        #expect(row.at_time == .text("13:14:15.123456") && row.closes == .text("18:00:00"))
        row.closes = .text("19:30:00")
        try db.save(row)
        try db.save(ExtOpening())
        #expect(try db.rows("SELECT at_time, closes FROM ext_opening ORDER BY id").map { [$0["at_time"], $0["closes"]] }
                == [[.text("13:14:15.123456"), .text("19:30:00")], [.text("00:00:00"), .null]])
    }
}

private final class Docs: Model {
    static let tableName = "docs"
    var id: Int64 = 0
    var data: SQLValue = .text("null")  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
    var note: SQLValue = .null  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
    required init() {}
}

private final class ExtOpening: Model {
    static let tableName = "ext_opening"
    var id: Int64 = 0
    var at_time: SQLValue = .text("00:00:00")
    var closes: SQLValue = .null
    var since: Date = Date(timeIntervalSince1970: 0)
    required init() {}
}
