/// Diffs a model's declaration against its table and plans the steps that make them agree: additive ones,
/// renames the model hints at, and a rebuild when it opted in; or explains, with a ``SchemaError``, why
/// sync cannot make them agree.
struct SchemaPlanner {
    let metadata: ModelMetadata
    /// How the engine spells column types and keys in the DDL planned.
    let dialect: any SQLDialect
    /// Indices other models over the same table declare (in column names): never dropped as unused.
    var otherIndices: [IndexDeclaration] = []
    /// The names Strata gives those declarations (their model's ``indexName(_:)``), with each one's
    /// definition in column names: an owned index of such a name must have that definition.
    var otherIndexNames: [String: IndexDeclaration] = [:]

    /// Reads the table (and, for hints and rebuilds, what else it needs) through `introspector` and plans.
    /// Nothing is changed.
    func plan(in introspector: any SchemaIntrospector) throws -> SchemaPlan {
        var current: TableInfo?
        return try plan(in: introspector, current: &current)
    }

    /// ``plan(in:)``, also handing back the table as it is now, so a caller whose plan is empty need not
    /// read it again.
    func plan(in introspector: any SchemaIntrospector, current: inout TableInfo?) throws -> SchemaPlan {
        let plan = try planSteps(in: introspector, current: &current)
        // A shadow table holds a full-text or R*Tree table's index: a column or an index added there would
        // corrupt it (SQLite's integrity-check then fails), so nothing is ever changed in one.
        if let owner = current?.shadowOf, let step = plan.steps.first {
            throw error(nil, found: "a shadow table of \(owner), which SQLite keeps that table's index in",
                        expected: "a table sync may change (the plan's first step: \(step.sql))",
                        "Read and write the data through \(owner) itself, or declare the model read-only (`static let isReadOnly = true`) with only columns the table has.")
        }
        return plan
    }

