/// SQLite's column affinity, found from a declared type by the substring rules of
/// https://www.sqlite.org/datatype3.html#determination_of_column_affinity, in their order.
///
/// ```swift
/// Affinity(declaredType: "varchar(40)")  // .text
/// Affinity(declaredType: "STRING")       // .numeric
/// Affinity(declaredType: "FLOATING POINT")  // .integer ("INT" wins)
/// ```
public enum Affinity: String, Sendable {
    /// INTEGER affinity.
    ///
    /// ```swift
    /// Affinity.integer
    /// ```
    case integer = "INTEGER"
    /// TEXT affinity.
    ///
    /// ```swift
    /// Affinity.text
    /// ```
    case text = "TEXT"
    /// BLOB affinity (also: no declared type): values are stored as given.
    ///
    /// ```swift
    /// Affinity.blob
    /// ```
    case blob = "BLOB"
    /// REAL affinity.
    ///
    /// ```swift
    /// Affinity.real
    /// ```
    case real = "REAL"
    /// NUMERIC affinity (e.g. `bool`, `datetime`, `decimal`, `STRING`).
    ///
    /// ```swift
    /// Affinity.numeric
    /// ```
    case numeric = "NUMERIC"

    /// The affinity SQLite gives a column declared with `declaredType`.
    ///
    /// ```swift
    /// Affinity(declaredType: "")  // .blob
    /// ```
    public init(declaredType type: String) {
        // SQLite's rules in their order (https://www.sqlite.org/datatype3.html#determination_of_column_affinity),
        // by an ASCII case-insensitive search: this runs for every column of every model's first use. The
        // types Strata itself declares are answered first, by what the rules give them.
        switch type {
        case "INTEGER": self = .integer; return
        case "TEXT": self = .text; return
        case "REAL": self = .real; return
        case "BLOB", "": self = .blob; return
        default: break
        }
        if SQL.mentions(type, "int") { self = .integer }
        else if SQL.mentions(type, "char") || SQL.mentions(type, "clob") || SQL.mentions(type, "text") { self = .text }
        else if SQL.mentions(type, "blob") || type.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { self = .blob }
        else if SQL.mentions(type, "real") || SQL.mentions(type, "floa") || SQL.mentions(type, "doub") { self = .real }
        else { self = .numeric }
    }

    /// The Swift types that read a column declared `declaredType` as it is, for error remedies:
    /// `"Date"` for a `datetime`, `"Decimal"` for a `decimal(10, 2)`, `"Int or Int64"` for a `bigint`.
    static func swiftTypes(declaredType: String) -> String {
        let type = declaredType.uppercased()
        switch Affinity(declaredType: declaredType) {
        case .integer: return "Int or Int64"
        case .real: return "Double"
        case .text: return type.filter { !$0.isWhitespace } == "CHAR(32)" ? "String or UUID" : "String"
        case .blob: return "Data"
        case .numeric:
            // A time of day (`time`) is 'HH:MM:SS[.ffffff]' text with no day, which no Date format writes.
            if isTimeOfDay(declaredType) { return "SQLValue" }
            if type.contains("DATE") || type.contains("TIME") { return "Date" }
            if type.contains("BOOL") { return "Bool" }
            if type.contains("DEC") || type.contains("NUMERIC(") || type.contains("NUMERIC (") { return "Decimal" }
            // SQLAlchemy's JSON and UUID: text that looks like a number would turn into one (an all-digit hex
            // UUID into a REAL), so only SQLValue reads such a column as it is.
            if type.contains("JSON") || type.contains("UUID") { return "SQLValue" }
            return "Double or Decimal"
        }
    }

    /// Whether a column declared `declaredType` holds a time of day with no date: `time` (Django's
    /// `TimeField`), `TIME` (SQLAlchemy's and peewee's), `TIME(6)`, `time without time zone`, `TIMETZ` — text
    /// such as `'13:14:15.123456'`, which those tools parse as a time (a day and time, or seconds, they read
    /// as nothing or fail on). Not `datetime`, `timestamp` or `TIMEINTERVAL`.
    ///
    /// ```swift
    /// Affinity.isTimeOfDay("time")      // true
    /// Affinity.isTimeOfDay("DATETIME")  // false
    /// ```
    static func isTimeOfDay(_ declaredType: String) -> Bool {
        let word = declaredType.uppercased().drop { $0 == " " || $0 == "\t" }.prefix { ("A"..."Z").contains($0) }
        return word == "TIME" || word == "TIMETZ"
    }

    /// Whether values of `columnType` keep their meaning in a column of this affinity.
    /// Numbers in TEXT columns turn into text and text in numeric columns can turn into numbers
    /// (`'0123'` becomes 123), so those pairs are refused; BLOBs are never converted.
    func accepts(_ columnType: ColumnType) -> Bool {
        switch (columnType, self) {
        case (.blob, _), (.numeric, _), (_, .blob): true
        case (.integer, .integer), (.integer, .numeric): true
        case (.real, .real), (.real, .numeric), (.real, .integer): true
        case (.text, .text): true
        default: false
        }
    }
}

import Foundation

extension PropertyMetadata {
    /// Whether `column` can hold this property: by its affinity (below), but a date never
    /// fits a time of day (`time`: Django's `TimeField`, SQLAlchemy's and peewee's `Time`), whose rows are
    /// `'HH:MM:SS[.ffffff]'` text: no date format writes that, and the tools read a day and time, or
    /// seconds, there as nothing (Django) or fail on it (SQLAlchemy).
    func fits(_ column: ColumnInfo) -> Bool {
        if formatKind == .date && Affinity.isTimeOfDay(column.declaredType) { return false }
        return fits(column.affinity)
    }

    /// Whether a column of `affinity` can hold this property: by its column type, or, for dates and
    /// booleans, in one of the formats other tools use (``ColumnFormat``: date text, `'t'`/`'f'`).
    func fits(_ affinity: Affinity) -> Bool {
        if affinity.accepts(columnType) { return true }
        switch formatKind {
        case .date?: return true
        case .bool?: return affinity == .text
        case .decimal?: return true   // text keeps every digit; numeric columns store numbers, as Django's do
        // JSON in a column of NUMERIC affinity (SQLAlchemy's and peewee's `JSON`): objects, arrays, strings,
        // true, false and null stay text there; a top-level number becomes one, which reads back as the same.
        case .json?: return affinity == .numeric
        case .uuid?, nil: return false
        }
    }
}
