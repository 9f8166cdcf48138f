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
        let before = try DatabaseSchema(reading: source, samplingValues: false)
        let after = try DatabaseSchema(reading: target, samplingValues: false)
        let oldObjects = try Self.objects(source), newObjects = try Self.objects(target)
        for table in after.tables {
            guard let old = before.table(named: table.name) else {
                if let sql = newObjects["table"]?[table.name.lowercased()] { statements.append(sql + ";") }
                continue
            }
            for column in table.columns where old.columns.first(where: { $0.name.caseInsensitiveCompare(column.name) == .orderedSame }) == nil {
                var definition = "\(SwiftSource.quoteSQL(column.name)) \(column.declaredType)".trimmingCharacters(in: .whitespaces)
                if column.notNull { definition += " NOT NULL" }
                if let value = column.defaultSQL { definition += " DEFAULT \(value)" }
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
                if now.declaredType.caseInsensitiveCompare(column.declaredType) != .orderedSame || now.notNull != column.notNull {
                    notes.append("column \(table.name).\(column.name) changed from \(column.declaredType)\(column.notNull ? " NOT NULL" : "") to \(now.declaredType)\(now.notNull ? " NOT NULL" : "") (a rebuild)")
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
                    if previous != sql { notes.append("\(kind) \(name) differs: drop it and create it as the second database has it") }
                } else {
                    statements.append(sql + ";")
                }
            }
            for name in old.keys.sorted() where new[name] == nil {
                notes.append("\(kind) \(name) is only in the first database")
            }
        }
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

    /// `sqlite_master` SQL by kind and lowercased name (automatic indices, which have none, left out).
    private static func objects(_ db: Database) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for entry in try db.introspector.storedStatements() {
            guard let sql = entry.sql else { continue }
            result[entry.type, default: [:]][entry.name.lowercased()] = sql
        }
        return result
    }
}
