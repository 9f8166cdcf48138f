/// Wrapper storage that is never a column of its owner; reflection leaves such fields out of the
/// default `persistentProperties` (see ModelMetadata.swift).
protocol TransientStorage {
    /// The model objects it holds strongly.
    var heldObjects: [ModelObject] { get }
    /// The type of those objects.
    static var relatedType: any Model.Type { get }
    /// Drops the loaded array (the next read queries again).
    mutating func invalidate()
    /// Whether the loaded array holds `object`, strongly or weakly.
    func holds(_ object: ModelObject) -> Bool
    /// The join table the objects are found through (``Siblings``); nil for ``Children``.
    var throughTable: String? { get }
    /// Whether a rollback drops the loaded arrays (their rows are no model's live instances, which the
    /// rollback restores).
    static var droppedOnRollback: Bool { get }
    /// The property of the related model whose value is the owner's key (``Children``'s `by:`); nil for
    /// a join table.
    var byProperty: String? { get }
    /// Loads the objects of every owner (`storage` gives each owner's wrapper) in one query per chunk of
    /// owners; returns them all.
    static func prefetch(_ owners: [ModelObject], registry: TypeRegistry, database: Database,
                         storage: (ModelObject) -> UnsafeMutablePointer<Self>) throws -> [ModelObject]
    /// Throws a ``ModelError`` naming the owner's `property`, the related model and the fix when the
    /// declaration cannot work (``ModelMetadata/checkRelationships()``).
    func checkDeclaration(owner: ModelMetadata, property: String) throws
}

/// The to-many side of a relationship: the objects of another model whose relationship (or key
/// column) points at this object, loaded by one query on first read, then cached.
///
/// ```swift
/// final class Department: Model {
///     var id: Int64 = 0
///     var name = ""
///     @Children(by: "department", orderBy: "name") var employees: [Employee]
///     required init() {}
/// }
/// sales.employees                   // one SELECT ... WHERE "department" = ? ORDER BY "name", first time only
/// try sales.$employees.reload()     // query again after changes
/// ```
///
/// `by` names a property of the child model: a ``Reference`` to this model, or a plain column holding
/// this model's key. `orderBy` lists child properties separated by commas, each optionally followed by
/// `ASC` or `DESC`; the child key breaks ties. A loaded array never shows a child where its row no longer,
/// or now, says: a new child, a child saved with another parent, one deleted (through the handle, by a
/// cascade or by raw SQL), and a rollback that undoes any of these drop the arrays of the parents
/// concerned (found through the child's relationship or its key column), and the next read queries again.
/// A row raw SQL inserts, or moves with no live instance to follow it, drops every loaded array over its
/// table; another connection's commit drops every loaded array at the handle's next call. `reload()` and
/// `invalidate()` do it by hand. It is never stored in a column of its own, and an owner not
/// attached to a database has no children. The parent holds its children strongly; the children's
/// references to the parent (the `by` one and any other) are weak, so dropping the parent frees both
/// sides. When a child holds the parent through other objects still (its former department, whose
/// employees include one that holds this department), the array is not kept, so that no cycle forms:
/// then each read queries. Children that held the parent before the load (tracks that read their album,
/// then the album's tracks) keep holding it, and the array holds them weakly, the others strongly.
@propertyWrapper
public struct Children<Child: Model>: TransientStorage {
    /// `by:` as a name; empty when given as a key path.
    let byName: String
    /// `by:` as a key path (`\Album.$artist`), resolved to the property's name on use (``KeyPathName``).
    let byKeyPath: AnyKeyPath?
    /// `orderBy:` as written (names, each optionally followed by ASC or DESC).
    let orderName: String?
    /// `orderBy:` as a ``QueryOrder``: key paths, each descending or not.
    let orderKeyPaths: [(AnyKeyPath, Bool)]

    /// `orderBy:` as names (a key path that names no property: its description, which the declaration
    /// check reports).
    var order: String? {
        guard !orderKeyPaths.isEmpty else { return orderName }
        let properties = (try? ModelMetadata.of(Child.self))?.properties ?? []
        return orderKeyPaths.map { keyPath, descending in
            (KeyPathName.name(of: keyPath, in: Child.self, properties: properties) ?? "\(keyPath)") + (descending ? " DESC" : " ASC")
        }.joined(separator: ", ")
    }

