// ``Database/upsert(_:)`` on another engine: the row by primary key (or the model's upsert keys) is found,
// and its live instance takes the object's values and is saved (an UPDATE of what differs, guarded like any
// save there); no row: the object is inserted. One transaction: all or nothing.
extension Database {
    @inline(never)
    func remoteUpsert<T: Model>(_ object: T) throws -> T {
        guard let remote else { return object }
        let registry = try remoteRegistry(remote, for: T.self)
        return unsafeDowncast(try remoteUpsert(remote, object, registry: registry), to: T.self)
    }

    private func remoteUpsert<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws -> ModelObject {
        let metadata = registry.metadata
        if object._registry != nil {
            try remoteObservedAlone(remote) { try remoteSave(remote, object, registry: registry) }
            return object
        }
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        if object._isDeleted {
            throw ModelError(.deleted, model: metadata.typeName, "the instance was deleted; make a new one to insert the row again")
        }
        // The live instance's values before it takes `object`'s, for a failure to give back.
        var merged: (live: ModelObject, values: [(index: Int, value: SQLValue)])?
        do {
            return try remoteTransaction(remote, .immediate) {
                guard let live = try remoteRowToUpsert(remote, object, registry: registry) else {
                    try remoteSave(remote, object, registry: registry)
                    return object
                }
                merged = (live, try values(of: live, registry: registry))
                try copyValues(of: object, into: live, registry: registry)
                try remoteSave(remote, live, registry: registry)
                return live
            }
        } catch {
            if let (live, values) = merged, live._registry === registry, !live._isDeleted {
                for (index, value) in values { try? metadata.properties[index].accessor.store(value, into: live) }
                if let notify = metadata.observationNotifier { notify(live) }
            }
            throw error
        }
    }

    /// The live instance (read now when none is, or when raw SQL may have changed it) of the row `object`
    /// upserts: by the model's upsert keys when it declares them, else by primary key; nil when there is none.
    private func remoteRowToUpsert<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws -> ModelObject? {
        let metadata = registry.metadata, table = registry.table
        guard !metadata.upsertKeys.isEmpty else {
            let key = try metadata.key.accessor.load(object)
            if metadata.keyIsInteger, key == .integer(0) || key.isNull { return nil }
            if metadata.keyCount > 1, try CompositeKey(sqlValue: key).values.contains(where: \.isNull) { return nil }
            if key.isNull { return nil }
            return try remoteObject(remote, registry: registry, key: key)
        }
        let conditions = metadata.upsertKeys.map { "\(table.quotedNames[$0]) = ?" }.joined(separator: " AND ")
        let arguments: [any ColumnValue] = try metadata.upsertKeys.map { try remoteValue(object, metadata.properties[$0], table.formats[$0], model: metadata.typeName) }
        let found = try remoteObjects(remote, registry: registry, sql: table.selectFromSQL + " WHERE " + conditions + " LIMIT 2", arguments: arguments)
        if found.count > 1 {
            let names = metadata.upsertKeys.map { metadata.properties[$0].name }
            let keys = found.compactMap { try? metadata.key.accessor.load($0) }
            throw ModelError(.duplicateKey, model: metadata.typeName, key: keys.first, properties: names,
                             "the values of \(names.joined(separator: ", ")) match more than one row of \"\(table.table)\" (keys \(keys.map { "\($0)" }.joined(separator: " and "))), so they name no single row to upsert; nothing was written. Make them unique (a UNIQUE index over them) or remove the duplicate rows")
        }
        return found.first
    }
}
