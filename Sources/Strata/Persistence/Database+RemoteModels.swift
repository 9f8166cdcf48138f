// Models on an engine other than SQLite (a ``RemoteConnection``): first use, fetch, insert, update and delete
// through the driver protocols, with the same identity map, snapshots and errors as on SQLite.
//
// What differs, because the engine has no change hooks: each live instance keeps the text its row's columns
// had when it last read or wrote them (the engine's own spelling, ``ModelContext/remoteRows``). An UPDATE
// writes the changed columns only where each still holds that text (`IS NOT DISTINCT FROM`), so a change
// made by another connection or raw SQL since is never overwritten: the save throws
// ``ModelError/Kind/conflict`` and the instance takes the committed row, as on SQLite. A fetch that meets a
// live instance brings the columns it has not changed up to date, and records a conflict on those it has.
// A transaction that rolls back makes its inserted instances new again and reads its updated and deleted
// ones again.
extension Database {
    // MARK: First use

    /// The registry of `type` on the engine: its table synced (referenced models' first) on first use,
    /// each column read and written in Strata's own format (the engine's types hold the values exactly).
    func remoteRegistry<C: RemoteConnection>(_ remote: C, for type: any Model.Type) throws -> TypeRegistry {
        if remote.isClosed { throw closedError() }
        if models.readRegion != nil { noteRead(of: type) }
        let id = ObjectIdentifier(type)
        if let registry = models.registries[id] { return registry }
        models.database = self   // faults and refreshes find the handle
        // A `@Children`/`@Siblings` declaration that cannot work throws at the first fetch or save, as on SQLite.
        try ModelMetadata.of(type).checkRelationships()
        // A pool's reader (its transactions are READ ONLY) has the pool's writer sync the table.
        if let schemaWriter { try schemaWriter(type) }
        return try mapped(remote) {
            // (The catalog as the sync left it: one read when the table is in step.)
            let schema = schemaWriter == nil
                ? try EngineSchemaSync.syncAtomicallyReading([type], on: remote, introspect: remote.introspector).schema
                : try remote.introspector()
            return try remoteRegistry(remote, for: type, schema: schema)
        }
    }

    /// The registry of `type` made from `schema` (the catalog read after its table was synced).
    func remoteRegistry<C: RemoteConnection>(_ remote: C, for type: any Model.Type, schema: any SchemaIntrospector) throws -> TypeRegistry {
        let id = ObjectIdentifier(type)
        if let registry = models.registries[id] { return registry }
        models.database = self
        let metadata = try ModelMetadata.of(type)
        return try mapped(remote) {
            let (mapping, info) = try remoteMapping(remote, metadata, schema: schema)
            let registry = TypeRegistry(metadata: metadata, table: mapping, context: models)
            remoteConfigure(registry, info: info)
            models.add(registry, for: id)
            return registry
        }
    }

    /// The mapping of a model onto its table as `schema` shows it, each column in Strata's own format on the
    /// engine (dates as its timestamp text, JSON as `jsonb` text, a `text[]` as its array text).
    func remoteMapping<C: RemoteConnection>(_ remote: C, _ metadata: ModelMetadata, schema: any SchemaIntrospector) throws -> (TableMapping, TableInfo) {
        guard let info = try schema.table(metadata.tableName) else {
            throw SchemaError(model: metadata.typeName, table: metadata.tableName, column: nil, found: "no table",
                              expected: "the table created by sync", remedy: "Check the search_path: sync creates tables in the current schema.")
        }
        let properties = try SchemaPlanner(metadata: metadata, dialect: remote.dialect).resolveColumns(info)
        let formats = properties.map { property -> ColumnFormat in
            // JSON with a whole Double written `1.0` (as Python writes it): jsonb keeps a number's spelling,
            // so Django and psycopg read it back as a float.
            // An array of text another tool declared (`text[]`, `varchar(20)[]`): PostgreSQL's array text.
            if property.formatKind == .json, property.related == nil {
                return ColumnFormat.isTextArray(declaredType: info.column(named: property.column)?.declaredType ?? "")
                    ? .textArray : .jsonText(spaced: true, asciiOnly: false)
            }
            guard property.formatKind == .date, property.related == nil else { return .native }
            // Dates as the engine's timestamp text (microseconds, UTC offset); a DATE column keeps the day.
            let type = info.column(named: property.column)?.declaredType.lowercased() ?? ""
            return type == "date" ? .dateText : .dateTimeText(Self.remoteTimestampStyle)
        }
        let mapping = TableMapping(metadata: metadata, properties: properties, info: info, formats: formats)
        mapping.comparesJSONAsJSONB = true
        for (i, property) in properties.enumerated() where Self.comparesIgnoringCase(info.column(named: property.column)?.declaredType) {
            mapping.textGuardedColumns.insert(i)
        }
        return (mapping, info)
    }

