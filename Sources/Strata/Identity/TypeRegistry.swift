/// One model type's state within one database: the table mapping found by schema sync, the SQL of its
/// statements, and the identity map of its live instances.
///
/// The identity map holds instances unretained; each instance removes itself in `deinit`
/// (``ModelObject``), so the map never keeps an object alive. An instance is registered under one
/// identity at a time (``register(_:rowID:textKey:)`` forgets the previous one) and saving an instance
/// whose key property was changed is refused, so no entry outlives its object.
@usableFromInline
final class TypeRegistry {
    let metadata: ModelMetadata
    /// Weak: live instances keep their registry alive, and may outlive the database and its context.
    weak var context: ModelContext?
    /// The mapping onto the table as it is, set by schema sync.
    @exclusivity(unchecked) var table: TableMapping {
        didSet {
            // Kept until the next sync: a save that took a statement of the old mapping unretained (see
            // `Database.updatePlainWords`) may still be using it, were code run during its step (a trace
            // observer, which must not use the database) to sync the model.
            previousTable = oldValue
            // (Pending rowid entries are for key-mapped tables only: a rowid-keyed fetch never checks them.)
            settleRowIDs()
            keyIsRowID = table.keyIsRowID
            triggersMayReplace = table.triggersMayReplace
            fields = table.fastFields
            readers = Self.readers(metadata, table: table)
            plainReals = Self.plainReals(metadata, fields: fields)
            plainIntegersStart = Self.plainIntegersStart(metadata, plainReals: plainReals)
            updatesPlainWords = Self.updatesPlainWords(metadata, table: table, plainReals: plainReals)
            insertsPlainWords = Self.insertsPlainWords(metadata, table: table, updatesPlainWords: updatesPlainWords)
            plainRealMask = Self.realMask(plainReals)
            readingBack = table.readingBack
            keyShape = Self.keyShape(metadata, table: table)
            keyedLayout = KeyedLayout.make(metadata, table: table, keyShape: keyShape)
            remoteInsertSQL = [:]
            remoteUpdateSQL = [:]
        }
    }
    /// How a fetch can read a row's identity straight from its key columns, before decoding the row
    /// (``Database`` `liveInstance(keyedBy:registry:)`): a live instance is then returned with no object
    /// made and decoded for nothing.
    @usableFromInline enum KeyShape {
        /// The row is decoded first (the rowid path, views read without identity, converted keys).
        case decoded
        /// Two integer parts stored in Strata's own format (two `Int64`, two references).
        case integerPair
        /// One `String` key stored as text in Strata's own format.
        case text
    }
    /// Copied from `table` for the fetch loop (see ``KeyShape``).
    @usableFromInline @exclusivity(unchecked) private(set) var keyShape: KeyShape

