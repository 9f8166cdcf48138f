/// One property's value as dirty tracking remembers it: the exact bits of an integer or a double, a
/// 64-bit hash of text and bytes (``SnapshotHash``, of their UTF-8 or raw bytes, so canonically equivalent
/// but different Unicode strings differ), and whether it was NULL.
///
/// Equal words mean the same stored value: exactly for numbers, and for text and bytes but for a 2^-64
/// chance of a hash collision. A word that could not be computed (the value did not encode) equals
/// nothing, so its property always counts as changed and the save reports the encoding error.
struct SnapshotWord {
    var bits: UInt64
    var isNull: Bool

    static let null = SnapshotWord(bits: 0, isNull: true)
    /// Never equal to any word, itself included.
    static let unknown = SnapshotWord(bits: 1, isNull: true)

    init(bits: UInt64, isNull: Bool) {
        self.bits = bits
        self.isNull = isNull
    }

    @inline(__always) init(integer value: Int64) { self.init(bits: UInt64(bitPattern: value), isNull: false) }
    @inline(__always) init(real value: Double) { self.init(bits: value.bitPattern, isNull: false) }

    init(text: String) {
        self.init(bits: SnapshotHash.hash(text: text), isNull: false)
    }

    /// The word of a value in Strata's native encoding (what the property's codec produced).
    init(_ value: SQLValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self.init(integer: v)
        case .text(let s): self.init(text: s)
        case .real(let d):
            // Hashed, unlike the fast path's doubles: a property of raw `SQLValue` type may switch between
            // INTEGER and REAL, and the same bits must not read as "unchanged". -0.0 has the word of 0.0
            // (they are equal, and a REAL, INTEGER or NUMERIC column gives 0.0 back for either): a date
            // saved as -0.0 is no conflict when the row is read again.
            let bits = withUnsafeBytes(of: (d == 0 ? 0.0 : d).bitPattern.littleEndian) { SnapshotHash.hash($0, kind: 2) }
            self.init(bits: bits, isNull: false)
        case .blob(let data):
            self.init(bits: data.withUnsafeBytes { SnapshotHash.hash($0, kind: 4) }, isNull: false)
        }
    }

    var isUnknown: Bool { isNull && bits != 0 }

    @inline(__always)
    func matches(_ other: SnapshotWord) -> Bool {
        bits == other.bits && isNull == other.isNull && !isUnknown
    }
}

/// A set of property indices (the properties a save writes): a bit mask, with more words only for
/// models of more than 64 properties, so the common case allocates nothing.
struct ColumnSet: Hashable {
    private var low: UInt64 = 0
    /// Bits 0 to 63.
    var lowBits: UInt64 { low }
    /// Bits 64 and up; nil (no allocation, no reference counting) for the first 64.
    private var high: [UInt64]?

    init(low: UInt64 = 0) { self.low = low }

    /// The indices of `range`.
    init(_ range: Range<Int>) {
        for index in range { insert(index) }
    }

    var isEmpty: Bool { low == 0 && (high?.allSatisfy { $0 == 0 } ?? true) }

    @inline(__always)
    mutating func insert(_ index: Int) {
        if index < 64 { low |= 1 << UInt64(index) } else { insertHigh(index) }
    }

    private mutating func insertHigh(_ index: Int) {
        let word = index / 64 - 1
        var bits = high ?? []
        while bits.count <= word { bits.append(0) }
        bits[word] |= 1 << UInt64(index & 63)
        high = bits
    }

    @inline(__always)
    mutating func remove(_ index: Int) {
        if index < 64 { low &= ~(1 << UInt64(index)); return }
        let word = index / 64 - 1
        if let bits = high, word < bits.count { high![word] &= ~(1 << UInt64(index & 63)) }
    }

    @inline(__always)
    func contains(_ index: Int) -> Bool {
        if index < 64 { return low & (1 << UInt64(index)) != 0 }
        let word = index / 64 - 1
        guard let high, word < high.count else { return false }
        return high[word] & (1 << UInt64(index & 63)) != 0
    }

