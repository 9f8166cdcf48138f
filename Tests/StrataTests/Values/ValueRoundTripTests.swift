import Foundation
import Testing
@testable import Strata

// Every value type goes through a real table: bound with `execute`, stored by SQLite, read back with
// `db.value` or `Row.decode`. The column is declared with the type's own `columnType`, as the schema
// layer would declare it, so SQLite's affinity rules apply just as they will for models.

private enum Status: String, ColumnValue, CaseIterable {
    case draft, published, archived
}

private enum Priority: Int, ColumnValue {
    case low = 1, high = 9
}

private struct Address: Codable, Equatable, JSONColumnValue {
    var street: String
    var city: String
    var zip: Int?
    var tags: [String]
}

/// A fresh table `t(v <T's column type>)`, the value inserted with a bound argument, and what SQLite holds.
/// (Bound as its `sqlValue`: an array or set passed bare would expand to one placeholder per element.)
private func store<T: ColumnValue>(_ value: T, in db: Database) throws -> SQLValue {
    try db.execute("DROP TABLE IF EXISTS t")
    try db.execute("CREATE TABLE t(v \(T.columnType.rawValue))")
    try db.execute("INSERT INTO t(v) VALUES (?)", try value.sqlValue)
    let rows = try db.rows("SELECT v FROM t")
    try #require(rows.count == 1)
    return rows[0][0]
}

/// Stores `value` and reads it back through `db.value`.
private func roundTrip<T: ColumnValue>(_ value: T, in db: Database) throws -> T? {
    _ = try store(value, in: db)
    return try db.value(T.self, "SELECT v FROM t")
}

/// Stores `value` and reads it back through `Row.decode` (which, unlike `db.value`, sees NULL).
private func roundTripRow<T: ColumnValue>(_ value: T, in db: Database) throws -> T {
    _ = try store(value, in: db)
    let row = try #require(try db.rows("SELECT v FROM t").first)
    return try row.decode("v", as: T.self)
}

private func typeOf(_ db: Database) throws -> String? {
    try db.value(String.self, "SELECT typeof(v) FROM t")
}

/// Seconds since 1970 of a UTC calendar date, computed by Foundation (independently of Strata's parser).
private func utcSeconds(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) throws -> Double {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return try #require(calendar.date(from: components)).timeIntervalSince1970
}

// MARK: - Integers

private func checkIntegerRoundTrips<T: FixedWidthInteger & ColumnValue>(_ type: T.Type) throws {
    let db = try Database()
    #expect(T.columnType == .integer)
    var values: [T] = [T.min, 0, 1, T(clamping: Int64.max), T(clamping: 42)]
    if T.isSigned { values.append(T(clamping: -1)) }
    for value in values {
        let stored = try store(value, in: db)
        #expect(stored == .integer(Int64(value)), "\(T.self) \(value) stored as \(stored)")
        #expect(try typeOf(db) == "integer")
        #expect(try db.value(T.self, "SELECT v FROM t") == value)
        #expect(try db.rows("SELECT v FROM t")[0].decode("v", as: T.self) == value)
    }
}

@Test func intRoundTrips() throws { try checkIntegerRoundTrips(Int.self) }
@Test func int8RoundTrips() throws { try checkIntegerRoundTrips(Int8.self) }
@Test func int16RoundTrips() throws { try checkIntegerRoundTrips(Int16.self) }
@Test func int32RoundTrips() throws { try checkIntegerRoundTrips(Int32.self) }
@Test func int64RoundTrips() throws { try checkIntegerRoundTrips(Int64.self) }
@Test func uintRoundTrips() throws { try checkIntegerRoundTrips(UInt.self) }
@Test func uint8RoundTrips() throws { try checkIntegerRoundTrips(UInt8.self) }
@Test func uint16RoundTrips() throws { try checkIntegerRoundTrips(UInt16.self) }
@Test func uint32RoundTrips() throws { try checkIntegerRoundTrips(UInt32.self) }
@Test func uint64RoundTrips() throws { try checkIntegerRoundTrips(UInt64.self) }