    /// What a registry keeps of its rows, decided by its table's triggers and column types (`info`: the
    /// table `registry.table` maps).
    func remoteConfigure(_ registry: TypeRegistry, info: TableInfo) {
        // (A table with triggers keeps every text and returns every column: a trigger may change what was written.)
        registry.remoteInsertReturnsAll = !info.triggerSQL.isEmpty
        registry.remoteTextsFromSnapshot = info.triggerSQL.isEmpty
            ? TypeRegistry.remoteTextsFromSnapshot(registry.metadata, table: registry.table, info: info) : ColumnSet()
        // (Every column spelled from the snapshot: no kept row per instance, its read stamp in its slot. A
        // table mapped again whose columns no longer all are keeps its instances' texts again.)
        if TypeRegistry.allFromSnapshot(registry.remoteTextsFromSnapshot, count: registry.metadata.properties.count) {
            registry.keepReadStampsInSnapshots()
        } else {
            registry.remoteReadStamps = false
        }
    }

    /// Whether a declared type compares texts that differ in case as equal: `citext` and arrays of it
    /// (schema-qualified or not).
    static func comparesIgnoringCase(_ declaredType: String?) -> Bool {
        guard var type = declaredType?.lowercased() else { return false }
        while type.hasSuffix("[]") { type.removeLast(2) }
        return type == "citext" || type.hasSuffix(".citext")
    }

    /// ``remoteRegistry(_:for:)`` for the shared entry points (out of line: SQLite's hot paths only test
    /// that ``remote`` is nil).
    @inline(never)
    func remoteRegistry(for type: any Model.Type) throws -> TypeRegistry {
        guard let remote else { return try registry(for: type) }
        return try remoteRegistry(remote, for: type)
    }

    /// ``save(_:)-(T)`` on the engine (out of line, as above).
    @inline(never)
    func remoteSave<T: Model>(_ object: T) throws {
        guard let remote else { return }
        let registry = try remoteRegistry(remote, for: T.self)
        try remoteObservedAlone(remote) { try remoteSave(remote, object, registry: registry) }
    }

    /// Runs `body` (a save or delete) in a transaction of its own when the handle is observed and none is
    /// open: the transaction tells the observers what it wrote (cascades included) after COMMIT.
    func remoteObservedAlone<C: RemoteConnection>(_ remote: C, _ body: () throws -> Void) throws {
        guard transactionDepth == 0, !remote.isInTransaction, remoteObserved else { return try body() }
        try remoteTransaction(remote, .deferred, body)
    }

    /// The value naming a row of `registry` for observers: its key, or nil for a composite key.
    private func observedKey(_ object: ModelObject, _ registry: TypeRegistry) -> SQLValue? {
        guard models.remoteLog.observing, registry.metadata.keyCount == 1 else { return nil }
        return try? registry.metadata.key.accessor.load(object)
    }

    // MARK: Fetch

    /// The objects of the rows `sql` (a SELECT of the mapping's columns, in order) selects.
    func remoteObjects<C: RemoteConnection>(_ remote: C, registry: TypeRegistry, sql: String,
                                            arguments: [any ColumnValue], limit: Int? = nil) throws -> [ModelObject] {
        // An observed fetch whose clause may read other tables (a join, a subquery): any commit counts.
        if models.readRegion != nil {
            let clause = sql.dropFirst(registry.table.selectFromSQL.count)
            if ["select", "join", "from"].contains(where: { SQL.mentions(String(clause), $0) }) { models.readRegion?.insert(Self.anyTable) }
        }
        return try mapped(remote) {
            let (sql, arguments) = try ArgumentList.expand(sql, arguments)
            let statement = try remote.cachedStatement(remote.engineSQL(sql))
            defer { statement.reset() }
            try statement.bind(values: arguments.map { try $0.sqlValue })
            var objects: [ModelObject] = []
            var more = try statement.step()
            // The engine knows the row count once the result is in: the identity map and the kept rows grow
            // once, not by doubling row by row.
            if more, let rows = statement.resultRowCount, rows > 1 {
                let expected = min(rows, limit ?? rows)
                objects.reserveCapacity(expected)
                registry.reserveKeyCapacity(expected)
                if !registry.remoteReadStamps, expected > models.remoteRows.count { models.remoteRows.reserveCapacity(expected) }
            }
            while more {
                objects.append(try remoteObject(from: statement, registry: registry))
                if let limit, objects.count >= limit { break }
                more = try statement.step()
            }
            models.pruneRemoteRows()
            return objects
        }
    }

    /// On an engine other than SQLite, the objects a clause selects (the public fetches' first step); nil on
    /// SQLite, whose fetches go on to their own row loops.
    @usableFromInline
    func remoteObjects(_ type: any Model.Type, clause: String, arguments: [any ColumnValue], limit: Int? = nil) throws -> [ModelObject]? {
        guard let remote else { return nil }
        let registry = try remoteRegistry(remote, for: type)
        return try remoteObjects(remote, registry: registry, sql: remoteSelect(registry, clause: clause), arguments: arguments, limit: limit)
    }

