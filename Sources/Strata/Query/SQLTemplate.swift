/// Expands `$T` (the model's quoted table name) and `$PK` (its quoted key column) in raw SQL, outside
/// string literals, quoted identifiers and comments, so raw SQL stays correct when a table or key is
/// renamed. A `$T` that is part of a longer name (`$Total`, `a$T`) is left as it is.
enum SQLTemplate {
    static func expand(_ sql: String, table: String, key: String) -> String {
        expand(sql, table: table, keyList: SQL.quote(key))
    }

    /// With `keyList` already quoted: `"a", "b"` for a composite key.
    static func expand(_ sql: String, table: String, keyList: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "$")) else { return sql }
        let tokens: [([UInt8], String)] = [(Array("PK".utf8), keyList), (Array("T".utf8), SQL.quote(table))]
        let bytes = Array(sql.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 32)
        var i = 0
        scan: while i < bytes.count {
            if let end = SQL.endOfLiteralOrComment(bytes, at: i) {
                result += bytes[i..<end]
                i = end
                continue
            }
            if bytes[i] == UInt8(ascii: "$"), i == 0 || !SQL.isIdentifierByte(bytes[i - 1]) {
                for (token, replacement) in tokens where bytes[(i + 1)...].starts(with: token) {
                    let end = i + 1 + token.count
                    if end == bytes.count || !SQL.isIdentifierByte(bytes[end]) {
                        result += replacement.utf8
                        i = end
                        continue scan
                    }
                }
            }
            result.append(bytes[i])
            i += 1
        }
        return String(decoding: result, as: UTF8.self)
    }
}