    static func keyShape(_ metadata: ModelMetadata, table: TableMapping) -> KeyShape {
        guard !table.keyIsRowID, !table.readsWithoutIdentity, !table.isView else { return .decoded }
        let parts = metadata.properties.prefix(metadata.keyCount)
        let native = parts.indices.allSatisfy { table.formats[$0] == .native } && parts.allSatisfy { $0.formatKind == nil }
        guard native else { return .decoded }
        if parts.count == 2 && parts.allSatisfy({ $0.columnType == .integer }) { return .integerPair }
        if parts.count == 1 && parts[0].columnType == .text { return .text }
        return .decoded
    }
    /// How a fetch by key decodes a new instance past its key columns (nil: as any row); set with `keyShape`.
    @exclusivity(unchecked) private(set) var keyedLayout: KeyedLayout?
    /// The mapping `table` replaced last (see its `didSet`).
    private var previousTable: TableMapping?
    /// Copied from `table` (``TableMapping/readingBack``): the properties whose snapshot word is that of
    /// the value read back (``storedWord(of:at:)``).
    @exclusivity(unchecked) private(set) var readingBack: ColumnSet
    /// The fast accessors of the current mapping (nil for columns that convert), for the per-row loops.
    @exclusivity(unchecked) private(set) var fields: [FastField?]
    /// Where `fields` has no entry, the accessor that reads the column in Strata's format (see `readers`).
    @exclusivity(unchecked) private(set) var readers: [AnyFieldIO?]
    /// For a model whose fields are 8-byte numbers side by side (``ModelMetadata/plainWordsStart``), all
    /// read natively: per column, whether it is a `Double` (else an integer). The fetch's fastest loop
    /// (``readPlainWords(_:into:start:reals:from:words:)``); nil for other models.
    @exclusivity(unchecked) private(set) var plainReals: [Bool]?
    /// ``ModelMetadata/plainWordsStart`` when every field of it is an integer read natively (`plainReals` all
    /// false): a fetch's new row then goes through ``readPlainIntegers(_:into:start:count:words:)``, which asks
    /// each column its kind only to check it is an integer. Nil for other models.
    @usableFromInline @exclusivity(unchecked) private(set) var plainIntegersStart: Int?
    /// Whether a save takes ``Database`` `updatePlainWords`: the fields are 8-byte numbers read natively
    /// (`plainReals`), the one key is the rowid, and the table is writable with no generated column.
    @exclusivity(unchecked) private(set) var updatesPlainWords: Bool
    /// Whether the save of a new instance whose key is 0 takes ``Database`` `insertPlainWords`: it updates
    /// plain words (`updatesPlainWords`), SQLite assigns the key, and nothing else applies (no upsert keys,
    /// no unmapped NOT NULL column, no INSERT ... RETURNING for defaults or generated columns, no trigger).
    @exclusivity(unchecked) private(set) var insertsPlainWords: Bool
    /// `plainReals` as a bit mask (bit i: property i is a `Double`), for the save's bind loop.
    @exclusivity(unchecked) private(set) var plainRealMask: UInt64 = 0
    /// Copied from `table` for the fetch loop.
    @usableFromInline private(set) var keyIsRowID: Bool
    /// On an engine other than SQLite, the columns whose kept row text is spelled from the snapshot
    /// (``remoteTextsFromSnapshot(_:table:info:)``), set once on first use; empty on SQLite.
    @exclusivity(unchecked) var remoteTextsFromSnapshot = ColumnSet()
    /// On an engine other than SQLite, whether every column is in ``remoteTextsFromSnapshot``, so that a live
    /// instance keeps no texts and its read stamp is in its snapshot slot (``keepReadStampsInSnapshots()``).
    @exclusivity(unchecked) var remoteReadStamps = false
    /// On an engine other than SQLite, whether an INSERT must return every column (the table has triggers,
    /// which may change what was written); else it returns those the server may fill in and those whose
    /// text is kept, set once on first use.
    @exclusivity(unchecked) var remoteInsertReturnsAll = true
    /// On an engine other than SQLite, the engine's SQL of the INSERT of each set of written columns and of
    /// the UPDATE of each set of changed ones (`Database+RemoteModels.swift`), made once each.
    @exclusivity(unchecked) var remoteInsertSQL: [ColumnSet: String] = [:]
    @exclusivity(unchecked) var remoteUpdateSQL: [ColumnSet: String] = [:]
    /// Copied from `table` for saves: a trigger of the table may REPLACE rows elsewhere.
    @exclusivity(unchecked) private(set) var triggersMayReplace: Bool
    /// The properties that hold a parent's key: its references to models that declare `@Children` or
    /// `@Siblings`, and the plain columns some parent's `@Children(by:)` names (``ModelContext`` adds those
    /// as the parents register). Empty for most models, so saves check them with one test.
    @exclusivity(unchecked) var parentKeyColumns: ColumnSet {
        didSet { hasParentArrays = !parentKeyColumns.isEmpty }
    }
    /// Whether instances of this type may be in a parent's ``Children`` array: `parentKeyColumns` is not
    /// empty (kept as a flag for the save paths).
    @exclusivity(unchecked) private(set) var hasParentArrays: Bool
    /// Whether another model type of the same handle maps the same table (its live instances of a row this
    /// registry writes must hear of the write).
    @exclusivity(unchecked) var sharesTable = false
    /// Live instances by rowid (by key, when the key is the rowid).
    /// Unchecked exclusivity: only the library touches it, never re-entrantly (see ``ModelObject``).
    @exclusivity(unchecked) private var byRowID = RowIDMap()
    /// Instances a fetch registered by key (``register(new:rowID:identity:hash:at:)``) whose entry in `byRowID`
    /// is not made yet (each has `_rowIDPending` set; nil: taken out again), in registration order from
    /// `pendingHead`. A row of a table whose key is not the rowid is found by its key; its rowid entry only
    /// serves what reads by rowid (the update hook's reports, arrays' owners), so it is made when such a read
    /// comes (``settleRowIDs()``: every use of `byRowID` first makes the pending entries, in order, so the map
    /// is what registering at once would have made), and an instance released first (in fetch order, the
    /// common case) leaves the list without ever entering the map. Every instance in the list is alive: one
    /// released is taken out (``unpend(_:)``) or makes every pending entry first.
    @exclusivity(unchecked) private var pendingRowIDs: ContiguousArray<Unmanaged<ModelObject>?> = []
    @exclusivity(unchecked) private var pendingHead = 0
    /// The rowid last appended to `pendingRowIDs`, and whether the list's rowids ascend (so no two are equal).
    @exclusivity(unchecked) private var pendingLastRowID = Int64.min
    @exclusivity(unchecked) private var pendingAscending = true
    /// How far past `pendingHead` a released instance is looked for before the pending entries are all made.
    private static let pendingWindow = 16
    /// Instances registered so far (fetched, saved, re-keyed): how batched faults tell new owners apart.
    @exclusivity(unchecked) var registrations = 0
    /// `registrations` when each reference property's faults were last loaded in one batch.
    var faultBatches: [String: Int] = [:]
    /// The rowids of the instances that loaded an array (``noteArrayLoaded(by:)``), possibly repeated; an
    /// entry may outlive its array or its instance (``arrayOwners(clearing:)`` then drops it).
    @exclusivity(unchecked) private var arrayOwnerRowIDs: [Int64] = []
    /// Live instances by key, for tables whose key is not the rowid: text, UUID and composite keys.
    /// (A single key is ``SQLValue/text(_:)``, which compares UTF-8 bytes as SQLite does: NFC "caf\u{E9}" and
    /// NFD "cafe\u{301}" are two rows, which `String` keys would merge into one instance.) The key an
    /// instance was registered under (its key property may have been changed since) is its entry's: see
    /// ``registeredIdentity(of:)``; an instance in it has `_inKeyMap` set.
    @exclusivity(unchecked) private var byKey = KeyMap()