    /// The child property `by:` names (a key path that names none: its description, which no property has).
    var column: String {
        guard let byKeyPath else { return byName }
        let properties = (try? ModelMetadata.of(Child.self))?.properties ?? []
        return KeyPathName.name(of: byKeyPath, in: Child.self, properties: properties) ?? "\(byKeyPath)"
    }
    @usableFromInline var cache: [Child]?
    /// The array loaded for a parent that some of its children hold strongly already (they were reached
    /// from it: tracks prefetching `album.tracks`): those children are held weakly, the others strongly, so
    /// no cycle forms and the parent lives as long as its children do. Read while each child still stands
    /// for its row; otherwise the next read queries again.
    var partlyWeak: [HeldChild]?

    var heldObjects: [ModelObject] { cache ?? partlyWeak?.compactMap(\.strong) ?? [] }

    static var relatedType: any Model.Type { Child.self }

    mutating func invalidate() { (cache, partlyWeak) = (nil, nil) }

    func holds(_ object: ModelObject) -> Bool {
        cache?.contains { $0 === object } ?? partlyWeak?.contains { ($0.strong ?? $0.weak) === object } ?? false
    }

    /// The children of a ``partlyWeak`` array, when none was freed, deleted or detached since.
    func livingChildren() -> [Child]? {
        guard let partlyWeak else { return nil }
        var children: [Child] = []
        children.reserveCapacity(partlyWeak.count)
        for held in partlyWeak {
            guard let child = held.strong ?? held.weak, !child._isDeleted, child._registry != nil else { return nil }
            children.append(unsafeDowncast(child, to: Child.self))   // every child came through Child's registry
        }
        return children
    }

    static var droppedOnRollback: Bool { false }

    var byProperty: String? { column }

    var throughTable: String? { nil }

    /// Declares the children whose property `column` points at the owner, in `orderBy` order.
    ///
    /// ```swift
    /// @Children(by: "department", orderBy: "name DESC") var employees: [Employee]
    /// ```
    public init(by column: String, orderBy: String? = nil) {
        byName = column
        byKeyPath = nil
        orderName = orderBy
        orderKeyPaths = []
    }

    /// Declares the children whose `@Reference` (its `$` handle) or key column `keyPath` names points at the
    /// owner, in `orderBy` order: the compiler checks the property's name.
    ///
    /// ```swift
    /// final class Artist: Model {
    ///     var id: Int64 = 0
    ///     @Children(by: \Album.$artist, orderBy: "year") var albums: [Album]
    ///     required init() {}
    /// }
    /// ```
    public init<Value>(by keyPath: KeyPath<Child, Value>, orderBy: String? = nil) {
        byName = ""
        byKeyPath = keyPath
        orderName = orderBy
        orderKeyPaths = []
    }

    /// Declares the children whose `@Reference` (its `$` handle) or key column `keyPath` names points at the
    /// owner, in the order of key paths `orderBy` gives (the child key breaks ties).
    ///
    /// ```swift
    /// @Children(by: \Album.$artist, orderBy: .descending(\Album.year).then(.ascending(\Album.title)))
    /// var albums: [Album]
    /// ```
    public init<Value>(by keyPath: KeyPath<Child, Value>, orderBy: QueryOrder<Child>) {
        byName = ""
        byKeyPath = keyPath
        orderName = nil
        orderKeyPaths = orderBy.terms.map { ($0.0.keyPath, $0.1) }
    }

