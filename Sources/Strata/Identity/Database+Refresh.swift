import Foundation

// Refreshing one live instance from its row, merging other connections' commits, and following schema
// changes.

extension Database {
    /// Reloads one live instance from its row, all or nothing: the row is decoded into a scratch
    /// instance first, and only a row that decodes completely reaches the live one.
    ///
    /// A property the instance changed and has not saved keeps its value while the row still holds the
    /// value it was read with; when the row changed it too, ``RefreshMode`` decides.
    /// A missing row marks the instance deleted; a row that does not decode leaves the instance as it
    /// was and marks it stale (saving it throws, naming the property and the stored value).
    /// Rows are found by rowid when the key is the rowid, else by the key the instance was registered
    /// under (its rowid may have changed, e.g. through INSERT OR REPLACE).
    func refresh(_ object: ModelObject, registry: TypeRegistry, _ mode: RefreshMode = .merge) {
        let table = registry.table, metadata = registry.metadata
        let id = ObjectIdentifier(object)
        do {
            let statement = try selectRow(of: object, registry: registry)
            defer { statement.reset() }
            guard try statement.step() else {
                if isInTransaction && !object._isDeleted { models.noteDeleted(object) }
                registry.detach(object, deleted: true)
                return
            }
            let fresh = metadata.makeInstance()
            try decodeRow(statement, into: fresh, registry: registry)
            let rowID = table.selectsRowID ? statement.int64(at: Int32(metadata.properties.count)) : object._rowID

            // Decide every property first, then apply: nothing reaches the instance unless all of it does.
            let slot = object._snapshotSlot
            var values: [(index: Int, value: SQLValue)] = []
            var words: [(index: Int, word: SnapshotWord)] = []
            var conflicting: [String] = []
            var settled: [String] = []   // changed here, over a row a rollback put back as it was read
            var movedInConflict = false
            for i in 0..<metadata.properties.count {
                let stored = registry.refreshWord(of: fresh, at: i)
                let current = registry.refreshWord(of: object, at: i)
                if mode != .discard, slot != 0, let remembered = registry.rememberedWord(of: object, at: i), !current.matches(remembered) {
                    // Changed here and not saved: kept while the row holds what it was read with.
                    if stored.matches(remembered) {
                        if mode == .rollback { settled.append(metadata.properties[i].name) }
                        continue
                    }
                    if mode == .merge {
                        conflicting.append(metadata.properties[i].name)
                        if registry.parentKeyColumns.contains(i) { movedInConflict = true }
                        continue
                    }
                }
                // (A JSON value whose text differs but that is equal, a nested set's, say, is no change either.)
                if current.matches(stored) || metadata.properties[i].accessor.holdsEqualJSONValue(object, fresh) {
                    // The instance keeps its value: remembered as it holds it (a -0.0 the row holds as 0 is
                    // no change of the instance's, and not one to save again).
                    words.append((i, registry.storedWord(of: object, at: i)))
                } else {
                    words.append((i, stored))
                    values.append((i, try metadata.properties[i].accessor.load(fresh)))
                }
            }
            for (i, value) in values { try metadata.properties[i].accessor.store(value, into: object) }
            if registry.hasParentArrays && !values.isEmpty {
                var changed = ColumnSet()
                for (i, _) in values { changed.insert(i) }
                registry.dropArraysOfMovedChild(object, changed: changed)
            }
            // The row names another parent while the instance keeps its own unsaved one (a conflict): which
            // loaded arrays showed or now miss it is not known from the instance, so all of its type are dropped.
            if movedInConflict { registry.dropEveryParentsArrays() }
            if !values.isEmpty, let notify = metadata.observationNotifier { notify(object) }
            if slot == 0 { registry.capture(object) } else { registry.capture(object, words: words) }
            registry.staleInstances[id] = nil
            if !conflicting.isEmpty {
                let known = registry.conflicts[id] ?? []
                registry.conflicts[id] = known + conflicting.filter { !known.contains($0) }
            } else if mode == .discard {
                registry.conflicts[id] = nil
            } else if !settled.isEmpty, let known = registry.conflicts[id] {
                // A rollback put back the row this instance's unsaved change was made on: the conflict with
                // the write it undid is gone with it.
                let remaining = known.filter { !settled.contains($0) }
                registry.conflicts[id] = remaining.isEmpty ? nil : remaining
            }
            if object._isDeleted || rowID != object._rowID {
                let key = try metadata.key.accessor.load(object)
                registry.register(object, rowID: rowID,
                                  textKey: table.keyIsRowID ? nil : registry.textKey(of: object) ?? TypeRegistry.textKey(key))
            }
        } catch {
            // The row exists but does not decode (another tool wrote a value the model cannot read), or SQLite
            // could not read it (interrupted, locked, an I/O error): the instance keeps every previous value
            // and refuses to be saved until it reads its row again.
            let property = (error as? ValueConversionError)?.property
            registry.staleInstances[id] = (property, "\(error)", !(error is DatabaseError))
            configuration.logger.warning("Strata could not refresh a live \(metadata.typeName): \(error)")
        }
    }