    /// The stored values each live instance last read or wrote (dirty tracking).
    @exclusivity(unchecked) var snapshots: SnapshotStore
    /// Live instances whose unsaved change collided with another connection's (or raw SQL's) change of the
    /// same column, by instance: the properties concerned. Their next save throws a conflict.
    @exclusivity(unchecked) var conflicts: [ObjectIdentifier: [String]] = [:]
    /// Live instances that could not be refreshed from their row (a stored value does not decode): the
    /// property and the reason. Saving them throws; a successful refresh or fetch clears the entry.
    @exclusivity(unchecked) var staleInstances: [ObjectIdentifier: (property: String?, reason: String, undecodable: Bool)] = [:]

    /// Whether some live instance is stale (a fetch that meets it checks it).
    @usableFromInline var hasStaleInstances: Bool { !staleInstances.isEmpty }

    /// Whether `object` has a recorded conflict or is stale (its save must throw).
    @inline(__always)
    func needsAttention(_ object: ModelObject) -> Bool {
        (!conflicts.isEmpty && conflicts[ObjectIdentifier(object)] != nil)
            || (!staleInstances.isEmpty && staleInstances[ObjectIdentifier(object)] != nil)
    }

    /// Whether any instance is registered by a key that is not the rowid.
    var hasTextKeys: Bool { !byKey.isEmpty }

    /// The text key `object` is registered under, if any (a composite key's spelling `(1, 'orm')`).
    func textKey(of object: ModelObject) -> String? { registeredIdentity(of: object)?.text }

    /// The identity `object` is registered under in `byKey`, if any.
    func registeredIdentity(of object: ModelObject) -> IdentityKey? {
        guard let index = keyMapIndex(of: object) else { return nil }
        return byKey.key(at: index)
    }

    /// The slot of `byKey` that holds `object`, if any: looked for along the probe run of the key its
    /// snapshot remembers (the row's key as last read or written: what it was registered under, but for a
    /// rare re-registration), else of its key properties as they are now, else by a scan. Each candidate is
    /// checked by the instance the slot holds, so a wrong guess costs a probe, never a wrong answer.
    private func keyMapIndex(of object: ModelObject) -> Int? {
        guard object._inKeyMap else { return nil }
        if let hash = snapshotKeyHash(of: object), let index = byKey.index(of: object, hash: hash) { return index }
        if let identity = try? currentIdentity(of: object), let index = byKey.index(of: object, hash: KeyMap.hash(identity)) {
            return index
        }
        return byKey.indexScanning(for: object)
    }

    /// The ``KeyMap`` hash of the key `object`'s snapshot remembers: its two integer words for a key of two
    /// parts, the text hash word for one key (``SnapshotWord`` hashes text as ``KeyMap`` does). Nil without a
    /// snapshot or for a NULL; a word that is not the key's (a key converted from another format) gives a
    /// hash that finds nothing.
    @inline(__always)
    private func snapshotKeyHash(of object: ModelObject) -> UInt64? {
        let slot = object._snapshotSlot
        guard slot != 0 else { return nil }
        switch metadata.keyCount {
        case 1:
            let word = snapshots.word(slot, 0)
            return word.isNull ? nil : word.bits
        case 2:
            let a = snapshots.word(slot, 0), b = snapshots.word(slot, 1)
            guard !a.isNull, !b.isNull else { return nil }
            return KeyMap.pairHash(Int64(bitPattern: a.bits), Int64(bitPattern: b.bits))
        default:
            return nil
        }
    }

    /// The identity a key value stands for: a single key's text (an integer key's integer, which its
    /// decimal text also names, as before: `"5"` is 5, `"05"` names no instance of it); for a composite key,
    /// its spelling (``CompositeKey/sqlValue``) read back into parts. Nil for a key that names no row (NULL, a blob).
    func identity(of key: SQLValue) -> IdentityKey? {
        if metadata.keyIsInteger {
            switch key {
            case .integer(let value): return .integer(value)
            case .text(let text): return Int64(text).flatMap { String($0) == text ? .integer($0) : nil } ?? IdentityKey(text: text)
            default: break
            }
        }
        guard metadata.keyCount > 1 else { return TypeRegistry.textKey(key).map(IdentityKey.init(text:)) }
        guard case .text(let text) = key, let parts = CompositeKey.parse(text) else { return nil }
        return IdentityKey(parts: parts)
    }

    /// The identity of `object` by its key properties as they are now (for a composite key, its parts,
    /// without spelling the key).
    func currentIdentity(of object: ModelObject) throws -> IdentityKey? {
        guard metadata.keyCount > 1 else { return try identity(of: metadata.key.accessor.load(object)) }
        return IdentityKey(parts: try metadata.properties.prefix(metadata.keyCount).map { try $0.accessor.load(object) })
    }

    /// The table name as C characters, for the update hook's comparison.
    /// (A fixed C string the registry owns, so the hook reads it with no array access: see `deinit`.)
    let tableNameCString: UnsafeMutablePointer<CChar>

