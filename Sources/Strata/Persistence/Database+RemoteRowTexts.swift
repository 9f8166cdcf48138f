// What a live instance on an engine other than SQLite keeps of its row (``ModelContext/remoteRows``), and
// how a row's cells reach the instance's fields.
//
// The conflict guard of an UPDATE binds the text each changed column held when the instance read it, and a
// fetch that meets a live instance compares the row's texts with those. Most of those texts need not be
// kept: an integer column (`bigint`, `integer`, `smallint`) read into an `Int64`, `Int` or `Int64?` has the
// canonical decimal text of the value the instance's snapshot remembers (the snapshot takes exactly what
// the row held, and is updated exactly when the kept text is: after a read, an insert, an update, a merge
// of the columns not changed locally, a reload). So those columns' texts are spelled again from the
// snapshot when needed (``Database/remoteKnownTexts(_:registry:)``), and each instance keeps only the
// texts of the other columns. A table whose every column is spelled so keeps no ``RemoteRow`` at all (no
// dictionary entry per fetched row): an instance keeps its row while it is registered, and its read stamp
// is the last word of its snapshot slot (``TypeRegistry/remoteReadStamps``); a slot handed out unstamped,
// or no slot, counts as read before the last raw write (the row is read again when looked up by key).
/// What a live instance on an engine other than SQLite keeps of its row (``ModelContext/remoteRows``).
struct RemoteRow {
    /// The texts of the columns not spelled from the snapshot, in column order (empty for a table of integers).
    var texts: [String?]
    /// ``ModelContext/remoteRawWrites`` when the instance last read its row: one read before a later raw
    /// write reads it again when looked up by key.
    var readAt: Int
}

extension TypeRegistry {
    /// Makes the snapshot slots carry each instance's read stamp (``remoteReadStamps``), for a table whose
    /// kept texts are all spelled from the snapshot; on first use, before any instance has a slot.
    func keepReadStampsInSnapshots() {
        guard !remoteReadStamps, !snapshots.stamped, liveCount == 0 else { return }
        let store = snapshots
        store.deallocate()
        snapshots = SnapshotStore(count: store.count, nullable: store.nullable, stamped: true)
        remoteReadStamps = true
    }

    /// ``ModelContext/remoteRawWrites`` when `object` last read its row (``remoteReadStamps``); nil when
    /// not known (no snapshot, or one not stamped since it was handed out).
    @inline(__always)
    func readStamp(of object: ModelObject) -> Int? {
        let slot = object._snapshotSlot
        guard remoteReadStamps, slot != 0 else { return nil }
        let stamp = snapshots.stamp(slot)
        return stamp == SnapshotStore.noStamp ? nil : Int(Int64(bitPattern: stamp))
    }

    /// Stamps `object` as having read its row at `stamp` (``remoteReadStamps``; nothing without a snapshot).
    @inline(__always)
    func setReadStamp(_ stamp: Int, of object: ModelObject) {
        let slot = object._snapshotSlot
        guard remoteReadStamps, slot != 0 else { return }
        snapshots.setStamp(slot, UInt64(bitPattern: Int64(stamp)))
    }

    /// Whether every property's kept text is spelled from the snapshot.
    static func allFromSnapshot(_ columns: ColumnSet, count: Int) -> Bool {
        (0..<count).allSatisfy { columns.contains($0) }
    }

    /// The columns whose kept text is the snapshot's integer spelled in decimal (see the file's comment):
    /// an `Int64`, `Int` or `Int64?` property stored natively in a `bigint`, `integer` or `smallint` column.
    static func remoteTextsFromSnapshot(_ metadata: ModelMetadata, table: TableMapping, info: TableInfo) -> ColumnSet {
        var columns = ColumnSet()
        for (i, property) in metadata.properties.enumerated() where !table.readingBack.contains(i) {
            switch table.fastFields[i] {
            case .int64?, .int?, .optionalInt64?: break
            default: continue
            }
            let type = info.column(named: property.column)?.declaredType.lowercased() ?? ""
            if ["bigint", "integer", "smallint", "int8", "int4", "int2"].contains(type) { columns.insert(i) }
        }
        return columns
    }
}

extension Database {
    /// The texts `object` keeps of its row (those not spelled from its snapshot, in column order); nil when
    /// it keeps none (never read from a row). Of a table with read stamps, none while it is registered.
    @inline(__always)
    func remoteKeptTexts(_ object: ModelObject, registry: TypeRegistry) -> [String?]? {
        if registry.remoteReadStamps { return object._registry === registry ? [] : nil }
        return models.remoteRows[ObjectIdentifier(object)]?.texts
    }

    /// ``ModelContext/remoteRawWrites`` when `object` last read its row; nil when not known.
    @inline(__always)
    func remoteReadAt(_ object: ModelObject, registry: TypeRegistry) -> Int? {
        if registry.remoteReadStamps { return registry.readStamp(of: object) }
        return models.remoteRows[ObjectIdentifier(object)]?.readAt
    }