@Test func int64ExtremesRoundTrip() throws {
    let db = try Database()
    #expect(try store(Int64.min, in: db) == .integer(Int64.min))
    #expect(try db.value(Int64.self, "SELECT v FROM t") == Int64.min)
    #expect(try store(Int64.max, in: db) == .integer(Int64.max))
    #expect(try db.value(Int64.self, "SELECT v FROM t") == Int64.max)
    #expect(try roundTrip(UInt64(Int64.max), in: db) == UInt64(Int64.max))
}

@Test(arguments: [UInt64(Int64.max) + 1, UInt64.max])
func uint64AboveInt64MaxThrowsOnBind(value: UInt64) throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v INTEGER)")
    let error = try #require(throws: ValueConversionError.self) {
        try db.execute("INSERT INTO t(v) VALUES (?)", value)
    }
    #expect(error.found == .text(String(value)))
    #expect(throws: ValueConversionError.self) { try db.execute("INSERT INTO t(v) VALUES (?)", UInt(value)) }
    #expect(throws: ValueConversionError.self) { try db.execute("INSERT INTO t(v) VALUES (?)", UInt64?.some(value)) }
    // Nothing was written, in particular no wrapped negative number.
    #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
}

@Test func negativeIntegerDoesNotReadAsUnsigned() throws {
    let db = try Database()
    _ = try store(Int64(-1), in: db)
    #expect(throws: ValueConversionError.self) { _ = try db.value(UInt64.self, "SELECT v FROM t") }
    #expect(throws: ValueConversionError.self) { _ = try db.value(UInt8.self, "SELECT v FROM t") }
    _ = try store(300, in: db)
    #expect(throws: ValueConversionError.self) { _ = try db.value(UInt8.self, "SELECT v FROM t") }
    #expect(throws: ValueConversionError.self) { _ = try db.value(Int8.self, "SELECT v FROM t") }
}

// MARK: - Bool, Double, Float

@Test func boolRoundTrips() throws {
    let db = try Database()
    #expect(try store(true, in: db) == .integer(1))
    #expect(try db.value(Bool.self, "SELECT v FROM t") == true)
    #expect(try store(false, in: db) == .integer(0))
    #expect(try db.value(Bool.self, "SELECT v FROM t") == false)
    #expect(try typeOf(db) == "integer")
}

@Test(arguments: [0.0, 1.5, -2.25, 3.141592653589793, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
                  -Double.greatestFiniteMagnitude, 1e-300, 123456789.123456789])
func doubleRoundTrips(value: Double) throws {
    let db = try Database()
    #expect(try roundTrip(value, in: db) == value)
    #expect(try typeOf(db) == "real")
}

@Test func infinitiesRoundTrip() throws {
    let db = try Database()
    #expect(try store(Double.infinity, in: db) == .real(.infinity))
    #expect(try db.value(Double.self, "SELECT v FROM t") == .infinity)
    #expect(try store(-Double.infinity, in: db) == .real(-.infinity))
    #expect(try db.value(Double.self, "SELECT v FROM t") == -.infinity)
    #expect(try roundTrip(Float.infinity, in: db) == .infinity)
    #expect(try roundTrip(-Float.infinity, in: db) == -.infinity)
}

@Test func negativeZeroReadsBackAsPositiveZero() throws {
    let db = try Database()
    // A REAL column stores whole numbers in integer form, so the sign of zero is lost.
    let stored = try store(-0.0, in: db)
    #expect(stored == .real(0))
    let back = try #require(try db.value(Double.self, "SELECT v FROM t"))
    #expect(back == 0)
    #expect(back.sign == .plus)
}

@Test func nanIsStoredAsNull() throws {
    let db = try Database()
    #expect(try store(Double.nan, in: db) == .null)
    #expect(try typeOf(db) == "null")
    let row = try #require(try db.rows("SELECT v FROM t").first)
    let error = try #require(throws: ValueConversionError.self) { try row.decode("v", as: Double.self) }
    #expect(error.column == "v")
    #expect(error.found == .null)
    #expect(try row.decode("v", as: Double?.self) == nil)
    #expect(try db.value(Double.self, "SELECT v FROM t") == nil)
    // A NOT NULL column rejects NaN.
    try db.execute("CREATE TABLE strict_real(v REAL NOT NULL)")
    let notNull = try #require(throws: DatabaseError.self) {
        try db.execute("INSERT INTO strict_real(v) VALUES (?)", Double.nan)
    }
    #expect(notNull.code == .constraintNotNull)
}

