/// The identity map's table from key to live instance, for tables whose key is not the rowid (text, UUID
/// and composite keys): open addressing with Robin Hood linear probing, holding instances unretained (each
/// removes itself in `deinit`), as ``RowIDMap`` does for rowids.
///
/// It replaced a `[IdentityKey: Unmanaged<ModelObject>]` and its reverse `[ObjectIdentifier: IdentityKey]`
/// (the key each instance was registered under): Swift's `Dictionary` hashes with SipHash, and the two maps
/// cost four SipHash runs a fetched row (a lookup, two inserts, and at release two removals), about 1,600
/// instructions and as many cache misses. Here a key is hashed with ``hash(_:)`` (two integer parts by a
/// multiplication, text by ``SnapshotHash``, other shapes by Swift's hasher) and the hash is kept in the
/// entry; an instance's entry is found again at release by the hash of the key its snapshot remembers (for
/// a text key, the snapshot word *is* ``SnapshotHash``'s hash of its bytes), else of its key properties as
/// they are now, else by a scan (an instance whose key property was changed since and has no snapshot):
/// each candidate is checked by the instance it holds, so the entry found is always the instance's own.
///
/// Two integer parts are placed by `a * k + b` in the low bits at first, so rows fetched in key order fill
/// neighbouring slots; a probe longer than ``longProbe`` switches the table to a Fibonacci hash for good.
/// Keys need no protection against hash flooding (they come from the database the process opened, as rowids
/// do; see ``RowIDMap``). Tests: Review20KeyShapeTests, Review19IdentityKeyTests, KeyRaceTests.
///
/// ```swift
/// var map = KeyMap()
/// let key = IdentityKey.pair(1, 2)
/// _ = map.insert(Unmanaged.passUnretained(object), for: key, hash: KeyMap.hash(key))
/// map.find(key, hash: KeyMap.hash(key))   // the instance
/// ```
struct KeyMap {
    struct Entry {
        var hash: UInt64
        var key: IdentityKey
        /// nil: an empty slot.
        var value: Unmanaged<ModelObject>?

        static var empty: Entry { Entry(hash: 0, key: .pair(0, 0), value: nil) }
    }

    /// The slots: empty (capacity 0) until the first insert, then a power of two.
    private var entries: ContiguousArray<Entry> = []
    private var shift: UInt64 = 64
    /// Whether homes come from a Fibonacci hash of the hash (after a long probe) rather than its low bits.
    private(set) var scrambled = false
    /// The probe length that switches to the Fibonacci hash.
    static let longProbe = 32
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The hash of a key: two integer parts by a multiplication (neighbouring second parts, neighbouring
    /// hashes); a text key by ``SnapshotHash`` over its UTF-8 bytes (the word its snapshot holds); others by
    /// Swift's hasher.
    @inline(__always)
    static func hash(_ key: IdentityKey) -> UInt64 {
        switch key {
        case .pair(let a, let b): return pairHash(a, b)
        case .single(.text(let text)): return SnapshotHash.hash(text: text)
        default: return UInt64(bitPattern: Int64(key.hashValue))
        }
    }

    @inline(__always)
    static func pairHash(_ a: Int64, _ b: Int64) -> UInt64 {
        UInt64(bitPattern: a) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(bitPattern: b)
    }

    @inline(__always)
    private static func home(of hash: UInt64, mask: Int, scrambled: Bool, shift: UInt64) -> Int {
        scrambled ? Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift) : Int(truncatingIfNeeded: hash) & mask
    }

    /// The instance registered under `key` (whose hash is `hash`), if any.
    @inline(__always)
    func find(_ key: IdentityKey, hash: UInt64) -> Unmanaged<ModelObject>? {
        guard count > 0 else { return nil }
        return entries.withUnsafeBufferPointer { table in
            let mask = table.count - 1
            var i = Self.home(of: hash, mask: mask, scrambled: scrambled, shift: shift)
            var probes = 0
            while let value = table[i].value {
                if table[i].hash == hash && table[i].key == key { return value }
                if (i &- Self.home(of: table[i].hash, mask: mask, scrambled: scrambled, shift: shift)) & mask < probes { return nil }
                i = (i + 1) & mask
                probes += 1
            }
            return nil
        }
    }

