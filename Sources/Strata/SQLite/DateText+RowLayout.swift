import CSQLite

/// A column of date text may hold rows in several layouts (Northwind's `Orders.OrderDate`: 830 rows of
/// `2016-07-04`, then 15,000 of `2015-01-03 22:26:44`). An update writes each value in the layout its own
/// row already has, where that layout holds the value exactly; else as bound (in the most precise layout
/// the column holds: see ``TableMapping/storedDate(_:at:)``). The row's layout is read from its stored
/// text by the UPDATE itself, through the SQL function ``layoutFunctionName``, so no state is kept per
/// instance and only the UPDATE of a date-text column pays.
///
/// ```swift
/// DateText.inRowLayout(new: "2016-07-05 00:00:00", old: "2016-07-04")   // "2016-07-05"
/// DateText.inRowLayout(new: "2016-07-04 01:00:00", old: "2016-07-04")   // "2016-07-04 01:00:00"
/// ```
extension DateText {
    /// The SQL function every connection has: `strata_date_in_row_layout(new, old)`, `new` (date text as
    /// bound) in the layout of `old` (the row's stored value) when that layout holds it exactly, else
    /// `new` as it is (NULL, a number, text that is no date, or a layout that keeps less).
    static let layoutFunctionName = "strata_date_in_row_layout"

    /// The assignment of an UPDATE for a date-text column: `"c" = strata_date_in_row_layout(?,"c")`
    /// (no space after the comma: one `, ` per assignment, as the statement lists them).
    static func assignment(_ quotedColumn: String) -> String {
        "\(quotedColumn) = \(layoutFunctionName)(?,\(quotedColumn))"
    }

    /// `new` in the layout of `old` when that layout gives back exactly the instant `new` holds; else `new`.
    static func inRowLayout(new: String, old: String) -> String {
        guard let layout = style(of: old), layout != style(of: new), let seconds = secondsSince1970(new),
              case .text(let text)? = try? layout.stored(.real(seconds)), secondsSince1970(text) == seconds else { return new }
        return text
    }

    /// Adds ``layoutFunctionName`` to a connection.
    static func registerLayoutFunction(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, layoutFunctionName, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, count, values in
            guard let values, count == 2, let new = values[0] else { return sqlite3_result_null(context) }
            guard sqlite3_value_type(new) == SQLITE_TEXT, let old = values[1], sqlite3_value_type(old) == SQLITE_TEXT,
                  let newText = sqlite3_value_text(new), let oldText = sqlite3_value_text(old) else {
                return sqlite3_result_value(context, new)
            }
            let newString = String(decoding: UnsafeBufferPointer(start: newText, count: Int(sqlite3_value_bytes(new))), as: UTF8.self)
            let oldString = String(decoding: UnsafeBufferPointer(start: oldText, count: Int(sqlite3_value_bytes(old))), as: UTF8.self)
            let result = DateText.inRowLayout(new: newString, old: oldString)
            guard result != newString else { return sqlite3_result_value(context, new) }
            let utf8 = Array(result.utf8)
            utf8.withUnsafeBytes { buffer in
                sqlite3_result_text(context, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), SQLITE_TRANSIENT)
            }
        }, nil, nil, nil)
    }
}