@Test func floatRoundTrips() throws {
    let db = try Database()
    for value: Float in [0, 1.1, -3.5, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 16_777_216, 0.1] {
        #expect(try roundTrip(value, in: db) == value)
        #expect(try typeOf(db) == "real")
    }
    // A double beyond Float's range does not become infinity silently.
    _ = try store(1e300, in: db)
    #expect(throws: ValueConversionError.self) { _ = try db.value(Float.self, "SELECT v FROM t") }
}

// MARK: - Text and bytes

@Test func stringRoundTrips() throws {
    let db = try Database()
    for value in ["hello", "Grüße, 世界", "quote ' and \"double\"", "line\nbreak\ttab", " padded "] {
        #expect(try roundTrip(value, in: db) == value)
        #expect(try typeOf(db) == "text")
    }
}

@Test func emptyStringIsTextNotNull() throws {
    let db = try Database()
    #expect(try store("", in: db) == .text(""))
    #expect(try typeOf(db) == "text")
    #expect(try db.value(String.self, "SELECT v FROM t") == "")
    #expect(try db.value(Int.self, "SELECT length(v) FROM t") == 0)
}

@Test func largeStringWithNulAndNonBMPCharactersRoundTripsExactly() throws {
    let db = try Database()
    let unit = "a\u{0}b😀𝄞é\u{0}\u{0}日本語👩‍👩‍👧\r\n"
    var value = ""
    while value.utf8.count < 1 << 20 { value += unit }
    let stored = try store(value, in: db)
    #expect(try typeOf(db) == "text")
    #expect(stored == .text(value))
    let back = try #require(try db.value(String.self, "SELECT v FROM t"))
    #expect(back.utf8.count == value.utf8.count)
    #expect(Array(back.utf8) == Array(value.utf8))
    #expect(back == value)
    // SQLite counts the bytes, NULs included.
    #expect(try db.value(Int.self, "SELECT length(CAST(v AS BLOB)) FROM t") == value.utf8.count)
    #expect(try roundTripRow(value, in: db) == value)
}

@Test func dataRoundTrips() throws {
    let db = try Database()
    let bytes = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) }) + Data([0, 0, 255])
    #expect(try store(bytes, in: db) == .blob(bytes))
    #expect(try typeOf(db) == "blob")
    #expect(try db.value(Data.self, "SELECT v FROM t") == bytes)
}

@Test func emptyDataIsAnEmptyBlobNotNull() throws {
    let db = try Database()
    #expect(try store(Data(), in: db) == .blob(Data()))
    #expect(try typeOf(db) == "blob")
    #expect(try db.value(Data.self, "SELECT v FROM t") == Data())
    let row = try #require(try db.rows("SELECT v FROM t").first)
    #expect(try row.decode("v", as: Data?.self) == Data())
}

@Test func urlRoundTrips() throws {
    let db = try Database()
    for text in ["https://swift.org/documentation/?q=a%20b#frag", "file:///tmp/a%20b.txt", "mailto:a@b.c"] {
        let url = try #require(URL(string: text))
        #expect(try store(url, in: db) == .text(text))
        #expect(try db.value(URL.self, "SELECT v FROM t") == url)
    }
}

@Test func uuidRoundTripsAsLowercaseText() throws {
    let db = try Database()
    let uuid = UUID()
    #expect(try store(uuid, in: db) == .text(uuid.uuidString.lowercased()))
    #expect(try typeOf(db) == "text")
    #expect(try db.value(UUID.self, "SELECT v FROM t") == uuid)
}

// MARK: - Dates

@Test(arguments: [0.0, 981_173_106.789, -1_234_567_890.123456, -0.000_001, 1_700_000_000.123_456_7, -2_208_988_800.000_123,
                  4_102_444_800.000_25])
func dateRoundTripsWithinOneMicrosecond(seconds: Double) throws {
    let db = try Database()
    let date = Date(timeIntervalSince1970: seconds)
    #expect(try store(date, in: db) == .real(date.timeIntervalSince1970))
    #expect(try typeOf(db) == "real")
    let back = try #require(try db.value(Date.self, "SELECT v FROM t"))
    #expect(abs(back.timeIntervalSince1970 - seconds) < 1e-6)
    #expect(abs(back.timeIntervalSince(date)) < 1e-6)
}

