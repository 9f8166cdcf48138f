extension Database {
    /// Resolves one ``Reference`` property of many owners at once: the distinct keys that have no
    /// live instance are loaded in one `IN (...)` query per chunk of ``maximumArguments`` keys, and each
    /// owner keeps its object (for as long as the owner lives), so reading the property afterwards runs
    /// no query. A key with no row reads as nil afterwards, also without a query, and
    /// `$property.load()` throws ``ModelError/Kind/notFound`` for it. Owners that already hold a live
    /// related object, or that are not attached to a database, are left as they are.
    ///
    /// ```swift
    /// let staff = try db.objects(Employee.self)            // 1 query
    /// try db.prefetch("department", of: staff)             // 1 query, whatever the number of employees
    /// for employee in staff { print(employee.department?.name ?? "-") }   // no query
    /// ```
    ///
    /// Throws ``ModelError/Kind/unknownProperty`` when `relationship` is not a `@Reference` property of
    /// `T`, and ``ModelError/Kind/foreignInstance`` for an owner of another database handle.
    @inlinable
    public func prefetch<T: Model>(_ relationship: String, of owners: [T]) throws {
        // [T] to [ModelObject] is a free upcast; the work below then runs unspecialized code no slower.
        try prefetch(relationship, of: owners as [ModelObject], registry: registry(for: T.self))
    }

    @usableFromInline
    func prefetch(_ relationship: String, of owners: [ModelObject], registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let relationships = metadata.properties.filter { $0.related != nil }.map(\.name)
        let known = relationships.isEmpty ? "\(metadata.typeName) has no @Reference properties"
            : "its @Reference properties are \(relationships.joined(separator: ", "))"
        guard let property = metadata.properties.first(where: { $0.name == relationship }) else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: relationship,
                             "cannot prefetch \"\(relationship)\": \(metadata.typeName) has no persistent property of that name; \(known)")
        }
        guard let related = property.related, case .generic(let io) = property.accessor else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: relationship,
                             "cannot prefetch \"\(relationship)\": it is a plain column, not a relationship; \(known)")
        }

        var pending: [(owner: ModelObject, key: SQLValue)] = []
        pending.reserveCapacity(owners.count)
        var keys: [SQLValue] = []
        var seenIntegers = Set<Int64>(), seenOthers = Set<SQLValue>()
        for owner in owners {
            guard let ownerRegistry = owner._registry else { continue }
            guard ownerRegistry === registry else {
                throw ModelError(.foreignInstance, model: metadata.typeName, property: relationship,
                                 "cannot prefetch for an instance that belongs to another database handle")
            }
            guard let key = io.unresolvedKey(of: owner, generation: models.changeCount) else { continue }
            pending.append((owner, key))
            let isNew: Bool
            if case .integer(let value) = key { isNew = seenIntegers.insert(value).inserted } else { isNew = seenOthers.insert(key).inserted }
            if isNew { keys.append(key) }
        }
        guard !pending.isEmpty else { return }
        try attachTargets(related, keys: keys, pending: pending, io: io, ownerType: metadata.type)
    }

    /// ``objects(_:where:_:)``, then ``prefetch(_:of:)`` for each named relationship: listing N employees
    /// with their departments costs 2 queries.
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

    /// Loads the related rows for `keys` that have no live instance (chunked `IN` queries), then hands
    /// each pending owner its object, found through the related type's identity map.
    private func attachTargets(_ type: any Model.Type, keys: [SQLValue], pending: [(owner: ModelObject, key: SQLValue)],
                               io: AnyFieldIO, ownerType: any Model.Type) throws {
        func load<R: Model>(_ type: R.Type) throws {
            let registry = try registry(for: R.self, checkingCommits: false)
            let missing = keys.filter { key in registry.instance(key: key).map { $0._isDeleted } ?? true }
            let loaded = try objects(R.self, registry: registry, column: registry.table.columns[0], in: missing)
            // Owners hold their targets strongly (so a later read costs no query). Where the targets' type
            // could hold the owners back (the same type — a manager, a parent — or one with a relationship
            // to the owners' type), each pair is checked: a target that holds its owner already is held
            // weakly, so no cycle forms.
            let mayHoldBack = Self.canReach(ownerType, from: R.self)
            let generation = models.changeCount
            // `loaded` keeps the new instances alive until each owner holds its own.
            withExtendedLifetime(loaded) {
                for (owner, key) in pending {
                    let found = registry.instance(key: key)
                    let target = found?._isDeleted == false ? found : nil
                    let strongly = target.map { !mayHoldBack || !StrongHolds.reaches(from: $0, to: owner) } ?? false
                    io.attachPrefetched(target, to: owner, strongly: strongly, generation: generation)
                }
            }
        }
        try load(type)
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
}
