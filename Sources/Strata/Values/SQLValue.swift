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

    /// Equal as SQLite's `=` with the BINARY collation has it for the same storage class: text by its
    /// UTF-8 bytes, not by Swift's `String` equality, which finds "caf\u{E9}" (NFC) and "cafe\u{301}" (NFD)
    /// equal where SQLite stores and compares two different keys.
    ///
    /// ```swift
    /// SQLValue.text("caf\u{E9}") == .text("cafe\u{301}")   // false
    /// ```
    public static func == (lhs: SQLValue, rhs: SQLValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.text(var a), .text(var b)):
            // Byte by byte over the contiguous UTF-8 (a generic walk of the two UTF8Views cost ~40 times more).
            guard a.utf8.count == b.utf8.count else { return false }
            return a.withUTF8 { x in
                b.withUTF8 { y in
                    guard let p = x.baseAddress, let q = y.baseAddress else { return x.count == y.count }
                    return memcmp(p, q, x.count) == 0
                }
            }
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }

    /// Hashes text by its UTF-8 bytes (see ``==(_:_:)``).
    ///
    /// ```swift
    /// Set([SQLValue.text("caf\u{E9}"), .text("cafe\u{301}")]).count   // 2
    /// ```
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .integer(let v): hasher.combine(1 as UInt8); hasher.combine(v)
        case .real(let v): hasher.combine(2 as UInt8); hasher.combine(v)
        case .text(let s):
            hasher.combine(3 as UInt8)
            var s = s
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let d): hasher.combine(4 as UInt8); hasher.combine(d)
        }
    }

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