@Test func dateFromIntegerSeconds() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v)")
    try db.execute("INSERT INTO t(v) VALUES (981173106), (-86400)")
    #expect(try db.column(String.self, "SELECT typeof(v) FROM t") == ["integer", "integer"])
    let dates = try db.column(Date.self, "SELECT v FROM t")
    #expect(dates.map(\.timeIntervalSince1970) == [981_173_106, -86_400])
}

@Test func dateFromReal() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v)")
    try db.execute("INSERT INTO t(v) VALUES (981173106.25)")
    #expect(try db.value(String.self, "SELECT typeof(v) FROM t") == "real")
    #expect(try db.value(Date.self, "SELECT v FROM t")?.timeIntervalSince1970 == 981_173_106.25)
}

@Test func dateFromTextWrittenByOtherTools() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v)")
    let base = try utcSeconds(2001, 2, 3, 4, 5, 6)
    let cases: [(String, Double)] = [
        ("2001-02-03 04:05:06", base),
        ("2001-02-03 04:05:06.789", base + 0.789),
        ("2001-02-03 04:05:06.789000", base + 0.789),   // Django, SQLAlchemy, peewee
        ("2001-02-03T04:05:06Z", base),
        ("2001-02-03T04:05:06.5+02:00", base + 0.5 - 2 * 3600),
        ("2001-02-03", try utcSeconds(2001, 2, 3)),
        ("1969-07-20 20:17:40", try utcSeconds(1969, 7, 20, 20, 17, 40)),
        ("2000-02-29 23:59:59", try utcSeconds(2000, 2, 29, 23, 59, 59)),
    ]
    for (text, expected) in cases {
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t(v) VALUES (?)", text)
        #expect(try db.value(String.self, "SELECT typeof(v) FROM t") == "text")
        let date = try #require(try db.value(Date.self, "SELECT v FROM t"), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - expected) < 1e-6, "\(text): \(date.timeIntervalSince1970) != \(expected)")
    }
}

@Test func dateFromTextCrossCheckedWithSQLite() throws {
    // SQLite's own unixepoch arithmetic agrees with the parse (whole seconds; zone given as an offset).
    let db = try Database()
    for text in ["2001-02-03 04:05:06", "1900-01-01 00:00:00", "2038-01-19 03:14:08", "2001-02-03"] {
        let expected = try #require(try db.value(Int64.self, "SELECT CAST(strftime('%s', ?) AS INTEGER)", text))
        let date = try #require(try db.value(Date.self, "SELECT ?", text))
        #expect(date.timeIntervalSince1970 == Double(expected), "\(text)")
    }
}

@Test func invalidDateTextThrows() throws {
    let db = try Database()
    for text in ["yesterday", "2001-13-03", "2001-02-03 25:00:00", "2001-02-03 04:05:06 junk"] {
        let error = try #require(throws: ValueConversionError.self) { _ = try db.value(Date.self, "SELECT ? AS d", text) }
        #expect(error.column == "d")
        #expect(error.found == .text(text))
    }
}

// MARK: - UUIDs from other encodings

@Test func uuidFromLegacyEncodings() throws {
    let db = try Database()
    let uuid = try #require(UUID(uuidString: "1B4E28BA-2FA1-11D2-883F-0016D3CCA427"))
    try db.execute("CREATE TABLE t(v)")
    let encodings: [SQLValue] = [
        .text("1B4E28BA-2FA1-11D2-883F-0016D3CCA427"),
        .text("1b4e28ba-2fa1-11d2-883f-0016d3cca427"),
        .text("1b4e28ba2fa111d2883f0016d3cca427"),          // peewee's hex
        .text("1B4E28BA2FA111D2883F0016D3CCA427"),
        .blob(Data([0x1B, 0x4E, 0x28, 0xBA, 0x2F, 0xA1, 0x11, 0xD2, 0x88, 0x3F, 0x00, 0x16, 0xD3, 0xCC, 0xA4, 0x27])),
    ]
    for encoding in encodings {
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t(v) VALUES (?)", encoding)
        #expect(try db.rows("SELECT v FROM t")[0][0] == encoding)
        #expect(try db.value(UUID.self, "SELECT v FROM t") == uuid, "\(encoding)")
    }
}

