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
}
