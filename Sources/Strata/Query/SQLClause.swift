/// The clause of `objects(_:where:)`, `first`, `count` and `deleteAll`: it may start with `WHERE` or
/// without it. A clause that starts with a condition gets `WHERE ` in front; one that starts with a
/// keyword that may follow `FROM table` (`WHERE`, `ORDER BY`, `LIMIT`, `GROUP BY`, `HAVING`, `WINDOW`, a
/// join, a compound operator, `INDEXED BY`/`NOT INDEXED`) or with a comma is used as it is.
///
/// ```swift
/// try db.objects(Employee.self, where: "age > ?", 30)            // WHERE age > ?
/// try db.objects(Employee.self, where: "WHERE age > ?", 30)      // the same
/// try db.objects(Employee.self, where: "ORDER BY name LIMIT 3")  // as it is
/// ```
public enum SQLClause {
    /// Keywords a clause after `FROM table` may start with.
    static let continuations: Set<String> = [
        "WHERE", "ORDER", "LIMIT", "GROUP", "HAVING", "WINDOW", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS",
        "NATURAL", "UNION", "EXCEPT", "INTERSECT", "INDEXED", "AS",
    ]

    /// Continuations that SQLite also reads as names (a column `left`, `window`), with the words that must
    /// follow for them to be the keyword (empty, for WINDOW: a name, then AS).
    static let confirmingNextWords: [String: Set<String>] = [
        "LEFT": ["JOIN", "OUTER"], "RIGHT": ["JOIN", "OUTER"], "FULL": ["JOIN", "OUTER"], "INNER": ["JOIN"], "CROSS": ["JOIN"],
        "NATURAL": ["JOIN", "LEFT", "RIGHT", "FULL", "INNER", "CROSS"], "INDEXED": ["BY"], "WINDOW": [],
    ]

    /// `clause` with `WHERE ` in front when it starts with a condition.
    ///
    /// ```swift
    /// SQLClause.normalized("age > 30")   // "WHERE age > 30"
    /// ```
    public static func normalized(_ clause: String) -> String {
        // On bytes (grapheme-aware Character handling costs more than the query): skip ASCII whitespace,
        // read the first word, compare it uppercased.
        var bytes = Array(clause.utf8.prefix(64))
        var index = 0
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D {
            index += 1
        }
        if index + 1 < bytes.count, (bytes[index] == UInt8(ascii: "-") && bytes[index + 1] == UInt8(ascii: "-"))
            || (bytes[index] == UInt8(ascii: "/") && bytes[index + 1] == UInt8(ascii: "*")) {
            // A leading comment: the first word is the one after it (and after any others).
            let all = Array(clause.utf8)
            while index < all.count {
                if all[index] == 0x20 || all[index] == 0x0A || all[index] == 0x09 || all[index] == 0x0D { index += 1; continue }
                guard all[index] == UInt8(ascii: "-") || all[index] == UInt8(ascii: "/"),
                      let end = SQL.endOfLiteralOrComment(all, at: index) else { break }
                index = end
            }
            bytes = Array(all[index...].prefix(64))
            index = 0
        }
        guard index < bytes.count else { return clause }
        if bytes[index] == UInt8(ascii: ",") { return clause }
        var word: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            let isWordByte = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
            guard isWordByte else { break }
            word.append(byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte)
            index += 1
        }
        let first = String(decoding: word, as: UTF8.self)
        // SQLite takes these keywords for names too (`left`, `right`, `window`…): one starts a join or a
        // clause only when the word after it does (`left > ?` is a condition on the column `left`).
        if let confirming = Self.confirmingNextWords[first] {
            var rest = index
            func nextWord() -> String {
                while rest < bytes.count, bytes[rest] == 0x20 || bytes[rest] == 0x0A || bytes[rest] == 0x09 || bytes[rest] == 0x0D { rest += 1 }
                var next: [UInt8] = []
                while rest < bytes.count {
                    let byte = bytes[rest]
                    guard (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F else { break }
                    next.append(byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte)
                    rest += 1
                }
                return String(decoding: next, as: UTF8.self)
            }
            let word = nextWord()
            // (WINDOW is confirmed by `name AS`: `window LIKE ?` is a condition.)
            let confirmed = confirming.isEmpty ? !word.isEmpty && nextWord() == "AS" : confirming.contains(word)
            return confirmed ? clause : "WHERE " + clause.drop { $0.isWhitespace }
        }
        if continuations.contains(first) { return clause }
        if first == "NOT" {
            var rest = index
            while rest < bytes.count, bytes[rest] == 0x20 { rest += 1 }
            let next = String(decoding: bytes[rest...].prefix(7), as: UTF8.self).uppercased()
            if next == "INDEXED" { return clause }
        }
        return "WHERE " + clause.drop { $0.isWhitespace }
    }
}