// MARK: - Numbers stored in other classes

@Test func integersFromOtherStorageClasses() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v)")
    let cases: [(SQLValue, String, Int)] = [
        (.real(7.0), "real", 7),
        (.text("42"), "text", 42),
        (.text(" 42 "), "text", 42),
        (.text("-17"), "text", -17),
        (.real(-0.0), "real", 0),
    ]
    for (stored, storageClass, expected) in cases {
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t(v) VALUES (?)", stored)
        #expect(try db.value(String.self, "SELECT typeof(v) FROM t") == storageClass, "\(stored)")
        #expect(try db.value(Int.self, "SELECT v FROM t") == expected, "\(stored)")
        #expect(try db.value(Int16.self, "SELECT v FROM t") == Int16(expected), "\(stored)")
    }
}

@Test func doublesFromOtherStorageClasses() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v)")
    let cases: [(SQLValue, String, Double)] = [
        (.integer(3), "integer", 3),
        (.integer(-9_007_199_254_740_992), "integer", -9_007_199_254_740_992),
        (.text("2.5"), "text", 2.5),
        (.text(" -1e3 "), "text", -1000),
        (.text("13.86"), "text", 13.86),   // Chinook's `Total text`
    ]
    for (stored, storageClass, expected) in cases {
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t(v) VALUES (?)", stored)
        #expect(try db.value(String.self, "SELECT typeof(v) FROM t") == storageClass, "\(stored)")
        #expect(try db.value(Double.self, "SELECT v FROM t") == expected, "\(stored)")
    }
}

@Test func boolFromIntegers() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(flag INTEGER)")
    try db.execute("INSERT INTO t(flag) VALUES (0), (1), (2)")
    let rows = try db.rows("SELECT flag FROM t ORDER BY flag")
    #expect(try rows[0].decode("flag", as: Bool.self) == false)
    #expect(try rows[1].decode("flag", as: Bool.self) == true)
    let error = try #require(throws: ValueConversionError.self) { try rows[2].decode("flag", as: Bool.self) }
    #expect(error.column == "flag")
    #expect(error.found == .integer(2))
    #expect(throws: ValueConversionError.self) { _ = try db.column(Bool.self, "SELECT flag FROM t ORDER BY flag") }
}

// MARK: - RawRepresentable, Optional, JSON

@Test func rawRepresentableEnumsRoundTrip() throws {
    let db = try Database()
    #expect(Status.columnType == .text)
    #expect(Priority.columnType == .integer)
    for status in Status.allCases {
        #expect(try store(status, in: db) == .text(status.rawValue))
        #expect(try db.value(Status.self, "SELECT v FROM t") == status)
    }
    #expect(try store(Priority.high, in: db) == .integer(9))
    #expect(try db.value(Priority.self, "SELECT v FROM t") == .high)
    #expect(try roundTrip(Status?.some(.draft), in: db) == .some(.draft))
}

@Test func optionalsRoundTrip() throws {
    let db = try Database()
    #expect(Optional<Int>.isNullable)
    #expect(!Int.isNullable)
    #expect(Optional<String>.columnType == .text)

    #expect(try store(Int?.none, in: db) == .null)
    #expect(try typeOf(db) == "null")
    #expect(try roundTripRow(Int?.none, in: db) == nil)
    #expect(try roundTripRow(Int?.some(5), in: db) == 5)
    #expect(try roundTripRow(String?.none, in: db) == nil)
    #expect(try roundTripRow(String?.some(""), in: db) == "")
    #expect(try roundTripRow(Date?.none, in: db) == nil)
    let date = Date(timeIntervalSince1970: 12.5)
    #expect(try roundTripRow(Date?.some(date), in: db) == date)
    #expect(try roundTripRow(UUID?.none, in: db) == nil)
    #expect(try roundTripRow(Data?.none, in: db) == nil)
    #expect(try roundTripRow(Double?.some(-1.5), in: db) == -1.5)
    #expect(try roundTripRow(Bool?.some(false), in: db) == false)
    // db.value reports NULL as nil, for any type.
    _ = try store(String?.none, in: db)
    #expect(try db.value(String.self, "SELECT v FROM t") == nil)
}

