/// A CREATE TABLE statement split into its parts, so that a rebuild can change the definitions of a few
/// columns and keep everything else exactly as written: other columns, constraints, collations, foreign
/// keys, generated columns, comments and table options (`WITHOUT ROWID`, `STRICT`).
struct TableDefinition {
    /// One column definition, as tokens without leading or trailing space.
    struct Column {
        private(set) var name: String
        private(set) var tokens: [SQLToken]

        var text: String { SQLTokenizer.text(tokens) }

        /// Keywords that end the type name and begin a column constraint.
        private static let constraintKeywords = ["CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT",
                                                 "COLLATE", "REFERENCES", "GENERATED", "AS"]

        init?(_ tokens: [SQLToken]) {
            guard let first = tokens.first, let name = first.identifier else { return nil }
            self.name = name
            self.tokens = tokens
        }

        /// Parenthesis depth before each token.
        private var depths: [Int] {
            var depth = 0
            return tokens.map { token in
                defer {
                    if token.isPunctuation("(") { depth += 1 } else if token.isPunctuation(")") { depth -= 1 }
                }
                return depth
            }
        }

        private func nextWord(after index: Int) -> Int? {
            tokens.indices.dropFirst(index + 1).first { tokens[$0].kind != .space }
        }

        private func previousWord(before index: Int) -> Int? {
            tokens.indices.prefix(index).last { tokens[$0].kind != .space }
        }

        /// Where the column constraints begin (the end when there are none).
        private var constraintStart: Int {
            let depths = self.depths
            return tokens.indices.dropFirst().first { index in
                depths[index] == 0 && Column.constraintKeywords.contains(where: tokens[index].isKeyword)
            } ?? tokens.endIndex
        }

        /// Extends a clause starting at `index` back over a `CONSTRAINT name` that names it.
        private func clauseStart(_ index: Int) -> Int {
            guard let name = previousWord(before: index), tokens[name].identifier != nil,
                  let keyword = previousWord(before: name), tokens[keyword].isKeyword("CONSTRAINT") else { return index }
            return keyword
        }

        /// The token range of the top-level `NOT NULL` clause (with its name and conflict clause), if any.
        private var notNullRange: ClosedRange<Int>? {
            let depths = self.depths
            for index in tokens.indices.dropFirst() where depths[index] == 0 && tokens[index].isKeyword("NOT") {
                guard let null = nextWord(after: index), tokens[null].isKeyword("NULL") else { continue }
                var end = null
                if let on = nextWord(after: null), tokens[on].isKeyword("ON"),
                   let conflict = nextWord(after: on), tokens[conflict].isKeyword("CONFLICT"),
                   let resolution = nextWord(after: conflict) {
                    end = resolution
                }
                return clauseStart(index)...end
            }
            return nil
        }

        /// The token range of the top-level `DEFAULT value` clause, if any (`ON DELETE SET DEFAULT` is not one).
        private var defaultRange: ClosedRange<Int>? {
            let depths = self.depths
            for index in tokens.indices.dropFirst() where depths[index] == 0 && tokens[index].isKeyword("DEFAULT") {
                if let before = previousWord(before: index), tokens[before].isKeyword("SET") { continue }
                guard var end = nextWord(after: index) else { return nil }
                if tokens[end].isPunctuation("(") {
                    // Through the matching parenthesis.
                    var depth = 0
                    for candidate in end..<tokens.endIndex {
                        if tokens[candidate].isPunctuation("(") { depth += 1 }
                        if tokens[candidate].isPunctuation(")") { depth -= 1; if depth == 0 { end = candidate; break } }
                    }
                } else if tokens[end].isPunctuation("+") || tokens[end].isPunctuation("-") {
                    end = nextWord(after: end) ?? end
                } else if tokens[end].isKeyword("X"), end + 1 < tokens.endIndex, tokens[end + 1].kind == .string {
                    end += 1   // a blob literal X'..'
                }
                return clauseStart(index)...end
            }
            return nil
        }

        var hasNotNull: Bool { notNullRange != nil }
        var hasDefault: Bool { defaultRange != nil }

        /// Removes a clause together with the space before it.
        private mutating func remove(_ range: ClosedRange<Int>) {
            var start = range.lowerBound
            if start > 0 && tokens[start - 1].kind == .space { start -= 1 }
            tokens.removeSubrange(start...range.upperBound)
        }

