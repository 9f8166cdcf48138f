import Foundation

/// The layout of JSON text another tool wrote (``ColumnFormat/jsonText(spaced:asciiOnly:)``): found from a
/// column's first non-NULL values, and applied to Strata's own compact text on save.
enum JSONStyle {
    /// Whether `tableSQL` (a `CREATE TABLE` statement) defines `column` as Django's `JSONField` does on
    /// SQLite: with a `CHECK` that calls `JSON_VALID` on it (`"data" text NOT NULL CHECK ((JSON_VALID("data")
    /// OR "data" IS NULL))`).
    ///
    /// ```swift
    /// JSONStyle.declaredByDjango(column: "data", tableSQL: #"CREATE TABLE "t" ("data" text CHECK ((JSON_VALID("data"))))"#)  // true
    /// ```
    static func declaredByDjango(column: String, tableSQL: String) -> Bool {
        // (`SQL.mentions` folds ASCII letters only: "valid", not "json_valid".)
        guard SQL.mentions(tableSQL, "valid"), let definition = TableDefinition(sql: tableSQL),
              let index = definition.columnIndex(named: column) else { return false }
        let tokens = SQLTokenizer.tokens(definition.columns[index].text).filter { $0.kind != .space }
        guard let check = tokens.firstIndex(where: { $0.isKeyword("CHECK") }) else { return false }
        return tokens[check...].indices.contains { i in
            tokens[i].isKeyword("JSON_VALID") && i + 2 < tokens.endIndex && tokens[i + 1].isPunctuation("(")
                && tokens[i + 2].names(column)
        }
    }

    /// What a column's sampled texts show: Python's `json.dumps` (spaces after separators, and escapes
    /// beyond ASCII unless a text holds such a character raw); no spaces but escapes beyond ASCII and no raw
    /// such character (SQLite's `json()` of json.dumps text, as peewee's `JSONField` stores it); or
    /// Strata's own (``ColumnFormat/native``) when they have neither, or disagree (a column never gets a
    /// mix of layouts from Strata).
    static func detect(_ texts: [String]) -> ColumnFormat {
        var spaced = 0, compact = 0, raw = false, escaped = false
        for text in texts {
            var inString = false, escaping = false
            var bytes = text.utf8.makeIterator()
            var previous: UInt8 = 0
            while let byte = bytes.next() {
                defer { previous = byte }
                if byte >= 0x80 { raw = true }
                if inString {
                    if escaping {
                        escaping = false
                        if byte == UInt8(ascii: "u") {
                            var hex = ""
                            for _ in 0..<4 { if let h = bytes.next() { hex.unicodeScalars.append(Unicode.Scalar(h)) } }
                            if let code = UInt32(hex, radix: 16), code >= 0x80 { escaped = true }
                        }
                    } else if byte == UInt8(ascii: "\\") {
                        escaping = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                if previous == UInt8(ascii: ",") || previous == UInt8(ascii: ":") {
                    if byte == UInt8(ascii: " ") { spaced += 1 } else { compact += 1 }
                }
                if byte == UInt8(ascii: "\"") { inString = true }
            }
        }
        let isSpaced = spaced > 0 && compact == 0
        if compact > 0 {
            // Compact (SQLite's `json()` of json.dumps text: peewee's JSONField) yet escaping every character
            // beyond ASCII: the escapes are kept, since lookups compare the text (`data -> '$.k' = json(?)`).
            guard spaced == 0, escaped, !raw else { return .native }
            return .jsonText(spaced: false, asciiOnly: true)
        }
        guard isSpaced || escaped else { return .native }
        return .jsonText(spaced: true, asciiOnly: !raw)
    }

    /// Strata's compact JSON `text` with a space after each `,` and `:` outside strings (`spaced`), and
    /// characters beyond ASCII inside strings as `\uXXXX` escapes, lowercase, surrogate pairs beyond the
    /// BMP (`asciiOnly`), as Python writes them; a whole number at one of `floats` (``JSONFloatPaths``: a
    /// `Double` or `Float`) gets `.0`, as Python writes a whole float (`json.loads` reads `1` as an int).
    static func restyle(_ text: String, spaced: Bool, asciiOnly: Bool, floats: Set<[String]> = []) -> String {
        var out = String.UnicodeScalarView()
        var inString = false, escaping = false
        // For `floats`: the containers around (an object's current key, or nil for an array's element), whether
        // the next string is an object's key (and its raw text), and the number being copied.
        var frames: [String?] = [], isObject: [Bool] = [], expectingKey = false, inKey = false
        var key = String.UnicodeScalarView()
        var inNumber = false, wholeNumber = true
        func escape(_ value: UInt32) {
            let hex = String(value, radix: 16)
            out.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
        }
        func endNumber() {
            guard inNumber else { return }
            inNumber = false
            let path = zip(frames, isObject).map { $1 ? ($0 ?? "") : JSONFloatPaths.element }
            if wholeNumber, floats.contains(path) { out.append(contentsOf: ".0".unicodeScalars) }
        }
        for scalar in text.unicodeScalars {
            if inString {
                if inKey { key.append(scalar) }
                if escaping { escaping = false } else if scalar == "\\" { escaping = true } else if scalar == "\"" {
                    inString = false
                    if inKey {
                        inKey = false
                        key.removeLast()
                        frames[frames.count - 1] = Self.unescaped(String(key))
                    }
                }
                if asciiOnly, scalar.value >= 0x80 {
                    if scalar.value > 0xFFFF {
                        let v = scalar.value - 0x10000
                        escape(0xD800 + (v >> 10)); escape(0xDC00 + (v & 0x3FF))
                    } else {
                        escape(scalar.value)
                    }
                    continue
                }
                out.append(scalar)
                continue
            }
            if !floats.isEmpty {
                if inNumber {
                    if scalar == "." || scalar == "e" || scalar == "E" { wholeNumber = false }
                    if !("0"..."9").contains(scalar), !".eE+-".unicodeScalars.contains(scalar) { endNumber() }
                } else if scalar == "-" || ("0"..."9").contains(scalar) {
                    inNumber = true; wholeNumber = true
                }
                switch scalar {
                case "{": frames.append(nil); isObject.append(true); expectingKey = true
                case "[": frames.append(nil); isObject.append(false)
                case "}", "]": frames.removeLast(); isObject.removeLast()
                case ",": expectingKey = isObject.last == true
                case "\"" where expectingKey: expectingKey = false; inKey = true; key = String.UnicodeScalarView()
                default: break
                }
            }
            out.append(scalar)
            if scalar == "\"" { inString = true }
            if spaced, scalar == "," || scalar == ":" { out.append(" ") }
        }
        endNumber()
        return String(out)
    }

    /// An object key's text between its quotes, unescaped.
    private static func unescaped(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        return (try? JSONDecoder().decode(String.self, from: Data(("\"" + raw + "\"").utf8))) ?? raw
    }
}
