/// A many-to-many relationship through a join table: the objects of another model that rows of the join
/// table pair with this object. Loaded by one query on first read, then cached; `$property.add(_:)` and
/// `remove(_:)` write the join table.
///
/// ```swift
/// final class Post: Model {
///     var id: Int64 = 0
///     var title = ""
///     // Django's auto table: blog_post_tags(id, post_id, tag_id, UNIQUE (post_id, tag_id))
///     @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id") var tags: [Tag]
///     required init() {}
/// }
/// post.tags                          // SELECT "Tag".* ... JOIN "blog_post_tags" ..., first time only
/// try post.$tags.add(urgent)         // INSERT INTO "blog_post_tags" ("post_id", "tag_id") VALUES (?, ?)
/// try post.$tags.remove(urgent)      // DELETE FROM "blog_post_tags" WHERE ...
/// try db.prefetch("tags", of: posts) // one query for all posts
/// ```
///
/// `from` is the join table's column holding this model's key, `to` the one holding the target's key.
/// Adding a pair that is there already does nothing (the join table's unique index is respected, never
/// violated); the join table may be one Strata never maps, or the table of a model with a
/// ``ModelDeclaration/compositeKey`` (whose live instances then see the writes). The array is cached
/// strongly unless a target already holds this object (its own `@Siblings` back to it, say), so no cycle
/// forms; then each read queries. Any other write to the join table — the other side's `add` or
/// `remove`, raw SQL, another connection's commit (seen at the handle's next call) — drops the loaded
/// arrays over it, and so does a rollback (of a transaction or a savepoint), so an `add` or `remove` it
/// undid is not shown; the next read queries again.
@propertyWrapper
public struct Siblings<Target: Model>: TransientStorage {
    let joinTable: String
    let fromColumn: String
    let toColumn: String
    let order: String?
    var cache: [Target]?

    /// Declares a relationship through `joinTable`, whose `from` column holds this model's key and `to`
    /// column the target's; `orderBy` is SQL over the target's columns (default: its key). A name the
    /// join table has too (Django's `id`) is the target's; qualify it to order by the join table's
    /// (`"post_tags".id`: the order the pairs were made in).
    ///
    /// ```swift
    /// @Siblings(through: "post_tags", from: "post_id", to: "tag_id", orderBy: "name") var tags: [Tag]
    /// ```
    public init(through joinTable: String, from: String, to: String, orderBy: String? = nil) {
        self.joinTable = joinTable
        fromColumn = from
        toColumn = to
        order = orderBy
    }

    /// Not used: the targets are read through the owner's enclosing-instance subscript.
    /// ```swift
    /// post.tags
    /// ```
    @available(*, unavailable, message: "@Siblings works only on properties of Model classes")
    public var wrappedValue: [Target] { [] }

    /// Not used directly; `$property` goes through the owner.
    ///
    /// ```swift
    /// post.$tags
    /// ```
    @available(*, unavailable, message: "@Siblings works only on properties of Model classes")
    public var projectedValue: SiblingsHandle<Target> { SiblingsHandle(load: { _ in [] }, add: { _ in }, remove: { _ in }) }

