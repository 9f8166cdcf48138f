import Foundation

/// A CHECK constraint of a `CREATE TABLE` statement, as written: what `strata inspect` lists of a table's
/// checks (the catalog keeps them only in the statement's text). `package`: StrataTools reads them.
///
/// ```swift
/// let checks = CheckConstraint.all(in: "CREATE TABLE item(price REAL CHECK (price > 0), CHECK (1))")
/// checks.map(\.expression)   // ["price > 0", "1"]
/// checks.map(\.column)       // ["price", nil]
/// ```
package struct CheckConstraint: Sendable, Hashable {
    /// Its name (`CONSTRAINT positive CHECK (...)`), nil when it has none.
    package let name: String?
    /// The column whose definition holds it; nil for a table constraint.
    package let column: String?
    /// The expression between the parentheses, as written (comments and line breaks kept).
    package let expression: String

    /// The CHECK constraints of `createTableSQL`: the columns' in column order, then the table's. Empty for
    /// text that is not a `CREATE TABLE` statement Strata can split (a virtual table's).
    package static func all(in createTableSQL: String) -> [CheckConstraint] {
        guard SQL.mentions(createTableSQL, "check"), let definition = TableDefinition(sql: createTableSQL) else { return [] }
        var checks: [CheckConstraint] = []
        for column in definition.columns { checks += find(in: Array(column.tokens.dropFirst()), column: column.name) }
        for constraint in definition.constraints { checks += find(in: SQLTokenizer.tokens(constraint), column: nil) }
        return checks
    }

    /// The `[CONSTRAINT name] CHECK (expression)` clauses at the top level of one definition's tokens.
    private static func find(in tokens: [SQLToken], column: String?) -> [CheckConstraint] {
        func word(from index: Int, step: Int) -> Int? {
            var i = index + step
            while i >= 0 && i < tokens.count {
                if tokens[i].kind != .space { return i }
                i += step
            }
            return nil
        }
        var checks: [CheckConstraint] = []
        var depth = 0, index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token.isPunctuation("(") {
                depth += 1
            } else if token.isPunctuation(")") {
                depth -= 1
            } else if depth == 0, token.isKeyword("CHECK"), let open = word(from: index, step: 1), tokens[open].isPunctuation("(") {
                var name: String?
                if let named = word(from: index, step: -1), let keyword = word(from: named, step: -1), tokens[keyword].isKeyword("CONSTRAINT") {
                    name = tokens[named].identifier
                }
                // Through the matching parenthesis (an unterminated one runs to the end).
                var close = open + 1, inner = 0
                while close < tokens.count {
                    if tokens[close].isPunctuation("(") { inner += 1 }
                    if tokens[close].isPunctuation(")") {
                        if inner == 0 { break }
                        inner -= 1
                    }
                    close += 1
                }
                let expression = SQLTokenizer.text(tokens[(open + 1)..<close]).trimmingCharacters(in: .whitespacesAndNewlines)
                checks.append(CheckConstraint(name: name, column: column, expression: expression))
                index = close + 1
                continue
            }
            index += 1
        }
        return checks
    }
}
