import Strata

/// Writes Swift model classes for existing tables: one `final class X: Model` per table Strata can map,
/// and a `// skipped:` comment saying why for each one it cannot. Properties keep their column names
/// (Strata maps by name); types follow the column's affinity and declared type, optional when the
/// column is nullable; explicit plain indices become `indices` / `uniqueIndices`. The classes sync
/// with an empty plan against the database they were generated from.
///
/// ```swift
/// let schema = try DatabaseSchema(reading: db)
/// print(ModelGenerator().source(for: schema, origin: "notes.sqlite"))
/// ```
public struct ModelGenerator: Sendable {
    /// A generator with the default rules. ```swift let generator = ModelGenerator() ```
    public init() {}

    /// A whole Swift file: a header, the imports, then each table's class or skip comment, by table name.
    ///
    /// ```swift
    /// let swift = ModelGenerator().source(for: schema, origin: "notes.sqlite")
    /// try swift.write(toFile: "Models.swift", atomically: true, encoding: .utf8)
    /// ```
    public func source(for schema: DatabaseSchema, origin: String? = nil) -> String {
        var lines = [
            "// Strata models" + (origin.map { " for the tables of \(SwiftSource.comment($0))" } ?? "") + ", written by `strata generate`.",
            "// Properties are named after their columns: Strata maps them by name.",
            "",
            "import Foundation",
            "import Strata",
        ]
        var taken: Set<String> = []
        for table in schema.tables {
            var name = SwiftSource.typeName(table.name)
            if taken.contains(name.lowercased()) {
                var number = 2
                while taken.contains("\(name)\(number)".lowercased()) { number += 1 }
                name += String(number)
            }
            let generated = model(for: table, className: name)
            if case .model(let className, _) = generated { taken.insert(className.lowercased()) }
            lines.append("")
            lines.append(generated.source)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The class for one table, or why there is none.
    ///
    /// ```swift
    /// switch ModelGenerator().model(for: table) {
    /// case .model(let className, let source): print(className, source)
    /// case .skipped(_, let reason): print("no model:", reason)
    /// }
    /// ```
    public func model(for table: TableSchema, className: String? = nil) -> GeneratedModel {
        func skip(_ reason: String) -> GeneratedModel { .skipped(table: table.name, reason: reason) }
        if table.isVirtual { return skip("a virtual table; Strata models map ordinary tables") }
        if let problem = table.problem { return skip("its columns could not be read: \(problem)") }
        let keys = table.primaryKey
        guard keys.count == 1 else {
            return skip(keys.isEmpty
                ? "no PRIMARY KEY; a Strata model needs a single-column primary key"
                : "composite PRIMARY KEY (\(keys.map(\.name).joined(separator: ", "))); a Strata model needs a single-column primary key")
        }
        let key = keys[0]
        for column in table.columns {
            guard SwiftSource.isIdentifier(column.name) else {
                return skip("column \"\(column.name)\" is not a Swift identifier, and Strata maps properties to columns by name")
            }
            guard !SwiftSource.unusable.contains(column.name) else {
                return skip("column \"\(column.name)\" cannot name a property of a model (a Swift keyword or a member every model has)")
            }
        }
        var properties: [String] = []
        var persistent: [String] = []
        for column in table.columns {
            let identifier = SwiftSource.identifier(column.name)
            if column.name == key.name {
                switch column.affinity {
                case .text: properties.append("var \(identifier): String = \"\"")
                case .integer, .numeric, .blob: properties.append("var \(identifier): Int64 = 0")
                case .real:
                    return skip("primary key \"\(column.name)\" has REAL affinity; a Strata key is an integer or a string")
                }
            } else {
                let property = ColumnProperty(column)
                var line = "var \(identifier): \(property.declaration)"
                if column.isGenerated { line += "  // generated column: SQLite computes it, so it is not persisted" }
                properties.append(line)
            }
            if !column.isGenerated { persistent.append(column.name) }
        }
        let persistentSet = Set(persistent)
        var indices: [[String]] = [], uniqueIndices: [[String]] = []
        for index in table.indices where index.isPlain {
            let columns = index.columns.compactMap { $0 }
            guard columns.allSatisfy(persistentSet.contains) else { continue }
            if index.unique {
                if !uniqueIndices.contains(columns) { uniqueIndices.append(columns) }
            } else if !indices.contains(columns) {
                indices.append(columns)
            }
        }

        let name = className ?? SwiftSource.typeName(table.name)
        var lines = ["final class \(name): Model {"]
        if name != table.name { lines.append("    static let tableName = \(SwiftSource.stringLiteral(table.name))") }
        if key.name != "id" { lines.append("    static let primaryKey = \(SwiftSource.stringLiteral(key.name))") }
        if persistent.count != table.columns.count {
            lines.append("    static let persistentProperties = \(list(persistent))")
        }
        if !indices.isEmpty { lines.append("    static let indices = [\(indices.map(list).joined(separator: ", "))]") }
        if !uniqueIndices.isEmpty { lines.append("    static let uniqueIndices = [\(uniqueIndices.map(list).joined(separator: ", "))]") }
        lines += properties.map { "    " + $0 }
        lines.append("    required init() {}")
        lines.append("}")
        return .model(className: name, source: lines.joined(separator: "\n"))
    }

    private func list(_ names: [String]) -> String {
        "[" + names.map(SwiftSource.stringLiteral).joined(separator: ", ") + "]"
    }
}

/// What ``ModelGenerator`` makes of one table.
///
/// ```swift
/// if case .skipped(let table, let reason) = ModelGenerator().model(for: table) { print(table, reason) }
/// ```
public enum GeneratedModel: Sendable, Hashable {
    /// A model class: its name and Swift source. ```swift case .model(className: "Note", source: "final class Note: Model { … }") ```
    case model(className: String, source: String)
    /// No model: the table's name and why. ```swift case .skipped(table: "notelabel", reason: "composite PRIMARY KEY …") ```
    case skipped(table: String, reason: String)

    /// The class source, or a `// skipped: "table": reason` line.
    /// ```swift print(generated.source) ```
    public var source: String {
        switch self {
        case .model(_, let source): source
        case .skipped(let table, let reason): "// skipped: \"\(SwiftSource.comment(table))\": \(SwiftSource.comment(reason))"
        }
    }
}
