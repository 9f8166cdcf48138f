extension Database {
    /// Loads one relationship of many owners at once — a ``Reference`` or a ``Children`` property, or a
    /// path of them (`"employees.manager"`) — in one query per relationship level (chunked under
    /// ``maximumArguments`` keys), whatever the number of owners; each owner keeps what was loaded for as
    /// long as it lives, so reading the relationships afterwards runs no query. On PostgreSQL each level is
    /// one statement whatever the number of keys, bound as one array (`"column" = ANY($1)`).
    ///
    /// For a reference, the distinct keys that have no live instance are loaded; a key with no row reads
    /// as nil afterwards, also without a query, until the handle sees a write (`$property.load()` throws
    /// ``ModelError/Kind/notFound`` for it). For children, every owner gets its array (empty ones too),
    /// in the declaration's order. Owners that already hold their related object, or that are not
    /// attached to a database, are left as they are.
    ///
    /// ```swift
    /// let staff = try db.objects(Employee.self)            // 1 query
    /// try db.prefetch("department", of: staff)             // 1 query, whatever the number of employees
    /// for employee in staff { print(employee.department?.name ?? "-") }   // no query
    ///
    /// let departments = try db.objects(Department.self)
    /// try db.prefetch("employees.manager", of: departments)   // 2 queries: employees, then their managers
    /// ```
    ///
    /// Throws ``ModelError/Kind/unknownProperty`` when `relationship` names no relationship of `T`, and
    /// ``ModelError/Kind/foreignInstance`` for an owner of another database handle.
    @inlinable
    public func prefetch<T: Model>(_ relationship: String, of owners: [T]) throws {
        // The work below runs unspecialized code no slower, on the same array seen as [ModelObject].
        try prefetch(relationship, of: owners.asModelObjects, registry: registry(for: T.self))
    }

    @usableFromInline
    func prefetch(_ path: String, of owners: [ModelObject], registry: TypeRegistry) throws {
        // The whole path is checked first, so a misspelt step is an error even when nothing is loaded.
        // (The first step's errors come from prefetchOne, which checks before it loads anything.)
        var type = registry.metadata.type
        for (index, step) in path.split(separator: ".").map(String.init).enumerated() {
            let metadata = try ModelMetadata.of(type)
            if let related = metadata.properties.first(where: { $0.name == step })?.related ?? metadata.childrenByName[step]?.relatedType {
                type = related
            } else if index == 0 {
                break
            } else {
                throw ModelError(.unknownProperty, model: metadata.typeName, property: step,
                                 "cannot prefetch \"\(path)\": \(metadata.typeName) has no relationship \"\(step)\"; its relationships are \((metadata.properties.filter { $0.related != nil }.map(\.name) + metadata.childrenByName.keys.sorted()).joined(separator: ", "))")
            }
        }
        let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first else { return }
        let (related, relatedRegistry) = try prefetchOne(first, of: owners, registry: registry, collectingTargets: parts.count == 2)
        if parts.count == 2, let relatedRegistry { try prefetch(parts[1], of: related, registry: relatedRegistry) }
    }

    /// Prefetches one relationship (a `@Reference` or `@Children` property) of `owners`; returns the related
    /// objects the owners now hold, and their registry (for the next step of a path; a reference's targets
    /// are only gathered when `collectingTargets`).
    private func prefetchOne(_ relationship: String, of owners: [ModelObject], registry: TypeRegistry,
                             collectingTargets: Bool) throws -> ([ModelObject], TypeRegistry?) {
        let metadata = registry.metadata
        for owner in owners where owner._registry != nil && owner._registry !== registry {
            throw ModelError(.foreignInstance, model: metadata.typeName, property: relationship,
                             "cannot prefetch for an instance that belongs to another database handle")
        }
        let attached = owners.allSatisfy { $0._registry != nil } ? owners : owners.filter { $0._registry != nil }
        if let children = metadata.childrenByName[relationship] {
            let loaded = try children.prefetch(attached, registry: registry, database: self)
            return (loaded, loaded.first?._registry)
        }
        let relationships = metadata.properties.filter { $0.related != nil }.map(\.name) + metadata.childrenByName.keys.sorted()
        let known = relationships.isEmpty ? "\(metadata.typeName) has no @Reference or @Children properties"
            : "its relationships are \(relationships.joined(separator: ", "))"
        guard let property = metadata.properties.first(where: { $0.name == relationship }) else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: relationship,
                             "cannot prefetch \"\(relationship)\": \(metadata.typeName) has no persistent property of that name; \(known)")
        }
        guard let related = property.related, case .generic(let io) = property.accessor else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: relationship,
                             "cannot prefetch \"\(relationship)\": it is a plain column, not a relationship; \(known)")
        }

        let generation = models.changeCount
        let pending = io.unresolvedKeys(of: attached, generation: generation)
        if !pending.distinct.isEmpty {
            try attachTargets(related, pending: pending, owners: attached, io: io, ownerType: metadata.type)
        }
        guard collectingTargets else { return ([], nil) }
        // What the owners hold now, each once (for the next step of a path).
        var seen: Set<ObjectIdentifier> = [], targets: [ModelObject] = []
        for owner in attached {
            if let target = io.heldTarget(of: owner), !target._isDeleted, seen.insert(ObjectIdentifier(target)).inserted {
                targets.append(target)
            }
        }
        return (targets, targets.first?._registry)
    }

    /// ``objects(_:where:_:)``, then ``prefetch(_:of:)-(String,_)`` for each named relationship or path of them:
    /// listing N employees with their departments costs 2 queries, N departments with their employees and
    /// those employees' managers (`"employees.manager"`) 3.
    ///
    /// ```swift
    /// let staff = try db.objects(Employee.self, where: "WHERE name LIKE ?", prefetching: ["department"], "A%")
    /// staff.map { $0.department?.name }                    // no further query
    /// ```
    @inlinable
    public func objects<T: Model>(_ type: T.Type, where clause: String = "", prefetching relationships: [String],
                                  _ arguments: any ColumnValue...) throws -> [T] {
        let result = try objects(type, where: clause, arguments: arguments)
        for relationship in relationships { try prefetch(relationship, of: result) }
        return result
    }

    /// Batched faulting: the first fault of a reference property loads that relationship for every live
    /// owner of the type at once (one `IN` query per chunk of keys), as ``prefetch(_:of:)`` does — so a
    /// loop over fetched objects that reads `employee.department` costs 2 queries, not one per
    /// department. It runs again only once at least half of the live owners are new since the last batch
    /// (so fetching and faulting one owner at a time beside many live ones stays one query per fault,
    /// never a scan each). Returns whether it ran; a failure is left to the single load that follows.
    func batchFaults(of owner: ModelObject, registry: TypeRegistry, relatedType: any Model.Type, key: SQLValue) -> Bool {
        let metadata = registry.metadata
        let candidates = metadata.properties.filter { $0.related.map(ObjectIdentifier.init) == ObjectIdentifier(relatedType) }
        let property = candidates.count == 1 ? candidates.first : candidates.first { candidate in
            guard case .generic(let io) = candidate.accessor else { return false }
            return io.unresolvedKey(of: owner, generation: models.changeCount) == key
        }
        guard let property else { return false }
        let last = registry.faultBatches[property.name] ?? 0
        let new = registry.registrations &- last
        guard new >= 2 else { return false }
        let owners = registry.liveInstances
        guard new * 2 >= owners.count else { return false }
        registry.faultBatches[property.name] = registry.registrations
        return (try? prefetchOne(property.name, of: owners, registry: registry, collectingTargets: false)) != nil
    }

    /// Loads the related rows for the pending keys that have no live instance (chunked `IN` queries), then
    /// hands each waiting owner its object, found through the related type's identity map.
    private func attachTargets(_ type: any Model.Type, pending: PrefetchKeys, owners: [ModelObject],
                               io: AnyFieldIO, ownerType: any Model.Type) throws {
        func load<R: Model>(_ type: R.Type) throws {
            let registry = try registry(for: R.self, checkingCommits: false)
            // Targets are handed out through the identity map, which a view read without identity has not:
            // each such reference resolves by its own lookup (a batched fault falls back to it).
            if registry.table.readsWithoutIdentity {
                throw ModelError(.invalidPrimaryKey, model: registry.metadata.typeName, property: registry.metadata.key.name,
                                 "references to a view whose key is not shown unique (\(registry.table.table)) cannot be prefetched: read each through its reference, or key the view by columns it carries from its table's primary key")
            }
            // (On another engine, also the live instances read before the handle's last raw write: read again.)
            let stale = remoteStaleKeys(pending.distinct, registry: registry)
            var missing = pending.distinct.filter { key in registry.instance(key: key).map { $0._isDeleted } ?? true || stale.contains(key) }
            // The keys are canonical; bound as the key column stores them (a UUID as 32 hex digits, say).
            if registry.table.formats[0] != .native { missing = missing.map(registry.table.formats[0].storedKey) }
            // A key another tool may store in another form (7 and '7', a UUID's two cases): in both.
            if registry.table.keyHasTwoForms { missing = missing.flatMap(registry.table.keyForms(ofStored:)) }
            let loaded = try modelObjects(registry: registry, quotedColumn: SQL.quote(registry.table.columns[0]), in: missing,
                                          orderBy: nil, distinct: true)
            remoteDetachGone(stale, loaded: loaded, registry: registry)
            // Owners hold their targets strongly (so a later read costs no query). Where the targets' type
            // could hold the owners back (the same type — a manager, a parent — or one with a relationship
            // to the owners' type), each pair is checked: a target that holds its owner already is held
            // weakly, so no cycle forms.
            let mayHoldBack = Self.canReach(ownerType, from: R.self)
            let aliases = try keyAliases(R.self, registry: registry, pending: pending, loaded: loaded)
            // `loaded` keeps the new instances alive until each owner holds its own.
            withExtendedLifetime(loaded) {
                io.attachPrefetched(pending, of: owners, from: registry, checkingHoldBack: mayHoldBack, generation: models.changeCount,
                                    aliases: aliases)
            }
        }
        try load(type)
    }

    /// The live instances of rows that keys of `pending` found though spelled otherwise than the rows store
    /// them (a reference holding "ada" to a `COLLATE NOCASE` key 'Ada'), by those keys: looked up one by one,
    /// as SQLite compares them, only when some row `loaded` is the instance of no key exactly.
    private func keyAliases<R: Model>(_ type: R.Type, registry: TypeRegistry, pending: PrefetchKeys,
                                      loaded: [ModelObject]) throws -> [SQLValue: ModelObject] {
        guard !registry.keyIsRowID, !loaded.isEmpty else { return [:] }
        var matched: Set<ObjectIdentifier> = []
        var unmatched: [SQLValue] = []
        for key in pending.distinct {
            if let live = registry.instance(key: key) { matched.insert(ObjectIdentifier(live)) } else { unmatched.append(key) }
        }
        guard !unmatched.isEmpty else { return [:] }
        var aliases: [SQLValue: ModelObject] = [:]
        let collation = registry.table.keyCollation
        if collation == .noCase || collation == .rtrim {
            // The key column's collation says which keys are one: a row loaded for 'Ada' is also the row of
            // 'ada' and 'ADA' pending beside it (no query).
            var byFolded: [SQLValue: ModelObject] = [:]
            for object in loaded { byFolded[collation.folded(try registry.metadata.key.accessor.load(object))] = object }
            for key in unmatched { if let found = byFolded[collation.folded(key)] { aliases[key] = found } }
            return aliases
        }
        // (A key spelled otherwise finds a row only some other key did not already: one loaded row no key
        // names exactly. Under an application's collation, any row may.)
        guard collation != .binary || loaded.contains(where: { !matched.contains(ObjectIdentifier($0)) }) else { return [:] }
        for key in unmatched {
            if let found = try object(R.self, forKey: key, checkingCommits: false) { aliases[key] = found }
        }
        return aliases
    }

    /// Whether objects of `start` can refer, through relationships (transitively), to objects of `target`
    /// (a type with ``Children`` counts as able to).
    private static func canReach(_ target: any Model.Type, from start: any Model.Type) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        var queue: [any Model.Type] = [start]
        while let type = queue.popLast() {
            if type == target { return true }
            guard seen.insert(ObjectIdentifier(type)).inserted, let metadata = try? ModelMetadata.of(type) else { continue }
            if !metadata.heldArrays.isEmpty { return true }   // @Children arrays may hold anything: check per object
            queue += metadata.properties.compactMap(\.related)
        }
        return false
    }

    /// Whether `count` owners are a large share of their table (a quarter or more of its rows, as its
    /// greatest rowid estimates them): a prefetch of their children then reads much of the child table,
    /// which one scan does faster than an index search per owner and a row lookup per child (with a sort
    /// on top for the declared order). At most 64 owners never are, and cost no estimate.
    func areMany(_ count: Int, of registry: TypeRegistry) throws -> Bool {
        guard count > 64, registry.table.hasRowID, !registry.table.isView else { return false }
        let statement = try registry.table.statement(.maxRowID, in: connection)
        defer { statement.reset() }
        guard try statement.step(), let greatest = statement.integer(at: 0) else { return false }
        return Int64(count) >= greatest / 4
    }
}

/// What a prefetch must load for a relationship of many owners: the owners whose field holds no live
/// object (indices in the owners' array) with their keys, integer keys apart (the common case, with no
/// ``SQLValue`` per owner), and each key once, in first-seen order. Gathered by the field's accessor in
/// one pass (``AnyFieldIO/unresolvedKeys(of:generation:)``).
struct PrefetchKeys {
    var integerOwners: [Int] = []
    var integerKeys: [Int64] = []
    var otherOwners: [Int] = []
    var otherKeys: [SQLValue] = []
    /// Each key once, in first-seen order.
    var distinct: [SQLValue] = []
}