    /// The SELECT of a model's columns followed by a clause (`$T`, `$PK` and a leading condition as on SQLite).
    func remoteSelect(_ registry: TypeRegistry, clause: String) -> String {
        clause.isEmpty ? registry.table.selectFromSQL
            : registry.table.selectFromSQL + " " + expand(SQLClause.normalized(clause), registry)
    }

    /// The object with `key`: the live instance (no query), else one SELECT.
    /// A live instance read before the handle's last raw write reads its row again (brought up to date, or
    /// marked deleted when the row is gone).
    func remoteObject<C: RemoteConnection>(_ remote: C, registry: TypeRegistry, key: SQLValue) throws -> ModelObject? {
        let live = registry.instance(key: key)
        if let live, !live._isDeleted, remoteReadAt(live, registry: registry) == models.remoteRawWrites { return live }
        let parts = try keyParts(key, registry: registry)
        let found = try remoteObjects(remote, registry: registry, sql: registry.table.selectFromSQL + " WHERE " + remoteKeyClause(registry),
                                      arguments: parts).first
        if found == nil, let live, !live._isDeleted { registry.detach(live, deleted: true) }
        return found
    }

    /// A key's parts as values to bind (a composite key's parts; a single key itself).
    private func keyParts(_ key: SQLValue, registry: TypeRegistry) throws -> [SQLValue] {
        guard registry.table.keyCount > 1 else { return [key] }
        try checkCompositeKey(key, registry: registry)
        return try CompositeKey(sqlValue: key).values
    }

    private func remoteKeyClause(_ registry: TypeRegistry) -> String {
        registry.table.quotedNames.prefix(registry.table.keyCount).map { "\($0) = ?" }.joined(separator: " AND ")
    }

