extension Database {
    /// What schema sync would do for `type` now, without changing anything (a dry run).
    /// Throws a ``SchemaError`` when sync cannot make the table fit the model. Renames and rebuilds the
    /// model opted in to are listed statement by statement; when a plan renames and rebuilds, sync reads
    /// the renamed schema again before rebuilding, so index and trigger SQL may differ in quoting.
    ///
    /// ```swift
    /// let plan = try db.schemaPlan(for: Employee.self)
    /// print(plan)   // Employee: ALTER TABLE "Employee" ADD COLUMN "email" TEXT
    /// ```
    public func schemaPlan<T: Model>(for type: T.Type) throws -> SchemaPlan {
        if let remote { return try remoteSchemaPlan(remote, type) }
        return try planner(for: ModelMetadata.of(type)).plan(in: connection.introspector)
    }

    /// The planner of a model, told which indices the other models this handle maps onto the same table
    /// declare (so that one model never drops another's).
    func planner(for metadata: ModelMetadata) -> SchemaPlanner {
        var planner = SchemaPlanner(metadata: metadata, dialect: connection.dialect)
        // (The registries over this table only: a scan of every registry made the first use of N models
        // cost N² / 2 comparisons.)
        for registry in models.registries(forTable: metadata.tableKey) where registry.metadata !== metadata {
            let columns = registry.table.columns
            let other = SchemaPlanner(metadata: registry.metadata, dialect: connection.dialect)
            for index in registry.metadata.indices {
                let declaration = IndexDeclaration(columns: index.columns.map { name in
                    registry.metadata.properties.firstIndex { $0.name == name }.map { columns[$0] } ?? name
                }, unique: index.unique)
                planner.otherIndices.append(declaration)
                planner.otherIndexNames[other.indexName(index)] = declaration
            }
        }
        return planner
    }

    /// Syncs the table of `type` now and returns the steps applied (empty when it was in sync). Sync
    /// also runs by itself on a type's first use with this handle, so calling this is optional.
    ///
    /// ```swift
    /// let applied = try db.syncSchema(Employee.self)
    /// for step in applied.steps { print(step.sql) }
    /// ```
    @discardableResult
    public func syncSchema<T: Model>(_ type: T.Type) throws -> SchemaPlan {
        if let remote { return try remoteSyncSchema(remote, [type]).last ?? SchemaPlan(model: "\(type)", table: "", steps: []) }
        let metadata = try ModelMetadata.of(type)
        let (plan, mapping) = try sync(metadata)
        if let registry = models.registries[ObjectIdentifier(type)] {
            registry.table = mapping
        } else {
            models.add(TypeRegistry(metadata: metadata, table: mapping, context: models), for: ObjectIdentifier(type))
        }
        return plan
    }

    /// ``syncSchema(_:)`` reporting progress: `progress` is called with the SQLite steps run so far,
    /// about every million — what a rebuild of a table with many rows takes a while over.
    ///
    /// ```swift
    /// try db.syncSchema(Shelf.self) { steps in print("rebuilding Shelf: \(steps) steps") }
    /// ```
    @discardableResult
    public func syncSchema<T: Model>(_ type: T.Type, progress: @escaping (Int) -> Void) throws -> SchemaPlan {
        try reportingProgress(progress) { try syncSchema(type) }
    }

    /// The registry of a model type: synced on first use with this handle, and again when the schema
    /// changed underneath.
    ///
    /// Outside a transaction it first merges other connections' commits into the live instances
    /// (`checkingCommits`; a transaction does so when it begins, and one begun by raw SQL on the first call
    /// made inside it). A closed handle throws.
    @usableFromInline
    func registry(for type: any Model.Type, checkingCommits: Bool = true) throws -> TypeRegistry {
        try unretainedRegistry(for: type, checkingCommits: checkingCommits).takeUnretainedValue()
    }

