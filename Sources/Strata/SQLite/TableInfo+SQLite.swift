import Foundation

// Reading a SQLite table into ``TableInfo``: `sqlite_master` (through the per-connection ``SchemaCatalog``)
// and the `pragma_*` table functions; the stored SQL a rebuild needs.

extension TableInfo {
    /// Whether a PRIMARY KEY or UNIQUE constraint of a `CREATE TABLE` statement says `ON CONFLICT REPLACE`
    /// (as keywords: not in a string or a quoted name). `NOT NULL ON CONFLICT REPLACE` does not count: it
    /// puts the default in place of a NULL and deletes no row.
    static func declaresReplace(_ createSQL: String) -> Bool {
        let words = SQLTokenizer.tokens(createSQL).filter { $0.kind != .space }
        return words.indices.dropFirst(3).contains {
            words[$0].isKeyword("REPLACE") && words[$0 - 1].isKeyword("CONFLICT") && words[$0 - 2].isKeyword("ON")
                && !words[$0 - 3].isKeyword("NULL")
        }
    }

    /// The words of the table options (`WITHOUT ROWID`, `STRICT`) that follow the closing parenthesis of a
    /// `CREATE TABLE` statement's column list, uppercased and run together (`"WITHOUTROWIDSTRICT"`). Comments
    /// are skipped: SQLite stores one written before the statement's end, and a parenthesis in it
    /// (`) WITHOUT ROWID /* (code) */`) is not the list's end. A statement that mentions neither word (the
    /// usual case) is not split into tokens.
    package static func tableOptions(_ createSQL: String) -> String {
        guard SQL.mentions(createSQL, "without") || SQL.mentions(createSQL, "strict") else { return "" }
        let tokens = SQLTokenizer.tokens(createSQL)
        guard let open = tokens.firstIndex(where: { $0.isPunctuation("(") }) else { return "" }
        var depth = 0
        for index in open..<tokens.endIndex {
            if tokens[index].isPunctuation("(") {
                depth += 1
            } else if tokens[index].isPunctuation(")") {
                depth -= 1
                if depth == 0 {
                    return tokens[(index + 1)...].filter { $0.kind == .word }.map { $0.text.uppercased() }.joined()
                }
            }
        }
        return ""
    }

    /// The words of a `CREATE TABLE` statement ``read(_:in:views:)`` looks for (in this order: their bits).
    private static let createWords = SQLWords(["without", "strict", "references", "replace", "virtual"])