    /// The error reading or saving a stale instance throws (one whose row did not decode when it was last
    /// refreshed); nil when it is not stale.
    func staleError(_ object: ModelObject, registry: TypeRegistry, key: SQLValue?) -> ModelError? {
        guard let stale = registry.staleInstances[ObjectIdentifier(object)] else { return nil }
        guard stale.undecodable else {
            // (SQLite's own failure, not the row's values: reading the row again is all it takes.)
            return ModelError(.stale, model: registry.metadata.typeName, property: stale.property, key: key,
                              "the instance could not be refreshed from its row (\(stale.reason)); it keeps its previous values and cannot be saved until it reads its row again: fetch it again")
        }
        return ModelError(.stale, model: registry.metadata.typeName, property: stale.property, key: key,
                          "the instance could not be refreshed from its row (\(stale.reason)); it keeps its previous values and cannot be read through a fetch or saved. Fix the stored value, or map the column to a type that reads it (an optional for NULLs), and fetch the row again")
    }

    /// A fetch met a live instance that is stale: it reads its row again, and throws while the row still
    /// does not decode (as a fetch of that row through another handle does). Out of line: rarely taken.
    @usableFromInline @inline(never)
    func refreshingStale(_ object: ModelObject, registry: TypeRegistry) throws {
        guard registry.staleInstances[ObjectIdentifier(object)] != nil else { return }
        refresh(object, registry: registry)
        let key: SQLValue? = registry.keyIsRowID ? .integer(object._rowID) : try? registry.metadata.key.accessor.load(object)
        if let error = staleError(object, registry: registry, key: key) { throw error }
    }

    /// Merges what other connections (other handles, a pool's writer, other processes) committed since
    /// this handle last looked into its live instances. `PRAGMA data_version` tells whether anything was
    /// committed; which rows changed it does not say, so every live instance is re-read (merging).
    func mergeForeignCommits() throws {
        let version: Int64
        do {
            version = try connection.commitToken()
        } catch let error as DatabaseError where error.code.primary == .busy || error.code.primary == .locked {
            // The caller's own statement has not run yet: say what the wait was for, not which pragma waited.
            throw DatabaseError(code: error.code, message: "\(error.message): another connection held the database "
                + "locked past the busy timeout while this handle looked for other connections' commits, before the call ran")
        }
        guard version != models.dataVersion else { return }
        let previous = models.dataVersion
        models.dataVersion = version
        if previous == nil { return }
        models.changeCount &+= 1
        models.silentTables.removeAll()   // another connection may have made a table WITHOUT ROWID
        // Another connection changed the schema (a migration, another tool's rebuild): plan every synced model
        // again first (re-adding what a rebuild dropped), so the refresh reads the tables as they are now.
        checkSchemaVersion()
        do {
            // (Formats decided on empty columns are decided again too: the other connection may have written
            // the first rows, in its tool's format.)
            if models.needsResync { try resyncAll() } else { try redecideFormatsOfEmptyColumns() }
        } catch {
            models.dataVersion = previous   // the next call tries again
            throw error
        }
        refreshAllLiveInstances()
        dropAllLoadedArrays()
    }

    /// After this handle's migrations changed the schema (a table rebuilt, dropped or renamed: SQLite's update
    /// hook reports none of the rows that moved), what a foreign commit brings on: every synced model is
    /// planned again and every live instance reads its row again (one whose row is gone is marked deleted).
    /// A sync that fails is left for the model's next use, which throws it.
    func followOwnSchemaChange() {
        if let remote {
            do {
                try remoteFollowSchemaChange(remote)
            } catch {
                configuration.logger.warning("Strata could not sync the models again after the migrations: \(error)")
            }
            return
        }
        checkSchemaVersion()
        guard models.needsResync, !isInTransaction else { return }
        models.changeCount &+= 1
        do {
            try resyncAll()
        } catch {
            configuration.logger.warning("Strata could not sync the models again after the migrations: \(error)")
            return
        }
        refreshAllLiveInstances()
        dropAllLoadedArrays()
    }

