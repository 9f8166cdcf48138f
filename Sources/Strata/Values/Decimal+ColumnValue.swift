import Foundation

extension Decimal: ColumnValue {
    /// Decimals are stored as TEXT in columns Strata creates, so every digit is kept (a REAL keeps 15).
    ///
    /// ```swift
    /// Decimal.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }

    /// The decimal's digits as text (`"12.50"` stays `"12.5"`, `"0.1"` stays exact). Bound as text into a
    /// column of another type, SQLite's affinity turns it into a number there, as Django writes decimals.
    ///
    /// ```swift
    /// Decimal(string: "19.99")!.sqlValue  // .text("19.99")
    /// ```
    public var sqlValue: SQLValue { .text(description) }

    /// Reads TEXT (every digit), INTEGER, and REAL (by its shortest decimal spelling, so `0.1` reads as
    /// 0.1, not as the binary double's 55 digits); anything else throws.
    ///
    /// ```swift
    /// try Decimal(sqlValue: .real(12.5))                             // 12.5
    /// try Decimal(sqlValue: .text("12345678901234567890.123456789")) // every digit
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .integer(let v): self = Decimal(v)
        case .real(let d):
            guard d.isFinite, let value = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")) else {
                throw ValueConversionError(expected: Decimal.self, found: sqlValue, reason: "not a finite number")
            }
            self = value
        case .text(let s):
            let text = s.trimmingCharacters(in: .whitespaces)
            // Decimal(string:) reads a leading number and ignores the rest ("12abc" -> 12): check the whole.
            guard NumericText.isNumeral(text), let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw ValueConversionError(expected: Decimal.self, found: sqlValue, reason: "not a decimal number")
            }
            self = value
        case .null:
            throw ValueConversionError(expected: Decimal.self, found: sqlValue, reason: "NULL in a non-optional value")
        case .blob:
            throw ValueConversionError(expected: Decimal.self, found: sqlValue)
        }
    }
}