    /// Reads a table's columns and indices; nil when there is no such table. With `views`, a view of
    /// that name is read too (its columns; it has no indices).
    static func read(_ table: String, in connection: Connection, views: Bool = false) throws -> TableInfo? {
        // Table-valued pragma functions take the name as a bound argument, so each of these statements is
        // prepared once per connection, not once per table.
        // sqlite_master has no index: it is read once per schema version (SchemaCatalog), so that the first
        // use of N models costs N lookups, not N scans.
        let catalog = try SchemaCatalog.current(in: connection)
        guard let entry = catalog.tables[table.sqlFolded] else { return nil }
        let name = entry.name
        let createSQL = entry.sql
        let isView = entry.isView
        if isView && !views { return nil }
        // The words of the statement that the reads below look for, found in one pass.
        let said = SQL.mentions(createSQL, anyOf: createWords)
        let mentionsWithout = said & 1 != 0, mentionsStrict = said & 2 != 0, mentionsReferences = said & 4 != 0
        let mentionsReplace = said & 8 != 0, mentionsVirtual = said & 16 != 0
        let optionWords = mentionsWithout || mentionsStrict ? tableOptions(createSQL) : ""
        let withoutRowID = !isView && optionWords.contains("WITHOUTROWID")
        let isStrict = !isView && optionWords.contains("STRICT")

        var columns: [ColumnInfo] = []
        let xinfo = try connection.cachedStatement("SELECT cid, name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?)")
        try xinfo.bind(values: [.text(name)])
        while try xinfo.step() {
            columns.append(ColumnInfo(name: xinfo.string(at: 1), declaredType: xinfo.string(at: 2),
                                      notNull: xinfo.int64(at: 3) != 0,
                                      defaultSQL: xinfo.isNull(at: 4) ? nil : xinfo.string(at: 4),
                                      primaryKeyPosition: Int(xinfo.int64(at: 5)), hidden: Int(xinfo.int64(at: 6)),
                                      inStrictTable: isStrict))
        }
        xinfo.reset()

        var indices: [IndexInfo] = []
        var listed: [(name: String, unique: Bool, origin: String, partial: Bool)] = []
        // Every index has a row in sqlite_master, but for the primary key of a WITHOUT ROWID table: a
        // table with neither has none to list (each pragma read costs a statement of its own inside SQLite).
        // (Any mention of WITHOUT counts: a comment after the column list can hide the clause from the test above.)
        if withoutRowID || catalog.tablesWithIndices.contains(entry.lowercasedName) || mentionsWithout {
            let list = try connection.cachedStatement("SELECT seq, name, \"unique\", origin, partial FROM pragma_index_list(?)")
            try list.bind(values: [.text(name)])
            while try list.step() {
                listed.append((list.string(at: 1), list.int64(at: 2) != 0, list.string(at: 3), list.int64(at: 4) != 0))
            }
            list.reset()
        }
        for entry in listed {
            let info = try connection.cachedStatement("SELECT seqno, cid, name, \"desc\", coll, \"key\" FROM pragma_index_xinfo(?)")
            try info.bind(values: [.text(entry.name)])
            var names: [String?] = [], descending: [Bool] = [], collations: [String] = []
            while try info.step() {
                guard info.int64(at: 5) != 0 else { continue }  // key columns only
                names.append(info.int64(at: 1) < 0 ? nil : info.string(at: 2))
                descending.append(info.int64(at: 3) != 0)
                collations.append(info.string(at: 4))
            }
            info.reset()
            indices.append(IndexInfo(name: entry.name, unique: entry.unique, origin: entry.origin,
                                     partial: entry.partial, columns: names, descending: descending, collations: collations))
            if entry.origin == "c", let sql = catalog.indexSQL[entry.name], SQL.mentions(sql, "collate") {
                indices[indices.count - 1].hasExplicitCollation = SQLTokenizer.tokens(sql).contains { $0.isKeyword("COLLATE") }
            }
        }
        var foreignKeys: [ForeignKeyInfo] = []
        // A foreign key is declared with REFERENCES in the CREATE TABLE statement (ALTER TABLE ADD COLUMN
        // rewrites that statement), so a table whose SQL never says it has none.
        if mentionsReferences {
            let keys = try connection.cachedStatement("SELECT \"from\", \"table\", on_delete, \"to\", seq FROM pragma_foreign_key_list(?)")
            try keys.bind(values: [.text(name)])
            while try keys.step() {
                let to: String? = if case .text(let column) = keys.value(at: 3) { column } else { nil }
                let sequence: Int = if case .integer(let seq) = keys.value(at: 4) { Int(seq) } else { 0 }
                foreignKeys.append(ForeignKeyInfo(from: keys.string(at: 0), table: keys.string(at: 1), onDelete: keys.string(at: 2),
                                                  to: to, sequence: sequence))
            }
            keys.reset()
        }
        if isView {
            let writable = catalog.tablesWithInsteadOfTriggers.contains(name.sqlFolded)
            var info = TableInfo(name: name, columns: columns, indices: [], withoutRowID: true, isView: true, isWritableView: writable)
            info.createSQL = createSQL
            return info
        }
        var info = TableInfo(name: name, columns: columns, indices: indices, withoutRowID: withoutRowID, foreignKeys: foreignKeys)
        info.isStrict = isStrict
        // (SQLite stores the statement from its CREATE keyword on, as written; the word is looked for first,
        // a cheap ASCII search, so that ordinary tables cost no split of their SQL.)
        info.isVirtual = mentionsVirtual && Self.isVirtualTable(createSQL)
        info.replacesOnConflict = mentionsReplace && Self.declaresReplace(createSQL)
        info.triggerSQL = catalog.triggerSQL[entry.lowercasedName] ?? []
        info.createSQL = createSQL
        info.shadowOf = catalog.hasVirtualTables ? catalog.shadowOwner(of: entry.lowercasedName) : nil
        return info
    }

    /// Whether a table's `CREATE` statement (as `sqlite_master` keeps it) makes a virtual table.
    package static func isVirtualTable(_ createSQL: String) -> Bool {
        SQL.mentions(createSQL, "virtual")
            && createSQL.prefix(64).split(whereSeparator: { $0.isWhitespace }).dropFirst().first?.uppercased() == "VIRTUAL"
    }
}

/// The stored SQL a rebuild needs to recreate a table with everything attached to it.
struct TableSQL {
    /// The table's `CREATE TABLE` statement.
    let table: String
    /// `CREATE INDEX` statements of the table's explicit indices (constraint indices have none), in
    /// creation order.
    let indices: [String]
    /// `CREATE TRIGGER` statements of triggers on the table, in creation order.
    let triggers: [String]
    /// Tables whose foreign keys reference this one (it may be among them).
    let referencingTables: [String]

    static func read(_ table: String, in connection: Connection) throws -> TableSQL? {
        let master = try connection.cachedStatement(
            "SELECT type, sql FROM sqlite_master WHERE tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL AND type IN ('table', 'index', 'trigger') ORDER BY rowid")
        try master.bind(values: [.text(table)])
        var tableSQL: String?, indices: [String] = [], triggers: [String] = []
        while try master.step() {
            switch master.string(at: 0) {
            case "table": tableSQL = master.string(at: 1)
            case "index": indices.append(master.string(at: 1))
            default: triggers.append(master.string(at: 1))
            }
        }
        master.reset()
        guard let tableSQL else { return nil }
        let children = try connection.cachedStatement("""
            SELECT DISTINCT m.name FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table' AND f."table" = ? COLLATE NOCASE ORDER BY m.name
            """)
        try children.bind(values: [.text(table)])
        var referencing: [String] = []
        while try children.step() { referencing.append(children.string(at: 0)) }
        children.reset()
        return TableSQL(table: tableSQL, indices: indices, triggers: triggers, referencingTables: referencing)
    }
}