    init(metadata: ModelMetadata, table: TableMapping, context: ModelContext) {
        self.metadata = metadata
        let name = metadata.tableName.utf8CString
        let cString = UnsafeMutablePointer<CChar>.allocate(capacity: name.count)
        for (i, c) in name.enumerated() { (cString + i).initialize(to: c) }
        tableNameCString = cString
        self.table = table
        self.keyIsRowID = table.keyIsRowID
        let keyShape = Self.keyShape(metadata, table: table)
        self.keyShape = keyShape
        self.keyedLayout = KeyedLayout.make(metadata, table: table, keyShape: keyShape)
        self.triggersMayReplace = table.triggersMayReplace
        self.fields = table.fastFields
        self.readers = Self.readers(metadata, table: table)
        self.plainReals = Self.plainReals(metadata, fields: table.fastFields)
        self.plainIntegersStart = Self.plainIntegersStart(metadata, plainReals: plainReals)
        self.updatesPlainWords = Self.updatesPlainWords(metadata, table: table, plainReals: plainReals)
        self.insertsPlainWords = Self.insertsPlainWords(metadata, table: table, updatesPlainWords: updatesPlainWords)
        self.plainRealMask = Self.realMask(plainReals)
        self.readingBack = table.readingBack
        self.context = context
        self.snapshots = SnapshotStore(count: metadata.properties.count, nullable: metadata.plainWordsStart == nil)
        // References to a model that has loadable arrays (a model it cannot reflect counts too).
        var references = ColumnSet()
        for (index, property) in metadata.properties.enumerated() {
            guard let related = property.related else { continue }
            if (try? ModelMetadata.of(related))?.heldArrays.isEmpty != true { references.insert(index) }
        }
        self.parentKeyColumns = references
        self.hasParentArrays = !references.isEmpty
    }

    /// The accessor of each property that has no fast field but reads its column in Strata's own format
    /// (a reference, say), so a fetch calls it without looking up the property and its format per row.
    private static func readers(_ metadata: ModelMetadata, table: TableMapping) -> [AnyFieldIO?] {
        metadata.properties.indices.map { i in
            guard table.fastFields[i] == nil, table.formats[i] == .native,
                  case .generic(let io) = metadata.properties[i].accessor else { return nil }
            return io
        }
    }

    private static func plainReals(_ metadata: ModelMetadata, fields: [FastField?]) -> [Bool]? {
        guard metadata.plainWordsStart != nil else { return nil }
        var reals: [Bool] = []
        for field in fields {
            switch field {
            case .int64?, .int?: reals.append(false)
            case .double?: reals.append(true)
            default: return nil
            }
        }
        return reals
    }

    private static func plainIntegersStart(_ metadata: ModelMetadata, plainReals: [Bool]?) -> Int? {
        guard let reals = plainReals, !reals.isEmpty, !reals.contains(true) else { return nil }
        return metadata.plainWordsStart
    }

    private static func realMask(_ reals: [Bool]?) -> UInt64 {
        var mask: UInt64 = 0
        for (i, isReal) in (reals ?? []).enumerated() where isReal && i < 64 { mask |= 1 << UInt64(i) }
        return mask
    }

    private static func updatesPlainWords(_ metadata: ModelMetadata, table: TableMapping, plainReals: [Bool]?) -> Bool {
        plainReals != nil && metadata.keyCount == 1 && table.keyIsRowID && table.hasRowID && !table.isView
            && table.readOnlyReason == nil && table.generated.isEmpty && plainReals?.first == false
    }

    private static func insertsPlainWords(_ metadata: ModelMetadata, table: TableMapping, updatesPlainWords: Bool) -> Bool {
        updatesPlainWords && metadata.keyIsInteger && !metadata.randomKeys && metadata.upsertKeys.isEmpty
            && table.requiredColumns.isEmpty && !table.insertsReturningRow && !table.hasInsertTriggers && !table.triggersMayReplace
    }

    deinit {
        snapshots.deallocate()
        tableNameCString.deallocate()
    }

    var database: Database? { context?.database }

    /// The database, for a load through an instance of this registry: throws when its handle was closed,
    /// or released while the instance lived on (a load then has nowhere to read, which is no empty answer).
    func openDatabase() throws -> Database {
        guard let database else {
            throw DatabaseError(code: .misuse, message: "the database is closed: the handle that read this \(metadata.typeName) was released", sql: nil)
        }
        if database.isClosed { throw database.closedError() }
        return database
    }

    // MARK: Identity map

    /// The live instance for a rowid, if any.
    @inline(__always)
    func instance(rowID: Int64) -> ModelObject? {
        settleRowIDs()
        return byRowID[rowID]?.takeUnretainedValue()
    }

    /// ``instance(rowID:)``, unretained (valid while the instance lives: the caller holds it or uses it at once).
    @inline(__always)
    func unretainedInstance(rowID: Int64) -> Unmanaged<ModelObject>? {
        settleRowIDs()
        return byRowID[rowID]
    }

    /// The live instance for a key, if any.
    func instance(key: SQLValue) -> ModelObject? {
        switch key {
        case .integer(let v) where keyIsRowID: return instance(rowID: v)
        case .null: return nil
        default:
            guard let identity = identity(of: key) else { return nil }
            return instance(identity: identity)
        }
    }

    /// The live instance registered under `identity`, if any.
    func instance(identity: IdentityKey) -> ModelObject? {
        byKey.find(identity, hash: KeyMap.hash(identity))?.takeUnretainedValue()
    }

