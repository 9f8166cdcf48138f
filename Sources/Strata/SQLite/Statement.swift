import CSQLite
import Foundation

/// A prepared SQL statement: bind arguments, step through rows, read columns by index.
///
/// Statements come from ``Database/statement(_:)`` and are cached by SQL, so preparing the same SQL
/// twice reuses one. Reading a column allocates nothing but the value itself.
///
/// ```swift
/// let statement = try db.statement("SELECT id, name FROM user WHERE id > ?")
/// try statement.bind([10])
/// while try statement.step() {
///     print(statement.int64(at: 0), statement.string(at: 1))
/// }
/// statement.reset()
/// ```
public final class Statement {
    /// SQLite's statement handle, for calls Strata does not wrap.
    ///
    /// ```swift
    /// sqlite3_stmt_readonly(statement.handle)
    /// ```
    // Unchecked exclusivity: read on every row and column; written only by `finalize`, never during a read.
    @exclusivity(unchecked) public private(set) var handle: OpaquePointer?
    /// The SQL this statement was prepared from.
    ///
    /// ```swift
    /// print(statement.sql)
    /// ```
    public let sql: String
    /// The number of result columns.
    ///
    /// ```swift
    /// statement.columnCount  // 2
    /// ```
    public let columnCount: Int32
    /// The number of `?` parameters.
    ///
    /// ```swift
    /// statement.parameterCount  // 1
    /// ```
    public let parameterCount: Int32
    /// Weak: a statement can outlive its database (it is then finalized, and using it throws `.misuse`).
    weak var connection: Connection?
    /// Whether finishing a run tells the connection that a write happened outside the library's own calls
    /// (``Connection/unreportedWrite``): set for the writing statements ``Database/statement(_:)`` hands out.
    var reportsWrites = false
    /// The tables this statement may write whose rows SQLite's update hook never reports (WITHOUT ROWID),
    /// when there are any: a run that changed such rows is told to the connection
    /// (``Connection/noteSilentWrites(_:_:)``).
    var silentTargets: [String]? {
        didSet { stepsPlainly = silentTargets == nil && savepoint == nil }
    }
    /// Set when this is a SAVEPOINT, RELEASE or ROLLBACK TO statement: running it is told to the connection
    /// (``Connection/savepointStatement``).
    var savepoint: SavepointStatement? {
        didSet { stepsPlainly = silentTargets == nil && savepoint == nil }
    }
    /// Whether stepping is `sqlite3_step` alone (neither of the above): the one check on the hot path.
    private var stepsPlainly = true
    private let argumentsArePublic: Bool
    private var boundArguments: [SQLValue] = []

    init(connection: Connection, sql: String, handle: OpaquePointer) {
        self.connection = connection
        self.argumentsArePublic = connection.argumentsArePublic
        self.sql = sql
        self.handle = handle
        self.columnCount = sqlite3_column_count(handle)
        self.parameterCount = sqlite3_bind_parameter_count(handle)
    }

    deinit { finalize() }

    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    /// The name of a result column.
    ///
    /// ```swift
    /// statement.columnName(at: 0)  // "id"
    /// ```
    public func columnName(at index: Int32) -> String {
        guard let handle, let name = sqlite3_column_name(handle, index) else { return "" }
        return String(cString: name)
    }

    /// All result column names, in order.
    ///
    /// ```swift
    /// statement.columnNames  // ["id", "name"]
    /// ```
    public var columnNames: [String] { (0..<columnCount).map { columnName(at: $0) } }

    // MARK: Binding

    /// Binds arguments to the `?` parameters in order, after clearing earlier bindings.
    ///
    /// ```swift
    /// try statement.bind([1, "Ada", SQLValue.null])
    /// ```
    public func bind(_ arguments: [any ColumnValue]) throws {
        try bind(values: arguments.map { try $0.sqlValue })
    }

