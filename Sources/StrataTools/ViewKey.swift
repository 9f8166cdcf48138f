import Strata

/// What a view's definition proves about its rows: the view columns that carry a key of its one base
/// table through (so each row has its own values there), or why no column is proven unique.
///
/// Only a plain `SELECT` over one ordinary table proves anything: no join, no comma join, no compound
/// (UNION, INTERSECT, EXCEPT), no GROUP BY, no subquery in FROM (DISTINCT is fine). Its key is the
/// table's primary key, or the columns of a UNIQUE index over NOT NULL columns, each selected as a bare
/// column (`film_id`, `f.film_id AS FID`, or `*`).
enum ViewKey: Sendable, Hashable {
    /// The view columns (in key order) and what they carry: `the primary key of "film"`.
    case proven(columns: [String], origin: String)
    /// Why no column is proven unique: `joins tables`.
    case unproven(reason: String)

    /// Reads `sql` (the view's CREATE VIEW statement), whose result columns are `viewColumns` in order,
    /// against the tables of the schema.
    init(sql: String, viewColumns: [String], tables: [TableSchema]) {
        self = Self.analyse(SQLTokenizer.tokens(sql).filter { $0.kind != .space }, viewColumns: viewColumns, tables: tables)
    }

    private static func analyse(_ tokens: [SQLToken], viewColumns: [String], tables: [TableSchema]) -> ViewKey {
        // The parts at the SELECT's own level (parenthesis depth 0): `CREATE VIEW v [(cols)] AS <select>`.
        var depth = 0, top: [SQLToken] = []
        for token in tokens {
            if token.isPunctuation(")") { depth -= 1 }
            if depth == 0 { top.append(token) }
            if token.isPunctuation("(") { depth += 1 }
        }
        guard let asAt = top.firstIndex(where: { $0.isKeyword("AS") }), asAt + 1 < top.count,
              top[asAt + 1].isKeyword("SELECT") else { return .unproven(reason: "is not a plain SELECT") }
        let body = top[(asAt + 2)...]
        if body.contains(where: { ["UNION", "INTERSECT", "EXCEPT"].contains(where: $0.isKeyword) }) {
            return .unproven(reason: "is a compound SELECT (UNION, INTERSECT or EXCEPT)")
        }
        if body.contains(where: { $0.isKeyword("GROUP") || $0.isKeyword("HAVING") }) { return .unproven(reason: "groups rows") }
        guard let fromAt = body.firstIndex(where: { $0.isKeyword("FROM") }) else { return .unproven(reason: "selects from no table") }
        let clauseEnd = body[(fromAt + 1)...].firstIndex { token in ["WHERE", "ORDER", "LIMIT", "WINDOW"].contains(where: token.isKeyword) } ?? body.endIndex
        let from = body[(fromAt + 1)..<clauseEnd]
        if from.contains(where: { $0.isPunctuation(",") || $0.isKeyword("JOIN") }) { return .unproven(reason: "joins tables") }
        if from.contains(where: { $0.isPunctuation("(") }) { return .unproven(reason: "selects from a subquery or a function") }
        // `[schema .] table [[AS] alias] [INDEXED BY i | NOT INDEXED]`
        var names = from.prefix { !$0.isKeyword("INDEXED") && !$0.isKeyword("NOT") }.filter { !$0.isKeyword("AS") }
        if names.count >= 3, names[1].isPunctuation(".") { names.removeFirst(2) }
        guard let tableName = names.first?.identifier, names.count <= 2 else { return .unproven(reason: "is not a plain SELECT") }
        guard let table = tables.first(where: { $0.name.lowercased() == tableName.lowercased() }), !table.isVirtual else {
            return .unproven(reason: "selects from \"\(tableName)\", which is not an ordinary table")
        }
        let qualifiers = [tableName.lowercased()] + names.dropFirst().compactMap { $0.identifier?.lowercased() }

        // Each result column, by position: the base column it carries, if it is a bare column.
        // (A call's parenthesised arguments are not at depth 0: `count(x)` is `count ( )` here.)
        var items: [[SQLToken]] = [[]]
        var first = body.startIndex
        if first < fromAt, body[first].isKeyword("DISTINCT") || body[first].isKeyword("ALL") { first += 1 }
        for entry in body[first..<fromAt] {
            if entry.isPunctuation(",") { items.append([]) } else { items[items.count - 1].append(entry) }
        }
        var carried: [String?] = []
        for item in items {
            var expression = item
            if expression.count >= 2, let last = expression.last, last.identifier != nil,
               expression[expression.count - 2].isKeyword("AS") || expression[expression.count - 2].identifier != nil {
                expression.removeLast(expression[expression.count - 2].isKeyword("AS") ? 2 : 1)   // the alias
            }
            let star = expression.count == 1 && expression[0].isPunctuation("*")
                || expression.count == 3 && expression[2].isPunctuation("*")
            if star {
                carried += table.columns.filter { $0.hidden != 1 }.map(\.name)
            } else if expression.count == 1, let name = expression[0].identifier {
                carried.append(name)
            } else if expression.count == 3, expression[1].isPunctuation("."),
                      let qualifier = expression[0].identifier, qualifiers.contains(qualifier.lowercased()),
                      let name = expression[2].identifier {
                carried.append(name)
            } else {
                carried.append(nil)
            }
        }
        guard carried.count == viewColumns.count else { return .unproven(reason: "has columns that could not be matched to its SELECT") }

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
            if columns.count == candidate.columns.count { return .proven(columns: columns, origin: candidate.origin) }
        }
        return .unproven(reason: "does not select a key of \"\(table.name)\"")
    }
}