    /// Throws when the declaration names no usable property of `Child` (see
    /// ``ModelMetadata/checkRelationships()``): what the first fetch or save of the owner reports.
    func checkDeclaration(owner: ModelMetadata, property: String) throws {
        guard owner.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: owner.typeName, property: property,
                             "@Children var \(property) needs a single-column key on \(owner.typeName); it has a composite key: load the children with a query instead")
        }
        let metadata = try ModelMetadata.of(Child.self)
        _ = try query(owner: owner.type, columns: metadata.properties.map(\.column), property: property)
    }

    /// Not used: the children are read through the owner's enclosing-instance subscript.
    /// ```swift
    /// department.employees
    /// ```
    @available(*, unavailable, message: "@Children works only on properties of Model classes")
    public var wrappedValue: [Child] { [] }

    /// Not used directly; `$property` goes through the owner.
    ///
    /// ```swift
    /// department.$employees
    /// ```
    @available(*, unavailable, message: "@Children works only on properties of Model classes")
    public var projectedValue: ChildrenHandle<Child> {
        ChildrenHandle(load: { _ in [] }, invalidate: {}, isLoaded: { false })
    }

    /// Reading loads the children on first access. A mistake in the declaration (a `by:` or `orderBy`
    /// naming no property of the child, a reference to another model) never reaches it: the owner's first
    /// fetch or save throws it (``ModelMetadata/checkRelationships()``), so no attached owner has one. A
    /// property read cannot throw: when the query fails for another reason (a closed handle, an I/O error)
    /// it reads as an empty array and the error is logged (at error level, through the handle's logger);
    /// use `try $property.load()` to get the error.
    ///
    /// ```swift
    /// for employee in sales.employees { print(employee.name) }
    /// let staff = try sales.$employees.load()     // the same, throwing
    /// ```
    ///
    /// Inlinable so that, in the owner's module, reading a loaded array compiles to a field load (the key
    /// path is a literal there); only a first read calls into the library.
    @inlinable
    public static subscript<Owner: Model>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: KeyPath<Owner, [Child]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Children<Child>>
    ) -> [Child] {
        if let cached = owner[keyPath: storageKeyPath].cache { return cached }
        return loadingOrLogging(owner, "\(Owner.self).\(Child.self) children") { try load(owner, storageKeyPath, reload: false) }
    }

    /// `$property`: a throwing load, reload and invalidation.
    ///
    /// ```swift
    /// try sales.$employees.reload()
    /// ```
    public static subscript<Owner: Model>(
        _enclosingInstance owner: Owner,
        projected projectedKeyPath: KeyPath<Owner, ChildrenHandle<Child>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Children<Child>>
    ) -> ChildrenHandle<Child> {
        ChildrenHandle(
            load: { reload in try load(owner, storageKeyPath, reload: reload) },
            invalidate: { owner[keyPath: storageKeyPath].invalidate() },
            isLoaded: { owner[keyPath: storageKeyPath].cache != nil || owner[keyPath: storageKeyPath].livingChildren() != nil },
            storage: storageKeyPath)
    }

    /// The cached children, or one query for them through the owner's database.
    @usableFromInline
    static func load<Owner: Model>(_ owner: Owner, _ path: ReferenceWritableKeyPath<Owner, Children<Child>>,
                                           reload: Bool) throws -> [Child] {
        let storage = owner[keyPath: path]   // a copy: no access to the owner is held while loading
        if !reload {
            if let cached = storage.cache { return cached }
            if let living = storage.livingChildren() { return living }
        }
        guard let registry = owner._registry, !owner._isDeleted else { return [] }
        let database = try registry.openDatabase()
        guard registry.metadata.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: registry.metadata.typeName,
                             "@Children needs a single-column key on \(registry.metadata.typeName); it has a composite key")
        }
        let parentKey = try registry.rowKey(of: owner)
        let table = try database.registry(for: Child.self, checkingCommits: false).table
        let (column, order, property, index) = try storage.query(owner: Owner.self, columns: table.columns)
        let forms = table.formats[index].storedKey(parentKey).keyForms(untypedColumn: table.untypedColumns.contains(index))
        // As SQLite's foreign key compares: by the parent key's collation ('ada' is a child of 'Ada' under
        // a `COLLATE NOCASE` key).
        let collation = registry.table.keyCollation
        let compared = collation == .binary ? column : column + collation.clause
        let condition = forms.count == 1 ? "\(compared) = ?" : "\(compared) IN (\(SQL.placeholders(forms.count)))"
        let children = try database.objects(Child.self, where: "WHERE \(condition) ORDER BY \(order)", arguments: forms)
        let io: AnyFieldIO? = if property.related != nil, case .generic(let io) = property.accessor { io } else { nil }
        let rule = try StrongHolds.ChildrenRule(parent: Owner.self, child: ModelMetadata.of(Child.self), by: index)
        var kept = storage
        keep(children.asModelObjects, for: owner, key: parentKey, collation: collation, by: io, rule: rule, in: &kept)
        owner[keyPath: path].cache = kept.cache
        owner[keyPath: path].partlyWeak = kept.partlyWeak
        return children
    }

    /// How `parent` keeps `children`, just loaded for it (each child's relationship then resolves to it with
    /// no query). Usually strongly, the children holding the parent weakly; not at all when a child holds
    /// the parent through others (a cycle: each read queries). But when children hold the parent strongly
    /// already (they were reached from it, as tracks prefetching `album.tracks` are), they keep holding it
    /// (so it lives as long as they do, and a read through them costs no query) and the array holds them
    /// weakly, the others strongly: ``partlyWeak``.
    /// (Written into `storage`: the prefetch runs unspecialized, where returning a generic tuple would
    /// look its type up at run time for every owner.)
    static func keep(_ children: [ModelObject], for parent: ModelObject, key: SQLValue, collation: KeyCollation = .binary, by io: AnyFieldIO?,
                     rule: StrongHolds.ChildrenRule, in storage: UnsafeMutablePointer<Children<Child>>) {
        // The children's relationship resolves to this parent with no query, and holds it weakly, unless
        // it holds it strongly already.
        parent._registry?.noteArrayLoaded(by: parent)
        let (holdsOther, byHolding) = io?.attachResolved(parent, key: key, collation: collation, to: children) ?? (false, nil)
        guard let holding = rule.childrenHolding(parent, in: children, byHolding: byHolding) else {
            // Kept unless a child holds the parent through others (a cycle): then each read queries.
            storage.pointee.cache = rule.parentMayHold(children, of: parent, holdsOther: holdsOther) ? children.unsafelyDowncast(to: Child.self) : nil
            if storage.pointee.partlyWeak != nil { storage.pointee.partlyWeak = nil }
            return
        }
        var held: [HeldChild] = []
        held.reserveCapacity(children.count)
        for (child, holdsParent) in zip(children, holding) {
            if holdsParent {
                held.append(HeldChild(strong: nil, weak: child))
            } else {
                rule.weakenHolds(on: parent, in: [child])
                let cycle = StrongHolds.reaches(from: child, to: parent)
                held.append(cycle ? HeldChild(strong: nil, weak: child) : HeldChild(strong: child, weak: nil))
            }
        }
        storage.pointee.cache = nil
        storage.pointee.partlyWeak = held
    }

    /// The children's quoted filter column, the ORDER BY terms and the child property it filters on,
    /// checked against the models.
    private func query(owner: any Model.Type, columns: [String], property ownerProperty: String? = nil) throws
        -> (column: String, order: String, property: PropertyMetadata, index: Int) {
        let metadata = try ModelMetadata.of(Child.self)
        let column = self.column
        // A key path as written when it names a property (a computed one's description names nothing).
        let shownKeyPath = byKeyPath.map { keyPath in
            metadata.properties.first { $0.name == column }.map { "\\\(metadata.typeName).\($0.related != nil ? "$" : "")\(column)" } ?? "\(keyPath)"
        }
        let declaration = "@Children(by: \(shownKeyPath ?? "\"\(column)\"")) \(ownerProperty.map { "var \($0) " } ?? "")in \(owner)"
        // The fix: the child's references to the owner, or a reference to declare.
        let references = metadata.properties.filter { $0.related.map(ObjectIdentifier.init) == ObjectIdentifier(owner) }.map(\.name)
        let fix = references.isEmpty
            ? "declare `@Reference var \(String(describing: owner).prefix(1).lowercased() + String(describing: owner).dropFirst()): \(owner)?` in \(metadata.typeName) (or a column holding \(owner)'s key) and name it"
            : "name \(references.count == 1 ? "its reference to \(owner)" : "one of its references to \(owner)"): \(references.map { "@Children(by: \\\(metadata.typeName).$\($0))" }.joined(separator: " or "))"
        guard let index = metadata.properties.firstIndex(where: { $0.name == column }) else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: column,
                             "\(declaration) names \"\(column)\", which is not a persistent property of \(metadata.typeName) (it has \(metadata.properties.map(\.name).joined(separator: ", "))); \(fix)")
        }
        let property = metadata.properties[index]
        if let related = property.related, ObjectIdentifier(related) != ObjectIdentifier(owner) {
            let sameTable = related.tableName.sqlNameEquals(owner.tableName) ? " (another model over the same table \"\(related.tableName)\")" : ""
            throw ModelError(.unknownProperty, model: metadata.typeName, property: column,
                             "\(declaration): \(metadata.typeName).\(column) refers to \(related)\(sameTable), not \(owner), so its children could never be found; \(fix)")
        }
        var terms: [String] = []
        for term in (order ?? "").split(separator: ",") {
            let words = term.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard let first = words.first else { continue }
            let name = String(first)
            let direction = words.count > 1 ? words[1].uppercased() : "ASC"
            guard let ordered = metadata.properties.firstIndex(where: { $0.name == name }), words.count <= 2,
                  direction == "ASC" || direction == "DESC" else {
                throw ModelError(.unknownProperty, model: metadata.typeName, property: name,
                                 "\(declaration) orders by \"\(term.trimmingSpaces)\"; write persistent properties of \(metadata.typeName), each optionally followed by ASC or DESC, separated by commas")
            }
            terms.append("\(SQL.quote(columns[ordered])) \(direction)")
        }
        if !terms.contains(where: { $0.hasPrefix(SQL.quote(columns[0]) + " ") }) {
            terms.append(SQL.quote(columns[0]))
        }
        return (SQL.quote(columns[index]), terms.joined(separator: ", "), property, index)
    }

    static func prefetch(_ owners: [ModelObject], registry ownerRegistry: TypeRegistry, database: Database,
                         storage: (ModelObject) -> UnsafeMutablePointer<Children<Child>>) throws -> [ModelObject] {
        let ownerMetadata = ownerRegistry.metadata
        // Owners whose array is loaded already keep it (and pass it on to the next step of a path).
        var loaded: [ModelObject] = [], live: [ModelObject] = []
        for owner in owners where !owner._isDeleted {
            let pointer = storage(owner)
            if let cache = pointer.pointee.cache {
                loaded += cache.asModelObjects
            } else if pointer.pointee.partlyWeak != nil, let living = pointer.pointee.livingChildren() {
                loaded += living.asModelObjects
            } else {
                live.append(owner)
            }
        }
        guard let first = live.first else { return loaded }
        guard ownerMetadata.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: ownerMetadata.typeName,
                             "@Children needs a single-column key on \(ownerMetadata.typeName); it has a composite key")
        }
        let childRegistry = try database.registry(for: Child.self, checkingCommits: false)
        let (column, order, property, propertyIndex) = try storage(first).pointee.query(owner: ownerMetadata.type, columns: childRegistry.table.columns)
        // Each distinct owner key gets a bucket for its children.
        // (Under a parent key with a collation of its own, `COLLATE NOCASE`, the keys as that collation folds
        // them: a child holding 'ada' goes with the owner 'Ada', as SQLite's foreign key has it.)
        let collation = ownerRegistry.table.keyCollation
        var buckets = KeyBuckets(), ownerKeys: [SQLValue] = [], bucketOfOwner: [Int] = []
        ownerKeys.reserveCapacity(live.count)
        bucketOfOwner.reserveCapacity(live.count)
        for owner in live {
            let key = try ownerRegistry.rowKey(of: owner)
            ownerKeys.append(key)
            bucketOfOwner.append(buckets.bucket(adding: collation == .binary ? key : collation.folded(key)))
        }
        buckets.seal()
        let keys = buckets.keys
        // As `[ModelObject]` (not generic over the child type: this code runs unspecialized).
        // Integer keys over a column no index starts with (SQLite would scan anyway), or of owners that are
        // a large share of their table (most children are wanted): one scan, membership tested here.
        let table = childRegistry.table
        let registeredBefore = childRegistry.registrations
        // (Another engine: always the key array, `= ANY($1)`.)
        let scan = try !database.isRemote && buckets.allIntegers && table.integerColumns.contains(propertyIndex)
            && (!table.indexedColumns.contains(propertyIndex) || database.areMany(keys.count, of: ownerRegistry))
        let children = scan
            ? try database.modelObjects(registry: childRegistry, scanning: propertyIndex, for: buckets, orderBy: order)
            : try database.modelObjects(registry: childRegistry, quotedColumn: column + collation.clause,
                                        in: Self.storedKeys(keys, table: table, property: propertyIndex),
                                        orderBy: order)
        let io: AnyFieldIO? = if property.related != nil, case .generic(let io) = property.accessor { io } else { nil }
        // Grouped by a counting sort, with no array per bucket grown child by child: each child's bucket,
        // then where each bucket starts, then the children's positions bucket after bucket (query order
        // kept within each).
        var bucketOfChild = [Int](repeating: -1, count: children.count)
        var starts = [Int](repeating: 0, count: keys.count + 1)
        // Each child goes with the owner its row names, as the lazy load's WHERE has it. Children this query
        // made hold their row (one test for the whole query); a child live before may hold an unsaved
        // change of the column, and goes by its snapshot of the row then.
        let allNew = childRegistry.registrations &- registeredBefore == children.count
        var bucketOfWord: [UInt64: Int]?
        for (i, child) in children.enumerated() {
            let found: Int?
            if collation != .binary {
                found = try bucket(ofRow: child, property: property, index: propertyIndex, registry: childRegistry,
                                   collation: collation, buckets: buckets, database: database)
            } else if !allNew {
                found = bucket(ofRow: child, property: property, index: propertyIndex, registry: childRegistry,
                               buckets: buckets, bucketOfWord: &bucketOfWord)
            } else if let io, let value = io.storedIntegerKey(of: child) {
                found = buckets.bucket(of: value)
            } else {
                found = buckets.bucket(of: try property.accessor.load(child))
            }
            if let found {
                bucketOfChild[i] = found
                starts[found + 1] += 1
            }
        }
        for b in 0..<keys.count { starts[b + 1] += starts[b] }
        var next = starts, grouped = [Int](repeating: 0, count: starts[keys.count])
        for (i, b) in bucketOfChild.enumerated() where b >= 0 {
            grouped[next[b]] = i
            next[b] += 1
        }
        let rule = StrongHolds.ChildrenRule(parent: ownerMetadata.type, child: childRegistry.metadata, by: propertyIndex)
        for (index, owner) in live.enumerated() {
            let b = bucketOfOwner[index], start = starts[b], count = starts[b + 1] - start
            var own: [ModelObject] = []
            own.reserveCapacity(count)
            for k in start..<(start + count) { own.append(children[grouped[k]]) }
            keep(own, for: owner, key: ownerKeys[index], collation: collation, by: io, rule: rule, in: storage(owner))
        }
        return loaded.isEmpty ? children : loaded + children
    }
}

