import Foundation

/// A prepared statement of an engine: bind, step, and read the current row by column index.
///
/// The library's hot paths are generic over the concrete statement (or call the SQLite one directly), so
/// that reading a column is a direct, inlinable call: never an existential call per column.
///
/// ```swift
/// func firstColumn<S: DriverStatement>(_ statement: S) throws -> [Int64] {
///     var values: [Int64] = []
///     while try statement.step() where statement.kind(at: 0) == .integer {
///         values.append(statement.int64(at: 0))
///     }
///     return values
/// }
/// ```
package protocol DriverStatement: AnyObject {
    /// One column of the current row, read once for both its kind and its value.
    associatedtype Cell: DriverCell

    /// The SQL the statement was prepared from.
    var sql: String { get }
    /// The number of result columns.
    var columnCount: Int32 { get }
    /// The number of parameters.
    var parameterCount: Int32 { get }
    /// A result column's name.
    func columnName(at index: Int32) -> String

    /// Binds values to the parameters in order, after clearing earlier bindings.
    func bind(values: [SQLValue]) throws
    /// Binds one value at a 1-based parameter index.
    func bind(_ value: SQLValue, at index: Int32) throws
    /// Binds an integer at a 1-based parameter index, without a `SQLValue` on the way.
    func bind(int64 value: Int64, at index: Int32)
    /// Binds a double at a 1-based parameter index.
    func bind(double value: Double, at index: Int32)
    /// Advances to the next row: `true` when there is one, `false` when done.
    func step() throws -> Bool
    /// Makes the statement ready to run again (bindings stay).
    func reset()

    /// One column of the current row (valid until the statement steps, resets or finalizes).
    func cell(at index: Int32) -> Cell
    /// The kind of value in a column of the current row.
    func kind(at index: Int32) -> ColumnKind
    /// The column as an integer (by the engine's conversion rules).
    func int64(at index: Int32) -> Int64
    /// The column as a double (by the engine's conversion rules).
    func double(at index: Int32) -> Double
    /// The column's UTF-8 bytes, valid only inside `body` (empty for NULL).
    func withUTF8<T>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T
    /// The column exactly as stored.
    func value(at index: Int32) -> SQLValue
}

/// One column of a statement's current row: its kind and its value, from one lookup of the column.
///
/// ```swift
/// let cell = statement.cell(at: 0)
/// if cell.kind == .integer { print(cell.int64) }
/// ```
package protocol DriverCell {
    /// The kind of value stored.
    var kind: ColumnKind { get }
    /// The value as an integer.
    var int64: Int64 { get }
    /// The value as a double.
    var double: Double { get }
    /// The value as text ("" for NULL), or nil when its bytes are not valid UTF-8.
    var string: String? { get }
}
