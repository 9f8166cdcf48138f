import Foundation

// After a rollback (of a transaction or a savepoint): live instances hold the database's values again,
// inserted ones become unsaved, and WITHOUT ROWID tables, which the update hook never reports, are reread.

extension Database {
    /// After a rollback (of the whole transaction, `toDepth` 0, or of the savepoint opened at `toDepth`):
    /// instances inserted in the rolled-back part become unsaved again (keys SQLite assigned go back to
    /// 0), and every other live instance, and those deleted in the transaction, hold the database's values.
    func restoreLiveInstancesAfterRollback(toDepth depth: Int) {
        // (A whole-transaction rollback's undone changes went when its hook fired: those pending now came
        // after it. A savepoint's rollback fires no hook.)
        if depth > 0 {
            models.pending.removeAll()
            models.pendingCommitted = 0
        }
        models.rolledBack = false
        // A schema sync inside the rolled-back part is undone too: sync again on next use.
        checkSchemaVersion()
        // First the inserts, so that a rowid they took and the rollback freed cannot be mistaken for theirs.
        let undone = models.insertedInTransaction.filter { $0.depth >= depth }
        models.insertedInTransaction.removeAll { $0.depth >= depth }
        for insert in undone {
            guard let registry = insert.object._registry else { continue }
            makeUnsaved(insert, registry: registry)
        }
        let live = liveAndDeletedInstances()
        if !undone.isEmpty { releaseUndoneInserts(undone.map(\.object), heldBy: live) }
        var refused: Set<ObjectIdentifier> = []
        if !models.refusedInTransaction.isEmpty {
            for (id, entry) in models.refusedInTransaction where entry.depth >= depth { refused.insert(id) }
            for id in refused { models.refusedInTransaction[id] = nil }
        }
        refreshAfterRollback(live, discarding: refused)
        if !isInTransaction {
            models.refusedInTransaction.removeAll()
            models.childTypesWrittenInTransaction.removeAll()
            releaseSnapshotsOfDeleted()
            models.insertedInTransaction.removeAll()
        }
    }

    /// After a `ROLLBACK TO` of raw SQL: the changes recorded for observers in the transaction are checked
    /// against the rows, since which of them the rollback undid SQLite does not say. A row reported
    /// inserted that is gone, or reported deleted that is there, is no longer reported. (An update the
    /// rollback undid cannot be told from one it kept, and stays reported.)
    private func dropUndoneChanges() {
        for (key, recorded) in models.transactionChanges {
            // (A change with no rows at all stands for a WITHOUT ROWID table's: it cannot be checked.)
            guard !recorded.insertedRowIDs.isEmpty || !recorded.updatedRowIDs.isEmpty || !recorded.deletedRowIDs.isEmpty else { continue }
            var change = recorded
            let name = rowIDName(of: change.table)
            for rowID in change.insertedRowIDs where !rowExists(table: change.table, rowIDName: name, rowID: rowID) {
                change.insertedRowIDs.remove(rowID)
                change.updatedProperties[rowID] = nil
                change.unknownProperties.remove(rowID)
            }
            for rowID in change.deletedRowIDs where rowExists(table: change.table, rowIDName: name, rowID: rowID) {
                change.deletedRowIDs.remove(rowID)
            }
            let rowsLeft = !change.insertedRowIDs.isEmpty || !change.updatedRowIDs.isEmpty || !change.deletedRowIDs.isEmpty
            models.transactionChanges[key] = rowsLeft ? change : nil
        }
    }

    /// At the end of a transaction: the instances deleted in it that stay deleted let go of the snapshots
    /// they kept for a rollback (``TypeRegistry/detach(_:deleted:)``).
    func releaseSnapshotsOfDeleted() {
        for object in models.deletedInTransaction.values where object._isDeleted { object._registry?.releaseSnapshot(object) }
        models.deletedInTransaction.removeAll()
        models.deletionOrder.removeAll()
    }

    /// Every live instance, and those deleted in the open transaction (which a rollback may bring back),
    /// the most recently deleted first (see ``ModelContext/deletionOrder``).
    private func liveAndDeletedInstances() -> [(ModelObject, TypeRegistry)] {
        var live: [(ModelObject, TypeRegistry)] = []
        for registry in models.registries.values {
            live += registry.liveInstances.map { ($0, registry) }
        }
        var seen = Set<ObjectIdentifier>()
        for id in models.deletionOrder.reversed() where seen.insert(id).inserted {
            if let object = models.deletedInTransaction[id], let registry = object._registry, object._isDeleted {
                live.append((object, registry))
            }
        }
        return live
    }

