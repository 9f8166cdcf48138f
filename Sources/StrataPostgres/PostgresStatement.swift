import CLibPQ
import Foundation
import Strata

/// A statement prepared on a PostgreSQL server, as the engine-neutral `DriverStatement`.
///
/// Parameters are sent in libpq's text format (integers and reals as their decimal text, reals with
/// Swift's shortest round-tripping spelling, `NaN` and `Infinity` by name), except blobs, sent in binary
/// format (their bytes as they are: no escaping); the server types each parameter from where it is used.
/// The first `step()` runs the statement (`PQexecPrepared`) and fetches its whole result, in text format;
/// each `step()` then moves to the next row of it. Binding again drops the result, as `reset()` does.
///
/// ```swift
/// let statement = try connection.prepare("SELECT id, name FROM t WHERE id > $1")
/// try statement.bind(values: [.integer(0)])
/// while try statement.step() { print(statement.value(at: 0), statement.value(at: 1)) }
/// ```
package final class PostgresStatement: DriverStatement {
    package let sql: String
    /// The server-side name (`strata_n`).
    package let name: String
    package let columnCount: Int32
    package let parameterCount: Int32
    private weak var connection: PostgresConnection?
    private let columnNames: [String]
    /// Each column's type OID, from the statement's description.
    private let columnTypes: [UInt32]
    /// Each parameter: NULL, an integer (spelled into ``storage`` when the statement runs: no array per
    /// parameter), or bytes (text: NUL-terminated) and whether they are in binary format.
    private var parameters: [Parameter]
    /// What `PQexecPrepared` is handed, made once per statement and reused at each run: one buffer for
    /// every parameter's bytes (never empty, so that an empty blob has an address: a null pointer would
    /// mean NULL), each parameter's pointer into it, length and format.
    private var storage: UnsafeMutablePointer<UInt8>
    private var storageCapacity: Int
    private let pointers: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private let lengths: UnsafeMutablePointer<Int32>
    private let formats: UnsafeMutablePointer<Int32>
    /// An argument rejected while binding without `throws`, thrown by the next `step()`.
    private var bindError: PostgresError?
    /// The fetched result (a `PGresult`), nil until the first step.
    private var result: OpaquePointer?
    private var row: Int32 = -1
    private var rowCount: Int32 = 0

    /// Takes ownership of `description` (the `PQdescribePrepared` result).
    init(connection: PostgresConnection, name: String, sql: String, description: OpaquePointer?) {
        self.connection = connection
        self.name = name
        self.sql = sql
        let columns = description.map { PQnfields($0) } ?? 0
        columnCount = columns
        parameterCount = description.map { PQnparams($0) } ?? 0
        columnNames = (0..<columns).map { column in description.flatMap { PQfname($0, column) }.map { String(cString: $0) } ?? "" }
        columnTypes = (0..<columns).map { column in description.map { PQftype($0, column) } ?? 0 }
        parameters = Array(repeating: .null, count: Int(parameterCount))
        let slots = max(1, Int(parameterCount))
        storageCapacity = 21 * slots + 1
        storage = .allocate(capacity: storageCapacity)
        pointers = .allocate(capacity: slots)
        pointers.initialize(repeating: nil, count: slots)
        lengths = .allocate(capacity: slots)
        lengths.initialize(repeating: 0, count: slots)
        formats = .allocate(capacity: slots)
        formats.initialize(repeating: 0, count: slots)
        PQclear(description)
    }

    deinit {
        storage.deallocate()
        pointers.deallocate()
        lengths.deallocate()
        formats.deallocate()
        if let result { PQclear(result) }
        connection?.deallocate(name)
    }

    package func columnName(at index: Int32) -> String {
        index >= 0 && index < columnCount ? columnNames[Int(index)] : ""
    }

    // MARK: - Binding

    /// Binds `values` to `$1`, `$2`, … after clearing the earlier bindings; throws (SQLSTATE 22023) when the
    /// count differs from the statement's.
    package func bind(values: [SQLValue]) throws {
        reset()
        bindError = nil
        for i in parameters.indices { parameters[i] = .null }
        guard values.count == Int(parameterCount) else {
            throw PostgresError(sqlState: "22023", message: "the statement has \(parameterCount) parameter(s), \(values.count) argument(s) were given", sql: sql)
        }
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    /// Binds one value at a 1-based index. Text holding a NUL byte is rejected (22021), as the server would.
    package func bind(_ value: SQLValue, at index: Int32) throws {
        if let error = set(value, at: index) { throw error }
    }

    package func bind(int64 value: Int64, at index: Int32) {
        if let error = set(.integer(value), at: index) { bindError = error }
    }

    package func bind(double value: Double, at index: Int32) {
        if let error = set(.real(value), at: index) { bindError = error }
    }

    private func set(_ value: SQLValue, at index: Int32) -> PostgresError? {
        guard index >= 1 && index <= parameterCount else {
            return PostgresError(sqlState: "22023", message: "parameter index \(index) out of range 1...\(parameterCount)", sql: sql)
        }
        reset()
        let parameter: Parameter
        switch value {
        case .null: parameter = .null
        case .integer(let v): parameter = .integer(v)
        case .real(let d):
            let text = d.isNaN ? "NaN" : d.isInfinite ? (d > 0 ? "Infinity" : "-Infinity") : "\(d)"
            parameter = .bytes(Array(text.utf8) + [0], binary: false)
        case .text(let s):
            guard !s.utf8.contains(0) else {
                return PostgresError(sqlState: "22021", message: "text parameter \(index) holds a NUL byte (U+0000), which PostgreSQL text cannot", sql: sql)
            }
            parameter = .bytes(Array(s.utf8) + [0], binary: false)
        case .blob(let data): parameter = .bytes([UInt8](data), binary: true)
        }
        parameters[Int(index - 1)] = parameter
        return nil
    }

    /// An integer's decimal text, NUL-terminated, as an array.
    static func decimalText(_ value: Int64) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 21) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            count = writeDecimal(value, to: base)
        }
    }

    /// Writes an integer's decimal text and a NUL at `destination` (at most 21 bytes); returns the bytes
    /// written, NUL included.
    @inline(__always)
    static func writeDecimal(_ value: Int64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        // The digits, last first, into 20 bytes on the stack, then copied in order.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var magnitude = value.magnitude
            var end = 20
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            var length = 0
            if value < 0 {
                destination[0] = UInt8(ascii: "-")
                length = 1
            }
            for i in end..<20 {
                destination[length] = buffer[i]
                length += 1
            }
            destination[length] = 0
            return length + 1
        }
    }

    // MARK: - Running

    package func step() throws -> Bool {
        if result == nil { try run() }
        guard row + 1 < rowCount else {
            row = rowCount
            return false
        }
        row += 1
        return true
    }

    /// Drops the fetched result; the next `step()` runs the statement again with the same bindings.
    package func reset() {
        if let result { PQclear(result) }
        result = nil
        row = -1
        rowCount = 0
    }

    private func run() throws {
        guard let connection else { throw PostgresError(sqlState: "08003", message: "the connection is closed", sql: sql) }
        let handle = try connection.openHandle(sql: sql)
        if let bindError { throw bindError }
        connection.statementObserver?(sql)
        // Every parameter's bytes into the statement's one buffer (grown only when they do not fit: an
        // integer takes at most 21 bytes), then the pointers into it.
        var needed = 1
        for parameter in parameters {
            switch parameter {
            case .null: break
            case .integer: needed += 21
            case .bytes(let bytes, _): needed += bytes.count
            }
        }
        if needed > storageCapacity {
            storage.deallocate()
            storage = .allocate(capacity: needed)
            storageCapacity = needed
        }
        var offset = 0
        var index = 0
        for parameter in parameters {
            switch parameter {
            case .null:
                pointers[index] = nil
                lengths[index] = 0
                formats[index] = 0
            case .integer(let value):
                let written = Self.writeDecimal(value, to: storage + offset)
                pointers[index] = UnsafeRawPointer(storage + offset).assumingMemoryBound(to: CChar.self)
                lengths[index] = Int32(written)
                formats[index] = 0
                offset += written
            case .bytes(let bytes, let binary):
                bytes.withUnsafeBufferPointer { source in
                    if let base = source.baseAddress { (storage + offset).update(from: base, count: source.count) }
                }
                pointers[index] = UnsafeRawPointer(storage + offset).assumingMemoryBound(to: CChar.self)
                lengths[index] = Int32(clamping: bytes.count)
                formats[index] = binary ? 1 : 0
                offset += bytes.count
            }
            index += 1
        }
        let fetched = PQexecPrepared(handle, name, parameterCount, pointers, lengths, formats, 0)
        do {
            try connection.check(fetched, sql: sql)
        } catch {
            PQclear(fetched)
            throw error
        }
        connection.record(fetched)
        result = fetched
        row = -1
        rowCount = fetched.map { PQntuples($0) } ?? 0
    }

    // MARK: - Reading the current row

    /// The column of the current row (a NULL cell when there is no current row or no such column).
    @inline(__always)
    package func cell(at index: Int32) -> PostgresCell {
        guard let result, row >= 0, row < rowCount, index >= 0, index < columnCount,
              PQgetisnull(result, row, index) == 0, let text = PQgetvalue(result, row, index) else {
            return PostgresCell(type: 0, kind: .null, text: UnsafeBufferPointer(start: nil, count: 0))
        }
        let type = columnTypes[Int(index)]
        let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        return PostgresCell(type: type, kind: PostgresCell.kind(of: type),
                            text: UnsafeBufferPointer(start: bytes, count: Int(PQgetlength(result, row, index))))
    }

    package func kind(at index: Int32) -> ColumnKind { cell(at: index).kind }

    package func int64(at index: Int32) -> Int64 { cell(at: index).int64 }

    package func double(at index: Int32) -> Double { cell(at: index).double }

    /// The column's text as UTF-8; a `bytea` column's bytes (decoded), a `boolean`'s `1` or `0`.
    package func withUTF8<T>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let cell = cell(at: index)
        switch cell.type {
        case _ where cell.kind == .null: return try body(UnsafeBufferPointer(start: nil, count: 0))
        case PostgresCell.byteaType: return try cell.bytes.withUnsafeBufferPointer(body)
        case PostgresCell.boolType: return try (cell.int64 == 1 ? [UInt8(ascii: "1")] : [UInt8(ascii: "0")]).withUnsafeBufferPointer(body)
        default: return try body(cell.text)
        }
    }

    package func value(at index: Int32) -> SQLValue { cell(at: index).value }

    /// A bound parameter (see ``parameters``).
    private enum Parameter {
        case null
        case integer(Int64)
        case bytes([UInt8], binary: Bool)
    }
}

