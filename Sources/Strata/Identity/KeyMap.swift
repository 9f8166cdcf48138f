import Foundation

/// The identity map's table from key to live instance, for tables whose key is not the rowid (text, UUID
/// and composite keys): open addressing in Robin Hood order (``RobinHood``), holding instances unretained
/// (each removes itself in `deinit`), as ``RowIDMap`` does for rowids.
///
/// It replaced a `[IdentityKey: Unmanaged<ModelObject>]` and its reverse `[ObjectIdentifier: IdentityKey]`
/// (the key each instance was registered under): Swift's `Dictionary` hashes with SipHash, and the two maps
/// cost four SipHash runs a fetched row. Here a key is hashed with ``hash(_:)`` (two integer parts by a
/// multiplication, text by ``SnapshotHash``, other shapes by Swift's hasher) and the hash is kept in the
/// entry; an instance's entry is found again at release by the hash of the key its snapshot remembers (for
/// a text key, the snapshot word *is* ``SnapshotHash``'s hash of its bytes), else of its key properties as
/// they are now, else by a scan (an instance whose key property was changed since and has no snapshot):
/// each candidate is checked by the instance it holds, so the entry found is always the instance's own.
///
/// Entries are 32 trivial bytes (hash, two words, instance), so growing (by four) and removing move bytes and
/// never retain or release: while every key is a pair of integers (two `Int64` parts, two references) the
/// two words are its parts, or while every key is a single integer (``IdentityKey/integer(_:)``) the first
/// word is it; from the first key of another shape on, a text key of at most 15 UTF-8 bytes is packed into
/// the two words (``packedText(_:)``) and the first word of any other indexes `keys`, which holds each such key
/// (a free list reuses the places of removed ones). A single integer is its own hash. A lookup also returns the slot where a
/// missing key goes (``lookUp(_:hash:)``), so a fetch probes once per new row (``insert(_:for:hash:at:)``).
///
/// Two integer parts are placed by `a * k + b` in the low bits at first, so rows fetched in key order fill
/// neighbouring slots; a probe longer than ``longProbe`` switches the table to a Fibonacci hash for good.
/// Keys need no protection against hash flooding (they come from the database the process opened, as rowids
/// do; see ``RowIDMap``).
///
/// The table is raw memory from `calloc` (all-zero bits are an empty entry), as ``RowIDMap``'s: sound
/// because `Entry` is trivial, every index is masked by `capacity - 1` (a power of two), each table is freed
/// by the allocator that made it, and the map is non-copyable, so exactly one owner frees it, in `deinit`.
/// Tests: KeyMapGrowthTests, Review20KeyShapeTests, Review19IdentityKeyTests, KeyRaceTests (run with
/// --sanitize=address).
///
/// ```swift
/// var map = KeyMap()
/// let key = IdentityKey.pair(1, 2)
/// _ = map.insert(Unmanaged.passUnretained(object), for: key, hash: KeyMap.hash(key))
/// map.find(key, hash: KeyMap.hash(key))   // the instance
/// ```
@usableFromInline
struct KeyMap: ~Copyable {
    struct Entry {
        var hash: UInt64
        /// The key's two parts (``holdsPairs``; a single integer in `a`, with ``holdsIntegers``), else a short
        /// text key packed (``packedText(_:)``: `b` is not 0) or, with `b` 0, the key's index in `keys`.
        var a: Int64
        var b: Int64
        /// nil: an empty slot.
        var value: Unmanaged<ModelObject>?
    }

    /// Where ``lookUp(_:hash:)`` stopped, valid while the map is unchanged.
    @usableFromInline
    struct Slot {
        fileprivate let index: Int
        fileprivate let version: Int
        fileprivate let probes: Int

        /// A slot that no map's version matches (an insert at it probes).
        @usableFromInline
        static var none: Slot { Slot(index: 0, version: -1, probes: 0) }
    }

