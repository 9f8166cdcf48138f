// Updating a saved instance: the UPDATE of what changed, binding, what a failed write reports, and marking the
// library's own writes for the change hooks. The public entry points are in Database+Persistence.swift.
extension Database {
    /// UPDATE of the properties that changed since the snapshot; none changed: nothing. A row that is
    /// gone (0 rows changed) is never re-inserted: the instance is marked deleted and the save throws.
    @inline(never)   // (kept out of updatePlainWords, which falls back to it)
    func update(_ object: ModelObject, registry: TypeRegistry, changed known: ColumnSet? = nil) throws {
        let metadata = registry.metadata
        if let reason = registry.table.readOnlyReason { throw readOnlyError(registry, reason) }
        // (With `known`, the caller checked the instance needs no attention.)
        if known == nil && registry.needsAttention(object) { try throwConflictOrStale(object, registry: registry) }
        // A changed key property is refused here: the instance stays the row it was.
        let key = try registeredKey(of: object, registry: registry)
        var changed = known ?? registry.changes(of: object)
        for part in 0..<metadata.keyCount { changed.remove(part) }
        guard !changed.isEmpty else { return }
        if !registry.table.generated.isEmpty {
            var written = changed
            registry.table.generated.forEach { written.remove($0) }
            if written != changed {
                let names = registry.table.generated.indices.filter { !written.contains($0) && changed.contains($0) }.map { metadata.properties[$0].name }
                throw ModelError(.readOnly, model: metadata.typeName, property: names.first, key: key, properties: names,
                                 "\(names.joined(separator: ", ")) map(s) to generated column(s), which SQLite computes: they are read, never written; nothing was written")
            }
        }
        let statement = try registry.table.updateStatement(changed, in: connection)
        var count: Int32 = 0
        try bind(object, properties: changed, to: statement, registry: registry, count: &count)
        try registry.table.bindKey(key, to: statement, at: count + 1)
        do {
            try runOwnWrite(statement, registry: registry, rowID: object._rowID, writing: object)
        } catch {
            throw saveFailed(error, object: object, registry: registry, updating: key, written: changed)
        }
        // (A view's INSTEAD OF trigger makes its changes in other tables: SQLite counts none for the view.)
        guard changes > 0 || registry.table.isView else { throw rowGoneOrWriteIgnored(object, registry: registry, key: key) }
        if registry.hasParentArrays && registry.dropArraysOfMovedChild(object, changed: changed) { noteChildMoved(registry) }
        updated(object, properties: changed, registry: registry)
        // Generated columns follow the columns written, with no update-hook report of their own, as do the
        // writes of a WITHOUT ROWID table's triggers to its own rows: read them.
        if !registry.table.generated.isEmpty || (!registry.table.hasRowID && registry.table.hasUpdateTriggers) {
            refresh(object, registry: registry)
        }
    }

    /// ``update(_:registry:changed:)`` inside a transaction for the most common shape
    /// (``TypeRegistry/updatesPlainWords``): the key and each changed field read and bound in place, with no
    /// ``SQLValue`` and no lookup per save, and the statement stepped here. The same checks, in the same
    /// order; a key property changed since the instance was registered takes the general path, which refuses it.
    func updatePlainWords(_ object: ModelObject, registry: TypeRegistry, start: Int, changed known: UInt64) throws {
        guard Int64(bitPattern: loadPlainWord(object, start: start, index: 0)) == object._rowID else {
            return try update(object, registry: registry, changed: ColumnSet(low: known))
        }
        let changed = known & ~1
        guard changed != 0 else { return }
        // Unretained: the mapping's cache of statements holds it for this one use.
        try registry.table.unretainedUpdateStatement(ColumnSet(low: changed), in: connection)._withUnsafeGuaranteedRef {
            try updatePlainWords(object, registry: registry, start: start, changed: changed, statement: $0)
        }
    }

