import Strata

/// The tables of a database as SQLite's `sqlite_master` and `PRAGMA table_xinfo` / `index_list` /
/// `index_xinfo` describe them, read through the library's schema introspector (the one piece of code
/// that reads a schema; nothing is written).
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.readOnly = true
/// let db = try Database(path: "app.sqlite", configuration: configuration)
/// let schema = try DatabaseSchema(reading: db)
/// schema.tables.map(\.name)   // ["author", "note"]
/// ```
public struct DatabaseSchema: Sendable, Encodable {
    /// The tables, by name; SQLite's own (`sqlite_%`) are left out unless read `includingInternal`.
    /// ```swift
    /// schema.tables.first?.columns.count
    /// ```
    public var tables: [TableSchema]
    /// The names of the views.
    ///
    /// ```swift
    /// schema.views  // ["recent_notes"]
    /// ```
    public var views: [String]
    /// The views with their columns (``TableSchema/isView``), for read-only models.
    ///
    /// ```swift
    /// schema.viewTables.first?.columns.map(\.name)   // ["id", "title"]
    /// ```
    public var viewTables: [TableSchema] = []

    /// Makes a schema from parts (tests, or a schema built by hand).
    /// ```swift
    /// let schema = DatabaseSchema(tables: [table])
    /// ```
    public init(tables: [TableSchema], views: [String] = []) {
        self.tables = tables
        self.views = views
    }

    /// Reads every table of the main database of `db`, with its row count when `countingRows` is set.
    /// A table whose columns cannot be read (a virtual table whose module is not loaded) keeps the
    /// reason in ``TableSchema/problem`` instead of failing the whole read. With `samplingValues` (what
    /// ``ModelGenerator`` types properties by), the storage classes the first 10,000 rows of each table
    /// and view hold are counted per column; which view columns carry a key of their table through is read
    /// from the views' SQL, and the shadow tables of FTS3/4/5 and R*Tree tables are told from the
    /// virtual tables' SQL. SQLite's own tables (`sqlite_sequence`, `sqlite_stat1` … `sqlite_stat4`) are
    /// read only `includingInternal` (``TableSchema/isInternal``).
    ///
    /// ```swift
    /// let schema = try DatabaseSchema(reading: db, countingRows: true)
    /// schema.tables[0].rowCount   // 3
    /// let all = try DatabaseSchema(reading: db, includingInternal: true)
    /// all.tables.map(\.name)        // ["note", "sqlite_sequence"]
    /// ```
    public init(reading db: Database, countingRows: Bool = false, samplingValues: Bool = true, includingInternal: Bool = false) throws {
        let master = try db.introspector.tablesAndViews(includingInternal: includingInternal)
        var tables: [TableSchema] = [], views: [String] = [], viewTables: [TableSchema] = []
        for entry in master {
            let name = entry.name
            var table = try TableSchema(reading: name, sql: entry.sql ?? "", in: db, countingRows: countingRows)
            if samplingValues && !table.isVirtual && table.problem == nil { table.sampleValues(in: db) }
            if entry.type == "view" {
                views.append(name)
                var view = table
                view.isView = true
                view.sql = entry.sql ?? ""
                viewTables.append(view)
            } else {
                tables.append(table)
            }
        }
        // Shadow tables: `<virtual table><suffix>`, for the suffixes its module keeps its data in.
        for virtual in tables where virtual.isVirtual {
            guard let module = virtual.module, let suffixes = Self.shadowSuffixes[module.lowercased()] else { continue }
            for i in tables.indices where !tables[i].isVirtual {
                let name = tables[i].name.lowercased(), owner = virtual.name.lowercased()
                if name.hasPrefix(owner), suffixes.contains(String(name.dropFirst(owner.count))) {
                    tables[i].shadowOf = "the \(module.uppercased()) table \(virtual.name)"
                }
            }
        }
        for i in viewTables.indices {
            viewTables[i].viewKey = ViewKey(sql: viewTables[i].sql, viewColumns: viewTables[i].columns.map(\.name), tables: tables)
        }
        self.init(tables: tables, views: views)
        self.viewTables = viewTables
    }

    /// The tables each virtual-table module keeps its data in, by suffix to the virtual table's name.
    static let shadowSuffixes: [String: Set<String>] = {
        let fts3: Set<String> = ["_content", "_segments", "_segdir", "_docsize", "_stat"]
        let rtree: Set<String> = ["_node", "_parent", "_rowid"]
        return ["fts5": ["_config", "_content", "_data", "_docsize", "_idx"], "fts3": fts3, "fts4": fts3,
                "rtree": rtree, "rtree_i32": rtree, "geopoly": rtree]
    }()