    /// The slots: none (capacity 0) until the first insert, then a power of two.
    private var table: UnsafeMutablePointer<Entry>?
    private var tableFromCalloc = true
    private var capacity = 0
    private var shift: UInt64 = 64
    /// Whether homes come from a Fibonacci hash of the hash (after a long probe) rather than its low bits.
    private(set) var scrambled = false
    /// The probe length that switches to the Fibonacci hash.
    static let longProbe = 32
    private(set) var count = 0
    /// Changes whenever an entry moves or is added or removed, so a slot from ``lookUp(_:hash:)`` can be checked.
    private var version = 0
    /// Whether every entry holds its key in its words, a pair of integers or a single one (else its key is in `keys`).
    private(set) var holdsPairs = true
    /// Whether the keys held in the entries' words are single integers (`a`), not pairs: set by the first
    /// key while the map is empty.
    private(set) var holdsIntegers = false
    /// The keys of the entries when not ``holdsPairs``, by the index in their first word.
    private var keys: ContiguousArray<IdentityKey> = []
    /// Indices of `keys` whose entry was removed, for reuse.
    private var freeKeys: ContiguousArray<Int> = []

    init() {}

    deinit {
        if let table { Self.release(table, fromCalloc: tableFromCalloc) }
    }

    var isEmpty: Bool { count == 0 }

    /// The places of the side list of keys (those in use and those free for reuse).
    var storedKeys: Int { keys.count }

    /// The hash of a key: two integer parts by a multiplication (neighbouring second parts, neighbouring
    /// hashes); a text key by ``SnapshotHash`` over its UTF-8 bytes (the word its snapshot holds); others by
    /// Swift's hasher.
    @inline(__always)
    static func hash(_ key: IdentityKey) -> UInt64 {
        switch key {
        case .pair(let a, let b): return pairHash(a, b)
        case .integer(let value): return UInt64(bitPattern: value)
        case .single(.text(let text)): return SnapshotHash.hash(text: text)
        default: return UInt64(bitPattern: Int64(key.hashValue))
        }
    }

    @inline(__always)
    static func pairHash(_ a: Int64, _ b: Int64) -> UInt64 {
        UInt64(bitPattern: a) &* RobinHood.fibonacci &+ UInt64(bitPattern: b)
    }

    private static var empty: Entry { Entry(hash: 0, a: 0, b: 0, value: nil) }

    /// A table of `capacity` empty entries, and whether `calloc` made it (else Swift's allocator, which stops
    /// the process if memory has run out, as every Swift allocation does).
    private static func allocateTable(_ capacity: Int) -> (UnsafeMutablePointer<Entry>, Bool) {
        if let memory = calloc(capacity, MemoryLayout<Entry>.stride) {
            return (memory.bindMemory(to: Entry.self, capacity: capacity), true)
        }
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        table.initialize(repeating: empty, count: capacity)
        return (table, false)
    }

    /// Frees a table with the allocator that made it.
    private static func release(_ table: UnsafeMutablePointer<Entry>, fromCalloc: Bool) {
        if fromCalloc { free(table) } else { table.deallocate() }
    }

    @inline(__always)
    private static func home(of hash: UInt64, mask: Int, scrambled: Bool, shift: UInt64) -> Int {
        RobinHood.home(of: hash, mask: mask, scrambled: scrambled, shift: shift)
    }

    /// Whether `entry` holds `key` (whose hash is `hash`).
    @inline(__always)
    private func holds(_ entry: Entry, _ key: IdentityKey, hash: UInt64) -> Bool {
        guard entry.hash == hash else { return false }
        if holdsPairs {
            switch key {
            case .pair(let a, let b): return !holdsIntegers && entry.a == a && entry.b == b
            case .integer(let a): return holdsIntegers && entry.a == a
            default: return false
            }
        }
        if entry.b != 0 {
            // A short text held in the entry's words.
            guard let (a, b) = Self.packedText(of: key) else { return false }
            return entry.a == a && entry.b == b
        }
        return keys[Int(entry.a)] == key
    }