    private func planSteps(in introspector: any SchemaIntrospector, current: inout TableInfo?) throws -> SchemaPlan {
        let table = metadata.tableName
        var steps: [SchemaStep] = []
        var info = try introspector.table(table)
        current = info
        if let view = info, view.isView { return try planView(view) }

        // A previous table name: rename that table when the current one is missing.
        var tableRenames: [String: String] = [:]
        var previous: [TableInfo] = []
        for name in metadata.previousTableNames where !name.sqlNameEquals(table) {
            if let old = try introspector.table(name), !old.isView, !previous.contains(where: { $0.name == old.name }) {
                previous.append(old)
            }
        }
        if let old = previous.first {
            if let info {
                throw error(nil, found: "both table \"\(info.name)\" and table \"\(old.name)\" (named in previousTableNames)",
                            expected: "only one of them",
                            "Move what you need from \"\(old.name)\" into \"\(info.name)\" and drop it, or take \"\(old.name)\" out of previousTableNames.")
            }
            guard previous.count == 1 else {
                throw error(nil, found: "tables \(previous.map { "\"\($0.name)\"" }.joined(separator: " and ")) (all named in previousTableNames)",
                            expected: "at most one previous table", "Drop or rename all but one of them.")
            }
            steps.append(SchemaStep(kind: .renameTable(from: old.name, to: table),
                                    sql: "ALTER TABLE \(SQL.quote(old.name)) RENAME TO \(SQL.quote(table))"))
            tableRenames[old.name] = table
            info = old.renamed(to: table, columns: [:])
        }
        guard let found = info else {
            if metadata.isReadOnly {
                throw error(nil, found: "no table or view", expected: "the table a read-only model reads",
                            "Create the table, or check the model's tableName.")
            }
            return SchemaPlan(model: metadata.typeName, table: table,
                              steps: [createTable()] + (try createIndices(metadata.indices, properties: metadata.properties, listed: [], in: introspector)),
                              columns: Dictionary(uniqueKeysWithValues: metadata.properties.map { ($0.name, $0.column) }))
        }
        /// The table's name in the database now, before any planned rename.
        let currentName = tableRenames.first?.key ?? found.name

        // Column rename hints: rename the old column when the property has none.
        var columnRenames: [String: String] = [:]
        for property in metadata.properties {
            guard let old = metadata.renamedColumns[property.name], !old.sqlNameEquals(property.column),
                  let oldColumn = found.column(named: old) else { continue }
            if let existing = found.column(named: property.column) {
                throw error(property.name, found: "both column \"\(existing.name)\" and column \"\(oldColumn.name)\" (its name in renamedColumns)",
                            expected: "only one of them",
                            "Copy what you need from \"\(oldColumn.name)\" into \"\(existing.name)\" with raw SQL and drop \"\(oldColumn.name)\", or remove the hint.")
            }
            guard dialect.altersRenameColumn else {
                throw error(property.name, found: "SQLite \(Database.sqliteVersion)", expected: "SQLite 3.25 or later for RENAME COLUMN",
                            "Rename the column with a rebuild in raw SQL, or link a newer SQLite.")
            }
            steps.append(SchemaStep(kind: .renameColumn(from: oldColumn.name, to: property.column),
                                    sql: "ALTER TABLE \(SQL.quote(table)) RENAME COLUMN \(SQL.quote(oldColumn.name)) TO \(SQL.quote(property.column))"))
            columnRenames[oldColumn.name] = property.column
        }
        let current = columnRenames.isEmpty ? found : found.renamed(to: found.name, columns: columnRenames)

        let properties = try resolveColumns(current)
        let columns = Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0.column) })
        // A key named `rowid` over a table without one of that name is the implicit rowid (a table without
        // a primary key): nothing to check or add for it.
        if !(metadata.keyCount == 1 && current.isImplicitRowID(properties[0].column)) {
            try checkPrimaryKey(current, key: Array(properties.prefix(metadata.keyCount)))
        }
        var missing: [PropertyMetadata] = []
        var changed: [(property: PropertyMetadata, column: ColumnInfo)] = []
        var foreignKeys: [PropertyMetadata] = []
        // The parts of a composite key that are references declare their foreign keys too: a table without
        // them (made before key parts had them, or by hand) is treated as for any other reference column.
        if metadata.keyCount > 1 {
            for property in properties.prefix(metadata.keyCount) where current.column(named: property.column) != nil {
                if try needsForeignKey(property, in: current) { foreignKeys.append(property) }
            }
        }
        for property in properties.dropFirst(metadata.keyCount) {
            if let column = current.column(named: property.column) {
                if try needsRebuild(property, column) { changed.append((property, column)) }
                if try needsForeignKey(property, in: current) { foreignKeys.append(property) }
            } else {
                missing.append(property)
            }
        }
        if metadata.isReadOnly {
            // A read-only model reads the table as it is: nothing to add, no index to keep.
            if let property = missing.first {
                throw error(property.column, found: "no column \"\(property.column)\"", expected: "a column for property \"\(property.name)\" of a read-only model",
                            "Map the property to an existing column with columnNames, or leave it out of persistentProperties.")
            }
            return SchemaPlan(model: metadata.typeName, table: table, steps: steps, columns: columns)
        }

        // A column added (or rewritten) NOT NULL takes the property's init() value as its default: NaN has no
        // SQL literal (SQLite stores NULL for it), so ADD COLUMN would fail with SQLite's "Cannot add a NOT
        // NULL column with default value NULL", naming neither the model nor the property.
        for property in missing + changed.map(\.property) where !property.isNullable {
            if case .real(let value) = property.defaultValue, value.isNaN {
                throw error(property.column, found: "NaN as the init() value of property \"\(property.name)\", the default of its NOT NULL column",
                            expected: "a number (or nil) to fill the column of the rows the table has",
                            "Give `\(property.name)` a number in init() (0, say), or declare it optional to store NULL; NaN cannot be stored.")
            }
        }

        var rebuilt: [String] = []
        if changed.isEmpty && foreignKeys.isEmpty {
            steps += missing.map { addColumn($0, strict: current.isStrict) }
        } else {
            rebuilt = changed.map(\.property.column) + foreignKeys.map(\.column) + missing.map(\.column)
            steps += try rebuild(current, named: currentName, in: introspector, tableRenames: tableRenames, columnRenames: columnRenames,
                                 changed: changed, missing: missing, foreignKeys: foreignKeys, key: properties[0].column)
        }

        let declared = metadata.indices.map { columnIndex($0, properties) }
        // An owned index whose name is the one Strata gives a declaration it does not match (the model's,
        // or another model's of this handle over the table) is stale: SQLite carries an index through
        // RENAME COLUMN, so `strata_unique_t_r_id_…` made for (r, id) covers (p, id) once another model's
        // renamedColumns hint (or raw SQL) renamed r back to p. Its name promises a definition it lacks, and no
        // declaration is served by it as it is, so it is dropped -- UNIQUE or not: the rule below that keeps
        // an undeclared UNIQUE index is for one that may be another model's declaration, and this one is
        // nobody's -- and, when this model declares that name, made again in this plan (same transaction),
        // on the declared columns. An owned index whose name matches no known declaration is left to the
        // rule below.
        var named: [String: IndexDeclaration] = otherIndexNames.reduce(into: [:]) { $0[$1.key.sqlFolded] = $1.value }
        for index in metadata.indices { named[indexName(index).sqlFolded] = columnIndex(index, properties) }
        let stale = current.indices.filter { index in
            index.isOwned && named[index.name.sqlFolded].map { !covers(index, $0) } == true
        }
        steps += stale.map { SchemaStep(kind: .dropIndex($0.name), sql: "DROP INDEX \(SQL.quote($0.name))") }
        let dropped = Set(stale.map(\.name.sqlFolded))
        let remaining = current.indices.filter { !dropped.contains($0.name.sqlFolded) }
        steps += try createIndices(metadata.indices.filter { index in !remaining.contains { covers($0, columnIndex(index, properties)) } },
                                   properties: properties, listed: current.indices, dropping: dropped, in: introspector)
        // Owned plain indices that serve no declaration are dropped; one that still serves one (made under an
        // older name scheme, or before its columns were renamed) is kept. A UNIQUE index is never dropped here
        // (a stale one, named for a declaration it does not match, was dropped above):
        // another model over the table, which this handle has not seen, may declare it, and a lost UNIQUE
        // constraint lets duplicates in. Dropping one is the user's explicit step (`DROP INDEX`, in a
        // migration). A model that maps only some of the table's columns (a summary beside a full model)
        // drops none, nor is one dropped that another model of this handle over the table declares.
        // (Whether the model maps every column matters only when an owned index remains.)
        var mapsEveryColumn = false
        if remaining.contains(where: \.isOwned) {
            let mapped = Set(properties.map { $0.column.sqlFolded })
            mapsEveryColumn = current.columns.allSatisfy { $0.hidden != 0 || mapped.contains($0.name.sqlFolded) }
        }
        var keptUnique: [String] = []
        for index in remaining where mapsEveryColumn && index.isOwned
            && !(declared + otherIndices).contains(where: { covers(index, $0) }) {
            if index.unique {
                keptUnique.append(index.name)
            } else {
                steps.append(SchemaStep(kind: .dropIndex(index.name), sql: "DROP INDEX \(SQL.quote(index.name))"))
            }
        }
        var plan = SchemaPlan(model: metadata.typeName, table: table, steps: steps, columns: columns)
        plan.keptUniqueIndices = keptUnique
        plan.rebuiltColumns = rebuilt
        return plan
    }

    // MARK: Columns

    /// The model's properties with each one's column as the table has it: the declared name
    /// (``ModelDeclaration/columnNames``, else the property's), or, for a reference with no such column,
    /// the `<name>_id` / `<name>Id` column whose foreign key points at the related table. A reference with
    /// no column next to a foreign key to its table under another name is a ``SchemaError``: adding a
    /// column beside it would split the relationship in two.
    func resolveColumns(_ info: TableInfo) throws -> [PropertyMetadata] {
        var resolved = metadata.properties
        // The columns taken, made only when a reference lacks its column (rare: most models have every one).
        var usedColumns: Set<String>?
        for i in resolved.indices {
            let property = resolved[i]
            guard let related = property.related, metadata.type.columnNames[property.name] == nil,
                  info.column(named: property.column) == nil else { continue }
            var used = usedColumns ?? Set(resolved.compactMap { info.column(named: $0.column)?.name.sqlFolded })
            defer { usedColumns = used }
            let relatedTable = related.tableName
            let candidates = info.foreignKeys.filter {
                $0.table.sqlNameEquals(relatedTable) && !used.contains($0.from.sqlFolded)
            }
            let conventional = [property.name + "_id", property.name + "Id"]
            if let match = candidates.first(where: { key in conventional.contains { $0.sqlNameEquals(key.from) } }) {
                resolved[i].column = match.from
                used.insert(match.from.sqlFolded)
            } else if let other = candidates.first {
                throw error(property.name, found: "no column \"\(property.name)\", and column \"\(other.from)\" with a foreign key to \"\(relatedTable)\"",
                            expected: "the column of reference \"\(property.name)\"",
                            "Map the reference to that column with `static let columnNames = [\"\(property.name)\": \"\(other.from)\"]`; to add a new column beside it instead, name it in columnNames: `[\"\(property.name)\": \"\(property.name)\"]`.")
            }
        }
        return resolved
    }

    /// A model over a view: read as it is (no step ever), with every property's column present.
    private func planView(_ view: TableInfo) throws -> SchemaPlan {
        let properties = try resolveColumns(view)
        for property in properties where view.column(named: property.column) == nil {
            throw error(property.column, found: "view \"\(view.name)\" without column \"\(property.column)\"",
                        expected: "a column for property \"\(property.name)\"",
                        "Schema sync never changes a view: map the property to one of its columns with columnNames, or leave it out of persistentProperties.")
        }
        return SchemaPlan(model: metadata.typeName, table: view.name, steps: [],
                          columns: Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0.column) }))
    }

    /// A declaration in column names.
    private func columnIndex(_ index: IndexDeclaration, _ properties: [PropertyMetadata]) -> IndexDeclaration {
        IndexDeclaration(columns: index.columns.map { name in properties.first { $0.name == name }?.column ?? name }, unique: index.unique)
    }

    // MARK: Rebuild
    // The 12-step rebuild is SQLite's: its steps are planned in SQLite/SchemaPlanner+Rebuild.swift.

    /// Whether the property's column is NOT NULL when Strata creates it.
    func wantsNotNull(_ property: PropertyMetadata) -> Bool {
        !property.isNullable && !property.defaultValue.isNull
    }

    // MARK: Steps

    private func createTable() -> SchemaStep {
        let key = metadata.properties[0]
        var definitions: [String]
        if metadata.keyCount == 1 {
            definitions = [SQL.quote(key.column) + " " + dialect.singleKeyDefinition(integer: metadata.keyIsInteger, format: key.formatKind)]
        } else {
            // A key part that is a reference carries its foreign key as any other reference column does.
            definitions = metadata.properties.prefix(metadata.keyCount).map { part in
                "\(SQL.quote(part.column)) \(dialect.columnType(part.columnType, format: part.formatKind, strict: false)) NOT NULL" + (foreignKeyClause(part).map { " " + $0 } ?? "")
            }
        }
        definitions += metadata.properties.dropFirst(metadata.keyCount).map { columnDefinition($0) }
        if metadata.keyCount > 1 {
            definitions.append("PRIMARY KEY (" + metadata.properties.prefix(metadata.keyCount).map { SQL.quote($0.column) }.joined(separator: ", ") + ")")
        }
        let sql = "CREATE TABLE \(SQL.quote(metadata.tableName)) (\(definitions.joined(separator: ", ")))"
        return SchemaStep(kind: .createTable, sql: sql)
    }

    private func addColumn(_ property: PropertyMetadata, strict: Bool) -> SchemaStep {
        SchemaStep(kind: .addColumn(property.column),
                   sql: "ALTER TABLE \(SQL.quote(metadata.tableName)) ADD COLUMN \(columnDefinition(property, strict: strict))")
    }

    /// The type a column of `property` is declared with, in the connection's dialect.
    func declaredType(_ property: PropertyMetadata, strict: Bool) -> String {
        dialect.columnType(property.columnType, format: property.formatKind, strict: strict)
    }

    /// `"name" TYPE`, plus `NOT NULL DEFAULT <fresh init() value>` for non-optional properties, and the
    /// foreign key a relationship declares; `strict` for a column of a STRICT table.
    func columnDefinition(_ property: PropertyMetadata, strict: Bool = false) -> String {
        var definition = "\(SQL.quote(property.column)) \(declaredType(property, strict: strict))"
        if !property.isNullable && !property.defaultValue.isNull {
            definition += " NOT NULL DEFAULT \(dialect.defaultLiteral(property.defaultValue, format: property.formatKind))"
        }
        if let clause = foreignKeyClause(property) { definition += " " + clause }
        return definition
    }

    /// `REFERENCES "Artist" ("id") ON DELETE CASCADE` for a relationship that declares an action.
    func foreignKeyClause(_ property: PropertyMetadata) -> String? {
        guard let action = property.onDelete, let related = property.related else { return nil }
        let key = (try? ModelMetadata.of(related))?.properties.first?.column ?? "id"
        return "REFERENCES \(SQL.quote(related.tableName)) (\(SQL.quote(key))) ON DELETE \(action.rawValue)"
    }

    /// The name of an owned index: `strata_[unique_]<table>_<columns>` (shortened past 40 characters),
    /// then 8 hex digits of a hash of the whole definition, so that no two definitions share a name
    /// whatever the names hold (`["a_b"]` and `["a", "b"]`; table `a_b` and table `a`; Unicode; length).
    /// The hash is FNV-1a over the length-prefixed UTF-8 of each part: stable across processes and
    /// releases, as it must be for names stored in files.
    func indexName(_ index: IndexDeclaration) -> String {
        var readable = ([metadata.tableName] + index.columns).joined(separator: "_")
        if readable.count > 40 { readable = String(readable.prefix(40)) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        for part in [index.unique ? "unique" : "plain", metadata.tableName] + index.columns {
            let utf8 = Array(part.utf8)
            mix(withUnsafeBytes(of: UInt32(utf8.count).littleEndian, Array.init))
            mix(utf8)
        }
        let suffix = String((hash >> 32) ^ (hash & 0xffff_ffff), radix: 16)
        return IndexInfo.ownedPrefix + (index.unique ? "unique_" : "") + readable + "_"
            + String(repeating: "0", count: 8 - suffix.count) + suffix
    }

    /// CREATE INDEX steps for the declarations, once per name; an index of another definition that has
    /// the name already (index names are global in a database) is a ``SchemaError``, never replaced.
    /// `listed`: the table's indices as this plan read them. An index of the name on this very table that
    /// they do not list was made by another connection since (a race between two handles' first syncs):
    /// the step stays, and the plan made again under the write lock sees the index and decides.
    /// `dropping`: names (folded) of stale indices the plan drops before: they are made again, not refused.
    private func createIndices(_ indices: [IndexDeclaration], properties: [PropertyMetadata], listed: [IndexInfo],
                               dropping: Set<String> = [],
                               in introspector: any SchemaIntrospector) throws -> [SchemaStep] {
        var steps: [SchemaStep] = []
        var names: Set<String> = []
        for index in indices where names.insert(indexName(index)).inserted {
            let name = indexName(index)
            if dropping.contains(name.sqlFolded) {
                steps.append(createIndex(index, properties: properties))
                continue
            }
            // Index names compare case-insensitively (ASCII): `STRATA_…` is the same name.
            if let existing = try introspector.index(named: name), !(existing.table.sqlNameEquals(metadata.tableName)
                                      && !listed.contains { $0.name.sqlNameEquals(existing.name) }) {
                let owner = existing.table, sql = existing.sql ?? "(an automatic index)"
                throw SchemaError(model: metadata.typeName, table: metadata.tableName, column: nil,
                                  found: "index \"\(existing.name)\" on table \"\(owner)\": \(sql)",
                                  expected: "\(index.unique ? "a UNIQUE" : "an") index on \"\(metadata.tableName)\" (\(index.columns.joined(separator: ", ")))",
                                  remedy: "An index Strata did not make uses the name Strata gives this declaration; rename or drop that index.")
            }
            steps.append(createIndex(index, properties: properties))
        }
        return steps
    }

    /// CREATE INDEX of a declaration; the name comes from the property names, the definition from the columns.
    private func createIndex(_ index: IndexDeclaration, properties: [PropertyMetadata]) -> SchemaStep {
        let name = indexName(index)
        let columns = columnIndex(index, properties).columns.map(SQL.quote).joined(separator: ", ")
        return SchemaStep(kind: .createIndex(name),
                          sql: "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(SQL.quote(name)) ON \(SQL.quote(metadata.tableName)) (\(columns))")
    }

    /// Whether an existing index of the table serves a declaration (in column names): one with exactly its
    /// definition — a full, ascending index on exactly these columns, no expression, the columns' own
    /// collations (no COLLATE clause), the same uniqueness — whoever made it and whatever its name (ours, under this or an older name
    /// scheme; another tool's; a UNIQUE constraint's).
    private func covers(_ existing: IndexInfo, _ index: IndexDeclaration) -> Bool {
        !existing.partial && existing.unique == index.unique && !existing.descending.contains(true)
            && !existing.hasExplicitCollation
            && existing.columns.count == index.columns.count
            && zip(existing.columns, index.columns).allSatisfy { $0?.sqlNameEquals($1) == true }
    }

    // MARK: Checks

    func error(_ column: String?, found: String, expected: String, _ remedy: String) -> SchemaError {
        SchemaError(model: metadata.typeName, table: metadata.tableName, column: column,
                    found: found, expected: expected, remedy: remedy)
    }

    private func checkPrimaryKey(_ info: TableInfo, key: [PropertyMetadata]) throws {
        let keys = info.primaryKeyColumns
        guard keys.count == key.count,
              zip(keys, key).allSatisfy({ $0.name.sqlNameEquals($1.column) }) else {
            let found = keys.isEmpty ? "no PRIMARY KEY" : "PRIMARY KEY (\(keys.map(\.name).joined(separator: ", ")))"
            let declared = key.map(\.column).joined(separator: ", ")
            throw error(key.count == 1 ? key[0].column : nil, found: found, expected: "PRIMARY KEY (\(declared))",
                        keys.count > 1
                            ? "Declare the table's key columns, in its order: `static let compositeKey = [\(keys.map { "\"\($0.name)\"" }.joined(separator: ", "))]` (with properties of those names, or columnNames)."
                            : "Set the model's primaryKey to the table's single key column, or use raw SQL for this table.")
        }
        // A rebuild never changes the key: rowids, references and the identity map all hang on it.
        for (property, column) in zip(key, keys) { _ = try needsRebuild(property, column, rebuildable: false) }
    }

    private static let rebuildHint = "or opt in to a rebuild with `static let schemaRebuild = SchemaRebuild.whenNeeded`"

    /// Whether a relationship that declares a foreign key needs one added (by a rebuild, which the model
    /// must have opted in to); a foreign key of another definition on the column is a ``SchemaError``.
    private func needsForeignKey(_ property: PropertyMetadata, in info: TableInfo) throws -> Bool {
        guard let action = property.onDelete, let related = property.related else { return false }
        let existing = info.foreignKeys.filter { $0.from.sqlNameEquals(property.column) }
        if existing.contains(where: { $0.table.sqlNameEquals(related.tableName) && $0.onDelete == action.rawValue }) {
            return false
        }
        if let other = existing.first {
            throw error(property.column, found: "FOREIGN KEY to \"\(other.table)\" ON DELETE \(other.onDelete)",
                        expected: "FOREIGN KEY to \"\(related.tableName)\" ON DELETE \(action.rawValue)",
                        "Change the declaration to match the table (`@Reference(onDelete: .\(ForeignKeyAction(rawValue: other.onDelete).map { "\($0)" } ?? "noAction"))`), or change the constraint with raw SQL.")
        }
        guard metadata.schemaRebuild == .whenNeeded, !metadata.isReadOnly else {
            throw error(property.column, found: "no FOREIGN KEY", expected: "FOREIGN KEY to \"\(related.tableName)\" ON DELETE \(action.rawValue)",
                        "An existing table gets a foreign key only by a rebuild: opt in with `static let schemaRebuild = SchemaRebuild.whenNeeded` (the plan lists it), or declare `@Reference var \(property.name)` without onDelete.")
        }
        return true
    }

    /// Checks a declared column; returns whether the model's rebuild policy asks for a rebuild to make it fit.
    private func needsRebuild(_ property: PropertyMetadata, _ column: ColumnInfo, rebuildable: Bool = true) throws -> Bool {
        // Generated columns are read, never written (the mapping leaves them out of INSERT and UPDATE), and a
        // rebuild never touches them.
        let rebuild = rebuildable && metadata.schemaRebuild == .whenNeeded && !column.isGenerated && !metadata.isReadOnly
        var needed = false
        // A text key over a column that turns numerals into numbers (another tool's NUMERIC key holding
        // 'EUR'): its rows read and update as they are, and an insert refuses a key that would become a
        // number (TableMapping.keyTextBecomesNumber).
        if column.primaryKeyPosition > 0 && TableMapping.textTurnsNumeric(property, column) { return false }
        if !property.fits(column) {
            guard rebuild else {
                let types = Affinity.swiftTypes(declaredType: column.declaredType), several = types.contains(" or ")
                let declare = types == "SQLValue"
                    ? "Declare the property as SQLValue\(column.notNull ? "" : " (optional)"), which takes values as SQLite stores them (this column's affinity turns text that looks like a number into a number)"
                    : "Declare the property as \(types) (\(column.notNull ? "" : "optional, ")the type\(several ? "s" : "") that read\(several ? "" : "s") this column), or as SQLValue to take values as SQLite stores them"
                let timeOfDay = property.formatKind == .date && Affinity.isTimeOfDay(column.declaredType)
                throw error(column.name, found: "\(column.affinity.rawValue) affinity (declared \"\(column.declaredType)\")"
                                + (timeOfDay ? ", a time of day ('HH:MM:SS[.ffffff]' text)" : ""),
                            expected: timeOfDay ? "a column that holds dates (a time of day has no date to write a Date in)"
                                : "a column that stores \(property.columnType.rawValue) values without conversion",
                            declare + "; or migrate the column with raw SQL (a rebuild: https://www.sqlite.org/lang_altertable.html#otheralter)" + (rebuildable ? ", \(Self.rebuildHint)." : "."))
            }
            needed = true
        }
        guard column.primaryKeyPosition == 0, !column.isGenerated else { return needed }
        // A reference is optional in Swift, and an SQLValue can hold NULL; over a NOT NULL column (Django's
        // foreign key, say) saving nil is refused by SQLite, and reported naming the property
        // (``ModelError/Kind/missingValue``).
        if property.isNullable && column.notNull && property.related == nil && property.columnType != .numeric {
            guard rebuild else {
                throw error(column.name, found: "NOT NULL", expected: "a nullable column for an optional property",
                            "Make the property non-optional, rebuild the column without NOT NULL with raw SQL, \(Self.rebuildHint).")
            }
            needed = true
        }
        // A non-optional property over a nullable column works without a rebuild; with one, the column
        // becomes NOT NULL like the one sync would create.
        if rebuild && wantsNotNull(property) && !column.notNull { needed = true }
        return needed
    }
}

import Foundation