    /// The live instance registered under `identity` (whose ``KeyMap`` hash is `hash`), or the slot of the
    /// map by key where a new one goes (``register(new:rowID:identity:hash:at:)``), found in one probe.
    @inline(__always)
    func find(identity: IdentityKey, hash: UInt64) -> (object: ModelObject?, slot: KeyMap.Slot) {
        let (value, slot) = byKey.lookUp(identity, hash: hash)
        return (value?.takeUnretainedValue(), slot)
    }

    /// The live instance for a rowid, or the slot where a new one goes (see ``RowIDMap/find(_:)``).
    @usableFromInline
    func find(rowID: Int64) -> (object: ModelObject?, slot: RowIDMap.Slot) {
        settleRowIDs()
        let (value, slot) = byRowID.find(rowID)
        return (value?.takeUnretainedValue(), slot)
    }

    /// ``find(rowID:)`` for a fetch: a live instance that is stale reads its row again first, and the fetch
    /// throws while it stays stale (the check lives here, out of the callers' inlined row loops).
    @usableFromInline
    func findLive(rowID: Int64, for database: Database) throws -> (object: ModelObject?, slot: RowIDMap.Slot) {
        let (value, slot) = byRowID.find(rowID)
        guard let value else { return (nil, slot) }
        let object = value.takeUnretainedValue()
        if !staleInstances.isEmpty { try database.refreshingStale(object, registry: self) }
        return (object, slot)
    }

    /// Registers a new instance of a rowid-keyed row at the slot ``find(rowID:)`` returned; nothing may
    /// have changed the map in between.
    @usableFromInline
    func register(_ object: ModelObject, rowID: Int64, at slot: RowIDMap.Slot) {
        registerNew(object, rowID: rowID, at: slot)
    }

    /// What every registration sets: `object` is this registry's, live, the instance of the row `rowID`.
    @inline(__always)
    private func own(_ object: ModelObject, rowID: Int64) {
        object._registry = self
        object._rowID = rowID
        object._isDeleted = false
        registrations &+= 1
    }

    /// ``register(_:rowID:at:)``, inline in the fetch's decoder.
    @inline(__always)
    func registerNew(_ object: ModelObject, rowID: Int64, at slot: RowIDMap.Slot) {
        own(object, rowID: rowID)
        byRowID.insert(Unmanaged.passUnretained(object), for: rowID, at: slot)
    }

    /// Registers `object`, new (never registered), as the live instance of the row keyed `identity` (whose
    /// ``KeyMap`` hash is `hash`), at the slot ``find(identity:hash:)`` returned: a fetch's new row, hashed and
    /// probed once (the map checks that the slot is still valid, else probes again).
    @inline(__always)
    func register(new object: ModelObject, rowID: Int64, identity: IdentityKey, hash: UInt64, at slot: KeyMap.Slot) {
        own(object, rowID: rowID)
        let entry = Unmanaged.passUnretained(object)
        // Its rowid entry is made when something reads by rowid (see `pendingRowIDs`).
        if table.hasRowID {
            object._rowIDPending = true
            pendingRowIDs.append(entry)
            if rowID <= pendingLastRowID { pendingAscending = false }
            pendingLastRowID = rowID
        }
        if let replaced = byKey.insert(entry, for: identity, hash: hash, at: slot), replaced.toOpaque() != entry.toOpaque() {
            replaced.takeUnretainedValue()._inKeyMap = false
        }
        object._inKeyMap = true
    }

    /// Registers `object`, new (never registered), as the live instance of the row of a rowid table an insert
    /// just made: ``register(_:rowID:identity:)`` with what cannot apply to it left out.
    @inline(__always)
    func register(inserted object: ModelObject, rowID: Int64) {
        settleRowIDs()
        own(object, rowID: rowID)
        byRowID.insert(Unmanaged.passUnretained(object), for: rowID)
    }

    /// Makes `object` the live instance of its row: its text key (a composite key's spelling) is read
    /// into an identity (``register(_:rowID:identity:)``).
    @inline(__always)
    func register(_ object: ModelObject, rowID: Int64, textKey: String?) {
        register(object, rowID: rowID, identity: textKey.flatMap { identity(of: .text($0)) })
    }

    /// Makes `object` the live instance of its row, under `identity` when the key is not the rowid.
    @inline(__always)
    func register(_ object: ModelObject, rowID: Int64, identity: IdentityKey?) {
        settleRowIDs()
        // (An instance still pending in another handle's registry leaves its list first.)
        if object._rowIDPending, let other = object._registry, other !== self { other.forgetPending(object) }
        if object._registry === self {
            forgetIdentity(object)
            // A re-keyed instance, or one a rollback brings back from deleted, may have loaded arrays: it is
            // (again) among their owners (an entry too many costs a lookup). While it was out of the map, a
            // compaction may have dropped its entry, so this does not depend on the index holding entries.
            if (rowID != object._rowID || object._isDeleted) && table.hasRowID && !metadata.heldArrays.isEmpty {
                arrayOwnerRowIDs.append(rowID)
            }
        }
        own(object, rowID: rowID)
        if table.hasRowID { byRowID.insert(Unmanaged.passUnretained(object), for: rowID) }
        if let identity {
            let entry = Unmanaged.passUnretained(object)
            // The instance the entry held before (alive: each leaves the map in `deinit`) is in it no more.
            if let replaced = byKey.insert(entry, for: identity, hash: KeyMap.hash(identity)), replaced.toOpaque() != entry.toOpaque() {
                replaced.takeUnretainedValue()._inKeyMap = false
            }
            object._inKeyMap = true
        }
    }