    /// ``registry(for:checkingCommits:)`` unretained, for a save's hot path: the handle's registries keep
    /// every registry for as long as the handle is open, so it stays valid through the caller's use.
    @inline(__always)
    func unretainedRegistry(for type: any Model.Type, checkingCommits: Bool = true) throws -> Unmanaged<TypeRegistry> {
        if _slowPath(isRemote) { return Unmanaged.passUnretained(try remoteRegistry(for: type)) }
        if connection.isClosed { throw connection.closedError(sql: nil) }
        // Writes made through a bare `Statement` since the last call are applied to live instances first.
        applyPendingChanges()
        try checkTransactionIsOpen()
        // Inside a transaction of the library's, the flag stands (it merged when it began); otherwise it is
        // checked against SQLite: a read-only transaction ends without the commit hook that clears it.
        if models.transactionMerged && transactionDepth == 0 && !isInTransaction { models.transactionMerged = false }
        if !models.transactionMerged {
            if isInTransaction {
                // A transaction begun by raw SQL (`BEGIN`, a bare `SAVEPOINT`): the library's own transactions
                // merge when they begin, this one has not yet. A save must not overwrite what it has not seen.
                try mergeForeignCommits()
                models.transactionMerged = true
            } else if checkingCommits {
                try mergeForeignCommits()
            }
        }
        let id = ObjectIdentifier(type)
        if models.readRegion != nil { noteRead(of: type) }
        if !models.needsResync {
            if let last = models.lastRegistry, last.type == id { return last.registry }
            if let registry = models.registries[id] {
                models.lastRegistry = (id, Unmanaged.passUnretained(registry))
                return Unmanaged.passUnretained(registry)
            }
        }
        models.lastRegistry = nil
        return Unmanaged.passUnretained(try resync(type))
    }

    /// Adds the table of `type` to the tables an observed read uses (out of line: rarely on).
    @inline(never)
    func noteRead(of type: any Model.Type) {
        models.readRegion?.insert(type.tableName.sqlFolded)
    }

    func resync(_ type: any Model.Type) throws -> TypeRegistry {
        try resyncAll(for: ObjectIdentifier(type))
        if let registry = models.registries[ObjectIdentifier(type)] { return registry }
        let metadata = try ModelMetadata.of(type)
        try metadata.checkRelationships()
        let registry = TypeRegistry(metadata: metadata, table: try sync(metadata).mapping, context: models)
        models.add(registry, for: ObjectIdentifier(type))
        return registry
    }

    /// Syncs every model this handle uses again, when the schema changed underneath. Inside an open
    /// transaction only the model asked for (`wanted`) has its table changed: the transaction may be half
    /// way through a rebuild of raw SQL (another model's table dropped, the new one not yet renamed into
    /// place), which a table made again would break. The others wait for their own use, or the commit.
    func resyncAll(for wanted: ObjectIdentifier? = nil) throws {
        guard models.needsResync else { return }
        let inTransaction = isInTransaction
        if inTransaction, let waiting = models.waitingSync, wanted.map({ !waiting.models.contains($0) }) ?? true,
           (try? schemaVersion()) == waiting.version {
            return   // nothing changed since: the models waiting still need their table changed
        }
        models.needsResync = false
        models.waitingSync = nil
        models.joinColumnFormats.removeAll()
        models.joinColumnsUntyped.removeAll()
        let synced = Array(models.registries)
        defer { models.withoutRowIDRegistries = models.registries.values.filter { !$0.table.hasRowID }.count }
        var waiting: Set<ObjectIdentifier> = []
        do {
            for (id, registry) in synced {
                if inTransaction && id != wanted {
                    do {
                        registry.table = try sync(registry.metadata, writing: false).mapping
                    } catch is SyncNeedsWrites {
                        waiting.insert(id)
                    }
                } else {
                    registry.table = try sync(registry.metadata).mapping
                }
            }
        } catch {
            models.needsResync = true
            throw error
        }
        if !waiting.isEmpty {
            // Their instances read their rows once their tables are synced (or the commit follows them).
            models.needsResync = true
            models.refreshAfterResync = true
            models.waitingSync = (try schemaVersion(), waiting)
        }
        if models.refreshAfterResync && waiting.isEmpty {
            models.refreshAfterResync = false
            refreshAllLiveInstances()
            dropAllLoadedArrays()
        }
    }

    /// After this handle committed a schema change through raw SQL (a table rebuilt, renamed or dropped, a
    /// column renamed or dropped: SQLite's update hook reports none of the rows that moved), what a
    /// migration's brings on: every live instance reads its row again (merging: an unsaved change over a
    /// value that moved is a conflict). Nothing is written meanwhile (the caller's next statement may be
    /// the rest of its own rebuild): the instances of a model whose table is gone are marked deleted, and a
    /// model whose table needs sync to change is synced on its next use, when its instances read their rows.
    func followSchemaChange() {
        let moved = models.movedTables
        models.movedTables.removeAll()
        guard !models.registries.isEmpty else { return }
        // (Other changes of the schema, an index made, say, have every model synced on its next use.)
        checkSchemaVersion()
        let resyncNeeded = models.needsResync
        models.changeCount &+= 1
        models.joinColumnFormats.removeAll()
        models.joinColumnsUntyped.removeAll()
        var deferred = false
        for table in moved {
            for registry in models.registries(forTable: table) {
                do {
                    registry.table = try sync(registry.metadata, writing: false).mapping
                    for object in registry.liveInstances { refresh(object, registry: registry) }
                } catch let needed as SyncNeedsWrites {
                    deferred = true
                    if needed.tableGone { for object in registry.liveInstances { registry.detach(object, deleted: true) } }
                } catch {
                    deferred = true   // thrown again at the model's next use
                }
            }
        }
        models.withoutRowIDRegistries = models.registries.values.filter { !$0.table.hasRowID }.count
        models.needsResync = resyncNeeded || deferred
        if !models.needsResync { models.waitingSync = nil }
        if deferred { models.refreshAfterResync = true }
        dropAllLoadedArrays()
    }

