import CSQLite

/// How a model maps onto its table as it is: the SQL of the model's statements and the stored format of
/// each column, found once per sync.
final class TableMapping {
    let table: String
    let keyIsRowID: Bool
    let hasRowID: Bool
    /// Whether SELECTs add `rowid` as a last column (tables whose key is not the rowid).
    var selectsRowID: Bool { hasRowID && !keyIsRowID }
    /// `"t"."a", "t"."b", ...` in property order (plus rowid when selected).
    let selectColumns: String
    /// Every declared column (plus `RETURNING rowid` when the key is not the rowid).
    let insertSQL: String
    /// Every column but the key, for keys SQLite assigns.
    let insertWithoutKeySQL: String
    let deleteSQL: String
    let selectByKeySQL: String
    let selectByRowIDSQL: String
    /// The stored format of each property's column (``ColumnFormat/native`` for Strata's own).
    let formats: [ColumnFormat]
    /// The metadata's fast accessors, with nil where the column has a format of its own: what the
    /// per-row loops use, so such columns take the converting path.
    let fastFields: [FastField?]

    private let quotedTable: String
    private let quotedNames: [String]
    /// UPDATE statements by the set of properties they write, with the most recent one first in line.
    @exclusivity(unchecked) private var updates: [ColumnSet: Statement] = [:]
    @exclusivity(unchecked) private var lastUpdate: (columns: ColumnSet, statement: Statement)?

    init(metadata: ModelMetadata, info: TableInfo, formats: [ColumnFormat]) {
        table = metadata.tableName
        keyIsRowID = info.keyIsRowID
        hasRowID = !info.withoutRowID
        self.formats = formats
        fastFields = zip(metadata.fastFields, formats).map { $1 == .native ? $0 : nil }
        let t = SQL.quote(table)
        quotedTable = t
        let names = metadata.properties.map { SQL.quote($0.name) }
        quotedNames = names
        let key = names[0]
        var columns = names.map { "\(t).\($0)" }
        if hasRowID && !keyIsRowID { columns.append("\(t).rowid") }
        selectColumns = columns.joined(separator: ", ")
        let returning = hasRowID && !keyIsRowID ? " RETURNING rowid" : ""
        insertSQL = "INSERT INTO \(t) (\(names.joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count)))\(returning)"
        insertWithoutKeySQL = names.count == 1 ? "INSERT INTO \(t) DEFAULT VALUES"
            : "INSERT INTO \(t) (\(names.dropFirst().joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count - 1)))"
        deleteSQL = "DELETE FROM \(t) WHERE \(key) = ?"
        selectByKeySQL = "SELECT \(selectColumns) FROM \(t) WHERE \(key) = ?"
        selectByRowIDSQL = "SELECT \(selectColumns) FROM \(t) WHERE rowid = ?"
    }

    /// A key in Strata's native encoding as the key column stores it (a UUID key in a 32-hex column, say),
    /// for WHERE clauses.
    @inline(__always)
    func storedKey(_ key: SQLValue) throws -> SQLValue {
        formats[0] == .native ? key : try formats[0].stored(key)
    }

    /// The statements the library runs per row, kept here so the per-row paths do not look them up by
    /// their SQL text (hashing it) in the connection's cache.
    enum StatementKind: Int, CaseIterable {
        case insert, insertWithoutKey, delete, selectByKey, selectByRowID
    }
    @exclusivity(unchecked) private var statements = [Statement?](repeating: nil, count: StatementKind.allCases.count)

    /// One of the per-row statements, prepared on first use (through the connection's cache) and reset.
    @inline(__always)
    func statement(_ kind: StatementKind, in connection: Connection) throws -> Statement {
        if let statement = statements[kind.rawValue] {
            statement.reset()
            return statement
        }
        let sql = switch kind {
        case .insert: insertSQL
        case .insertWithoutKey: insertWithoutKeySQL
        case .delete: deleteSQL
        case .selectByKey: selectByKeySQL
        case .selectByRowID: selectByRowIDSQL
        }
        let statement = try connection.cachedStatement(sql)
        statements[kind.rawValue] = statement
        return statement
    }

    /// `UPDATE t SET "a" = ?, "b" = ? WHERE key = ?` for the given properties (by index), prepared once
    /// per set of properties.
    func updateStatement(_ columns: ColumnSet, in connection: Connection) throws -> Statement {
        if let last = lastUpdate, last.columns == columns { return last.statement }
        let statement: Statement
        if let cached = updates[columns] {
            statement = cached
        } else {
            let assignments = columns.indices.map { "\(quotedNames[$0]) = ?" }.joined(separator: ", ")
            statement = try connection.cachedStatement("UPDATE \(quotedTable) SET \(assignments) WHERE \(quotedNames[0]) = ?")
            updates[columns] = statement
        }
        lastUpdate = (columns, statement)
        return statement
    }
}
