// After this handle's own migrations on an engine other than SQLite (`Migrator.migrate`, an erase included):
// what SQLite's `followOwnSchemaChange()` does there, where no schema version says the schema moved.
extension Database {
    /// Every model in use syncs its table again (made again when an erase dropped it) and maps it anew, and
    /// every live instance reads its row again: brought up to date (an unsaved change over a value that
    /// moved is a conflict), or marked deleted when its row is gone. Loaded `@Children`/`@Siblings` arrays
    /// are dropped.
    func remoteFollowSchemaChange<C: RemoteConnection>(_ remote: C) throws {
        let registries = Array(models.registries.values)
        guard !registries.isEmpty else { return }
        models.changeCount &+= 1
        // (The texts each instance read, every column, under the mapping it read them with: the columns
        // spelled from the snapshot may differ under the new one.)
        var known: [ObjectIdentifier: [String?]] = [:]
        for registry in registries {
            for object in registry.liveInstances where !object._isDeleted {
                if let texts = remoteKnownTexts(object, registry: registry) { known[ObjectIdentifier(object)] = texts }
            }
        }
        try mapped(remote) {
            let schema = try EngineSchemaSync.syncAtomicallyReading(registries.map { $0.metadata.type }, on: remote,
                                                                   introspect: remote.introspector).schema
            for registry in registries {
                let (mapping, info) = try remoteMapping(remote, registry.metadata, schema: schema)
                registry.table = mapping
                remoteConfigure(registry, info: info)
            }
        }
        for registry in registries {
            let live = registry.liveInstances.filter { !$0._isDeleted && known[ObjectIdentifier($0)] != nil }
            guard !live.isEmpty else { continue }
            for object in live { remoteKeep(known[ObjectIdentifier(object)] ?? [], for: object, registry: registry) }
            let found = try remoteReread(remote, live, registry: registry)
            for object in live where !found.contains(ObjectIdentifier(object)) { registry.detach(object, deleted: true) }
        }
        dropAllLoadedArrays()
    }
}
