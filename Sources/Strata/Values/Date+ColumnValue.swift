import Foundation

extension Date: ColumnValue {
    /// Dates are stored as `REAL` seconds since 1970, the convention of GYDataCenter and FCModel.
    ///
    /// ```swift
    /// Date.columnType  // .real
    /// ```
    public static var columnType: ColumnType { .real }
    /// Seconds since 1970.
    ///
    /// ```swift
    /// Date(timeIntervalSince1970: 1).sqlValue  // .real(1.0)
    /// ```
    public var sqlValue: SQLValue { .real(timeIntervalSince1970) }
    /// Reads REAL or INTEGER seconds since 1970, and text in SQLite's `YYYY-MM-DD HH:MM:SS[.SSS]` or
    /// ISO-8601 form (`T` separator, `Z` or `±HH:MM` zone; no zone means UTC), as other tools write.
    ///
    /// ```swift
    /// try Date(sqlValue: .text("2001-02-03 04:05:06.789"))
    /// try Date(sqlValue: .text("2001-02-03T04:05:06Z"))
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .real(let d): self.init(timeIntervalSince1970: d)
        case .integer(let v): self.init(timeIntervalSince1970: TimeInterval(v))
        case .text(let s):
            guard let seconds = DateText.secondsSince1970(s) else {
                throw ValueConversionError(expected: Date.self, found: sqlValue,
                                           reason: "not seconds since 1970, nor YYYY-MM-DD[ HH:MM[:SS[.SSS]]][zone]")
            }
            self.init(timeIntervalSince1970: seconds)
        case .null, .blob:
            throw ValueConversionError(expected: Date.self, found: sqlValue,
                                       reason: sqlValue.isNull ? "NULL in a non-optional value" : nil)
        }
    }
}

/// Parses the date texts other tools write, without DateFormatter (which is slow and locale-bound).
enum DateText {
    static func secondsSince1970(_ text: String) -> Double? {
        var bytes = Array(text.utf8)[...]
        while bytes.first == 32 { bytes.removeFirst() }
        while bytes.last == 32 { bytes.removeLast() }
        let whole = String(decoding: bytes, as: UTF8.self)
        if NumericText.isNumeral(whole), let numeric = Double(whole) { return numeric }
        guard let year = number(&bytes, digits: 4), take(&bytes, "-"),
              let month = number(&bytes, digits: 2), take(&bytes, "-"),
              let day = number(&bytes, digits: 2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if bytes.isEmpty { return seconds }
        guard take(&bytes, " ") || take(&bytes, "T") || take(&bytes, "t"),
              let hour = number(&bytes, digits: 2), take(&bytes, ":"),
              let minute = number(&bytes, digits: 2), hour < 24, minute < 60 else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if take(&bytes, ":") {
            guard let second = number(&bytes, digits: 2), second < 61 else { return nil }
            seconds += Double(second)
            if take(&bytes, ".") {
                var scale = 0.1, fraction = 0.0, any = false
                while let b = bytes.first, (48...57).contains(b) {
                    fraction += Double(b - 48) * scale
                    scale /= 10
                    any = true
                    bytes.removeFirst()
                }
                guard any else { return nil }
                seconds += fraction
            }
        }
        if bytes.isEmpty || take(&bytes, "Z") || take(&bytes, "z") { return bytes.isEmpty ? seconds : nil }
        guard let sign = bytes.first, sign == 43 || sign == 45 else { return nil }
        bytes.removeFirst()
        guard let zoneHour = number(&bytes, digits: 2) else { return nil }
        _ = take(&bytes, ":")
        let zoneMinute = bytes.isEmpty ? 0 : number(&bytes, digits: 2)
        guard let zoneMinute, bytes.isEmpty else { return nil }
        let offset = Double(zoneHour * 3600 + zoneMinute * 60)
        return sign == 43 ? seconds - offset : seconds + offset
    }

    private static func take(_ bytes: inout ArraySlice<UInt8>, _ character: Unicode.Scalar) -> Bool {
        guard bytes.first == UInt8(ascii: character) else { return false }
        bytes.removeFirst()
        return true
    }

    private static func number(_ bytes: inout ArraySlice<UInt8>, digits: Int) -> Int? {
        guard bytes.count >= digits else { return nil }
        var value = 0
        for _ in 0..<digits {
            let b = bytes.removeFirst()
            guard (48...57).contains(b) else { return nil }
            value = value * 10 + Int(b - 48)
        }
        return value
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