    /// The indices in increasing order.
    var indices: [Int] {
        var result: [Int] = []
        forEach { result.append($0) }
        return result
    }

    /// Calls `body` with each index in increasing order.
    @inline(__always)
    func forEach(_ body: (Int) throws -> Void) rethrows {
        var bits = low
        while bits != 0 {
            try body(bits.trailingZeroBitCount)
            bits &= bits - 1
        }
        guard let high else { return }
        for (w, word) in high.enumerated() {
            var bits = word
            while bits != 0 {
                try body((w + 1) * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }
}

extension ModelMetadata {
    /// The snapshot word of property `index` as the instance holds it now.
    @inline(__always)
    func snapshotWord(of object: ModelObject, at index: Int) -> SnapshotWord {
        if let fast = fastFields[index] { return fast.snapshotWord(object) }
        guard let value = try? properties[index].accessor.load(object) else { return .unknown }
        return SnapshotWord(value)
    }
}

extension TypeRegistry {
    /// The snapshot word of property `index` as its column would give it back: for a column that keeps
    /// less than the value (``ReadBack``: a date in whole seconds or as its day, a `Decimal` in a `decimal`
    /// column), the word of the value reading back gives, so that a rounded write is no change and the
    /// row read again is no conflict; else the property's own word. Captures after a read, insert or
    /// update, ``changes(of:)`` and the refresh all take it. (Models of plain numbers never read back
    /// otherwise: their fast paths do not come here.)
    @inline(__always)
    func storedWord(of object: ModelObject, at index: Int) -> SnapshotWord {
        readingBack.contains(index) ? readBackWord(of: object, at: index) : metadata.snapshotWord(of: object, at: index)
    }

    /// ``storedWord(of:at:)`` for a property that reads back rounded, out of line.
    @inline(never)
    private func readBackWord(of object: ModelObject, at index: Int) -> SnapshotWord {
        guard let readBack = table.readBacks[index], let value = try? metadata.properties[index].accessor.load(object) else {
            return metadata.snapshotWord(of: object, at: index)
        }
        // A value the column cannot hold again (a far sentinel another tool wrote, say) keeps the word of the
        // value itself: unchanged, it is no change; changed, the save reports why the column cannot hold it.
        guard let back = try? readBack.value(value) else { return metadata.snapshotWord(of: object, at: index) }
        return SnapshotWord(back)
    }

    /// The word a refresh compares the row with for property `index` (``storedWord(of:at:)``; for a
    /// `Double` over a column that stores -0.0 as 0, -0.0 as 0.0). The plain-number paths remember a
    /// saved -0.0 as it is, and only the refresh, a rare path, tells it from the 0 the row holds.
    func refreshWord(of object: ModelObject, at index: Int) -> SnapshotWord {
        foldingNegativeZero(storedWord(of: object, at: index), at: index)
    }

    /// The remembered word of property `index` as a refresh compares it (see ``refreshWord(of:at:)``).
    func rememberedWord(of object: ModelObject, at index: Int) -> SnapshotWord? {
        snapshotWord(of: object, at: index).map { foldingNegativeZero($0, at: index) }
    }

    private func foldingNegativeZero(_ word: SnapshotWord, at index: Int) -> SnapshotWord {
        guard !word.isNull, word.bits == (-0.0).bitPattern, table.foldsNegativeZero.contains(index) else { return word }
        return SnapshotWord(real: 0)
    }

    /// Remembers every property of `object` as its row holds it now (after a fetch, insert or refresh),
    /// or as `row` (an instance decoded from the row) holds them.
    @usableFromInline
    func capture(_ object: ModelObject, row: ModelObject? = nil) {
        if object._snapshotSlot == 0 { object._snapshotSlot = snapshots.allocate() }
        snapshots.clearNulls(object._snapshotSlot)
        let words = snapshots.words(object._snapshotSlot)
        let count = snapshots.count
        let source = row ?? object
        if let start = metadata.plainWordsStart {
            // Fields of 8-byte numbers side by side, never NULL: the snapshot is a copy of their bytes.
            copyPlainWords(source, offset: start, count: count, into: words)
            return
        }
        let readingBack = readingBack
        metadata.fastFields.withUnsafeBufferPointer { fields in
            for i in 0..<count {
                let word = readingBack.contains(i) ? readBackWord(of: source, at: i)
                    : fields[i]?.snapshotWord(source) ?? metadata.snapshotWord(of: source, at: i)
                words[i] = word.bits
                if word.isNull { words[count + (i >> 6)] |= 1 << UInt64(i & 63) }
            }
        }
    }

    /// ``capture(_:row:)`` for a new instance (no slot yet) of a model of 8-byte numbers never NULL: the
    /// snapshot is a copy of their bytes.
    @inline(__always)
    func capturePlainWords(new object: ModelObject, start: Int) {
        let slot = snapshots.allocate()
        object._snapshotSlot = slot
        snapshots.clearNulls(slot)
        copyPlainWords(object, offset: start, count: snapshots.count, into: snapshots.words(slot))
    }

    /// The snapshot words of `object`, with a slot allocated and its NULL bits cleared, for the decoder to
    /// fill in (``Database/decodeRow(_:into:registry:capturing:)``).
    @usableFromInline
    func snapshotWords(for object: ModelObject) -> UnsafeMutablePointer<UInt64> {
        if object._snapshotSlot == 0 { object._snapshotSlot = snapshots.allocate() }
        snapshots.clearNulls(object._snapshotSlot)
        return snapshots.words(object._snapshotSlot)
    }

    /// ``snapshotWords(for:)`` for a new instance (no slot yet) of a model whose store has no NULL bits (a
    /// model of 8-byte numbers, ``ModelMetadata/plainWordsStart``): the slot comes with its words.
    @inline(__always)
    func newPlainSnapshotWords(for object: ModelObject) -> UnsafeMutablePointer<UInt64> {
        guard object._snapshotSlot == 0, !snapshots.nullable else { return snapshotWords(for: object) }
        let (slot, words) = snapshots.allocateWords()
        object._snapshotSlot = slot
        return words
    }

    /// Remembers the current value of the given properties (after an update wrote them).
    func capture(_ object: ModelObject, properties: ColumnSet) {
        if object._snapshotSlot == 0 { return capture(object) }
        let slot = object._snapshotSlot
        if let start = metadata.plainWordsStart {
            // Fields of 8-byte numbers, never NULL: each word is its field's bits.
            let words = snapshots.words(slot)
            properties.forEach { words[$0] = loadPlainWord(object, start: start, index: $0) }
            return
        }
        captureFields(object, slot: slot, properties: properties)
    }

    /// ``capture(_:properties:)`` for models that are not all plain numbers, out of line (see ``changes(of:)``).
    @inline(never)
    private func captureFields(_ object: ModelObject, slot: UInt32, properties: ColumnSet) {
        properties.forEach { snapshots.set(slot, $0, storedWord(of: object, at: $0)) }
    }

    /// Remembers the given words for the given properties.
    func capture(_ object: ModelObject, words: [(index: Int, word: SnapshotWord)]) {
        if object._snapshotSlot == 0 { return capture(object) }
        for (index, word) in words { snapshots.set(object._snapshotSlot, index, word) }
    }

    /// The snapshot word of property `index`, if the instance has a snapshot.
    func snapshotWord(of object: ModelObject, at index: Int) -> SnapshotWord? {
        object._snapshotSlot == 0 ? nil : snapshots.word(object._snapshotSlot, index)
    }

    /// ``changes(of:)`` for a model whose properties are all 8-byte numbers side by side from byte
    /// `start` (``ModelMetadata/plainWordsStart``), of an instance that has a snapshot: one bit per property.
    @inline(__always)
    func contiguousWordChanges(of object: ModelObject, start: Int) -> UInt64 {
        plainWordChanges(object, start: start, count: snapshots.count, words: snapshots.words(object._snapshotSlot))
    }

    /// ``capture(_:properties:)`` for such a model (see ``contiguousWordChanges(of:start:)``).
    @inline(__always)
    func capturePlainWords(_ object: ModelObject, start: Int, properties: UInt64) {
        let words = snapshots.words(object._snapshotSlot)
        var bits = properties
        while bits != 0 {
            let i = bits.trailingZeroBitCount
            words[i] = loadPlainWord(object, start: start, index: i)
            bits &= bits - 1
        }
    }

    /// The properties whose value differs from the snapshot (every property when there is none).
    func changes(of object: ModelObject) -> ColumnSet {
        var result = ColumnSet()
        let slot = object._snapshotSlot
        guard slot != 0 else {
            for i in 0..<snapshots.count { result.insert(i) }
            return result
        }
        let words = snapshots.words(slot)
        if let offsets = metadata.plainWordOffsets {
            return ColumnSet(low: offsets.withUnsafeBufferPointer { plainWordChanges(object, offsets: $0, words: words) })
        }
        return fieldChanges(of: object, words: words)
    }

    /// ``changes(of:)`` for models that are not all plain numbers, out of line so that the plain path (a
    /// save's) stays a few instructions long in the instruction cache.
    @inline(never)
    private func fieldChanges(of object: ModelObject, words: UnsafeMutablePointer<UInt64>) -> ColumnSet {
        var result = ColumnSet()
        let count = snapshots.count
        var nulls = words[count]
        let readingBack = readingBack
        metadata.fastFields.withUnsafeBufferPointer { fields in
            for i in 0..<count {
                if i & 63 == 0 && i > 0 { nulls = words[count + (i >> 6)] }
                let word = readingBack.contains(i) ? readBackWord(of: object, at: i)
                    : fields[i]?.snapshotWord(object) ?? metadata.snapshotWord(of: object, at: i)
                if word.bits != words[i] || word.isNull != ((nulls >> UInt64(i & 63)) & 1 != 0) || word.isUnknown {
                    result.insert(i)
                }
            }
        }
        return result
    }

    /// Frees the snapshot of an instance that no longer stands for a row.
    func releaseSnapshot(_ object: ModelObject) {
        guard object._snapshotSlot != 0 else { return }
        snapshots.release(object._snapshotSlot)
        object._snapshotSlot = 0
    }
}

extension ModelObject {
    /// Whether a save would write anything: true for an instance never saved, and for a saved one whose
    /// persistent properties differ from what it last read or wrote (FCModel's `hasUnsavedChanges`).
    ///
    /// ```swift
    /// let ada = try db.object(Employee.self, forKey: 1)!
    /// ada.hasChanges      // false
    /// ada.name = "Ada L."
    /// ada.hasChanges      // true
    /// try db.save(ada)
    /// ada.hasChanges      // false
    /// ```
    public final var hasChanges: Bool {
        guard let registry = _registry else { return true }
        return !_isDeleted && !registry.changes(of: self).isEmpty
    }

    /// The persistent properties a save would write, in declaration order (key first); every property
    /// for an instance never saved, none for a deleted one.
    ///
    /// ```swift
    /// ada.name = "Ada L."
    /// ada.changedProperties   // ["name"]
    /// ```
    public final var changedProperties: [String] {
        if let registry = _registry {
            return _isDeleted ? [] : registry.changes(of: self).indices.map { registry.metadata.properties[$0].name }
        }
        guard let type = self as? any Model, let metadata = try? ModelMetadata.of(Swift.type(of: type)) else { return [] }
        return metadata.properties.map(\.name)
    }
}
