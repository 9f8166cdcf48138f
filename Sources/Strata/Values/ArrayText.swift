import Foundation

/// PostgreSQL's text form of a one-dimensional array of strings (`{a,"b c","x \"y\"",NULL}`), the stored
/// form of ``ColumnFormat/textArray``: a `[String]` or `[String?]` property (JSON on Strata's side) over a
/// `text[]` or `varchar(n)[]` column another tool made.
///
/// Reading takes the server's spelling: elements quoted or not, backslash escapes, an unquoted `NULL` for
/// a NULL element, `{}` for the empty array, and a lower bound other than 1 (`[0:1]={a,b}`, whose elements
/// are read in order). A multidimensional array throws. Writing quotes every element and escapes `\` and
/// `"`, which PostgreSQL reads back exactly.
enum ArrayText {
    /// The array literal of `elements` (nil: NULL).
    static func literal(_ elements: [String?]) -> String {
        "{" + elements.map { element in
            guard let element else { return "NULL" }
            return "\"" + element.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }

    /// The elements of an array's text; nil when the text is not a one-dimensional array.
    static func elements(_ text: String) -> [String?]? {
        var bytes = Array(text.utf8)[...]
        // Dimension decoration (`[0:2]={…}`): the elements follow the `=`.
        if bytes.first == UInt8(ascii: "[") {
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            bytes = bytes[(equals + 1)...]
        }
        skipSpaces(&bytes)
        guard bytes.popFirst() == UInt8(ascii: "{") else { return nil }
        var elements: [String?] = []
        skipSpaces(&bytes)
        if bytes.first == UInt8(ascii: "}") {
            bytes.removeFirst()
            skipSpaces(&bytes)
            return bytes.isEmpty ? [] : nil
        }
        while true {
            skipSpaces(&bytes)
            guard let first = bytes.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "}"), first != UInt8(ascii: ",") else { return nil }
            var element: [UInt8] = []
            if first == UInt8(ascii: "\"") {
                bytes.removeFirst()
                var closed = false
                while let byte = bytes.popFirst() {
                    if byte == UInt8(ascii: "\"") { closed = true; break }
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = bytes.popFirst() else { return nil }
                        element.append(escaped)
                    } else {
                        element.append(byte)
                    }
                }
                guard closed else { return nil }
                elements.append(String(decoding: element, as: UTF8.self))
                skipSpaces(&bytes)
            } else {
                // Unquoted: up to the next `,` or `}`, trailing blanks dropped (unless escaped).
                var escapedUpTo = 0, escapes = false
                while let byte = bytes.first, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}") {
                    bytes.removeFirst()
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") { return nil }
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = bytes.popFirst() else { return nil }
                        element.append(escaped)
                        escapedUpTo = element.count
                        escapes = true
                    } else {
                        element.append(byte)
                    }
                }
                while element.count > escapedUpTo, let last = element.last, isSpace(last) { element.removeLast() }
                let string = String(decoding: element, as: UTF8.self)
                elements.append(!escapes && string.uppercased() == "NULL" ? nil : string)
            }
            switch bytes.popFirst() {
            case UInt8(ascii: ",")?: continue
            case UInt8(ascii: "}")?:
                skipSpaces(&bytes)
                return bytes.isEmpty ? elements : nil
            default: return nil
            }
        }
    }

    /// The JSON array of an array's text (Strata's native form of the property); nil when the text is
    /// not a one-dimensional array.
    static func json(_ text: String) throws -> String? {
        guard let elements = elements(text) else { return nil }
        return try JSONCoding.text(elements)
    }

    /// The array text of a JSON array of strings and nulls; nil when the JSON is not one.
    static func literal(json: String) -> String? {
        guard let elements = try? JSONDecoder().decode([String?].self, from: Data(json.utf8)) else { return nil }
        return literal(elements)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            || byte == 0x0B || byte == 0x0C
    }

    private static func skipSpaces(_ bytes: inout ArraySlice<UInt8>) {
        while let first = bytes.first, isSpace(first) { bytes.removeFirst() }
    }
}

extension ColumnFormat {
    /// Whether a declared type (PostgreSQL's `format_type`) is an array of text: `text[]`,
    /// `character varying(20)[]`, `character(3)[]`, `citext[]` (schema-qualified or not).
    static func isTextArray(declaredType: String) -> Bool {
        let type = declaredType.lowercased().trimmingCharacters(in: .whitespaces)
        guard type.hasSuffix("[]") else { return false }
        var element = String(type.dropLast(2))
        while element.hasSuffix("[]") { element.removeLast(2) }
        if let dot = element.lastIndex(of: "."), element.hasSuffix("citext") { element = String(element[element.index(after: dot)...]) }
        let name = element.prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces)
        return ["text", "character varying", "varchar", "character", "char", "bpchar", "citext", "name"].contains(name)
    }
}
