extension ColumnValue where Self: RawRepresentable, RawValue: ColumnValue {
    /// The raw value's column.
    ///
    /// ```swift
    /// enum Status: String, ColumnValue { case on }; Status.columnType  // .text
    /// ```
    public static var columnType: ColumnType { RawValue.columnType }
    /// The raw value.
    ///
    /// ```swift
    /// try Status.on.sqlValue  // .text("on")
    /// ```
    public var sqlValue: SQLValue { get throws { try rawValue.sqlValue } }
    /// The case whose raw value was stored; an unknown raw value throws.
    ///
    /// ```swift
    /// try Status(sqlValue: .text("on"))   // .on
    /// try Status(sqlValue: .text("off"))  // throws
    /// ```
    public init(sqlValue: SQLValue) throws {
        let rawValue: RawValue
        do { rawValue = try RawValue(sqlValue: sqlValue) } catch var error as ValueConversionError {
            error.expected = String(describing: Self.self)  // the type asked for, not its raw value's
            throw error
        }
        guard let value = Self(rawValue: rawValue) else {
            throw ValueConversionError(expected: Self.self, found: sqlValue, reason: "no case has this raw value")
        }
        self = value
    }
}
