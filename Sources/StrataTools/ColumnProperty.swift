import Foundation
import Strata

/// The Swift property a (non-key) column becomes: its type, whether it is optional, and its initial value.
///
/// Types follow what Strata's schema sync accepts for the column's affinity: INTEGER -> Int64,
/// REAL -> Double, TEXT -> String, BLOB -> Data; NUMERIC -> Decimal, Date or Bool when the declared type
/// says so (`DECIMAL`, `NUMERIC(10, 2)`; `DATE`, `TIMESTAMP`; `BOOL`), else SQLValue (values as SQLite stores them); no declared type -> SQLValue. A nullable column
/// makes an optional (SQLValue holds NULL itself). Over a NOT NULL column, where a SQLValue's NULL would be
/// refused on save, NUMERIC becomes Double and an untyped column String, the types that read the most
/// storage classes such a column can hold — but a time of day (`TIME`: 'HH:MM:SS' text) and `JSON`
/// (objects, arrays), which neither reads, stay SQLValue (sync accepts a non-optional one there), starting
/// at `.text("00:00:00")` and `.text("null")`. A simple literal DEFAULT becomes the initial value, so
/// a fresh instance saves what an INSERT without the column would have stored.
///
/// Sampled storage classes (``ColumnSchema/storedTypes``) then overrule a type that would not read and
/// write back what the rows hold, in its own storage class (``refined(_:for:)``), with a comment saying so.
struct ColumnProperty {
    /// `Int64`, `String`, ...
    let type: String
    let optional: Bool
    /// The Swift initial value, nil for an optional without one.
    let initialValue: String?
    /// A comment for the line, when the type is only a stand-in: a column declared `JSON` (SQLAlchemy's,
    /// peewee's; NUMERIC affinity) holds values of a Codable type the schema does not tell.
    let note: String?

    init(_ column: ColumnSchema) {
        let declared = column.declaredType.uppercased()
        var type: String
        if column.engineTypes == .postgres {
            type = Self.postgresType(column.declaredType)
        } else {
        switch column.affinity {
        case .integer: type = "Int64"
        case .real: type = "Double"
        case .text: type = Self.isUUIDText(column) ? "UUID" : "String"
        case .blob: type = declared.trimmingCharacters(in: .whitespaces).isEmpty ? "SQLValue" : "Data"
        case .numeric:
            if declared.contains("DECIMAL") || declared.contains("NUMERIC(") || declared.contains("NUMERIC (") { type = "Decimal" }
            else if declared.contains("BOOL") { type = "Bool" }
            else if declared.contains("DATE") || declared.contains("TIMESTAMP") { type = "Date" }
            else { type = "SQLValue" }
        }
        }
        // A time of day (`time`: Django's TimeField, SQLAlchemy's and peewee's Time) holds 'HH:MM:SS[.ffffff]'
        // text, and a `JSON` column (SQLAlchemy's) objects and arrays, which neither Double nor Date reads and
        // String cannot be synced over (NUMERIC affinity): SQLValue, NOT NULL included (sync accepts it; a
        // fresh instance starts at midnight, or at JSON's `null`, which SQLAlchemy stores for None).
        let timeOfDay = (column.affinity == .numeric || column.engineTypes == .postgres) && Self.isTimeOfDay(declared)
        let json = (column.affinity == .numeric || column.engineTypes == .postgres) && declared.contains("JSON")
        if type == "SQLValue" && column.notNull && !timeOfDay && !json {
            type = column.affinity == .numeric ? "Double" : "String"
        }
        let refined = Self.refined(type, for: column)
        if let refined { type = refined.type }
        self.type = type
        optional = !column.notNull && type != "SQLValue"
        if let refined {
            note = refined.note
        } else if json {
            note = "  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too"
        } else if timeOfDay {
            note = "  // a time of day: .text(\"13:14:15.123456\") as the tool stores it"
        } else {
            note = nil
        }
        let literal = ColumnProperty.literal(column.defaultSQL, as: type)
        let storedZero = type == "SQLValue" && column.notNull ? column.storedTypes?.values.first.flatMap(Self.sqlValueZero) : nil
        initialValue = literal ?? (optional ? nil : !column.notNull ? ColumnProperty.zero(type)
            : timeOfDay ? ".text(\"00:00:00\")" : json ? ".text(\"null\")" : storedZero ?? ColumnProperty.zero(type))
    }

