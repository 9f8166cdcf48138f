// Relationships on an engine other than SQLite (a ``RemoteConnection``, PostgreSQL's): the key lists of
// prefetch, batched faults and `@Children` prefetch bound as one array parameter (`"column" = ANY($1)`), so
// each level is one statement whatever the number of keys; the live instances a cascade deleted or emptied,
// which the engine does not report (SQLite's update hook does).
extension Database {
    // MARK: Key lists

    /// ``modelObjects(registry:quotedColumn:in:orderBy:distinct:)`` on the engine: the objects whose
    /// `quotedColumn` holds one of `values`, in `orderBy` order, through one statement with the keys bound
    /// as one array (out of line: SQLite's path tests ``isRemote`` only).
    @inline(never)
    func remoteModelObjects(registry: TypeRegistry, quotedColumn: String, in values: [SQLValue], orderBy: String?) throws -> [ModelObject] {
        guard let remote, !values.isEmpty else { return [] }
        return try remoteModelObjects(remote, registry: registry, quotedColumn: quotedColumn, in: values, orderBy: orderBy)
    }

    private func remoteModelObjects<C: RemoteConnection>(_ remote: C, registry: TypeRegistry, quotedColumn: String,
                                                         in values: [SQLValue], orderBy: String?) throws -> [ModelObject] {
        guard let condition = remote.dialect.anyKey(quotedColumn, parameter: 1) else {
            throw DatabaseError(code: .misuse, message: "\(remote.engineName) has no key arrays: \(registry.metadata.typeName)'s relationships cannot be loaded by key list")
        }
        let sql = registry.table.selectFromSQL + " WHERE " + condition + (orderBy.map { " ORDER BY " + $0 } ?? "")
        return try mapped(remote) {
            let statement = try remote.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(values: [remote.dialect.keyArray(values)])
            var objects: [ModelObject] = []
            while try statement.step() { objects.append(try remoteObject(from: statement, registry: registry)) }
            models.pruneRemoteRows()
            return objects
        }
    }

    /// On the engine, the keys of `pending` whose live instance read its row before the handle's last raw
    /// write (``ModelContext/remoteRawWrites``): a prefetch reads them again, as a lookup by key does.
    /// Empty on SQLite, whose live instances are always up to date.
    func remoteStaleKeys(_ keys: [SQLValue], registry: TypeRegistry) -> Set<SQLValue> {
        guard isRemote, models.remoteRawWrites != 0 else { return [] }
        var stale: Set<SQLValue> = []
        for key in keys {
            if let live = registry.instance(key: key), !live._isDeleted,
               remoteReadAt(live, registry: registry) != models.remoteRawWrites { stale.insert(key) }
        }
        return stale
    }

    /// After a prefetch read the rows of `stale` keys again: the live instances of those whose row is gone
    /// are marked deleted (the owners then hold nothing for them).
    func remoteDetachGone(_ stale: Set<SQLValue>, loaded: [ModelObject], registry: TypeRegistry) {
        guard !stale.isEmpty else { return }
        let found = Set(loaded.map(ObjectIdentifier.init))
        for key in stale {
            if let live = registry.instance(key: key), !live._isDeleted, !found.contains(ObjectIdentifier(live)) {
                registry.detach(live, deleted: true)
            }
        }
    }

    // MARK: Cascades