    /// Registers `value` under `key`; returns the instance it replaced, if any.
    @discardableResult
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: IdentityKey, hash: UInt64) -> Unmanaged<ModelObject>? {
        if (count + 1) * 8 > entries.count * 7 { rehash(capacity: max(16, entries.count * 2)) }
        let scrambled = self.scrambled, shift = self.shift
        let (replaced, longest): (Unmanaged<ModelObject>?, Int) = entries.withUnsafeMutableBufferPointer { table in
            let mask = table.count - 1
            var i = Self.home(of: hash, mask: mask, scrambled: scrambled, shift: shift)
            var probes = 0
            while let existing = table[i].value {
                if table[i].hash == hash && table[i].key == key {
                    table[i].value = value
                    return (existing, 0)
                }
                if (i &- Self.home(of: table[i].hash, mask: mask, scrambled: scrambled, shift: shift)) & mask < probes { break }
                i = (i + 1) & mask
                probes += 1
            }
            return (nil, Self.place(Entry(hash: hash, key: key, value: value), at: i, distance: probes, in: table,
                                    scrambled: scrambled, shift: shift))
        }
        if replaced != nil { return replaced }
        count += 1
        if longest > Self.longProbe && !scrambled {
            self.scrambled = true
            rehash(capacity: entries.count)
        }
        return nil
    }

    /// Robin Hood insertion; returns the longest distance from home it left along the way.
    private static func place(_ entry: Entry, at index: Int, distance: Int, in table: UnsafeMutableBufferPointer<Entry>,
                              scrambled: Bool, shift: UInt64) -> Int {
        let mask = table.count - 1
        var carried = entry
        var i = index
        var d = distance
        var longest = distance
        while table[i].value != nil {
            let resident = (i &- home(of: table[i].hash, mask: mask, scrambled: scrambled, shift: shift)) & mask
            if resident < d {
                swap(&carried, &table[i])
                d = resident
            }
            i = (i + 1) & mask
            d += 1
            if d > longest { longest = d }
        }
        table[i] = carried
        return longest
    }

    /// The slot holding `object`, looked for along the probe run of `hash` (the hash of the key it was
    /// registered under, if the caller guessed it right).
    func index(of object: ModelObject, hash: UInt64) -> Int? {
        guard count > 0 else { return nil }
        let wanted = Unmanaged.passUnretained(object).toOpaque()
        return entries.withUnsafeBufferPointer { table in
            let mask = table.count - 1
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
    }

    /// The slot holding `object`, by a scan of every slot (when no hash guess found it).
    @inline(never)
    func indexScanning(for object: ModelObject) -> Int? {
        guard count > 0 else { return nil }
        let wanted = Unmanaged.passUnretained(object).toOpaque()
        return entries.firstIndex { $0.value?.toOpaque() == wanted }
    }

    /// The key of the entry at `index` (from ``index(of:hash:)``).
    func key(at index: Int) -> IdentityKey { entries[index].key }

    /// Removes the entry at `index`. Backward-shift deletion: the entries after it that are not home move
    /// back one slot (no tombstones).
    mutating func remove(at index: Int) {
        let scrambled = self.scrambled, shift = self.shift
        entries.withUnsafeMutableBufferPointer { table in
            let mask = table.count - 1
            var hole = index
            var next = (hole + 1) & mask
            while table[next].value != nil,
                  next != Self.home(of: table[next].hash, mask: mask, scrambled: scrambled, shift: shift) {
                table[hole] = table[next]
                hole = next
                next = (next + 1) & mask
            }
            table[hole] = .empty
        }
        count -= 1
    }

    /// Every registered instance.
    var values: [Unmanaged<ModelObject>] { entries.compactMap(\.value) }

    /// Grows the table once so that `count` entries fit without a rehash on the way (a fetch whose row count
    /// the engine knows reserves it before registering its rows).
    mutating func reserveCapacity(_ count: Int) {
        var capacity = max(16, entries.count)
        while count * 8 > capacity * 7 { capacity *= 2 }
        if capacity > entries.count { rehash(capacity: capacity) }
    }

    /// Moves every entry into a new table of `capacity` slots.
    private mutating func rehash(capacity newCapacity: Int) {
        var fresh = ContiguousArray(repeating: Entry.empty, count: newCapacity)
        let shift = UInt64(64 - newCapacity.trailingZeroBitCount)
        let scrambled = self.scrambled
        var longest = 0
        fresh.withUnsafeMutableBufferPointer { table in
            let mask = newCapacity - 1
            for entry in entries where entry.value != nil {
                let home = Self.home(of: entry.hash, mask: mask, scrambled: scrambled, shift: shift)
                longest = max(longest, Self.place(entry, at: home, distance: 0, in: table, scrambled: scrambled, shift: shift))
            }
        }
        entries = fresh
        self.shift = shift
        if longest > Self.longProbe && !scrambled {
            self.scrambled = true
            rehash(capacity: newCapacity)
        }
    }
}
