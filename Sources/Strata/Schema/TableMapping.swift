/// How a model maps onto its table as it is: the SQL of the model's statements, built once per sync.
final class TableMapping {
    let table: String
    let keyIsRowID: Bool
    let hasRowID: Bool
    /// Whether SELECTs add `rowid` as a last column (tables whose key is not the rowid).
    var selectsRowID: Bool { hasRowID && !keyIsRowID }
    /// `"t"."a", "t"."b", ...` in property order (plus rowid when selected).
    let selectColumns: String
    let insertSQL: String
    let insertWithoutKeySQL: String
    let upsertSQL: String
    let updateSQL: String
    let deleteSQL: String
    let selectByKeySQL: String
    let selectByRowIDSQL: String

    init(metadata: ModelMetadata, info: TableInfo) {
        table = metadata.tableName
        keyIsRowID = info.keyIsRowID
        hasRowID = !info.withoutRowID
        let t = SQL.quote(table)
        let names = metadata.properties.map { SQL.quote($0.name) }
        let key = names[0]
        var columns = names.map { "\(t).\($0)" }
        if hasRowID && !keyIsRowID { columns.append("\(t).rowid") }
        selectColumns = columns.joined(separator: ", ")
        let returning = hasRowID && !keyIsRowID ? " RETURNING rowid" : ""
        insertSQL = "INSERT INTO \(t) (\(names.joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count)))\(returning)"
        insertWithoutKeySQL = names.count == 1 ? "INSERT INTO \(t) DEFAULT VALUES"
            : "INSERT INTO \(t) (\(names.dropFirst().joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count - 1)))"
        let assignments = names.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        upsertSQL = "INSERT INTO \(t) (\(names.joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count)))"
            // A key-only model still updates (a no-op) so that RETURNING reports the row.
            + " ON CONFLICT (\(key)) DO UPDATE SET " + (assignments.isEmpty ? "\(key) = excluded.\(key)" : assignments) + returning
        updateSQL = "UPDATE \(t) SET " + names.dropFirst().map { "\($0) = ?" }.joined(separator: ", ") + " WHERE \(key) = ?"
        deleteSQL = "DELETE FROM \(t) WHERE \(key) = ?"
        selectByKeySQL = "SELECT \(selectColumns) FROM \(t) WHERE \(key) = ?"
        selectByRowIDSQL = "SELECT \(selectColumns) FROM \(t) WHERE rowid = ?"
    }
}
