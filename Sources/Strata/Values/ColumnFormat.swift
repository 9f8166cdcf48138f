import Foundation

/// How a column stores dates, UUIDs or booleans when it does not use Strata's own format, so that a save
/// writes each value the way the column's other rows (and the tool that made them) have it.
///
/// Strata finds the format of an existing column by itself, from a stored value and the declared type
/// (see the README's "Stored formats"); a model declares one only to override that:
///
/// ```swift
/// final class Event: Model {
///     static let columnFormats: [String: ColumnFormat] = [
///         "startsAt": .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")),
///         "token": .uuidHex(uppercase: false),
///     ]
///     var id: Int64 = 0
///     var startsAt = Date()
///     var token = UUID()
///     required init() {}
/// }
/// ```
public enum ColumnFormat: Hashable, Sendable {
    /// Strata's own encoding: dates as REAL seconds since 1970, UUIDs as lowercase dashed text,
    /// booleans as INTEGER 0/1.
    ///
    /// ```swift
    /// ColumnFormat.native
    /// ```
    case native
    /// Dates as INTEGER seconds since 1970, rounded to the nearest second (peewee's `TimestampField`).
    ///
    /// ```swift
    /// try ColumnFormat.unixSecondsInteger.stored(.real(1.6))   // .integer(2)
    /// ```
    case unixSecondsInteger
    /// Dates as INTEGER milliseconds since 1970.
    ///
    /// ```swift
    /// try ColumnFormat.unixMilliseconds.stored(.real(1.5))     // .integer(1500)
    /// ```
    case unixMilliseconds
    /// Dates as INTEGER microseconds since 1970 (peewee's `TimestampField(resolution=10**6)`); a column of
    /// integers of 10^14 and more is taken for microseconds.
    ///
    /// ```swift
    /// try ColumnFormat.unixMicroseconds.stored(.real(1.25))    // .integer(1_250_000)
    /// ```
    case unixMicroseconds
    /// Dates as REAL Julian day numbers, as SQLite's `julianday()` gives them (a column whose DEFAULT is
    /// `(julianday('now'))`, or whose values are from 2,000,000 to 3,000,000: years 763 to 3501), kept to
    /// about 40 microseconds.
    ///
    /// ```swift
    /// try ColumnFormat.julianDay.stored(.real(0))   // .real(2440587.5)
    /// ```
    case julianDay
    /// Dates as text in UTC, `YYYY-MM-DD HH:MM:SS[.ffffff]` or a variant (Django, SQLAlchemy, ISO 8601),
    /// years 0001 to 9999 only: a date outside them throws on save, since no tool reads it back (a value
    /// Double's precision rounds to 10000-01-01, Python's `datetime.max`, is written as
    /// `9999-12-31 23:59:59.999999`).
    ///
    /// ```swift
    /// try ColumnFormat.dateTimeText(DateTimeTextStyle()).stored(.real(0.5))
    /// // .text("1970-01-01 00:00:00.500000")
    /// ```
    case dateTimeText(DateTimeTextStyle)
    /// Dates as `YYYY-MM-DD` text: the UTC day (Django's and SQLAlchemy's `date`); years 0001 to 9999.
    ///
    /// ```swift
    /// try ColumnFormat.dateText.stored(.real(86_400 * 365))    // .text("1971-01-01")
    /// ```
    case dateText
    /// UUIDs as 32 hex digits with no dashes (Django's `char(32)`, SQLAlchemy's `Uuid`, peewee).
    ///
    /// ```swift
    /// try ColumnFormat.uuidHex(uppercase: false).stored(.text("0f8fad5b-d9cb-469f-a165-70867728950e"))
    /// // .text("0f8fad5bd9cb469fa16570867728950e")
    /// ```
    case uuidHex(uppercase: Bool)
    /// UUIDs as 36 characters with dashes; lowercase is the same as ``native``.
    ///
    /// ```swift
    /// try ColumnFormat.uuidDashed(uppercase: true).stored(.text("0f8fad5b-d9cb-469f-a165-70867728950e"))
    /// // .text("0F8FAD5B-D9CB-469F-A165-70867728950E")
    /// ```
    case uuidDashed(uppercase: Bool)
    /// UUIDs as 16-byte BLOBs.
    ///
    /// ```swift
    /// try ColumnFormat.uuidBlob.stored(.text("0f8fad5b-d9cb-469f-a165-70867728950e"))  // .blob(16 bytes)
    /// ```
    case uuidBlob
    /// Booleans as two texts, such as `"t"`/`"f"` or `"true"`/`"false"`.
    ///
    /// ```swift
    /// try ColumnFormat.boolText(true: "t", false: "f").stored(.integer(1))   // .text("t")
    /// ```
    case boolText(true: String, false: String)
    /// Decimals as text with at least `fractionDigits` digits after the point (`'12.30'`, `'9.50'`), as a
    /// TEXT column keeps them when every sampled value has that many: a changed value is padded with zeros
    /// to as many, never rounded (`12.5` as `'12.50'`, `1.125` as `'1.125'`). (Django's `decimal` columns
    /// have NUMERIC affinity, and hold numbers: none of this applies there.)
    ///
    /// ```swift
    /// try ColumnFormat.decimalText(fractionDigits: 2).stored(.text("12.5"))   // .text("12.50")
    /// ```
    case decimalText(fractionDigits: Int)
    /// JSON as Python's `json.dumps` writes it (Django's `JSONField`, SQLAlchemy's and peewee's JSON):
    /// a space after each `,` and `:` (`spaced`), and every character beyond ASCII escaped, `é` as
    /// `\u00e9` (`asciiOnly`). Strata's own JSON (``native``) has neither; a column whose rows have them
    /// is written so (keys stay sorted). peewee's `JSONField` (SQLite's `json()` of json.dumps text) has
    /// the escapes and no spaces: `jsonText(spaced: false, asciiOnly: true)`.
    ///
    /// ```swift
    /// try ColumnFormat.jsonText(spaced: true, asciiOnly: true).stored(.text(#"{"a":["é",1]}"#))
    /// // .text(#"{"a": ["\u00e9", 1]}"#)
    /// ```
    case jsonText(spaced: Bool, asciiOnly: Bool)
    /// Arrays of strings as PostgreSQL's array text, `{a,"b c",NULL}`: a `[String]` or `[String?]`
    /// property over an existing `text[]` or `varchar(n)[]` column (chosen from the column's type; a
    /// column Strata creates holds JSON). NULL elements read as nil, which only `[String?]` holds.
    ///
    /// ```swift
    /// try ColumnFormat.textArray.stored(.text(#"["a","b c"]"#))   // .text(#"{"a","b c"}"#)
    /// try ColumnFormat.textArray.native(.text(#"{a,"b c"}"#))     // .text(#"["a","b c"]"#)
    /// ```
    case textArray

