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

    /// A property name for a column whose name cannot be one: other characters become `_`, a leading
    /// digit gets a `_` before it, a name every model has gets `Column` after it.
    static func propertyName(_ column: String) -> String {
        var name = String(String.UnicodeScalarView(column.unicodeScalars.map { isASCIILetter($0) || ("0"..."9").contains($0) ? $0 : "_" }))
        if name.isEmpty || name.unicodeScalars.first.map({ ("0"..."9").contains($0) }) == true { name = "_" + name }
        if unusable.contains(name) { name += "Column" }
        return name
    }

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