    /// Removes `object` from the map and frees its snapshot (called from `deinit` and on delete).
    func forget(_ object: ModelObject, keepingSnapshot: Bool = false) {
        forgetIdentity(object)
        if !keepingSnapshot { releaseSnapshot(object) }
        if !conflicts.isEmpty { conflicts[ObjectIdentifier(object)] = nil }
        if !staleInstances.isEmpty { staleInstances[ObjectIdentifier(object)] = nil }
    }

    /// ``forget(_:keepingSnapshot:)`` for an instance being deallocated (from its `deinit`): inline for the
    /// common case, an instance in the rowid map alone (no pending rowid entry in the registry, no entry by
    /// key) with no conflict or stale mark; its slot number is left as it is (the instance is going).
    @inline(__always)
    func forgetReleased(_ object: ModelObject) {
        guard !object._inKeyMap, !object._rowIDPending, pendingRowIDs.isEmpty, conflicts.isEmpty, staleInstances.isEmpty else {
            forget(object)
            return
        }
        byRowID.remove(object._rowID, ifValue: Unmanaged.passUnretained(object).toOpaque())
        let slot = object._snapshotSlot
        if slot != 0 { snapshots.release(slot) }
    }

    /// Removes `object` from the map, if it is the one registered.
    private func forgetIdentity(_ object: ModelObject) {
        // Not conditional on the current table mode: a resync may have changed it since registration.
        if !object._rowIDPending || !unpend(object) {
            settleRowIDs()
            // (Empty for a table without rowid: not probed.)
            if !byRowID.isEmpty { byRowID.remove(object._rowID, ifValue: Unmanaged.passUnretained(object).toOpaque()) }
        }
        if object._inKeyMap {
            if let index = keyMapIndex(of: object) { byKey.remove(at: index) }
            object._inKeyMap = false
        }
    }

    /// Detaches `object` from the database: it no longer stands for a row.
    ///
    /// An instance deleted in an open transaction (noted in ``ModelContext/deletedInTransaction`` first)
    /// keeps its snapshot, so that a rollback that brings its row back also keeps the changes it had not
    /// saved (the snapshot says which); the end of the transaction lets it go.
    func detach(_ object: ModelObject, deleted: Bool) {
        forget(object, keepingSnapshot: deleted && context?.deletedInTransaction[ObjectIdentifier(object)] != nil)
        let wasDeleted = object._isDeleted
        object._isDeleted = deleted
        if !deleted { object._registry = nil }
        if deleted && !wasDeleted {
            if hasParentArrays { dropParentsArrays(of: object, holdingIt: true) }
            if let notify = metadata.observationNotifier { notify(object) }
        }
    }

    /// After a write or a refresh changed `changed` properties of `object`, before its snapshot takes them:
    /// when a parent key is among them (the child moved to another parent, or to none), drops the loaded
    /// arrays of the parents it named (those that hold it) and of the parents it names now, so neither
    /// shows it where its row no longer, or now, says; they are read again next time.
    @discardableResult
    func dropArraysOfMovedChild(_ object: ModelObject, changed: ColumnSet) -> Bool {
        var moved = ColumnSet()
        parentKeyColumns.forEach { if changed.contains($0) { moved.insert($0) } }
        guard !moved.isEmpty else { return false }
        dropFormerParentsArrays(of: object, properties: moved)
        dropParentsArrays(of: object, holdingIt: false)
        return true
    }

    /// Notes that `owner` loaded a ``Children`` or ``Siblings`` array (see ``arrayOwners()``): an append
    /// (a prefetch notes every owner); the list is compacted when it outgrows the live instances.
    @inline(__always)
    func noteArrayLoaded(by owner: ModelObject) {
        guard table.hasRowID else { return }
        arrayOwnerRowIDs.append(owner._rowID)
        settleRowIDs()
        if arrayOwnerRowIDs.count > max(1_024, 4 * byRowID.count) { _ = arrayOwners() }
    }

    /// The live instances that may hold a loaded array: those that loaded one since the arrays were last all
    /// dropped (every live instance for a table without rowid, which is not indexed). The passes that drop
    /// every array of a kind visit these, not every live instance. `clearing`: every array of them is being
    /// dropped, so the index starts again.
    func arrayOwners(clearing: Bool = false) -> [ModelObject] {
        guard table.hasRowID else { return liveInstances }
        var owners: [ModelObject] = []
        var kept: [Int64] = []
        var seen = Set<Int64>()
        for rowID in arrayOwnerRowIDs where seen.insert(rowID).inserted {
            guard let owner = instance(rowID: rowID) else { continue }
            owners.append(owner)
            kept.append(rowID)
        }
        arrayOwnerRowIDs = clearing ? [] : kept
        return owners
    }

