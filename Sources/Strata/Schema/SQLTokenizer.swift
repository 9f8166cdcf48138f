/// One token of SQL text, as far as rewriting DDL needs: identifiers, keywords, literals, punctuation,
/// and runs of whitespace or comments (kept, so that text is rebuilt exactly).
package struct SQLToken {
    package enum Kind { case word, quoted, string, punctuation, space }
    package let kind: Kind
    package let text: Substring

    /// The name this token stands for, when it can be an identifier: a bare word as written, a quoted one
    /// (`"a""b"`, `[a]`, `` `a` ``) without its quotes.
    package var identifier: String? {
        switch kind {
        case .word: return String(text)
        case .quoted:
            guard let open = text.first else { return nil }
            let close: Character = open == "[" ? "]" : open
            var body = text.dropFirst()
            if body.last == close { body = body.dropLast() }
            return open == "[" ? String(body) : body.replacingOccurrences(of: String(open) + String(open), with: String(open))
        default: return nil
        }
    }

    /// Whether this is the bare keyword `keyword` (case-insensitive; a quoted word is never a keyword).
    package func isKeyword(_ keyword: String) -> Bool {
        kind == .word && text.caseInsensitiveCompare(keyword) == .orderedSame
    }

    package func isPunctuation(_ character: Character) -> Bool {
        kind == .punctuation && text.first == character
    }

    /// Whether this token names `name` (SQLite compares identifiers case-insensitively).
    func names(_ name: String) -> Bool {
        identifier?.sqlNameEquals(name) == true
    }
}

/// Splits SQL text into ``SQLToken``s. It never fails: an unterminated quote or comment runs to the end.
/// (`package`: StrataTools reads view definitions with it.)
package enum SQLTokenizer {
    package static func tokens(_ sql: String) -> [SQLToken] {
        var tokens: [SQLToken] = []
        let scalars = sql.unicodeScalars
        var i = scalars.startIndex
        func next(_ index: String.Index) -> String.Index { scalars.index(after: index) }
        func peek(_ index: String.Index) -> Unicode.Scalar? {
            let after = next(index)
            return after < scalars.endIndex ? scalars[after] : nil
        }
        func isWordScalar(_ c: Unicode.Scalar) -> Bool {
            c == "_" || c == "$" || c.value > 127 || c.properties.isAlphabetic || ("0"..."9").contains(c)
        }
        while i < scalars.endIndex {
            let start = i
            let c = scalars[i]
            let kind: SQLToken.Kind
            if c.properties.isWhitespace {
                while i < scalars.endIndex && scalars[i].properties.isWhitespace { i = next(i) }
                kind = .space
            } else if c == "-" && peek(i) == "-" {
                while i < scalars.endIndex && scalars[i] != "\n" { i = next(i) }
                kind = .space
            } else if c == "/" && peek(i) == "*" {
                i = next(next(i))
                while i < scalars.endIndex && !(scalars[i] == "*" && peek(i) == "/") { i = next(i) }
                i = i < scalars.endIndex ? next(next(i)) : i
                kind = .space
            } else if c == "'" || c == "\"" || c == "`" || c == "[" {
                let close: Unicode.Scalar = c == "[" ? "]" : c
                i = next(i)
                while i < scalars.endIndex {
                    if scalars[i] == close {
                        // A doubled quote is an escaped one ([...] has no escapes).
                        if close != "]" && peek(i) == close { i = next(next(i)); continue }
                        i = next(i)
                        break
                    }
                    i = next(i)
                }
                kind = c == "'" ? .string : .quoted
            } else if isWordScalar(c) || c == "." && peek(i).map({ ("0"..."9").contains($0) }) == true {
                // Words and numbers alike (`12.5e3` keeps its dot and exponent sign together; `.5` is a number).
                let number = c == "." || ("0"..."9").contains(c)
                if c == "." { i = next(i) }
                while i < scalars.endIndex {
                    let s = scalars[i]
                    if isWordScalar(s) { i = next(i); continue }
                    if s == ".", number { i = next(i); continue }
                    if s == "+" || s == "-", number,
                       ["e", "E"].contains(scalars[scalars.index(before: i)]) {
                        i = next(i); continue
                    }
                    break
                }
                kind = .word
            } else {
                i = next(i)
                kind = .punctuation
            }
            tokens.append(SQLToken(kind: kind, text: sql[start..<i]))
        }
        return tokens
    }

    /// The tokens' text, joined back.
    static func text<C: Collection>(_ tokens: C) -> String where C.Element == SQLToken {
        tokens.map { String($0.text) }.joined()
    }
}

extension SQLTokenizer {
    /// `sql` with every identifier naming a renamed table or column replaced by the new name: a preview of
    /// the text SQLite's `ALTER TABLE ... RENAME` will leave in `sqlite_master` (sync reads the real text
    /// again after running the renames).
    static func renaming(_ sql: String, tables: [String: String], columns: [String: String]) -> String {
        guard !tables.isEmpty || !columns.isEmpty else { return sql }
        func replacement(_ token: SQLToken) -> String? {
            guard let name = token.identifier else { return nil }
            for (from, to) in tables where name.sqlNameEquals(from) { return SQL.quote(to) }
            for (from, to) in columns where name.sqlNameEquals(from) { return SQL.quote(to) }
            return nil
        }
        return tokens(sql).map { replacement($0) ?? String($0.text) }.joined()
    }
}

extension SQLTokenizer {
    /// `sql` (an ORDER BY list) with each unqualified name of one of `columns` qualified by `table`, so that
    /// a name another table of the query has too (a join table's `id`) is not ambiguous. Names already
    /// qualified (`"join"."id"`), function names, collation names and the ASC/DESC/NULLS keywords are kept.
    static func qualifying(_ sql: String, columns: [String], with table: String) -> String {
        let all = tokens(sql)
        guard !columns.isEmpty, all.contains(where: { $0.identifier != nil }) else { return sql }
        let names = Set(columns.map { $0.sqlFolded })
        func neighbour(of index: Int, step: Int) -> SQLToken? {
            var i = index + step
            while i >= 0 && i < all.count {
                if all[i].kind != .space { return all[i] }
                i += step
            }
            return nil
        }
        var text = ""
        for (index, token) in all.enumerated() {
            guard let name = token.identifier, names.contains(name.sqlFolded),
                  !(token.kind == .word && ["asc", "desc"].contains(name.lowercased())) else {
                text += token.text
                continue
            }
            let before = neighbour(of: index, step: -1), after = neighbour(of: index, step: 1)
            if before?.isPunctuation(".") == true || after?.isPunctuation(".") == true || after?.isPunctuation("(") == true
                || before?.isKeyword("COLLATE") == true || before?.isKeyword("NULLS") == true {
                text += token.text
            } else {
                text += "\(table).\(SQL.quote(name))"
            }
        }
        return text
    }
}