    /// Reading loads the targets on first access. A property read cannot throw: when the query fails it
    /// reads as an empty array and the error is logged; `try $property.load()` gives the error.
    ///
    /// ```swift
    /// for tag in post.tags { print(tag.name) }
    /// ```
    public static subscript<Owner: Model>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: KeyPath<Owner, [Target]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Siblings<Target>>
    ) -> [Target] {
        loadingOrLogging(owner, "\(Owner.self).\(Target.self) siblings") { try load(owner, storageKeyPath, reload: false) }
    }

    /// `$property`: a throwing load, reload, add and remove.
    ///
    /// ```swift
    /// try post.$tags.add(urgent)
    /// ```
    public static subscript<Owner: Model>(
        _enclosingInstance owner: Owner,
        projected projectedKeyPath: KeyPath<Owner, SiblingsHandle<Target>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Siblings<Target>>
    ) -> SiblingsHandle<Target> {
        SiblingsHandle(
            load: { reload in try load(owner, storageKeyPath, reload: reload) },
            add: { target in try write(owner, storageKeyPath, target, adding: true) },
            remove: { target in try write(owner, storageKeyPath, target, adding: false) },
            storage: storageKeyPath)
    }

    var heldObjects: [ModelObject] { cache ?? [] }

    static var relatedType: any Model.Type { Target.self }

    mutating func invalidate() { cache = nil }

    func holds(_ object: ModelObject) -> Bool { cache?.contains { $0 === object } ?? false }

    var throughTable: String? { joinTable }

    /// A rolled-back `add` or `remove` (or other write to the join table) is undone in the join table,
    /// which no live instance follows: the array is read again.
    static var droppedOnRollback: Bool { true }

    var byProperty: String? { nil }

    func checkDeclaration(owner: ModelMetadata, property: String) throws {
        let declaration = "@Siblings(through: \"\(joinTable)\", from: \"\(fromColumn)\", to: \"\(toColumn)\") var \(property) in \(owner.typeName)"
        guard !joinTable.isEmpty, !fromColumn.isEmpty, !toColumn.isEmpty else {
            throw ModelError(.unknownProperty, model: owner.typeName, property: property,
                             "\(declaration) leaves a name empty; name the join table and its two key columns")
        }
        guard owner.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: owner.typeName, property: property,
                             "\(declaration) needs a single-column key on \(owner.typeName); it has a composite key")
        }
        let target = try ModelMetadata.of(Target.self)
        guard target.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: target.typeName, property: property,
                             "\(declaration) needs a single-column key on \(target.typeName); it has a composite key")
        }
    }

    /// The cached targets, or one query through the owner's database.
    private static func load<Owner: Model>(_ owner: Owner, _ path: ReferenceWritableKeyPath<Owner, Siblings<Target>>,
                                           reload: Bool) throws -> [Target] {
        let storage = owner[keyPath: path]
        if !reload, let cached = storage.cache {
            // A target deleted since (by the handle, a cascade, raw SQL) has no row to pair with: it leaves.
            guard cached.contains(where: { $0._isDeleted }) else { return cached }
            let kept = cached.filter { !$0._isDeleted }
            owner[keyPath: path].cache = kept
            return kept
        }
        guard let registry = owner._registry, !owner._isDeleted else { return [] }
        let database = try registry.openDatabase()
        let collation = registry.table.keyCollation
        let (groups, _) = try storage.query([owner], ownerMetadata: registry.metadata, collation: collation, database: database)
        let targets = groups[collation.folded(try registry.rowKey(of: owner))] ?? []
        owner[keyPath: path].cache = cacheable(targets, for: owner)
        registry.noteArrayLoaded(by: owner)
        return targets
    }

    /// `targets`, when the owner may hold them strongly: none of them holds the owner already.
    private static func cacheable(_ targets: [Target], for owner: ModelObject) -> [Target]? {
        targets.contains { StrongHolds.reaches(from: $0, to: owner) } ? nil : targets
    }

    /// Adds or removes the pair (owner, target) in the join table, and in a loaded array.
    private static func write<Owner: Model>(_ owner: Owner, _ path: ReferenceWritableKeyPath<Owner, Siblings<Target>>,
                                            _ target: Target, adding: Bool) throws {
        guard let registry = owner._registry, !owner._isDeleted, let database = registry.database else {
            throw ModelError(.detached, model: String(describing: Owner.self), "save the object before changing its @Siblings")
        }
        if target._isDeleted {
            throw ModelError(.deleted, model: String(describing: Target.self), "the related object was deleted: it has no row to \(adding ? "link to" : "unlink")")
        }
        guard target._registry != nil else {
            throw ModelError(.unsavedRelated, model: String(describing: Target.self), "save the related object before adding or removing it")
        }
        let storage = owner[keyPath: path]
        // (Checked: a key property changed since the owner or the target was saved would link other rows.)
        let ownerKey = try registry.checkedKey(of: owner)
        // (Checking commits: another connection's commit drops the loaded arrays before the owner's is taken.)
        let targetRegistry = try database.registry(for: Target.self)
        let targetKey = try (target._registry ?? targetRegistry).checkedKey(of: target)
        // Each key as its join column stores it (Django's char(32) holds a UUID as 32 hex digits).
        let pair = [try database.joinColumnFormat(table: storage.joinTable, column: storage.fromColumn, holding: registry.metadata).storedKey(ownerKey),
                    try database.joinColumnFormat(table: storage.joinTable, column: storage.toColumn, holding: targetRegistry.metadata).storedKey(targetKey)]
        let (join, from, to) = (SQL.quote(storage.joinTable), SQL.quote(storage.fromColumn), SQL.quote(storage.toColumn))
        // The pair as the join table may hold it: in a column with no type, an integer key also as its text.
        let fromForms = pair[0].keyForms(untypedColumn: database.joinColumnIsUntyped(table: storage.joinTable, column: storage.fromColumn))
        let toForms = pair[1].keyForms(untypedColumn: database.joinColumnIsUntyped(table: storage.joinTable, column: storage.toColumn))
        // (Compared as SQLite's foreign keys compare: by each key's collation, 'ada' is a link of 'Ada' under a
        // `COLLATE NOCASE` key.)
        let matching = "\(from)\(registry.table.keyCollation.clause) IN (\(SQL.placeholders(fromForms.count)))"
            + " AND \(to)\(targetRegistry.table.keyCollation.clause) IN (\(SQL.placeholders(toForms.count)))"
        // The write drops every loaded array over the join table (the target's own, on the other side, say);
        // the owner's is then set from what it was (for an add, once its transaction began: beginning merges
        // other connections' commits, which drops the arrays).
        var loaded = owner[keyPath: path].cache
        // With a text key, whether the join table links the pair is asked as SQLite's foreign keys read its
        // columns (each key column's affinity and collation): an INTEGER join column stores '07' as 7, which
        // links '7', not '07'.
        // (Another engine's columns are typed, and compare as the keys do: the pair alone.)
        let linked: String? = registry.metadata.keyIsInteger && targetRegistry.metadata.keyIsInteger || database.isRemote ? nil : {
            let (o, t) = (SQL.quote("strata_owner"), SQL.quote("strata_target"))
            let ownerKey = "\(o).\(SQL.quote(registry.table.columns[0]))", targetKey = "\(t).\(SQL.quote(targetRegistry.table.columns[0]))"
            return "FROM \(SQL.quote(registry.table.table)) AS \(o), \(SQL.quote(targetRegistry.table.table)) AS \(t)"
                + " WHERE \(ownerKey) = +\(join).\(from) AND \(targetKey) = +\(join).\(to) AND \(ownerKey) = ? AND \(targetKey) = ?"
        }()
        let keys = linked == nil ? [] : [try registry.table.storedKey(ownerKey), try targetRegistry.table.storedKey(targetKey)]
        if adding {
            try database.transaction {
                loaded = owner[keyPath: path].cache
                let present = try linked.map { try database.value(Int.self, "SELECT count(*) FROM \(join) WHERE \(matching) AND EXISTS (SELECT 1 \($0))", arguments: fromForms + toForms + keys) ?? 0 }
                    ?? database.value(Int.self, "SELECT count(*) FROM \(join) WHERE \(matching)", arguments: fromForms + toForms) ?? 0
                if present == 0 {
                    try database.execute("INSERT INTO \(join) (\(from), \(to)) VALUES (?, ?)", arguments: pair)
                    // A join column that stores the key as another (a number for '07') would link another row.
                    if let linked, try database.value(Int.self, "SELECT count(*) FROM \(join) WHERE \(matching) AND EXISTS (SELECT 1 \(linked))", arguments: fromForms + toForms + keys) ?? 0 == 0 {
                        throw ModelError(.unsupportedType, model: String(describing: Owner.self), key: ownerKey,
                                         "@Siblings through \"\(storage.joinTable)\": its columns \(storage.fromColumn), \(storage.toColumn) store the keys \(pair[0]), \(pair[1]) as values that name other rows (a column's affinity converts them, as INTEGER turns '07' into 7); nothing was written")
                    }
                }
            }
            database.remoteJoinTableWritten(storage.joinTable)
            owner[keyPath: path].cache = loaded
            if var cached = loaded, !cached.contains(where: { $0 === target }) {
                // At its place in the declared order when that is known exactly here (the default order,
                // by integer key) and the owner may hold it (it does not hold the owner: no cycle); else
                // the array is dropped and the next read loads it in order.
                if storage.order == nil, case .integer(let key) = targetKey, !StrongHolds.reaches(from: target, to: owner),
                   let keys = try? cached.map({ try Int64(sqlValue: targetRegistry.metadata.key.accessor.load($0)) }) {
                    cached.insert(target, at: keys.firstIndex { $0 > key } ?? keys.count)
                    owner[keyPath: path].cache = cached
                } else {
                    owner[keyPath: path].cache = nil
                }
            }
        } else {
            // (With a text key, only the rows that link the pair as the foreign keys read them: an INTEGER
            // join column's 7 is '7''s link, not '07''s.)
            try database.execute("DELETE FROM \(join) WHERE \(matching)" + (linked.map { " AND EXISTS (SELECT 1 \($0))" } ?? ""),
                                 arguments: fromForms + toForms + keys)
            database.remoteJoinTableWritten(storage.joinTable)
            owner[keyPath: path].cache = loaded?.filter { $0 !== target }
        }
    }

    static func prefetch(_ owners: [ModelObject], registry ownerRegistry: TypeRegistry, database: Database,
                         storage: (ModelObject) -> UnsafeMutablePointer<Siblings<Target>>) throws -> [ModelObject] {
        // Owners whose array is loaded already keep it (and pass it on to the next step of a path).
        let live = owners.filter { !$0._isDeleted }
        let loaded = live.compactMap { storage($0).pointee.cache }.flatMap { $0 }
        let pending = live.filter { storage($0).pointee.cache == nil }
        guard let first = pending.first else { return loaded }
        let collation = ownerRegistry.table.keyCollation
        let (groups, all) = try storage(first).pointee.query(pending, ownerMetadata: ownerRegistry.metadata, collation: collation, database: database)
        for owner in pending {
            let targets = groups[collation.folded(try ownerRegistry.rowKey(of: owner))] ?? []
            storage(owner).pointee.cache = cacheable(targets, for: owner)
            ownerRegistry.noteArrayLoaded(by: owner)
        }
        return loaded + all
    }

    /// The target's registry for a load through the join table: owner and target need a single-column key.
    func checkedTargetRegistry(ownerMetadata: ModelMetadata, database: Database) throws -> TypeRegistry {
        guard ownerMetadata.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: ownerMetadata.typeName,
                             "@Siblings needs a single-column key on \(ownerMetadata.typeName); it has a composite key")
        }
        let targetRegistry = try database.registry(for: Target.self, checkingCommits: false)
        guard targetRegistry.table.keyCount == 1 else {
            throw ModelError(.unsupportedType, model: targetRegistry.metadata.typeName,
                             "@Siblings needs a single-column key on \(targetRegistry.metadata.typeName); it has a composite key")
        }
        return targetRegistry
    }

    /// The owners' keys (as `folding` makes them), each once and in order, and an empty group for each.
    func ownerKeys(_ owners: [ModelObject], ownerMetadata: ModelMetadata, folding: (SQLValue) -> SQLValue) throws
        -> (groups: [SQLValue: [Target]], keys: [SQLValue]) {
        var groups: [SQLValue: [Target]] = [:], keys: [SQLValue] = []
        for owner in owners {
            let key = folding(try owner._registry?.rowKey(of: owner) ?? ownerMetadata.key.accessor.load(owner))
            if groups.updateValue([], forKey: key) == nil { keys.append(key) }
        }
        return (groups, keys)
    }

    /// The targets of each owner (by the owner's key): one query per 32,768 integer keys (a JSON array), or per
    /// chunk of other keys as large as SQLite's variable limit allows.
    private func query(_ owners: [ModelObject], ownerMetadata: ModelMetadata, collation: KeyCollation, database: Database) throws
        -> (groups: [SQLValue: [Target]], all: [Target]) {
        if database.isRemote { return try remoteQuery(owners, ownerMetadata: ownerMetadata, database: database) }
        let targetRegistry = try checkedTargetRegistry(ownerMetadata: ownerMetadata, database: database)
        let table = targetRegistry.table
        var (groups, keys) = try ownerKeys(owners, ownerMetadata: ownerMetadata, folding: collation.folded)
        let t = SQL.quote(table.table), j = SQL.quote(joinTable)
        // The owner keys compared by their own collation, as SQLite's foreign key from the join table does.
        let from = "\(j).\(SQL.quote(fromColumn))"
        let fromCompared = from + collation.clause
        let ownerColumn = Int32(targetRegistry.metadata.properties.count + (table.selectsRowID ? 1 : 0))
        // The target's columns named unqualified (`id`, as Django's join table has one too) are the target's.
        let ordering = order.map { SQLTokenizer.qualifying($0, columns: table.columns, with: t) } ?? "\(t).\(SQL.quote(table.columns[0]))"
        // Owner keys bound as the join column stores them, and read back in their canonical form.
        let fromFormat = try database.joinColumnFormat(table: joinTable, column: fromColumn, holding: ownerMetadata)
        let ownerKeyForm = ownerMetadata.keyForm
        var all: [Target] = []
        // A text key is joined as SQLite's foreign key finds it: by the key column's affinity and collation
        // (the key column on the left, the join column with no affinity: '7' finds the integer 7, '07' does
        // not, and 'ball' finds 'Ball' under a `COLLATE NOCASE` key). An integer key as before.
        let on = table.keyIsRowID || targetRegistry.metadata.keyIsInteger
            ? "\(j).\(SQL.quote(toColumn)) = \(t).\(SQL.quote(table.columns[0]))"
            : "\(t).\(SQL.quote(table.columns[0])) = +\(j).\(SQL.quote(toColumn))"
        let select = "SELECT \(table.selectColumns), \(from) FROM \(t) JOIN \(j) ON \(on)"
            + " WHERE \(fromCompared) IN "
        func read(_ statement: Statement, _ values: [SQLValue]) throws {
            try statement.bind(values: values)
            defer { statement.reset() }
            while try statement.step() {
                let target = try database.object(Target.self, from: statement, registry: targetRegistry)
                groups[collation.folded(ownerKeyForm.canonical(statement.value(at: ownerColumn)))]?.append(target)
                all.append(target)
            }
        }
        var bound = fromFormat == .native ? keys : keys.map(fromFormat.storedKey)
        if database.joinColumnIsUntyped(table: joinTable, column: fromColumn) {
            bound = bound.flatMap { $0.keyForms(untypedColumn: true) }   // an integer key also as its text
        }
        if bound.count > 1, database.connection.hasJSONEach, let integers = SQL.integers(bound) {
            // Integer keys: one JSON array per 32,768 of them, through one statement (`+value`: the join
            // column's own affinity applies to the keys, as to a list of bound values).
            let statement = try database.connection.cachedStatement(select + "(SELECT +value FROM \(database.connection.dialect.keyList(parameter: 1))) ORDER BY \(ordering)")
            var start = 0
            while start < integers.count {
                let end = min(start + 32_768, integers.count)
                try read(statement, [.text(SQL.jsonArray(integers[start..<end]))])
                start = end
            }
            return (groups, all)
        }
        // Other keys: as many per statement as SQLite takes, padded so that a few cached statements serve
        // every count.
        for chunk in SQL.paddedChunks(bound, maximumArguments: database.maximumArguments) {
            let statement = try database.connection.cachedStatement(select + "(\(SQL.placeholders(chunk.count))) ORDER BY \(ordering)")
            try read(statement, chunk)
        }
        return (groups, all)
    }
}