    /// A text key of at most 15 UTF-8 bytes packed into an entry's two words (bytes 0-7 in the first, 8-14 in
    /// the low bytes of the second, whose top byte is 0x80 + the count, so never 0), held in the entry itself
    /// rather than in `keys` while the map is not ``holdsPairs``; nil for longer text and other keys.
    @inline(__always)
    static func packedText(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int64, Int64)? {
        guard bytes.count <= 15 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        if let base = bytes.baseAddress {
            withUnsafeMutableBytes(of: &words) { $0.baseAddress?.copyMemory(from: base, byteCount: bytes.count) }
        }
        let a = UInt64(littleEndian: words.0), b = UInt64(littleEndian: words.1) | UInt64(0x80 | bytes.count) << 56
        return (Int64(bitPattern: a), Int64(bitPattern: b))
    }

    /// ``packedText(_:)`` of a single text key; nil for other keys.
    @inline(__always)
    static func packedText(of key: IdentityKey) -> (Int64, Int64)? {
        guard case .single(.text(var text)) = key else { return nil }
        return text.withUTF8 { packedText($0) }
    }

    /// The text of words ``packedText(_:)`` made.
    private static func unpackedText(_ a: Int64, _ b: Int64) -> String {
        var words = (UInt64(bitPattern: a).littleEndian, (UInt64(bitPattern: b) & ((1 << 56) - 1)).littleEndian)
        let count = Int((UInt64(bitPattern: b) >> 56) & 0x0F)
        return withUnsafeBytes(of: &words) { String(decoding: $0.prefix(count), as: UTF8.self) }
    }

    /// The instance registered under `key` (whose hash is `hash`), if any.
    @inline(__always)
    func find(_ key: IdentityKey, hash: UInt64) -> Unmanaged<ModelObject>? {
        lookUp(key, hash: hash).value
    }

    /// Looks `key` (whose hash is `hash`) up; on a miss, also returns the slot where it would go, which stays
    /// valid for ``insert(_:for:hash:at:)`` until the map is next changed.
    @inline(__always)
    func lookUp(_ key: IdentityKey, hash: UInt64) -> (value: Unmanaged<ModelObject>?, slot: Slot) {
        // (No table yet: the insert that makes one probes again.)
        guard let table else { return (nil, Slot(index: 0, version: version, probes: 0)) }
        let mask = capacity - 1, scrambled = self.scrambled, shift = self.shift
        var i = Self.home(of: hash, mask: mask, scrambled: scrambled, shift: shift)
        var probes = 0
        while let value = table[i].value {
            if holds(table[i], key, hash: hash) { return (value, Slot(index: i, version: version, probes: probes)) }
            // An entry nearer its home than this probe: `key` would have displaced it, so it is absent.
            if (i &- Self.home(of: table[i].hash, mask: mask, scrambled: scrambled, shift: shift)) & mask < probes { break }
            i = (i + 1) & mask
            probes += 1
        }
        return (nil, Slot(index: i, version: version, probes: probes))
    }