    /// The live instance of the current row, brought up to date, or a new one decoded from it and registered.
    func remoteObject<S: DriverStatement>(from statement: S, registry: TypeRegistry) throws -> ModelObject where S: RemoteStatement {
        let metadata = registry.metadata
        let count = metadata.properties.count
        // (A single key without an array; its identity made once, for the lookup and the registration. An
        // integer key straight from its cell, with no value made: its identity is the integer.)
        if metadata.keyIsInteger, !registry.keyIsRowID, let integer = remoteIntegerKey(statement) {
            return try remoteObject(from: statement, registry: registry, identity: .integer(integer))
        }
        let key: SQLValue, isNull: Bool
        if registry.table.keyCount == 1 {
            key = statement.value(at: 0)
            isNull = key.isNull
        } else {
            let keyParts = (0..<registry.table.keyCount).map { statement.value(at: Int32($0)) }
            key = CompositeKey(values: keyParts).sqlValue
            isNull = keyParts.contains(where: \.isNull)
        }
        if isNull {
            throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name,
                             "a row of \(registry.table.table) has a NULL primary key, which cannot identify an instance")
        }
        let identity = registry.keyIsRowID ? nil : registry.identity(of: key)
        if let live = identity.map(registry.instance(identity:)) ?? registry.instance(key: key), !live._isDeleted {
            try merge((0..<count).map { statement.text(at: Int32($0)) }, from: statement, into: live, registry: registry)
            return live
        }
        let object: ModelObject = metadata.type.init()
        try remoteDecode(statement, into: object, registry: registry)
        registry.register(object, rowID: 0, identity: identity ?? registry.identity(of: key))
        remoteKeepRow(of: statement, for: object, registry: registry)
        return object
    }

    /// ``remoteObject(from:registry:)`` for a row whose key is the integer `identity`: the live instance is
    /// found, or the new one registered, by one hash and one probe of the identity map.
    private func remoteObject<S: DriverStatement>(from statement: S, registry: TypeRegistry, identity: IdentityKey) throws -> ModelObject where S: RemoteStatement {
        let (live, slot) = registry.find(identity: identity, hash: KeyMap.hash(identity))
        if let live, !live._isDeleted {
            try merge((0..<registry.metadata.properties.count).map { statement.text(at: Int32($0)) }, from: statement, into: live, registry: registry)
            return live
        }
        let object: ModelObject = registry.metadata.type.init()
        try remoteDecode(statement, into: object, registry: registry)
        if live == nil {
            registry.register(new: object, rowID: 0, identity: identity, hash: KeyMap.hash(identity), at: slot)
        } else {
            registry.register(object, rowID: 0, identity: identity)
        }
        remoteKeepRow(of: statement, for: object, registry: registry)
        return object
    }

    /// The current row's integer key (column 0) read from its cell, as the fetch reads integer fields; nil
    /// when it is not an integer cell (NULL, another type: the general path converts it, or throws).
    @inline(__always)
    private func remoteIntegerKey<S: RemoteStatement>(_ statement: S) -> Int64? {
        var word: UInt64 = 0
        var isReal = false
        let stop = withUnsafePointer(to: &isReal) { real in
            statement.readWords(from: 0, reals: UnsafeBufferPointer(start: real, count: 1), into: &word)
        }
        return stop == nil ? Int64(bitPattern: word) : nil
    }

    /// A property's value in its column's format (a JSON value through its own restyling, which keeps a
    /// whole Double's `.0`). A value that cannot be stored (a `UInt64` above `Int64.max`) throws naming the
    /// model and property, as SQLite's binding does.
    func remoteValue(_ object: ModelObject, _ property: PropertyMetadata, _ format: ColumnFormat, model: String) throws -> SQLValue {
        do {
            if case .jsonText = format, case .generic(let io) = property.accessor { return try io.load(object, format: format) }
            return try format.stored(property.accessor.load(object))
        } catch var error as ValueConversionError {
            error.writing = true
            throw error.located(column: property.column, model: model, property: property.name)
        } catch let error as ModelError where error.kind == .unsavedRelated && error.property == nil {
            // A reference's field knows the related type only: the error names the model saved and its property.
            throw ModelError(.unsavedRelated, model: model, property: property.name, error.message)
        }
    }

    /// How dates are written on the engine: `2020-09-13 12:26:40.250000+00:00`, which a `timestamptz` (and a
    /// `timestamp`, without the offset's meaning) reads exactly to the microsecond.
    static let remoteTimestampStyle = DateTimeTextStyle(separator: " ", fractionDigits: 6, zoneSuffix: "+00:00")

    /// One column of the current row into its property (an error names the table, key and column): in its
    /// column's format; a Decimal from the engine's text, every digit (a `numeric` cell reads as a double).
    /// (`column`: the statement's column holding property `i`.)
    func remoteStore<S: RemoteStatement>(_ statement: S, column: Int, property i: Int, into object: ModelObject, registry: TypeRegistry) throws {
        let property = registry.metadata.properties[i]
        do {
            var value = statement.value(at: Int32(column))
            if property.formatKind == .decimal, property.related == nil, let text = statement.text(at: Int32(column)) { value = .text(text) }
            let format = registry.table.formats[i]
            try property.accessor.store(format == .native ? value : format.native(value), into: object)
        } catch let error as ValueConversionError {
            let name = registry.metadata.properties[i].name
            var located = error.located(column: registry.table.columns[i], model: registry.metadata.typeName, property: name)
            if registry.table.formats[i] == .textArray, let text = statement.text(at: Int32(i)), ArrayText.elements(text)?.contains(nil) == true {
                located.reason = "the array holds a NULL element, which [String] cannot hold: declare the property [String?], or replace the NULL elements in the column"
            }
            located.table = located.table ?? registry.table.table
            located.key = located.key ?? statement.value(at: 0)
            throw located
        }
    }

    /// A live instance meets its row again: the columns the row changed since the instance read it take the
    /// row's values where the instance did not change them; where it did, a conflict is recorded (its next
    /// save throws it, and takes the row).
    private func merge<S: RemoteStatement>(_ texts: [String?], from statement: S, into object: ModelObject, registry: TypeRegistry) throws {
        let id = ObjectIdentifier(object)
        guard let known = remoteKnownTexts(object, registry: registry), known != texts else {
            remoteNoteRead(object, registry: registry)
            return
        }
        let local = registry.changes(of: object)
        var taken = ColumnSet(), conflicting: [String] = []
        for i in texts.indices where texts[i] != known[i] {
            if local.contains(i) {
                conflicting.append(registry.metadata.properties[i].name)
            } else {
                try remoteStore(statement, column: i, property: i, into: object, registry: registry)
                taken.insert(i)
            }
        }
        if !taken.isEmpty { registry.capture(object, properties: taken) }
        var updated = known
        for i in taken.indices { updated[i] = texts[i] }
        if !conflicting.isEmpty {
            registry.conflicts[id] = conflicting
            models.remoteConflictRows[id] = texts
        }
        remoteKeep(updated, for: object, registry: registry)
        remoteNoteRead(object, registry: registry)
    }

    // MARK: Save

    /// ``save(_:)-(T)`` on the engine: an INSERT of a new instance, an UPDATE of what changed for a saved one.
    func remoteSave<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        if object._isDeleted {
            throw ModelError(.deleted, model: metadata.typeName, "the instance was deleted; make a new one to insert the row again")
        }
        if let owner = object._registry {
            guard owner === registry else {
                throw ModelError(.foreignInstance, model: metadata.typeName, "the instance belongs to another database handle")
            }
            do { try remoteUpdate(remote, object, registry: registry) } catch { noteRefused(object); throw error }
        } else {
            let selfReferences = metadata.fieldsHoldingItself(object)
            if selfReferences.isEmpty { return try remoteInsert(remote, object, registry: registry) }
            // A new object that refers to itself, as on SQLite: inserted with those references unset (it has
            // no key yet), then updated with its own key, in a transaction (a savepoint inside one) of its
            // own: the two statements are one save, all or nothing (a rollback makes the instance new again).
            try remoteTransaction(remote, .immediate) {
                for field in selfReferences { field.setHoldsItself(object, false) }
                do {
                    defer { for field in selfReferences { field.setHoldsItself(object, true) } }
                    try remoteInsert(remote, object, registry: registry)
                }
                try remoteUpdate(remote, object, registry: registry)
            }
        }
    }

    /// A save of `object` failed inside a block: when that block rolls back, the instance reads its row
    /// again without the changes the block made (a retried block applies them once), as on SQLite.
    private func noteRefused(_ object: ModelObject) {
        if remoteWriteDepth > 0 { models.refusedInTransaction[ObjectIdentifier(object)] = (object, remoteWriteDepth) }
    }

    /// INSERT … RETURNING what the instance takes from the engine: the key, the columns not written
    /// (defaults, generated) and those whose text it keeps (``remoteKeepRow(of:for:registry:columns:)``);
    /// every column of a table with triggers (they may change what was written). An integer column
    /// written is not returned: the engine stores exactly the value written, whose text is spelled from
    /// the snapshot.
    private func remoteInsert<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata, table = registry.table
        let count = metadata.properties.count
        var columns = Array(0..<count).filter { !table.generated.contains($0) }
        // An integer key of 0 (or nil): the engine assigns it.
        var keyAssigned = false
        if metadata.keyCount == 1 && metadata.keyIsInteger {
            let key = try metadata.key.accessor.load(object)
            if key == .integer(0) || key.isNull { columns.removeAll { $0 == 0 }; keyAssigned = true }
        }
        // A key the instance brings (not one the engine assigns) that a live instance stands for already:
        // refused before anything is sent, as on SQLite (a second instance of a row, composite keys too).
        if columns.first == 0 {
            let key = try metadata.key.accessor.load(object)
            if registry.instance(key: key) != nil {
                throw ModelError(.duplicateInstance, model: metadata.typeName, property: metadata.key.name, key: key,
                                 "another live instance already stands for the row with key \(key); change that one, or fetch it with object(_:forKey:)")
            }
        }
        let written = columns.reduce(into: ColumnSet()) { $0.insert($1) }
        let fromSnapshot = registry.remoteTextsFromSnapshot
        let returned = (0..<count).filter { i in
            registry.remoteInsertReturnsAll || i < metadata.keyCount || !written.contains(i) || !fromSnapshot.contains(i)
        }
        let sql: String
        if let cached = registry.remoteInsertSQL[written] {
            sql = cached
        } else {
            let names = columns.map { table.quotedNames[$0] }
            let returning = returned.map { table.quotedNames[$0] }.joined(separator: ", ")
            sql = remote.engineSQL(names.isEmpty ? "INSERT INTO \(table.quotedTable) DEFAULT VALUES RETURNING \(returning)"
                : "INSERT INTO \(table.quotedTable) (\(names.joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count))) RETURNING \(returning)")
            registry.remoteInsertSQL[written] = sql
        }
        let values = try columns.map { try remoteValue(object, metadata.properties[$0], table.formats[$0], model: metadata.typeName) }
        try remoteWillWrite(remote)
        let statement = try mapped(remote) { try remote.cachedStatement(sql) }
        defer { statement.reset() }
        do {
            try statement.bind(values: values)
            guard try statement.step() else {
                throw ModelError(.readOnly, model: metadata.typeName, "the INSERT returned no row (a rule or trigger skipped it); nothing was saved")
            }
        } catch {
            throw saveFailed(remote.databaseError(error), object: object, registry: registry, updating: nil, written: written)
        }
        var statementColumns = [Int32?](repeating: nil, count: count)
        for (n, i) in returned.enumerated() {
            try remoteStore(statement, column: n, property: i, into: object, registry: registry)
            statementColumns[i] = Int32(n)
        }
        let key = try registry.currentIdentity(of: object)
        registry.register(object, rowID: 0, identity: key)
        registry.capture(object)
        remoteKeepRow(of: statement, for: object, registry: registry, columns: statementColumns)
        models.changeCount &+= 1   // a reference known to have no row may find this one
        if remoteWriteDepth > 0 { models.remoteWrites.append((object, registry, inserted: true, keyAssigned: keyAssigned, depth: remoteWriteDepth)) }
        if models.remoteLog.observing { remoteRecord(registry, .insert, key: observedKey(object, registry)) }
        // The loaded `@Children` arrays of the new row's parents: their next read includes it.
        if registry.hasParentArrays {
            registry.dropParentsArrays(of: object, holdingIt: false)
            noteChildMoved(registry)
        }
    }

    /// UPDATE of the changed columns where each still holds what the instance read: a row changed since is
    /// a conflict (the instance takes the row), a row gone marks the instance deleted.
    private func remoteUpdate<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata, table = registry.table
        let id = ObjectIdentifier(object)
        if registry.needsAttention(object) { try remoteThrowConflict(remote, object, registry: registry) }
        let key = try registry.checkedKey(of: object)
        var changed = registry.changes(of: object)
        for part in 0..<metadata.keyCount { changed.remove(part) }
        table.generated.forEach { changed.remove($0) }
        guard !changed.isEmpty, let kept = remoteKeptTexts(object, registry: registry) else { return }
        let indices = changed.indices
        // Columns whose text is spelled from the snapshot (integers) need not come back: the engine stores
        // the value written, and the count of rows written tells a held guard from a conflict.
        let derived = registry.remoteTextsFromSnapshot
        let returnsNothing = indices.allSatisfy { derived.contains($0) }
        let sql: String
        if let cached = registry.remoteUpdateSQL[changed] {
            sql = cached
        } else {
            let assignments = indices.map { "\(table.quotedNames[$0]) = ?" }.joined(separator: ", ")
            // (A citext column compares its text: a change of case alone by another writer is a conflict.)
            let unchanged = indices.map {
                table.textGuardedColumns.contains($0) ? "\(table.quotedNames[$0])::text IS NOT DISTINCT FROM ?::text"
                    : "\(table.quotedNames[$0]) IS NOT DISTINCT FROM ?"
            }.joined(separator: " AND ")
            let update = "UPDATE \(table.quotedTable) SET \(assignments) WHERE \(remoteKeyClause(registry)) AND \(unchanged)"
            sql = remote.engineSQL(returnsNothing ? update : update + " RETURNING " + indices.map { table.quotedNames[$0] }.joined(separator: ", "))
            registry.remoteUpdateSQL[changed] = sql
        }
        // What the instance last read or wrote of column i: the snapshot's integer, or the kept text.
        func known(_ i: Int) -> SQLValue {
            if derived.contains(i) { return remoteSnapshotInteger(object, registry: registry, at: i).map(SQLValue.integer) ?? .null }
            var n = 0
            for j in 0..<i where !derived.contains(j) { n += 1 }
            return (n < kept.count ? kept[n] : nil).map(SQLValue.text) ?? .null
        }
        var values = try indices.map { try remoteValue(object, metadata.properties[$0], table.formats[$0], model: metadata.typeName) }
        values.reserveCapacity(indices.count * 2 + table.keyCount)
        for part in 0..<table.keyCount { values.append(known(part)) }
        for i in indices { values.append(known(i)) }
        try remoteWillWrite(remote)
        let statement = try mapped(remote) { try remote.cachedStatement(sql) }
        defer { statement.reset() }
        let wrote: Bool
        do {
            try statement.bind(values: values)
            let returned = try statement.step()
            wrote = returnsNothing ? remote.changes > 0 : returned
        } catch {
            throw saveFailed(remote.databaseError(error), object: object, registry: registry, updating: key, written: changed)
        }
        guard wrote else {
            statement.reset()
            // No row where the key and the columns still hold what the instance read: gone, or changed.
            guard let known = remoteKnownTexts(object, registry: registry),
                  let row = try remoteRowTexts(remote, registry: registry, keyTexts: Array(known.prefix(table.keyCount))) else {
                throw rowGone(object, registry: registry, key: key)
            }
            registry.conflicts[id] = indices.filter { row[$0] != known[$0] }.map { metadata.properties[$0].name }
            models.remoteConflictRows[id] = row
            try remoteThrowConflict(remote, object, registry: registry)
        }
        // The kept texts change only where a column not spelled from the snapshot was written.
        if !returnsNothing, var texts = remoteKnownTexts(object, registry: registry) {
            for (n, i) in indices.enumerated() { texts[i] = statement.text(at: Int32(n)) }
            remoteKeep(texts, for: object, registry: registry)
        }
        // A child that moved leaves its former parent's loaded array and reaches the new one's.
        if registry.hasParentArrays && registry.dropArraysOfMovedChild(object, changed: changed) { noteChildMoved(registry) }
        registry.capture(object, properties: changed)
        if remoteWriteDepth > 0 { models.remoteWrites.append((object, registry, inserted: false, keyAssigned: false, depth: remoteWriteDepth)) }
        if models.remoteLog.observing {
            remoteRecord(registry, .update, key: observedKey(object, registry), properties: indices.map { metadata.properties[$0].name })
        }
    }

    /// The texts of the row with the key an instance read (the key columns' own texts), or nil when it is gone.
    private func remoteRowTexts<C: RemoteConnection>(_ remote: C, registry: TypeRegistry, keyTexts: [String?]) throws -> [String?]? {
        try mapped(remote) {
            let statement = try remote.cachedStatement(remote.engineSQL(registry.table.selectFromSQL + " WHERE " + remoteKeyClause(registry)))
            defer { statement.reset() }
            try statement.bind(values: keyTexts.map { $0.map(SQLValue.text) ?? .null })
            guard try statement.step() else { return nil }
            return (0..<registry.metadata.properties.count).map { statement.text(at: Int32($0)) }
        }
    }

    /// Throws the conflict recorded for `object` after it takes the committed row (as on SQLite: applying
    /// the change again then works).
    private func remoteThrowConflict<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws -> Never {
        let metadata = registry.metadata
        let id = ObjectIdentifier(object)
        let columns = registry.conflicts.removeValue(forKey: id) ?? []
        models.remoteConflictRows[id] = nil
        let key = try? registry.checkedKey(of: object)
        try remoteReload(remote, object, registry: registry)
        models.lastConflicted = id
        throw ModelError(.conflict, model: metadata.typeName, key: key, properties: columns,
                         "another connection or raw SQL changed \(columns.joined(separator: ", ")) after this instance read them, and this instance changed them too. Nothing was written; the instance now holds the committed values: apply the change again and save (Database.retryingOnConflict does this)")
    }

    /// Reads the row of `object` again, dropping its unsaved changes; a row that is gone marks it deleted.
    func remoteReload<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws {
        guard let known = remoteKnownTexts(object, registry: registry) else { return }
        try mapped(remote) {
            let statement = try remote.cachedStatement(remote.engineSQL(registry.table.selectFromSQL + " WHERE " + remoteKeyClause(registry)))
            defer { statement.reset() }
            try statement.bind(values: known.prefix(registry.table.keyCount).map { $0.map(SQLValue.text) ?? .null })
            guard try statement.step() else {
                registry.detach(object, deleted: true)
                return
            }
            for i in 0..<registry.metadata.properties.count { try remoteStore(statement, column: i, property: i, into: object, registry: registry) }
            registry.capture(object)
            remoteKeepRow(of: statement, for: object, registry: registry)
        }
    }

    // MARK: Delete

    /// DELETE of the instance's row (by the key it read); the instance is marked deleted.
    func remoteDelete<C: RemoteConnection>(_ remote: C, _ object: ModelObject, registry: TypeRegistry) throws {
        guard object._registry === registry, !object._isDeleted, let known = remoteKnownTexts(object, registry: registry) else {
            if object._registry == nil { throw ModelError(.notFound, model: registry.metadata.typeName, "the instance was never saved: there is no row to delete") }
            return
        }
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        try remoteWillWrite(remote)
        try mapped(remote) {
            let statement = try remote.cachedStatement(remote.engineSQL("DELETE FROM \(registry.table.quotedTable) WHERE \(remoteKeyClause(registry))"))
            defer { statement.reset() }
            try statement.bind(values: known.prefix(registry.table.keyCount).map { $0.map(SQLValue.text) ?? .null })
            while try statement.step() {}
        }
        if remoteWriteDepth > 0 { models.remoteWrites.append((object, registry, inserted: false, keyAssigned: false, depth: remoteWriteDepth)) }
        if models.remoteLog.observing { remoteRecord(registry, .delete, key: observedKey(object, registry)) }
        registry.detach(object, deleted: true)
        models.changeCount &+= 1   // (a reference known to have no row trusts that while the count stands)
        // The live instances the engine's ON DELETE CASCADE / SET NULL changed (Database+RemotePrefetch.swift).
        if registry.metadata.keyCount == 1, let key = try? registry.metadata.key.accessor.load(object) {
            // (The row is deleted already: should reading the children again fail, every live instance reads
            // its row again when next looked up by key, as after raw SQL.)
            do { try remoteFollowCascades(remote, deleted: registry, keys: [key]) } catch { models.remoteRawWrites &+= 1 }
        }
    }

    // MARK: Transactions

    /// After the engine rolled back to `depth` (0: the whole transaction): the instances inserted since are
    /// new again; those updated or deleted since read their rows again.
    func remoteRestoreAfterRollback<C: RemoteConnection>(_ remote: C, toDepth depth: Int) {
        var restored = Set<ObjectIdentifier>()
        models.changeCount &+= 1   // rows deleted since are back
        let undone = models.remoteWrites.filter { $0.depth > depth }.reversed()
        models.remoteWrites.removeAll { $0.depth > depth }
        var undoneInserts: [ModelObject] = []
        for write in undone where restored.insert(ObjectIdentifier(write.object)).inserted {
            if write.inserted {
                undoneInserts.append(write.object)
                write.registry.detach(write.object, deleted: false)
                models.remoteRows[ObjectIdentifier(write.object)] = nil
                // As on SQLite: a key the engine gave goes back to 0, so that the next save inserts it anew
                // (keeping it would insert it by that key, which the identity will hand out again).
                if write.keyAssigned { try? write.registry.metadata.key.accessor.store(.integer(0), into: write.object) }
            } else {
                // Deleted since: the live instance of its row again (unless another took the key), then read.
                if write.object._isDeleted, let identity = try? write.registry.currentIdentity(of: write.object),
                   write.registry.instance(identity: identity) == nil {
                    write.registry.register(write.object, rowID: 0, identity: identity)
                }
                if write.object._registry === write.registry && !write.object._isDeleted {
                    try? remoteReload(remote, write.object, registry: write.registry)
                }
            }
        }
        // As on SQLite: references and arrays of live instances holding an object whose insert was undone
        // let it go (a reference keeps the key it holds, and finds the row again if one is made).
        if !undoneInserts.isEmpty {
            var live: [(ModelObject, TypeRegistry)] = []
            for registry in models.registries.values { live += registry.liveInstances.map { ($0, registry) } }
            releaseUndoneInserts(undoneInserts, heldBy: live)
        }
        // Rows of child types the transaction wrote may be back under parents whose arrays were loaded
        // meanwhile (kept for the transaction, as on SQLite).
        for registry in models.registries.values where models.childTypesWrittenInTransaction.contains(ObjectIdentifier(registry)) {
            registry.dropEveryParentsArrays()
        }
        if depth == 0 { models.childTypesWrittenInTransaction.removeAll() }
        // Instances whose save the rolled-back levels refused read their rows again.
        for (id, entry) in models.refusedInTransaction where entry.depth > depth {
            models.refusedInTransaction[id] = nil
            if restored.insert(id).inserted, let registry = entry.object._registry, !entry.object._isDeleted {
                try? remoteReload(remote, entry.object, registry: registry)
            }
        }
    }
}