    /// After raw SQL that may have rolled back to a savepoint of its own (`ROLLBACK TO x`), which SQLite's
    /// rollback hook does not report, inside a transaction that goes on: instances inserted in the
    /// transaction whose rows are gone become unsaved again (keys SQLite assigned go back to 0), and every
    /// other live instance, and those deleted in the transaction, hold the database's values again.
    func restoreLiveInstancesAfterPartialRollback() {
        models.pending.removeAll()
        models.pendingCommitted = 0
        checkSchemaVersion()
        if !models.transactionChanges.isEmpty { dropUndoneChanges() }
        var kept: [InsertedInstance] = []
        var undone: [ModelObject] = []
        for insert in models.insertedInTransaction {
            guard let registry = insert.object._registry else { continue }
            // An adopted row existed before: its adoption was undone when the row no longer holds what the
            // adopting UPDATE wrote.
            let stands = insert.adoptedFromKey == nil ? rowExists(of: insert.object, registry: registry)
                : rowHoldsSnapshot(of: insert.object, registry: registry)
            if stands {
                kept.append(insert)
            } else {
                makeUnsaved(insert, registry: registry)
                undone.append(insert.object)
            }
        }
        models.insertedInTransaction = kept
        let live = liveAndDeletedInstances()
        if !undone.isEmpty { releaseUndoneInserts(undone, heldBy: live) }
        refreshAfterRollback(live)
    }

    /// Every instance of `live` reads its row again after a rollback; one the rollback brought back from
    /// deleted drops the loaded arrays of its parents (loaded without it meanwhile), and the loaded
    /// many-to-many arrays are dropped.
    private func refreshAfterRollback(_ live: [(ModelObject, TypeRegistry)], discarding refused: Set<ObjectIdentifier> = []) {
        for (object, registry) in live {
            let wasDeleted = object._isDeleted
            // Deleted before the part rolled back, and its key saved again by another instance whose insert
            // stands: the row is that instance's, and this one stays deleted.
            if wasDeleted && rowHasAnotherInstance(object, registry: registry) { continue }
            // An instance whose save the rolled-back block tried and failed drops the changes it made for it.
            refresh(object, registry: registry, !refused.isEmpty && refused.contains(ObjectIdentifier(object)) ? .discard : .rollback)
            if wasDeleted && !object._isDeleted && registry.hasParentArrays {
                registry.dropParentsArrays(of: object, holdingIt: false)
            }
        }
        dropJoinTableArrays(of: live)
        // Rows of child types the rolled-back part wrote may be back under parents whose arrays were loaded
        // meanwhile, with no live instance to find them by. (Kept for the transaction: a savepoint's writes
        // are not told apart from the rest.)
        for registry in models.registries.values where models.childTypesWrittenInTransaction.contains(ObjectIdentifier(registry)) {
            registry.dropEveryParentsArrays()
        }
    }

    /// Whether a live instance other than `object` (one deleted in the transaction) stands for its row:
    /// one inserted with the same key after the delete.
    private func rowHasAnotherInstance(_ object: ModelObject, registry: TypeRegistry) -> Bool {
        func other(_ found: ModelObject?) -> Bool { found.map { $0 !== object && !$0._isDeleted } ?? false }
        if registry.table.keyIsRowID { return other(registry.instance(rowID: object._rowID)) }
        guard let key = try? registeredKeyValue(of: object, registry: registry) else { return false }
        return other(registry.instance(key: key))
    }

    /// After a rollback: the loaded many-to-many arrays (``Siblings``) of `live` are dropped, and read
    /// again next time, since what the rollback undid in their join tables (an `add` or `remove`) no
    /// live instance shows.
    private func dropJoinTableArrays(of live: [(ModelObject, TypeRegistry)]) {
        for (object, registry) in live {
            for array in registry.metadata.heldArrays where array.droppedOnRollback { array.invalidate(of: object) }
        }
    }

    /// The statement that selects the row of a live instance, bound (the caller steps and resets it): by
    /// rowid when the key is the rowid, else by the key the instance was registered under (its rowid may
    /// have changed, e.g. through INSERT OR REPLACE).
    func selectRow(of object: ModelObject, registry: TypeRegistry) throws -> Statement {
        let table = registry.table
        if table.keyIsRowID {
            let statement = try table.statement(.selectByRowID, in: connection)
            try statement.bind(values: [.integer(object._rowID)])
            return statement
        }
        let statement = try table.statement(.selectByKey, in: connection)
        try table.bindKey(registeredKeyValue(of: object, registry: registry), to: statement, at: 1)
        return statement
    }

    /// An instance whose insert (or adoption of a row) a rollback undid: unsaved again, with the key it had
    /// before (0 where SQLite assigned it).
    private func makeUnsaved(_ insert: InsertedInstance, registry: TypeRegistry) {
        if registry.hasParentArrays { registry.dropParentsArrays(of: insert.object, holdingIt: true) }
        // An object with no row has no children nor links: the arrays it loaded in the undone part go.
        for array in registry.metadata.heldArrays { array.invalidate(of: insert.object) }
        registry.detach(insert.object, deleted: false)
        let key = registry.metadata.key.accessor
        if let own = insert.adoptedFromKey {
            try? key.store(own, into: insert.object)
        } else if insert.keyWasAssigned {
            try? key.store(.integer(0), into: insert.object)
        }
    }

