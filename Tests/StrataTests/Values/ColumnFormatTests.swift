import Foundation
import Testing
@testable import Strata

// Stored formats: how a column Strata did not create is recognised, and values written in its format.

@Suite struct ColumnFormatTests {
    @Test(arguments: [
        // Django (declared `datetime`, `date`, `char(32)`, `bool`), SQLAlchemy (upper case), peewee.
        ("datetime", SQLValue.text("2001-02-03 04:05:06.789000"), ColumnFormat.dateTimeText(DateTimeTextStyle(fractionDigits: 6))),
        ("datetime", .text("2010-06-07 08:09:10"), .dateTimeText(DateTimeTextStyle(fractionDigits: nil))),
        ("DATETIME", .text("2024-01-01 10:00:00.000000"), .dateTimeText(DateTimeTextStyle())),
        ("TEXT", .text("2024-01-01T10:00:00Z"), .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: nil, zoneSuffix: "Z"))),
        ("TEXT", .text("2024-01-01T10:00:00.123+00:00"), .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "+00:00"))),
        ("date", .text("1999-12-31"), .dateText),
        ("INTEGER", .integer(1_577_934_245), .unixSecondsInteger),
        ("INTEGER", .integer(1_577_934_245_123), .unixMilliseconds),
        ("INTEGER", .integer(1_704_164_645_250_000), .unixMicroseconds),   // peewee TimestampField(resolution=10**6)
        ("REAL", .real(1.5), .native),
        ("DATETIME", .real(981_173_106.789), .native),    // GYDataCenter/FCModel seconds in a DATETIME column
    ])
    func datesAreRecognisedFromAStoredValue(declared: String, sample: SQLValue, format: ColumnFormat) {
        #expect(ColumnFormat.detect(.date, declaredType: declared, sample: sample) == format)
    }

    @Test func emptyColumnsTakeTheirFormatFromTheDeclaredType() {
        #expect(ColumnFormat.detect(.date, declaredType: "date", sample: nil) == .dateText)
        // Python's str() layout, as Django and peewee write an empty column (SQLAlchemy reads it too).
        #expect(ColumnFormat.detect(.date, declaredType: "DATETIME", sample: nil) == .dateTimeText(.python))
        #expect(ColumnFormat.detect(.date, declaredType: "timestamp", sample: nil) == .dateTimeText(.python))
        #expect(ColumnFormat.detect(.date, declaredType: "TEXT", sample: nil) == .dateTimeText(.python))
        #expect(ColumnFormat.detect(.date, declaredType: "INTEGER", sample: nil) == .unixSecondsInteger)
        #expect(ColumnFormat.detect(.date, declaredType: "REAL", sample: nil) == .native)   // Strata's own columns
        #expect(ColumnFormat.detect(.date, declaredType: "", sample: nil) == .native)
        #expect(ColumnFormat.detect(.uuid, declaredType: "char(32)", sample: nil) == .uuidHex(uppercase: false))
        #expect(ColumnFormat.detect(.uuid, declaredType: "CHAR(32)", sample: nil) == .uuidHex(uppercase: false))
        #expect(ColumnFormat.detect(.uuid, declaredType: "BLOB", sample: nil) == .uuidBlob)
        #expect(ColumnFormat.detect(.uuid, declaredType: "TEXT", sample: nil) == .native)
        #expect(ColumnFormat.detect(.bool, declaredType: "bool", sample: nil) == .native)
    }

    @Test func uuidsAndBoolsAreRecognisedFromAStoredValue() {
        #expect(ColumnFormat.detect(.uuid, declaredType: "TEXT", sample: .text("0f8fad5bd9cb469fa16570867728950e")) == .uuidHex(uppercase: false))
        #expect(ColumnFormat.detect(.uuid, declaredType: "TEXT", sample: .text("0F8FAD5BD9CB469FA16570867728950E")) == .uuidHex(uppercase: true))
        #expect(ColumnFormat.detect(.uuid, declaredType: "TEXT", sample: .text("0F8FAD5B-D9CB-469F-A165-70867728950E")) == .uuidDashed(uppercase: true))
        #expect(ColumnFormat.detect(.uuid, declaredType: "TEXT", sample: .text("0f8fad5b-d9cb-469f-a165-70867728950e")) == .native)
        #expect(ColumnFormat.detect(.uuid, declaredType: "", sample: .blob(Data(count: 16))) == .uuidBlob)
        #expect(ColumnFormat.detect(.bool, declaredType: "bool", sample: .text("t")) == .boolText(true: "t", false: "f"))
        #expect(ColumnFormat.detect(.bool, declaredType: "", sample: .text("FALSE")) == .boolText(true: "TRUE", false: "FALSE"))
        #expect(ColumnFormat.detect(.bool, declaredType: "", sample: .text("1")) == .boolText(true: "1", false: "0"))
        #expect(ColumnFormat.detect(.bool, declaredType: "bool", sample: .integer(1)) == .native)
    }

    @Test func datesAreWrittenInTheColumnsLayoutInUTC() throws {
        let django = ColumnFormat.dateTimeText(DateTimeTextStyle(fractionDigits: nil))
        #expect(try django.stored(.real(981_173_106.789)) == .text("2001-02-03 04:05:06.789000"))
        #expect(try django.stored(.real(1_276_000_150)) == .text("2010-06-08 12:29:10"))
        #expect(try django.stored(.real(1_276_000_150.5)) == .text("2010-06-08 12:29:10.500000"))
        #expect(try ColumnFormat.dateTimeText(DateTimeTextStyle()).stored(.real(1_704_103_200)) == .text("2024-01-01 10:00:00.000000"))
        let iso = ColumnFormat.dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z"))
        #expect(try iso.stored(.real(1_704_103_200.123)) == .text("2024-01-01T10:00:00.123Z"))
        #expect(try ColumnFormat.dateText.stored(.real(946_684_799)) == .text("1999-12-31"))
        #expect(try ColumnFormat.dateText.stored(.real(-1)) == .text("1969-12-31"))           // before 1970: floor
        #expect(try django.stored(.real(-0.5)) == .text("1969-12-31 23:59:59.500000"))
        #expect(try django.stored(.real(4_102_444_800)) == .text("2100-01-01 00:00:00"))
        #expect(try ColumnFormat.unixSecondsInteger.stored(.real(1.6)) == .integer(2))
        #expect(try ColumnFormat.unixMilliseconds.stored(.real(1.5)) == .integer(1500))
        #expect(try django.stored(.null) == .null)
        #expect(throws: ValueConversionError.self) { try django.stored(.real(.infinity)) }
    }

    @Test(arguments: [
        ColumnFormat.dateTimeText(DateTimeTextStyle(fractionDigits: nil)), .dateTimeText(DateTimeTextStyle()),
        .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")),
        .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 6, zoneSuffix: "+00:00")),
        .dateText, .unixSecondsInteger, .unixMilliseconds, .unixMicroseconds,
    ])
    func datesRoundTripAndFormattingIsIdempotent(format: ColumnFormat) throws {
        for seconds in [0, 981_173_106.789, 1_276_000_150, -86_400.25, 1_709_251_199.000001, 4_102_444_800.5] {
            let stored = try format.stored(.real(seconds))
            let back = try format.native(stored)
            #expect(try format.stored(back) == stored)
            guard case .real(let read) = back else { Issue.record("\(back)"); continue }
            let tolerance: Double = switch format {
            case .dateText: 86_400
            case .unixSecondsInteger: 0.5
            case .unixMilliseconds, .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")): 0.001
            default: 0.000_001
            }
            #expect(abs(read - seconds) <= tolerance)
        }
    }

    /// The column sampled as a model's first use samples it: the first 100 non-NULL rows, one statement.
    private func detected(_ declared: String, _ values: [SQLValue]) throws -> ColumnFormat {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, at \(declared))")
        for value in values { try db.execute("INSERT INTO t(at) VALUES (?)", value) }
        let row = try db.rows(ColumnSample.statementSQL(column: "at", table: "t"))[0]
        return ColumnFormat.detect(.date, declaredType: declared, sample: ColumnSample(row: (0..<ColumnSample.columnCount).map { row[$0] }))
    }

    @Test func theFractionLayoutComesFromTheColumnsRowsNotTheFirstOne() throws {
        // Django and peewee (Python's str()): 6 digits, none on whole seconds, in one column.
        #expect(try detected("datetime", [.text("2024-01-02 03:04:05.123456"), .text("2024-01-03 03:04:05")]) == .dateTimeText(.python))
        #expect(try detected("datetime", [.text("2024-01-03 03:04:05"), .text("2024-01-02 03:04:05.123456")]) == .dateTimeText(.python))
        #expect(try detected("datetime", [.null, .text("2024-01-03 03:04:05")]) == .dateTimeText(.python))
        // SQLAlchemy: always 6, whole seconds too.
        #expect(try detected("DATETIME", [.text("2024-01-02 03:04:05.123456"), .text("2024-01-03 03:04:05.000000")])
            == .dateTimeText(DateTimeTextStyle()))
        // Always 3 stays 3, with the zone and separator of the rows.
        #expect(try detected("TEXT", [.text("2024-01-02T03:04:05.123Z"), .text("2024-01-03T03:04:05.000Z")])
            == .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")))
        #expect(try detected("date", [.text("2024-01-02")]) == .dateText)
        #expect(try detected("DATETIME", []) == .dateTimeText(.python))
    }

    @Test func theIntegerScaleIsWhatMostSampledValuesShow() throws {
        // Milliseconds whose first rows are before 1973 (1971-05-29 as ms looks like seconds in 3382).
        #expect(try detected("INTEGER", [.integer(44_582_400_000), .integer(1_704_164_645_250), .integer(1_704_164_645_999)]) == .unixMilliseconds)
        #expect(try detected("INTEGER", [.integer(-44_582_400_000), .integer(-1_704_164_645_250), .integer(-1_604_164_645_250)]) == .unixMilliseconds)
        // Sentinels do not decide a column: year 9999 in seconds, Long.MAX among milliseconds.
        #expect(try detected("INTEGER", [.integer(1_700_000_000), .integer(253_402_300_799)]) == .unixSecondsInteger)
        #expect(try detected("INTEGER", [.integer(1_700_000_000), .integer(1_700_000_001), .integer(253_402_300_799)]) == .unixSecondsInteger)
        #expect(try detected("INTEGER", [.integer(1_700_000_000_000), .integer(Int64.max)]) == .unixMilliseconds)
        #expect(try detected("INTEGER", [.integer(1_704_164_645_250_000)]) == .unixMicroseconds)
        #expect(try detected("INTEGER", [.integer(86_400), .integer(1_704_164_645)]) == .unixSecondsInteger)
        #expect(try detected("INTEGER", [.integer(Int64.min)]) == .unixMicroseconds)   // no overflow in the sampling
        #expect(try ColumnFormat.unixMicroseconds.stored(.real(1_704_250_000.5)) == .integer(1_704_250_000_500_000))
        #expect(try ColumnFormat.unixMicroseconds.native(.integer(1_704_164_645_250_000)) == .real(1_704_164_645.25))
    }

    @Test func dateTextHoldsYears1To9999AndFarDatesThrowInsteadOfTrapping() throws {
        let formats: [ColumnFormat] = [.dateTimeText(.python), .dateTimeText(DateTimeTextStyle()), .dateText,
                                       .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z"))]
        for format in formats {
            // Year 11476, year 0, and seconds whose microseconds overflow Int64 (up to 1e15 trapped).
            for seconds in [300_000_000_000, 253_402_300_800.000_1, -62_135_596_800.5, 1e13, -9.3e12, 9.99e14] {
                #expect(throws: ValueConversionError.self, "\(format) \(seconds)") { try format.stored(.real(seconds)) }
            }
            #expect(try format.stored(.real(-62_135_596_800)) == (format == .dateText ? .text("0001-01-01")
                : format == .dateTimeText(.python) ? .text("0001-01-01 00:00:00")
                : format == .dateTimeText(DateTimeTextStyle()) ? .text("0001-01-01 00:00:00.000000") : .text("0001-01-01T00:00:00.000Z")))
        }
        #expect(throws: ValueConversionError.self) { try ColumnFormat.unixMicroseconds.stored(.real(1e13)) }
        // Python's datetime.max, Django's "never", reads as the Double 253402300800: written back as itself,
        // at the column's precision, never as year 10000.
        let never = try #require(DateText.secondsSince1970("9999-12-31 23:59:59.999999"))
        #expect(never == 253_402_300_800)
        #expect(try ColumnFormat.dateTimeText(.python).stored(.real(never)) == .text("9999-12-31 23:59:59.999999"))
        #expect(try ColumnFormat.dateTimeText(DateTimeTextStyle()).stored(.real(never)) == .text("9999-12-31 23:59:59.999999"))
        #expect(try ColumnFormat.dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")).stored(.real(never))
            == .text("9999-12-31T23:59:59.999Z"))
        #expect(try ColumnFormat.dateText.stored(.real(never)) == .text("9999-12-31"))
        #expect(try ColumnFormat.dateTimeText(.python).stored(.real(253_402_300_799.5)) == .text("9999-12-31 23:59:59.500000"))
    }

    @Test func uuidsAndBoolsAreWrittenInTheColumnsForm() throws {
        let uuid = SQLValue.text("0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(try ColumnFormat.uuidHex(uppercase: false).stored(uuid) == .text("0f8fad5bd9cb469fa16570867728950e"))
        #expect(try ColumnFormat.uuidHex(uppercase: true).stored(uuid) == .text("0F8FAD5BD9CB469FA16570867728950E"))
        #expect(try ColumnFormat.uuidDashed(uppercase: true).stored(uuid) == .text("0F8FAD5B-D9CB-469F-A165-70867728950E"))
        let blob = try ColumnFormat.uuidBlob.stored(uuid)
        #expect(blob == .blob(Data([0x0f, 0x8f, 0xad, 0x5b, 0xd9, 0xcb, 0x46, 0x9f, 0xa1, 0x65, 0x70, 0x86, 0x77, 0x28, 0x95, 0x0e])))
        #expect(try UUID(sqlValue: blob) == UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e"))
        let tf = ColumnFormat.boolText(true: "t", false: "f")
        #expect(try tf.stored(.integer(1)) == .text("t") && tf.stored(.integer(0)) == .text("f"))
        #expect(try tf.native(.text("T")) == .integer(1) && tf.native(.text("f")) == .integer(0))
    }
}
