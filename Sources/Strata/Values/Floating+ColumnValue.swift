import Foundation

extension Double: ColumnValue {
    /// Doubles are stored in `REAL` columns.
    ///
    /// ```swift
    /// Double.columnType  // .real
    /// ```
    public static var columnType: ColumnType { .real }
    /// The value itself; SQLite stores NaN as NULL.
    ///
    /// ```swift
    /// 1.5.sqlValue  // .real(1.5)
    /// ```
    public var sqlValue: SQLValue { .real(self) }
    /// Reads REAL, INTEGER (when exactly representable) or numeric TEXT (a decimal numeral such as
    /// `'1e3'`; not `'0x1p3'` nor `'nan'`).
    ///
    /// ```swift
    /// try Double(sqlValue: .integer(3))  // 3.0
    /// try Double(sqlValue: .null)        // throws: NULL (NaN is stored as NULL)
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .real(let d): self = d
        case .integer(let v):
            guard let d = Double(exactly: v) else {
                throw ValueConversionError(expected: Double.self, found: sqlValue, reason: "not exactly representable")
            }
            self = d
        case .text(let s):
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            // Swift's parser also takes hex, `nan` and `inf`, which SQLite and Python read as no number.
            guard NumericText.isNumeral(trimmed), let d = Double(trimmed) else {
                throw ValueConversionError(expected: Double.self, found: sqlValue)
            }
            self = d
        case .null:
            throw ValueConversionError(expected: Double.self, found: sqlValue,
                                       reason: "NULL in a non-optional value (SQLite stores NaN as NULL)")
        case .blob:
            throw ValueConversionError(expected: Double.self, found: sqlValue)
        }
    }
}

extension Float: ColumnValue {
    /// Floats are stored in `REAL` columns.
    ///
    /// ```swift
    /// Float.columnType  // .real
    /// ```
    public static var columnType: ColumnType { .real }
    /// The value widened to a double.
    ///
    /// ```swift
    /// Float(1.5).sqlValue  // .real(1.5)
    /// ```
    public var sqlValue: SQLValue { .real(Double(self)) }
    /// Reads what `Double` reads, rounded to the nearest float; a finite value beyond Float's range throws.
    ///
    /// ```swift
    /// try Float(sqlValue: .real(1.10000002384186))  // 1.1
    /// ```
    public init(sqlValue: SQLValue) throws {
        let d: Double
        do { d = try Double(sqlValue: sqlValue) } catch var error as ValueConversionError {
            error.expected = String(describing: Float.self)  // the type asked for, not the one used to read it
            throw error
        }
        guard !d.isFinite || abs(d) <= Double(Float.greatestFiniteMagnitude) else {
            throw ValueConversionError(expected: Float.self, found: sqlValue, reason: "out of Float's range")
        }
        self = Float(d)
    }
}