    /// Whether the row of a live instance holds every value of its snapshot (true when it cannot tell).
    private func rowHoldsSnapshot(of object: ModelObject, registry: TypeRegistry) -> Bool {
        do {
            let statement = try selectRow(of: object, registry: registry)
            defer { statement.reset() }
            guard try statement.step() else { return false }
            let fresh = registry.metadata.makeInstance()
            try decodeRow(statement, into: fresh, registry: registry)
            for i in 0..<registry.metadata.properties.count {
                guard let remembered = registry.rememberedWord(of: object, at: i) else { return true }
                if !registry.refreshWord(of: fresh, at: i).matches(remembered) { return false }
            }
            return true
        } catch {
            return true
        }
    }

    /// Whether the row of a live instance exists (true when it cannot tell).
    func rowExists(of object: ModelObject, registry: TypeRegistry) -> Bool {
        do {
            let statement = try selectRow(of: object, registry: registry)
            defer { statement.reset() }
            return try statement.step()
        } catch {
            return true
        }
    }

    /// SQLite's update hook is silent for WITHOUT ROWID tables, so after raw SQL that changed rows, live
    /// instances of models on such tables are all reloaded (or marked deleted), and the loaded arrays of
    /// their parents are read again (a row may have been inserted).
    func refreshWithoutRowIDInstances() {
        for registry in models.registries.values where !registry.table.hasRowID {
            for object in registry.liveInstances { refresh(object, registry: registry) }
            if registry.hasParentArrays {
                registry.dropEveryParentsArrays()
                if isInTransaction { models.childTypesWrittenInTransaction.insert(ObjectIdentifier(registry)) }
            }
        }
    }

    /// After raw SQL that changed rows: the loaded ``Siblings`` arrays over a WITHOUT ROWID join table are
    /// dropped (the update hook says nothing of its rows).
    func dropArraysOverJoinTablesWithoutRowID() {
        guard !models.arraysByJoinTable.isEmpty, let version = try? schemaVersion() else { return }
        if models.joinTablesWithoutRowID?.version != version {
            // A table without a rowid (or none yet) does not prepare a SELECT of it.
            // (A WITHOUT ROWID table with a column named rowid prepares one: hasRowID reads its CREATE too.)
            let names = models.arraysByJoinTable.keys.filter { !hasRowID($0) }
            models.joinTablesWithoutRowID = (version, names)
        }
        for name in models.joinTablesWithoutRowID?.names ?? [] {
            for (owners, array) in models.arraysByJoinTable[name] ?? [] {
                for owner in owners.arrayOwners() { array.invalidate(of: owner) }
            }
        }
    }

    /// After the library's own write to the table of `writer`: the live instances of WITHOUT ROWID tables it
    /// may have changed unreported are reloaded: those of other model types over the same table, those a
    /// trigger of that table may write, and, for a delete, those whose foreign keys point at it (ON DELETE
    /// CASCADE / SET NULL / SET DEFAULT), at any depth: through the rows the cascade deleted in other tables
    /// (the update hook reported them) and through the tables of those instances in turn. (The row the
    /// writer wrote is its caller's to update — `object`, when given, is left alone; its other instances are
    /// reloaded when a delete may have cascaded back into its own table: a self-referencing tree, or a cycle
    /// through other tables, or when the table has triggers, which may write its other rows.)
    func refreshWithoutRowIDInstances(affectedBy writer: TypeRegistry, deleting: Bool, inserting: Bool = false, writing object: ModelObject? = nil) {
        let parent = writer.table.lowercasedName
        // The tables whose rows a delete removed, directly or by cascade: their children may cascade too.
        var deleted: Set<String> = [parent]
        if deleting {
            var last = ""
            for change in models.pending where change.operation == .delete && change.table != last {
                last = change.table
                deleted.insert(last.sqlFolded)
            }
        }
        let ownTriggers = inserting ? writer.table.hasInsertTriggers : deleting ? writer.table.hasDeleteTriggers : writer.table.hasUpdateTriggers
        var waiting = models.registries.values.filter { !$0.table.hasRowID && ($0 !== writer || deleting || ownTriggers) }
        var found = true
        while found {
            found = false
            for (index, registry) in waiting.enumerated().reversed() {
                if registry === writer {
                    // Its own rows go only by a cascade that reached its table again, or change by its triggers.
                    guard ownTriggers || !registry.table.parentTables.isDisjoint(with: deleted) else { continue }
                } else {
                    guard registry.table.lowercasedName == parent || (deleting && !registry.table.parentTables.isDisjoint(with: deleted))
                        || (!writer.table.triggerSQL.isEmpty && writer.table.triggersMayWrite(registry.table.table)) else { continue }
                }
                waiting.remove(at: index)
                found = true
                for live in registry.liveInstances where !live._isDeleted && live !== object { refresh(live, registry: registry) }
                // The cascade may have deleted rows of this table (unreported): its own children may have gone too.
                if deleting { deleted.insert(registry.table.lowercasedName) }
            }
        }
    }

}