@Test func collectionsRoundTripAsJSON() throws {
    let db = try Database()
    let array = [3, 1, 2]
    #expect(try store(array, in: db) == .text("[3,1,2]"))
    #expect(try typeOf(db) == "text")
    #expect(try db.value([Int].self, "SELECT v FROM t") == array)

    let strings = ["a/b", "ünï", "", "\"q\""]
    #expect(try roundTrip(strings, in: db) == strings)

    let dictionary = ["b": 2, "a": 1, "c": 3]
    #expect(try store(dictionary, in: db) == .text(#"{"a":1,"b":2,"c":3}"#))   // sorted keys: equal values, equal text
    #expect(try db.value([String: Int].self, "SELECT v FROM t") == dictionary)

    let set: Set<String> = ["x", "y", "z"]
    #expect(try roundTrip(set, in: db) == set)

    let nested = [["a": [1, 2]], ["b": []]]
    #expect(try roundTrip(nested, in: db) == nested)

    #expect(try roundTrip([Int](), in: db) == [])
    #expect(try db.value(String.self, "SELECT v FROM t") == "[]")
}

@Test func codableStructRoundTripsAsJSON() throws {
    let db = try Database()
    let address = Address(street: "1 Infinite Loop", city: "Cupertino", zip: nil, tags: ["work", "🍎"])
    #expect(Address.columnType == .text)
    let stored = try store(address, in: db)
    guard case .text(let json) = stored else {
        Issue.record("expected JSON text, got \(stored)")
        return
    }
    let decoded = try JSONDecoder().decode(Address.self, from: Data(json.utf8))
    #expect(decoded == address)
    #expect(try db.value(Address.self, "SELECT v FROM t") == address)
    #expect(try db.value(String.self, "SELECT json_extract(v, '$.city') FROM t") == "Cupertino")
    #expect(try roundTripRow([address, address], in: db) == [address, address])
    #expect(try roundTripRow(Address?.none, in: db) == nil)
}

@Test func sqlValueRoundTripsAsItself() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(v)")
    let values: [SQLValue] = [.null, .integer(-5), .real(2.5), .text("x"), .blob(Data([1, 2]))]
    for value in values {
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t(v) VALUES (?)", value)
        #expect(try db.rows("SELECT v FROM t")[0].decode("v", as: SQLValue.self) == value)
        #expect(try db.value(String.self, "SELECT typeof(v) FROM t") == value.storageClassName)
    }
}

// MARK: - Failures name the column and what was stored

/// Stores `stored` in column `amount` of an untyped table and expects every read path to fail for `T`.
private func expectConversionFailure<T: ColumnValue>(_ type: T.Type, stored: SQLValue,
                                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(amount)")
    try db.execute("INSERT INTO t(amount) VALUES (?)", stored)
    let row = try #require(try db.rows("SELECT amount FROM t").first, sourceLocation: sourceLocation)
    #expect(row["amount"] == stored, sourceLocation: sourceLocation)

    let viaRow = try #require(throws: ValueConversionError.self, sourceLocation: sourceLocation) {
        try row.decode("amount", as: T.self)
    }
    #expect(viaRow.column == "amount", sourceLocation: sourceLocation)
    #expect(viaRow.found == stored, sourceLocation: sourceLocation)
    #expect(viaRow.expected == String(describing: T.self), sourceLocation: sourceLocation)
    #expect(viaRow.description.contains("amount"), sourceLocation: sourceLocation)

    let viaColumn = try #require(throws: ValueConversionError.self, sourceLocation: sourceLocation) {
        _ = try db.column(T.self, "SELECT amount FROM t")
    }
    #expect(viaColumn.column == "amount", sourceLocation: sourceLocation)
    #expect(viaColumn.found == stored, sourceLocation: sourceLocation)

    if !stored.isNull {  // db.value reads NULL as nil
        let viaValue = try #require(throws: ValueConversionError.self, sourceLocation: sourceLocation) {
            _ = try db.value(T.self, "SELECT amount FROM t")
        }
        #expect(viaValue.column == "amount", sourceLocation: sourceLocation)
        #expect(viaValue.found == stored, sourceLocation: sourceLocation)
    }
}

