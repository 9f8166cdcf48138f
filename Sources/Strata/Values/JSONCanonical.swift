import Foundation

/// One spelling of each JSON value, so that key-path conditions on JSON properties find the rows other
/// tools wrote: Python's `json.dumps` (Django, SQLAlchemy, peewee) puts spaces after `,` and `:`, keeps
/// keys in insertion order, escapes `é` as `\u00e9`, and writes a whole Double as `1.0`; Strata writes
/// `{"a":1}` with sorted keys. SQLite's own `json()` removes the spaces only.
///
/// The canonical text: no spaces; object members sorted by key (UTF-8 bytes); strings with only `"`, `\`
/// and control characters escaped (as `\u00XX`); numbers that are whole and fit 64 bits as integers,
/// others as the shortest decimal of their double; optionally a top-level array's elements sorted by
/// their canonical text (a `Set`, which another tool may have stored in any order).
///
/// ```swift
/// JSONCanonical.text(Array(#"{"b": [1, 2.0], "a": "Caf\u00e9"}"#.utf8))  // {"a":"Café","b":[1,2]}
/// ```
enum JSONCanonical {
    /// The SQL function every connection has: `strata_json_canonical(value [, sortsArray])`, the canonical
    /// text of TEXT or BLOB JSON, or of a number (a JSON number a NUMERIC column stored as one); NULL for NULL,
    /// and text that is no JSON as it is.
    static let functionName = "strata_json_canonical"

    /// The canonical text of JSON `bytes`, nil when they are no JSON value.
    static func text(_ bytes: [UInt8], sortingArray: Bool = false) -> String? {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        guard let text = parser.value(sortingArray: sortingArray) else { return nil }
        parser.skipSpace()
        return parser.index == bytes.count ? text : nil
    }

    /// The canonical text of a value bound for a JSON column: Strata's own JSON text, canonical.
    static func argument(_ value: SQLValue, sortingArray: Bool) -> SQLValue {
        switch value {
        case .text(let s): return text(Array(s.utf8), sortingArray: sortingArray).map { .text($0) } ?? value
        case .blob(let d): return text(Array(d), sortingArray: sortingArray).map { .text($0) } ?? value
        default: return value
        }
    }

    /// Whether values of `type` are stored as JSON (``JSONColumnValue``, optional or not), and if so
    /// whether they are sets (arrays whose order means nothing); nil when not JSON.
    static func kind(of type: Any.Type) -> (sortsArray: Bool, isOptional: Bool)? {
        let wrapped = (type as? any OptionalType.Type)?.wrappedType
        let base = wrapped ?? type
        guard base is any JSONColumnValue.Type else { return nil }
        return (base is any SetAlgebra.Type, wrapped != nil)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(sortingArray: Bool = false) -> String? {
            guard index < bytes.count, depth < 512 else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1; depth += 1; defer { depth -= 1 }
                var members: [(String, String)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return "{}" }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    skipSpace()
                    guard let member = value() else { return nil }
                    members.append((key, member))
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { break }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
                }
                members.sort { $0.0 != $1.0 ? $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) : $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) }
                return "{" + members.map { Self.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
            case UInt8(ascii: "["):
                index += 1; depth += 1; defer { depth -= 1 }
                var elements: [String] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return "[]" }
                while true {
                    skipSpace()
                    guard let element = value() else { return nil }
                    elements.append(element)
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { break }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
                }
                if sortingArray { elements.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
                return "[" + elements.joined(separator: ",") + "]"
            case UInt8(ascii: "\""):
                return string().map(Self.quoted)
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func literal(_ word: String) -> String? {
            let end = index + word.utf8.count
            guard end <= bytes.count, bytes[index..<end].elementsEqual(word.utf8) else { return nil }
            index = end
            return word
        }

        /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: a whole number that fits 64 bits as an integer,
        /// anything else as the shortest decimal of its double (`1.0` is `1`, `1e+20` and
        /// `100000000000000000000` are `1e+20`).
        mutating func number() -> String? {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let first = index
            let whole = digits()
            guard whole > 0, whole == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }   // no leading zeros
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1; isInteger = false
                guard digits() > 0 else { return nil }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1; isInteger = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return nil }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger, let integer = Int64(text) { return String(integer) }
            guard let double = Double(text), double.isFinite else { return text }
            if double == double.rounded(), abs(double) < 9.2e18 { return String(Int64(double)) }
            return "\(double)"
        }

        /// The string at `index` (its opening quote), unescaped.
        mutating func string() -> String? {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run = index   // start of the unescaped bytes not yet copied
            func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush(index)
                    index += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { return nil }
                guard byte == UInt8(ascii: "\\") else { index += 1; continue }
                flush(index)
                guard index + 1 < bytes.count else { return nil }
                let escape = bytes[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard var code = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u") {
                        let save = index
                        index += 2
                        if let low = hex4(), (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = save
                        }
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: return nil
                }
                run = index
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
            index += 4
            return code
        }

        /// A string as canonical JSON: only `"`, `\` and control characters escaped.
        static func quoted(_ string: String) -> String {
            var out = "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
    }
}