    /// Registers `value` under `key` at the slot ``lookUp(_:hash:)`` returned for it (a miss), unless the map
    /// changed since or must grow; returns the instance it replaced, if any (only then).
    @inline(__always)
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: IdentityKey, hash: UInt64, at slot: Slot) -> Unmanaged<ModelObject>? {
        guard slot.version == version, (count + 1) * 8 <= capacity * 7 else {
            return insert(value, for: key, hash: hash)
        }
        if holdsPairs {
            guard let (a, b) = inlineWords(of: key) else { return insert(value, for: key, hash: hash) }
            place(Entry(hash: hash, a: a, b: b, value: value), at: slot.index, distance: slot.probes)
        } else {
            // A short text in the entry's words; another key kept in the side list (text, mixed parts):
            // stored, then placed at the slot (storing it moves no entry, so the slot stays valid).
            let (a, b) = Self.packedText(of: key) ?? (Int64(store(key)), 0)
            place(Entry(hash: hash, a: a, b: b, value: value), at: slot.index, distance: slot.probes)
        }
        return nil
    }

    /// The words an entry holds `key` in while ``holdsPairs``: a pair's parts (unless the entries hold single
    /// integers), a single integer and 0 (if they do); nil for a key of another shape.
    @inline(__always)
    private func inlineWords(of key: IdentityKey) -> (Int64, Int64)? {
        switch key {
        case .pair(let a, let b): return holdsIntegers ? nil : (a, b)
        case .integer(let a): return holdsIntegers ? (a, 0) : nil
        default: return nil
        }
    }

    /// Registers `value` under `key`; returns the instance it replaced, if any.
    @discardableResult
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: IdentityKey, hash: UInt64) -> Unmanaged<ModelObject>? {
        if holdsPairs, inlineWords(of: key) == nil {
            // (The first key of an empty map chooses what the entries' words hold.)
            if count == 0, key.isPair || key.isInteger { holdsIntegers = key.isInteger } else { holdKeysApart() }
        }
        // Growth by four (by two past a million slots): a fetch's map grows while it reads, and each growth
        // moves every entry and clears a new table.
        if (count + 1) * 8 > capacity * 7 { rehash(capacity: max(64, capacity < 1 << 20 ? capacity * 4 : capacity * 2)) }
        let (found, slot) = lookUp(key, hash: hash)
        if let found, let table {
            table[slot.index].value = value
            return found
        }
        let entry: Entry
        if holdsPairs, let (a, b) = inlineWords(of: key) {
            entry = Entry(hash: hash, a: a, b: b, value: value)
        } else {
            let (a, b) = Self.packedText(of: key) ?? (Int64(store(key)), 0)
            entry = Entry(hash: hash, a: a, b: b, value: value)
        }
        place(entry, at: slot.index, distance: slot.probes)
        return nil
    }

    /// Puts a new entry at `index`, `distance` from its home, in Robin Hood order; then switches to the
    /// scattering hash if some entry ended up far from home.
    @inline(__always)
    private mutating func place(_ entry: Entry, at index: Int, distance: Int) {
        guard let table else { return }
        let mask = capacity - 1, scrambled = self.scrambled, shift = self.shift
        let longest = RobinHood.place(entry, at: index, distance: distance, in: table, mask: mask, isOccupied: { $0.value != nil },
                                      home: { Self.home(of: $0.hash, mask: mask, scrambled: scrambled, shift: shift) })
        count += 1
        version &+= 1
        if longest > Self.longProbe && !scrambled {
            // Keys cluster under the low-bits placement: scatter them from now on.
            self.scrambled = true
            rehash(capacity: capacity)
        }
    }

    /// `key`'s index in `keys` (a free one reused).
    private mutating func store(_ key: IdentityKey) -> Int {
        if let index = freeKeys.popLast() {
            keys[index] = key
            return index
        }
        keys.append(key)
        return keys.count - 1
    }

    /// Moves every entry's key into `keys` (the first key of a shape the entries' words do not hold).
    private mutating func holdKeysApart() {
        holdsPairs = false
        guard let table else { return }
        for i in 0..<capacity where table[i].value != nil {
            keys.append(holdsIntegers ? .integer(table[i].a) : .pair(table[i].a, table[i].b))
            table[i].a = Int64(keys.count - 1)
            table[i].b = 0
        }
        version &+= 1
    }

    /// The slot holding `object`, looked for along the probe run of `hash` (the hash of the key it was
    /// registered under, if the caller guessed it right).
    func index(of object: ModelObject, hash: UInt64) -> Int? {
        guard count > 0, let table else { return nil }
        let wanted = Unmanaged.passUnretained(object).toOpaque()
        let mask = capacity - 1, scrambled = self.scrambled, shift = self.shift
        var i = Self.home(of: hash, mask: mask, scrambled: scrambled, shift: shift)
        var probes = 0
        while let value = table[i].value {
            if table[i].hash == hash && value.toOpaque() == wanted { return i }
            if (i &- Self.home(of: table[i].hash, mask: mask, scrambled: scrambled, shift: shift)) & mask < probes { return nil }
            i = (i + 1) & mask
            probes += 1
        }
        return nil
    }

    /// The slot holding `object`, by a scan of every slot (when no hash guess found it).
    @inline(never)
    func indexScanning(for object: ModelObject) -> Int? {
        guard count > 0, let table else { return nil }
        let wanted = Unmanaged.passUnretained(object).toOpaque()
        return (0..<capacity).first { table[$0].value?.toOpaque() == wanted }
    }

    /// The key of the entry at `index` (from ``index(of:hash:)``).
    func key(at index: Int) -> IdentityKey {
        guard let table, index >= 0, index < capacity else { return .pair(0, 0) }
        guard holdsPairs else {
            let entry = table[index]
            return entry.b != 0 ? IdentityKey(text: Self.unpackedText(entry.a, entry.b)) : keys[Int(entry.a)]
        }
        return holdsIntegers ? .integer(table[index].a) : .pair(table[index].a, table[index].b)
    }

    /// Removes the entry at `index` (from ``index(of:hash:)``), by backward-shift deletion (no tombstones).
    mutating func remove(at index: Int) {
        guard let table, index >= 0, index < capacity, table[index].value != nil else { return }
        if !holdsPairs && table[index].b == 0 {
            let keyIndex = Int(table[index].a)
            keys[keyIndex] = .pair(0, 0)   // lets the key's text go
            freeKeys.append(keyIndex)
        }
        let mask = capacity - 1, scrambled = self.scrambled, shift = self.shift
        RobinHood.remove(at: index, in: table, mask: mask, empty: Self.empty, isOccupied: { $0.value != nil },
                         home: { Self.home(of: $0.hash, mask: mask, scrambled: scrambled, shift: shift) })
        count -= 1
        version &+= 1
        if count == 0 && !holdsPairs {
            keys.removeAll()
            freeKeys.removeAll()
        }
    }

    /// Every registered instance.
    var values: [Unmanaged<ModelObject>] {
        guard let table else { return [] }
        return UnsafeBufferPointer(start: table, count: capacity).compactMap(\.value)
    }

    /// Grows the table once so that `count` entries fit without a rehash on the way (a fetch whose row count
    /// the engine knows reserves it before registering its rows).
    mutating func reserveCapacity(_ count: Int) {
        var wanted = max(64, capacity)
        while count * 8 > wanted * 7 { wanted *= 2 }
        if wanted > capacity { rehash(capacity: wanted) }
    }

    /// Moves every entry into a new table of `capacity` slots (four or two times the size as the map grows; the same
    /// size after switching to the scattering hash).
    private mutating func rehash(capacity newCapacity: Int) {
        let (fresh, freshFromCalloc) = Self.allocateTable(newCapacity)
        let mask = newCapacity - 1, shift = UInt64(64 - newCapacity.trailingZeroBitCount), scrambled = self.scrambled
        var longest = 0
        if let old = table {
            for i in 0..<capacity where old[i].value != nil {
                let entry = old[i]
                let home = Self.home(of: entry.hash, mask: mask, scrambled: scrambled, shift: shift)
                longest = max(longest, RobinHood.place(entry, at: home, distance: 0, in: fresh, mask: mask, isOccupied: { $0.value != nil },
                                                       home: { Self.home(of: $0.hash, mask: mask, scrambled: scrambled, shift: shift) }))
            }
            Self.release(old, fromCalloc: tableFromCalloc)
        }
        table = fresh
        tableFromCalloc = freshFromCalloc
        capacity = newCapacity
        self.shift = shift
        version &+= 1
        if longest > Self.longProbe && !scrambled {
            self.scrambled = true
            rehash(capacity: newCapacity)
        }
    }
}

extension IdentityKey {
    /// Whether the key is two integer parts (``KeyMap`` holds those in its entries).
    @inline(__always)
    var isPair: Bool {
        if case .pair = self { return true }
        return false
    }

    /// Whether the key is a single integer (``KeyMap`` holds those in its entries).
    @inline(__always)
    var isInteger: Bool {
        if case .integer = self { return true }
        return false
    }
}
