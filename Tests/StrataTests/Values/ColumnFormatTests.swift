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
        ("REAL", .real(1.5), .native),
        ("DATETIME", .real(981_173_106.789), .native),    // GYDataCenter/FCModel seconds in a DATETIME column
    ])
    func datesAreRecognisedFromAStoredValue(declared: String, sample: SQLValue, format: ColumnFormat) {
        #expect(ColumnFormat.detect(.date, declaredType: declared, sample: sample) == format)
    }

    @Test func emptyColumnsTakeTheirFormatFromTheDeclaredType() {
        #expect(ColumnFormat.detect(.date, declaredType: "date", sample: nil) == .dateText)
        #expect(ColumnFormat.detect(.date, declaredType: "DATETIME", sample: nil) == .dateTimeText(DateTimeTextStyle()))
        #expect(ColumnFormat.detect(.date, declaredType: "timestamp", sample: nil) == .dateTimeText(DateTimeTextStyle()))
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
        .dateText, .unixSecondsInteger, .unixMilliseconds,
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