extension PostgresStatement: RemoteStatement {
    /// The column's text as the server sent it (`t` for true, `\x00ff` for bytes); nil for NULL.
    package func text(at index: Int32) -> String? {
        let cell = cell(at: index)
        return cell.kind == .null ? nil : String(decoding: cell.text, as: UTF8.self)
    }

    /// `PQntuples` of the fetched result; nil before the first `step()`.
    package var resultRowCount: Int? { result == nil ? nil : Int(rowCount) }

    /// The row's 8-byte numbers straight from libpq's cells (see `RemoteStatement`): one call per row, one
    /// libpq call per integer cell (`PQgetvalue`: its text is NUL-terminated, and a NULL's is empty, which no
    /// integer is, so a NULL stops the loop as text that is no integer does, for the converting path).
    package func readWords(from first: Int, reals: UnsafeBufferPointer<Bool>, into words: UnsafeMutablePointer<UInt64>) -> Int? {
        guard first < reals.count else { return nil }
        guard let result, row >= 0, row < rowCount else { return first }
        let row = self.row
        let end = min(reals.count, Int(columnCount))
        return columnTypes.withUnsafeBufferPointer { types -> Int? in
            var i = first
            while i < end {
                let column = Int32(i)
                guard let value = PQgetvalue(result, row, column) else { return i }
                let text = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
                // (The type OIDs of PostgresCell.kind(of:), compared directly.)
                let type = types[i]
                if reals[i] {
                    guard type == 700 || type == 701 || type == 1700, text[0] != 0 else { return i }
                    let cell = UnsafeBufferPointer(start: text, count: Int(PQgetlength(result, row, column)))
                    words[i] = PostgresCell(type: type, kind: .real, text: cell).double.bitPattern
                } else if type == 20 || type == 23 || type == 21 {
                    guard let integer = PostgresCell.integer(terminated: text) else { return i }
                    words[i] = UInt64(bitPattern: integer)
                } else if type == PostgresCell.boolType {
                    // (`t` or `f`; a NULL's empty text is neither.)
                    guard text[0] == UInt8(ascii: "t") || text[0] == UInt8(ascii: "f") else { return i }
                    words[i] = text[0] == UInt8(ascii: "t") ? 1 : 0
                } else {
                    return i
                }
                i += 1
            }
            return i < reals.count ? i : nil
        }
    }
}

