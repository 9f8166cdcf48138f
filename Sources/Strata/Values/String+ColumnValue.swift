import Foundation

extension String: ColumnValue {
    /// Strings are stored as UTF-8 `TEXT`.
    ///
    /// ```swift
    /// String.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }
    /// The text itself, NUL bytes included.
    ///
    /// ```swift
    /// "a".sqlValue  // .text("a")
    /// ```
    public var sqlValue: SQLValue { .text(self) }
    /// Reads TEXT, numbers written into text columns by other tools (as their decimal text) and
    /// UTF-8 BLOBs; NULL and invalid UTF-8 throw. (TEXT another tool stored as bytes that are not valid
    /// UTF-8 reaches here as `.blob` of those bytes, so it throws too, where a `Data` property reads it.)
    ///
    /// ```swift
    /// try String(sqlValue: .integer(123))  // "123"
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .text(let s): self = s
        case .integer(let v): self = String(v)
        case .real(let d): self = String(d)
        case .blob(let data):
            guard let s = String(data: data, encoding: .utf8) else {
                throw ValueConversionError(expected: String.self, found: sqlValue, reason: "not UTF-8")
            }
            self = s
        case .null:
            throw ValueConversionError(expected: String.self, found: sqlValue, reason: "NULL in a non-optional value")
        }
    }
}

extension Data: ColumnValue {
    /// Data is stored as a `BLOB`.
    ///
    /// ```swift
    /// Data.columnType  // .blob
    /// ```
    public static var columnType: ColumnType { .blob }
    /// The bytes.
    ///
    /// ```swift
    /// Data([1]).sqlValue  // .blob(Data([1]))
    /// ```
    public var sqlValue: SQLValue { .blob(self) }
    /// Reads a BLOB, or TEXT as its UTF-8 bytes.
    ///
    /// ```swift
    /// try Data(sqlValue: .text("ab"))  // 2 bytes
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .blob(let d): self = d
        case .text(let s): self = Data(s.utf8)
        default:
            throw ValueConversionError(expected: Data.self, found: sqlValue,
                                       reason: sqlValue.isNull ? "NULL in a non-optional value" : nil)
        }
    }
}

extension URL: ColumnValue {
    /// URLs are stored as their `absoluteString` in `TEXT`.
    ///
    /// ```swift
    /// URL.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }
    /// The absolute string.
    ///
    /// ```swift
    /// URL(string: "https://a.b")!.sqlValue  // .text("https://a.b")
    /// ```
    public var sqlValue: SQLValue { .text(absoluteString) }
    /// Reads text that parses as a URL.
    ///
    /// ```swift
    /// try URL(sqlValue: .text("https://swift.org"))
    /// ```
    public init(sqlValue: SQLValue) throws {
        guard case .text(let s) = sqlValue, let url = URL(string: s) else {
            throw ValueConversionError(expected: URL.self, found: sqlValue)
        }
        self = url
    }
}
