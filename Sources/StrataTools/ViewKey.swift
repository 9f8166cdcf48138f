import Strata

/// What a view's definition proves about its rows: the view columns that carry a key of its one base
/// table through (so each row has its own values there), or why no column is proven unique.
///
/// The definition is read by the library's `ViewSelect`, as the library reads it to decide whether a
/// view model keeps identity: a plain `SELECT` over one ordinary table whose result columns carry the
/// table's primary key (or rowid), or the NOT NULL columns of a UNIQUE index, through unchanged.
///
/// ```swift
/// ViewKey(sql: "CREATE VIEW v AS SELECT film_id AS FID, title FROM film", viewColumns: ["FID", "title"], tables: tables)
/// // .proven(columns: ["FID"], origin: "the primary key of \"film\"")
/// ```
enum ViewKey: Sendable, Hashable {
    /// The view columns (in key order) and what they carry: `the primary key of "film"`.
    case proven(columns: [String], origin: String)
    /// Why no column is proven unique, in words that follow "the view": `joins tables`.
    case unproven(reason: String)

    /// Reads `sql` (the view's CREATE VIEW statement), whose result columns are `viewColumns` in order,
    /// against the tables of the schema.
    init(sql: String, viewColumns: [String], tables: [TableSchema]) {
        let select: ViewSelect
        switch ViewSelect.read(sql) {
        case .success(let read): select = read
        case .failure(let unreadable): self = .unproven(reason: unreadable.reason); return
        }
        guard let table = tables.first(where: { $0.name.lowercased() == select.table.lowercased() }), !table.isVirtual else {
            self = .unproven(reason: "selects from \"\(select.table)\", which is not an ordinary table")
            return
        }
        let carried = select.carried(star: table.columns.filter { $0.hidden != 1 }.map(\.name))
        guard carried.count == viewColumns.count else {
            self = .unproven(reason: "has columns that could not be matched to its SELECT")
            return
        }
        // The view column carrying each base column (the first, if several do).
        func viewColumn(_ column: String) -> String? {
            carried.firstIndex { $0?.lowercased() == column.lowercased() }.map { viewColumns[$0] }
        }
        var candidates: [(columns: [String], origin: String)] = []
        if !table.primaryKey.isEmpty {
            candidates.append((table.primaryKey.map(\.name), "the primary key of \"\(table.name)\""))
        } else if !table.withoutRowID {
            for name in ["rowid", "oid", "_rowid_"] where !table.columns.contains(where: { $0.name.lowercased() == name }) {
                candidates.append(([name], "the rowid of \"\(table.name)\""))
            }
        }
        for index in table.indices where index.unique && !index.partial && !index.columns.contains(nil) {
            let columns = index.columns.compactMap { $0 }
            let notNull = columns.allSatisfy { name in table.columns.contains { $0.name.lowercased() == name.lowercased() && $0.notNull } }
            if notNull { candidates.append((columns, "a UNIQUE index of \"\(table.name)\"")) }
        }
        for candidate in candidates {
            let columns = candidate.columns.compactMap(viewColumn)
            if columns.count == candidate.columns.count { self = .proven(columns: columns, origin: candidate.origin); return }
        }
        self = .unproven(reason: "does not select a key of \"\(table.name)\"")
    }
}
