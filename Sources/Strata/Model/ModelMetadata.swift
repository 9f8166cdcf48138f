import Foundation

/// One persistent property of a model, as reflection found it.
struct PropertyMetadata {
    /// The Swift property name.
    let name: String
    /// The column's name: the model's ``ModelDeclaration/columnNames`` entry, else the property name.
    /// Schema sync resolves a reference's column by convention (``TableMapping/columns``); use those at
    /// run time.
    var column: String
    let accessor: FieldAccessor
    let columnType: ColumnType
    let isNullable: Bool
    /// The value in a fresh `init()` instance: the column default for non-optional properties.
    let defaultValue: SQLValue
    /// Set for relationship wrappers: the related model's type.
    let related: (any Model.Type)?
    /// For a relationship: the foreign key its column carries in tables Strata creates.
    var onDelete: ForeignKeyAction? = nil
    /// Whether the property is a ``SQLValue`` (optional or not), bound as it is, so that the column's
    /// affinity may convert it (``ReadBack/affinity(_:)``).
    var isRawValue = false
    /// Set for dates, UUIDs, booleans, decimals and JSON, whose columns may use another tool's format
    /// (``ColumnFormat``); for a relationship, the related key's (a UUID key's column may hold 32 hex
    /// digits).
    let formatKind: ColumnFormat.Kind?

    static func formatKind(of type: Any.Type) -> ColumnFormat.Kind? {
        switch type {
        case is Date.Type, is Date?.Type: .date
        case is UUID.Type, is UUID?.Type: .uuid
        case is Bool.Type, is Bool?.Type: .bool
        case is Decimal.Type, is Decimal?.Type: .decimal
        default: rawValueIsDecimal(type) ? .decimal : nil
        }
    }

    /// Whether `type` (or the type it wraps in an Optional) is `RawRepresentable` with `Decimal` raw values,
    /// such as `enum Tier: Decimal, ColumnValue`: its column holds the raw decimals, in the column's format
    /// (``ColumnFormat/decimalText(fractionDigits:)``), compared as numbers.
    private static func rawValueIsDecimal(_ type: Any.Type) -> Bool {
        func rawType<R: RawRepresentable>(_: R.Type) -> Any.Type { R.RawValue.self }
        let base = (type as? any OptionalType.Type)?.wrappedType ?? type
        guard let raw = base as? any RawRepresentable.Type else { return false }
        return rawType(raw) == Decimal.self
    }
}

/// A declared index, resolved to column names.
struct IndexDeclaration: Hashable {
    let columns: [String]
    let unique: Bool
}

/// Everything Strata knows about a model type, built once per type by reflection and cached for the
/// life of the process.
///
/// `@unchecked Sendable`: every stored property is a `let` set in `init` and never mutated, and the
/// accessor objects it holds (`FieldIO`) are immutable too, so sharing it across threads is safe.
final class ModelMetadata: @unchecked Sendable {
    let type: any Model.Type
    let typeName: String
    let tableName: String
    /// The table name lowercased: SQLite compares table names without case (ASCII), so models over one
    /// table are found by this key.
    let tableKey: String
    /// Persistent properties, key first, then in declaration order.
    let properties: [PropertyMetadata]
    /// The accessors of `properties`, in a form the per-row loops can iterate cheaply.
    let fastFields: [FastField?]
    /// The field offsets when every property is a non-optional `Int64`, `Int` or `Double` and there are
    /// at most 64: change detection then compares raw field bits with the snapshot (``plainWordChanges``).
    let plainWordOffsets: [Int]?
    /// The offset of the first of them when they also sit side by side in declaration order (the key
    /// first): a snapshot is then one copy of the fields' bytes (``copyPlainWords``).
    let plainWordsStart: Int?
    /// Always 0: the key is the first property (with a composite key, the first of its parts).
    let keyIndex = 0
    /// How many properties make the key: 1, or the parts of a ``ModelDeclaration/compositeKey``, which
    /// come first among ``properties``.
    let keyCount: Int
    /// The key as one value: the key property, or for a composite key a synthetic property whose
    /// accessor loads and stores every part as a ``CompositeKey``.
    let key: PropertyMetadata
    let keyIsInteger: Bool
    /// How a key read from another table's column (a relationship's, a join table's) becomes the key as
    /// instances hold it.
    let keyForm: KeyForm
    let randomKeys: Bool
    /// Tells Observation an instance changed (``ObservableModel``); nil for other models.
    let observationNotifier: ((ModelObject) -> Void)?
    let indices: [IndexDeclaration]
    /// Rename hints: property name -> previous column name (``ModelDeclaration/renamedColumns``).
    let renamedColumns: [String: String]
    let previousTableNames: [String]
    let schemaRebuild: SchemaRebuild
    /// Declared stored formats, by property name (``ModelDeclaration/columnFormats``).
    let columnFormats: [String: ColumnFormat]
    /// The properties (by index) of ``ModelDeclaration/upsertKeys``.
    let upsertKeys: [Int]
    /// ``ModelDeclaration/isReadOnly``.
    let isReadOnly: Bool
    /// The relationship fields (what may hold another model strongly) and the ``Children`` arrays: what
    /// the cycle check walks (``StrongHolds``).
    let relationshipFields: [AnyFieldIO]
    /// The relationship fields whose related type is this model's own (a new instance may refer to itself).
    let ownTypeFields: [AnyFieldIO]
    let heldArrays: [AnyHeldObjects]
    /// The ``Children`` properties by name (what `prefetch` takes besides references).
    let childrenByName: [String: AnyHeldObjects]


