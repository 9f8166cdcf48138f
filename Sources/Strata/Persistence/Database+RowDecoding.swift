// Decoding a fetched row into a model instance: the live instance of the row or a new one, registered, with
// its snapshot captured as it is decoded; columns in other tools' formats converted. The fetches that call it
// are in Query/.
extension Database {
    /// Columns `columns` of the current row into `object`'s fields and its snapshot `words` (`count`
    /// properties, their NULL bits after the words): each through its fast field where it has one, else
    /// converted. The column loop of the decoders by rowid and by key.
    @inline(__always)
    func decodeColumns(_ columns: Range<Int>, of statement: Statement, into object: ModelObject, registry: TypeRegistry,
                       fields: UnsafeBufferPointer<FastField?>, words: UnsafeMutablePointer<UInt64>, count: Int) throws {
        for i in columns {
            let word: SnapshotWord
            if let read = fields[i]?.read(statement, column: Int32(i), into: object) {
                word = read
            } else {
                word = try decodeCapturing(statement, column: i, into: object, registry: registry)
            }
            words[i] = word.bits
            if word.isNull { words[count + (i >> 6)] |= 1 << UInt64(i & 63) }
        }
    }

    /// The live instance of the current row, or a new one of the registry's model type decoded from it
    /// and registered: ``object(_:from:registry:)`` for code that is not generic over the model.
    func anyObject(from statement: Statement, registry: TypeRegistry) throws -> ModelObject {
        if registry.keyIsRowID, let rowID = statement.integer(at: 0) {
            let (live, slot) = try registry.findLive(rowID: rowID, for: self)
            if let live { return live }
            return try decodeNew(statement, into: registry.metadata.type.init(), registry: registry, rowID: rowID, at: slot)
        }
        if registry.keyShape != .decoded {
            var key = NewKey.none
            switch try lookUp(keyedBy: statement, registry: registry, newKey: &key) {
            case .live(let live): return live
            case .new: return try registerNew(registry.metadata.type.init(), key: key, from: statement, registry: registry)
            case .unread: break
            }
        }
        return try register(registry.metadata.type.init(), from: statement, registry: registry)
    }

    /// The live instance of the current row, or a new one decoded from it and registered.
    /// (``anyObject(from:registry:)`` does the same for any model type; this generic form is kept for the
    /// caller's module, where `T()` specialized costs 56 instructions a row less than an init through the
    /// model's metatype.)
    @inlinable
    func object<T: Model>(_ type: T.Type, from statement: Statement, registry: TypeRegistry) throws -> T {
        if registry.keyIsRowID, let rowID = statement.integer(at: 0) {
            let (live, slot) = try registry.findLive(rowID: rowID, for: self)
            if let live { return unsafeDowncast(live, to: T.self) }
            return unsafeDowncast(try decodeNew(statement, into: T(), registry: registry, rowID: rowID, at: slot), to: T.self)
        }
        if registry.keyShape != .decoded {
            // (The new key comes back through `inout`: carried in the enum, it was copied out of it and
            // destroyed with it, about 130 instructions a row for a text key.)
            var key = NewKey.none
            switch try lookUp(keyedBy: statement, registry: registry, newKey: &key) {
            case .live(let live): return unsafeDowncast(live, to: T.self)
            case .new: return unsafeDowncast(try registerNew(T(), key: key, from: statement, registry: registry), to: T.self)
            case .unread: break
            }
        }
        return unsafeDowncast(try register(T(), from: statement, registry: registry), to: T.self)
    }

    /// Decodes a new instance of a rowid-keyed row (column 0, the key, read already as `rowID`), capturing its
    /// snapshot, and registers it at the slot ``TypeRegistry/findLive(rowID:for:)`` returned: one call per new
    /// row. A model of integers reads each column straight into its field and its word. Takes the new instance
    /// and gives it back, so that the caller's row loop holds it with no retain and release around the call.
    @usableFromInline
    func decodeNew(_ statement: Statement, into object: __owned ModelObject, registry: TypeRegistry, rowID: Int64,
                   at slot: RowIDMap.Slot) throws -> ModelObject {
        if let start = registry.plainIntegersStart {
            let words = registry.newPlainSnapshotWords(for: object)
            storePlainWord(UInt64(bitPattern: rowID), into: object, start: start, index: 0)
            words[0] = UInt64(bitPattern: rowID)
            if readPlainIntegers(statement, into: object, start: start, count: registry.snapshots.count, words: words) != nil {
                // A column that is not an integer (NULL, text, a real): the row again, converting as it goes.
                try decodeRow(statement, into: object, registry: registry, capturing: true, rowID: rowID)
            }
        } else {
            try decodeRow(statement, into: object, registry: registry, capturing: true, rowID: rowID)
        }
        registry.registerNew(object, rowID: rowID, at: slot)
        return object
    }

