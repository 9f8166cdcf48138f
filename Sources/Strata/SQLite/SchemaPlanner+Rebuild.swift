// SQLite's 12-step table rebuild (https://www.sqlite.org/lang_altertable.html#otheralter), as schema steps:
// a SQLite capability (PostgreSQL alters a column in place). The planner (Schema/SchemaPlanner.swift) asks
// for it when a model opted in to rebuilds; the connection settings around it are in Database+Rebuild.swift.

extension SchemaPlanner {
    /// The steps that rebuild table `name` (its name in the database now, before any planned rename) to
    /// fit the model: `info` is the table as it reads after the planned renames. The stored SQL of the
    /// table, its indices and triggers, and the tables that reference it are read through `connection`.
    func rebuild(_ info: TableInfo, named name: String, in introspector: any SchemaIntrospector, tableRenames: [String: String],
                 columnRenames: [String: String], changed: [(property: PropertyMetadata, column: ColumnInfo)],
                 missing: [PropertyMetadata], foreignKeys: [PropertyMetadata], key keyColumn: String) throws -> [SchemaStep] {
        guard let connection = (introspector as? SQLiteIntrospector)?.connection else {
            throw error(changed.first?.column.name, found: "a column or foreign key that differs from the declaration",
                        expected: "a table this engine's sync can alter in place",
                        "Change the column with a migration (ALTER TABLE ... ALTER COLUMN), or the declaration to match the table.")
        }
        guard let source = try TableSQL.read(name, in: connection) else {
            throw error(nil, found: "no CREATE TABLE statement in sqlite_master", expected: "a table to rebuild",
                        "Check that \"\(name)\" is a table, not a view.")
        }
        return try rebuild(info, source: source, tableRenames: tableRenames, columnRenames: columnRenames,
                           changed: changed, missing: missing, foreignKeys: foreignKeys, key: keyColumn)
    }

