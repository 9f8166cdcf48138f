// The insert of a new instance of a model of 8-byte numbers whose key SQLite assigns, inside a transaction:
// the common bulk insert, on a path of its own (the general one is `insert(_:registry:)`).
extension Database {
    /// Whether `object`, new, takes ``insertPlainWords(_:registry:start:)``: its model's fields are 8-byte
    /// numbers (``TypeRegistry/insertsPlainWords``) and its key is 0, for SQLite to assign. The caller knows
    /// that a transaction is open.
    @inline(__always)
    func insertsPlainWords(_ object: ModelObject, registry: TypeRegistry) -> Bool {
        guard registry.insertsPlainWords, object._registry == nil, !object._isDeleted, object._snapshotSlot == 0,
              let start = registry.metadata.plainWordsStart else { return false }
        return loadPlainWord(object, start: start, index: 0) == 0
    }

    /// The INSERT of every column but the key, whose rowid the instance then holds; the instance is registered,
    /// its snapshot taken, and the insert noted for a rollback, as ``insert(_:registry:)`` does for such an
    /// instance (which it checked: see ``insertsPlainWords(_:registry:)``), with what cannot apply left out.
    @inline(never)
    func insertPlainWords(_ object: ModelObject, registry: TypeRegistry) throws {
        let count = registry.metadata.properties.count
        guard let start = registry.metadata.plainWordsStart else { return try insert(object, registry: registry) }
        // (Reset before its binds, as every per-row statement: the cache is the one `statement(_:)` serves, so a
        // caller's statement of the same text may be left halted, and binds to it would fail unseen.)
        let statement = try registry.table.statement(.insertWithoutKey, in: connection)
        let reals = registry.plainRealMask
        do {
            var parameter: Int32 = 1
            for i in 1..<count {
                if !bindPlainWord(object, start: start, index: i, isReal: reals & (1 << UInt64(i)) != 0, to: statement, at: parameter) {
                    try bindConverting(object, property: i, to: statement, at: parameter, registry: registry)
                }
                parameter += 1
            }
            try ownWrite(registry: registry, rowID: 0, insert: true, inTransaction: true) {
                defer { statement.reset() }
                while try statement.step() {}
            }
        } catch {
            throw saveFailed(error, object: object, registry: registry, updating: nil, written: ColumnSet(1..<count))
        }
        // (A trigger's RAISE(IGNORE) is ruled out, but an ON CONFLICT IGNORE constraint is not.)
        if connection.changes == 0 { throw writeIgnored(registry, key: nil) }
        let rowID = connection.lastInsertedRowID
        storePlainWord(UInt64(bitPattern: rowID), into: object, start: start, index: 0)
        registry.register(inserted: object, rowID: rowID)
        registry.capturePlainWords(new: object, start: start)
        // ``noteInserted(_:registry:keyWasAssigned:adoptedFromKey:)``, in the transaction the caller knows is open.
        models.changeCount &+= 1
        if registry.hasParentArrays { registry.dropParentsArrays(of: object, holdingIt: false) }
        models.insertedInTransaction.append(InsertedInstance(object: object, depth: transactionDepth, keyWasAssigned: true))
    }
}
