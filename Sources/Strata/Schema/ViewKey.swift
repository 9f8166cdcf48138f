/// Whether a view's rows are told apart by a model's key columns, shown from the view's definition alone.
///
/// The identity map keeps one live instance per key, so a model over a view may keep identity only when
/// no two rows of the view can share a key. That is shown when the view is a plain `SELECT` over one base
/// table (``ViewSelect``) and the key columns carry through, unchanged, columns of that table that are
/// unique: its primary key or rowid, or the NOT NULL columns of a UNIQUE index without a predicate.
/// Anything else is not shown, and the model reads the view without identity (fresh, read-only objects).
///
/// ```swift
/// // CREATE VIEW film_titles AS SELECT film_id AS id, title FROM film          -> nil (film's key)
/// // CREATE VIEW film_list AS SELECT film.film_id AS FID, ... FROM film JOIN film_actor ...
/// try ViewKey.unprovenReason(view: info, key: ["FID"], in: connection)   // "the view joins tables"
/// ```
enum ViewKey {
    /// Nil when `key` (column names of the view) is shown unique; else why not, in words for an error.
    static func unprovenReason(view: TableInfo, key: [String], in connection: Connection) throws -> String? {
        let select: ViewSelect
        switch ViewSelect.read(view.createSQL) {
        case .success(let read): select = read
        case .failure(let unreadable): return "the view \(unreadable.reason)"
        }
        guard let base = try TableInfo.read(select.table, in: connection) else {
            return "its source \"\(select.table)\" is not a table"
        }
        let carried = select.carried(star: base.columns.filter { $0.hidden != 1 }.map(\.name))   // (generated columns are in `*`)
        guard carried.count == view.columns.count else { return "its columns could not be matched to \"\(select.table)\"" }
        var baseKey: Set<String> = []
        for name in key {
            guard let position = view.columns.firstIndex(where: { $0.name.sqlNameEquals(name) }), let column = carried[position] else {
                return "its column \"\(name)\" is not a column of \"\(select.table)\" carried through unchanged"
            }
            baseKey.insert(column.sqlFolded)
        }
        if !base.withoutRowID, baseKey.contains(where: { ["rowid", "oid", "_rowid_"].contains($0) && base.column(named: $0) == nil }) {
            return nil
        }
        let primary = base.primaryKeyColumns.map { $0.name.sqlFolded }
        if !primary.isEmpty && Set(primary).isSubset(of: baseKey) { return nil }
        for index in base.indices where index.unique && !index.partial {
            let columns = index.columns.compactMap { $0 }
            guard columns.count == index.columns.count, columns.allSatisfy({ base.column(named: $0)?.notNull == true }) else { continue }
            if Set(columns.map(\.sqlFolded)).isSubset(of: baseKey) { return nil }
        }
        return "no primary key or UNIQUE index of \"\(select.table)\" is among its key columns"
    }
}
