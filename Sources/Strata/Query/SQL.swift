/// Small helpers for building SQL text: identifiers are always quoted, values are always bound.
enum SQL {
    /// `"name"` with embedded quotes doubled.
    static func quote(_ identifier: String) -> String {
        // Most names hold no quote: skip Foundation's search-and-replace (a fifth of a lookup by key).
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A literal for a column DEFAULT (DDL cannot bind parameters).
    static func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let d):
            if d.isNaN { return "NULL" }
            if d.isInfinite { return d > 0 ? "9e999" : "-9e999" }
            return "\(d)"
        case .text(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// `?, ?, ?` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

import Foundation