    /// What a row's key columns say before the row is decoded (``lookUp(keyedBy:registry:newKey:)``).
    @usableFromInline
    enum KeyLookup {
        /// The row's live instance.
        case live(ModelObject)
        /// No live instance: a new one is registered under the key ``lookUp(keyedBy:registry:newKey:)`` set.
        case new
        /// The key columns hold what the shape does not read: decode the row first.
        case unread
    }

    /// The identity a new instance takes (``KeyLookup/new(_:)``), its ``KeyMap`` hash and the slot of the
    /// map by key where it goes, so that registering it neither hashes nor probes again.
    @usableFromInline
    struct NewKey {
        let identity: IdentityKey
        let hash: UInt64
        let slot: KeyMap.Slot

        /// A placeholder that ``lookUp(keyedBy:registry:newKey:)`` overwrites before any use.
        @usableFromInline
        static var none: NewKey { NewKey(identity: .integer(0), hash: 0, slot: .none) }
    }

    /// Decodes a new instance of a row that ``lookUp(keyedBy:registry:newKey:)`` found no live instance for,
    /// capturing its snapshot as it decodes, and registers it under `key` (the key columns' values,
    /// which the decoded key properties hold as they are: the shape reads only keys stored natively).
    @usableFromInline @inline(never)
    func registerNew(_ object: ModelObject, key: NewKey, from statement: Statement, registry: TypeRegistry) throws -> ModelObject {
        // The key columns are not read again: their values are the key's (Database+KeyedRowDecoding).
        try decodeRow(statement, into: object, registry: registry, key: key)
        let rowID = registry.table.selectsRowID ? statement.int64(at: Int32(registry.metadata.properties.count)) : 0
        registry.register(new: object, rowID: rowID, identity: key.identity, hash: key.hash, at: key.slot)
        return object
    }

    /// The live instance of the current row found by its key columns alone (``TypeRegistry/KeyShape``), so
    /// that no object is made and decoded only to be dropped; else the identity a new instance takes; or
    /// `.unread` when the key is not one the shape reads (a NULL, a number in a text key column, bytes that
    /// are not UTF-8): the row is then decoded and registered as any other.
    @usableFromInline @inline(never)
    func lookUp(keyedBy statement: Statement, registry: TypeRegistry, newKey: inout NewKey) throws -> KeyLookup {
        let identity: IdentityKey
        let hash: UInt64
        switch registry.keyShape {
        case .integerPair:
            guard statement.kind(at: 0) == .integer, statement.kind(at: 1) == .integer else { return .unread }
            let a = statement.int64(at: 0), b = statement.int64(at: 1)
            identity = .pair(a, b)
            hash = KeyMap.pairHash(a, b)
        case .text:
            // Hashed from the column's bytes (the bytes the String holds: it is made only from valid UTF-8).
            // (`UTF8Text`, not `String(validating:as:)`, which is not specialized: about 950 instructions a key.)
            guard statement.kind(at: 0) == .text,
                  let (text, textHash) = statement.withUTF8(at: 0, { bytes in
                      UTF8Text.string(bytes).map { ($0, SnapshotHash.hash(text: bytes)) }
                  }) else { return .unread }
            identity = IdentityKey(text: text)
            hash = textHash
        case .decoded:
            return .unread
        }
        let (found, slot) = registry.find(identity: identity, hash: hash)
        guard let live = found else {
            newKey = NewKey(identity: identity, hash: hash, slot: slot)
            return .new
        }
        if registry.hasStaleInstances { try refreshingStale(live, registry: registry) }
        followRowID(of: live, identity: identity, from: statement, registry: registry)
        return .live(live)
    }