    /// The statements and checks of SQLite's 12-step rebuild for `info` (as it reads after the planned
    /// renames). Foreign keys off/on and BEGIN/COMMIT are the caller's: they cannot be steps.
    private func rebuild(_ info: TableInfo, source: TableSQL, tableRenames: [String: String], columnRenames: [String: String],
                         changed: [(property: PropertyMetadata, column: ColumnInfo)], missing: [PropertyMetadata],
                         foreignKeys: [PropertyMetadata], key keyColumn: String) throws -> [SchemaStep] {
        guard var definition = TableDefinition(sql: source.table) else {
            throw error(nil, found: "a table definition Strata cannot rewrite: \(source.table)", expected: "a CREATE TABLE statement",
                        "Rebuild the table with raw SQL (https://www.sqlite.org/lang_altertable.html#otheralter).")
        }
        for (old, new) in columnRenames {
            if let index = definition.columnIndex(named: old) { definition.columns[index].rename(to: new) }
        }
        for (property, column) in changed {
            guard let index = definition.columnIndex(named: column.name) else {
                throw error(column.name, found: "no definition of \"\(column.name)\" in \(source.table)", expected: "a column definition to rewrite",
                            "Rebuild the table with raw SQL (https://www.sqlite.org/lang_altertable.html#otheralter).")
            }
            let typeChanges = !property.fits(column)
            if typeChanges { definition.columns[index].setType(declaredType(property, strict: info.isStrict)) }
            if wantsNotNull(property) {
                definition.columns[index].addNotNull()
                // A default of NULL under NOT NULL would refuse every insert that leaves the column out.
                if typeChanges || !definition.columns[index].hasDefault || column.defaultIsNull {
                    definition.columns[index].setDefault(SQL.literal(property.defaultValue))
                }
            } else {
                if property.isNullable { definition.columns[index].removeNotNull() }
                if typeChanges { definition.columns[index].setDefault(nil) }
            }
        }

        for property in foreignKeys {
            guard let index = definition.columnIndex(named: property.column), let clause = foreignKeyClause(property) else {
                throw error(property.column, found: "no definition of \"\(property.column)\" in \(source.table)", expected: "a column definition to rewrite",
                            "Rebuild the table with raw SQL (https://www.sqlite.org/lang_altertable.html#otheralter).")
            }
            // SET NULL needs a nullable column: over NOT NULL, every delete of a referenced parent would fail.
            if property.onDelete == .setNull { definition.columns[index].removeNotNull() }
            definition.columns[index].addConstraint(clause)
        }

        // A rowid no name reaches cannot be copied: the rebuild would renumber the rows (and what points at a
        // rowid, a child's key, an FTS index's content_rowid, would point at other rows).
        if !info.withoutRowID && !info.keyIsRowID && info.rowIDName == nil {
            throw error(nil, found: "columns named \"rowid\", \"oid\" and \"_rowid_\", which hide the table's rowid under every name",
                        expected: "a name left to copy the rowids under, so that a rebuild keeps them",
                        "Rename one of those columns in a migration (ALTER TABLE ... RENAME COLUMN), or rebuild the table with raw SQL (https://www.sqlite.org/lang_altertable.html#otheralter).")
        }
        let table = SQL.quote(info.name)
        let newName = "strata_new_" + info.name
        let new = SQL.quote(newName)
        let key = SQL.quote(keyColumn)
        func statement(_ sql: String) -> SchemaStep { SchemaStep(kind: .rebuildTable, sql: sql) }
        func preview(_ sql: String) -> String { SQLTokenizer.renaming(sql, tables: tableRenames, columns: columnRenames) }
        var steps: [SchemaStep] = []

        // A NULL cannot go into a column that becomes NOT NULL; say which rows hold one before copying.
        for (property, column) in changed where wantsNotNull(property) && !column.notNull {
            steps.append(SchemaStep(kind: .rebuildCheck(column: property.column, expectation: "no NULL in \"\(property.column)\", which becomes NOT NULL"),
                                    sql: "SELECT \(key) FROM \(table) WHERE \(SQL.quote(property.column)) IS NULL LIMIT 10"))
        }
        steps.append(statement(definition.createSQL(table: newName, extraColumns: missing.map { columnDefinition($0, strict: info.isStrict) })))
        // Generated columns are computed, never copied (pitfall 22); rowids are kept where they are not the key.
        let copied = info.columns.filter { $0.hidden == 0 }.map { SQL.quote($0.name) }
        // Under the first of its names no column takes (`_rowid_` when a column is named `rowid`); a table
        // whose columns take all three has no rowid to reach.
        let rowID = info.withoutRowID || info.keyIsRowID ? nil : info.rowIDName
        let list = ((rowID.map { [$0] } ?? []) + copied).joined(separator: ", ")
        steps.append(statement("INSERT INTO \(new) (\(list)) SELECT \(list) FROM \(table)"))
        // SQLite converts what its affinity rules allow and keeps the rest as it was: a value that kept
        // another storage class would not read as the property's type, so it stops the rebuild.
        for (property, column) in changed where !property.fits(column) {
            guard let classes = storageClasses(property.columnType) else { continue }
            steps.append(SchemaStep(
                kind: .rebuildCheck(column: property.column, expectation: "every value of \"\(property.column)\" stored as \(property.columnType.rawValue) after the copy"),
                sql: "SELECT \(key) FROM \(new) WHERE typeof(\(SQL.quote(property.column))) NOT IN (\(classes)) LIMIT 10"))
        }
        if definition.isAutoincrement {
            // Keep the AUTOINCREMENT counter (pitfall 11): the copy alone would restart it at the largest key.
            steps.append(statement("DELETE FROM sqlite_sequence WHERE name = \(SQL.literal(.text(newName)))"))
            steps.append(statement("INSERT INTO sqlite_sequence (name, seq) SELECT \(SQL.literal(.text(newName))), seq FROM sqlite_sequence WHERE name = \(SQL.literal(.text(info.name)))"))
        }
        // Legacy ALTER for the swap: views and triggers elsewhere that name the table are not re-parsed
        // while it is briefly missing (SQLite >= 3.26 would refuse "error in view ...: no such table").
        // Foreign keys are off, so DROP TABLE fires no ON DELETE action (pitfall 21).
        steps.append(statement("PRAGMA legacy_alter_table = ON"))
        steps.append(statement("DROP TABLE \(table)"))
        steps.append(statement("ALTER TABLE \(new) RENAME TO \(table)"))
        steps.append(statement("PRAGMA legacy_alter_table = OFF"))
        steps += source.indices.map { statement(preview($0)) }
        steps += source.triggers.map { statement(preview($0)) }
        var checked = [info.name]
        for child in source.referencingTables {
            let name = tableRenames[child] ?? child
            if !checked.contains(where: { $0.sqlNameEquals(name) }) { checked.append(name) }
        }
        for name in checked {
            // `PRAGMA foreign_key_check` names a violation's foreign key by its id only: its columns are added.
            let sql = """
                SELECT c."table", c.rowid, c.parent, (SELECT group_concat(f."from", ', ') FROM pragma_foreign_key_list(c."table") AS f \
                WHERE f.id = c.fkid) FROM pragma_foreign_key_check(\(SQL.literal(.text(name)))) AS c LIMIT 10
                """
            steps.append(SchemaStep(kind: .rebuildCheck(column: nil, expectation: "no foreign key violation in \"\(name)\" (table, rowid, parent, columns)"),
                                    sql: sql))
        }
        return steps
    }

    /// The storage classes (`typeof`) a property of `type` reads without error; nil when any will do.
    private func storageClasses(_ type: ColumnType) -> String? {
        switch type {
        case .integer: "'integer', 'null'"
        case .real: "'real', 'integer', 'null'"
        case .text: "'text', 'null'"
        case .blob, .numeric: nil
        }
    }
}
