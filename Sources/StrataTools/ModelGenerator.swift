import Strata

/// Writes Swift model classes for existing tables: one `final class X: Model` per table Strata can map
/// (and a read-only one per view), and a `// skipped:` comment saying why for each one it cannot.
/// Properties keep their column names where Swift allows (`columnNames` maps the others); single-column
/// foreign keys become `@Reference` properties; types follow the column's affinity and declared type
/// (Decimal for `DECIMAL` / `NUMERIC(p, s)`), optional when the column is nullable, unless the storage
/// classes of sampled rows (``DatabaseSchema/init(reading:countingRows:samplingValues:)``) need another
/// type to read and write back as stored (a comment on the line says so); generated columns are
/// read-only; explicit plain indices become `indices` / `uniqueIndices`. A view is keyed by the key of
/// its one table where it carries that through, else read without identity (a comment above the class
/// says which); the shadow tables of FTS and R*Tree tables are skipped, and so are Strata's and SQLite's
/// own tables (``TableSchema/isInternal``) unless ``includesInternalTables`` is set. Property names keep
/// letters of any script (`prénom` stays `prénom`). The classes sync with an empty plan against the
/// database they were generated from.
///
/// ```swift
/// let schema = try DatabaseSchema(reading: db)
/// print(ModelGenerator().source(for: schema, origin: "notes.sqlite"))
/// ```
public struct ModelGenerator: Sendable {
    /// When set, the classes are nested in `enum <namespace>`, with a `models` list of them all (so that
    /// the models of several databases can live in one module).
    public var namespace: String?
    /// Whether ``source(for:origin:)`` writes models for Strata's and SQLite's own tables
    /// (``TableSchema/isInternal``: `strata_migrations`, `sqlite_sequence`, `sqlite_stat1` …); by default it
    /// writes a `// skipped:` line for each.
    ///
    /// ```swift
    /// let generator = ModelGenerator(includingInternal: true)
    /// generator.includesInternalTables   // true
    /// ```
    public var includesInternalTables: Bool

    /// A generator with the default rules; with `namespace`, the classes nest in an enum of that name;
    /// with `includingInternal`, Strata's and SQLite's own tables get models too.
    ///
    /// ```swift
    /// let generator = ModelGenerator()
    /// let nested = ModelGenerator(namespace: "Blog")   // enum Blog { final class Post: Model { … } … }
    /// ```
    public init(namespace: String? = nil, includingInternal: Bool = false) {
        self.namespace = namespace
        self.includesInternalTables = includingInternal
    }