    /// The type sampled rows call for when `type` (from the declared type) would not keep them: each
    /// stored value must read, and write back in its own storage class. Nil when `type` keeps them all.
    static func refined(_ type: String, for column: ColumnSchema) -> (type: String, note: String)? {
        guard let stored = column.storedTypes?.values, !column.isGenerated,
              !Set(stored).isSubset(of: keeps(type, affinity: column.affinity)) else { return nil }
        let values = stored.joined(separator: " and ")
        var better = single(stored, affinity: column.affinity) ?? "SQLValue"
        // Schema sync refuses a String over a column of numeric affinity (text that looks like a number
        // would be stored as one): SQLValue there.
        if better == "String" && [.integer, .numeric, .real].contains(column.affinity) { better = "SQLValue" }
        if better == "SQLValue" { return (better, "  // sampled rows hold \(values) values: SQLValue keeps each as stored") }
        return (better, "  // sampled rows hold \(values) values, which \(type) would not keep")
    }

    /// The one type that keeps values of the storage classes `stored` (none: nil): Int64 for integers,
    /// String for text, Data for blobs, Double for reals (and for integers beside them where the column's
    /// affinity stores an integral real as an integer).
    static func single(_ stored: [String], affinity: Affinity) -> String? {
        switch Set(stored) {
        case ["integer"]: "Int64"
        case ["text"]: "String"
        case ["blob"]: "Data"
        case ["real"]: "Double"
        case ["integer", "real"] where [.integer, .numeric, .real].contains(affinity): "Double"
        default: nil
        }
    }

    /// The storage classes a property of `type` reads and writes back as they are, in a column of `affinity`.
    private static func keeps(_ type: String, affinity: Affinity) -> Set<String> {
        switch type {
        case "Int64": ["integer"]
        case "Bool": ["integer", "text"]   // 0/1, or another tool's 't'/'f', 'true', 'yes' kept as written
        case "Double": [.integer, .numeric, .real].contains(affinity) ? ["integer", "real"] : ["real"]
        case "String": ["text"]
        case "Data": ["blob"]
        case "UUID": ["text", "blob"]
        case "Date", "Decimal": ["integer", "real", "text"]
        default: ["integer", "real", "text", "blob"]
        }
    }

    private static func sqlValueZero(_ storageClass: String) -> String? {
        switch storageClass {
        case "integer": ".integer(0)"
        case "real": ".real(0)"
        case "text": ".text(\"\")"
        default: nil
        }
    }

    /// Whether a declared type (uppercased) is a time of day, `TIME`, `TIME(6)` or `TIMETZ` (not `DATETIME`,
    /// `TIMESTAMP`), as Strata's schema sync tells it.
    static func isTimeOfDay(_ declared: String) -> Bool {
        let word = declared.drop { $0 == " " || $0 == "\t" }.prefix { ("A"..."Z").contains($0) }
        return word == "TIME" || word == "TIMETZ"
    }

    /// Whether the column is declared as Django's `UUIDField` declares it, `char(32)` (32 hex digits).
    static func isUUIDText(_ column: ColumnSchema) -> Bool {
        column.declaredType.uppercased().filter { !$0.isWhitespace } == "CHAR(32)"
    }

    /// `Int64? = 1`, `String = ""`, `Date?`: what follows `var name: `.
    var declaration: String {
        (optional ? type + "?" : type) + (initialValue.map { " = " + $0 } ?? "")
    }

    private static func zero(_ type: String) -> String {
        switch type {
        case "Int64", "Double", "Decimal": "0"
        case "String": "\"\""
        case "Data": "Data()"
        case "UUID": "UUID()"
        case "Date": "Date(timeIntervalSince1970: 0)"
        case "Bool": "false"
        default: ".null"
        }
    }

