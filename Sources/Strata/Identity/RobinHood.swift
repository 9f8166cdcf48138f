/// The probing shared by the identity map's two open-addressing tables, ``RowIDMap`` (by rowid) and
/// ``KeyMap`` (by any other key): linear probing in Robin Hood order, over a table of `mask + 1` entries
/// (a power of two) of a trivial entry type.
///
/// A slot's home comes from a 64-bit word of its entry (the rowid; a key's hash): its low bits at first, so
/// keys that come in order fill neighbouring slots, or a Fibonacci hash of it once a probe grew longer than
/// the tables' `longProbe` (`scrambled`). Robin Hood order (along a run, no entry sits nearer its home than
/// the one before it minus one) lets a lookup stop at the first entry nearer home than the probe, and a
/// removal shift back only the entries after the hole that are not home (no tombstones).
///
/// Sound as the tables' own code was: every index is masked by `mask` before use, and entries are trivial
/// (moved by copying, never released). Tests: RowIDMapTests, KeyMapGrowthTests (run with --sanitize=address).
///
/// ```swift
/// let home = RobinHood.home(of: word, mask: capacity - 1, scrambled: false, shift: 64 - 4)
/// let longest = RobinHood.place(entry, at: home, distance: 0, in: table, mask: capacity - 1,
///                               isOccupied: { $0.value != nil }, home: { RobinHood.home(of: $0.key, ...) })
/// ```
enum RobinHood {
    /// The Fibonacci multiplier (2^64 / golden ratio) that scatters clustered words.
    static let fibonacci: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The home slot of an entry whose home word is `word`, in a table of `mask + 1` slots whose
    /// `shift` is 64 minus its log2.
    @inline(__always)
    static func home(of word: UInt64, mask: Int, scrambled: Bool, shift: UInt64) -> Int {
        scrambled ? Int(truncatingIfNeeded: (word &* fibonacci) >> shift) : Int(truncatingIfNeeded: word) & mask
    }

    /// Robin Hood insertion of `entry` at `index`, `distance` from its home (where a probe for it stopped):
    /// each resident nearer its home than the entry carried swaps with it. Returns the longest distance from
    /// home it left along the way (past the tables' `longProbe`, they switch to the Fibonacci hash).
    @inline(__always)
    static func place<Entry>(_ entry: Entry, at index: Int, distance: Int, in table: UnsafeMutablePointer<Entry>,
                             mask: Int, isOccupied: (Entry) -> Bool, home: (Entry) -> Int) -> Int {
        var carried = entry
        var i = index
        var d = distance
        var longest = distance
        while isOccupied(table[i]) {
            let resident = (i &- home(table[i])) & mask
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

    /// Empties the slot at `index` by backward-shift deletion: the entries after it that are not home move
    /// back one slot, and the last slot they leave becomes `empty`.
    @inline(__always)
    static func remove<Entry>(at index: Int, in table: UnsafeMutablePointer<Entry>, mask: Int, empty: Entry,
                              isOccupied: (Entry) -> Bool, home: (Entry) -> Int) {
        var hole = index
        var next = (hole + 1) & mask
        while isOccupied(table[next]), next != home(table[next]) {
            table[hole] = table[next]
            hole = next
            next = (next + 1) & mask
        }
        table[hole] = empty
    }
}
