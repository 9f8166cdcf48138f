/// The identity map's table from rowid to live instance: open addressing with Robin Hood linear probing,
/// holding instances unretained (each removes itself in `deinit`).
///
/// Rowids are placed by their low bits at first, so rows fetched in rowid order fill neighbouring slots
/// and leave them in order (cache-friendly; a scattering hash cost a cache miss per row on fetch and on
/// release). Keys that cluster under that placement (a stride of a power of two, say) make probes long:
/// the first probe longer than ``longProbe`` switches the table to a Fibonacci hash for good.
///
/// Robin Hood order (along a run, entries never sit closer to their home slot than the entry before them
/// minus one) lets a lookup stop at the first entry nearer home than the probe, and a removal stop at the
/// first entry that is home. Sequential rowids form one long run with every entry home, so without it a
/// removal would scan the whole run.
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
    /// Whether keys are scattered by a Fibonacci hash (after a long probe) rather than placed by their low bits.
    private(set) var scrambled = false
    /// The probe length that switches to the Fibonacci hash.
    static let longProbe = 32
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
        scrambled ? Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
            : Int(truncatingIfNeeded: key) & (entries.count - 1)
    }

    /// How far the entry at `index` sits from its home slot.
    @inline(__always)
    private func distance(at index: Int) -> Int {
        (index &- slot(for: entries[index].key)) & mask
    }

    /// The instance registered for `key`, if any.
    @inline(__always)
    subscript(key: Int64) -> Unmanaged<ModelObject>? {
        find(key).value
    }

    /// Looks `key` up; on a miss, also returns the slot where it would go, which stays valid for
    /// ``insert(_:for:at:)`` until the map is next changed (so a fetch probes once per new row).
    @inline(__always)
    func find(_ key: Int64) -> (value: Unmanaged<ModelObject>?, slot: Slot) {
        var i = slot(for: key)
        var probes = 0
        while let value = entries[i].value {
            if entries[i].key == key { return (value, Slot(index: i, version: version, probes: probes)) }
            // An entry nearer its home than this probe: `key` would have displaced it, so it is absent.
            if distance(at: i) < probes { break }
            i = (i + 1) & mask
            probes += 1
        }
        return (nil, Slot(index: i, version: version, probes: probes))
    }

    /// Where ``find(_:)`` stopped, valid while the map is unchanged.
    @usableFromInline
    struct Slot {
        fileprivate let index: Int
        fileprivate let version: Int
        fileprivate let probes: Int
    }

    /// Registers `value` for `key` at the slot ``find(_:)`` returned, unless the table must grow.
    @inline(__always)
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: Int64, at slot: Slot) {
        guard slot.version == version, (count + 1) * 4 <= entries.count * 3 else {
            insert(value, for: key)
            return
        }
        place(Entry(key: key, value: value), at: slot.index, distance: slot.probes)
    }

    /// Registers `value` for `key`, replacing any previous value.
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: Int64) {
        if (count + 1) * 4 > entries.count * 3 { grow(to: entries.count * 2) }
        let (found, slot) = find(key)
        if found != nil {
            entries[slot.index].value = value
            return
        }
        place(Entry(key: key, value: value), at: slot.index, distance: slot.probes)
    }

    /// Puts a new entry at `index`, `distance` from its home, moving the entries after it along in
    /// Robin Hood order; then switches to the scattering hash if some entry ended up far from home.
    @inline(__always)
    private mutating func place(_ entry: Entry, at index: Int, distance: Int) {
        var carried = entry
        var i = index
        var d = distance
        var longest = distance
        while entries[i].value != nil {
            let resident = self.distance(at: i)
            if resident < d {
                swap(&carried, &entries[i])
                d = resident
            }
            i = (i + 1) & mask
            d += 1
            if d > longest { longest = d }
        }
        entries[i] = carried
        count += 1
        version &+= 1
        if longest > Self.longProbe && !scrambled {
            // Keys cluster under the low-bits placement: scatter them from now on.
            scrambled = true
            grow(to: entries.count)
        }
    }

    /// Removes the entry for `key`.
    mutating func remove(_ key: Int64) {
        remove(key, ifValue: nil)
    }

    /// Removes the entry for `key` when it holds `value` (any value when nil), in one probe: what an
    /// instance's `deinit` does, so it costs one lookup, not a lookup and then a removal. Backward-shift
    /// deletion: the entries after it that are not home move back one slot (no tombstones).
    mutating func remove(_ key: Int64, ifValue value: UnsafeMutableRawPointer?) {
        let (found, slot) = find(key)
        guard let found else { return }
        if let value, found.toOpaque() != value { return }
        let mask = self.mask
        var hole = slot.index
        var next = (hole + 1) & mask
        while entries[next].value != nil, distance(at: next) > 0 {
            entries[hole] = entries[next]
            hole = next
            next = (next + 1) & mask
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
        count = 0
        version &+= 1
        for entry in old where entry.value != nil {
            place(entry, at: slot(for: entry.key), distance: 0)
        }
    }
}
