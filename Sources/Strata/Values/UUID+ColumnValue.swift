import Foundation

extension UUID: ColumnValue {
    /// UUIDs are stored as canonical lowercase `TEXT`.
    ///
    /// ```swift
    /// UUID.columnType  // .text
    /// ```
    public static var columnType: ColumnType { .text }
    /// The canonical lowercase form, `8-4-4-4-12` hex digits.
    ///
    /// ```swift
    /// UUID().sqlValue  // .text("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
    /// ```
    public var sqlValue: SQLValue { .text(uuidString.lowercased()) }
    /// Reads canonical text (any case), 32 hex digits without dashes, or a 16-byte BLOB.
    ///
    /// ```swift
    /// try UUID(sqlValue: .text("1b4e28ba2fa111d2883f0016d3cca427"))
    /// ```
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .text(let s):
            if let uuid = UUID(uuidString: s) { self = uuid; return }
            let hex = Array(s.utf8)
            if hex.count == 32, hex.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0 | 0x20 }) {
                let text = String(decoding: hex, as: UTF8.self)
                let dashed = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                    String(text.dropFirst(range.lowerBound).prefix(range.count))
                }.joined(separator: "-")
                if let uuid = UUID(uuidString: dashed) { self = uuid; return }
            }
        case .blob(let data) where data.count == 16:
            let b = Array(data)
            self = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                               b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            return
        default:
            break
        }
        throw ValueConversionError(expected: UUID.self, found: sqlValue,
                                   reason: sqlValue.isNull ? "NULL in a non-optional value" : "not a UUID")
    }
}