    private static let cache = MetadataCache()

    /// The metadata of `type`, reflected on first request.
    static func of(_ type: any Model.Type) throws -> ModelMetadata {
        let id = ObjectIdentifier(type)
        if let cached = cache[id] { return cached }
        // Two threads meeting a type for the first time both build it; the first stored is the one every
        // caller gets (registries compare metadata by identity).
        return cache.keeping(try ModelMetadata(type), for: id)
    }

    private init(_ type: any Model.Type) throws {
        self.type = type
        // The runtime's name, as `String(describing:)` gives for a type, without its dynamic casts (each a
        // conformance lookup for a metatype never seen before: costly on a cold first use).
        typeName = _typeName(type, qualified: false)
        tableName = type.tableName
        tableKey = type.tableName.sqlFolded
        randomKeys = type.randomKeys

        // Every stored field of the class, base class fields excluded.
        let reflected = FieldReflection.persistentFields(of: type)
        observationNotifier = ObservationSupport.notifier(
            for: type, hasRegistrar: FieldReflection.fields(of: type).contains { $0.name == ObservationSupport.registrarField })
        let fields = reflected.map { (name: $0.name, offset: $0.offset, type: $0.type) }
        let writable = Dictionary(reflected.map { ($0.name, $0.isVar && $0.isStrong) }, uniquingKeysWith: { first, _ in first })

        let typeName = self.typeName
        func property(named name: String) -> (name: String, offset: Int, type: Any.Type)? {
            fields.first { $0.name == name } ?? fields.first { $0.name == "_" + name && $0.type is any ReferenceStorage.Type }
        }
        func visibleName(_ field: (name: String, offset: Int, type: Any.Type)) -> String {
            field.type is any ReferenceStorage.Type && field.name.hasPrefix("_") ? String(field.name.dropFirst()) : field.name
        }
        // Wrapper storage that is never a column (``Children``: derived from the other side) is not a
        // stored property as far as persistence goes.
        let available = fields.filter { !$0.name.hasPrefix("$") && !($0.type is any TransientStorage.Type) }.map(visibleName)
        func unknown(_ name: String, in list: String) -> ModelError {
            ModelError(.unknownProperty, model: typeName, property: name,
                       "\(list) names \"\(name)\", which \(typeName) does not have; its stored properties are \(available.joined(separator: ", "))")
        }

        let names = type.persistentProperties.isEmpty ? available : type.persistentProperties
        for name in names where property(named: name) == nil { throw unknown(name, in: "persistentProperties") }
        let keyNames = type.compositeKey.isEmpty ? [type.primaryKey] : type.compositeKey
        guard Set(keyNames).count == keyNames.count else {
            throw ModelError(.invalidPrimaryKey, model: typeName, "compositeKey names a property twice: \(keyNames.joined(separator: ", "))")
        }
        for keyName in keyNames where !names.contains(keyName) {
            throw property(named: keyName) == nil
                ? unknown(keyName, in: type.compositeKey.isEmpty ? "primaryKey" : "compositeKey")
                : ModelError(.invalidPrimaryKey, model: typeName, property: keyName,
                             "the primary key must be one of persistentProperties")
        }
        keyCount = keyNames.count

        let fresh = type.init()
        var properties: [PropertyMetadata] = []
        for name in keyNames + names.filter({ !keyNames.contains($0) }) {
            guard let field = property(named: name) else { continue }
            guard writable[field.name] == true else {
                throw ModelError(.unsupportedType, model: typeName, property: name,
                                 "a persistent property must be a plain `var` (not `let`, `weak` or `unowned`): Strata sets it when it reads a row; leave it out of persistentProperties otherwise")
            }
            let accessor: FieldAccessor, columnType: ColumnType, nullable: Bool
            var related: (any Model.Type)?
            var formatKind = PropertyMetadata.formatKind(of: field.type)
            if let reference = field.type as? any ReferenceStorage.Type {
                guard reference.relatedType.compositeKey.isEmpty else {
                    throw ModelError(.unsupportedType, model: typeName, property: name,
                                     "\(reference.relatedType) has a composite primary key, which one column cannot hold: store its parts in properties of their own")
                }
                let key = reference.relatedKey
                (accessor, columnType, nullable) = (.generic(reference.makeIO(offset: field.offset, keyForm: key.form)), key.columnType, true)
                related = reference.relatedType
                formatKind = key.formatKind
            } else if let made = FieldAccessor.make(type: field.type, offset: field.offset) {
                (accessor, columnType, nullable) = made
                if formatKind == nil, accessor.storesJSON { formatKind = .json }
            } else {
                throw ModelError(.unsupportedType, model: typeName, property: name,
                                 "Strata cannot store a \(field.type); conform it to ColumnValue (or Codable, stored as JSON), or leave it out of persistentProperties")
            }
            let defaultValue = (try? accessor.load(fresh)) ?? .null
            var property = PropertyMetadata(name: name, column: type.columnNames[name] ?? name, accessor: accessor, columnType: columnType,
                                            isNullable: nullable, defaultValue: defaultValue, related: related,
                                            formatKind: formatKind)
            if related != nil, case .generic(let io) = accessor { property.onDelete = io.declaredOnDelete(of: fresh) }
            property.isRawValue = field.type is SQLValue.Type || field.type is SQLValue?.Type
            properties.append(property)
        }
        self.properties = properties
        fastFields = properties.map(\.accessor.fast)
        let plain = fastFields.compactMap { field -> Int? in
            switch field {
            case .int64(let offset)?, .double(let offset)?: offset
            case .int(let offset)? where MemoryLayout<Int>.size == 8: offset
            default: nil
            }
        }
        plainWordOffsets = plain.count == fastFields.count && plain.count <= 64 ? plain : nil
        plainWordsStart = plainWordOffsets.flatMap { offsets in
            offsets.enumerated().allSatisfy { $0.element == offsets[0] + 8 * $0.offset } ? offsets[0] : nil
        }

        for part in properties.prefix(keyCount) where part.columnType != .integer && part.columnType != .text {
            throw ModelError(.invalidPrimaryKey, model: typeName, property: part.name,
                             "a primary key must be an integer, a String or a UUID, not \(property(named: part.name).map { "\($0.type)" } ?? part.columnType.rawValue) (stored as \(part.columnType.rawValue)), column \"\(part.column)\"; map another column (an INTEGER rowid, a text key) as the key and keep this one a plain property")
        }
        // SET NULL cannot empty a column of the primary key: SQLite would refuse every delete of the parent
        // a row points at (NOT NULL), or leave rows keyed by NULL.
        for part in properties.prefix(keyCount) where keyCount > 1 && part.onDelete == .setNull {
            throw ModelError(.invalidPrimaryKey, model: typeName, property: part.name,
                             "\(part.name) is part of the compositeKey, so onDelete: .setNull cannot set it to NULL when the \(part.related.map { _typeName($0, qualified: false) } ?? "related") row is deleted; declare @Reference(onDelete: .cascade) to delete the row with it, or .restrict to refuse the delete")
        }
        keyIsInteger = keyCount == 1 && properties[0].columnType == .integer
        keyForm = RelatedKey(keyType: keyCount == 1 ? property(named: keyNames[0])?.type : nil).form
        if keyCount == 1 {
            key = properties[0]
        } else {
            let parts = properties.prefix(keyCount)
            key = PropertyMetadata(name: "(" + parts.map(\.name).joined(separator: ", ") + ")", column: "", 
                                   accessor: .generic(CompositeKeyIO(parts: parts.map(\.accessor))), columnType: .text,
                                   isNullable: false, defaultValue: .null, related: nil, formatKind: nil)
        }

        let persistent = Set(properties.map(\.name))
        var indices: [IndexDeclaration] = []
        let indexNames: [[String]] = type.indices, uniqueNames: [[String]] = type.uniqueIndices
        // The key-path forms (``Index``) as names, beside the name lists.
        let typed = try Self.keyPathIndices(of: type, properties: properties, typeName: typeName)
        for (lists, unique) in [(indexNames + typed.filter { !$0.unique }.map(\.names), false),
                                (uniqueNames + typed.filter(\.unique).map(\.names), true)] {
            for columns in lists {
                for name in columns where !persistent.contains(name) {
                    throw persistent.isEmpty || property(named: name) == nil
                        ? unknown(name, in: unique ? "uniqueIndices" : "indices")
                        : ModelError(.unknownProperty, model: typeName, property: name,
                                     "an index names \"\(name)\", which is not a persistent property")
                }
                guard !columns.isEmpty else { continue }
                indices.append(IndexDeclaration(columns: columns, unique: unique))
            }
        }
        self.indices = indices

        // Each hint names a persistent property and an old name that is neither another property's nor
        // another hint's.
        var oldNames: Set<String> = []
        for (name, old) in type.renamedColumns.sorted(by: { $0.key < $1.key }) {
            guard persistent.contains(name) else {
                throw ModelError(.unknownProperty, model: typeName, property: name,
                                 "renamedColumns names \"\(name)\", which is not a persistent property of \(typeName)")
            }
            if !old.sqlNameEquals(name),
               persistent.contains(where: { $0.sqlNameEquals(old) }) || !oldNames.insert(old.sqlFolded).inserted {
                throw ModelError(.unknownProperty, model: typeName, property: name,
                                 "renamedColumns maps \"\(name)\" from \"\(old)\", which is a persistent property or the old name in another hint")
            }
        }
        renamedColumns = type.renamedColumns
        previousTableNames = type.previousTableNames
        schemaRebuild = type.schemaRebuild
        for name in type.columnFormats.keys where !persistent.contains(name) {
            throw ModelError(.unknownProperty, model: typeName, property: name,
                             "columnFormats names \"\(name)\", which is not a persistent property of \(typeName)")
        }
        columnFormats = type.columnFormats
        var columns: [String: String] = [:]
        for property in properties {
            if let other = columns.updateValue(property.name, forKey: property.column.sqlFolded) {
                throw ModelError(.unknownProperty, model: typeName, property: property.name,
                                 "\"\(other)\" and \"\(property.name)\" both map to column \"\(property.column)\"; give each its own column in columnNames")
            }
        }
        for name in type.columnNames.keys where !persistent.contains(name) {
            throw ModelError(.unknownProperty, model: typeName, property: name,
                             "columnNames names \"\(name)\", which is not a persistent property of \(typeName)")
        }
        isReadOnly = type.isReadOnly
        relationshipFields = properties.compactMap { property in
            guard property.related != nil, case .generic(let io) = property.accessor else { return nil }
            return io
        }
        ownTypeFields = properties.compactMap { property in
            guard property.related == type, case .generic(let io) = property.accessor else { return nil }
            return io
        }
        var childrenByName: [String: AnyHeldObjects] = [:]
        for field in fields {
            guard let storage = field.type as? any TransientStorage.Type else { continue }
            childrenByName[field.name.hasPrefix("_") ? String(field.name.dropFirst()) : field.name] = storage.makeHeldObjects(offset: field.offset)
        }
        self.childrenByName = childrenByName
        heldArrays = Array(childrenByName.values)
        let keyCount = self.keyCount
        upsertKeys = try type.upsertKeys.map { name in
            guard let index = properties.firstIndex(where: { $0.name == name }), index >= keyCount else {
                throw ModelError(.unknownProperty, model: typeName, property: name,
                                 "upsertKeys names \"\(name)\", which is not a persistent property of \(typeName) other than its primary key")
            }
            return index
        }
    }

    /// The key field of a model, found from its fields alone (relationships ask for it while their owner
    /// is being reflected, so this must not reflect the whole related type: see ``RelatedKey``).
    static func keyField(of type: any Model.Type) -> ReflectedField? {
        FieldReflection.persistentFields(of: type).first { $0.name == type.primaryKey }
    }

    /// A new, unattached instance holding the declaration's default values.
    func makeInstance() -> ModelObject { type.init() }
}

/// The metadata of every model type reflected so far, behind a lock. `NSLock` rather than `Mutex`:
/// ThreadSanitizer reports `Mutex`'s inout access to its value as a race (a false positive, issue 12),
/// which would hide real ones.
///
/// `@unchecked Sendable`: `entries` is read and written only while `lock` is held.
private final class MetadataCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: ModelMetadata] = [:]

    subscript(id: ObjectIdentifier) -> ModelMetadata? {
        lock.withLock { entries[id] }
    }

    /// Stores `metadata` unless another thread stored one for `id` first; returns the one stored.
    func keeping(_ metadata: ModelMetadata, for id: ObjectIdentifier) -> ModelMetadata {
        lock.withLock {
            if let first = entries[id] { return first }
            entries[id] = metadata
            return metadata
        }
    }
}
