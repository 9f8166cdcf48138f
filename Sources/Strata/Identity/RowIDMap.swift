import Foundation

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
/// The table grows (doubles) past seven eighths full: Robin Hood order keeps probes short at that load,
/// and rows fetched in rowid order sit at home whatever the load.
///
/// Swift's `Dictionary` hashes an `Int64` with SipHash, which dominated fetching (about a fifth of
/// the instructions per row); rowids need no protection against hash flooding, so a multiplicative
/// hash is enough and several times cheaper. Keys and values sit side by side for locality.
///
/// The table is raw memory from `calloc` (all-zero bits are an empty entry: key 0, no value), so a new
/// table costs no initialising pass: large ones come as fresh zero pages. Sound because `Entry` is a
/// trivial type, every index is masked by `capacity - 1` (a power of two) before use, each table is freed
/// by the allocator that made it (`free`, or `deallocate` for the fallback), and the map is non-copyable,
/// so exactly one owner frees the memory, in `deinit`. The map belongs to one
/// ``TypeRegistry`` (one handle's isolation domain). Tests: RowIDMapTests (run with --sanitize=address).
@usableFromInline
struct RowIDMap: ~Copyable {
    private struct Entry {
        var key: Int64
        var value: Unmanaged<ModelObject>?
    }

    private var table: UnsafeMutablePointer<Entry>
    /// Whether `table` came from `calloc` (else from Swift's allocator, when `calloc` failed).
    private var tableFromCalloc: Bool
    private var capacity: Int
    private var shift: UInt64
    /// Whether keys are scattered by a Fibonacci hash (after a long probe) rather than placed by their low bits.
    private(set) var scrambled = false
    /// The probe length that switches to the Fibonacci hash.
    static let longProbe = 32
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }
    /// Changes whenever an entry moves or is added or removed, so a slot from ``find(_:)`` can be checked.
    private var version = 0

    init() {
        capacity = 16
        (table, tableFromCalloc) = Self.allocateTable(capacity)
        shift = 60
    }

    deinit { Self.release(table, fromCalloc: tableFromCalloc) }

    /// A table of `capacity` empty entries, and whether `calloc` made it. If `calloc` fails, Swift's
    /// allocator takes over (and stops the process if memory has run out, as every Swift allocation does).
    private static func allocateTable(_ capacity: Int) -> (UnsafeMutablePointer<Entry>, Bool) {
        if let memory = calloc(capacity, MemoryLayout<Entry>.stride) {
            return (memory.bindMemory(to: Entry.self, capacity: capacity), true)
        }
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        table.initialize(repeating: Entry(key: 0, value: nil), count: capacity)
        return (table, false)
    }

    /// Frees a table with the allocator that made it.
    private static func release(_ table: UnsafeMutablePointer<Entry>, fromCalloc: Bool) {
        if fromCalloc { free(table) } else { table.deallocate() }
    }

    private var mask: Int { capacity &- 1 }

    /// The home slot of `key` in a table of `mask + 1` entries.
    @inline(__always)
    private static func home(of key: Int64, mask: Int, scrambled: Bool, shift: UInt64) -> Int {
        RobinHood.home(of: UInt64(bitPattern: key), mask: mask, scrambled: scrambled, shift: shift)
    }

    @inline(__always)
    private func home(of key: Int64) -> Int {
        Self.home(of: key, mask: mask, scrambled: scrambled, shift: shift)
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
        let mask = self.mask
        var i = home(of: key)
        var probes = 0
        while let value = table[i].value {
            if table[i].key == key { return (value, Slot(index: i, version: version, probes: probes)) }
            // An entry nearer its home than this probe: `key` would have displaced it, so it is absent.
            if (i &- home(of: table[i].key)) & mask < probes { break }
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
        guard slot.version == version, (count &+ 1) &* 8 <= capacity &* 7 else {
            insert(value, for: key)
            return
        }
        if table[slot.index].value == nil && slot.probes <= Self.longProbe {
            // The probe stopped at an empty slot (a new rowid past the others, say): the entry goes there,
            // as `place` would put it, with nothing to move.
            table[slot.index] = Entry(key: key, value: value)
            count &+= 1
            version &+= 1
            return
        }
        place(Entry(key: key, value: value), at: slot.index, distance: slot.probes)
    }

    /// Registers `value` for `key`, replacing any previous value.
    mutating func insert(_ value: Unmanaged<ModelObject>, for key: Int64) {
        if (count + 1) * 8 > capacity * 7 { rehash(capacity: capacity * 2) }
        let (found, slot) = find(key)
        if found != nil {
            table[slot.index].value = value
            return
        }
        place(Entry(key: key, value: value), at: slot.index, distance: slot.probes)
    }

    /// Puts a new entry at `index`, `distance` from its home, moving the entries after it along in
    /// Robin Hood order; then switches to the scattering hash if some entry ended up far from home.
    @inline(__always)
    private mutating func place(_ entry: Entry, at index: Int, distance: Int) {
        let longest = Self.place(entry, at: index, distance: distance, in: table, mask: mask, scrambled: scrambled, shift: shift)
        count += 1
        version &+= 1
        if longest > Self.longProbe && !scrambled {
            // Keys cluster under the low-bits placement: scatter them from now on.
            scrambled = true
            rehash(capacity: capacity)
        }
    }

    /// Robin Hood insertion into `table` (``RobinHood/place(_:at:distance:in:mask:isOccupied:home:)``);
    /// returns the longest distance from home it left along the way.
    @inline(__always)
    private static func place(_ entry: Entry, at index: Int, distance: Int, in table: UnsafeMutablePointer<Entry>,
                              mask: Int, scrambled: Bool, shift: UInt64) -> Int {
        RobinHood.place(entry, at: index, distance: distance, in: table, mask: mask, isOccupied: { $0.value != nil },
                        home: { home(of: $0.key, mask: mask, scrambled: scrambled, shift: shift) })
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
        let mask = self.mask, scrambled = self.scrambled, shift = self.shift
        RobinHood.remove(at: slot.index, in: table, mask: mask, empty: Entry(key: 0, value: nil), isOccupied: { $0.value != nil },
                         home: { Self.home(of: $0.key, mask: mask, scrambled: scrambled, shift: shift) })
        count -= 1
        version &+= 1
    }

    /// Every registered instance.
    var allValues: [Unmanaged<ModelObject>] {
        UnsafeBufferPointer(start: table, count: capacity).compactMap(\.value)
    }

    /// Moves every entry into a new table of `capacity` entries (twice the size as the map grows; the
    /// same size after switching to the scattering hash).
    private mutating func rehash(capacity newCapacity: Int) {
        let old = table, oldCapacity = capacity, oldFromCalloc = tableFromCalloc
        let (fresh, freshFromCalloc) = Self.allocateTable(newCapacity)
        let mask = newCapacity - 1, shift = UInt64(64 - newCapacity.trailingZeroBitCount)
        var longest = 0
        for i in 0..<oldCapacity where old[i].value != nil {
            let entry = old[i]
            let home = Self.home(of: entry.key, mask: mask, scrambled: scrambled, shift: shift)
            longest = max(longest, Self.place(entry, at: home, distance: 0, in: fresh, mask: mask, scrambled: scrambled, shift: shift))
        }
        Self.release(old, fromCalloc: oldFromCalloc)
        table = fresh
        tableFromCalloc = freshFromCalloc
        capacity = newCapacity
        self.shift = shift
        version &+= 1
        if longest > Self.longProbe && !scrambled {
            scrambled = true
            rehash(capacity: newCapacity)
        }
    }
}
