/// One result row of a raw query: values by column name or index.
///
/// ```swift
/// for row in try db.rows("SELECT id, name FROM user") {
///     let id: Int64 = try row.decode("id")
///     print(id, row["name"] ?? .null)
/// }
/// ```
public struct Row: Sendable, CustomStringConvertible {
    /// The column names, in result order.
    ///
    /// ```swift
    /// row.columnNames  // ["id", "name"]
    /// ```
    public let columnNames: [String]
    /// The values, in result order.
    ///
    /// ```swift
    /// row.values  // [.integer(1), .text("Ada")]
    /// ```
    public let values: [SQLValue]

    /// Makes a row from parallel arrays.
    ///
    /// ```swift
    /// Row(columnNames: ["a"], values: [.integer(1)])
    /// ```
    public init(columnNames: [String], values: [SQLValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The value of the first column with this name, or nil when there is none.
    /// ```swift
    /// row["name"]  // .text("Ada")
    /// ```
    public subscript(column: String) -> SQLValue? {
        columnNames.firstIndex(of: column).map { values[$0] }
    }

    /// The value at a 0-based index.
    ///
    /// ```swift
    /// row[0]  // .integer(1)
    /// ```
    public subscript(index: Int) -> SQLValue { values[index] }

    /// Column name to value, as FCModel's `resultDictionariesFromQuery` returns.
    /// ```swift
    /// row.dictionary["id"]  // .integer(1)
    /// ```
    public var dictionary: [String: SQLValue] {
        Dictionary(zip(columnNames, values), uniquingKeysWith: { first, _ in first })
    }

    /// Decodes a column; a missing column or a value that does not convert throws, naming the column.
    ///
    /// ```swift
    /// let born: Date = try row.decode("dateOfBirth")
    /// ```
    public func decode<T: ColumnValue>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let value = self[column] else {
            throw ValueConversionError(expected: T.self, found: .null,
                                       reason: "no column named \"\(column)\" among \(columnNames)")
        }
        do { return try T(sqlValue: value) } catch let error as ValueConversionError {
            throw error.located(column: column)
        }
    }

    /// `name: value` pairs.
    ///
    /// ```swift
    /// print(row)  // [id: integer 1, name: text 'Ada']
    /// ```
    public var description: String {
        "[" + zip(columnNames, values).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
    }
}
