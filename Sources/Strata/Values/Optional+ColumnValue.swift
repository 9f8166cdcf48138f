extension Optional: ColumnValue where Wrapped: ColumnValue {
    /// The wrapped type's column, nullable.
    ///
    /// ```swift
    /// Int?.columnType  // .integer
    /// ```
    public static var columnType: ColumnType { Wrapped.columnType }
    /// Optionals are nullable.
    ///
    /// ```swift
    /// String?.isNullable  // true
    /// ```
    public static var isNullable: Bool { true }
    /// NULL for nil, else the wrapped value.
    ///
    /// ```swift
    /// try Int?.none.sqlValue  // .null
    /// ```
    public var sqlValue: SQLValue {
        get throws {
            switch self {
            case .none: .null
            case .some(let value): try value.sqlValue
            }
        }
    }
    /// nil for NULL (and, for JSON values, for the JSON text `null` that tools such as SQLAlchemy write),
    /// else what `Wrapped` reads.
    ///
    /// ```swift
    /// try Int?(sqlValue: .null)  // nil
    /// ```
    public init(sqlValue: SQLValue) throws {
        if sqlValue.isNull || (Wrapped.self is any JSONColumnValue.Type && sqlValue == .text("null")) {
            self = .none
        } else {
            self = .some(try Wrapped(sqlValue: sqlValue))
        }
    }
}

/// Lets reflection see through `Optional` without knowing the wrapped type statically.
protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}
