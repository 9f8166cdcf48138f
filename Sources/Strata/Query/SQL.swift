/// Small helpers for building SQL text: identifiers are always quoted, values are always bound.
package enum SQL {
    /// `"name"` with embedded quotes doubled.
    static func quote(_ identifier: String) -> String {
        // Most names hold no quote: skip Foundation's search-and-replace (a fifth of a lookup by key).
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A literal for a column DEFAULT (DDL cannot bind parameters).
    static func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let d):
            if d.isNaN { return "NULL" }
            if d.isInfinite { return d > 0 ? "9e999" : "-9e999" }
            return "\(d)"
        case .text(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// Where the string literal, quoted identifier (`"a"`, `` `a` ``, `[a]`) or comment (`-- …` to the end
    /// of the line, `/* … */`) starting at byte `i` of `sql` ends (the index after it); nil when byte `i`
    /// starts none: it is SQL code, where a `?` is a parameter and `$T` a template. An unterminated one
    /// runs to the end, as SQLite reads it. On bytes: every delimiter is ASCII, and a combining mark after
    /// a quote must not hide the quote (as it would in a `Character`).
    ///
    /// ```swift
    /// SQL.endOfLiteralOrComment(Array("'a?' ?".utf8), at: 0)   // 4
    /// ```
    package static func endOfLiteralOrComment(_ sql: [UInt8], at i: Int) -> Int? {
        let byte = sql[i]
        let next: UInt8? = i + 1 < sql.count ? sql[i + 1] : nil
        switch byte {
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
            // A doubled quote is an escaped one; its toggling closes and reopens, so the first close ends
            // the token only when no second quote follows ([...] has no escapes).
            let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
            var j = i + 1
            while j < sql.count {
                if sql[j] == close {
                    if close != UInt8(ascii: "]"), j + 1 < sql.count, sql[j + 1] == close { j += 2; continue }
                    return j + 1
                }
                j += 1
            }
            return sql.count
        case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
            var j = i + 2
            while j < sql.count && sql[j] != UInt8(ascii: "\n") { j += 1 }
            return j
        case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
            var j = i + 2
            while j + 1 < sql.count && !(sql[j] == UInt8(ascii: "*") && sql[j + 1] == UInt8(ascii: "/")) { j += 1 }
            return j + 1 < sql.count ? j + 2 : sql.count
        default:
            return nil
        }
    }

    /// Whether `byte` may continue an identifier, as SQLite's tokenizer reads one (ASCII letters and
    /// digits, `_`, `$`, and every byte of a non-ASCII character).
    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The parenthesized list of `column IN …` for `values`: `(?, ?, ?)`, one parameter each; or, with
    /// `asJSON` (a list past the variable limit), `(SELECT +value FROM json_each(?))` with the values as one
    /// JSON array, when JSON holds each exactly (integers, text, NULL). `+value` has no affinity, so the
    /// column's applies to the values as it does to bound ones.
    ///
    /// ```swift
    /// SQL.inList([.integer(1), .text("a")], asJSON: true)   // ("(SELECT +value FROM json_each(?))", [.text(#"[1,"a"]"#)])
    /// ```
    static func inList(_ values: [SQLValue], asJSON: Bool) -> (String, [SQLValue]) {
        guard asJSON, values.count > 1 else { return ("(" + placeholders(values.count) + ")", values) }
        var json = "["
        for (i, value) in values.enumerated() {
            if i > 0 { json.append(",") }
            switch value {
            case .null: json.append("null")
            case .integer(let v): json.append(String(v))
            case .text(let text): appendJSONString(text, to: &json)
            case .real, .blob: return ("(" + placeholders(values.count) + ")", values)   // JSON would not hold it exactly
            }
        }
        json.append("]")
        return ("(SELECT +value FROM json_each(?))", [.text(json)])
    }

    /// `text` as a JSON string literal.
    private static func appendJSONString(_ text: String, to json: inout String) {
        json.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json.append("\\\"")
            case "\\": json.append("\\\\")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json.append("\"")
    }

    /// `?, ?, ?` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The first `count` words of `sql`, lowercased, after any leading comments, blanks and parentheses.
    ///
    /// ```swift
    /// SQL.leadingWords("-- note\n  (SELECT 1)", count: 2)   // ["select", "1"]
    /// ```
    static func leadingWords(_ sql: String, count: Int) -> [String] {
        var words: [String] = []
        var rest = Substring(sql)
        while words.count < count, !rest.isEmpty {
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                rest = rest.range(of: "*/").map { rest[$0.upperBound...] } ?? ""
            } else if let first = rest.first, first.isWhitespace || first == "(" || first == ";" {
                rest = rest.dropFirst()
            } else {
                let word = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !word.isEmpty else { break }
                words.append(word.lowercased())
                rest = rest.dropFirst(word.count)
            }
        }
        return words
    }

    /// Whether `sql` contains `word` (lowercase ASCII letters) in any ASCII case: SQLite's own test for
    /// type names (`INT` in `bigint`), and a conservative one for keywords (a name or a comment may
    /// contain the word too), without Foundation's string search.
    ///
    /// ```swift
    /// SQL.mentions("BIGINT", "int")   // true
    /// ```
    static func mentions(_ sql: String, _ word: String) -> Bool {
        var sql = sql, word = word
        return sql.withUTF8 { bytes in
            word.withUTF8 { pattern in
                guard let first = pattern.first else { return true }
                guard bytes.count >= pattern.count else { return false }
                for start in 0...(bytes.count - pattern.count) where bytes[start] | 0x20 == first {
                    var i = 1
                    while i < pattern.count && bytes[start + i] | 0x20 == pattern[i] { i += 1 }
                    if i == pattern.count { return true }
                }
                return false
            }
        }
    }

    /// Which of `words` (each lowercase ASCII letters, as ``mentions(_:_:)`` takes one) `sql` contains, in
    /// one pass over its bytes.
    ///
    /// ```swift
    /// SQL.mentions("CREATE TABLE t(a) STRICT", anyOf: ["without", "strict"])   // [false, true]
    /// ```
    static func mentions(_ sql: String, anyOf words: [String]) -> [Bool] {
        let found = mentions(sql, anyOf: SQLWords(words))
        return words.indices.map { found & (1 << UInt64($0)) != 0 }
    }

    /// ``mentions(_:anyOf:)`` with the words prepared once (what reading a table asks of its `CREATE`
    /// statement, five words at once): a bit per word, the first word's the lowest.
    static func mentions(_ sql: String, anyOf words: SQLWords) -> UInt64 {
        guard words.firstLetters != 0 else {
            return words.words.indices.reduce(0) { mentions(sql, words.words[$1]) ? $0 | 1 << UInt64($1) : $0 }
        }
        var found: UInt64 = 0
        var sql = sql
        sql.withUTF8 { bytes in
            let count = bytes.count
            for start in 0..<count {
                // Most bytes start none of the words and cost this one test.
                let letter = bytes[start] | 0x20
                guard letter &- 0x61 < 26, words.firstLetters & (1 << UInt32(letter &- 0x61)) != 0 else { continue }
                for p in 0..<words.firsts.count where words.firsts[p] == letter && found & (1 << UInt64(p)) == 0 {
                    let pattern = words.patterns[p]
                    guard count - start >= pattern.count else { continue }
                    var i = 1
                    while i < pattern.count && bytes[start + i] | 0x20 == pattern[i] { i += 1 }
                    if i == pattern.count { found |= 1 << UInt64(p) }
                }
            }
        }
        return found
    }

    /// `values` in chunks for `IN (?, ...)` lists: as many per chunk as SQLite takes (a power of two up to
    /// `maximumArguments`, at most 32,768), each padded with NULLs (which match nothing) to one of eight
    /// lengths per power of two, so that a few cached statements serve every chunk length and at most an
    /// eighth of a list is padding.
    ///
    /// ```swift
    /// SQL.paddedChunks(Array(repeating: .text("a"), count: 5), maximumArguments: 999).map(\.count)   // [5]
    /// SQL.paddedChunks(Array(repeating: .text("a"), count: 9), maximumArguments: 999).map(\.count)   // [10]
    /// ```
    static func paddedChunks(_ values: [SQLValue], maximumArguments: Int) -> [[SQLValue]] {
        var chunkSize = 1
        while chunkSize * 2 <= min(maximumArguments, 32_768) { chunkSize *= 2 }
        var chunks: [[SQLValue]] = []
        var start = 0
        while start < values.count {
            var chunk = Array(values[start..<min(start + chunkSize, values.count)])
            start += chunk.count
            var power = min(8, chunkSize)
            while power < chunk.count { power *= 2 }
            let step = max(1, power / 8)
            let size = min(power, (chunk.count + step - 1) / step * step)
            chunk += Array(repeating: .null, count: size - chunk.count)
            chunks.append(chunk)
        }
        return chunks
    }

    /// The integers of `values` when every one is an integer; nil otherwise.
    ///
    /// ```swift
    /// SQL.integers([.integer(1), .integer(2)])   // [1, 2]
    /// ```
    static func integers(_ values: [SQLValue]) -> [Int64]? {
        var integers: [Int64] = []
        integers.reserveCapacity(values.count)
        for value in values {
            guard case .integer(let v) = value else { return nil }
            integers.append(v)
        }
        return integers
    }

    /// A JSON array of integers (`[1,2,3]`), for `json_each(?)`.
    ///
    /// ```swift
    /// SQL.jsonArray([1, -2, 3])   // "[1,-2,3]"
    /// ```
    static func jsonArray(_ integers: ArraySlice<Int64>) -> String {
        var json = "["
        json.reserveCapacity(integers.count * 8 + 2)
        for (i, v) in integers.enumerated() {
            if i > 0 { json.append(",") }
            json.append(String(v))
        }
        json.append("]")
        return json
    }
}

