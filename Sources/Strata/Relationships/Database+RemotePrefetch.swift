// Relationships on an engine other than SQLite (a ``RemoteConnection``, PostgreSQL's): the key lists of
// prefetch, batched faults and `@Children` prefetch bound as one array parameter (`"column" = ANY($1)`), so
// each level is one statement whatever the number of keys.
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
               models.remoteReadAt[ObjectIdentifier(live)] != models.remoteRawWrites { stale.insert(key) }
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
