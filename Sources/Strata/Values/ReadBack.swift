import Foundation

/// What reading a value back from its column gives, where that is not the value a save binds: the
/// column keeps less than the Swift value holds. Dirty tracking remembers, and compares the current
/// value as, what reading back gives (``TypeRegistry/storedWord(of:at:)``), so that a value the column
/// rounds is no change after its save, and no conflict when the row is read again.
///
/// ```swift
/// try ReadBack.format(.unixSecondsInteger).value(.real(1.6))   // .real(2)
/// try ReadBack.number(.numeric).value(.text("12345678901234567890.5"))  // .text("12345678901234567000")
/// ```
enum ReadBack: Equatable {
    /// A date format that keeps less than a Double (whole seconds, the day, 3 or 6 fraction digits).
    case format(ColumnFormat)
    /// A `Decimal` (bound as text) in a column of numeric affinity, which stores the text as a number:
    /// an INTEGER, or a REAL of about 17 digits.
    case number(Affinity)
    /// A raw ``SQLValue`` in a column of INTEGER, REAL or NUMERIC affinity, which converts what it can:
    /// text that is a numeral becomes a number, an integral REAL an INTEGER (a REAL column: an INTEGER a
    /// REAL). FamilySearch's `STRING` columns store the text '0123' as 123.
    case affinity(Affinity)

    /// How property values of `kind` in a column of `format` and `affinity` read back; nil when exactly
    /// as bound. `isRawValue`: the property is a ``SQLValue``, bound as it is.
    static func of(_ kind: ColumnFormat.Kind?, format: ColumnFormat, affinity: Affinity, isRawValue: Bool = false) -> ReadBack? {
        if isRawValue {
            return affinity == .numeric || affinity == .integer || affinity == .real ? .affinity(affinity) : nil
        }
        switch kind {
        case .date?:
            // (A native date's -0.0, which such a column stores as 0, has the word of 0.0: see SnapshotWord.)
            return format.isLossless ? nil : .format(format)
        case .decimal?:
            return affinity == .numeric || affinity == .integer || affinity == .real ? .number(affinity) : nil
        default:
            return nil
        }
    }

    /// The value reading back gives, in Strata's native encoding, for a value in it; throws when the
    /// column cannot hold the value (the save will throw the same).
    func value(_ native: SQLValue) throws -> SQLValue {
        switch self {
        case .format(let format):
            return try format.quantized(native)
        case .number(let affinity):
            // SQLite's numeric affinity: an integer literal that fits 64 bits becomes INTEGER (but REAL in a
            // REAL column), any other decimal numeral a REAL, an integral REAL that fits an INTEGER (but
            // in a REAL column); what is no numeral stays TEXT.
            guard case .text(let text) = native, NumericText.isNumeral(text) else { return native }
            let stored: SQLValue
            if affinity != .real, let integer = Int64(text) {
                stored = .integer(integer)
            } else if let real = Double(text), real.isFinite {
                stored = affinity != .real && real == real.rounded() && abs(real) < 9.2e18 ? .integer(Int64(real)) : .real(real)
            } else {
                return native
            }
            return try Decimal(sqlValue: stored).sqlValue
        case .affinity(let affinity):
            return Self.stored(native, affinity: affinity)
        }
    }

    /// What a column of INTEGER, REAL or NUMERIC affinity stores for `value`
    /// (https://www.sqlite.org/datatype3.html#type_affinity).
    static func stored(_ value: SQLValue, affinity: Affinity) -> SQLValue {
        switch value {
        case .text(let raw):
            let text = raw.trimmingCharacters(in: .whitespaces)
            guard NumericText.isNumeral(text) else { return value }
            if affinity != .real, let integer = Int64(text) { return .integer(integer) }
            guard let real = Double(text), real.isFinite else { return value }
            return stored(.real(real), affinity: affinity)
        case .real(let real):
            guard affinity != .real, real == real.rounded(), real >= -9.223372036854775808e18, real < 9.223372036854775808e18 else { return value }
            return .integer(Int64(real))
        case .integer(let integer):
            return affinity == .real ? .real(Double(integer)) : value
        default:
            return value
        }
    }
}