    /// After the engine deleted the rows of `keys` of `registry`'s table: the live instances whose
    /// `@Reference(onDelete: .cascade)` or `.setNull` held one of those keys read their rows again in one
    /// statement per model (by key): those the cascade deleted are marked deleted (and their own cascades
    /// followed), those it emptied take the NULL, as SQLite's update hook has it. References declared
    /// without an action cost nothing here (the engine refuses the delete, or leaves the key dangling).
    func remoteFollowCascades<C: RemoteConnection>(_ remote: C, deleted registry: TypeRegistry, keys: [SQLValue]) throws {
        var work: [(registry: TypeRegistry, keys: Set<SQLValue>)] = [(registry, Set(keys))]
        var rounds = 0
        while let (parent, parentKeys) = work.popLast(), rounds < 64 {
            rounds += 1
            for child in models.registries.values {
                let references = child.metadata.properties.enumerated().filter { _, property in
                    (property.onDelete == .cascade || property.onDelete == .setNull)
                        && property.related.map(ObjectIdentifier.init) == ObjectIdentifier(parent.metadata.type)
                }
                guard !references.isEmpty else { continue }
                var candidates: [ModelObject] = []
                // (Each live instance keeps its row's texts: the key it is read again by.)
                for object in child.liveInstances where !object._isDeleted && remoteKeptTexts(object, registry: child) != nil {
                    if references.contains(where: { _, property in (try? property.accessor.load(object)).map(parentKeys.contains) == true }) {
                        candidates.append(object)
                    }
                }
                guard !candidates.isEmpty else { continue }
                let found = try remoteReread(remote, candidates, registry: child)
                var gone: Set<SQLValue> = []
                for object in candidates where !found.contains(ObjectIdentifier(object)) {
                    if let key = try? child.checkedKey(of: object) { gone.insert(key) }
                    if remoteWriteDepth > 0 { models.remoteWrites.append((object, child, inserted: false, keyAssigned: false, depth: remoteWriteDepth)) }
                    child.detach(object, deleted: true)
                }
                if !gone.isEmpty { work.append((child, gone)) }
            }
        }
    }

    /// Reads the rows of live `objects` of `registry` again (brought up to date by the fetch's merge), in
    /// one statement per chunk (`key = ANY($1)` for a single key; row values for a composite one); returns
    /// the instances whose row is still there.
    func remoteReread<C: RemoteConnection>(_ remote: C, _ objects: [ModelObject], registry: TypeRegistry) throws -> Set<ObjectIdentifier> {
        let table = registry.table
        var keys: [[SQLValue]] = []
        for object in objects {
            guard let texts = remoteKnownTexts(object, registry: registry) else { continue }
            keys.append(texts.prefix(table.keyCount).map { $0.map(SQLValue.text) ?? .null })
        }
        var found: Set<ObjectIdentifier> = []
        if table.keyCount == 1, remote.dialect.anyKey(table.quotedNames[0], parameter: 1) != nil {
            // (The keys as the engine spelled them, bound as text: the array takes the column's type.)
            for object in try remoteModelObjects(remote, registry: registry, quotedColumn: table.quotedNames[0],
                                                 in: keys.map { $0[0] }, orderBy: nil) {
                found.insert(ObjectIdentifier(object))
            }
            return found
        }
        let columns = "(" + table.quotedNames.prefix(table.keyCount).joined(separator: ", ") + ")"
        let tuple = "(" + SQL.placeholders(table.keyCount) + ")"
        let perStatement = max(1, max(1, remote.maximumParameterCount) / table.keyCount)
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + perStatement, keys.count)]
            let sql = table.selectFromSQL + " WHERE " + columns + " IN (" + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + ")"
            for object in try remoteObjects(remote, registry: registry, sql: sql, arguments: chunk.joined().map { $0 as any ColumnValue }) {
                found.insert(ObjectIdentifier(object))
            }
            start += perStatement
        }
        return found
    }

    // MARK: Join tables

    /// After `@Siblings` wrote a pair to `joinTable` on the engine: every loaded array over the join table
    /// (the other side's, say) is dropped, as SQLite's update hook has a write to it do; the writer then
    /// sets its own array.
    func remoteJoinTableWritten(_ joinTable: String) {
        guard isRemote else { return }
        for (owners, array) in models.arraysByJoinTable[joinTable.sqlFolded] ?? [] {
            for owner in owners.arrayOwners() { array.invalidate(of: owner) }
        }
    }
}