    /// The rest of ``updatePlainWords(_:registry:start:changed:)``, with its statement.
    @inline(__always)
    func updatePlainWords(_ object: ModelObject, registry: TypeRegistry, start: Int, changed: UInt64, statement: Statement) throws {
        let reals = registry.plainRealMask
        var parameter: Int32 = 1
        var bits = changed
        while bits != 0 {
            let i = bits.trailingZeroBitCount
            if !bindPlainWord(object, start: start, index: i, isReal: reals & (1 << UInt64(i)) != 0, to: statement, at: parameter) {
                try bindConverting(object, property: i, to: statement, at: parameter, registry: registry)
            }
            parameter += 1
            bits &= bits - 1
        }
        let rowID = object._rowID
        statement.bind(int64: rowID, at: parameter)
        do {
            try ownWrite(registry: registry, rowID: rowID, inTransaction: true) {
                defer { statement.reset() }
                while try statement.step() {}
            }
        } catch {
            throw saveFailed(error, object: object, registry: registry, updating: .integer(rowID), written: ColumnSet(low: changed))
        }
        guard connection.changes > 0 else {
            throw rowGoneOrWriteIgnored(object, registry: registry, key: .integer(rowID))
        }
        if registry.hasParentArrays && registry.dropArraysOfMovedChild(object, changed: ColumnSet(low: changed)) { noteChildMoved(registry) }
        if object._snapshotSlot != 0 {
            registry.capturePlainWords(object, start: start, properties: changed)
        } else {
            registry.capture(object, properties: ColumnSet(low: changed))
        }
        if !models.observers.isEmpty { recordUpdate(object, properties: ColumnSet(low: changed), registry: registry) }
    }

