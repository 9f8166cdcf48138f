import Strata

/// A plain-text description of a database's tables, as `strata inspect` prints it: per table its
/// options and row count, each column's declared type, affinity, NOT NULL, default, primary-key
/// position and hidden/generated kind, each index with its columns, uniqueness, origin and
/// whether it is partial, each foreign key, and each CHECK constraint (`check (price > 0) on column price`).
///
/// ```swift
/// let schema = try DatabaseSchema(reading: db, countingRows: true)
/// print(SchemaReport(schema: schema, title: "notes.sqlite").text)
/// // table note: 3 rows
/// //   column   type     affinity  not null  default  pk
/// //   id       INTEGER  INTEGER   NOT NULL           1
/// //   ...
/// ```
public struct SchemaReport: Sendable {
    /// The schema described.
    ///
    /// ```swift
    /// report.schema.tables.count
    /// ```
    public var schema: DatabaseSchema
    /// The first line's subject (a path), nil for none.
    ///
    /// ```swift
    /// report.title  // "notes.sqlite"
    /// ```
    public var title: String?
    /// The engine and version for the first line when it is not this SQLite (`PostgreSQL 15.18`): its
    /// columns' types are then the engine's own, and the affinity column is left out.
    package var engine: String?

    /// A report on `schema`.
    ///
    /// ```swift
    /// let report = SchemaReport(schema: schema, title: "notes.sqlite")
    /// ```
    public init(schema: DatabaseSchema, title: String? = nil) {
        self.schema = schema
        self.title = title
    }

    /// The whole report.
    ///
    /// ```swift
    /// print(report.text)
    /// ```
    public var text: String {
        let count = schema.tables.count
        var lines = [(title.map { $0 + ": " } ?? "") + "\(count) table\(count == 1 ? "" : "s") (\(engine ?? "SQLite \(Database.sqliteVersion)"))"]
        if !schema.views.isEmpty { lines.append("views: " + schema.views.joined(separator: ", ")) }
        for table in schema.tables {
            lines.append("")
            lines += describe(table)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The lines for one table.
    func describe(_ table: TableSchema) -> [String] {
        var options: [String] = []
        if table.isVirtual { options.append("virtual") }
        if table.withoutRowID { options.append("WITHOUT ROWID") }
        if table.strict { options.append("STRICT") }
        var heading = "table \(table.name)"
        if !options.isEmpty { heading += " (" + options.joined(separator: ", ") + ")" }
        if let rows = table.rowCount { heading += ": \(rows) row\(rows == 1 ? "" : "s")" }
        var lines = [heading]
        if let problem = table.problem {
            lines.append("  could not be read: \(SwiftSource.comment(problem))")
            return lines
        }
        let showsAffinity = engine == nil
        let header = ["column", "type"] + (showsAffinity ? ["affinity"] : []) + ["not null", "default", "pk", "kind"]
        let rows = table.columns.map { column -> [String] in
            [column.name,
             column.declaredType.isEmpty ? "(none)" : column.declaredType]
                + (showsAffinity ? [column.affinity.rawValue] : [])
                + [column.notNull ? "NOT NULL" : "",
                   column.defaultSQL.map(SwiftSource.comment) ?? "",
                   column.primaryKeyPosition > 0 ? String(column.primaryKeyPosition) : "",
                   kind(column.hidden)]
        }
        lines += aligned([header] + rows).map { "  " + $0 }
        if table.indices.isEmpty { lines.append("  indices: none") }
        for index in table.indices {
            let columns = zip(index.columns, index.descending).map { name, descending in
                (name ?? "<expression>") + (descending ? " DESC" : "")
            }
            var facts = [index.unique ? "unique" : "not unique", "origin \(index.origin)"]
            if index.partial { facts.append("partial") }
            lines.append("  index \(index.name) (\(columns.joined(separator: ", "))): " + facts.joined(separator: ", "))
        }
        for key in table.foreignKeys {
            lines.append("  foreign key \(key.column) -> \(key.table)(\(key.parentColumn ?? "its primary key"))")
        }
        for check in table.checks {
            lines.append("  check (\(SwiftSource.comment(check.expression)))" + (check.column.map { " on column \($0)" } ?? "")
                         + (check.name.map { " named \($0)" } ?? ""))
        }
        return lines
    }

    private func kind(_ hidden: Int) -> String {
        switch hidden {
        case 0: ""
        case 1: "hidden"
        case 2: "generated VIRTUAL"
        case 3: "generated STORED"
        default: "hidden \(hidden)"
        }
    }

    /// Rows padded to common column widths, trailing blanks removed.
    private func aligned(_ rows: [[String]]) -> [String] {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index < widths.count { widths[index] = max(widths[index], cell.count) } else { widths.append(cell.count) }
            }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                line += index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
