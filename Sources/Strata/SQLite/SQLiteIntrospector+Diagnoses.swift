// What schema sync and the failure diagnoses read of a SQLite schema beyond ``TableInfo``: an index by
// name (`sqlite_master`), the unique indices of a table with their key parts (`pragma_index_list`,
// `pragma_index_xinfo`), the foreign keys that point at a table (`pragma_foreign_key_list` of every table)
// and a table's primary key columns (`pragma_table_info`).

extension SQLiteIntrospector {
    package func index(named name: String) throws -> CatalogIndex? {
        // SQLite compares identifiers case-insensitively (ASCII), as NOCASE does: `STRATA_…` is the same name.
        let statement = try connection.cachedStatement("SELECT tbl_name, sql, name FROM sqlite_master WHERE type = 'index' AND name = ? COLLATE NOCASE")
        try statement.bind(values: [.text(name)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return CatalogIndex(table: statement.string(at: 0), sql: statement.isNull(at: 1) ? nil : statement.string(at: 1),
                            name: statement.string(at: 2))
    }

    /// The unique indices of `table`: their key parts (a column, or nil for an expression: `cid` below 0) with
    /// collating sequences, in key order. Read on the error path only: statements not cached.
    package func uniqueIndices(of table: String) -> [UniqueIndexKeys] {
        guard let list = try? connection.prepare("""
            SELECT il.name, il.partial, m.sql FROM pragma_index_list(?) AS il LEFT JOIN sqlite_master AS m ON m.type = 'index' AND m.name = il.name
            WHERE il."unique"
            """) else { return [] }
        defer { list.finalize() }
        guard (try? list.bind(values: [.text(table)])) != nil else { return [] }
        var listed: [(name: String, partial: Bool, sql: String?)] = []
        while (try? list.step()) == true {
            listed.append((list.string(at: 0), list.int64(at: 1) != 0, list.isNull(at: 2) ? nil : list.string(at: 2)))
        }
        guard let info = try? connection.prepare("SELECT cid, name, coll FROM pragma_index_xinfo(?) WHERE \"key\" ORDER BY seqno") else { return [] }
        defer { info.finalize() }
        var indices: [UniqueIndexKeys] = []
        for index in listed {
            guard (try? info.bind(values: [.text(index.name)])) != nil else { continue }
            var keys: [(column: String?, collation: String)] = []
            while (try? info.step()) == true {
                keys.append((info.int64(at: 0) >= 0 ? info.string(at: 1) : nil, info.string(at: 2)))
            }
            info.reset()
            indices.append(UniqueIndexKeys(name: index.name, partial: index.partial, sql: index.sql, keys: keys))
        }
        return indices
    }

    /// The foreign keys of other tables (or the same) that point at `parent`, one per constraint. Read on
    /// the error path only: the statement is not cached.
    package func foreignKeys(referencing parent: String) -> [ReferencingKey] {
        let sql = """
            SELECT m.name, f.id, f."from", f."to", f.on_delete FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table' AND f."table" = ? COLLATE NOCASE ORDER BY m.name, f.id, f.seq
            """
        guard let statement = try? connection.prepare(sql) else { return [] }
        defer { statement.finalize() }
        guard (try? statement.bind(values: [.text(parent)])) != nil else { return [] }
        var keys: [(child: String, id: Int64, from: [String], to: [String], onDelete: String)] = []
        while (try? statement.step()) == true {
            let child = statement.string(at: 0), id = statement.int64(at: 1)
            let to = statement.isNull(at: 3) ? nil : statement.string(at: 3)
            if let last = keys.last, last.child == child, last.id == id {
                keys[keys.count - 1].from.append(statement.string(at: 2))
                if let to { keys[keys.count - 1].to.append(to) }
            } else {
                keys.append((child, id, [statement.string(at: 2)], to.map { [$0] } ?? [], statement.string(at: 4).uppercased()))
            }
        }
        return keys.map { ReferencingKey(child: $0.child, from: $0.from, to: $0.to, onDelete: $0.onDelete) }
    }

    /// The primary key columns of `table`, in key order (what a foreign key without a column list names).
    package func primaryKeyColumnNames(of table: String) -> [String] {
        guard let statement = try? connection.prepare("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk") else { return [] }
        defer { statement.finalize() }
        guard (try? statement.bind(values: [.text(table)])) != nil else { return [] }
        var names: [String] = []
        while (try? statement.step()) == true { names.append(statement.string(at: 0)) }
        return names
    }
}