        private mutating func append(_ text: String) {
            tokens.append(SQLToken(kind: .space, text: " "))
            tokens.append(SQLToken(kind: .word, text: Substring(text)))
        }

        mutating func rename(to newName: String) {
            tokens[0] = SQLToken(kind: .quoted, text: Substring(SQL.quote(newName)))
            name = newName
        }

        /// Replaces the declared type (adds one when there is none).
        mutating func setType(_ type: String) {
            let end = constraintStart
            let replacement = [SQLToken(kind: .space, text: " "), SQLToken(kind: .word, text: Substring(type))]
                + (end < tokens.endIndex ? [SQLToken(kind: .space, text: " ")] : [])
            tokens.replaceSubrange(1..<end, with: replacement)
        }

        mutating func removeNotNull() {
            while let range = notNullRange { remove(range) }
        }

        /// Appends a column constraint (`REFERENCES "t" ("id") ON DELETE CASCADE`).
        mutating func addConstraint(_ clause: String) {
            append(clause)
        }

        mutating func addNotNull() {
            if !hasNotNull { append("NOT NULL") }
        }

        /// Replaces the DEFAULT clause by `DEFAULT literal`, or removes it when `literal` is nil.
        mutating func setDefault(_ literal: String?) {
            while let range = defaultRange { remove(range) }
            if let literal { append("DEFAULT " + literal) }
        }
    }

    var columns: [Column]
    /// Table constraints (PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY), as written.
    let constraints: [String]
    /// Everything after the closing parenthesis, e.g. ` WITHOUT ROWID`.
    let options: String
    /// Whether the key uses AUTOINCREMENT, so that `sqlite_sequence` holds a row for the table.
    let isAutoincrement: Bool

    /// Parses a `CREATE TABLE` statement as `sqlite_master.sql` stores it; nil for anything else
    /// (virtual tables, text Strata cannot split).
    init?(sql: String) {
        let tokens = SQLTokenizer.tokens(sql)
        let words = tokens.filter { $0.kind != .space }
        guard words.count > 3, words[0].isKeyword("CREATE"),
              words[1].isKeyword("TABLE") || (words[2].isKeyword("TABLE") && (words[1].isKeyword("TEMP") || words[1].isKeyword("TEMPORARY"))),
              let open = tokens.firstIndex(where: { $0.isPunctuation("(") }) else { return nil }
        var parts: [[SQLToken]] = [[]]
        var depth = 0
        var close: Int?
        for index in (open + 1)..<tokens.endIndex {
            let token = tokens[index]
            if token.isPunctuation("(") {
                depth += 1
            } else if token.isPunctuation(")") {
                if depth == 0 { close = index; break }
                depth -= 1
            } else if token.isPunctuation(","), depth == 0 {
                parts.append([])
                continue
            }
            parts[parts.count - 1].append(token)
        }
        guard let close else { return nil }
        var columns: [Column] = [], constraints: [String] = []
        let tableConstraints = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
        for part in parts {
            guard let first = part.firstIndex(where: { $0.kind != .space }),
                  let last = part.lastIndex(where: { $0.kind != .space }) else { return nil }
            let trimmed = Array(part[first...last])
            if tableConstraints.contains(where: trimmed[0].isKeyword) {
                constraints.append(SQLTokenizer.text(trimmed))
            } else {
                guard constraints.isEmpty, let column = Column(trimmed) else { return nil }
                columns.append(column)
            }
        }
        self.columns = columns
        self.constraints = constraints
        options = SQLTokenizer.text(tokens[(close + 1)...])
        isAutoincrement = tokens.contains { $0.isKeyword("AUTOINCREMENT") }
    }

    func columnIndex(named name: String) -> Int? {
        columns.firstIndex { $0.name.sqlNameEquals(name) }
    }

    /// `CREATE TABLE "table" (...)` with these columns, then `extraColumns`, then the table constraints.
    func createSQL(table: String, extraColumns: [String]) -> String {
        let parts = columns.map(\.text) + extraColumns + constraints
        return "CREATE TABLE \(SQL.quote(table)) (\(parts.joined(separator: ", ")))\(options)"
    }
}
