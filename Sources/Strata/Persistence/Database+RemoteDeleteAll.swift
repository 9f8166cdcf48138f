import Foundation

// `deleteAll` on an engine other than SQLite, which has no update hook to tell which rows a DELETE removed.

extension Database {
    /// ``deleteAll(_:where:arguments:)`` on another engine: `DELETE … RETURNING` the key columns, so that the
    /// live instances of the rows it removed become `isDeleted` at once, as SQLite's update hook makes them
    /// (a rollback of the enclosing transaction brings them back). As raw SQL, it marks the other live
    /// instances to read their rows again (the engine's cascades may have changed them). Returns the count.
    func remoteDeleteAll<C: RemoteConnection>(_ remote: C, registry: TypeRegistry, clause: String,
                                              arguments: [any ColumnValue]) throws -> Int {
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        let table = registry.table
        let keys = table.quotedNames.prefix(table.keyCount).joined(separator: ", ")
        let rows = try remoteRows(remote, "DELETE FROM \(table.quotedTable) \(clause) RETURNING \(keys)", arguments: arguments)
        for row in rows {
            let key = table.keyCount == 1 ? row.values[0] : CompositeKey(values: row.values).sqlValue
            guard let object = registry.instance(key: key), !object._isDeleted else { continue }
            if remoteWriteDepth > 0 {
                models.remoteWrites.append((object, registry, inserted: false, keyAssigned: false, depth: remoteWriteDepth))
            }
            registry.detach(object, deleted: true)
        }
        return rows.count
    }
}