    /// Binds raw values to the `?` parameters in order.
    ///
    /// ```swift
    /// try statement.bind(values: [.integer(1)])
    /// ```
    public func bind(values: [SQLValue]) throws {
        guard let handle else { throw closedError() }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard values.count == Int(parameterCount) else {
            throw DatabaseError(code: .range, message: "the statement has \(parameterCount) parameter(s), \(values.count) argument(s) were given",
                                sql: sql, arguments: values, argumentsArePublic: argumentsArePublic)
        }
        boundArguments = values
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    /// Binds a value to a named parameter (`:name`, `@name` or `$name`).
    ///
    /// ```swift
    /// let s = try db.statement("SELECT * FROM user WHERE name = :name")
    /// try s.bind("Ada", named: ":name")
    /// ```
    public func bind(_ value: any ColumnValue, named name: String) throws {
        guard let handle else { throw closedError() }
        // SQLite reads the name as a C string: a NUL byte would cut it, and bind the parameter named by
        // what precedes.
        guard !name.utf8.contains(0) else {
            throw DatabaseError(code: .range, message: "no parameter named \(name.replacingOccurrences(of: "\u{0}", with: "\\0")): the name contains a NUL byte (U+0000)", sql: sql)
        }
        let index = sqlite3_bind_parameter_index(handle, name)
        guard index > 0 else {
            throw DatabaseError(code: .range, message: "no parameter named \(name)", sql: sql)
        }
        try bind(try value.sqlValue, at: index)
    }

    /// Binds one value at a 1-based parameter index.
    ///
    /// ```swift
    /// try statement.bind(.text("Ada"), at: 1)
    /// ```
    public func bind(_ value: SQLValue, at index: Int32) throws {
        guard let handle else { throw closedError() }
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
        case .real(let d): code = sqlite3_bind_double(handle, index, d)
        case .text(let s): code = bindText(s, at: index)
        case .blob(let data): code = bindBlob(data, at: index)
        }
        if code != SQLITE_OK { throw connection?.error(code: code, sql: sql, arguments: [value]) ?? closedError() }
    }


