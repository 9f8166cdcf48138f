/// Whether a view's rows are told apart by a model's key columns, shown from the view's definition alone.
///
/// The identity map keeps one live instance per key, so a model over a view may keep identity only when
/// no two rows of the view can share a key. That is shown when the view is a plain `SELECT` over one base
/// table (no join, no compound, no grouping, no common table expression) and the key columns carry
/// through, unchanged, columns of that table that are unique: its primary key (or rowid), or the columns
/// of a UNIQUE index without a predicate. A `WHERE`, `ORDER BY`, `LIMIT` or `DISTINCT` keeps that true.
/// Anything else is not shown, and the model reads the view without identity (fresh, read-only objects).
///
/// ```swift
/// // CREATE VIEW film_titles AS SELECT film_id AS id, title FROM film          -> proven (film's key)
/// // CREATE VIEW film_list AS SELECT film.film_id AS FID, ... FROM film JOIN film_actor ...  -> not proven
/// try ViewKey.unprovenReason(view: info, key: ["id"], in: connection)   // nil: proven unique
/// ```
enum ViewKey {
    /// Nil when `key` (column names of the view) is shown unique; else why not, in words for an error.
    static func unprovenReason(view: TableInfo, key: [String], in connection: Connection) throws -> String? {
        let tokens = SQLTokenizer.tokens(view.createSQL).filter { $0.kind != .space }
        // CREATE [TEMP] VIEW [IF NOT EXISTS] name [(columns)] AS select
        guard let asIndex = firstTopLevel(tokens, from: 0, where: { $0.isKeyword("AS") }) else {
            return "its definition could not be read"
        }
        let body = Array(tokens[(asIndex + 1)...])
        guard body.first?.isKeyword("SELECT") == true else {
            return "it is not a plain SELECT (a WITH or VALUES)"
        }
        let barred = ["JOIN", "UNION", "INTERSECT", "EXCEPT", "GROUP", "HAVING", "WINDOW", "VALUES"]
        if let word = firstTopLevel(body, from: 0, where: { token in barred.contains { token.isKeyword($0) } }) {
            let what = body[word].text.uppercased()
            return what == "JOIN" ? "the view joins tables" : "the view uses \(what)"
        }
        guard let from = firstTopLevel(body, from: 1, where: { $0.isKeyword("FROM") }) else {
            return "the view reads no table"
        }
        let end = firstTopLevel(body, from: from + 1, where: { t in ["WHERE", "ORDER", "LIMIT"].contains { t.isKeyword($0) } }) ?? body.count
        guard let named = source(body[(from + 1)..<end]) else {
            return "the view reads more than one table, or a subquery"
        }
        let (table, alias) = named
        guard let base = try TableInfo.read(table, in: connection) else {
            return "its source \"\(table)\" is not a table"
        }
        var start = 1
        if body.count > 1 && (body[1].isKeyword("DISTINCT") || body[1].isKeyword("ALL")) { start = 2 }
        // The view's columns in order, each with the base column it carries unchanged (nil: an expression).
        var carried: [String?] = []
        for item in split(Array(body[start..<from])) {
            if item.last?.isPunctuation("*") == true {
                carried += base.columns.filter { $0.hidden != 1 }.map(\.name)   // (generated columns are in `*`)
            } else {
                carried.append(carriedColumn(item, table: table, alias: alias))
            }
        }
        guard carried.count == view.columns.count else { return "its columns could not be matched to \"\(table)\"" }
        var baseKey: Set<String> = []
        for name in key {
            guard let position = view.columns.firstIndex(where: { $0.name.sqlNameEquals(name) }),
                  let column = carried[position] else {
                return "its column \"\(name)\" is not a column of \"\(table)\" carried through unchanged"
            }
            baseKey.insert(column.sqlFolded)
        }
        if !base.withoutRowID, baseKey.contains(where: { ["rowid", "oid", "_rowid_"].contains($0) && base.column(named: $0) == nil }) {
            return nil
        }
        let primary = base.primaryKeyColumns.map { $0.name.sqlFolded }
        if !primary.isEmpty && Set(primary).isSubset(of: baseKey) { return nil }
        for index in base.indices where index.unique && !index.partial && index.columns.allSatisfy({ $0 != nil }) {
            if Set(index.columns.compactMap { $0?.sqlFolded }).isSubset(of: baseKey) { return nil }
        }
        return "no primary key or UNIQUE index of \"\(table)\" is among its key columns"
    }

    /// The index of the first token at parenthesis depth 0, from `start`, that matches.
    private static func firstTopLevel(_ tokens: [SQLToken], from start: Int, where matches: (SQLToken) -> Bool) -> Int? {
        var depth = 0
        for i in tokens.indices where i >= start {
            if tokens[i].isPunctuation("(") { depth += 1 } else if tokens[i].isPunctuation(")") { depth -= 1 }
            else if depth == 0 && matches(tokens[i]) { return i }
        }
        return nil
    }

    /// The result columns, split at commas outside parentheses.
    private static func split(_ tokens: [SQLToken]) -> [[SQLToken]] {
        var items: [[SQLToken]] = [[]], depth = 0
        for token in tokens {
            if token.isPunctuation("(") { depth += 1 } else if token.isPunctuation(")") { depth -= 1 }
            if depth == 0 && token.isPunctuation(",") { items.append([]) } else { items[items.count - 1].append(token) }
        }
        return items
    }

    /// The one table a FROM clause names (`t`, `main.t`, `t AS a`, `t a`, with INDEXED BY), and its alias;
    /// nil for anything else (a comma join, a subquery, a table-valued function).
    private static func source(_ clause: ArraySlice<SQLToken>) -> (table: String, alias: String?)? {
        var tokens = Array(clause)
        if let indexed = tokens.firstIndex(where: { $0.isKeyword("INDEXED") }) {
            tokens.removeSubrange((tokens[indexed - 1].isKeyword("NOT") ? indexed - 1 : indexed)...)
        }
        if tokens.count >= 3, tokens[1].isPunctuation("."), tokens[0].names("main") { tokens.removeFirst(2) }
        guard let table = tokens.first?.identifier else { return nil }
        let rest = tokens.dropFirst().filter { !$0.isKeyword("AS") }
        if rest.isEmpty { return (table, nil) }
        guard rest.count == 1, let alias = rest.first?.identifier else { return nil }
        return (table, alias)
    }

    /// The base column a result column carries unchanged: `c`, `t.c` or `a.c`, with or without an alias.
    private static func carriedColumn(_ item: [SQLToken], table: String, alias: String?) -> String? {
        var expression = item
        if expression.count >= 2, expression[expression.count - 1].identifier != nil {
            let before = expression[expression.count - 2]
            if before.isKeyword("AS") { expression.removeLast(2) }
            else if before.identifier != nil { expression.removeLast() }   // `c name`
        }
        if expression.count == 1 { return expression[0].identifier }
        if expression.count == 3, expression[1].isPunctuation("."),
           expression[0].names(alias ?? table) || (alias == nil && expression[0].names(table)) {
            return expression[2].identifier
        }
        return nil
    }
}
