/// A view's definition read as far as telling its rows apart needs: the one table it selects from, and
/// which of that table's columns each result column carries unchanged.
///
/// Only a plain `SELECT` over one table is read (any `WHERE`, `ORDER BY`, `LIMIT` or `DISTINCT`): a join,
/// a comma join, a compound (`UNION`, `INTERSECT`, `EXCEPT`), grouping, a common table expression, or a
/// subquery or function in `FROM` gives the reason instead. Both the library (``ViewKey``, whether a view
/// model keeps identity) and `strata generate` (which key it declares for a view) read views through it.
///
/// ```swift
/// switch ViewSelect.read("CREATE VIEW v AS SELECT f.film_id AS id, title FROM film f") {
/// case .success(let select): select.table                     // "film"
///     select.carried(star: ["film_id", "title"])              // ["film_id", "title"]
/// case .failure(let unreadable): unreadable.reason             // "joins tables", ...
/// }
/// ```
package struct ViewSelect: Sendable {
    /// Why a view's definition shows nothing about its rows, in words that follow "the view".
    package struct Unreadable: Error, Sendable {
        package let reason: String
    }

    /// One result column: a column of the table (`c`, `t.c`, `a.c`, with or without an alias), every
    /// column (`*`, `t.*`), or anything else.
    package enum Item: Sendable {
        case column(String)
        case star
        case expression
    }

    /// The table the view selects from, as written (without a `main.` qualifier).
    package let table: String
    package let items: [Item]

    /// Reads a `CREATE VIEW` statement as `sqlite_master` keeps it.
    package static func read(_ createSQL: String) -> Result<ViewSelect, Unreadable> {
        let tokens = SQLTokenizer.tokens(createSQL).filter { $0.kind != .space }
        // CREATE [TEMP] VIEW [IF NOT EXISTS] name [(columns)] AS select
        guard let asIndex = firstTopLevel(tokens, from: 0, where: { $0.isKeyword("AS") }), asIndex + 1 < tokens.count,
              tokens[asIndex + 1].isKeyword("SELECT") else {
            return .failure(Unreadable(reason: "is not a plain SELECT"))
        }
        let body = Array(tokens[(asIndex + 1)...])
        let barred = ["JOIN", "UNION", "INTERSECT", "EXCEPT", "GROUP", "HAVING", "WINDOW", "VALUES"]
        if let word = firstTopLevel(body, from: 0, where: { token in barred.contains { token.isKeyword($0) } }) {
            switch body[word].text.uppercased() {
            case "JOIN": return .failure(Unreadable(reason: "joins tables"))
            case "GROUP", "HAVING": return .failure(Unreadable(reason: "groups rows"))
            case "UNION", "INTERSECT", "EXCEPT": return .failure(Unreadable(reason: "is a compound SELECT (UNION, INTERSECT or EXCEPT)"))
            case let word: return .failure(Unreadable(reason: "uses \(word)"))
            }
        }
        guard let from = firstTopLevel(body, from: 1, where: { $0.isKeyword("FROM") }) else {
            return .failure(Unreadable(reason: "selects from no table"))
        }
        let end = firstTopLevel(body, from: from + 1, where: { t in ["WHERE", "ORDER", "LIMIT"].contains { t.isKeyword($0) } }) ?? body.count
        let source = Array(body[(from + 1)..<end])
        if source.contains(where: { $0.isPunctuation(",") }) { return .failure(Unreadable(reason: "joins tables")) }
        if source.contains(where: { $0.isPunctuation("(") }) { return .failure(Unreadable(reason: "selects from a subquery or a function")) }
        // `[main .] table [[AS] alias] [INDEXED BY i | NOT INDEXED]`
        var names = source.prefix { !$0.isKeyword("INDEXED") && !$0.isKeyword("NOT") }.filter { !$0.isKeyword("AS") }
        if names.count >= 3, names[1].isPunctuation("."), names[0].names("main") { names.removeFirst(2) }
        guard let table = names.first?.identifier, names.count <= 2, names.dropFirst().allSatisfy({ $0.identifier != nil }) else {
            return .failure(Unreadable(reason: "is not a plain SELECT from one table"))
        }
        let qualifiers = [table] + names.dropFirst().compactMap(\.identifier)
        var start = 1
        if body.count > 1 && (body[1].isKeyword("DISTINCT") || body[1].isKeyword("ALL")) { start = 2 }
        let items = split(Array(body[start..<from])).map { item(of: $0, qualifiers: qualifiers) }
        return .success(ViewSelect(table: table, items: items))
    }

    /// The table column each view column carries unchanged (nil: an expression), in view column order,
    /// with `*` standing for `starColumns` (the table's columns a `*` selects).
    package func carried(star starColumns: [String]) -> [String?] {
        items.flatMap { item -> [String?] in
            switch item {
            case .column(let name): [name]
            case .star: starColumns
            case .expression: [nil]
            }
        }
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

    /// One result column: `c`, `q.c`, `*` or `q.*` (q the table or its alias), with or without an alias.
    private static func item(of tokens: [SQLToken], qualifiers: [String]) -> Item {
        var expression = tokens
        if expression.count >= 2, expression[expression.count - 1].identifier != nil {
            let before = expression[expression.count - 2]
            if before.isKeyword("AS") { expression.removeLast(2) }
            else if before.identifier != nil { expression.removeLast() }   // `c name`
        }
        let qualified = expression.count == 3 && expression[1].isPunctuation(".")
            && qualifiers.contains { expression[0].names($0) }
        if expression.count == 1 && expression[0].isPunctuation("*") || qualified && expression[2].isPunctuation("*") { return .star }
        if expression.count == 1, expression[0].kind != .string, expression[0].text.first?.isNumber == false,
           let name = expression[0].identifier { return .column(name) }
        if qualified, let name = expression[2].identifier { return .column(name) }
        return .expression
    }
}