    /// What kind of Swift value a format applies to.
    package enum Kind: Sendable { case date, uuid, bool, decimal, json }
}

extension ColumnFormat {
    /// The value to store for Strata's native encoding of a value; NULL stays NULL.
    ///
    /// ```swift
    /// try ColumnFormat.dateText.stored(.real(0))   // .text("1970-01-01")
    /// ```
    public func stored(_ native: SQLValue) throws -> SQLValue {
        if native.isNull { return native }
        switch self {
        case .native:
            return native
        case .unixSecondsInteger, .unixMilliseconds, .unixMicroseconds, .julianDay, .dateTimeText, .dateText:
            let seconds: Double
            switch native {
            case .real(let d): seconds = d
            case .integer(let v): seconds = Double(v)
            default: throw ValueConversionError(expected: Date.self, found: native, reason: "not seconds since 1970")
            }
            guard seconds.isFinite, abs(seconds) < 1e15 else {
                throw ValueConversionError(expected: Date.self, found: native, reason: "not a date a column can hold")
            }
            switch self {
            case .unixSecondsInteger: return .integer(Int64(seconds.rounded()))
            case .julianDay: return .real(seconds / 86_400 + Self.julianDayOf1970)
            case .unixMilliseconds: return .integer(Int64((seconds * 1000).rounded()))
            case .unixMicroseconds:
                let scaled = (seconds * 1_000_000).rounded()
                guard abs(scaled) < 9.2e18 else {
                    throw ValueConversionError(expected: Date.self, found: native,
                                               reason: "beyond what INTEGER microseconds since 1970 can hold")
                }
                return .integer(Int64(scaled))
            case .dateText: return .text(DateText.format(microseconds: try Self.textMicroseconds(seconds, native), style: nil))
            case .dateTimeText(let style):
                return .text(DateText.format(microseconds: try Self.textMicroseconds(seconds, native), style: style))
            default: return native
            }
        case .uuidHex, .uuidDashed, .uuidBlob:
            let uuid = try UUID(sqlValue: native)
            switch self {
            case .uuidHex(let upper):
                let hex = uuid.uuidString.replacingOccurrences(of: "-", with: "")
                return .text(upper ? hex.uppercased() : hex.lowercased())
            case .uuidDashed(let upper):
                return .text(upper ? uuid.uuidString.uppercased() : uuid.uuidString.lowercased())
            default:
                return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
            }
        case .boolText(let yes, let no):
            return .text(try Bool(sqlValue: native) ? yes : no)
        case .jsonText(let spaced, let asciiOnly):
            guard case .text(let text) = native else { return native }
            return .text(JSONStyle.restyle(text, spaced: spaced, asciiOnly: asciiOnly))
        case .textArray:
            guard case .text(let json) = native, let literal = ArrayText.literal(json: json) else {
                throw ValueConversionError(expected: [String].self, found: native,
                                           reason: "an array column holds arrays of strings: declare the property [String] or [String?]")
            }
            return .text(literal)
        case .decimalText(let digits):
            guard case .text(let text) = native, NumericText.isNumeral(text), !text.contains(where: { $0 == "e" || $0 == "E" }) else { return native }
            let fraction = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 }
            guard (fraction ?? 0) < digits else { return native }
            return .text(text + (fraction == nil ? "." : "") + String(repeating: "0", count: digits - (fraction ?? 0)))
        }
    }

    /// Strata's native encoding of a stored value; NULL stays NULL, and values that do not match the
    /// format pass through for the type's own reader (which accepts other tools' forms too).
    ///
    /// ```swift
    /// try ColumnFormat.unixMilliseconds.native(.integer(1500))   // .real(1.5)
    /// ```
    public func native(_ stored: SQLValue) throws -> SQLValue {
        switch (self, stored) {
        case (.unixSecondsInteger, .integer(let v)): return .real(Double(v))
        case (.unixMilliseconds, .integer(let v)): return .real(Double(v) / 1000)
        case (.unixMicroseconds, .integer(let v)): return .real(Double(v) / 1_000_000)
        case (.julianDay, .real(let d)): return .real((d - Self.julianDayOf1970) * 86_400)
        case (.julianDay, .integer(let v)): return .real((Double(v) - Self.julianDayOf1970) * 86_400)
        case (.dateTimeText, .text(let s)), (.dateText, .text(let s)):
            return DateText.secondsSince1970(s).map { .real($0) } ?? stored
        case (.boolText(let yes, let no), .text(let s)):
            if s.caseInsensitiveCompare(yes) == .orderedSame { return .integer(1) }
            if s.caseInsensitiveCompare(no) == .orderedSame { return .integer(0) }
            return stored
        case (.textArray, .text(let s)):
            guard let json = try ArrayText.json(s) else {
                throw ValueConversionError(expected: [String].self, found: stored, reason: "not a one-dimensional array's text")
            }
            return .text(json)
        case (.decimalText, .text):
            // Strata's own text ('12.5' for '12.50'), which snapshots compare; what is no decimal passes through.
            return (try? Decimal(sqlValue: stored))?.sqlValue ?? stored
        case (.uuidHex, .text), (.uuidDashed, .text), (.uuidBlob, .blob):
            // Strata's own text, in which keys meet the identity map; what is no UUID passes through.
            return (try? UUID(sqlValue: stored))?.sqlValue ?? stored
        default:
            return stored   // UUID's own reader takes the other forms
        }
    }

    /// What reading back the stored form of a value gives, in Strata's native encoding: for dates, the
    /// seconds the format keeps (whole seconds, the UTC day, 3 or 6 fraction digits); every other format
    /// stores losslessly and gives the value itself. Snapshots remember this (see `Snapshot.swift`), so
    /// a rounded write is no change, and no conflict when the row is read again.
    ///
    /// ```swift
    /// try ColumnFormat.unixSecondsInteger.quantized(.real(1.6))   // .real(2)
    /// ```
    func quantized(_ native: SQLValue) throws -> SQLValue {
        switch self {
        case .unixSecondsInteger, .unixMilliseconds, .unixMicroseconds, .julianDay, .dateTimeText, .dateText:
            return try self.native(stored(native))
        default:
            return native
        }
    }

    /// Whether a value comes back from its column as it was bound (``quantized(_:)`` is the identity).
    var isLossless: Bool {
        switch self {
        case .unixSecondsInteger, .unixMilliseconds, .unixMicroseconds, .julianDay, .dateTimeText, .dateText: false
        default: true
        }
    }

    /// The Julian day number of 1970-01-01 00:00:00 UTC.
    static let julianDayOf1970 = 2_440_587.5

    /// Julian day numbers taken for such in a column of dates: years 763 to 3501. (As seconds since 1970,
    /// which Strata's own REAL dates are, they would all fall between 24 January and 4 February 1970.)
    static let julianDays: ClosedRange<Double> = 2_000_000...3_000_000

    /// 0001-01-01 00:00:00 UTC and 10000-01-01 00:00:00 UTC, in seconds since 1970: the years date text
    /// holds (Python's `datetime.min` and just past `datetime.max`).
    static let firstTextSecond: Double = -62_135_596_800, endTextSecond: Double = 253_402_300_800

    /// Microseconds since 1970, rounded to the nearest, of a date that date text can hold (years 0001 to
    /// 9999), else a ``ValueConversionError``. Checked in seconds first: beyond about 9.2e12 s the
    /// microseconds overflow Int64. `endTextSecond` itself is the Double nearest to Python's
    /// `datetime.max` (9999-12-31 23:59:59.999999, which Django uses for "never"): it is written as that.
    private static func textMicroseconds(_ seconds: Double, _ native: SQLValue) throws -> Int64 {
        guard seconds >= firstTextSecond, seconds <= endTextSecond else {
            let year = seconds < firstTextSecond ? "before year 1" : "after year 9999"
            throw ValueConversionError(expected: Date.self, found: native,
                                       reason: "\(year): date text holds years 0001 to 9999 only, and no tool reads other years back")
        }
        let last: Int64 = 253_402_300_799_999_999   // 9999-12-31 23:59:59.999999
        return min(Int64((seconds * 1_000_000).rounded()), last)
    }

    /// The format of an existing column, from its declared type and one stored non-NULL value (nil when
    /// the column has none).
    static func detect(_ kind: Kind, declaredType: String, sample: SQLValue?, defaultSQL: String? = nil) -> ColumnFormat {
        detect(kind, declaredType: declaredType, sample: ColumnSample(sample), defaultSQL: defaultSQL)
    }

    /// The format of an existing column, from its declared type, what its first non-NULL values show
    /// (``ColumnSample``) and its DEFAULT (`defaultSQL`, as `PRAGMA table_xinfo` gives it).
    static func detect(_ kind: Kind, declaredType: String, sample column: ColumnSample, defaultSQL: String? = nil) -> ColumnFormat {
        let declared = declaredType.uppercased().filter { !$0.isWhitespace }
        let sample = column.first
        switch kind {
        case .json:
            return .native   // from the sampled texts: JSONStyle.detect
        case .decimal:
            // Written as text; the column's affinity stores it as the column does. A text column whose
            // sampled values all have the same digits after the point keeps them.
            if column.decimalFractionDigits > 0 { return .decimalText(fractionDigits: column.decimalFractionDigits) }
            return .native
        case .date:
            // A column that SQLite fills with `julianday('now')` holds Julian days, whatever rows it has yet.
            if let defaultSQL, SQL.mentions(defaultSQL, "julianday") {
                switch sample {
                case .text?, .blob?: break
                default: return .julianDay
                }
            }
            switch sample {
            case .real(let d)?: return julianDays.contains(d) ? .julianDay : .native
            case .integer(let v)?:
                // REAL seconds (FCModel's, GYDataCenter's) in a column of NUMERIC or INTEGER affinity, which
                // stores a whole second as an INTEGER: the first row may hold one.
                if column.reals > 0, (column.integerScale ?? .unixSecondsInteger) == .unixSecondsInteger { return .native }
                // The scale most sampled values have: after 1973, microseconds are 10^14 and more, milliseconds
                // 10^11 and more. By majority, so that a few sentinels (year 9999 in seconds, Long.MAX) do not
                // decide a column, nor a few millisecond dates before 1973.
                guard let scale = column.integerScale else {
                    return v.magnitude >= 100_000_000_000_000 ? .unixMicroseconds
                        : v.magnitude >= 100_000_000_000 ? .unixMilliseconds : .unixSecondsInteger
                }
                return scale
            case .text(let s)?:
                // Days first and dates with a time after them (or the other way): the layout with the time,
                // which holds both.
                let timed = DateText.style(of: s) == .dateText ? (column.withoutFraction ?? column.withFraction) : s
                guard let timed, case .dateTimeText(var style)? = DateText.style(of: timed) else { return DateText.style(of: s) ?? .native }
                style.fractionDigits = column.fractionDigits(default: style.fractionDigits)
                return .dateTimeText(style)
            case .blob?: return .native
            case .null?, nil: break
            }
            // Empty: Python's layout (Django, peewee; SQLAlchemy reads it too) for datetime text.
            if declared == "DATE" { return .dateText }
            if declared.contains("DATETIME") || declared.contains("TIMESTAMP") { return .dateTimeText(.python) }
            switch Affinity(declaredType: declaredType) {
            case .integer: return .unixSecondsInteger
            case .text: return .dateTimeText(.python)
            default: return .native
            }
        case .uuid:
            switch sample {
            case .blob(let data)? where data.count == 16: return .uuidBlob
            case .text(let s)?:
                let hasUpper = s.contains { ("A"..."F").contains($0) }
                if s.count == 32 { return .uuidHex(uppercase: hasUpper) }
                if s.count == 36 { return hasUpper ? .uuidDashed(uppercase: true) : .native }
                return .native
            case nil: break
            default: return .native
            }
            if declared.contains("CHAR(32)") { return .uuidHex(uppercase: false) }
            if declared.contains("BLOB") || declared.contains("BINARY(16)") { return .uuidBlob }
            return .native
        case .bool:
            guard case .text(let s)? = sample else { return .native }
            for (yes, no) in [("t", "f"), ("true", "false"), ("1", "0"), ("y", "n"), ("yes", "no")] {
                for (y, n) in [(yes, no), (yes.uppercased(), no.uppercased()), (yes.capitalized, no.capitalized)]
                where s == y || s == n {
                    return .boolText(true: y, false: n)
                }
            }
            return .native
        }
    }
}

