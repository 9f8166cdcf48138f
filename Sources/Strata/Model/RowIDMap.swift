/// The identity map's table from rowid to live instance: open addressing with linear probing and a
/// Fibonacci hash, holding instances unretained (each removes itself in `deinit`).
///
/// Swift's `Dictionary` hashes an `Int64` with SipHash, which dominated fetching (about a fifth of
/// the instructions per row); rowids need no protection against hash flooding, so a multiplicative
/// hash is enough and several times cheaper. Keys and values sit side by side for locality.
@usableFromInline
struct RowIDMap {
    private struct Entry {
        var key: Int64
        var value: Unmanaged<ModelObject>?
    }

    private var entries: [Entry]
    private var shift: UInt64
    private(set) var count = 0
    /// Changes whenever an entry moves or is added or removed, so a slot from ``find(_:)`` can be checked.
    private var version = 0

    init() {
        entries = Array(repeating: Entry(key: 0, value: nil), count: 16)
        shift = 60
    }

    private var mask: Int { entries.count - 1 }

    @inline(__always)
    private func slot(for key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The instance registered for `key`, if any.
    @inline(__always)
    subscript(key: Int64) -> Unmanaged<ModelObject>? {
        var i = slot(for: key)
        while let value = entries[i].value {
            if entries[i].key == key { return value }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Looks `key` up; on a miss, also returns the empty slot where it would go, which stays valid for
    /// ``insert(_:for:at:)`` until the map is next changed (so a fetch probes once per new row).
    @inline(__always)
    func find(_ key: Int64) -> (value: Unmanaged<ModelObject>?, slot: Slot) {
        var i = slot(for: key)
        while let value = entries[i].value {
            if entries[i].key == key { return (value, Slot(index: i, version: version)) }
            i = (i + 1) & mask
        }
        return (nil, Slot(index: i, version: version))
    }

    /// Where ``find(_:)`` stopped, valid while the map is unchanged.
    @usableFromInline
    struct Slot {
        fileprivate let index: Int
        fileprivate let version: Int
    }

    /// Registers `value` for `key` at the empty slot ``find(_:)`` returned, unless the table must grow.
    @inline(__always)
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: Int64, at slot: Slot) {
        guard slot.version == version, (count + 1) * 4 <= entries.count * 3 else {
            insert(value, for: key)
            return
        }
        entries[slot.index] = Entry(key: key, value: value)
        count += 1
        version &+= 1
    }

    /// Registers `value` for `key`, replacing any earlier one.
    @inline(__always)
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: Int64) {
        if (count + 1) * 4 > entries.count * 3 { grow(to: entries.count * 2) }
        let mask = self.mask
        var i = slot(for: key)
        while entries[i].value != nil {
            if entries[i].key == key { entries[i].value = value; return }
            i = (i + 1) & mask
        }
        entries[i] = Entry(key: key, value: value)
        count += 1
        version &+= 1
    }

    /// Removes the entry for `key` (backward-shift deletion: no tombstones).
    mutating func remove(_ key: Int64) {
        remove(key, ifValue: nil)
    }

    /// Removes the entry for `key` when it holds `value` (any value when nil), in one probe: what an
    /// instance's `deinit` does, so it costs one lookup, not a lookup and then a removal.
    mutating func remove(_ key: Int64, ifValue value: UnsafeMutableRawPointer?) {
        let mask = self.mask
        var i = slot(for: key)
        while entries[i].value != nil, entries[i].key != key { i = (i + 1) & mask }
        guard let found = entries[i].value else { return }
        if let value, found.toOpaque() != value { return }
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            guard entries[j].value != nil else { break }
            let home = slot(for: entries[j].key)
            // The entry at j may move back into the hole unless its home slot is cyclically in (hole, j].
            let stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !stays {
                entries[hole] = entries[j]
                hole = j
            }
        }
        entries[hole].value = nil
        count -= 1
        version &+= 1
    }

    /// Every registered instance.
    var allValues: [Unmanaged<ModelObject>] { entries.compactMap(\.value) }

    private mutating func grow(to capacity: Int) {
        let old = entries
        entries = Array(repeating: Entry(key: 0, value: nil), count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        version &+= 1
        let mask = capacity - 1
        for entry in old where entry.value != nil {
            var i = slot(for: entry.key)
            while entries[i].value != nil { i = (i + 1) & mask }
            entries[i] = entry
        }
    }
}
