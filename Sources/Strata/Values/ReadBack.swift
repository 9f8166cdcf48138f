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

    /// How property values of `kind` in a column of `format` and `affinity` read back; nil when exactly
    /// as bound.
    static func of(_ kind: ColumnFormat.Kind?, format: ColumnFormat, affinity: Affinity) -> ReadBack? {
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
        }
    }
}
