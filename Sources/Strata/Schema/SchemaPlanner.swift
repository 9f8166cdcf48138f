/// Diffs a model's declaration against its table and plans additive steps, or explains, with a
/// ``SchemaError``, why additive sync cannot make them agree.
struct SchemaPlanner {
    let metadata: ModelMetadata

    func plan(for info: TableInfo?) throws -> SchemaPlan {
        guard let info else {
            return SchemaPlan(model: metadata.typeName, table: metadata.tableName,
                              steps: [createTable()] + metadata.indices.map { createIndex($0) })
        }
        var steps: [SchemaStep] = []
        try checkPrimaryKey(info)
        for property in metadata.properties.dropFirst() {
            if let column = info.column(named: property.name) {
                try check(property, against: column)
            } else {
                steps.append(addColumn(property))
            }
        }
        try checkUnmappedColumns(info)

        let declared = Set(metadata.indices.map(indexName))
        for index in metadata.indices where !info.indices.contains(where: { covers($0, index) }) {
            steps.append(createIndex(index))
        }
        for index in info.indices where index.isOwned && !declared.contains(index.name) {
            steps.append(SchemaStep(kind: .dropIndex(index.name), sql: "DROP INDEX \(SQL.quote(index.name))"))
        }
        return SchemaPlan(model: metadata.typeName, table: metadata.tableName, steps: steps)
    }

    // MARK: Steps

    private func createTable() -> SchemaStep {
        let key = metadata.key
        var definitions = [SQL.quote(key.name) + (metadata.keyIsInteger ? " INTEGER PRIMARY KEY" : " TEXT PRIMARY KEY NOT NULL")]
        definitions += metadata.properties.dropFirst().map(columnDefinition)
        let sql = "CREATE TABLE \(SQL.quote(metadata.tableName)) (\(definitions.joined(separator: ", ")))"
        return SchemaStep(kind: .createTable, sql: sql)
    }

    private func addColumn(_ property: PropertyMetadata) -> SchemaStep {
        SchemaStep(kind: .addColumn(property.name),
                   sql: "ALTER TABLE \(SQL.quote(metadata.tableName)) ADD COLUMN \(columnDefinition(property))")
    }

    /// `"name" TYPE`, plus `NOT NULL DEFAULT <fresh init() value>` for non-optional properties.
    private func columnDefinition(_ property: PropertyMetadata) -> String {
        var definition = "\(SQL.quote(property.name)) \(property.columnType.rawValue)"
        if !property.isNullable && !property.defaultValue.isNull {
            definition += " NOT NULL DEFAULT \(SQL.literal(property.defaultValue))"
        }
        return definition
    }

    func indexName(_ index: IndexDeclaration) -> String {
        IndexInfo.ownedPrefix + (index.unique ? "unique_" : "") + ([metadata.tableName] + index.columns).joined(separator: "_")
    }

    private func createIndex(_ index: IndexDeclaration) -> SchemaStep {
        let name = indexName(index)
        let columns = index.columns.map(SQL.quote).joined(separator: ", ")
        return SchemaStep(kind: .createIndex(name),
                          sql: "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(SQL.quote(name)) ON \(SQL.quote(metadata.tableName)) (\(columns))")
    }

    /// Whether an existing index already serves a declaration: ours by name, or any full, ascending index
    /// on exactly these columns with the same uniqueness (another tool's, or a UNIQUE constraint's).
    private func covers(_ existing: IndexInfo, _ index: IndexDeclaration) -> Bool {
        if existing.name == indexName(index) { return true }
        return !existing.partial && existing.unique == index.unique && !existing.descending.contains(true)
            && existing.columns.count == index.columns.count
            && zip(existing.columns, index.columns).allSatisfy { $0?.caseInsensitiveCompare($1) == .orderedSame }
    }

    // MARK: Checks

    private func error(_ column: String?, found: String, expected: String, _ remedy: String) -> SchemaError {
        SchemaError(model: metadata.typeName, table: metadata.tableName, column: column,
                    found: found, expected: expected, remedy: remedy)
    }

    private func checkPrimaryKey(_ info: TableInfo) throws {
        let key = metadata.key
        let keys = info.primaryKeyColumns
        guard keys.count == 1, keys[0].name.caseInsensitiveCompare(key.name) == .orderedSame else {
            let found = keys.isEmpty ? "no PRIMARY KEY" : "PRIMARY KEY (\(keys.map(\.name).joined(separator: ", ")))"
            throw error(key.name, found: found, expected: "PRIMARY KEY (\(key.name))",
                        "Set the model's primaryKey to the table's single key column, or use raw SQL for this table.")
        }
        try check(key, against: keys[0])
    }

    private func check(_ property: PropertyMetadata, against column: ColumnInfo) throws {
        if column.isGenerated {
            throw error(column.name, found: "a generated column", expected: "a stored \(property.columnType.rawValue) column",
                        "Generated columns cannot be written; leave \"\(property.name)\" out of persistentProperties.")
        }
        guard column.affinity.accepts(property.columnType) else {
            throw error(column.name, found: "\(column.affinity.rawValue) affinity (declared \"\(column.declaredType)\")",
                        expected: "a column that stores \(property.columnType.rawValue) values without conversion",
                        "Change the property back to a type stored as \(column.affinity.rawValue), declare it as SQLValue to take values as SQLite stores them, or migrate the column with raw SQL (a rebuild: https://www.sqlite.org/lang_altertable.html#otheralter).")
        }
        if property.isNullable && column.notNull && column.primaryKeyPosition == 0 {
            throw error(column.name, found: "NOT NULL", expected: "a nullable column for an optional property",
                        "Make the property non-optional, or rebuild the column without NOT NULL.")
        }
    }

    /// Columns the model does not declare are kept and ignored, unless inserts could never succeed.
    private func checkUnmappedColumns(_ info: TableInfo) throws {
        for column in info.columns where column.notNull && column.defaultSQL == nil && column.primaryKeyPosition == 0
            && !column.isGenerated && !metadata.properties.contains(where: { $0.name.caseInsensitiveCompare(column.name) == .orderedSame }) {
            throw error(column.name, found: "NOT NULL column \"\(column.name)\" without a default",
                        expected: "every NOT NULL column without default to be a persistent property",
                        "Add a property named \"\(column.name)\" to the model, so that inserts can fill it.")
        }
    }
}

import Foundation