    /// A live instance found by its key in a row whose rowid is not the one it is registered under (the
    /// rowid changed underneath: `UPDATE ... SET rowid`, a `VACUUM` of a table without INTEGER PRIMARY KEY):
    /// it moves to the row's rowid, so that the update hook's reports of the row reach it.
    @inline(__always)
    func followRowID(of live: ModelObject, identity: IdentityKey, from statement: Statement, registry: TypeRegistry) {
        guard registry.table.selectsRowID else { return }
        let rowID = statement.int64(at: Int32(registry.metadata.properties.count))
        if rowID != live._rowID { registry.register(live, rowID: rowID, identity: identity) }
    }

    /// Decodes `object` from the current row of a table whose key is not the rowid, and returns the
    /// live instance of the row: `object`, now registered, or the one that was there already.
    @usableFromInline
    func register(_ object: ModelObject, from statement: Statement, registry: TypeRegistry) throws -> ModelObject {
        let table = registry.table
        // A view whose key is not shown unique: a fresh object per row, never one instance for two rows.
        // It belongs to the handle (its faults load, its changes are tracked) but is in no identity map.
        if table.readsWithoutIdentity {
            try decodeRow(statement, into: object, registry: registry)
            object._registry = registry
            registry.capture(object)
            return object
        }
        do {
            try decodeRow(statement, into: object, registry: registry)
        } catch let error as ValueConversionError where error.property == registry.metadata.key.name {
            try checkKeyIsUTF8(statement, registry: registry)   // the clearer error for a key that is not UTF-8
            throw error
        }
        // A composite key's identity is its parts (never NULL as a whole); a single key's, its value.
        var singleKey: SQLValue?
        let identity: IdentityKey?
        if registry.metadata.keyCount > 1 {
            identity = try registry.currentIdentity(of: object)
        } else {
            let key = try registry.metadata.key.accessor.load(object)
            if key.isNull {
                throw ModelError(.invalidPrimaryKey, model: registry.metadata.typeName, property: registry.metadata.key.name,
                                 "a row of \(table.table) has a NULL primary key, which cannot identify an instance")
            }
            if case .text(let text) = key, text.unicodeScalars.contains("\u{FFFD}") { try checkKeyIsUTF8(statement, registry: registry) }
            singleKey = key
            identity = table.keyIsRowID ? nil : registry.identity(of: key)
        }
        if let live = identity.flatMap(registry.instance(identity:)) ?? (table.keyIsRowID ? singleKey.flatMap(registry.instance(key:)) : nil) {
            if registry.hasStaleInstances { try refreshingStale(live, registry: registry) }
            if let identity { followRowID(of: live, identity: identity, from: statement, registry: registry) }
            return live
        }
        let rowID: Int64
        if table.selectsRowID {
            rowID = statement.int64(at: Int32(registry.metadata.properties.count))
        } else if case .integer(let v)? = singleKey {
            rowID = v
        } else {
            rowID = 0
        }
        registry.register(object, rowID: rowID, identity: identity)
        registry.capture(object)
        return object
    }

    /// A text key read with a replacement character: throws when the stored bytes are not valid UTF-8 (a
    /// Swift string repairs them, so two such keys could read alike and name another row, or none).
    @inline(never)
    func checkKeyIsUTF8(_ statement: Statement, registry: TypeRegistry) throws {
        guard registry.table.keyCount == 1, statement.kind(at: 0) != .null else { return }
        let hex: String? = statement.withUTF8(at: 0) { bytes in
            String(validating: bytes, as: UTF8.self) == nil ? bytes.prefix(32).map { String($0, radix: 16) }.joined(separator: " ") : nil
        }
        guard let hex else { return }
        throw ModelError(.invalidPrimaryKey, model: registry.metadata.typeName, property: registry.metadata.key.name,
                         "a row of \(registry.table.table) has a text key that is not valid UTF-8 (bytes \(hex)): a Swift string cannot hold it, so it cannot identify an instance. Store the key as valid UTF-8 text")
    }