extension DateText {
    /// `YYYY-MM-DD` (no `style`) or the date and time in `style`, UTC, from microseconds since 1970.
    static func format(microseconds: Int64, style: DateTimeTextStyle?) -> String {
        let perDay: Int64 = 86_400_000_000
        let days = microseconds >= 0 ? microseconds / perDay : -((-microseconds + perDay - 1) / perDay)
        let inDay = microseconds - days * perDay
        let (year, month, day) = civil(fromDays: Int(days))
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        guard let style else { return text }
        let seconds = Int(inDay / 1_000_000), fraction = Int(inDay % 1_000_000)
        text += style.separator + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        switch style.fractionDigits {
        case 3?: text += "." + pad(fraction / 1000, 3)   // milliseconds, truncated so that ...999.9995 stays in its second
        case nil where fraction == 0: break
        default: text += "." + pad(fraction, 6)
        }
        return text + style.zoneSuffix
    }

    /// The format of a stored date text: date only, or date and time in its layout.
    static func style(of text: String) -> ColumnFormat? {
        let bytes = Array(text.utf8)
        guard secondsSince1970(text) != nil, bytes.count >= 10, bytes[4] == UInt8(ascii: "-") else { return nil }
        if bytes.count == 10 { return .dateText }
        guard bytes.count >= 19 else { return .dateTimeText(DateTimeTextStyle(separator: String(UnicodeScalar(bytes[10])), fractionDigits: nil)) }
        var digits = 0
        var rest = bytes[19...]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            while let b = rest.first, (48...57).contains(b) { digits += 1; rest = rest.dropFirst() }
        }
        let zone = String(decoding: rest, as: UTF8.self)
        return .dateTimeText(DateTimeTextStyle(
            separator: bytes[10] == UInt8(ascii: "T") ? "T" : " ",
            fractionDigits: digits == 0 ? nil : (digits == 3 ? 3 : 6),
            zoneSuffix: zone.isEmpty ? "" : (zone.uppercased() == "Z" ? "Z" : "+00:00")))
    }

    /// Year, month, day of a count of days since 1970-01-01 (H. Hinnant's algorithm).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
