/// The layout of JSON text another tool wrote (``ColumnFormat/jsonText(spaced:asciiOnly:)``): found from a
/// column's first non-NULL values, and applied to Strata's own compact text on save.
enum JSONStyle {
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
    /// BMP (`asciiOnly`), as Python writes them.
    static func restyle(_ text: String, spaced: Bool, asciiOnly: Bool) -> String {
        var out = String.UnicodeScalarView()
        var inString = false, escaping = false
        func escape(_ value: UInt32) {
            let hex = String(value, radix: 16)
            out.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
        }
        for scalar in text.unicodeScalars {
            if inString {
                if escaping { escaping = false } else if scalar == "\\" { escaping = true } else if scalar == "\"" { inString = false }
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
            out.append(scalar)
            if scalar == "\"" { inString = true }
            if spaced, scalar == "," || scalar == ":" { out.append(" ") }
        }
        return String(out)
    }
}
