import Foundation

/// Spelling helpers for generated Swift source and for SQL identifiers.
enum SwiftSource {
    /// Words that need backticks to name a property.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case",
        "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
        "return", "throw", "switch", "where", "while", "Any", "as", "async", "await", "false", "is", "nil", "super",
        "throws", "true", "try", "some", "any", "package",
    ]

    /// Names a property cannot have in a model even with backticks: Swift's own, and the members every
    /// model inherits from `ModelObject`.
    static let unusable: Set<String> = [
        "_", "self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "super",
        "isDeleted", "isPersisted", "hasChanges", "changedProperties", "_registry", "_rowID", "_isDeleted",
        "_snapshotSlot", "_insertGeneration",
    ]

    /// Type names a generated class must not shadow: the types its properties use and Strata's own.
    static let reservedTypeNames: Set<String> = [
        "Any", "Array", "Bool", "Character", "Data", "Database", "Date", "Dictionary", "Double", "Error",
        "Float", "Foundation", "Int", "Int64", "Model", "ModelDeclaration", "ModelObject", "Never", "Optional",
        "Reference", "Row", "Self", "Set", "SQLValue", "Strata", "String", "Swift", "Type", "URL", "UUID", "Void",
    ]

    /// Whether `name` is an ASCII Swift identifier: a letter or `_`, then letters, digits or `_`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || isASCIILetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || isASCIILetter($0) || ("0"..."9").contains($0) }
    }

    /// Whether `name` is a Swift identifier as the compiler reads one: a letter (any script's, the
    /// Unicode ranges of The Swift Programming Language's identifier grammar) or `_`, then those, digits
    /// and combining marks. `prénom`, `名前` and `straße` are; `first name`, `2fa` and `a-b` are not.
    static func isSwiftIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierHead(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierCharacter)
    }

    /// A property name for a column whose name cannot be one: characters no identifier may hold become
    /// `_` (letters of any script stay), one that cannot begin one (a digit, a combining mark) gets a `_`
    /// before it, a name every model has gets `Column` after it.
    static func propertyName(_ column: String) -> String {
        var name = String(String.UnicodeScalarView(column.unicodeScalars.map { isIdentifierCharacter($0) ? $0 : "_" }))
        if name.unicodeScalars.first.map(isIdentifierHead) != true { name = "_" + name }
        if unusable.contains(name) { name += "Column" }
        return name
    }

    /// identifier-head: `_`, ASCII letters, and the Unicode ranges Swift's lexer accepts (C11's Annex D,
    /// N1518), less those it refuses first (digits, combining marks).
    private static func isIdentifierHead(_ scalar: Unicode.Scalar) -> Bool {
        guard isIdentifierCharacter(scalar) else { return false }
        let v = scalar.value
        return !(("0"..."9").contains(scalar) || (0x0300...0x036F).contains(v) || (0x1DC0...0x1DFF).contains(v)
                 || (0x20D0...0x20FF).contains(v) || (0xFE20...0xFE2F).contains(v))
    }

    /// identifier-character: `_`, ASCII letters and digits, and the Unicode ranges Swift's lexer accepts
    /// (`$` is left out: it is reserved in Swift names).
    private static func isIdentifierCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == "_" || isASCIILetter(scalar) || ("0"..."9").contains(scalar) }
        let v = scalar.value
        for range in identifierRanges where range.contains(v) { return true }
        return false
    }

    /// The non-ASCII code points Swift allows in identifiers (swift/lib/Parse/Lexer.cpp,
    /// `isValidIdentifierContinuationCodePoint`), the planes' non-characters excepted, and the invisible
    /// ones left out (the soft hyphen, zero-width and bidirectional controls: U+00AD, U+200B–U+200D,
    /// U+202A–U+202E, U+2060–U+206F), which a reader could not tell apart in a property's name.
    private static let identifierRanges: [ClosedRange<UInt32>] = {
        var ranges: [ClosedRange<UInt32>] = [
            0x00A8...0x00A8, 0x00AA...0x00AA, 0x00AF...0x00AF, 0x00B2...0x00B5, 0x00B7...0x00BA,
            0x00BC...0x00BE, 0x00C0...0x00D6, 0x00D8...0x00F6, 0x00F8...0x00FF, 0x0100...0x167F, 0x1681...0x180D,
            0x180F...0x1FFF, 0x203F...0x2040, 0x2054...0x2054, 0x2070...0x218F, 0x2460...0x24FF, 0x2776...0x2793, 0x2C00...0x2DFF, 0x2E80...0x2FFF, 0x3004...0x3007,
            0x3021...0x302F, 0x3031...0x303F, 0x3040...0xD7FF, 0xF900...0xFD3D, 0xFD40...0xFDCF, 0xFDF0...0xFE44,
            0xFE47...0xFFFD,
        ]
        for plane in UInt32(1)...14 { ranges.append((plane << 16)...((plane << 16) | 0xFFFD)) }
        return ranges
    }()

    /// `name`, in backticks when it is a keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// An UpperCamelCase type name from a table name: `note_label` -> `NoteLabel`, `_Person` -> `Person`.
    static func typeName(_ table: String) -> String {
        var words: [String] = []
        var word = ""
        for scalar in table.unicodeScalars {
            if isASCIILetter(scalar) || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty || name.unicodeScalars.first.map({ ("0"..."9").contains($0) }) == true { name = "Table" + name }
        if reservedTypeNames.contains(name) || keywords.contains(name) { name += "Record" }
        return name
    }

    /// A Swift string literal: `"it's \"x\""`.
    static func stringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// Text safe to put in a `//` comment: one line.
    static func comment(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `"name"` as an SQL identifier, embedded quotes doubled.
    static func quoteSQL(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