    @inline(__always)
    func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { buffer in
            // An empty buffer may have a nil base address; SQLite reads that as NULL, so bind "" instead.
            guard let base = buffer.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT) }
            return sqlite3_bind_text64(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                       sqlite3_uint64(buffer.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
        }
    }

    func bindBlob(_ data: Data, at index: Int32) -> Int32 {
        data.withUnsafeBytes { buffer in
            // A zero-length blob, not NULL, for empty Data.
            guard let base = buffer.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(buffer.count), SQLITE_TRANSIENT)
        }
    }

    // MARK: Stepping

    /// Advances to the next row: `true` when a row is available, `false` when done.
    ///
    /// ```swift
    /// while try statement.step() { print(statement.int64(at: 0)) }
    /// ```
    @inline(__always)
    public func step() throws -> Bool {
        let code = stepsPlainly ? sqlite3_step(handle) : stepWithCare()
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE {
            if reportsWrites { connection?.unreportedWrite = true }
            return false
        }
        throw stepError(code)
    }

    /// `sqlite3_step` for a statement that may write silent tables, or a savepoint statement (out of line:
    /// rarely taken).
    @inline(never)
    private func stepWithCare() -> Int32 {
        guard let connection else { return sqlite3_step(handle) }
        let savepoint = connection.tracksSavepoints ? self.savepoint : nil
        if let savepoint { connection.savepointStatement?(savepoint, false) }
        let code = silentTargets.map { targets in connection.noteSilentWrites(targets) { sqlite3_step(handle) } } ?? sqlite3_step(handle)
        if let savepoint, code == SQLITE_DONE { connection.savepointStatement?(savepoint, true) }
        return code
    }

    func stepError(_ code: Int32) -> DatabaseError {
        guard handle != nil, let connection else { return closedError() }
        let error = connection.error(code: code, sql: sql, arguments: boundArguments)
        sqlite3_reset(handle)
        connection.statementFailed?()
        return error
    }

    private func closedError() -> DatabaseError {
        DatabaseError(code: .misuse, message: "the database is closed", sql: sql)
    }

    /// Rewinds the statement so it can run again; bindings stay.
    ///
    /// ```swift
    /// statement.reset()
    /// ```
    public func reset() {
        if let handle { sqlite3_reset(handle) }
    }

    /// Runs the statement to completion (for INSERT, UPDATE, DELETE, DDL) with the given arguments.
    ///
    /// ```swift
    /// let insert = try db.statement("INSERT INTO t(x) VALUES (?)")
    /// for x in 0..<10 { try insert.run([x]) }
    /// ```
    public func run(_ arguments: [any ColumnValue] = []) throws {
        try bind(arguments)
        while try step() {}
        reset()
    }

    // MARK: Reading columns

    /// The storage class of a column in the current row.
    ///
    /// ```swift
    /// statement.isNull(at: 2)
    /// ```
    @inline(__always)
    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The column's value when it is stored as an INTEGER; nil for any other storage class.
    @usableFromInline
    func integer(at index: Int32) -> Int64? {
        // One column lookup for both (see FastField.read).
        let value = sqlite3_column_value(handle, index)
        return sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) : nil
    }

    /// The column as a 64-bit integer, converted by SQLite's rules.
    ///
    /// ```swift
    /// statement.int64(at: 0)
    /// ```
    @inline(__always)
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The column as a double, converted by SQLite's rules.
    ///
    /// ```swift
    /// statement.double(at: 1)
    /// ```
    @inline(__always)
    public func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// The column as UTF-8 text ("" for NULL; bytes that are not valid UTF-8 read as U+FFFD).
    ///
    /// ```swift
    /// statement.string(at: 1)
    /// ```
    @inline(__always)
    public func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes (empty for NULL).
    ///
    /// ```swift
    /// statement.data(at: 2)
    /// ```
    public func data(at index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// The column exactly as stored, in its own storage class.
    ///
    /// ```swift
    /// statement.value(at: 0)  // .integer(1)
    /// ```
    @inline(__always)
    public func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: textValue(at: index)
        case SQLITE_BLOB: .blob(data(at: index))
        default: .null
        }
    }

    /// A TEXT column: `.text`, or `.blob` of the stored bytes when they are not valid UTF-8 (another tool
    /// wrote them): a Swift string cannot hold them, and a `Data` property reads them exactly.
    @inline(__always)
    private func textValue(at index: Int32) -> SQLValue {
        guard let text = sqlite3_column_text(handle, index) else { return .text("") }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index)))
        if let string = UTF8Text.string(bytes) { return .text(string) }
        return .blob(Data(buffer: bytes))
    }
}

/// SQLite copies the bytes at once when the destructor is `SQLITE_TRANSIENT` (-1).
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Reading TEXT that must be valid UTF-8.
enum UTF8Text {
    /// The string the bytes spell, or nil when they are not valid UTF-8. As fast as
    /// `String(decoding:as:)` for ASCII (one more pass, eight bytes at a time); other text is compared with
    /// what decoding made of it (a repair replaces at least one byte).
    ///
    /// ```swift
    /// UTF8Text.string(bytes)   // nil for 61 ff 62
    /// ```
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var string = String(decoding: bytes, as: UTF8.self)
        if isASCII(bytes) { return string }
        let same = string.withUTF8 { decoded in
            guard decoded.count == bytes.count, let a = decoded.baseAddress, let b = bytes.baseAddress else { return decoded.count == bytes.count }
            return memcmp(a, b, bytes.count) == 0
        }
        return same ? string : nil
    }

    @inline(__always)
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        var all: UInt64 = 0
        while i + 8 <= raw.count {
            all |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < raw.count {
            all |= UInt64(raw[i])
            i += 1
        }
        return all & 0x8080_8080_8080_8080 == 0
    }
}