/// The rows of `sqlite_master` a schema read needs, read in one scan and kept per connection until
/// `PRAGMA schema_version` changes.
package final class SchemaCatalog {
    let version: Int64
    /// Tables and views by lowercased name (SQLite compares names case-insensitively).
    var tables: [String: (name: String, sql: String, isView: Bool, lowercasedName: String)] = [:]
    /// Lowercased names of the tables with at least one row of type 'index' (automatic indices included).
    var tablesWithIndices: Set<String> = []
    /// `CREATE INDEX` statements by index name.
    var indexSQL: [String: String] = [:]
    /// Lowercased names of the views with an INSTEAD OF trigger.
    var tablesWithInsteadOfTriggers: Set<String> = []
    /// The `CREATE TRIGGER` statements by the lowercased name of their table or view.
    var triggerSQL: [String: [String]] = [:]
    /// Whether some table is a virtual one (only then can a table be another's shadow table).
    var hasVirtualTables = false

    init(version: Int64) {
        self.version = version
    }

    /// The shadow tables of each module whose tables keep their data in ordinary tables named after them
    /// (SQLite's own FTS3/4, FTS5 and R*Tree), by the suffix after the virtual table's name.
    private static let shadowSuffixes: [String: [String]] = [
        "fts5": ["_data", "_idx", "_content", "_docsize", "_config"],
        "fts4": ["_content", "_segments", "_segdir", "_docsize", "_stat"],
        "fts3": ["_content", "_segments", "_segdir", "_docsize", "_stat"],
        "rtree": ["_node", "_parent", "_rowid"],
        "rtree_i32": ["_node", "_parent", "_rowid"],
        "geopoly": ["_node", "_parent", "_rowid"],
    ]

    /// For a shadow table (by lowercased name), its virtual table in words (`the FTS5 table "notes"`); nil
    /// for any other table. Known from the virtual table's `CREATE VIRTUAL TABLE ... USING module`, not
    /// from the name alone (a `notes_content` beside an ordinary `notes` is an ordinary table).
    func shadowOwner(of lowercasedName: String) -> String? {
        for (module, suffixes) in Self.shadowSuffixes {
            for suffix in suffixes where lowercasedName.hasSuffix(suffix) {
                guard let owner = tables[String(lowercasedName.dropLast(suffix.count))], !owner.isView,
                      TableInfo.isVirtualTable(owner.sql), Self.module(of: owner.sql) == module else { continue }
                return "the \(module.uppercased()) table \"\(owner.name)\""
            }
        }
        return nil
    }

    /// The module a `CREATE VIRTUAL TABLE` statement names, lowercased.
    package static func module(of createSQL: String) -> String? {
        let tokens = SQLTokenizer.tokens(createSQL).filter { $0.kind != .space }
        guard let using = tokens.firstIndex(where: { $0.isKeyword("USING") }), using + 1 < tokens.count else { return nil }
        return tokens[using + 1].identifier?.lowercased()
    }

    /// The catalog as of the connection's current schema version.
    static func current(in connection: Connection) throws -> SchemaCatalog {
        let versionStatement = try connection.cachedStatement("PRAGMA schema_version")
        let version = try versionStatement.step() ? versionStatement.int64(at: 0) : -1
        versionStatement.reset()
        if let cached = connection.schemaCatalog, cached.version == version { return cached }
        let catalog = SchemaCatalog(version: version)
        let master = try connection.cachedStatement("SELECT type, name, tbl_name, sql FROM sqlite_master")
        defer { master.reset() }
        while try master.step() {
            let type = master.string(at: 0), name = master.string(at: 1)
            switch type {
            case "table", "view":
                let lowercased = name.sqlFolded
                let sql = master.string(at: 3)
                catalog.tables[lowercased] = (name, sql, type == "view", lowercased)
                if type == "table" && !catalog.hasVirtualTables && TableInfo.isVirtualTable(sql) { catalog.hasVirtualTables = true }
            case "index":
                catalog.tablesWithIndices.insert(master.string(at: 2).sqlFolded)
                if !master.isNull(at: 3) { catalog.indexSQL[name] = master.string(at: 3) }
            case "trigger":
                catalog.triggerSQL[master.string(at: 2).sqlFolded, default: []].append(master.string(at: 3))
                let sql = master.string(at: 3).uppercased()
                // (What `sql LIKE '%INSTEAD%OF%'` matched before.)
                if let instead = sql.range(of: "INSTEAD"), sql[instead.upperBound...].contains("OF") {
                    catalog.tablesWithInsteadOfTriggers.insert(master.string(at: 2).sqlFolded)
                }
            default: break
            }
        }
        connection.schemaCatalog = catalog
        return catalog
    }
}