    /// Drops every loaded ``Children`` array of the handle whose children are of this type: after raw SQL
    /// wrote a row of its table that no live instance stands for (which parent it names is not known).
    func dropEveryParentsArrays() {
        guard let context else { return }
        let type = ObjectIdentifier(metadata.type)
        for parents in context.registries.values {
            // (``Siblings`` arrays follow their join table, not the target's.)
            let arrays = parents.metadata.heldArrays.filter { !$0.droppedOnRollback && $0.relatedType.map(ObjectIdentifier.init) == type }
            guard !arrays.isEmpty else { continue }
            for parent in parents.arrayOwners() { for array in arrays { array.invalidate(of: parent) } }
        }
    }

    /// Drops the loaded arrays that hold `object` in the parents its snapshot names for `properties`: found
    /// by the remembered key where it is an integer, else among the live parents whose arrays hold it.
    private func dropFormerParentsArrays(of object: ModelObject, properties: ColumnSet) {
        guard let context else { return }
        let type = ObjectIdentifier(metadata.type)
        var candidates: [(parents: TypeRegistry, array: AnyHeldObjects)] = []
        properties.forEach { index in
            if let related = metadata.properties[index].related, let parents = context.registries[ObjectIdentifier(related)] {
                for array in parents.metadata.heldArrays where array.relatedType.map(ObjectIdentifier.init) == type {
                    candidates.append((parents, array))
                }
            }
            for entry in context.childrenByPlainColumn[type] ?? [] where entry.property == index {
                candidates.append((entry.parents, entry.array))
            }
            guard let word = rememberedWord(of: object, at: index), !word.isNull else { return }
            for (parents, array) in candidates {
                if parents.metadata.keyIsInteger {
                    if let parent = parents.instance(key: .integer(Int64(bitPattern: word.bits))) { array.invalidate(of: parent) }
                } else {
                    for parent in parents.arrayOwners() where array.holds(object, in: parent) { array.invalidate(of: parent) }
                }
            }
            candidates.removeAll(keepingCapacity: true)
        }
    }

    /// Drops the loaded arrays of `object`'s type in its parents — the ``Children`` of the objects its
    /// references hold (or of the live instance of the key they store), and of the parent its key column
    /// names — (with `holdingIt`, only those that hold `object`); they are read again next time. So a
    /// deleted instance (by the handle, a cascade or raw SQL) does not linger in its parent's array, and one
    /// a rollback brings back is not missing from an array loaded meanwhile.
    func dropParentsArrays(of object: ModelObject, holdingIt: Bool) {
        let type = ObjectIdentifier(metadata.type)
        // Arrays that find their children by a plain column: the parent is the live instance of its value.
        for (parents, array, index) in context?.childrenByPlainColumn[type] ?? [] {
            guard let key = try? metadata.properties[index].accessor.load(object), !key.isNull,
                  let parent = parents.arrayOwner(key: key),
                  !holdingIt || array.objects(of: parent).contains(where: { $0 === object }) else { continue }
            array.invalidate(of: parent)
        }
        for property in metadata.properties where property.related != nil {
            guard case .generic(let io) = property.accessor, let related = property.related else { continue }
            // The parent held, else (held weakly, and freed and fetched again since) the live instance of the
            // key the row holds.
            var held = io.heldTarget(of: object)
            if held == nil, let registry = context?.registries[ObjectIdentifier(related)] {
                let key = io.storedKey(of: object)
                held = key.isNull ? nil : registry.arrayOwner(key: key)
            }
            guard let parent = held, let arrays = parent._registry?.metadata.heldArrays else { continue }
            for array in arrays where array.relatedType.map(ObjectIdentifier.init) == type
                && (!holdingIt || array.objects(of: parent).contains(where: { $0 === object })) {
                array.invalidate(of: parent)
            }
        }
    }

    /// The live instance of the row `key` names as SQLite compares it, when it may hold a loaded array: the
    /// instance of the key, else, under a key collation (`COLLATE NOCASE`: 'ada' names the row 'Ada'), the
    /// one among those that loaded an array whose registered key the collation finds equal.
    func arrayOwner(key: SQLValue) -> ModelObject? {
        if let exact = instance(key: key) { return exact }
        let collation = table.keyCollation
        guard collation != .binary, case .text = key else { return nil }
        let folded = collation.folded(key)
        return arrayOwners().first { owner in textKey(of: owner).map { collation.folded(.text($0)) == folded } ?? false }
    }

    /// Every live instance (for refreshes after a rollback).
    /// How many instances the maps hold (an instance in both maps counts twice): an upper bound of the
    /// live instances, in constant time.
    var liveCount: Int { byRowID.count + byKey.count }

    /// The places of the map by key's side list (``KeyMap/storedKeys``), for tests.
    var keyMapStoredKeys: Int { byKey.storedKeys }

    /// Makes the rowid entries of the pending instances (``pendingRowIDs``), in registration order: before
    /// any use of `byRowID` but a rowid-keyed fetch's (whose registry has none pending).
    @inline(__always)
    private func settleRowIDs() {
        if !pendingRowIDs.isEmpty { makePendingRowIDs() }
    }

    @inline(never)
    private func makePendingRowIDs() {
        for i in pendingHead..<pendingRowIDs.count {
            guard let entry = pendingRowIDs[i] else { continue }
            let object = entry.takeUnretainedValue()
            object._rowIDPending = false
            byRowID.insert(entry, for: object._rowID)
        }
        emptyPendingRowIDs()
    }

