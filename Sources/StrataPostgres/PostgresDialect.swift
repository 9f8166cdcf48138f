import Foundation
import Strata

/// PostgreSQL's spelling of what differs between engines (see `SQLDialect`).
///
/// ```swift
/// let dialect = PostgresDialect()
/// dialect.placeholder(2)              // "$2"
/// dialect.keyList(parameter: 1)       // "unnest($1::bigint[]) AS keys(value)"
/// dialect.anyKey(column: "id", parameter: 1)   // "\"id\" = ANY($1)"
/// ```
package struct PostgresDialect: SQLDialect {
    package init() {}

    /// `"name"` with embedded quotes doubled (PostgreSQL's only identifier quoting).
    package func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `$1`, `$2`, …: PostgreSQL numbers its parameters.
    package func placeholder(_ index: Int) -> String { "$\(index)" }

    /// `unnest($n::bigint[]) AS keys(value)`: a row source with a `value` column, one row per key of an
    /// integer array bound as one parameter (bind ``arrayLiteral(_:)``'s text). The server cannot infer the
    /// element type of `unnest`'s argument, so this names `bigint`, the type of Strata's integer keys; other
    /// key types use ``keyList(parameter:elementType:)``, and a plain key match is better spelt
    /// ``anyKey(column:parameter:)`` (`= ANY($n)`), whose element type the server takes from the column.
    package func keyList(parameter index: Int) -> String { keyList(parameter: index, elementType: "bigint") }

    /// ``keyList(parameter:)`` for keys of another type (`text`, `uuid`, …).
    package func keyList(parameter index: Int, elementType: String) -> String {
        "unnest($\(index)::\(elementType)[]) AS keys(value)"
    }

    /// `"column" = ANY($n)`: a condition matching the keys of an array bound as one parameter, typed by the
    /// column (the form prefetch will use: one statement per level, whatever the number of keys).
    package func anyKey(column: String, parameter index: Int) -> String {
        quote(column) + " = ANY($\(index))"
    }

    /// `expression = ANY($n)`: ``anyKey(column:parameter:)`` for an expression already quoted (a qualified
    /// column), the form prefetch, batched faults and `@Siblings` use.
    package func anyKey(_ expression: String, parameter index: Int) -> String? {
        expression + " = ANY($\(index))"
    }

    /// ``arrayLiteral(_:)``: the keys as one array parameter of ``anyKey(_:parameter:)``.
    package func keyArray(_ keys: [SQLValue]) -> SQLValue { Self.arrayLiteral(keys) }

    /// The text of an array of values as PostgreSQL reads it (`{1,2,"a \"b\""}`), to bind for
    /// ``keyList(parameter:)`` or ``anyKey(column:parameter:)``. Integers, reals, text and NULL; a blob is
    /// written as its `\x…` hex text.
    package static func arrayLiteral(_ values: [SQLValue]) -> SQLValue {
        let elements = values.map { value -> String in
            switch value {
            case .null: return "NULL"
            case .integer(let v): return String(v)
            case .real(let d): return d.isNaN ? "NaN" : d.isInfinite ? (d > 0 ? "Infinity" : "-Infinity") : "\(d)"
            case .text(let s): return quotedElement(s)
            case .blob(let data): return quotedElement("\\x" + data.map { String(format: "%02x", $0) }.joined())
            }
        }
        return .text("{" + elements.joined(separator: ",") + "}")
    }

    private static func quotedElement(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A literal for a DDL default: numbers as they are (`'NaN'::float8` and `'Infinity'::float8` for the
    /// special reals), text in standard single quotes (backslashes are plain characters, as
    /// `standard_conforming_strings` has it since PostgreSQL 9.1), bytes as `'\x…'::bytea`.
    package func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let d):
            if d.isNaN { return "'NaN'::float8" }
            if d.isInfinite { return d > 0 ? "'Infinity'::float8" : "'-Infinity'::float8" }
            return "\(d)"
        case .text(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'::bytea"
        }
    }

    /// `BEGIN` for deferred and immediate transactions: PostgreSQL has no database-wide write lock to take
    /// up front (rows are locked as they are written), so an immediate transaction is a plain one.
    /// Exclusive is `BEGIN ISOLATION LEVEL SERIALIZABLE`: the transaction behaves as if it ran alone, and a
    /// conflict fails it with SQLSTATE 40001 (to retry) rather than waiting for a lock.
    package func begin(_ kind: Database.TransactionKind) -> String {
        switch kind {
        case .deferred, .immediate: return "BEGIN"
        case .exclusive: return "BEGIN ISOLATION LEVEL SERIALIZABLE"
        }
    }

    /// ` RETURNING *`: PostgreSQL has no rowid, so the insert returns its whole row and the connection's
    /// `lastInsertedRowID` reads the first column (the key, in the tables Strata creates). A stand-in until
    /// inserts name their key column (``returning(_:)``).
    package var returningRowID: String { " RETURNING *" }

    /// ` RETURNING "column"`: the suffix of an INSERT returning one named column.
    package func returning(_ column: String) -> String { " RETURNING " + quote(column) }

    /// PostgreSQL has no NOCASE collation. This names a nondeterministic ICU collation that must be created
    /// first (``caseInsensitiveCollationDefinition``); the schema work of issue 35 will install it. Until
    /// it exists, using it fails ("collation does not exist") rather than silently comparing with case.
    package var caseInsensitiveCollation: String { "strata_nocase" }

    /// The statement that creates ``caseInsensitiveCollation`` (ICU, case-insensitive at level 2).
    package static let caseInsensitiveCollationDefinition =
        "CREATE COLLATION IF NOT EXISTS strata_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"

    /// PostgreSQL drops a column in place (`ALTER TABLE … DROP COLUMN`), with no table rebuild.
    package var altersDropColumn: Bool { true }

    // MARK: Migrations
    /// Records a migration, replacing an earlier record of the same one: an upsert on the table's
    /// (namespace, id) key, its four parameters in that order (written `?`: the statement goes through the
    /// placeholder rewrite like any other).
    package func migrationRecordUpsert(table: String) -> String {
        "INSERT INTO \(quote(table)) (namespace, id, checksum, applied_at) VALUES (?, ?, ?, ?) "
            + "ON CONFLICT (namespace, id) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at"
    }

    // MARK: Schema sync
    /// PostgreSQL renames a column in place (`ALTER TABLE … RENAME COLUMN`).
    package var altersRenameColumn: Bool { true }

    /// The storage type's PostgreSQL name: `BIGINT`, `DOUBLE PRECISION`, `TEXT`, `BYTEA`, `NUMERIC`.
    ///
    /// ```swift
    /// PostgresDialect().columnType(.real, strict: false)  // "DOUBLE PRECISION"
    /// ```
    package func columnType(_ type: ColumnType, strict: Bool) -> String {
        switch type {
        case .integer: "BIGINT"
        case .real: "DOUBLE PRECISION"
        case .text: "TEXT"
        case .blob: "BYTEA"
        case .numeric: "NUMERIC"
        }
    }

    /// PostgreSQL's own types for the values it has types for: `BOOLEAN`, `TIMESTAMPTZ`, `UUID`, `NUMERIC`
    /// (exact), `JSONB`; other properties by their storage type.
    ///
    /// ```swift
    /// PostgresDialect().columnType(.real, format: .date, strict: false)  // "TIMESTAMPTZ"
    /// ```
    package func columnType(_ type: ColumnType, format: ColumnFormat.Kind?, strict: Bool) -> String {
        switch format {
        case .bool?: "BOOLEAN"
        case .date?: "TIMESTAMPTZ"
        case .uuid?: "UUID"
        case .decimal?: "NUMERIC"
        case .json?: "JSONB"
        case nil: columnType(type, strict: strict)
        }
    }

    /// A default in the column's own type: `false`, a `TIMESTAMPTZ` literal for a date's seconds since 1970,
    /// a `UUID`, a `JSONB` or a `NUMERIC` literal; other values as ``literal(_:)``.
    ///
    /// ```swift
    /// PostgresDialect().defaultLiteral(.integer(0), format: .bool)  // "false"
    /// PostgresDialect().defaultLiteral(.real(0), format: .date)     // "'1970-01-01T00:00:00.000Z'::timestamptz"
    /// ```
    package func defaultLiteral(_ value: SQLValue, format: ColumnFormat.Kind?) -> String {
        switch (format, value) {
        case (.bool?, .integer(let flag)): return flag == 0 ? "false" : "true"
        case (.date?, .real(let seconds)) where seconds.isFinite:
            return literal(.text(Self.timestamp(seconds))) + "::timestamptz"
        case (.date?, .integer(let seconds)):
            return literal(.text(Self.timestamp(Double(seconds)))) + "::timestamptz"
        case (.uuid?, .text), (.uuid?, .blob): return literal(value) + "::uuid"
        case (.json?, .text): return literal(value) + "::jsonb"
        case (.decimal?, .text(let digits)): return literal(.text(digits)) + "::numeric"
        default: return literal(value)
        }
    }

    /// ISO 8601 in UTC with milliseconds, which `timestamptz` reads exactly to the millisecond.
    static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// An integer key is an identity column (`BY DEFAULT`: an insert may give its own key, as on SQLite);
    /// a UUID key is a `UUID`, another key `TEXT`.
    ///
    /// ```swift
    /// PostgresDialect().singleKeyDefinition(integer: true, format: nil)  // "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    /// ```
    package func singleKeyDefinition(integer: Bool, format: ColumnFormat.Kind?) -> String {
        integer ? "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
            : format == .uuid ? "UUID PRIMARY KEY" : "TEXT PRIMARY KEY"
    }
}