@Test func textIntoIntThrows() throws { try expectConversionFailure(Int.self, stored: .text("abc")) }
@Test func nullIntoIntThrows() throws { try expectConversionFailure(Int.self, stored: .null) }
@Test func nullIntoStringThrows() throws { try expectConversionFailure(String.self, stored: .null) }
@Test func hugeRealIntoInt32Throws() throws { try expectConversionFailure(Int32.self, stored: .real(1e300)) }
@Test func fractionalRealIntoIntThrows() throws { try expectConversionFailure(Int.self, stored: .real(7.5)) }
@Test func invalidJSONIntoArrayThrows() throws { try expectConversionFailure([Int].self, stored: .text("[1, 2")) }
@Test func unknownRawValueIntoEnumThrows() throws { try expectConversionFailure(Status.self, stored: .text("deleted")) }
@Test func notAUUIDThrows() throws { try expectConversionFailure(UUID.self, stored: .text("not a uuid")) }
@Test func boolTwoThrows() throws { try expectConversionFailure(Bool.self, stored: .integer(2)) }
@Test func nullIntoDateThrows() throws { try expectConversionFailure(Date.self, stored: .null) }
@Test func textIntoDoubleThrows() throws { try expectConversionFailure(Double.self, stored: .text("1.5 kg")) }

/// Texts Swift's `strtod` reads as numbers but SQLite and Python do not (`CAST('0x10' AS INTEGER)` is 0).
@Test(arguments: ["0x10", "0X1F", "0x1p3", "nan", "NaN", "inf", "-infinity", "1e", ".", "+", "1.2.3", "12abc"])
func nonDecimalTextIsNoNumber(_ text: String) throws {
    #expect(throws: ValueConversionError.self) { try Int64(sqlValue: .text(text)) }
    #expect(throws: ValueConversionError.self) { try Int(sqlValue: .text(text)) }
    #expect(throws: ValueConversionError.self) { try Double(sqlValue: .text(text)) }
    #expect(throws: ValueConversionError.self) { try Float(sqlValue: .text(text)) }
    #expect(throws: ValueConversionError.self) { try Date(sqlValue: .text(text)) }
    #expect(throws: ValueConversionError.self) { try Decimal(sqlValue: .text(text)) }
}

/// What SQLite itself converts stays a number.
@Test func decimalNumeralTextIsANumber() throws {
    #expect(try Int64(sqlValue: .text(" 12 ")) == 12)
    #expect(try Int64(sqlValue: .text("1e3")) == 1000)
    #expect(try Int64(sqlValue: .text("12.0")) == 12)
    #expect(try Int64(sqlValue: .text("+7")) == 7)
    #expect(try Double(sqlValue: .text(".5")) == 0.5)
    #expect(try Double(sqlValue: .text("5.")) == 5)
    #expect(try Double(sqlValue: .text("-1E-2")) == -0.01)
    #expect(try Date(sqlValue: .text("1e3")).timeIntervalSince1970 == 1000)
    #expect(try Date(sqlValue: .text(" 16 ")).timeIntervalSince1970 == 16)
}
@Test func blobIntoIntThrows() throws { try expectConversionFailure(Int.self, stored: .blob(Data([1]))) }
@Test func wrongLengthBlobIntoUUIDThrows() throws { try expectConversionFailure(UUID.self, stored: .blob(Data(count: 15))) }
@Test func textAboveInt64IntoIntThrows() throws {
    try expectConversionFailure(Int64.self, stored: .text("9223372036854775808"))
}

// The error names the type asked for, even when it reads through another type (Float via Double, an enum via
// its raw value).
@Test func textIntoFloatThrows() throws { try expectConversionFailure(Float.self, stored: .text("abc")) }
@Test func nullIntoFloatThrows() throws { try expectConversionFailure(Float.self, stored: .null) }
@Test func nullIntoEnumThrows() throws { try expectConversionFailure(Status.self, stored: .null) }
@Test func textIntoIntEnumThrows() throws { try expectConversionFailure(Priority.self, stored: .text("high")) }
@Test func unknownIntRawValueThrows() throws { try expectConversionFailure(Priority.self, stored: .integer(5)) }

@Test func missingColumnInRowDecodeThrows() throws {
    let db = try Database()
    let row = try #require(try db.rows("SELECT 1 AS a").first)
    let error = try #require(throws: ValueConversionError.self) { try row.decode("b", as: Int.self) }
    #expect(error.description.contains("b"))
}