    /// A sync asked not to write (``followSchemaChange()``) found the table needs a change.
    private struct SyncNeedsWrites: Error {
        let tableGone: Bool
    }

    /// Plans, and when needed applies in one IMMEDIATE transaction (a savepoint inside an open one),
    /// the steps for one model; returns the plan and the mapping onto the resulting table.
    func sync(_ metadata: ModelMetadata, writing: Bool = true) throws -> (plan: SchemaPlan, mapping: TableMapping) {
        // The tables a declared foreign key points at come first: SQLite checks the parent table exists when
        // a row is written. Models whose foreign keys point at each other: the one whose sync is under way
        // is left to finish after (CREATE TABLE accepts a REFERENCES to a table not made yet).
        let id = ObjectIdentifier(metadata.type)
        models.syncing.insert(id)
        defer { models.syncing.remove(id) }
        for property in metadata.properties where property.onDelete != nil {
            if let related = property.related, ObjectIdentifier(related) != id,
               models.registries[ObjectIdentifier(related)] == nil, !models.syncing.contains(ObjectIdentifier(related)) {
                _ = try registry(for: related, checkingCommits: false)
            }
        }
        let planner = planner(for: metadata)
        var current: TableInfo?
        var plan = try planner.plan(in: connection.introspector, current: &current)
        for name in plan.keptUniqueIndices {
            configuration.logger.warning("Strata schema sync: the UNIQUE index \"\(name)\" on \"\(metadata.tableName)\" is no longer declared by \(metadata.typeName); kept (sync never drops a UNIQUE index): drop it in a migration if no model needs it",
                                         metadata: ["model": "\(metadata.typeName)"])
        }
        if !plan.isEmpty && !writing {
            throw SyncNeedsWrites(tableGone: current == nil)
        } else if !plan.isEmpty, let schemaWriter {
            // A pool reader: the writer syncs, then this handle reads the table it made. A read that began
            // before cannot see it in its snapshot: it is run again (``DatabasePool``).
            try schemaWriter(metadata.type)
            if connection.holdsSnapshot {
                models.needsFreshSnapshot = true
                throw SnapshotTooOld()
            }
            current = try TableInfo.read(metadata.tableName, in: connection, views: true)
        } else if !plan.isEmpty {
            // The sync's own ALTER or rebuild moves no row from under a live instance.
            let moved = models.movedTables
            defer { models.movedTables = moved }
            plan = try apply(planner, rebuilding: plan.rebuildsTable)
            current = try TableInfo.read(metadata.tableName, in: connection, views: true)
        }
        guard let info = current else {
            throw SchemaError(model: metadata.typeName, table: metadata.tableName, column: nil, found: "no table",
                              expected: "the table created by sync", remedy: "Check that the database is writable.")
        }
        models.schemaVersion = try schemaVersion()
        let properties = try planner.resolveColumns(info)
        let (formats, unsampled, awaited, hasRows) = try columnFormats(metadata, properties, info)
        let unprovenViewKey = info.isView
            ? try ViewKey.unprovenReason(view: info, key: properties.prefix(metadata.keyCount).map(\.column), in: connection) : nil
        let mapping = TableMapping(metadata: metadata, properties: properties, info: info, formats: formats,
                                   unprovenViewKey: unprovenViewKey)
        mapping.keyTablesAwaited = awaited
        // Only an empty table is watched: a column that stays NULL in a table with rows (a `deletedAt`) would
        // otherwise cost a scan at every commit of another connection.
        mapping.formatsFromEmptyColumns = try unsampled && !info.isView && !(hasRows ?? tableHasRows(info.name))
        return (plan, mapping)
    }

    /// Runs the plan in a transaction; a rebuild's with the connection settings it needs around it
    /// (``withRebuildSettings(for:_:)``, which turns foreign keys off before BEGIN and restores them after the end).
    func apply(_ planner: SchemaPlanner, rebuilding: Bool) throws -> SchemaPlan {
        guard rebuilding else { return try transaction(.immediate) { try run(planner) } }
        return try withRebuildSettings(for: planner.metadata) { try transaction(.immediate) { try run(planner) } }
    }

