import Foundation

/// One value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// let row = try db.rows("SELECT 1 AS n, 'a' AS s")[0]
/// row["n"]  // .integer(1)
/// row["s"]  // .text("a")
/// ```
public enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL NULL.
    ///
    /// ```swift
    /// SQLValue.null
    /// ```
    case null
    /// A 64-bit signed integer.
    ///
    /// ```swift
    /// SQLValue.integer(42)
    /// ```
    case integer(Int64)
    /// An IEEE double.
    ///
    /// ```swift
    /// SQLValue.real(1.5)
    /// ```
    case real(Double)
    /// UTF-8 text.
    ///
    /// ```swift
    /// SQLValue.text("hello")
    /// ```
    case text(String)
    /// Bytes.
    ///
    /// ```swift
    /// SQLValue.blob(Data([1, 2]))
    /// ```
    case blob(Data)

    /// The storage class name as `typeof()` spells it.
    ///
    /// ```swift
    /// SQLValue.real(1).storageClassName  // "real"
    /// ```
    public var storageClassName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }

    /// Whether this is NULL.
    ///
    /// ```swift
    /// SQLValue.null.isNull  // true
    /// ```
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// A short form for messages: `integer 3`, `text 'abc'` (long text is cut).
    ///
    /// ```swift
    /// print(SQLValue.text("abc"))  // text 'abc'
    /// ```
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return "integer \(v)"
        case .real(let v): return "real \(v)"
        case .text(let s): return s.count > 60 ? "text '\(s.prefix(60))…' (\(s.utf8.count) bytes)" : "text '\(s)'"
        case .blob(let d): return "blob of \(d.count) bytes"
        }
    }
}