    /// The Swift literal for a simple SQL default of a column read as `type`; nil for NULL, expressions
    /// and values that do not fit.
    static func literal(_ sql: String?, as type: String) -> String? {
        guard var text = sql?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        while text.hasPrefix("(") && text.hasSuffix(")") {
            text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let upper = text.uppercased()
        let string = quoted(text)
        // A quoted number in a numeric column is stored as that number (INTEGER DEFAULT '0').
        if let string, type != "String", type != "SQLValue", string != text { text = string }
        let isNumber = !text.isEmpty && text.allSatisfy { "0123456789+-.eE".contains($0) } && text.contains(where: \.isNumber)
        let integer = isNumber ? Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) : nil
        let real = isNumber ? Double(text).flatMap { $0.isFinite ? $0 : nil } : nil
        switch type {
        case "Int64":
            if let integer { return String(integer) }
            if upper == "TRUE" || upper == "FALSE" { return upper == "TRUE" ? "1" : "0" }
        case "Double":
            if let real { return swiftDouble(real) }
        case "Decimal":
            if let integer { return String(integer) }   // other defaults apply from the schema (an exact literal needs text)
        case "Bool":
            if integer == 0 || upper == "FALSE" { return "false" }
            if integer == 1 || upper == "TRUE" { return "true" }
        case "String":
            if let string { return SwiftSource.stringLiteral(string) }
        case "Date":
            if upper == "CURRENT_TIMESTAMP" || upper == "CURRENT_DATE" { return "Date()" }
            if let real { return "Date(timeIntervalSince1970: \(swiftDouble(real)))" }
        case "SQLValue":
            if let integer { return ".integer(\(integer))" }
            if let real { return ".real(\(swiftDouble(real)))" }
            if let string { return ".text(\(SwiftSource.stringLiteral(string)))" }
        default:
            break
        }
        return nil
    }

    /// The string a DEFAULT spells: `'…'` with doubled quotes undone; `"…"` and a bare word, which SQLite
    /// also reads as strings there (`DEFAULT notArchived`); nil for anything else.
    private static func quoted(_ text: String) -> String? {
        if SwiftSource.isIdentifier(text) {
            let keywords: Set<String> = ["NULL", "TRUE", "FALSE", "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"]
            return keywords.contains(text.uppercased()) ? nil : text
        }
        guard text.count >= 2, let quote = text.first, quote == "'" || quote == "\"", text.last == quote else { return nil }
        let inner = text.dropFirst().dropLast()
        let doubled = String([quote, quote])
        // A lone quote inside would mean the text is not one literal (`'a' || 'b'`).
        guard !inner.replacingOccurrences(of: doubled, with: "").contains(quote) else { return nil }
        return inner.replacingOccurrences(of: doubled, with: String(quote))
    }

    private static func swiftDouble(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension ColumnProperty {
    /// The Swift type of a PostgreSQL column by its `format_type` name: `boolean` Bool, whole numbers
    /// Int64, floating point Double, `numeric` Decimal, text types String, `uuid` UUID, `bytea` Data,
    /// `timestamp`/`date` Date, arrays of text or whole numbers `[String]`/`[Int64]`; a time of day,
    /// `json`/`jsonb`, `money` and other arrays SQLValue (with a note); another type (an enum type of the
    /// database, a domain) String, its text form.
    static func postgresType(_ declared: String) -> String {
        let type = declared.lowercased()
        if type.hasSuffix("[]") {
            let element = postgresType(String(declared.dropLast(2)))
            return element == "String" || element == "Int64" ? "[\(element)]" : "SQLValue"
        }
        switch type {
        case "boolean": return "Bool"
        case "smallint", "integer", "bigint": return "Int64"
        case "real", "double precision": return "Double"
        case "text", "citext", "name", "\"char\"": return "String"
        case "uuid": return "UUID"
        case "bytea": return "Data"
        case "date": return "Date"
        case "json", "jsonb", "money": return "SQLValue"
        default:
            if type.hasPrefix("numeric") { return "Decimal" }
            if type.hasPrefix("timestamp") { return "Date" }
            if type.hasPrefix("time") || type.hasPrefix("interval") { return "SQLValue" }
            return "String"   // character varying(n), character(n), an enum type: text
        }
    }
}