    /// Plans again under the write lock (another connection may have changed the table meanwhile) and runs
    /// the steps; renames first, then the rest planned again from the renamed schema. Returns what ran.
    func run(_ planner: SchemaPlanner) throws -> SchemaPlan {
        let metadata = planner.metadata
        var plan = try planner.plan(in: connection.introspector)
        var ran: [SchemaStep] = []
        let renames = plan.steps.prefix { step in
            switch step.kind { case .renameTable, .renameColumn: true; default: false }
        }
        if !renames.isEmpty {
            for step in renames { try run(step, of: metadata) }
            ran += renames
            plan = try planner.plan(in: connection.introspector)
        }
        let foreignKeysOn = try foreignKeysEnabled()
        if plan.rebuildsTable && foreignKeysOn {
            throw SchemaError(model: metadata.typeName, table: metadata.tableName, column: nil,
                              found: "foreign keys on", expected: "foreign keys off for a table rebuild",
                              remedy: "Sync outside any transaction, so that Strata can turn them off first.")
        }
        if plan.rebuildsTable {
            // A rebuild rewrites the whole table (a copy of every row): the one step a user should see in the
            // log; its statements, like every routine step, go at debug.
            let columns = plan.rebuiltColumns.map { "\"\($0)\"" }.joined(separator: ", ")
            configuration.logger.info("Strata schema sync: rebuilding table \"\(metadata.tableName)\" of \(metadata.typeName) for column\(plan.rebuiltColumns.count == 1 ? "" : "s") \(columns) (its rows are copied into a new table)",
                                      metadata: ["model": "\(metadata.typeName)"])
        }
        for step in plan.steps { try run(step, of: metadata, rebuilding: plan.rebuiltColumns) }
        return SchemaPlan(model: plan.model, table: plan.table, steps: ran + plan.steps)
    }

    /// Runs one step; SQLite's error of a statement that fails (a CHECK or a NOT NULL that refuses a copied
    /// row, a full disk) keeps its code and SQL and says which model, table and columns the sync was for,
    /// and that it was rolled back (the caller's transaction or savepoint ends with the error).
    func run(_ step: SchemaStep, of metadata: ModelMetadata, rebuilding columns: [String] = []) throws {
        if case .rebuildCheck(let column, let expectation) = step.kind {
            let violations = try rows(step.sql)
            guard violations.isEmpty else {
                func text(_ value: SQLValue) -> String {
                    switch value {
                    case .null: "NULL"
                    case .integer(let integer): String(integer)
                    case .real(let real): String(real)
                    case .text(let text): text
                    case .blob(let data): "<\(data.count) bytes>"
                    }
                }
                let listed = violations.map { "(" + $0.values.map(text).joined(separator: ", ") + ")" }
                throw SchemaError(
                    model: metadata.typeName, table: metadata.tableName, column: column,
                    found: "\(violations.count == 10 ? "at least 10" : "\(violations.count)") row(s) against it: \(listed.joined(separator: ", "))",
                    expected: expectation,
                    remedy: "The rebuild was rolled back and nothing changed. Fix those rows with raw SQL, or change the model back.")
            }
            return
        }
        // Creating tables, adding columns and indices is routine (debug); a rename changes what other tools
        // see, so it is logged where users look (info), as the rebuild is (above, once for all its statements).
        switch step.kind {
        case .renameTable, .renameColumn:
            configuration.logger.info("Strata schema sync: \(step.sql)", metadata: ["model": "\(metadata.typeName)"])
        default:
            configuration.logger.debug("Strata schema sync: \(step.sql)", metadata: ["model": "\(metadata.typeName)"])
        }
        do {
            try connection.execute(step.sql)
        } catch let error as DatabaseError {
            let what: String
            switch step.kind {
            case .rebuildTable, .rebuildCheck:
                what = "rebuilding it for column\(columns.count == 1 ? "" : "s") \(columns.map { "\"\($0)\"" }.joined(separator: ", "))"
            case .addColumn(let column): what = "adding column \"\(column)\""
            case .renameColumn(let from, let to): what = "renaming column \"\(from)\" to \"\(to)\""
            case .renameTable(let from, _): what = "renaming table \"\(from)\""
            case .createTable: what = "creating it"
            case .createIndex(let name): what = "creating index \"\(name)\""
            case .dropIndex(let name): what = "dropping index \"\(name)\""
            }
            throw DatabaseError(code: error.code,
                                message: "\(error.message) (schema sync of model \(metadata.typeName), table \"\(metadata.tableName)\", \(what): rolled back, nothing of it was kept)",
                                sql: error.sql, arguments: error.arguments, argumentsArePublic: error.argumentsArePublic,
                                sqlState: error.sqlState)
        }
    }
}