    /// The error a failed INSERT or UPDATE of a save throws (out of line: the save's hot path stays short): a
    /// UNIQUE or NOT NULL violation as a ``ModelError`` (``duplicateKeyError(_:object:registry:)``); any other
    /// constraint (CHECK, a STRICT column's type, a foreign key, a trigger's RAISE) as SQLite's error, code,
    /// SQL and arguments kept, with a message that goes on to name the model, the key (`updating`, nil for an
    /// insert) and the properties written — the column's property, when SQLite names a column.
    @inline(never)
    func saveFailed(_ error: any Error, object: ModelObject, registry: TypeRegistry, updating key: SQLValue?, written: ColumnSet) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if error.code.isUniqueViolation || error.code == .constraintNotNull {
            return duplicateKeyError(error, object: object, registry: registry)
        }
        guard error.code.primary == .constraint else { return error }
        let metadata = registry.metadata, table = registry.table
        // "cannot store TEXT value in INTEGER column t.amount" (STRICT): the column is named.
        var names: [String] = []
        if error.message.hasPrefix("cannot store"), let column = error.message.split(separator: ".").last,
           let index = table.columns.firstIndex(where: { $0.sqlNameEquals(column) }) {
            names = [metadata.properties[index].name + (table.columns[index] == metadata.properties[index].name ? "" : " (column \"\(table.columns[index])\")")]
        } else {
            names = written.indices.filter { $0 < metadata.properties.count }.map { metadata.properties[$0].name }
        }
        let what = key.map { "updating \(metadata.typeName) (key \($0))" } ?? "inserting a new \(metadata.typeName)"
        let message = "\(error.message): \(what), writing \(names.isEmpty ? "no property" : names.joined(separator: ", ")) of table \"\(table.table)\". Nothing was written"
        return DatabaseError(code: error.code, message: message, sql: error.sql, arguments: error.arguments,
                             argumentsArePublic: error.argumentsArePublic, sqlState: error.sqlState)
    }

    /// After an UPDATE that changed no row: ``writeIgnored(_:key:)`` when the row is there (a BEFORE UPDATE
    /// trigger's `RAISE(IGNORE)` skipped it: the instance keeps its changes), else ``rowGone(_:registry:key:)``.
    /// (Out of line: the failure path reads the row by key.)
    @inline(never)
    func rowGoneOrWriteIgnored(_ object: ModelObject, registry: TypeRegistry, key: SQLValue) -> ModelError {
        rowExists(registry, key: key) ? writeIgnored(registry, key: key) : rowGone(object, registry: registry, key: key)
    }

    /// Whether the table of `registry` has a row with `key` (false when it cannot tell). Read on failure paths.
    @inline(never)
    func rowExists(_ registry: TypeRegistry, key: SQLValue) -> Bool {
        let table = registry.table
        guard let statement = try? connection.cachedStatement("SELECT 1 FROM \(SQL.quote(table.table)) WHERE \(table.keyClause)") else { return false }
        defer { statement.reset() }
        return (try? table.bindKey(key, to: statement, at: 1)) != nil && (try? statement.step()) == true
    }

    /// The error for an INSERT (`key` nil), UPDATE or DELETE that SQLite skipped without an error: a
    /// trigger's `RAISE(IGNORE)`, or for an insert or update an `ON CONFLICT IGNORE` constraint. No row was written;
    /// the instance stays as it was (unsaved, or with its changes, or not deleted).
    func writeIgnored(_ registry: TypeRegistry, key: SQLValue?, deleting: Bool = false) -> ModelError {
        let metadata = registry.metadata
        let what = key == nil ? "the INSERT of a new \(metadata.typeName)" : deleting ? "the DELETE" : "the UPDATE"
        let kept = key == nil ? "and stays unsaved" : deleting ? "and is not deleted" : "and its unsaved changes"
        return ModelError(.readOnly, model: metadata.typeName, key: key,
                          "\(what) \(deleting ? "deleted" : "wrote") no row of \"\(registry.table.table)\": a trigger's RAISE(IGNORE)\(deleting ? "" : ", or an ON CONFLICT IGNORE constraint,") skipped it. Nothing was written; the instance keeps its values \(kept)")
    }

    /// After an UPDATE that changed no row: the row is gone, so the instance is marked deleted (a save never
    /// re-creates a row); the error to throw.
    func rowGone(_ object: ModelObject, registry: TypeRegistry, key: SQLValue) -> ModelError {
        if isInTransaction { models.noteDeleted(object) }
        registry.detach(object, deleted: true)
        return ModelError(.notFound, model: registry.metadata.typeName, key: key,
                          "the row is gone: another connection or raw SQL deleted it, or changed its key, after this instance read it. Nothing was written (a save never re-creates a row); the instance is now marked deleted")
    }

    /// After an UPDATE of `properties`: they are the instance's stored values now; observers hear of them.
    @inline(__always)
    func updated(_ object: ModelObject, properties changed: ColumnSet, registry: TypeRegistry) {
        registry.capture(object, properties: changed)
        if !models.observers.isEmpty { recordUpdate(object, properties: changed, registry: registry) }
    }

    @inline(never)
    func recordUpdate(_ object: ModelObject, properties changed: ColumnSet, registry: TypeRegistry) {
        let metadata = registry.metadata
        models.recordProperties(changed.indices.map { metadata.properties[$0].name }, table: metadata.tableName, rowID: object._rowID)
    }

    /// Throws the conflict or stale error recorded for `object`; a conflicted instance first takes the
    /// committed values, so that applying the change again works.
    func throwConflictOrStale(_ object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let key = try? registeredKey(of: object, registry: registry)
        if let error = staleError(object, registry: registry, key: key) { throw error }
        let columns = registry.conflicts.removeValue(forKey: ObjectIdentifier(object)) ?? []
        refresh(object, registry: registry, .discard)
        models.lastConflicted = ObjectIdentifier(object)
        throw ModelError(.conflict, model: metadata.typeName, key: key, properties: columns,
                         "another connection or raw SQL changed \(columns.joined(separator: ", ")) after this instance read them, and this instance changed them too. Nothing was written; the instance now holds the committed values: apply the change again and save (Database.retryingOnConflict does this)")
    }

    /// Binds the properties of a set to parameters 1, 2, ... in order; `count` is how many.
    @inline(__always)
    func bind(_ object: ModelObject, properties: ColumnSet, to statement: Statement, registry: TypeRegistry, count: inout Int32) throws {
        var index: Int32 = 1
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals {
            // Fields of 8-byte numbers side by side, all bound natively.
            try reals.withUnsafeBufferPointer { reals in
                try properties.forEach { i in
                    if !bindPlainWord(object, start: start, index: i, isReal: reals[i], to: statement, at: index) {
                        try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                    }
                    index += 1
                }
            }
            count = index - 1
            return
        }
        try registry.fields.withUnsafeBufferPointer { fields in
            try properties.forEach { i in
                if fields[i]?.bind(object, to: statement, at: index) != true {
                    try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                }
                index += 1
            }
        }
        count = index - 1
    }

    /// Binds the given properties to parameters 1, 2, ... in order, each in its column's format.
    @inline(__always)
    func bind<Properties: Sequence<Int>>(_ object: ModelObject, properties: Properties, to statement: Statement, registry: TypeRegistry) throws {
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals {
            // Fields of 8-byte numbers side by side, all bound natively.
            try reals.withUnsafeBufferPointer { reals in
                var index: Int32 = 1
                for i in properties {
                    if !bindPlainWord(object, start: start, index: i, isReal: reals[i], to: statement, at: index) {
                        try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                    }
                    index += 1
                }
            }
            return
        }
        try registry.fields.withUnsafeBufferPointer { fields in
            var index: Int32 = 1
            for i in properties {
                if fields[i]?.bind(object, to: statement, at: index) != true {
                    try bindConverting(object, property: i, to: statement, at: index, registry: registry)
                }
                index += 1
            }
        }
    }

    /// Binds one property through its codec and its column's format; NaN is refused (SQLite would
    /// store NULL, which a non-optional property cannot read back).
    @inline(never)   // the rare path of the binding loops
    func bindConverting(_ object: ModelObject, property i: Int, to statement: Statement, at index: Int32, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        do {
            if case .jsonText = registry.table.formats[i], case .generic(let io) = metadata.properties[i].accessor {
                try statement.bind(try io.load(object, format: registry.table.formats[i]), at: index)
                return
            }
            if metadata.properties[i].related != nil, let error = deletedTarget(of: object, property: i, metadata: metadata) { throw error }
            var value = try metadata.properties[i].accessor.load(object)
            if case .real(let d) = value, d.isNaN {
                throw ValueConversionError(expected: Double.self, found: value,
                                           reason: "NaN cannot be stored: SQLite would store NULL; store nil in an optional, or a number")
            }
            // A Decimal NaN's text ("NaN") is no number any fetch could read back.
            if metadata.properties[i].formatKind == .decimal, case .text("NaN") = value {
                var error = ValueConversionError(expected: Double.self, found: value,
                                                 reason: "NaN cannot be stored: no fetch could read it back; store nil in an optional, or a number")
                error.expected = "Decimal"
                throw error
            }
            let format = registry.table.formats[i]
            if format == .dateText { value = try registry.table.storedDate(value, at: i) } else if format != .native { value = try format.stored(value) }
            try statement.bind(value, at: index)
        } catch var error as ValueConversionError {
            // Everything refused here was on its way in: "cannot store", not "cannot read".
            error.writing = true
            let name = metadata.properties[i].name
            throw error.located(column: name, model: metadata.typeName, property: name)
        } catch let error as ModelError where error.kind == .unsavedRelated && error.property == nil {
            // A reference's field knows the related type only: the error names the model saved and its property.
            throw ModelError(.unsavedRelated, model: metadata.typeName, property: metadata.properties[i].name, error.message)
        }
    }

    /// The error of a reference (property `i`) about to be written while it holds an object whose row was
    /// deleted (through this handle, by `delete` or by raw SQL it saw): its key names no row any more (and
    /// an object deleted before it was assigned has no key at all, which would store NULL). nil when the
    /// property holds no deleted object. Only written columns are checked: a saved row whose reference
    /// points at a since-deleted row, unchanged, saves its other properties as before.
    @inline(never)
    func deletedTarget(of object: ModelObject, property i: Int, metadata: ModelMetadata) -> ModelError? {
        let property = metadata.properties[i]
        guard let related = property.related, case .generic(let io) = property.accessor,
              let target = io.heldTarget(of: object), target._isDeleted else { return nil }
        let relatedName = _typeName(related, qualified: false)
        let targetKey = (try? ModelMetadata.of(related).key.accessor.load(target)).map { "\($0)" } ?? "unknown"
        let ownerKey = object._registry != nil ? try? metadata.key.accessor.load(object) : nil
        let owner = ownerKey.map { "\(metadata.typeName) (key \($0))" } ?? "the new \(metadata.typeName)"
        return ModelError(.deleted, model: metadata.typeName, property: property.name, key: ownerKey,
                          "\(owner).\(property.name) refers to the \(relatedName) with key \(targetKey), which was deleted: its row is gone, so there is no key to store (storing it, or NULL, would lose the relationship silently). Nothing was written. Set \(property.name) to a saved \(relatedName), or to nil")
    }

    /// Steps a write the library makes to one row itself (`rowID`; any row for an insert), so the update
    /// hook does not schedule a refresh for it; rows changed through it (cascades, triggers) still are.
    @inline(__always)
    func runOwnWrite(_ statement: Statement, registry: TypeRegistry, rowID: Int64, insert: Bool = false, deleting: Bool = false,
                     writing object: ModelObject? = nil) throws {
        try ownWrite(registry: registry, rowID: rowID, insert: insert, deleting: deleting, writing: object) {
            defer { statement.reset() }
            while try statement.step() {}
        }
    }

    /// Runs `body`, the library's own write of one row (`rowID`; for an insert, any row when `anyRow` or
    /// `rowID` is 0), so that the update hook knows it; `inTransaction` when the caller knows a transaction
    /// is open (spares asking SQLite).
    @inline(__always)
    func ownWrite(registry: TypeRegistry, rowID: Int64, insert: Bool = false, anyRow: Bool = false, deleting: Bool = false,
                          inTransaction: Bool? = nil, writing object: ModelObject? = nil,
                          _ body: () throws -> Void) throws {
        models.ownWrite = true
        models.ownRowID = rowID
        models.ownInsert = insert
        models.ownAnyRow = insert && (anyRow || rowID == 0)
        models.ownTable = UnsafePointer(registry.tableNameCString)   // the registry's own string: no copy
        models.ownShared = registry.sharesTable
        models.ownRegistry = ObjectIdentifier(registry)
        // A trigger's INSERT OR REPLACE elsewhere may delete rows without a report: check after.
        let mayReplace = registry.triggersMayReplace
        if mayReplace { models.mayReplace = true }
        do {
            defer {
                models.ownWrite = false
                models.ownAnyRow = false
            }
            try guardingChanges(inTransaction: inTransaction, body)
        }
        // What triggers did before an insert (deleting a row whose rowid the new row then takes, say) reaches
        // live instances before the new instance is registered.
        if insert && !models.pending.isEmpty { reconcileLiveInstances() }
        if mayReplace && models.pending.isEmpty { models.mayReplace = false }   // the triggers wrote nothing
        if models.withoutRowIDRegistries > 0 { refreshWithoutRowIDInstances(affectedBy: registry, deleting: deleting, inserting: insert, writing: object) }
    }
}