/// A child in a ``Children/partlyWeak`` array: held strongly, or weakly (it holds the parent).
extension Children {
    /// The owners' keys as the children's column `property` stores them (in its format; an integer key
    /// in a column with no type also as its text, ``SQLValue/keyForms(untypedColumn:)``).
    static func storedKeys(_ keys: [SQLValue], table: TableMapping, property: Int) -> [SQLValue] {
        let format = table.formats[property]
        let stored = format == .native ? keys : keys.map(format.storedKey)
        return table.untypedColumns.contains(property) ? stored.flatMap { $0.keyForms(untypedColumn: true) } : stored
    }
}

struct HeldChild {
    var strong: ModelObject?
    weak var weak: ModelObject?
}

extension Children {
    /// The bucket of the owner whose key the row of a live `child` holds (nil: none): its column's value
    /// when the child has not changed it, else the value its snapshot remembers (the row as this handle
    /// last read or wrote it), never an unsaved reassignment.
    private static func bucket(ofRow child: ModelObject, property: PropertyMetadata, index: Int, registry: TypeRegistry,
                               buckets: KeyBuckets, bucketOfWord: inout [UInt64: Int]?) -> Int? {
        let current = registry.metadata.snapshotWord(of: child, at: index)   // unknown for an unsaved object
        guard let remembered = registry.snapshotWord(of: child, at: index), !current.matches(remembered) else {
            return (try? property.accessor.load(child)).flatMap { buckets.bucket(of: $0) }
        }
        if remembered.isNull { return nil }
        if bucketOfWord == nil {
            var words: [UInt64: Int] = [:]
            for (bucket, key) in buckets.keys.enumerated() {
                words[SnapshotWord(key).bits] = bucket
                // (A key SQLite stored as a REAL equal to the integer, as `=` matches it.)
                if case .integer(let value) = key { words[SnapshotWord(.real(Double(value))).bits] = bucket }
            }
            bucketOfWord = words
        }
        return bucketOfWord?[remembered.bits]
    }
}

