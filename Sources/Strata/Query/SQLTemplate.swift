/// Expands `$T` (the model's quoted table name) and `$PK` (its quoted key column) in raw SQL, outside
/// string literals and quoted identifiers, so raw SQL stays correct when a table or key is renamed.
enum SQLTemplate {
    static func expand(_ sql: String, table: String, key: String) -> String {
        expand(sql, table: table, keyList: SQL.quote(key))
    }

    /// With `keyList` already quoted: `"a", "b"` for a composite key.
    static func expand(_ sql: String, table: String, keyList: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "$")) else { return sql }
        let tokens = [("PK", keyList), ("T", SQL.quote(table))]
        var result = ""
        var quote: Character?
        var index = sql.startIndex
        scan: while index < sql.endIndex {
            let character = sql[index]
            let next = sql.index(after: index)
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" || character == "`" {
                quote = character
            } else if character == "$" {
                for (token, replacement) in tokens where sql[next...].hasPrefix(token) {
                    let end = sql.index(next, offsetBy: token.count)
                    if end == sql.endIndex || !(sql[end].isLetter || sql[end].isNumber || sql[end] == "_") {
                        result += replacement
                        index = end
                        continue scan
                    }
                }
            }
            result.append(character)
            index = next
        }
        return result
    }
}
