import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 16: other tools' column formats (Django, SQLAlchemy, peewee) beyond the Item-like tables of
// Fixtures/interop, each with the DDL and stored values the tool itself made.

private final class R16IntTimeAsDate: Model {
    static let tableName = "r16_time"
    var id: Int64 = 0
    var at_time = Date(timeIntervalSince1970: 0)
    required init() {}
}

private final class R16IntTimeAsString: Model {
    static let tableName = "r16_time"
    var id: Int64 = 0
    var at_time = "00:00:00"
    required init() {}
}

private final class R16IntTimeAsValue: Model {
    static let tableName = "r16_time"
    var id: Int64 = 0
    var at_time = SQLValue.text("00:00:00")
    required init() {}
}

private struct R16IntDoc: JSONColumnValue, Equatable {
    var a: [Int]
    var b: String
}

/// Django's `JSONField`s (`text` with a JSON_VALID check), a plain text column, and a column whose check
/// names another column's JSON_VALID.
private final class R16IntMemo: Model {
    static let tableName = "ext_memo"
    var id: Int64 = 0
    var data = R16IntDoc(a: [], b: "")
    var extra: R16IntDoc?
    var plain = R16IntDoc(a: [], b: "")
    var other = R16IntDoc(a: [], b: "")
    required init() {}
}

struct Review16InteropTests {
    /// Django's `TimeField` (`time`), SQLAlchemy's and peewee's `Time` (`TIME`) hold 'HH:MM:SS[.ffffff]' text
    /// in a NUMERIC column. A `Date` property synced there: over an empty table Strata wrote REAL seconds
    /// (Django's `parse_time` then fails on a float), and the sync error over a `String` property told the user
    /// to declare the property as `Date`. Now a Date is refused at sync with the column's kind named, and the
    /// remedy is SQLValue, which reads and writes the tool's text.
    @Test func aTimeOfDayColumnRefusesADateAndNamesSQLValue() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "r16_time" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "at_time" time NOT NULL)"#)
        let error = try #require(throws: (any Error).self) { try db.schemaPlan(for: R16IntTimeAsDate.self) }
        let message = "\(error)"
        #expect(message.contains("\"at_time\"") && message.contains("a time of day") && message.contains("Declare the property as SQLValue"))
        let event = R16IntTimeAsDate()
        #expect(throws: (any Error).self) { try db.save(event) }
        #expect(try db.value(Int64.self, "SELECT count(*) FROM r16_time") == 0)
        // A String there is refused too (NUMERIC affinity), and the remedy is SQLValue, not Date.
        let stringError = try #require(throws: (any Error).self) { try db.schemaPlan(for: R16IntTimeAsString.self) }
        #expect("\(stringError)".contains("Declare the property as SQLValue") && !"\(stringError)".contains("as Date"))

        // SQLValue reads and writes the tool's text.
        try db.execute("INSERT INTO r16_time (id, at_time) VALUES (1, '13:14:15.123456'), (2, '01:02:03')")
        #expect(try db.schemaPlan(for: R16IntTimeAsValue.self).isEmpty)
        let rows = try db.objects(R16IntTimeAsValue.self, where: "ORDER BY id")
        #expect(rows.map(\.at_time) == [.text("13:14:15.123456"), .text("01:02:03")])
        rows[1].at_time = .text("23:59:59.500000")
        try db.save(rows[1])
        let new = R16IntTimeAsValue()
        try db.save(new)
        #expect(try db.rows("SELECT typeof(at_time) AS k, at_time AS t FROM r16_time ORDER BY id").map { [$0["k"], $0["t"]] }
                == [[.text("text"), .text("13:14:15.123456")], [.text("text"), .text("23:59:59.500000")], [.text("text"), .text("00:00:00")]])

        // Which declared types are a time of day.
        for type in ["time", "TIME", "TIME(6)", " time without time zone", "TIMETZ"] { #expect(Affinity.isTimeOfDay(type), "\(type)") }
        for type in ["datetime", "TIMESTAMP", "timestamp with time zone", "DATE", "TIMEINTERVAL", "", "text"] { #expect(!Affinity.isTimeOfDay(type), "\(type)") }
        #expect(Affinity.swiftTypes(declaredType: "time") == "SQLValue" && Affinity.swiftTypes(declaredType: "datetime") == "Date")
    }

    /// An empty column of Django's `JSONField` (`text` with `CHECK ((JSON_VALID("data") OR "data" IS NULL))`)
    /// took Strata's own compact layout with raw UTF-8: Django's exact lookup (`filter(data={…})`, text
    /// equality with json.dumps's output) missed the row, and the column, once Django wrote its own rows
    /// beside it, held two layouts (which then kept Strata on its own). It now takes json.dumps's layout, as
    /// a column with Django's rows does; a plain text column, or one whose check is about another column,
    /// keeps Strata's.
    @Test func anEmptyDjangoJSONFieldTakesJSONDumpsLayout() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE "ext_memo" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "data" text NOT NULL CHECK ((JSON_VALID("data") OR "data" IS NULL)),             "extra" text NULL CHECK ((JSON_VALID("extra") OR "extra" IS NULL)), "plain" text NOT NULL, "other" text NOT NULL CHECK (JSON_VALID("plain")))
            """)
        let memo = R16IntMemo()
        memo.data = R16IntDoc(a: [3, 4], b: "ü ✓")
        memo.extra = R16IntDoc(a: [], b: "é")
        memo.plain = memo.data
        memo.other = memo.data
        try db.save(memo)
        let row = try #require(try db.rows("SELECT data, extra, plain, other FROM ext_memo").first)
        #expect(row["data"] == .text(#"{"a": [3, 4], "b": "\u00fc \u2713"}"#))
        #expect(row["extra"] == .text(#"{"a": [], "b": "\u00e9"}"#))
        #expect(row["plain"] == .text(#"{"a":[3,4],"b":"ü ✓"}"#) && row["other"] == row["plain"])
        #expect(memo.changedProperties.isEmpty)
        // The next handle decides from the rows: the same layouts.
        let again = try temp.reopen()
        let second = R16IntMemo()
        second.data = R16IntDoc(a: [], b: "ß")
        second.plain = second.data
        second.other = second.data
        try again.save(second)
        #expect(try again.value(String.self, "SELECT data FROM ext_memo WHERE id = 2") == #"{"a": [], "b": "\u00df"}"#)
        #expect(try again.value(String.self, "SELECT plain FROM ext_memo WHERE id = 2") == #"{"a":[],"b":"ß"}"#)
        #expect(try again.objects(R16IntMemo.self, where: \.data == R16IntDoc(a: [3, 4], b: "ü ✓")).map(\.id) == [1])
        #expect(JSONStyle.declaredByDjango(column: "data", tableSQL: #"CREATE TABLE t (data text CHECK ((json_valid([data]))))"#))
        #expect(!JSONStyle.declaredByDjango(column: "data", tableSQL: #"CREATE TABLE t (data text, CHECK (json_valid(data)))"#))
    }
}