/// A statement of an engine other than SQLite that can give a column's text as the engine spelled it:
/// what a live instance keeps of its row to recognise a change made by others.
package protocol RemoteStatement: DriverStatement {
    /// The column of the current row in the engine's text form; nil for NULL.
    func text(at index: Int32) -> String?
    /// Reads columns `first..<reals.count` of the current row into `words` as 8-byte numbers: an integer
    /// column where `reals[i]` is false (its `Int64`'s bits), a real one where it is true (its `Double`'s
    /// bits). Stops at the first column that is NULL or of another kind and returns its index (for the
    /// converting path); nil when all were read. One call per row: a model of 8-byte numbers is read with
    /// no call per cell across the driver boundary.
    func readWords(from first: Int, reals: UnsafeBufferPointer<Bool>, into words: UnsafeMutablePointer<UInt64>) -> Int?
    /// The number of rows the statement's result holds, once its first `step()` has fetched it (an engine
    /// that fetches the whole result at once knows it); nil when the engine does not know it.
    var resultRowCount: Int? { get }
}

extension RemoteStatement {
    /// Not known (a driver that streams its rows).
    package var resultRowCount: Int? { nil }

    /// ``readWords(from:reals:into:)`` through ``DriverStatement/cell(at:)``, for a driver without its own.
    package func readWords(from first: Int, reals: UnsafeBufferPointer<Bool>, into words: UnsafeMutablePointer<UInt64>) -> Int? {
        var i = first
        while i < reals.count {
            let value = cell(at: Int32(i))
            let type = value.kind
            if type == .integer && !reals[i] {
                words[i] = UInt64(bitPattern: value.int64)
            } else if type == .real && reals[i] {
                words[i] = value.double.bitPattern
            } else {
                return i
            }
            i += 1
        }
        return nil
    }
}

extension ModelContext {
    /// Drops the rows kept for instances gone (``remoteRows``), once the map has doubled since the last time
    /// (after a fetch, not per row). While the identity maps hold as many instances as the map has rows
    /// (a first large fetch, nothing released yet), there is nothing to drop and no set of the live ones is made.
    func pruneRemoteRows() {
        guard remoteRows.count >= 1_024, remoteRows.count > 2 * remoteRowsAfterPrune else { return }
        // (The instances of tables with read stamps keep no row here.)
        if registries.values.reduce(0, { $0 + ($1.remoteReadStamps ? 0 : $1.liveCount) }) >= remoteRows.count {
            remoteRowsAfterPrune = remoteRows.count
            return
        }
        var live = Set<ObjectIdentifier>()
        for registry in registries.values { for object in registry.liveInstances { live.insert(ObjectIdentifier(object)) } }
        remoteRows = remoteRows.filter { live.contains($0.key) }
        remoteRowsAfterPrune = remoteRows.count
    }
}
