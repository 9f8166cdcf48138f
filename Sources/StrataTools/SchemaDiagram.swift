/// The tables of a schema and their foreign keys as a Mermaid ER diagram (it renders on GitHub and in
/// DocC): people would rather look at a schema than read it.
///
/// ```swift
/// print(SchemaDiagram(schema: schema).mermaid)
/// // erDiagram
/// //     author {
/// //         INTEGER id PK
/// //     }
/// //     author ||--o{ book : "author_id"
/// ```
public struct SchemaDiagram: Sendable {
    /// The schema drawn.
    ///
    /// ```swift
    /// diagram.schema.tables.count
    /// ```
    public var schema: DatabaseSchema

    /// A diagram of `schema`.
    ///
    /// ```swift
    /// let diagram = SchemaDiagram(schema: schema)
    /// ```
    public init(schema: DatabaseSchema) {
        self.schema = schema
    }

    /// The Mermaid source.
    ///
    /// ```swift
    /// print(diagram.mermaid)
    /// ```
    public var mermaid: String {
        var lines = ["erDiagram"]
        for table in schema.tables {
            lines.append("    \(identifier(table.name)) {")
            let keys = Set(table.foreignKeys.map { $0.column.lowercased() })
            for column in table.columns {
                var marks: [String] = []
                if column.primaryKeyPosition > 0 { marks.append("PK") }
                if keys.contains(column.name.lowercased()) { marks.append("FK") }
                let type = column.declaredType.isEmpty ? "ANY" : identifier(column.declaredType)
                lines.append("        \(type) \(identifier(column.name))" + (marks.isEmpty ? "" : " " + marks.joined(separator: ",")))
            }
            lines.append("    }")
        }
        for table in schema.tables {
            for key in table.foreignKeys {
                let required = table.columns.first { $0.name.caseInsensitiveCompare(key.column) == .orderedSame }?.notNull ?? false
                lines.append("    \(identifier(key.table)) \(required ? "||" : "|o")--o{ \(identifier(table.name)) : \"\(key.column.replacingOccurrences(of: "\"", with: "'"))\"")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Mermaid-safe word: letters, digits, `_` and `-` kept, anything else `_`.
    private func identifier(_ name: String) -> String {
        let word = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        return word.isEmpty ? "_" : word
    }
}
