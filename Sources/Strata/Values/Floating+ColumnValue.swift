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
    /// The double of the float's shortest decimal spelling: `0.1` for `0.1` (not the widened
    /// 0.100000001490116), as another tool, or a person, would have written it. It reads back as the same
    /// float.
    ///
    /// ```swift
    /// Float(0.1).sqlValue  // .real(0.1)
    /// ```
    public var sqlValue: SQLValue { .real(isFinite ? Double(description) ?? Double(self) : Double(self)) }
    /// Reads what `Double` reads, rounded to the nearest float; a finite value that rounds to infinity throws.
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
        // (Float's largest, written as its shortest decimal 3.4028235e+38, is a little above it as a double.)
        let float = Float(d)
        guard !d.isFinite || float.isFinite else {
            throw ValueConversionError(expected: Float.self, found: sqlValue, reason: "out of Float's range")
        }
        self = float
    }
}

/// The REAL values that read back as one `Float` (``Float/init(sqlValue:)`` rounds to the nearest): what a
/// key-path condition on a float property compares with, so that `\.ratio == 0.1` finds a row whatever
/// double another tool stored for it (0.1 from Python, 0.100000001490116 from GRDB or GYDataCenter).
struct FloatRange {
    /// The bounds, midway to the neighbouring floats; a bound is in the range when the float's
    /// significand is even (ties round to even).
    let lower: Double, upper: Double
    let inclusive: Bool

    /// The range of a condition's value: a `Float`, an optional one, or an enum whose raw value is one;
    /// nil for any other value and for infinities and NaN, which compare as themselves.
    static func of(_ value: Any) -> FloatRange? {
        var float = value as? Float
        if float == nil, let raw = value as? any RawRepresentable { float = raw.rawValue as Any as? Float }
        guard let float, float.isFinite else { return nil }
        let d = Double(float)
        return FloatRange(lower: (Double(float.nextDown) + d) / 2, upper: (d + Double(float.nextUp)) / 2,
                          inclusive: float.significandBitPattern & 1 == 0)
    }

    /// The SQL of `column op value` over the range, appending its arguments.
    func sql(_ column: String, _ op: String, _ arguments: inout [SQLValue]) -> String {
        let below = inclusive ? "<" : "<=", above = inclusive ? ">" : ">="
        switch op {
        case "<": arguments.append(.real(lower)); return "\(column) \(below) ?"
        case "<=": arguments.append(.real(upper)); return "\(column) \(inclusive ? "<=" : "<") ?"
        case ">": arguments.append(.real(upper)); return "\(column) \(above) ?"
        case ">=": arguments.append(.real(lower)); return "\(column) \(inclusive ? ">=" : ">") ?"
        default:
            arguments += [.real(lower), .real(upper)]
            let within = "(\(column) \(inclusive ? ">=" : ">") ? AND \(column) \(inclusive ? "<=" : "<") ?)"
            return op == "=" ? within : "NOT \(within)"
        }
    }
}
