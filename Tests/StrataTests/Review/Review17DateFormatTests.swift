import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 17, issue 33 point 2: a column of date text whose layout changes mid-table (Northwind's
// `Orders.OrderDate`: days first, then dates with a time). No change is dropped because the column's
// format cannot express it: each value is written in its own row's layout where that holds it, else in
// the most precise layout the column holds; changes are compared at that precision.

private final class R17Order: Model {
    static let tableName = "r17_orders"
    var id: Int64 = 0
    var orderDate = Date(timeIntervalSince1970: 0)
    var shippedDate: Date?
    required init() {}
}

private final class R17Stamp: Model {
    static let tableName = "r17_stamps"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

private let hour: TimeInterval = 3600, day: TimeInterval = 86_400

/// Seconds since 1970 of a UTC date text, as SQLite reads it.
private func seconds(_ text: String) throws -> Date {
    Date(timeIntervalSince1970: try #require(DateText.secondsSince1970(text)))
}

/// `r17_orders` (declared DATETIME) with `count` rows: rows 1 to `split` hold `first(i)`, the others
/// `second(i)`, each an SQL expression of `i`; `shippedDate` as `orderDate` in even rows, NULL in odd ones.
private func orders(_ db: Database, declared: String = "DATETIME", count: Int = 300, split: Int = 130,
                    first: String, second: String) throws {
    try db.execute("CREATE TABLE r17_orders (id INTEGER PRIMARY KEY, orderDate \(declared) NOT NULL, shippedDate \(declared))")
    try db.execute("""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
        INSERT INTO r17_orders SELECT i, d, CASE WHEN i % 2 = 0 THEN d END
        FROM (SELECT i, CASE WHEN i <= \(split) THEN \(first) ELSE \(second) END AS d FROM n)
        """)
}

/// Days from 2016-07-04 (`date()`), and dates with a time from 2015-01-03 22:26:44 (`datetime()`), one a row.
private let days = "date('2016-07-04', '+' || (i - 1) || ' days')"
private let stamps = "datetime('2015-01-03 22:26:44', '+' || (i - 131) || ' days')"

/// `quote(column)` of row `id`: the stored bytes, text in quotes.
private func quoted(_ db: Database, _ id: Int64, _ column: String = "orderDate", table: String = "r17_orders") throws -> String? {
    try db.value(String.self, "SELECT quote(\(column)) FROM \(table) WHERE id = ?", id)
}

/// Changes `object` with `change`, checks it has changes, saves it with exactly one UPDATE, and checks a
/// second save runs nothing.
private func saveOne<M: Model>(_ db: Database, _ object: M, _ change: (M) -> Void,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
    change(object)
    #expect(object.hasChanges, sourceLocation: sourceLocation)
    let ran = try statements(db) { try db.save(object) }
    #expect(ran.filter { $0.hasPrefix("UPDATE") }.count == 1, "\(ran)", sourceLocation: sourceLocation)
    #expect(!object.hasChanges, sourceLocation: sourceLocation)
    #expect(try statements(db) { try db.save(object) } == [], sourceLocation: sourceLocation)
}

/// Every row's `orderDate` and `shippedDate` read by a new handle equal the live instances'.
private func agreeAfterReopen(_ temp: TemporaryDatabase, _ live: [R17Order], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let values = live.map { ($0.id, $0.orderDate, $0.shippedDate) }
    let db = try temp.reopen()
    for (id, orderDate, shippedDate) in values {
        let fresh = try #require(try db.object(R17Order.self, forKey: id), sourceLocation: sourceLocation)
        #expect(fresh.orderDate == orderDate && fresh.shippedDate == shippedDate, "row \(id)", sourceLocation: sourceLocation)
    }
}

@Suite struct Review17DateFormatTests {
    /// Northwind's shape: days in the first 130 rows (all the format sample's first 100 see), then dates
    /// with a time. A time added to a dated row is written with its time, a day added keeps it, a day row
    /// keeps its layout while it holds a day, and a new row takes the layout with the time.
    @Test func daysFirstThenDatesWithATimeLoseNoEdit() throws {
        let temp = try TemporaryDatabase()
        try orders(temp.db, first: days, second: stamps)
        let db = try temp.reopen()
        let rows = try db.objects(R17Order.self, where: "WHERE id IN (1, 2, 131, 132) ORDER BY id")
        #expect(rows.allSatisfy { !$0.hasChanges })
        #expect(try statements(db) { for row in rows { try db.save(row) } } == [])

        try saveOne(db, rows[3]) { $0.orderDate += hour }       // was: no change, no SQL, the hour lost
        #expect(try quoted(db, 132) == "'2015-01-04 23:26:44'")
        try saveOne(db, rows[2]) { $0.orderDate += day }        // was: '2015-01-04', the time dropped
        #expect(try quoted(db, 131) == "'2015-01-04 22:26:44'")
        try saveOne(db, rows[0]) { $0.orderDate += day }        // a day stays a day in a day row
        #expect(try quoted(db, 1) == "'2016-07-05'")
        try saveOne(db, rows[1]) { $0.orderDate += hour }       // the hour kept, in the column's layout with a time
        #expect(try quoted(db, 2) == "'2016-07-05 01:00:00'")

        let new = R17Order(); new.orderDate = try seconds("2016-08-01")
        try db.save(new)
        #expect(try quoted(db, new.id) == "'2016-08-01 00:00:00'")
        #expect(try db.value(String.self, "SELECT group_concat(DISTINCT typeof(orderDate)) FROM r17_orders") == "text")
        try agreeAfterReopen(temp, rows + [new])
    }

    /// The other order: dates with a time first, days after them. Day rows keep their layout while they
    /// hold a day; a time added to one is written in the layout with a time.
    @Test func datesWithATimeFirstThenDaysLoseNoEdit() throws {
        let temp = try TemporaryDatabase()
        try orders(temp.db, first: "datetime('2015-01-03 22:26:44', '+' || (i - 1) || ' days')",
                   second: "date('2016-07-04', '+' || (i - 131) || ' days')")
        let db = try temp.reopen()
        let rows = try db.objects(R17Order.self, where: "WHERE id IN (1, 2, 131, 132) ORDER BY id")
        #expect(try statements(db) { for row in rows { try db.save(row) } } == [])
        try saveOne(db, rows[2]) { $0.orderDate += day }
        #expect(try quoted(db, 131) == "'2016-07-05'")                 // was: '2016-07-05 00:00:00'
        try saveOne(db, rows[3]) { $0.orderDate += hour }
        #expect(try quoted(db, 132) == "'2016-07-05 01:00:00'")
        try saveOne(db, rows[0]) { $0.orderDate += day }
        #expect(try quoted(db, 1) == "'2015-01-04 22:26:44'")
        let new = R17Order(); new.orderDate = try seconds("2016-08-01 10:11:12")
        try db.save(new)
        #expect(try quoted(db, new.id) == "'2016-08-01 10:11:12'")
        try agreeAfterReopen(temp, rows + [new])
    }

    /// The other layouts of date text Strata recognises, after days: `T`, 3 and 6 fraction digits, `Z` and
    /// `+00:00`. A time on a day row takes the column's layout; a dated row keeps its own.
    @Test(arguments: [
        ("strftime('%Y-%m-%dT%H:%M:%S', '2015-01-03 22:26:44', '+' || (i - 131) || ' days')", "'2016-07-05T01:00:00'", "'2015-01-04T22:26:44'"),
        ("strftime('%Y-%m-%d %H:%M:%f', '2015-01-03 22:26:44.125', '+' || (i - 131) || ' days')", "'2016-07-05 01:00:00.000'", "'2015-01-04 22:26:44.125'"),
        ("strftime('%Y-%m-%dT%H:%M:%f000Z', '2015-01-03 22:26:44.125', '+' || (i - 131) || ' days')", "'2016-07-05T01:00:00.000000Z'", "'2015-01-04T22:26:44.125000Z'"),
        ("strftime('%Y-%m-%dT%H:%M:%S+00:00', '2015-01-03 22:26:44', '+' || (i - 131) || ' days')", "'2016-07-05T01:00:00+00:00'", "'2015-01-04T22:26:44+00:00'"),
    ])
    func otherTextLayoutsAfterDays(second: String, dayPlusHour: String, datedPlusDay: String) throws {
        let temp = try TemporaryDatabase()
        try orders(temp.db, first: days, second: second)
        let db = try temp.reopen()
        let rows = try db.objects(R17Order.self, where: "WHERE id IN (1, 2, 131) ORDER BY id")
        #expect(try statements(db) { for row in rows { try db.save(row) } } == [])
        try saveOne(db, rows[1]) { $0.orderDate += hour }
        #expect(try quoted(db, 2) == dayPlusHour)
        try saveOne(db, rows[2]) { $0.orderDate += day }
        #expect(try quoted(db, 131) == datedPlusDay)
        try saveOne(db, rows[0]) { $0.orderDate += day }
        #expect(try quoted(db, 1) == "'2016-07-05'")
        try agreeAfterReopen(temp, rows)
    }

    /// A column of days only. Declared DATETIME or TEXT (no tool's date-only type), a value with a time is
    /// written with it, in Python's `YYYY-MM-DD HH:MM:SS[.ffffff]`, and a day stays a day. Dates with a time
    /// in rows the format sample does not see keep their layout. Declared DATE (Django's, SQLAlchemy's and
    /// peewee's date-only type; Django reads a time there as no date), the day is kept, as documented.
    @Test func aColumnOfDaysTakesATimeUnlessDeclaredDate() throws {
        for declared in ["DATETIME", "TEXT"] {
            let temp = try TemporaryDatabase()
            try orders(temp.db, declared: declared, first: days,
                       second: "CASE WHEN i <= 140 THEN datetime('2015-01-03 22:26:44', '+' || (i - 131) || ' days') ELSE date('2016-07-04') END")
            let db = try temp.reopen()
            let rows = try db.objects(R17Order.self, where: "WHERE id IN (1, 2, 131) ORDER BY id")
            try saveOne(db, rows[0]) { $0.orderDate += 13 * hour + 14 * 60 + 15.25 }   // was: no change
            #expect(try quoted(db, 1) == "'2016-07-04 13:14:15.250000'", "\(declared)")
            try saveOne(db, rows[1]) { $0.orderDate += day }
            #expect(try quoted(db, 2) == "'2016-07-06'", "\(declared)")
            try saveOne(db, rows[2]) { $0.orderDate += hour }                           // was: '2015-01-03'
            #expect(try quoted(db, 131) == "'2015-01-03 23:26:44'", "\(declared)")
            let new = R17Order(); new.orderDate = try seconds("2016-08-01 10:11:12")
            let midnight = R17Order(); midnight.orderDate = try seconds("2016-08-02")
            try db.save([new, midnight])
            #expect(try quoted(db, new.id) == "'2016-08-01 10:11:12'" && quoted(db, midnight.id) == "'2016-08-02'", "\(declared)")
            try agreeAfterReopen(temp, rows + [new, midnight])
        }
        let temp = try TemporaryDatabase()
        try orders(temp.db, declared: "DATE", first: days, second: days)
        let db = try temp.reopen()
        let row = try #require(try db.object(R17Order.self, forKey: 1))
        row.orderDate += hour
        #expect(!row.hasChanges)
        row.orderDate += day
        try db.save(row)
        #expect(try quoted(db, 1) == "'2016-07-05'")
    }

    /// Unix time: a column of REAL seconds whose first rows are whole seconds (stored as INTEGER by a
    /// NUMERIC column) keeps a fraction added to any row; a column of INTEGER seconds only holds whole ones.
    @Test func unixTimeColumnsKeepTheFractionTheyHold() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r17_stamps (id INTEGER PRIMARY KEY, at NUMERIC NOT NULL)")
        try temp.db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO r17_stamps SELECT i, CASE WHEN i <= 130 THEN 1700000000 + i ELSE 1700000000.5 + i END FROM n
            """)
        let db = try temp.reopen()
        let whole = try #require(try db.object(R17Stamp.self, forKey: 1))
        let half = try #require(try db.object(R17Stamp.self, forKey: 200))
        try saveOne(db, whole) { $0.at += 0.25 }                 // was: no change (taken for INTEGER seconds)
        try saveOne(db, half) { $0.at += 0.25 }
        #expect(try db.rows("SELECT quote(at), typeof(at) FROM r17_stamps WHERE id IN (1, 200) ORDER BY id").map { [$0[0], $0[1]] }
            == [[.text("1700000001.25"), .text("real")], [.text("1700000200.75"), .text("real")]])
        let again = try temp.reopen()
        #expect(try again.object(R17Stamp.self, forKey: 1)?.at.timeIntervalSince1970 == 1_700_000_001.25)

        let integers = try TemporaryDatabase()
        try integers.db.execute("CREATE TABLE r17_stamps (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)")
        try integers.db.execute("INSERT INTO r17_stamps VALUES (1, 1700000000), (2, 1700000001)")
        let idb = try integers.reopen()
        let stamp = try #require(try idb.object(R17Stamp.self, forKey: 2))
        stamp.at += 0.25
        #expect(!stamp.hasChanges)            // the column holds whole seconds only: the same second
        stamp.at += 1
        try idb.save(stamp)
        #expect(try quoted(idb, 2, "at", table: "r17_stamps") == "1700000002")
    }

    /// Optional dates over the same mixed column: NULL to a date, a date to NULL, and a time on a day row.
    @Test func optionalDatesInAMixedColumn() throws {
        let temp = try TemporaryDatabase()
        try orders(temp.db, first: days, second: stamps)
        let db = try temp.reopen()
        let rows = try db.objects(R17Order.self, where: "WHERE id IN (1, 2, 132) ORDER BY id")
        #expect(rows[0].shippedDate == nil && rows.allSatisfy { !$0.hasChanges })
        try saveOne(db, rows[0]) { $0.shippedDate = try? seconds("2016-07-09 08:00:00") }
        #expect(try quoted(db, 1, "shippedDate") == "'2016-07-09 08:00:00'")
        try saveOne(db, rows[1]) { $0.shippedDate = $0.shippedDate.map { $0 + 2 * hour } }   // was: no change
        #expect(try quoted(db, 2, "shippedDate") == "'2016-07-05 02:00:00'")
        try saveOne(db, rows[1]) { $0.shippedDate = $0.shippedDate.map { $0 - 2 * hour + day } }
        #expect(try quoted(db, 2, "shippedDate") == "'2016-07-06 00:00:00'")               // the row's layout is now the timed one
        try saveOne(db, rows[2]) { $0.shippedDate = nil }
        #expect(try quoted(db, 132, "shippedDate") == "NULL")
        try agreeAfterReopen(temp, rows)
    }

    /// Through a pool's writer, and a batch save of several rows of both layouts in one transaction.
    @Test func aPoolAndABatchSaveLoseNoEdit() throws {
        let temp = try TemporaryDatabase()
        try orders(temp.db, first: days, second: stamps)
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        let stored = try pool.blocking.write { db -> [String?] in
            let rows = try db.objects(R17Order.self, where: "WHERE id IN (3, 4, 133, 134) ORDER BY id")
            rows[0].orderDate += day
            rows[1].orderDate += hour
            rows[2].orderDate += day
            rows[3].orderDate += 30
            let changed = rows.map(\.hasChanges)
            let ran = try statements(db) { try db.save(rows) }
            guard changed == [true, true, true, true], ran.filter({ $0.hasPrefix("UPDATE") }).count == 4,
                  try statements(db, { try db.save(rows) }).isEmpty else { return ["\(changed) \(ran)"] }
            return try [3, 4, 133, 134].map { try quoted(db, $0) }
        }
        #expect(stored == ["'2016-07-07'", "'2016-07-07 01:00:00'", "'2015-01-06 22:26:44'", "'2015-01-06 22:27:14'"])
        let read = try pool.blocking.read { db in try db.objects(R17Order.self, where: "WHERE id IN (3, 4, 133, 134) ORDER BY id").map(\.orderDate) }
        #expect(try read == ["2016-07-07", "2016-07-07 01:00:00", "2015-01-06 22:26:44", "2015-01-06 22:27:14"].map(seconds))
    }
}