/// One column of a PostgreSQL statement's current row: the column's type OID mapped onto a ``ColumnKind``
/// and its text as the server sent it. Valid until the statement steps, resets, binds or goes away.
///
/// The kinds: `smallint`, `integer`, `bigint` and `boolean` (1 or 0) are integers; `real`,
/// `double precision` and `numeric` are reals (a numeric beyond a double's precision is rounded);
/// `bytea` is a blob; every other type is text (its PostgreSQL text form: `2024-01-02 03:04:05+00`,
/// a UUID, JSON); NULL is null.
///
/// ```swift
/// let cell = statement.cell(at: 0)
/// if cell.kind == .blob { print(cell.bytes) }
/// ```
package struct PostgresCell: DriverCell {
    static let boolType: UInt32 = 16
    static let byteaType: UInt32 = 17

    /// The column's type OID (0 for NULL).
    package let type: UInt32
    package let kind: ColumnKind
    /// The value's text as the server sent it (empty for NULL).
    package let text: UnsafeBufferPointer<UInt8>

    /// The kind of a type OID.
    package static func kind(of type: UInt32) -> ColumnKind {
        switch type {
        case 16, 20, 21, 23: return .integer          // bool, int8, int2, int4
        case 700, 701, 1700: return .real             // float4, float8, numeric
        case 17: return .blob                         // bytea
        default: return .text
        }
    }

    /// The value as an integer: a real truncated (clamped to Int64's range, NaN as 0), text read as a
    /// number when it is one (else 0), a boolean as 1 or 0.
    package var int64: Int64 {
        switch kind {
        case .null: return 0
        case .integer where type == Self.boolType: return text.first == UInt8(ascii: "t") ? 1 : 0
        case .integer: return Self.integer(text) ?? 0
        default:
            let string = self.string ?? ""
            if let integer = Int64(string) { return integer }
            return Self.clamped(Double(string) ?? 0)
        }
    }

    /// The value as a double (`NaN` and `Infinity` by name; text that is not a number is 0).
    package var double: Double {
        switch kind {
        case .null: return 0
        case .integer: return Double(int64)
        default: return Double(string ?? "") ?? 0
        }
    }

    /// The value as text ("" for NULL): a `bytea`'s bytes when they are UTF-8 (else nil), a boolean's `1`
    /// or `0`, any other column's text form.
    package var string: String? {
        switch type {
        case _ where kind == .null: return ""
        case Self.byteaType: return String(bytes: bytes, encoding: .utf8)
        case Self.boolType: return int64 == 1 ? "1" : "0"
        default: return String(validating: text, as: UTF8.self)
        }
    }

    /// The decimal integer an `int2`/`int4`/`int8` cell spells (`-42`), read from its bytes: no `String` on the
    /// way (the fetch's cost per cell). Nil when it is not one.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        // Up to 18 digits cannot overflow: no overflow checks on the way (the common case).
        if text.count <= 18, let first = text.first, first != UInt8(ascii: "-"), first != UInt8(ascii: "+") {
            var value: UInt64 = 0
            for byte in text {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ UInt64(digit)
            }
            return Int64(bitPattern: value)
        }
        guard let first = text.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        var index = negative || first == UInt8(ascii: "+") ? 1 : 0
        guard index < text.count else { return nil }
        var value: Int64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulated negatively, so that Int64.min reads too.
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times.subtractingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        let (positive, overflow) = (0 as Int64).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    /// ``integer(_:)`` of a cell's NUL-terminated text (what `PQgetvalue` gives): up to 18 digits read as they
    /// come, with no length asked for (the common case); anything else (a sign, 19 digits, no digit at all)
    /// through ``integer(_:)``.
    @inline(__always)
    static func integer(terminated text: UnsafePointer<UInt8>) -> Int64? {
        var value: UInt64 = 0
        var length = 0
        while true {
            let digit = text[length] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            length += 1
        }
        if text[length] == 0, length > 0, length <= 18 { return Int64(bitPattern: value) }
        if text[length] != 0 && length > 0 { return nil }   // (digits, then something else)
        while text[length] != 0 { length += 1 }
        return integer(UnsafeBufferPointer(start: text, count: length))
    }

    /// A `bytea`'s bytes, decoded from the text form (`\x…`); for another column, its text's bytes.
    package var bytes: [UInt8] {
        guard type == Self.byteaType, let base = text.baseAddress else { return Array(text) }
        var length = 0
        guard let decoded = PQunescapeBytea(base, &length) else { return [] }
        defer { PQfreemem(decoded) }
        return Array(UnsafeBufferPointer(start: decoded, count: length))
    }

    /// The value as Strata's `SQLValue`, by kind.
    package var value: SQLValue {
        switch kind {
        case .null: return .null
        case .integer: return .integer(int64)
        case .real: return .real(double)
        case .blob: return .blob(Data(bytes))
        default: return .text(String(decoding: text, as: UTF8.self))
        }
    }

    private static func clamped(_ d: Double) -> Int64 {
        if d.isNaN { return 0 }
        if d >= 9_223_372_036_854_775_808.0 { return .max }   // 2^63
        if d <= -9_223_372_036_854_775_808 { return .min }
        return Int64(d.rounded(.towardZero))
    }
}
