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

    /// `clause` with `WHERE ` in front when it starts with a condition.
    ///
    /// ```swift
    /// SQLClause.normalized("age > 30")   // "WHERE age > 30"
    /// ```
    public static func normalized(_ clause: String) -> String {
        let trimmed = clause.drop { $0.isWhitespace }
        guard let first = trimmed.first else { return clause }
        if first == "," { return clause }
        let word = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }.uppercased()
        if continuations.contains(word) { return clause }
        if word == "NOT", trimmed.dropFirst(3).drop(while: { $0.isWhitespace }).uppercased().hasPrefix("INDEXED") { return clause }
        return "WHERE " + trimmed
    }
}
