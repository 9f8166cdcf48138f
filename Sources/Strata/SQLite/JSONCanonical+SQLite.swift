import CSQLite

// The SQL function of ``JSONCanonical`` (its canonical text, in Values/) as SQLite's: registered on every
// connection when it opens (``Connection/init(path:flags:busyTimeout:argumentsArePublic:logger:)``).
extension JSONCanonical {
    /// Adds ``functionName`` to a connection.
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, functionName, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, count, values in
            guard let values, count >= 1, let value = values[0] else { return sqlite3_result_null(context) }
            let type = sqlite3_value_type(value)
            let sorts = count >= 2 && values[1].map { sqlite3_value_int($0) != 0 } == true
            let bytes: [UInt8]
            switch type {
            case SQLITE_TEXT, SQLITE_BLOB:
                let start = type == SQLITE_TEXT ? sqlite3_value_text(value).map(UnsafeRawPointer.init) : sqlite3_value_blob(value)
                let length = Int(sqlite3_value_bytes(value))
                bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            // A JSON number that a column of NUMERIC affinity (SQLAlchemy's `JSON`) stored as a number.
            case SQLITE_INTEGER: bytes = Array(String(sqlite3_value_int64(value)).utf8)
            case SQLITE_FLOAT where sqlite3_value_double(value).isFinite: bytes = Array("\(sqlite3_value_double(value))".utf8)
            default: return sqlite3_result_value(context, value)
            }
            guard let text = JSONCanonical.text(bytes, sortingArray: sorts) else { return sqlite3_result_value(context, value) }
            let utf8 = Array(text.utf8)
            utf8.withUnsafeBytes { buffer in
                sqlite3_result_text(context, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), SQLITE_TRANSIENT)
            }
        }, nil, nil, nil)
    }
}