    /// The texts `object`'s row held when it last read or wrote it, every column (see the file's comment);
    /// nil when it keeps none (never read from a row).
    func remoteKnownTexts(_ object: ModelObject, registry: TypeRegistry) -> [String?]? {
        guard let kept = remoteKeptTexts(object, registry: registry) else { return nil }
        let derived = registry.remoteTextsFromSnapshot
        if derived.isEmpty { return kept }
        var texts: [String?] = []
        texts.reserveCapacity(registry.metadata.properties.count)
        var next = 0
        for i in 0..<registry.metadata.properties.count {
            if derived.contains(i) {
                // (An instance deleted has no snapshot left: its key, all a rollback reads it again by, is
                // the field's, which a save never lets change.)
                texts.append(remoteSnapshotInteger(object, registry: registry, at: i).map { String($0) })
            } else {
                texts.append(next < kept.count ? kept[next] : nil)
                next += 1
            }
        }
        return texts
    }

    /// The integer a column spelled from the snapshot (``TypeRegistry/remoteTextsFromSnapshot``) held when
    /// `object` last read or wrote it; nil for NULL. What the conflict guard and the key of an UPDATE bind,
    /// with no text on the way.
    func remoteSnapshotInteger(_ object: ModelObject, registry: TypeRegistry, at i: Int) -> Int64? {
        // (An instance deleted has no snapshot left: its key, all a rollback reads it again by, is the
        // field's, which a save never lets change.)
        let word = registry.snapshotWord(of: object, at: i) ?? registry.metadata.snapshotWord(of: object, at: i)
        return word.isNull ? nil : Int64(bitPattern: word.bits)
    }

    /// Keeps `texts` (every column of the row) for `object`: only the columns not spelled from its snapshot.
    /// The instance's read stamp stays (a write is no read of what others wrote).
    func remoteKeep(_ texts: [String?], for object: ModelObject, registry: TypeRegistry) {
        if registry.remoteReadStamps {
            // (Nothing to keep; an instance not stamped yet counts as read before the last raw write.)
            if registry.readStamp(of: object) == nil { registry.setReadStamp(models.remoteRawWrites &- 1, of: object) }
            return
        }
        let derived = registry.remoteTextsFromSnapshot
        let kept = derived.isEmpty ? texts : texts.indices.filter { !derived.contains($0) }.map { texts[$0] }
        let id = ObjectIdentifier(object)
        if models.remoteRows[id] != nil {
            models.remoteRows[id]?.texts = kept
        } else {
            models.remoteRows[id] = RemoteRow(texts: kept, readAt: models.remoteRawWrites &- 1)
        }
    }

    /// Keeps the current row's texts for `object`, reading only the columns not spelled from its snapshot
    /// (`columns[i]`: the statement's column of property i, nil when the row does not have it); the
    /// instance read its row now.
    func remoteKeepRow<S: RemoteStatement>(of statement: S, for object: ModelObject, registry: TypeRegistry, columns: [Int32?]? = nil) {
        if registry.remoteReadStamps { return registry.setReadStamp(models.remoteRawWrites, of: object) }
        let derived = registry.remoteTextsFromSnapshot
        var texts: [String?] = []
        for i in 0..<registry.metadata.properties.count where !derived.contains(i) {
            let column = columns.map { $0[i] } ?? Int32(i)
            texts.append(column.flatMap { statement.text(at: $0) })
        }
        models.remoteRows[ObjectIdentifier(object)] = RemoteRow(texts: texts, readAt: models.remoteRawWrites)
    }

    /// Notes that `object` read its row now (its kept texts are current).
    func remoteNoteRead(_ object: ModelObject, registry: TypeRegistry) {
        if registry.remoteReadStamps { return registry.setReadStamp(models.remoteRawWrites, of: object) }
        models.remoteRows[ObjectIdentifier(object)]?.readAt = models.remoteRawWrites
    }

    /// Sets every property of a new `object` from the current row (columns in property order) and captures
    /// its snapshot: the common types straight from the cell into the field (integers from the bytes, text
    /// by one `String`), as the SQLite decoder does; other columns through ``store(_:column:property:into:registry:)``.
    func remoteDecode<S: RemoteStatement>(_ statement: S, into object: ModelObject, registry: TypeRegistry) throws {
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals {
            // Fields of 8-byte numbers side by side: each column goes straight to its field and its word.
            let words = registry.snapshotWords(for: object)
            var next = 0
            do {
                try reals.withUnsafeBufferPointer { reals in
                    // The row's words in one call to the driver, then into the fields side by side.
                    while true {
                        let stop = statement.readWords(from: next, reals: reals, into: words)
                        storePlainWords(words, into: object, start: start, range: next..<(stop ?? reals.count))
                        guard let column = stop else { break }
                        try remoteStore(statement, column: column, property: column, into: object, registry: registry)
                        words[column] = loadPlainWord(object, start: start, index: column)
                        next = column + 1
                    }
                }
            } catch {
                registry.releaseSnapshot(object)
                throw error
            }
            return
        }
        let fields = registry.fields
        for i in 0..<registry.metadata.properties.count {
            if let field = fields[i], field.readRemote(statement.cell(at: Int32(i)), into: object) { continue }
            try remoteStore(statement, column: i, property: i, into: object, registry: registry)
        }
        registry.capture(object)
    }
}
