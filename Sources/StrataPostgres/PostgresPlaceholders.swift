import Strata

/// SQL text helpers of the PostgreSQL engine.
///
/// ```swift
/// PostgresSQL.numberingPlaceholders("SELECT ? WHERE a = '?'")   // ("SELECT $1 WHERE a = '?'", 1)
/// ```
package enum PostgresSQL {
    /// Rewrites each `?` parameter of `sql` to `$1`, `$2`, … in order, and says how many there were.
    ///
    /// A `?` inside a string literal (`'?'`, `E'\'?'`), a quoted identifier (`"?"`), a comment (`-- ?`,
    /// `/* ? */`) or a dollar-quoted string (`$$ ? $$`, `$fn$ ? $fn$`) is left alone. Literals, quoted
    /// identifiers and comments are found by Strata's own scanner (`SQL.endOfLiteralOrComment`), asked only
    /// at `'`, `"`, `-` and `/`: PostgreSQL has no `` `name` `` or `[name]` quoting, and `[` starts an array
    /// subscript (`tags[?]` is a parameter). The two PostgreSQL forms that scanner does not know are read
    /// here: `E'…'` strings (backslash escapes) and dollar quotes. Limits: nested block comments end at the
    /// first `*/`; jsonb's `?`, `?|` and `?&` operators are read as parameters (spell them
    /// `jsonb_exists`, `jsonb_exists_any`, `jsonb_exists_all`).
    package static func numberingPlaceholders(_ sql: String) -> (sql: String, count: Int) {
        let bytes = Array(sql.utf8)
        guard bytes.contains(UInt8(ascii: "?")) else { return (sql, 0) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var count = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            let previousIsWord = i > 0 && isIdentifierByte(bytes[i - 1])
            var end: Int?
            switch byte {
            case UInt8(ascii: "'") where i > 0 && (bytes[i - 1] | 0x20) == UInt8(ascii: "e")
                                        && !(i > 1 && isIdentifierByte(bytes[i - 2])):
                end = endOfEscapeString(bytes, at: i)
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "/"):
                end = SQL.endOfLiteralOrComment(bytes, at: i)
            case UInt8(ascii: "$") where !previousIsWord:
                end = endOfDollarQuote(bytes, at: i)
            case UInt8(ascii: "?"):
                count += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(count).utf8)
                i += 1
                continue
            default:
                break
            }
            if let end {
                output.append(contentsOf: bytes[i..<end])
                i = end
            } else {
                output.append(byte)
                i += 1
            }
        }
        return (String(decoding: output, as: UTF8.self), count)
    }

    /// Letters, digits, `_`, `$` and every byte of a non-ASCII character.
    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The end of an `E'…'` string starting at its quote: a backslash escapes the next byte, `''` is a quote.
    private static func endOfEscapeString(_ bytes: [UInt8], at start: Int) -> Int {
        var j = start + 1
        while j < bytes.count {
            switch bytes[j] {
            case UInt8(ascii: "\\"): j += 2
            case UInt8(ascii: "'"):
                if j + 1 < bytes.count, bytes[j + 1] == UInt8(ascii: "'") { j += 2; continue }
                return j + 1
            default: j += 1
            }
        }
        return bytes.count
    }

    /// The end of a dollar-quoted string (`$$…$$`, `$tag$…$tag$`) starting at byte `start`, or nil when the
    /// `$` starts none (a `$1` parameter, say).
    private static func endOfDollarQuote(_ bytes: [UInt8], at start: Int) -> Int? {
        var j = start + 1
        while j < bytes.count, bytes[j] != UInt8(ascii: "$") {
            let byte = bytes[j]
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isIdentifierByte(byte), byte != UInt8(ascii: "$"), !(isDigit && j == start + 1) else { return nil }
            j += 1
        }
        guard j < bytes.count else { return nil }
        let tag = bytes[start...j]
        var k = j + 1
        while k + tag.count <= bytes.count {
            if bytes[k] == UInt8(ascii: "$"), bytes[k..<(k + tag.count)].elementsEqual(tag) { return k + tag.count }
            k += 1
        }
        return bytes.count
    }
}