/// `$siblings`: load (throwing), reload, add and remove a ``Siblings`` relationship.
///
/// ```swift
/// try post.$tags.add(urgent)
/// try post.$tags.remove(draft)
/// let tags = try post.$tags.load()
/// ```
public struct SiblingsHandle<Target: Model> {
    private let loader: (Bool) throws -> [Target]
    private let adder: (Target) throws -> Void
    private let remover: (Target) throws -> Void
    /// The owner's wrapper storage (`_tags`): what a key path `\.$tags` names (``KeyPathName``).
    let storagePath: AnyKeyPath?

    init(load: @escaping (Bool) throws -> [Target], add: @escaping (Target) throws -> Void, remove: @escaping (Target) throws -> Void,
         storage: AnyKeyPath? = nil) {
        loader = load
        adder = add
        remover = remove
        storagePath = storage
    }

    /// The targets: the cached array, or one query whose errors are thrown.
    /// ```swift
    /// let tags = try post.$tags.load()
    /// ```
    public func load() throws -> [Target] { try loader(false) }

    /// Queries the targets again.
    ///
    /// ```swift
    /// try post.$tags.reload()
    /// ```
    @discardableResult
    public func reload() throws -> [Target] { try loader(true) }

    /// Pairs `target` with the owner in the join table (nothing when the pair is there already). A
    /// loaded array in the default order (by integer key) gets the target in its place; one declared
    /// with `orderBy` is dropped, and the next read loads it in that order.
    /// ```swift
    /// try post.$tags.add(urgent)
    /// ```
    public func add(_ target: Target) throws { try adder(target) }

    /// Removes the pair of `target` and the owner from the join table.
    /// ```swift
    /// try post.$tags.remove(urgent)
    /// ```
    public func remove(_ target: Target) throws { try remover(target) }
}
