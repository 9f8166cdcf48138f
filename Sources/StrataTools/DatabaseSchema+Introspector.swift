import Strata

// A schema read through any engine's introspector (PostgreSQL's, for `strata inspect` and `generate` on a
// `postgresql://` URL): the tables and views as the neutral `TableInfo` describes them.

extension DatabaseSchema {
    /// Reads every table and view `introspector` lists, with row counts from `countRows` when given.
    /// Declared types are the engine's own (`bigint`, `timestamp with time zone`), and the generator maps
    /// them with ``ColumnSchema/engineTypes`` set. Nothing is sampled.
    ///
    /// ```swift
    /// let schema = try DatabaseSchema(reading: PostgresIntrospector(connection), engineTypes: .postgres) { table in
    ///     try count(table)
    /// }
    /// ```
    package init(reading introspector: any SchemaIntrospector, engineTypes: ColumnSchema.EngineTypes,
                 countRows: ((String) throws -> Int64)? = nil) throws {
        var tables: [TableSchema] = [], views: [String] = [], viewTables: [TableSchema] = []
        for name in try introspector.tableNames() {
            guard let info = try introspector.table(name) else { continue }
            var table = TableSchema(info: info, engineTypes: engineTypes)
            if info.isView {
                views.append(info.name)
                table.isView = true
                table.sql = info.createSQL
                viewTables.append(table)
            } else {
                table.rowCount = try countRows?(info.name)
                tables.append(table)
            }
        }
        for i in viewTables.indices {
            viewTables[i].viewKey = ViewKey(sql: viewTables[i].sql, viewColumns: viewTables[i].columns.map(\.name), tables: tables)
        }
        self.init(tables: tables, views: views)
        self.viewTables = viewTables
    }
}

extension TableSchema {
    /// A table as an introspector read it (an engine without rowids: `withoutRowID` is false, there being
    /// no such option to show).
    init(info: TableInfo, engineTypes: ColumnSchema.EngineTypes) {
        let columns = info.columns.map { column -> ColumnSchema in
            var schema = ColumnSchema(name: column.name, declaredType: column.declaredType, notNull: column.notNull,
                                      defaultSQL: column.defaultSQL, primaryKeyPosition: column.primaryKeyPosition, hidden: column.hidden)
            schema.engineTypes = engineTypes
            return schema
        }
        let indices = info.indices.map {
            IndexSchema(name: $0.name, columns: $0.columns, descending: $0.descending, unique: $0.unique, origin: $0.origin, partial: $0.partial)
        }.sorted { $0.name < $1.name }
        self.init(name: info.name, columns: columns, indices: indices)
        // Single-column keys only, as for SQLite: a key's columns come in a run, the first at sequence 0.
        var keys: [[ForeignKeyInfo]] = []
        for key in info.foreignKeys {
            if key.sequence == 0 || keys.isEmpty { keys.append([key]) } else { keys[keys.count - 1].append(key) }
        }
        foreignKeys = keys.filter { $0.count == 1 }.map { ForeignKeySchema(column: $0[0].from, table: $0[0].table, parentColumn: $0[0].to) }
    }
}
