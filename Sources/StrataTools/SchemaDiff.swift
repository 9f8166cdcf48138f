import Strata

/// The schema differences between two databases, as the SQL that turns the first into the second where
/// that is additive (new tables, columns, indices, views and triggers), and as comments for the rest
/// (what only the first has, a column whose type changed): `strata diff`.
///
/// ```swift
/// let diff = try SchemaDiff(from: old, to: new)
/// print(diff.text)
/// // CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);
/// // ALTER TABLE "note" ADD COLUMN "pinned" INTEGER NOT NULL DEFAULT 0;
/// ```
public struct SchemaDiff: Sendable {
    /// The statements, in an order that runs (tables, then columns, then indices, views, triggers).
    /// ```swift
    /// diff.statements.count
    /// ```
    public var statements: [String] = []
    /// What no additive statement can do, one sentence each.
    ///
    /// ```swift
    /// diff.notes
    /// ```
    public var notes: [String] = []

    /// Whether the schemas are the same.
    ///
    /// ```swift
    /// diff.isEmpty
    /// ```
    public var isEmpty: Bool { statements.isEmpty && notes.isEmpty }

    /// Compares `source` (the first file) with `target` (the second).
    /// ```swift
    /// let diff = try SchemaDiff(from: old, to: new)
    /// ```
    public init(from source: Database, to target: Database) throws {
        try self.init(from: Source(reading: source), to: Source(reading: target))
    }

    /// Compares `source` with `target`, either of them on SQLite or another engine: the statements are in
    /// `source`'s SQL (a table another engine made is written from its columns, their types the nearest
    /// of `source`'s engine; a view or trigger of another engine's SQL is a note: its SQL is not translated).
    ///
    /// ```swift
    /// let diff = try SchemaDiff(from: SchemaDiff.Source(reading: postgres, engine: .postgres), to: SchemaDiff.Source(reading: db))
    /// ```
    package init(from source: Source, to target: Source) throws {
        let before = source.schema, after = target.schema
        let oldObjects = source.objects, newObjects = target.objects
        let engine = source.engine, sameEngine = source.engine == target.engine
        for table in after.tables {
            guard let old = before.table(named: table.name) else {
                if sameEngine, let sql = target.tableSQL[table.name.lowercased()] {
                    statements.append(sql + ";")
                } else {
                    statements.append(Self.createTable(table, in: engine))
                }
                continue
            }
            for column in table.columns where old.columns.first(where: { $0.name.caseInsensitiveCompare(column.name) == .orderedSame }) == nil {
                let definition = Self.definition(column, in: engine)
                if column.isGenerated || column.primaryKeyPosition > 0 || (column.notNull && column.defaultSQL == nil) {
                    notes.append("column \(table.name).\(column.name) cannot be added by ALTER TABLE (primary key, generated, or NOT NULL without a default): rebuild the table")
                } else {
                    statements.append("ALTER TABLE \(SwiftSource.quoteSQL(table.name)) ADD COLUMN \(definition);")
                }
            }
            for column in old.columns {
                guard let now = table.columns.first(where: { $0.name.caseInsensitiveCompare(column.name) == .orderedSame }) else {
                    notes.append("column \(table.name).\(column.name) is only in the first database (dropping is not additive)")
                    continue
                }
                let type = now.declaredType(in: engine)
                // (A primary key column is NOT NULL on PostgreSQL whether declared so or not: not compared across engines.)
                let keyInBoth = !sameEngine && column.primaryKeyPosition > 0 && now.primaryKeyPosition > 0
                if type.caseInsensitiveCompare(column.declaredType) != .orderedSame || (now.notNull != column.notNull && !keyInBoth) {
                    notes.append("column \(table.name).\(column.name) changed from \(column.declaredType)\(column.notNull ? " NOT NULL" : "") to \(type)\(now.notNull ? " NOT NULL" : "") (a rebuild)")
                }
            }
        }
        for table in before.tables where after.table(named: table.name) == nil {
            notes.append("table \(table.name) is only in the first database (dropping is not additive)")
        }
        for kind in ["index", "view", "trigger"] {
            let old = oldObjects[kind] ?? [:], new = newObjects[kind] ?? [:]
            for (name, sql) in new.sorted(by: { $0.key < $1.key }) {
                if let previous = old[name] {
                    if sameEngine, previous != sql { notes.append("\(kind) \(name) differs: drop it and create it as the second database has it") }
                } else if sameEngine || kind == "index" {
                    statements.append(sql + ";")
                } else {
                    notes.append("\(kind) \(name) is only in the second database, in its engine's SQL (not translated): \(sql)")
                }
            }
            for name in old.keys.sorted() where new[name] == nil {
                notes.append("\(kind) \(name) is only in the first database")
            }
        }
    }

    /// A column's definition after ADD COLUMN or in CREATE TABLE: name, type in `engine`'s names, NOT NULL,
    /// DEFAULT as written, but a PostgreSQL sequence's (`nextval('t_id_seq'::regclass)`, which names a
    /// sequence the other database lacks) as `bigserial`/`serial` there and as no default in SQLite (whose
    /// integer primary key counts by itself).
    private static func definition(_ column: ColumnSchema, in engine: ColumnSchema.EngineTypes) -> String {
        var type = column.declaredType(in: engine)
        var defaultSQL = column.defaultSQL
        if let value = defaultSQL, value.lowercased().hasPrefix("nextval(") {
            defaultSQL = nil
            if engine == .postgres { type = ["integer", "int4"].contains(type.lowercased()) ? "serial" : type.lowercased() == "smallint" ? "smallserial" : "bigserial" }
        }
        var definition = "\(SwiftSource.quoteSQL(column.name)) \(type)".trimmingCharacters(in: .whitespaces)
        if column.notNull { definition += " NOT NULL" }
        if let value = defaultSQL { definition += " DEFAULT \(value)" }
        return definition
    }

    /// `CREATE TABLE` for `table` in `engine`'s types: its columns (NOT NULL, DEFAULT as written), its
    /// primary key and its single-column foreign keys.
    private static func createTable(_ table: TableSchema, in engine: ColumnSchema.EngineTypes) -> String {
        var parts = table.columns.filter { !$0.isGenerated }.map { column in
            var definition = definition(column, in: engine)
            if let key = table.foreignKeys.first(where: { $0.column.caseInsensitiveCompare(column.name) == .orderedSame }) {
                definition += " REFERENCES \(SwiftSource.quoteSQL(key.table))" + (key.parentColumn.map { "(\(SwiftSource.quoteSQL($0)))" } ?? "")
            }
            return definition
        }
        let key = table.primaryKey
        if !key.isEmpty { parts.append("PRIMARY KEY (\(key.map { SwiftSource.quoteSQL($0.name) }.joined(separator: ", ")))") }
        return "CREATE TABLE \(SwiftSource.quoteSQL(table.name)) (\(parts.joined(separator: ", ")));"
    }

    /// The statements, then the notes as SQL comments.
    ///
    /// ```swift
    /// print(diff.text)
    /// ```
    public var text: String {
        if isEmpty { return "-- the schemas are the same\n" }
        return (statements + notes.map { "-- " + $0 }).joined(separator: "\n") + "\n"
    }
}
