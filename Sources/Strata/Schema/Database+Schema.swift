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
        try planner(for: ModelMetadata.of(type)).plan(in: connection)
    }

    /// The planner of a model, told which indices the other models this handle maps onto the same table
    /// declare (so that one model never drops another's).
    private func planner(for metadata: ModelMetadata) -> SchemaPlanner {
        var planner = SchemaPlanner(metadata: metadata)
        for registry in models.registries.values where registry.metadata !== metadata
            && registry.metadata.tableKey == metadata.tableKey {
            let columns = registry.table.columns
            let other = SchemaPlanner(metadata: registry.metadata)
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
    private func noteRead(of type: any Model.Type) {
        models.readRegion?.insert(type.tableName.sqlFolded)
    }

    private func resync(_ type: any Model.Type) throws -> TypeRegistry {
        try resyncAll(for: ObjectIdentifier(type))
        if let registry = models.registries[ObjectIdentifier(type)] { return registry }
        let metadata = try ModelMetadata.of(type)
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
    private func sync(_ metadata: ModelMetadata, writing: Bool = true) throws -> (plan: SchemaPlan, mapping: TableMapping) {
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
        var plan = try planner.plan(in: connection, current: &current)
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
        let (formats, unsampled, awaited) = try columnFormats(metadata, properties, info)
        let unprovenViewKey = info.isView
            ? try ViewKey.unprovenReason(view: info, key: properties.prefix(metadata.keyCount).map(\.column), in: connection) : nil
        let mapping = TableMapping(metadata: metadata, properties: properties, info: info, formats: formats,
                                   unprovenViewKey: unprovenViewKey)
        mapping.keyTablesAwaited = awaited
        // Only an empty table is watched: a column that stays NULL in a table with rows (a `deletedAt`) would
        // otherwise cost a scan at every commit of another connection.
        mapping.formatsFromEmptyColumns = try unsampled && !info.isView && !tableHasRows(info.name)
        return (plan, mapping)
    }

    /// Whether `table` holds a row (one page read).
    private func tableHasRows(_ table: String) throws -> Bool {
        let statement = try connection.prepare("SELECT 1 FROM \(SQL.quote(table)) LIMIT 1")
        defer { statement.finalize() }
        return try statement.step()
    }

    /// Whether some format of the handle awaits rows (``redecideFormatsOfEmptyColumns()``): a mapping's, or a
    /// join-table column's. Raw SQL that wrote rows decides them again then (it may have written the first
    /// keys, in another tool's format), as another connection's commit does.
    var formatsAwaitRows: Bool {
        !models.undecidedJoinColumns.isEmpty || models.registries.values.contains { $0.table.awaitsRows }
    }

    /// After another connection's commit (or raw SQL of this handle that wrote rows): the mappings whose formats were decided on an empty table
    /// (``TableMapping/formatsFromEmptyColumns``) are made again once it has rows, so that rows another tool wrote first
    /// decide the format (uppercase UUIDs, ISO 8601 dates) instead of the declared type alone.
    func redecideFormatsOfEmptyColumns() throws {
        // Join-table columns decided from no value are looked at again when next used (a few reads, once).
        for key in models.undecidedJoinColumns { models.joinColumnFormats.removeValue(forKey: key) }
        models.undecidedJoinColumns.removeAll()
        for registry in models.registries.values where registry.table.awaitsRows {
            // Still empty, and no table whose keys it holds has rows: nothing to decide from yet, and no sync
            // to pay for.
            var decidable = try registry.table.formatsFromEmptyColumns && tableHasRows(registry.table.table)
            for table in registry.table.keyTablesAwaited where !decidable {
                decidable = (try? tableHasRows(table)) == true   // (a table not made yet has no rows)
            }
            guard decidable else { continue }
            let mapping = try sync(registry.metadata).mapping
            if mapping.formats != registry.table.formats {
                registry.table = mapping
                models.joinColumnFormats.removeAll()   // some may have been taken from the old mapping
            } else {
                registry.table.formatsFromEmptyColumns = mapping.formatsFromEmptyColumns
                registry.table.keyTablesAwaited = mapping.keyTablesAwaited
            }
        }
    }

    /// The stored format of each property's column: the model's declaration, else for dates, UUIDs and
    /// booleans what the column's declared type and its first non-NULL value show (``ColumnFormat``);
    /// for dates, what its first 100 non-NULL values show (``ColumnSample``), in one statement. Also
    /// whether some format was decided on a column that holds no value yet (from its declared type alone).
    /// Also the tables whose keys an empty column holds while their key column shows no format yet
    /// (``TableMapping/keyTablesAwaited``).
    private func columnFormats(_ metadata: ModelMetadata, _ properties: [PropertyMetadata], _ info: TableInfo) throws
        -> ([ColumnFormat], Bool, [String]) {
        var unsampled = false
        var awaited: [String] = []
        let formats = try properties.map { property in
            if let declared = metadata.columnFormats[property.name] { return declared }
            guard let kind = property.formatKind, let column = info.column(named: property.column),
                  kind != .decimal || property.related == nil && (column.affinity == .text || column.affinity == .blob) else { return ColumnFormat.native }
            let (format, sampled) = try detectedFormat(kind, table: info.name, column: column, rowID: info.sampledRowID)
            guard sampled else {
                unsampled = true
                // A column of another table's keys holds them as its key column does (peewee's foreign key to
                // a UUID key stores uuid.hex in a TEXT column), else SQLite's foreign key finds no row.
                if let shown = try shownReferencedFormat(kind, info: info, column: column)
                    ?? property.related.flatMap({ try shownKeyFormat(of: ModelMetadata.of($0), kind: kind) }) {
                    return shown
                }
                if let parent = info.foreignKeys.first(where: { $0.from.sqlNameEquals(column.name) })?.table ?? property.related?.tableName,
                   !parent.sqlNameEquals(info.name) {
                    awaited.append(parent)
                }
                return format
            }
            return format
        }
        return (formats, unsampled, awaited)
    }

    /// The format in which the column that `column` of `info` refers to by a foreign key holds its values,
    /// when a value there shows it; nil otherwise (no foreign key, or an empty parent column).
    private func shownReferencedFormat(_ kind: ColumnFormat.Kind, info: TableInfo, column: ColumnInfo) throws -> ColumnFormat? {
        guard let key = info.foreignKeys.first(where: { $0.from.sqlNameEquals(column.name) }),
              let parent = try TableInfo.read(key.table, in: connection) else { return nil }
        let keyColumns = parent.primaryKeyColumns
        guard let target = key.to.flatMap(parent.column(named:)) ?? (key.sequence < keyColumns.count ? keyColumns[key.sequence] : nil),
              !(parent.name.sqlNameEquals(info.name) && target.name.sqlNameEquals(column.name)) else { return nil }
        let (format, sampled) = try detectedFormat(kind, table: parent.name, column: target, rowID: parent.sampledRowID)
        return sampled ? format : nil
    }

    /// The format in which `related`'s key column holds its keys, when its declaration
    /// (``ModelDeclaration/columnFormats``) or a stored key shows it; nil when its table has no key yet.
    /// What an empty column holding those keys (a reference, a join table's) takes, over its declared type's
    /// default: a key is found by its exact value.
    private func shownKeyFormat(of related: ModelMetadata, kind: ColumnFormat.Kind) throws -> ColumnFormat? {
        guard related.keyCount == 1, related.key.formatKind == kind else { return nil }
        if let declared = related.columnFormats[related.key.name] { return declared }
        guard let info = try TableInfo.read(related.tableName, in: connection, views: true),
              let column = info.column(named: related.key.column) else { return nil }
        let (format, sampled) = try detectedFormat(kind, table: info.name, column: column, rowID: info.sampledRowID)
        return sampled ? format : nil
    }

    /// The format of values of `kind` in an existing column, from its declared type and its first non-NULL
    /// value (for a UUID, the first of its first 100 that has a letter, which shows the case)
    /// (``ColumnFormat/detect(_:declaredType:sample:)``), and whether the column had a value to show it.
    private func detectedFormat(_ kind: ColumnFormat.Kind, table: String, column: ColumnInfo, rowID: String?) throws -> (ColumnFormat, sampled: Bool) {
        if kind == .date {
            let statement = try connection.prepare(ColumnSample.statementSQL(column: column.name, table: table, rowID: rowID))
            defer { statement.finalize() }
            guard try statement.step() else {
                return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: nil, defaultSQL: column.defaultSQL), false)
            }
            let sample = ColumnSample(row: (0..<ColumnSample.columnCount).map { statement.value(at: Int32($0)) })
            return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: sample, defaultSQL: column.defaultSQL), sample.first != nil)
        }
        if kind == .json {
            let name = SQL.quote(column.name)
            let statement = try connection.prepare("SELECT \(name) FROM \(SQL.quote(table)) WHERE typeof(\(name)) = 'text' LIMIT \(ColumnSample.limit)")
            defer { statement.finalize() }
            var texts: [String] = []
            while try statement.step() { if case .text(let text) = statement.value(at: 0) { texts.append(text) } }
            guard texts.isEmpty else { return (JSONStyle.detect(texts), true) }
            // No JSON yet: a column Django's JSONField made (`text` with `CHECK (JSON_VALID("col") …)`) takes
            // the layout Django writes, json.dumps's, so that its exact lookups (`filter(data={…})`, text
            // equality) find Strata's rows and the column keeps one layout (decided again once it has rows).
            let sql = try SchemaCatalog.current(in: connection).tables[table.sqlFolded]?.sql ?? ""
            return (JSONStyle.declaredByDjango(column: column.name, tableSQL: sql) ? .jsonText(spaced: true, asciiOnly: true) : .native, false)
        }
        if kind == .decimal {
            let statement = try connection.prepare(ColumnSample.decimalStatementSQL(column: column.name, table: table))
            defer { statement.finalize() }
            // (No non-NULL value: decided again once the table has rows.)
            guard try statement.step(), case .integer(let least) = statement.value(at: 0) else { return (.native, false) }
            var sample = ColumnSample(nil)
            sample.decimalFractionDigits = statement.value(at: 1) == .integer(least) ? Int(max(0, least)) : 0
            return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: sample), true)
        }
        let name = SQL.quote(column.name)
        // A UUID's case shows only in its letters: of the first 100 non-NULL values, one that has some
        // (`12345678-0000-…` would take an uppercase column for a lowercase one).
        let statement = try connection.prepare(kind == .uuid
            ? "SELECT v FROM (SELECT \(name) AS v FROM \(SQL.quote(table)) WHERE \(name) IS NOT NULL LIMIT \(ColumnSample.limit)) ORDER BY typeof(v) = 'text' AND v GLOB '*[a-fA-F]*' DESC LIMIT 1"
            : "SELECT \(name) FROM \(SQL.quote(table)) WHERE \(name) IS NOT NULL LIMIT 1")
        defer { statement.finalize() }
        let sample = try statement.step() ? statement.value(at: 0) : nil
        return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: sample), sample != nil)
    }

    /// The format of a join table's column that holds the keys of `metadata`'s model (``Siblings``): the
    /// format a model of this handle that maps the column has for it (its ``ModelDeclaration/columnFormats``
    /// included), else, as for any column of the key's type, what the column's declared type and first
    /// non-NULL value show (a UUID key as 32 hex digits in Django's `char(32)`); a column with no value yet
    /// takes the format of the column its foreign key names, else of the key column it holds keys of, when
    /// that shows one (peewee's through table
    /// holds uuid.hex in TEXT columns, as the key column does). Native for keys no other tool stores
    /// otherwise (integers, text). Found once per handle and schema.
    func joinColumnFormat(table: String, column: String, holding metadata: ModelMetadata) throws -> ColumnFormat {
        guard metadata.keyCount == 1, let kind = metadata.key.formatKind, kind != .decimal else { return .native }
        let cacheKey = table.sqlFolded + "\u{0}" + column.sqlFolded
        if let known = models.joinColumnFormats[cacheKey] { return known }
        var format = ColumnFormat.native
        if let mapped = models.registries(forTable: table).lazy.compactMap({ registry -> (ColumnFormat, Bool)? in
            guard let index = registry.table.columns.firstIndex(where: { $0.sqlNameEquals(column) }),
                  registry.metadata.properties[index].formatKind == kind else { return nil }
            return (registry.table.formats[index], registry.table.awaitsRows)
        }).first {
            format = mapped.0
            if mapped.1 { models.undecidedJoinColumns.insert(cacheKey) }
        } else if let info = try TableInfo.read(table, in: connection), let found = info.column(named: column) {
            let (detected, sampled) = try detectedFormat(kind, table: info.name, column: found, rowID: info.sampledRowID)
            if sampled {
                format = detected
            } else if let shown = try shownReferencedFormat(kind, info: info, column: found) ?? shownKeyFormat(of: metadata, kind: kind) {
                format = shown
            } else {
                // From the declared type alone: decided again once this table or a key table has rows.
                format = detected
                models.undecidedJoinColumns.insert(cacheKey)
            }
        }
        models.joinColumnFormats[cacheKey] = format
        return format
    }

    /// Whether a join table's column has no type (BLOB affinity, or `ANY` in a STRICT table): an integer key there may be stored as
    /// its text ('1', which SQLite does not find by the integer), so ``Siblings`` look it up in both forms.
    /// Found once per handle and schema, from the declared type of a statement prepared and never run (so
    /// it costs no statement); false when it does not prepare (the query that follows says why).
    func joinColumnIsUntyped(table: String, column: String) -> Bool {
        let cacheKey = table.sqlFolded + "\u{0}" + column.sqlFolded
        if let known = models.joinColumnsUntyped[cacheKey] { return known }
        guard let statement = try? connection.prepare("SELECT \(SQL.quote(column)) FROM \(SQL.quote(table)) LIMIT 0") else { return false }
        defer { statement.finalize() }
        let declared = statement.declaredType(at: 0) ?? ""
        // `ANY` in a STRICT table has no affinity either (elsewhere it is NUMERIC); the catalog is read untraced.
        var untyped = Affinity(declaredType: declared) == .blob
        if !untyped && declared.uppercased() == "ANY" {
            let wasUntraced = connection.untraced
            connection.untraced = true
            defer { connection.untraced = wasUntraced }
            untyped = (try? SchemaCatalog.current(in: connection))?.tables[table.sqlFolded]
                .map { TableInfo.tableOptions($0.sql).contains("STRICT") } == true
        }
        models.joinColumnsUntyped[cacheKey] = untyped
        return untyped
    }

    /// Runs the plan in a transaction; a rebuild's with the connection settings it needs around it
    /// (``withRebuildSettings(for:_:)``, which turns foreign keys off before BEGIN and restores them after the end).
    private func apply(_ planner: SchemaPlanner, rebuilding: Bool) throws -> SchemaPlan {
        guard rebuilding else { return try transaction(.immediate) { try run(planner) } }
        return try withRebuildSettings(for: planner.metadata) { try transaction(.immediate) { try run(planner) } }
    }

    /// Plans again under the write lock (another connection may have changed the table meanwhile) and runs
    /// the steps; renames first, then the rest planned again from the renamed schema. Returns what ran.
    private func run(_ planner: SchemaPlanner) throws -> SchemaPlan {
        let metadata = planner.metadata
        var plan = try planner.plan(in: connection)
        var ran: [SchemaStep] = []
        let renames = plan.steps.prefix { step in
            switch step.kind { case .renameTable, .renameColumn: true; default: false }
        }
        if !renames.isEmpty {
            for step in renames { try run(step, of: metadata) }
            ran += renames
            plan = try planner.plan(in: connection)
        }
        let foreignKeysOn = try foreignKeysEnabled()
        if plan.rebuildsTable && foreignKeysOn {
            throw SchemaError(model: metadata.typeName, table: metadata.tableName, column: nil,
                              found: "foreign keys on", expected: "foreign keys off for a table rebuild",
                              remedy: "Sync outside any transaction, so that Strata can turn them off first.")
        }
        for step in plan.steps { try run(step, of: metadata, rebuilding: plan.rebuiltColumns) }
        return SchemaPlan(model: plan.model, table: plan.table, steps: ran + plan.steps)
    }

    /// Runs one step; SQLite's error of a statement that fails (a CHECK or a NOT NULL that refuses a copied
    /// row, a full disk) keeps its code and SQL and says which model, table and columns the sync was for,
    /// and that it was rolled back (the caller's transaction or savepoint ends with the error).
    private func run(_ step: SchemaStep, of metadata: ModelMetadata, rebuilding columns: [String] = []) throws {
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
        configuration.logger.info("Strata schema sync: \(step.sql)", metadata: ["model": "\(metadata.typeName)"])
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
                                sql: error.sql, arguments: error.arguments, argumentsArePublic: error.argumentsArePublic)
        }
    }
}