extension Children {
    /// ``bucket(ofRow:property:index:registry:buckets:bucketOfWord:)`` under a parent key with a collation
    /// of its own (`COLLATE NOCASE`), whose buckets hold the keys as it folds them: the child's value folded
    /// when it has not changed it, else the row's value (read again: a snapshot keeps no text to fold).
    private static func bucket(ofRow child: ModelObject, property: PropertyMetadata, index: Int, registry: TypeRegistry,
                               collation: KeyCollation, buckets: KeyBuckets, database: Database) throws -> Int? {
        let current = registry.metadata.snapshotWord(of: child, at: index)
        guard let remembered = registry.snapshotWord(of: child, at: index), !current.matches(remembered) else {
            return buckets.bucket(of: collation.folded(try property.accessor.load(child)))
        }
        let statement = try database.selectRow(of: child, registry: registry)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return buckets.bucket(of: collation.folded(statement.value(at: Int32(index))))
    }
}

/// What a to-many property read gives: `load()`'s array, or, when it throws, an empty array with the
/// error logged at error level through the owner's handle (a property read cannot throw).
@usableFromInline
func loadingOrLogging<T>(_ owner: ModelObject, _ what: @autoclosure () -> String, _ load: () throws -> [T]) -> [T] {
    do {
        return try load()
    } catch {
        owner._registry?.database?.configuration.logger.error("Strata: \(what()) could not be loaded; they read as []: \(error)")
        return []
    }
}