    private func emptyPendingRowIDs() {
        pendingRowIDs.removeAll(keepingCapacity: true)
        pendingHead = 0
        pendingLastRowID = .min
        pendingAscending = true
    }

    /// Takes `object`, being released or registered again, out of the pending instances without making its
    /// rowid entry, when that leaves `byRowID` as making it and then removing it would: `byRowID` is empty and
    /// the pending rowids ascend (making the entry would replace no other instance's, and no pending instance
    /// has the same rowid), and the instance is near the list's head (it is looked for there only, so a
    /// release costs a bounded search). False otherwise: the caller makes every pending entry, then removes
    /// the instance's as usual.
    private func unpend(_ object: ModelObject) -> Bool {
        guard pendingAscending, byRowID.isEmpty else { return false }
        let wanted = Unmanaged.passUnretained(object).toOpaque()
        let head = pendingHead
        // One pass over the list's memory (no uniqueness check or bounds check per element).
        let newHead: Int? = pendingRowIDs.withUnsafeMutableBufferPointer { list in
            let end = min(list.count, head + Self.pendingWindow)
            var i = head
            while i < end && list[i]?.toOpaque() != wanted { i += 1 }
            guard i < end else { return nil }
            list[i] = nil
            var next = head
            while next < list.count && list[next] == nil { next += 1 }
            return next
        }
        guard let newHead else { return false }
        object._rowIDPending = false
        pendingHead = newHead
        if newHead == pendingRowIDs.count { emptyPendingRowIDs() }
        return true
    }

    /// Takes `object` out of this registry's pending instances (it is registered in another's now).
    private func forgetPending(_ object: ModelObject) {
        guard !unpend(object) else { return }
        settleRowIDs()
        byRowID.remove(object._rowID, ifValue: Unmanaged.passUnretained(object).toOpaque())
    }

    /// Makes room in the identity map for `rows` instances about to be registered by key (a fetch whose
    /// row count is known): the map grows once instead of doubling on the way. Rows that are live already
    /// take no room, so it reserves for the larger of the two counts, not their sum.
    func reserveKeyCapacity(_ rows: Int) {
        guard !keyIsRowID, rows > byKey.count else { return }
        byKey.reserveCapacity(rows)
    }

    var liveInstances: [ModelObject] {
        settleRowIDs()
        // Only one map in use: every entry is a distinct instance (the common, rowid-keyed case).
        if byKey.isEmpty { return byRowID.allValues.map { $0.takeUnretainedValue() } }
        if !table.hasRowID { return byKey.values.map { $0.takeUnretainedValue() } }
        var seen = Set<ObjectIdentifier>()
        var result: [ModelObject] = []
        for entry in byRowID.allValues.map({ $0.takeUnretainedValue() }) + byKey.values.map({ $0.takeUnretainedValue() })
        where seen.insert(ObjectIdentifier(entry)).inserted {
            result.append(entry)
        }
        return result
    }

    /// The key of the row `object` stands for, as registered (its key property may have been changed
    /// since, which its save refuses): what reads of its relationships look up, so that they show its row's
    /// children and links, not those of the key it was changed to.
    func rowKey(of object: ModelObject) throws -> SQLValue {
        if table.keyIsRowID && object._registry === self { return .integer(object._rowID) }
        guard let text = textKey(of: object) else { return try metadata.key.accessor.load(object) }
        if metadata.keyIsInteger, let value = Int64(text) { return .integer(value) }
        return .text(text)
    }

    /// The key `object` was registered under, after checking that its key property still holds it: the
    /// identity of a saved instance is its row, so a changed key property is refused — by its save and
    /// delete, and by a reference to it, which would otherwise store the new key and name another row, or
    /// none (insert a new instance with the new key and delete this one instead).
    func checkedKey(of object: ModelObject) throws -> SQLValue {
        let current = try metadata.key.accessor.load(object)
        let registered: SQLValue
        // (An integer key registered under its own digits, the common case of a save: its identity is
        // spelled once and its slot's key compared, without spelling the registered one back.)
        if !table.keyIsRowID, metadata.keyCount == 1, case .integer(let value) = current, isRegistered(object, underInteger: value) {
            return current
        }
        if table.keyIsRowID {
            registered = .integer(object._rowID)
        } else if let text = textKey(of: object), TypeRegistry.textKey(current).map(SQLValue.text) != .text(text) {   // (bytes, as SQLite compares)
            registered = .text(text)
        } else {
            return current
        }
        guard registered == current else {
            throw ModelError(.invalidPrimaryKey, model: metadata.typeName, property: metadata.key.name, key: registered,
                             "the key of a saved instance changed from \(registered) to \(current); a saved instance stays the same row: save a new instance with the new key and delete this one")
        }
        return current
    }

    /// Whether `object` is in the identity map under the identity of the integer key `value`.
    private func isRegistered(_ object: ModelObject, underInteger value: Int64) -> Bool {
        guard object._inKeyMap else { return false }
        guard let identity = identity(of: .integer(value)), let index = byKey.index(of: object, hash: KeyMap.hash(identity)) else { return false }
        return byKey.key(at: index) == identity
    }

    /// The identity-map text of a text or UUID key.
    static func textKey(_ key: SQLValue) -> String? {
        switch key {
        case .text(let s): return s
        case .integer(let v): return String(v)
        case .blob, .real, .null: return nil
        }
    }
}