import Foundation

extension String {
    /// The name as SQLite compares names of tables, columns and indices: ASCII letters folded to lowercase,
    /// every other character as it is (SQLite folds no other case: `"Ä"` and `"ä"` are two tables, where
    /// `lowercased()` would make them one). Returns the string itself when it holds no uppercase ASCII.
    ///
    /// ```swift
    /// "Ärger_ID".sqlFolded   // "Ärger_id"
    /// ```
    var sqlFolded: String {
        // (On the contiguous bytes where the string has them: UTF8View's own iteration costs several times more.)
        let isUpper = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A }
        guard utf8.withContiguousStorageIfAvailable({ $0.contains(where: isUpper) }) ?? utf8.contains(where: isUpper) else { return self }
        return String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether SQLite reads `other` as the same name (see ``sqlFolded``).
    ///
    /// ```swift
    /// "Name".sqlNameEquals("NAME")   // true
    /// "Ä".sqlNameEquals("ä")         // false
    /// ```
    func sqlNameEquals<S: StringProtocol>(_ other: S) -> Bool {
        utf8.count == other.utf8.count && sqlFolded == String(other).sqlFolded
    }
}

/// Words for `SQL.mentions(_:anyOf:)`, prepared once: their bytes, and their first letters as
/// bits (`firstLetters` 0 when some word is not lowercase ASCII letters first, or there are over 64 words:
/// each is then looked for by itself).
struct SQLWords: Sendable {
    let words: [String]
    let patterns: [[UInt8]]
    let firsts: [UInt8]
    let firstLetters: UInt32

    init(_ words: [String]) {
        self.words = words
        patterns = words.map { Array($0.utf8) }
        firsts = patterns.map { $0.first ?? 0 }
        var letters: UInt32 = 0
        for first in firsts {
            guard words.count <= 64, first >= 0x61, first <= 0x7A else { letters = 0; break }
            letters |= 1 << UInt32(first - 0x61)
        }
        firstLetters = letters
    }
}
