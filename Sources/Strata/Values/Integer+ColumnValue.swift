import Foundation

extension ColumnValue where Self: FixedWidthInteger {
    /// Integers are stored in `INTEGER` columns.
    ///
    /// ```swift
    /// Int8.columnType  // .integer
    /// ```
    public static var columnType: ColumnType { .integer }

    /// The value as a 64-bit integer; a `UInt`/`UInt64` above `Int64.max` throws instead of wrapping.
    ///
    /// ```swift
    /// try UInt64.max.sqlValue  // throws ValueConversionError
    /// ```
    public var sqlValue: SQLValue {
        get throws {
            guard let value = Int64(exactly: self) else {
                throw ValueConversionError(expected: Int64.self, found: .text(String(self)),
                                           reason: "\(Self.self) \(self) is above Int64.max, which SQLite cannot store")
            }
            return .integer(value)
        }
    }

    /// Reads INTEGER, a REAL with no fraction, or numeric TEXT (a decimal numeral, as SQLite converts it:
    /// `' 12 '`, `'1e3'`, `'12.0'`; not `'0x10'`), when the value fits without loss.
    ///
    /// ```swift
    /// try Int32(sqlValue: .real(7))      // 7
    /// try Int32(sqlValue: .real(1e300))  // throws: out of range
    /// ```
    public init(sqlValue: SQLValue) throws {
        let result: Self?
        switch sqlValue {
        case .integer(let v):
            result = Self(exactly: v)
        case .real(let d):
            result = d.rounded(.towardZero) == d ? Self(exactly: d) : nil
        case .text(let s):
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            if let v = Int64(trimmed) {
                result = Self(exactly: v)
            } else if let v = UInt64(trimmed) {
                result = Self(exactly: v)
            } else if NumericText.isNumeral(trimmed), let d = Double(trimmed), d.rounded(.towardZero) == d {
                result = Self(exactly: d)
            } else {
                result = nil
            }
        case .null, .blob:
            result = nil
        }
        guard let result else {
            throw ValueConversionError(expected: Self.self, found: sqlValue, reason: Self.failureReason(sqlValue))
        }
        self = result
    }

    private static func failureReason(_ value: SQLValue) -> String? {
        switch value {
        case .null: "NULL in a non-optional value"
        case .integer, .real: "not representable as \(Self.self) without loss"
        default: nil
        }
    }
}

extension Int: ColumnValue {}
extension Int8: ColumnValue {}
extension Int16: ColumnValue {}
extension Int32: ColumnValue {}
extension Int64: ColumnValue {}
extension UInt: ColumnValue {}
extension UInt8: ColumnValue {}
extension UInt16: ColumnValue {}
extension UInt32: ColumnValue {}
extension UInt64: ColumnValue {}

extension Bool: ColumnValue {
    /// Booleans are stored as 0 or 1 in `INTEGER` columns.
    ///
    /// ```swift
    /// Bool.columnType  // .integer
    /// ```
    public static var columnType: ColumnType { .integer }
    /// 0 or 1.
    ///
    /// ```swift
    /// true.sqlValue  // .integer(1)
    /// ```
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    /// Reads 0 or 1 (as INTEGER, REAL or TEXT) and, in any case, the texts other tools store:
    /// `t`/`f`, `true`/`false`, `y`/`n`, `yes`/`no`; anything else throws.
    ///
    /// ```swift
    /// try Bool(sqlValue: .integer(1))  // true
    /// try Bool(sqlValue: .text("No"))  // false
    /// try Bool(sqlValue: .integer(2))  // throws
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .integer(0), .real(0): self = false
        case .integer(1), .real(1): self = true
        case .text(let s):
            switch s.trimmingCharacters(in: .whitespaces).lowercased() {
            case "0", "f", "false", "n", "no": self = false
            case "1", "t", "true", "y", "yes": self = true
            default: throw ValueConversionError(expected: Bool.self, found: sqlValue)
            }
        default:
            throw ValueConversionError(expected: Bool.self, found: sqlValue,
                                       reason: sqlValue.isNull ? "NULL in a non-optional value" : "only 0 and 1 are booleans")
        }
    }
}
