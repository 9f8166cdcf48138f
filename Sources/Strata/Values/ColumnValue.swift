import Foundation

/// The SQLite column type a Swift type is stored in; it decides the declared type in CREATE TABLE and
/// which existing columns are compatible (by SQLite's affinity rules).
///
/// ```swift
/// Int.columnType  // .integer
/// ```
public enum ColumnType: String, Sendable, CaseIterable {
    /// `INTEGER`.
    ///
    /// ```swift
    /// ColumnType.integer.rawValue  // "INTEGER"
    /// ```
    case integer = "INTEGER"
    /// `REAL`.
    ///
    /// ```swift
    /// ColumnType.real
    /// ```
    case real = "REAL"
    /// `TEXT`.
    ///
    /// ```swift
    /// ColumnType.text
    /// ```
    case text = "TEXT"
    /// `BLOB`.
    ///
    /// ```swift
    /// ColumnType.blob
    /// ```
    case blob = "BLOB"
    /// `NUMERIC`: no declared preference, as for a column made by another tool.
    ///
    /// ```swift
    /// ColumnType.numeric
    /// ```
    case numeric = "NUMERIC"
}

/// A Swift value that can be stored in one SQLite column: Strata's value protocol
/// (GYDataCenter's "transformable").
///
/// Conform your own types by saying how they become an ``SQLValue`` and back:
///
/// ```swift
/// struct Celsius: ColumnValue {
///     var degrees: Double
///     static var columnType: ColumnType { .real }
///     var sqlValue: SQLValue { .real(degrees) }
///     init(degrees: Double) { self.degrees = degrees }
///     init(sqlValue: SQLValue) throws { degrees = try Double(sqlValue: sqlValue) }
/// }
/// ```
public protocol ColumnValue {
    /// The column type used in CREATE TABLE and compared by affinity with existing columns.
    ///
    /// ```swift
    /// String.columnType  // .text
    /// ```
    static var columnType: ColumnType { get }

    /// Whether NULL is a valid value (only `Optional` says yes): decides `NOT NULL` in the schema.
    ///
    /// ```swift
    /// Int?.isNullable  // true
    /// ```
    static var isNullable: Bool { get }

    /// The value to bind. Throws when the value cannot be stored (a `UInt64` above `Int64.max`).
    ///
    /// ```swift
    /// try 42.sqlValue  // .integer(42)
    /// ```
    var sqlValue: SQLValue { get throws }

    /// Decodes a stored value; throws a ``ValueConversionError`` when it cannot do so without loss.
    ///
    /// ```swift
    /// try Int(sqlValue: .text("42"))  // 42
    /// ```
    init(sqlValue: SQLValue) throws
}

extension ColumnValue {
    /// Non-optional types are not nullable.
    ///
    /// ```swift
    /// String.isNullable  // false
    /// ```
    public static var isNullable: Bool { false }
}

/// A stored value that could not become the Swift type asked for, or a Swift value that cannot be stored.
///
/// The library fills in the column, and for models the model and property, before it reaches you:
///
/// ```swift
/// do { _ = try db.value(Int.self, "SELECT 'abc'") }
/// catch let error as ValueConversionError { print(error) }  // cannot read text 'abc' as Int ...
/// ```
public struct ValueConversionError: Error, CustomStringConvertible, Sendable {
    /// The Swift type asked for.
    ///
    /// ```swift
    /// error.expected  // "Int32"
    /// ```
    public var expected: String
    /// What the database held (or the value that could not be stored).
    ///
    /// ```swift
    /// error.found
    /// ```
    public var found: SQLValue
    /// Why, when more can be said than "cannot read".
    ///
    /// ```swift
    /// error.reason
    /// ```
    public var reason: String?
    /// The column name, when known.
    ///
    /// ```swift
    /// error.column  // "age"
    /// ```
    public var column: String?
    /// The model type, when known.
    ///
    /// ```swift
    /// error.model  // "Employee"
    /// ```
    public var model: String?
    /// The model property, when known.
    ///
    /// ```swift
    /// error.property  // "age"
    /// ```
    public var property: String?
    /// The table, when known (reading a model's row).
    ///
    /// ```swift
    /// error.table  // "Employee"
    /// ```
    public var table: String?
    /// The primary key of the row being read, when known.
    ///
    /// ```swift
    /// error.key  // .integer(7)
    /// ```
    public var key: SQLValue?
    /// Whether the value was refused on its way into the database (a save), not read out of it.
    var writing = false

    /// Makes an error for a value of type `expected` that could not be read from `found`.
    ///
    /// ```swift
    /// throw ValueConversionError(expected: Celsius.self, found: value)
    /// ```
    public init(expected: Any.Type, found: SQLValue, reason: String? = nil) {
        self.expected = String(describing: expected)
        self.found = found
        self.reason = reason
    }

    /// A sentence naming the type, the value, and where it was.
    ///
    /// ```swift
    /// print(error)  // cannot read text 'abc' as Int in column "age" (Employee.age)
    /// ```
    public var description: String {
        var text = "cannot \(writing ? "store" : "read") \(found) as \(expected)"
        if let reason { text += " (\(reason))" }
        if let column { text += " in column \"\(column)\"" }
        if let table { text += " of table \"\(table)\"" }
        if let key { text += " at key \(key)" }
        if found.isNull, let property { text += "; declare `\(property)` optional to read NULLs" }
        if let model { text += " (\(model)\(property.map { ".\($0)" } ?? ""))" }
        return text
    }

    func located(column: String?, model: String? = nil, property: String? = nil) -> ValueConversionError {
        var copy = self
        copy.column = copy.column ?? column
        copy.model = copy.model ?? model
        copy.property = copy.property ?? property
        return copy
    }
}

extension SQLValue: ColumnValue {
    /// Raw values are stored as they are.
    ///
    /// ```swift
    /// SQLValue.columnType  // .numeric
    /// ```
    public static var columnType: ColumnType { .numeric }
    /// NULL is a valid raw value.
    ///
    /// ```swift
    /// SQLValue.isNullable  // true
    /// ```
    public static var isNullable: Bool { true }
    /// Itself.
    ///
    /// ```swift
    /// SQLValue.integer(1).sqlValue  // .integer(1)
    /// ```
    public var sqlValue: SQLValue { self }
    /// Itself.
    ///
    /// ```swift
    /// try SQLValue(sqlValue: .null)  // .null
    /// ```
    public init(sqlValue: SQLValue) { self = sqlValue }
}
