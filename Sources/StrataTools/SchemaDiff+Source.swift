import Strata

// `strata diff` across engines: each side read from a SQLite handle or from an engine's introspector.

extension SchemaDiff {
    /// One side of a ``SchemaDiff``: a database's tables and views, the statements that make its indices, views
    /// and triggers by kind and lowercased name, and the engine whose SQL they are in. Read from a SQLite
    /// ``Database`` or from any engine's introspector (PostgreSQL's, for `strata diff` on a `postgresql://` URL).
    ///
    /// ```swift
    /// let old = try SchemaDiff.Source(reading: PostgresIntrospector(connection), engine: .postgres)
    /// let diff = try SchemaDiff(from: old, to: SchemaDiff.Source(reading: db))
    /// ```
    package struct Source {
        /// The tables and views (Strata's and the engine's own tables left out).
        package let schema: DatabaseSchema
        /// `CREATE` statements by kind (`index`, `view`, `trigger`) and lowercased name.
        package let objects: [String: [String: String]]
        /// `CREATE TABLE` statements as stored, by lowercased name (SQLite's; another engine stores none).
        package let tableSQL: [String: String]
        /// Whose SQL the statements and declared types are.
        package let engine: ColumnSchema.EngineTypes

        /// A SQLite database's schema, from its catalog (automatic indices, which have no SQL, left out).
        package init(reading db: Database) throws {
            schema = try DatabaseSchema(reading: db, samplingValues: false)
            var objects: [String: [String: String]] = [:]
            for entry in try db.introspector.storedStatements() {
                guard let sql = entry.sql else { continue }
                objects[entry.type, default: [:]][entry.name.lowercased()] = sql
            }
            tableSQL = objects.removeValue(forKey: "table") ?? [:]
            self.objects = objects
            engine = .sqlite
        }

        /// Another engine's schema through its introspector: indices it made for a constraint are the
        /// table's; the others are written back from their columns (`CREATE [UNIQUE] INDEX name ON table
        /// (columns)`, so that no schema name is in them), or as the engine gives them (a partial or an
        /// expression index, with `indexSQL`); views as `CREATE VIEW`; triggers as the engine gives them.
        package init(reading introspector: any SchemaIntrospector, engine: ColumnSchema.EngineTypes) throws {
            let read = try DatabaseSchema(reading: introspector, engineTypes: engine)
            schema = DatabaseSchema(tables: read.tables.filter { !$0.isInternal }, views: read.views)
            var objects: [String: [String: String]] = [:]
            for name in try introspector.tableNames() {
                guard let info = try introspector.table(name), !TableSchema(info: info, engineTypes: engine).isInternal else { continue }
                if info.isView {
                    objects["view", default: [:]][info.name.lowercased()] = info.createSQL
                    continue
                }
                for index in info.indices where index.origin == "c" {
                    let columns = zip(index.columns, index.descending + Array(repeating: false, count: index.columns.count))
                    if !index.partial, columns.allSatisfy({ $0.0 != nil }) {
                        let list = columns.map { SwiftSource.quoteSQL($0.0 ?? "") + ($0.1 ? " DESC" : "") }.joined(separator: ", ")
                        objects["index", default: [:]][index.name.lowercased()] =
                            "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(SwiftSource.quoteSQL(index.name)) ON \(SwiftSource.quoteSQL(info.name)) (\(list))"
                    } else if let sql = try introspector.index(named: index.name)?.sql {
                        objects["index", default: [:]][index.name.lowercased()] = sql
                    }
                }
                for sql in info.triggerSQL {
                    // `CREATE [CONSTRAINT] TRIGGER name …`: the word after TRIGGER.
                    let words = sql.split(separator: " ")
                    guard let at = words.firstIndex(of: "TRIGGER"), at + 1 < words.endIndex else { continue }
                    objects["trigger", default: [:]][words[at + 1].lowercased()] = sql
                }
            }
            self.objects = objects
            tableSQL = [:]
            self.engine = engine
        }
    }
}

extension ColumnSchema {
    /// The declared type in `engine`'s names: as written for the same engine; else the nearest type there
    /// (PostgreSQL's `bigint`, `double precision`, `boolean`, `timestamptz`, `bytea`… for SQLite's affinities
    /// and type names; SQLite's `INTEGER`, `REAL`, `NUMERIC`, `TEXT`, `BLOB` for PostgreSQL's types).
    ///
    /// ```swift
    /// ColumnSchema(name: "n", declaredType: "INTEGER").declaredType(in: .postgres)   // "bigint"
    /// ```
    package func declaredType(in engine: EngineTypes) -> String {
        let type = declaredType.lowercased()
        switch (engineTypes, engine) {
        case (.sqlite, .sqlite), (.postgres, .postgres): return declaredType
        case (.sqlite, .postgres):
            if type.contains("bool") { return "boolean" }
            if type.contains("timestamp") || type.contains("datetime") { return "timestamp with time zone" }
            if type == "date" { return "date" }
            if type == "uuid" { return "uuid" }
            if type.hasPrefix("json") { return "jsonb" }
            switch affinity {
            case .integer: return "bigint"
            case .real: return "double precision"
            case .numeric: return type.hasPrefix("decimal") || type.hasPrefix("numeric") ? declaredType : "numeric"
            case .blob: return declaredType.isEmpty ? "text" : "bytea"
            case .text: return "text"
            }
        case (.postgres, .sqlite):
            if type.hasSuffix("[]") { return "TEXT" }
            if ["smallint", "integer", "bigint", "boolean"].contains(type) { return "INTEGER" }
            if ["real", "double precision"].contains(type) { return "REAL" }
            if type.hasPrefix("numeric") { return "NUMERIC" }
            if type == "bytea" { return "BLOB" }
            if type.hasPrefix("timestamp") || type == "date" { return "REAL" }   // Strata stores dates as seconds
            return "TEXT"
        }
    }
}
