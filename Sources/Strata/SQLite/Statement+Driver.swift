import CSQLite

// The SQLite statement as the engine-neutral ``DriverStatement``: the cursor reads are SQLite's own column
// calls, inlined where the library's generic code is specialised for this type.

// The neutral kinds are SQLite's storage-class codes, so the cursor hands them out unconverted.
private let kindsMatch: Void = {
    precondition(ColumnKind.integer.rawValue == SQLITE_INTEGER && ColumnKind.real.rawValue == SQLITE_FLOAT
                 && ColumnKind.text.rawValue == SQLITE_TEXT && ColumnKind.blob.rawValue == SQLITE_BLOB
                 && ColumnKind.null.rawValue == SQLITE_NULL)
}()

extension Statement: DriverStatement {
    @inline(__always)
    package func kind(at index: Int32) -> ColumnKind { ColumnKind(rawValue: sqlite3_column_type(handle, index)) }

    @inline(__always)
    package func withUTF8<T>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        guard let text = sqlite3_column_text(handle, index) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))))
    }

    @inline(__always)
    package func bind(int64 value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }

    @inline(__always)
    package func bind(double value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }

    /// One `sqlite3_column_value` for both the kind and the value (see ``SQLiteCell``).
    @inline(__always)
    package func cell(at index: Int32) -> SQLiteCell { SQLiteCell(value: sqlite3_column_value(handle, index)) }

    /// Checks once that ``ColumnKind``'s raw values are SQLite's (see the top of this file).
    static func checkKinds() { kindsMatch }
}

/// One column of a SQLite statement's current row: one `sqlite3_column_value` gives both the kind and the
/// value, where `sqlite3_column_type` plus `sqlite3_column_int64` would look the column up twice. SQLite calls
/// such a value "unprotected"; reading it with `sqlite3_value_*` is only "not threadsafe", and a connection is
/// used by one isolation domain at a time (see ``Database``). Valid until the statement steps, resets or
/// finalizes.
///
/// ```swift
/// let cell = statement.cell(at: 1)
/// let name = cell.kind == .text ? cell.string : nil
/// ```
package struct SQLiteCell: DriverCell {
    let value: OpaquePointer?

    /// The storage class.
    @inline(__always) package var kind: ColumnKind { ColumnKind(rawValue: sqlite3_value_type(value)) }
    /// The value as an integer.
    @inline(__always) package var int64: Int64 { sqlite3_value_int64(value) }
    /// The value as a double.
    @inline(__always) package var double: Double { sqlite3_value_double(value) }
    /// The UTF-8 bytes, valid until the statement moves (empty for NULL).
    @inline(__always) var utf8: UnsafeBufferPointer<UInt8> {
        guard let text = sqlite3_value_text(value) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
    }
    /// The value as a Swift string ("" for NULL), or nil when the bytes are not valid UTF-8.
    @inline(__always) package var string: String? {
        guard let text = sqlite3_value_text(value) else { return "" }
        return UTF8Text.string(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
    }
}