    /// Sets every persistent property of `object` from the current row (columns in property order),
    /// converting columns that use another tool's format (``ColumnFormat``).
    /// With `capturing`, the values read become the instance's snapshot as they are decoded (a new
    /// instance about to be registered); `rowID`, when given, is column 0 already read as an integer.
    @usableFromInline
    func decodeRow(_ statement: Statement, into object: ModelObject, registry: TypeRegistry, capturing: Bool = false,
                   rowID: Int64? = nil) throws {
        if capturing, let start = registry.metadata.plainWordsStart, let reals = registry.plainReals {
            // Fields of 8-byte numbers side by side: each column goes straight to its field and its word.
            let words = registry.snapshotWords(for: object)
            var next = 0
            if let rowID {
                storePlainWord(UInt64(bitPattern: rowID), into: object, start: start, index: 0)
                words[0] = UInt64(bitPattern: rowID)
                next = 1
            }
            try decodePlainWords(statement, into: object, registry: registry, start: start, reals: reals, words: words, from: next)
            return
        }
        let plainStart = capturing ? registry.metadata.plainWordsStart : nil
        guard capturing, plainStart == nil else {
            try registry.fields.withUnsafeBufferPointer { fields in
                for i in 0..<fields.count where fields[i]?.read(statement, column: Int32(i), into: object) == nil {
                    try decodeConverting(statement, column: i, into: object, registry: registry)
                }
            }
            // Fields of plain 8-byte numbers side by side: the snapshot is a copy of their bytes.
            if let plainStart {
                copyPlainWords(object, offset: plainStart, count: registry.snapshots.count, into: registry.snapshotWords(for: object))
            }
            return
        }
        let words = registry.snapshotWords(for: object)
        do {
            try registry.fields.withUnsafeBufferPointer { fields in
                let count = fields.count
                var first = 0
                // The rowid key, column 0, was read already: stored, not read again.
                if let rowID, count > 0, let word = fields[0]?.store(rowID: rowID, into: object) {
                    words[0] = word.bits
                    first = 1
                }
                try decodeColumns(first..<count, of: statement, into: object, registry: registry, fields: fields, words: words, count: count)
            }
        } catch {
            registry.releaseSnapshot(object)
            throw error
        }
    }

    /// Columns `first...` of the current row into a model of 8-byte numbers side by side (its fields and its
    /// new snapshot's `words`), converting the columns of another kind one by one; the snapshot is let go
    /// when a column cannot be read.
    @inline(__always)
    func decodePlainWords(_ statement: Statement, into object: ModelObject, registry: TypeRegistry, start: Int,
                          reals: [Bool], words: UnsafeMutablePointer<UInt64>, from first: Int) throws {
        var next = first
        do {
            try reals.withUnsafeBufferPointer { reals in
                while let column = readPlainWords(statement, into: object, start: start, reals: reals, from: next, words: words) {
                    try decodeConverting(statement, column: column, into: object, registry: registry)
                    words[column] = loadPlainWord(object, start: start, index: column)
                    next = column + 1
                }
            }
        } catch {
            registry.releaseSnapshot(object)
            throw error
        }
    }

    /// Reads one property through its codec and its column's format; an error names the table, the
    /// row's key, the column and the stored value.
    @usableFromInline
    func decodeConverting(_ statement: Statement, column i: Int, into object: ModelObject, registry: TypeRegistry) throws {
        let metadata = registry.metadata
        let accessor = metadata.properties[i].accessor
        do {
            let format = registry.table.formats[i]
            if format == .native {
                try accessor.read(statement, column: Int32(i), into: object)
            } else {
                try accessor.store(try format.native(statement.value(at: Int32(i))), into: object)
            }
        } catch let error as ValueConversionError {
            throw located(error, column: i, statement: statement, registry: registry)
        }
    }

    /// ``decodeConverting(_:column:into:registry:)``, returning the property's snapshot word: a codec's
    /// property (a reference, say) over a column in Strata's format reads and gives its word in one call,
    /// through the registry's list of such readers (no lookup of the property and its format per row).
    @inline(__always)
    func decodeCapturing(_ statement: Statement, column i: Int, into object: ModelObject, registry: TypeRegistry) throws -> SnapshotWord {
        guard let reader = registry.readers[i] else {
            try decodeConverting(statement, column: i, into: object, registry: registry)
            return registry.storedWord(of: object, at: i)
        }
        do {
            return try reader.readCapturing(statement, column: Int32(i), into: object)
        } catch let error as ValueConversionError {
            throw located(error, column: i, statement: statement, registry: registry)
        }
    }

    /// A conversion error with the table, the row's key, the column and the property filled in.
    func located(_ error: ValueConversionError, column i: Int, statement: Statement, registry: TypeRegistry) -> ValueConversionError {
        let metadata = registry.metadata
        let name = metadata.properties[i].name
        var located = error.located(column: name, model: metadata.typeName, property: name)
        located.table = located.table ?? registry.table.table
        located.key = located.key ?? statement.value(at: 0)
        return located
    }
}