/// `$children`: load (throwing), reload and invalidate a ``Children`` relationship.
///
/// ```swift
/// let staff = try sales.$employees.load()     // the cached array, or one query
/// try sales.$employees.reload()               // always one query
/// sales.$employees.invalidate()               // the next read queries again
/// ```
public struct ChildrenHandle<Child: Model> {
    private let loader: (Bool) throws -> [Child]
    private let invalidator: () -> Void
    private let loaded: () -> Bool
    /// The owner's wrapper storage (`_employees`): what a key path `\.$employees` names (``KeyPathName``).
    let storagePath: AnyKeyPath?

    init(load: @escaping (Bool) throws -> [Child], invalidate: @escaping () -> Void, isLoaded: @escaping () -> Bool,
         storage: AnyKeyPath? = nil) {
        loader = load
        invalidator = invalidate
        loaded = isLoaded
        storagePath = storage
    }

    /// The children: the cached array, or one query whose errors are thrown.
    /// ```swift
    /// let staff = try sales.$employees.load()
    /// ```
    public func load() throws -> [Child] { try loader(false) }

    /// Queries the children again and caches the result.
    ///
    /// ```swift
    /// try sales.$employees.reload()
    /// ```
    @discardableResult
    public func reload() throws -> [Child] { try loader(true) }

    /// Drops the cached array; the next read queries again.
    ///
    /// ```swift
    /// sales.$employees.invalidate()
    /// ```
    public func invalidate() { invalidator() }

    /// Whether the children are cached (the next read runs no query).
    ///
    /// ```swift
    /// sales.$employees.isLoaded
    /// ```
    public var isLoaded: Bool { loaded() }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