    /// Drops every loaded ``Children`` and ``Siblings`` array of the handle's live instances: after another
    /// connection's commit, which may have added children or links that no live instance shows.
    func dropAllLoadedArrays() {
        for registry in models.registries.values where !registry.metadata.heldArrays.isEmpty {
            let arrays = registry.metadata.heldArrays
            for object in registry.arrayOwners(clearing: true) { for array in arrays { array.invalidate(of: object) } }
        }
    }

    /// Re-reads every live instance from its row (merging: unsaved changes are kept, conflicts recorded).
    func refreshAllLiveInstances() {
        let waiting = models.waitingSync?.models ?? []
        for (id, registry) in models.registries where !waiting.contains(id) {
            for object in registry.liveInstances { refresh(object, registry: registry) }
        }
    }

    /// The key value an instance of a table keyed otherwise than by rowid was registered under.
    func registeredKeyValue(of object: ModelObject, registry: TypeRegistry) throws -> SQLValue {
        guard let text = registry.textKey(of: object) else { return try registry.metadata.key.accessor.load(object) }
        if registry.metadata.keyIsInteger, let value = Int64(text) { return .integer(value) }
        return .text(text)
    }

    func transactionEnded() {
        let committed = models.committed
        models.committed = false
        // Tables the transaction dropped, renamed or altered: SQLite's update hook reports none of the rows
        // that went or moved, so observers hear of each such table as changed, rows unknown (an observed
        // fetch that read one runs again, and throws when its table is gone).
        if committed && models.schemaMoved && !models.observers.isEmpty {
            for table in models.movedTables { models.recordTable(table) }
        }
        // A schema change the transaction committed (not one a sync under way makes: it restores the flag).
        if models.schemaMoved && models.syncing.isEmpty && !models.followsSchemaLater {
            if committed { followSchemaChange() } else { models.movedTables.removeAll() }
        }
        if !models.savepoints.isEmpty { models.savepoints.removeAll() }
        models.silentWrites = false
        if !models.childTypesWrittenInTransaction.isEmpty { models.childTypesWrittenInTransaction.removeAll() }
        if !models.deletedInTransaction.isEmpty { releaseSnapshotsOfDeleted() }
        if !models.insertedInTransaction.isEmpty { models.insertedInTransaction.removeAll() }
        if !models.refusedInTransaction.isEmpty { models.refusedInTransaction.removeAll() }
        guard !models.transactionChanges.isEmpty else { return }
        let changes = Array(models.transactionChanges.values)
        models.transactionChanges.removeAll()
        // The transaction is over: observers may read and write through the handle (FCModel's notification
        // handlers fetch again). The `transaction` block whose COMMIT ended it is still on the stack; its
        // depth would make their calls take the committed transaction for one SQLite rolled back.
        let depth = transactionDepth
        transactionDepth = 0
        defer { transactionDepth = depth }
        for observer in models.observers.values { observer(changes) }
    }

    /// Marks the registries for a new sync when the schema changed underneath (a raw ALTER, say).
    func checkSchemaVersion() {
        guard let version = try? schemaVersion() else { return }
        if models.schemaVersion != -1 && version != models.schemaVersion { models.needsResync = true }
    }

    /// The connection's schema token (`PRAGMA schema_version` on SQLite), read directly (not through the
    /// raw-SQL path, which reconciles).
    func schemaVersion() throws -> Int64 {
        try connection.schemaToken()
    }
}

/// How a refresh treats a property the instance changed and has not saved, when its row changed too.
enum RefreshMode {
    /// Another connection's commit or raw SQL: the instance keeps its value and the property is
    /// recorded as a conflict, so the next save throws instead of overwriting the other write.
    case merge
    /// A rollback: the change was made on values the rollback undid, so the row's value wins. (Unsaved
    /// changes to properties whose rows hold again what the instance read are kept, and their conflicts
    /// with the undone writes are forgotten.)
    case rollback
    /// Every property takes the row's value (settling a conflict).
    case discard
}