    /// This schema with only the tables named in `names` (compared as SQLite does), in the schema's order;
    /// an empty list keeps every table. A name with no table throws a ``ToolError`` listing the tables.
    ///
    /// ```swift
    /// let some = try schema.selecting(["note", "author"])
    /// ```
    public func selecting(_ names: [String]) throws -> DatabaseSchema {
        guard !names.isEmpty else { return self }
        for name in names where table(named: name) == nil {
            throw ToolError("no table named \"\(name)\"; the tables are: " + tables.map(\.name).joined(separator: ", "))
        }
        let wanted = Set(names.map { $0.lowercased() })
        var selected = DatabaseSchema(tables: tables.filter { wanted.contains($0.name.lowercased()) }, views: views)
        selected.viewTables = viewTables.filter { wanted.contains($0.name.lowercased()) }
        return selected
    }

    /// The table named `name`, compared as SQLite does (ASCII case-insensitively).
    /// ```swift
    /// schema.table(named: "NOTE")?.name  // "note"
    /// ```
    public func table(named name: String) -> TableSchema? {
        tables.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// One table: its columns, indices and options.
///
/// ```swift
/// let note = schema.table(named: "note")
/// note?.primaryKey.map(\.name)   // ["id"]
/// ```
public struct TableSchema: Sendable, Encodable {
    /// The table's name.
    ///
    /// ```swift
    /// table.name  // "note"
    /// ```
    public var name: String
    /// Columns in table order, hidden and generated ones included.
    ///
    /// ```swift
    /// table.columns[0].name
    /// ```
    public var columns: [ColumnSchema]
    /// Every index on the table, constraint indices included.
    ///
    /// ```swift
    /// table.indices.count
    /// ```
    public var indices: [IndexSchema]
    /// Declared `WITHOUT ROWID`.
    ///
    /// ```swift
    /// table.withoutRowID  // false
    /// ```
    public var withoutRowID: Bool
    /// Declared `STRICT`.
    ///
    /// ```swift
    /// table.strict  // false
    /// ```
    public var strict: Bool
    /// A virtual table (`CREATE VIRTUAL TABLE`).
    ///
    /// ```swift
    /// table.isVirtual  // false
    /// ```
    public var isVirtual: Bool
    /// `count(*)`, when it was asked for and could be run.
    ///
    /// ```swift
    /// table.rowCount  // 3
    /// ```
    public var rowCount: Int64?
    /// Single-column foreign keys: column -> the parent table (and its column; nil means its primary key).
    ///
    /// ```swift
    /// note.foreignKeys.first?.table   // "author"
    /// ```
    public var foreignKeys: [ForeignKeySchema] = []
    /// The CHECK constraints of its `CREATE TABLE` statement: the columns' in column order, then the table's.
    ///
    /// ```swift
    /// table.checks.first?.expression   // "price > 0"
    /// ```
    public var checks: [CheckSchema] = []
    /// Whether this is a view (``DatabaseSchema/viewTables``).
    ///
    /// ```swift
    /// view.isView  // true
    /// ```
    public var isView = false
    /// Why the table could not be read completely, if it could not.
    ///
    /// ```swift
    /// table.problem  // nil
    /// ```
    public var problem: String?
    /// A virtual table's module, lowercased as written after USING (`fts5`, `rtree`).
    var module: String?
    /// For a shadow table of a virtual table (an FTS index's `t_data`, an R*Tree's `r_node`): that table,
    /// as `the FTS5 table t`.
    var shadowOf: String?
    /// A view's CREATE VIEW statement.
    var sql = ""
    /// For a view: which columns carry a key of its table through, or why none are proven unique.
    var viewKey: ViewKey?

    /// What `strata inspect --json` writes (the generator's findings stay out).
    private enum CodingKeys: String, CodingKey {
        case name, columns, indices, withoutRowID, strict, isVirtual, rowCount, foreignKeys, checks, isView, problem
    }

    /// As the synthesized encoding would, but `checks` only for a table that has some (the JSON of a
    /// table without CHECK constraints stays as it was).
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(table)   // {"name":"note","columns":[…],…}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(columns, forKey: .columns)
        try container.encode(indices, forKey: .indices)
        try container.encode(withoutRowID, forKey: .withoutRowID)
        try container.encode(strict, forKey: .strict)
        try container.encode(isVirtual, forKey: .isVirtual)
        try container.encodeIfPresent(rowCount, forKey: .rowCount)
        try container.encode(foreignKeys, forKey: .foreignKeys)
        if !checks.isEmpty { try container.encode(checks, forKey: .checks) }
        try container.encode(isView, forKey: .isView)
        try container.encodeIfPresent(problem, forKey: .problem)
    }

    /// Makes a table description by hand.
    ///
    /// ```swift
    /// let table = TableSchema(name: "note", columns: [ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1)])
    /// ```
    public init(name: String, columns: [ColumnSchema], indices: [IndexSchema] = [], withoutRowID: Bool = false,
                strict: Bool = false, isVirtual: Bool = false, rowCount: Int64? = nil, problem: String? = nil) {
        self.name = name
        self.columns = columns
        self.indices = indices
        self.withoutRowID = withoutRowID
        self.strict = strict
        self.isVirtual = isVirtual
        self.rowCount = rowCount
        self.problem = problem
    }

    /// Reads one table; `sql` is its `CREATE` statement from `sqlite_master` (for the table options).
    ///
    /// ```swift
    /// let table = try TableSchema(reading: "note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY)", in: db)
    /// ```
    public init(reading name: String, sql: String, in db: Database, countingRows: Bool = false) throws {
        // Read through the library's introspector (the schema is read by one piece of code); the options
        // and the module come from `sql` as given.
        let isVirtual = TableInfo.isVirtualTable(sql)
        let options = TableInfo.tableOptions(sql)
        var columns: [ColumnSchema] = [], indices: [IndexSchema] = [], foreignKeys: [ForeignKeySchema] = [], problem: String?
        do {
            if let info = try db.introspector.table(name) {
                columns = info.columns.map {
                    ColumnSchema(name: $0.name, declaredType: $0.declaredType, notNull: $0.notNull, defaultSQL: $0.defaultSQL,
                                 primaryKeyPosition: $0.primaryKeyPosition, hidden: $0.hidden)
                }
                indices = info.indices.map {
                    IndexSchema(name: $0.name, columns: $0.columns, descending: $0.descending, unique: $0.unique,
                                origin: $0.origin, partial: $0.partial)
                }
                indices.sort { $0.name < $1.name }
                // Single-column keys only: a key's columns come in a run, the first at sequence 0.
                var keys: [[ForeignKeyInfo]] = []
                for key in info.foreignKeys {
                    if key.sequence == 0 || keys.isEmpty { keys.append([key]) } else { keys[keys.count - 1].append(key) }
                }
                foreignKeys = keys.filter { $0.count == 1 }.map { ForeignKeySchema(column: $0[0].from, table: $0[0].table, parentColumn: $0[0].to) }
            }
        } catch {
            problem = "\(error)"
        }
        var rowCount: Int64?
        if countingRows && problem == nil {
            // A count that fails (a damaged page: SQLITE_CORRUPT) is an error, not a table without a count.
            rowCount = try db.value(Int64.self, "SELECT count(*) FROM " + SwiftSource.quoteSQL(name))
        }
        self.init(name: name, columns: columns, indices: indices,
                  withoutRowID: !isVirtual && options.contains("WITHOUTROWID"),
                  strict: !isVirtual && options.contains("STRICT"),
                  isVirtual: isVirtual, rowCount: rowCount, problem: problem)
        self.foreignKeys = foreignKeys
        checks = CheckConstraint.all(in: sql).map { CheckSchema(expression: $0.expression, column: $0.column, name: $0.name) }
        if isVirtual { module = SchemaCatalog.module(of: sql) }
    }

    /// Counts the storage classes (`typeof`) of each column over the first 10,000 rows, into
    /// ``ColumnSchema/storedTypes``: one bounded query. A query that fails leaves the counts out (the
    /// declared types alone then type the properties).
    mutating func sampleValues(in db: Database) {
        let sampled = columns.indices.filter { columns[$0].hidden != 1 }
        guard !sampled.isEmpty else { return }
        let counts = sampled.map { i in
            let column = SwiftSource.quoteSQL(columns[i].name)
            return StoredTypes.classes.map { "count(CASE typeof(\(column)) WHEN '\($0)' THEN 1 END)" }.joined(separator: " || ' ' || ")
        }
        let sql = "SELECT " + counts.joined(separator: ", ") + " FROM (SELECT "
            + sampled.map { SwiftSource.quoteSQL(columns[$0].name) }.joined(separator: ", ")
            + " FROM " + SwiftSource.quoteSQL(name) + " LIMIT 10000)"
        guard let row = try? db.rows(sql).first else { return }
        for (position, i) in sampled.enumerated() {
            let numbers = (row[position].schemaText ?? "").split(separator: " ").compactMap { Int($0) }
            if numbers.count == StoredTypes.classes.count { columns[i].storedTypes = StoredTypes(counts: numbers) }
        }
    }

    /// Whether the table is one Strata (`strata_migrations`, the migrations it applied) or SQLite
    /// (`sqlite_sequence`, `sqlite_stat1` … `sqlite_stat4`) makes and keeps for itself: `strata generate`
    /// writes no model for it unless asked (`--include-internal`, ``ModelGenerator/includesInternalTables``).
    ///
    /// ```swift
    /// schema.table(named: "strata_migrations")?.isInternal   // true
    /// ```
    public var isInternal: Bool {
        SQLiteIntrospector.isEngineTable(name) || name.lowercased() == Migrator.tableName.lowercased()
    }

    /// The primary-key columns in key order (empty for a rowid table without a declared key).
    /// ```swift
    /// table.primaryKey.map(\.name)  // ["note_id", "label_id"]
    /// ```
    public var primaryKey: [ColumnSchema] {
        columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }
    }
}