    /// A whole Swift file: a header, the imports, then each table's (and view's) class or skip comment,
    /// by name.
    ///
    /// ```swift
    /// let swift = ModelGenerator().source(for: schema, origin: "notes.sqlite")
    /// try swift.write(toFile: "Models.swift", atomically: true, encoding: .utf8)
    /// ```
    public func source(for schema: DatabaseSchema, origin: String? = nil) -> String {
        var lines = [
            "// Strata models" + (origin.map { " for the tables of \(SwiftSource.comment($0))" } ?? "") + ", written by `strata generate`.",
            "// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.",
            "",
            "import Foundation",
            "import Strata",
        ]
        // Class names first, so that references can name the classes of other tables.
        var taken: Set<String> = [], targets: [String: ReferenceTarget] = [:]
        var names: [(TableSchema, String)] = []
        for table in schema.tables + schema.viewTables {
            if table.isInternal && !includesInternalTables {
                names.append((table, ""))   // no class: a skip line
                continue
            }
            var name = SwiftSource.typeName(table.name)
            if taken.contains(name.lowercased()) {
                var number = 2
                while taken.contains("\(name)\(number)".lowercased()) { number += 1 }
                name += String(number)
            }
            guard case .model = model(for: table, className: name) else { names.append((table, name)); continue }
            taken.insert(name.lowercased())
            names.append((table, name))
            if !table.isView, let key = table.primaryKey.first {
                let keyIsText = keyType(for: key, composite: table.primaryKey.count > 1).map { $0.type != "Int64" } ?? (key.affinity == .text)
                targets[table.name.lowercased()] = ReferenceTarget(className: name, keyColumn: key.name, keyIsText: keyIsText)
            }
        }
        var classNames: [String] = []
        var body: [String] = []
        for (table, name) in names {
            let generated = table.isInternal && !includesInternalTables
                ? .skipped(table: table.name, reason: (SQLiteIntrospector.isEngineTable(table.name) ? "SQLite's" : "Strata's")
                           + " own table (strata generate --include-internal writes it)")
                : model(for: table, className: name, references: targets)
            if case .model(let className, _) = generated { classNames.append(className) }
            body.append("")
            body.append(generated.source)
        }
        guard let namespace else { return (lines + body).joined(separator: "\n") + "\n" }
        lines.append("")
        lines.append("enum \(namespace) {")
        lines.append("    /// Every model of this file. ```swift \(namespace).models.count ```")
        lines.append("    static let models: [any Model.Type] = [\(classNames.map { $0 + ".self" }.joined(separator: ", "))]")
        lines += body.map { $0.isEmpty ? "" : $0.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a reference needs of the table it points at.
    public struct ReferenceTarget: Sendable, Hashable {
        /// The generated class.
        ///
        /// ```swift
        /// target.className  // "Author"
        /// ```
        public var className: String
        /// The table's key column.
        ///
        /// ```swift
        /// target.keyColumn  // "id"
        /// ```
        public var keyColumn: String
        /// Whether the key is text (a String key) rather than an integer.
        ///
        /// ```swift
        /// target.keyIsText   // false
        /// ```
        public var keyIsText: Bool
    }

    /// The class for one table (or view), or why there is none. With `references` (the classes of the
    /// other tables, by lowercased table name), single-column foreign keys to a table's key become
    /// `@Reference` properties.
    ///
    /// ```swift
    /// switch ModelGenerator().model(for: table) {
    /// case .model(let className, let source): print(className, source)
    /// case .skipped(_, let reason): print("no model:", reason)
    /// }
    /// ```
    public func model(for table: TableSchema, className: String? = nil, references: [String: ReferenceTarget] = [:]) -> GeneratedModel {
        func skip(_ reason: String) -> GeneratedModel { .skipped(table: table.name, reason: reason) }
        if table.isVirtual { return skip("a virtual table; Strata models map ordinary tables") }
        if let owner = table.shadowOf { return skip("shadow table of \(owner)") }
        if let problem = table.problem { return skip("its columns could not be read: \(problem)") }
        let key: ColumnSchema
        var keyColumns: [ColumnSchema] = []
        var header: String?   // a comment above the class
        if table.isView {
            if table.columns.isEmpty { return skip("a view without columns") }
            guard let choice = viewKey(of: table) else {
                return skip("a view with no column of only integers or only text, which a Strata key needs")
            }
            (keyColumns, header) = choice
            key = keyColumns[0]
        } else {
            keyColumns = table.primaryKey
            if keyColumns.isEmpty {
                // No primary key: the implicit rowid is the key, read-only (VACUUM may renumber rowids).
                guard !table.withoutRowID,
                      let name = ["rowid", "oid", "_rowid_"].first(where: { name in !table.columns.contains { $0.name.lowercased() == name } })
                else { return skip("no PRIMARY KEY, and its rowid has no free name; a Strata model needs a key") }
                var withRowID = table
                withRowID.columns.insert(ColumnSchema(name: name, declaredType: "INTEGER", notNull: true, primaryKeyPosition: 1), at: 0)
                guard case .model(let className, let source) = model(for: withRowID, className: className, references: references) else {
                    return model(for: withRowID, className: className, references: references)
                }
                var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let declarations = lines.firstIndex { $0.hasPrefix("    var") || $0.hasPrefix("    @") } ?? 1
                lines.insert("    static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber", at: declarations)
                return .model(className: className, source: lines.joined(separator: "\n"))
            }
            key = keyColumns[0]
        }
        let isKey = { (column: ColumnSchema) in keyColumns.contains { $0.name == column.name } }

        // Property names: the column's own where it can be one; a reference drops `_id` / `Id`.
        var used: Set<String> = Set(table.columns.map(\.name).filter { SwiftSource.isSwiftIdentifier($0) && !SwiftSource.unusable.contains($0) })
        var properties: [String] = [], columnNames: [(String, String)] = []
        var persistentNames: [String: String] = [:]   // column -> property
        for column in table.columns {
            var name = SwiftSource.isSwiftIdentifier(column.name) && !SwiftSource.unusable.contains(column.name)
                ? column.name : SwiftSource.propertyName(column.name)
            var declaration: String
            var comment = ""
            if isKey(column), keyColumns.count == 1 || reference(for: column, in: table, references) == nil {
                guard let type = keyType(for: column, composite: keyColumns.count > 1) else {
                    if column.storedTypes?.values.isEmpty == false {
                        return skip("primary key \"\(column.name)\" holds \(column.storedTypes?.values.joined(separator: " and ") ?? "") values; a Strata key is an integer or a string")
                    }
                    return skip("primary key \"\(column.name)\" has REAL affinity; a Strata key is an integer or a string")
                }
                declaration = type.optional ? type.type + "?" : type.type + " = " + (type.type == "UUID" ? "UUID()" : type.type == "String" ? "\"\"" : "0")
                if let note = type.note { comment = note }
            } else if let reference = reference(for: column, in: table, references) {
                let stem = Self.referenceName(column.name)
                if stem != column.name, SwiftSource.isSwiftIdentifier(stem), !SwiftSource.unusable.contains(stem), !used.contains(stem) {
                    name = stem
                }
                declaration = reference.className + "?"
                if column.notNull { comment = "  // NOT NULL: saving without one throws" }
                properties.append("@Reference var \(SwiftSource.identifier(name)): \(declaration)\(comment)")
                used.insert(name)
                persistentNames[column.name] = name
                // `<name>_id` and `<name>Id` are found by convention; any other column is named.
                let conventional = [name + "_id", name + "Id"].contains { $0.caseInsensitiveCompare(column.name) == .orderedSame }
                if name != column.name && !conventional { columnNames.append((name, column.name)) }
                continue
            } else {
                let property = ColumnProperty(column)
                declaration = property.declaration
                if column.isGenerated { comment = "  // generated column: read, never written" } else if let note = property.note { comment = note }
            }
            if name != column.name {
                while used.contains(name) { name += "_" }
                columnNames.append((name, column.name))
            }
            used.insert(name)
            persistentNames[column.name] = name
            properties.append("var \(SwiftSource.identifier(name)): \(declaration)\(comment)")
        }
        var indices: [[String]] = [], uniqueIndices: [[String]] = []
        for index in table.indices where index.isPlain {
            let columns = index.columns.compactMap { $0 }.compactMap { persistentNames[$0] }
            guard columns.count == index.columns.count else { continue }
            if index.unique {
                if !uniqueIndices.contains(columns) { uniqueIndices.append(columns) }
            } else if !indices.contains(columns) {
                indices.append(columns)
            }
        }

        let name = className ?? SwiftSource.typeName(table.name)
        let keyProperty = persistentNames[key.name] ?? key.name
        var lines = ["final class \(name): Model {"]
        if name != table.name { lines.append("    static let tableName = \(SwiftSource.stringLiteral(table.name))") }
        if keyColumns.count > 1 {
            lines.append("    static let compositeKey = \(list(keyColumns.map { persistentNames[$0.name] ?? $0.name }))")
        } else if keyProperty != "id" {
            lines.append("    static let primaryKey = \(SwiftSource.stringLiteral(keyProperty))")
        }
        if !columnNames.isEmpty {
            lines.append("    static let columnNames = [" + columnNames.map { "\(SwiftSource.stringLiteral($0.0)): \(SwiftSource.stringLiteral($0.1))" }.joined(separator: ", ") + "]")
        }
        if table.isView { lines.append("    static let isReadOnly = true   // a view") }
        if let header { lines.insert(header, at: 0) }
        if !indices.isEmpty { lines.append("    static let indices = [\(indices.map(list).joined(separator: ", "))]") }
        if !uniqueIndices.isEmpty { lines.append("    static let uniqueIndices = [\(uniqueIndices.map(list).joined(separator: ", "))]") }
        lines += properties.map { "    " + $0 }
        lines.append("    required init() {}")
        lines.append("}")
        return .model(className: name, source: lines.joined(separator: "\n"))
    }

    /// A view's key and the comment saying which it is: the columns that carry its one table's key through
    /// (``ViewKey``), else a column whose stored values can be a key ("id", else the first such), which the
    /// library reads without identity (fresh read-only objects per fetch). Nil when no column can be a key.
    private func viewKey(of view: TableSchema) -> (columns: [ColumnSchema], header: String)? {
        let reason: String
        switch view.viewKey {
        case .proven(let names, let origin)?:
            let columns = names.compactMap { name in view.columns.first { $0.name == name } }
            if columns.count == names.count {
                return (columns, "// keyed by " + names.joined(separator: ", ") + ", \(origin) carried through: one object per row")
            }
            reason = "has columns that could not be matched to its SELECT"
        case .unproven(let why)?: reason = why
        case nil: reason = "was not read from its SQL"
        }
        let candidates = view.columns.filter { $0.name.lowercased() == "id" } + view.columns
        guard let column = candidates.first(where: { keyType(for: $0, composite: false) != nil }) else { return nil }
        return ([column], "// read without identity: the view \(reason), so no column is proven unique; rows come back as fresh read-only objects")
    }

    /// The Swift type of a key column: from its sampled values when there are some (only integers: Int64,
    /// only text: String, optional if some are NULL), else from its affinity (TEXT: String, or UUID for
    /// Django's `char(32)` key; INTEGER, NUMERIC, none: Int64). Nil when neither can be the key (reals,
    /// blobs, mixed classes, REAL affinity). The note says why sampled values overruled the declared type.
    /// A PostgreSQL `uuid` column is UUID (String in a composite key), whatever its name's affinity says.
    func keyType(for column: ColumnSchema, composite: Bool) -> (type: String, optional: Bool, note: String?)? {
        if column.engineTypes == .postgres, ColumnProperty.postgresType(column.declaredType) == "UUID" {
            return (composite ? "String" : "UUID", false, nil)
        }
        let declared: String? = switch column.affinity {
        case .text: !composite && ColumnProperty.isUUIDText(column) ? "UUID" : "String"   // Django's UUIDField: a new object gets a fresh key, as there
        case .integer, .numeric, .blob: "Int64"
        case .real: nil
        }
        guard let stored = column.storedTypes, !stored.values.isEmpty else { return declared.map { ($0, false, nil) } }
        guard let type = ColumnProperty.single(stored.values, affinity: column.affinity), type == "Int64" || type == "String" else { return nil }
        let kept = declared == type || (declared == "UUID" && type == "String")
        let note = kept ? nil : "  // sampled rows hold \(stored.values[0]) values, which \(declared ?? "the declared type") would not keep"
        return (kept ? declared ?? type : type, stored.hasNull, note)
    }

    /// The class a column refers to: a single-column foreign key to the key of a table with a class,
    /// whose key type the column can hold.
    private func reference(for column: ColumnSchema, in table: TableSchema, _ references: [String: ReferenceTarget]) -> ReferenceTarget? {
        guard !table.isView, !column.isGenerated, column.primaryKeyPosition == 0 || table.primaryKey.count > 1,
              let key = table.foreignKeys.first(where: { $0.column.caseInsensitiveCompare(column.name) == .orderedSame }),
              let target = references[key.table.lowercased()],
              key.parentColumn.map({ $0.caseInsensitiveCompare(target.keyColumn) == .orderedSame }) ?? true else { return nil }
        if column.engineTypes == .postgres, ColumnProperty.postgresType(column.declaredType) == "UUID" {
            return target.keyIsText ? target : nil   // a uuid column refers to a UUID (or text) key
        }
        switch column.affinity {
        case .text: return target.keyIsText ? target : nil
        case .integer, .numeric: return target.keyIsText ? nil : target
        case .blob: return target
        case .real: return nil
        }
    }

    /// `author_id` -> `author`, `authorId` / `authorID` -> `author`; other names stay.
    static func referenceName(_ column: String) -> String {
        for suffix in ["_id", "Id", "ID"] where column.hasSuffix(suffix) && column.count > suffix.count {
            return String(column.dropLast(suffix.count))
        }
        return column
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
    /// A model class: its name and Swift source.
    ///
    /// ```swift
    /// case .model(className: "Note", source: "final class Note: Model { … }")
    /// ```
    case model(className: String, source: String)
    /// No model: the table's name and why.
    ///
    /// ```swift
    /// case .skipped(table: "notelabel", reason: "composite PRIMARY KEY …")
    /// ```
    case skipped(table: String, reason: String)

    /// The class source, or a `// skipped: "table": reason` line.
    /// ```swift
    /// print(generated.source)
    /// ```
    public var source: String {
        switch self {
        case .model(_, let source): source
        case .skipped(let table, let reason): "// skipped: \"\(SwiftSource.comment(table))\": \(SwiftSource.comment(reason))"
        }
    }
}
