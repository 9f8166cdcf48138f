// Raw memory for dirty-tracking snapshots (the other unsafe file is FieldAccess.swift, for field offsets).
// Tests: every snapshot path runs in WriteIntegrityTests, LiveInstanceTests and FieldAccessTests; run them
// with --sanitize=address after changing this file.

/// The snapshot of every live instance of one model type: per instance, one word per persistent property
/// and the NULL bits (about 8 bytes per column), in pages of 1,024 slots: no allocation per instance, no
/// copying as the store grows, and at most one page unused. An instance holds its slot number in
/// `_snapshotSlot` (0: none).
///
/// On an engine other than SQLite, a table whose kept row texts are all spelled from the snapshot has a
/// `stamped` store: each slot ends with the instance's read stamp (what a dictionary by instance held).
///
/// A model whose properties are all 8-byte numbers (``ModelMetadata/plainWordsStart``) is never NULL: its
/// slots have no NULL-bit words (8 bytes less per instance). Should a NULL word reach such a store all
/// the same, its bit is kept aside (`nullsAside`), so no word is ever taken for another.
///
/// The pages are raw memory of `UInt64` words (a trivial type), indexed only through `words(_:)` with
/// slots this store handed out, so every access is in bounds; a slot's words are all written by
/// ``TypeRegistry/capture(_:row:)`` or the decoder before any is read (a free slot's first word links
/// the free list). They belong to one ``TypeRegistry`` (one handle's isolation domain), which frees them.
struct SnapshotStore {
    let count: Int
    let stride: Int
    /// Whether slots carry NULL-bit words.
    let nullable: Bool
    /// Whether slots carry one more word after the others, the read stamp of an instance on an engine other
    /// than SQLite (``TypeRegistry/readStamp(of:)``), written ``noStamp`` as the slot is handed out.
    let stamped: Bool
    /// Where a slot's NULL-bit words end: its stamp's index, when `stamped`.
    private let nullsEnd: Int
    /// The stamp of a slot handed out and not stamped since.
    static let noStamp = UInt64(bitPattern: Int64.min)
    /// The NULL bits of slots of a store without NULL-bit words, by slot; empty unless a NULL word came.
    private var nullsAside: [UInt32: [UInt64]] = [:]
    private static let pageShift = 10
    private static let pageMask = (1 << pageShift) - 1
    private var pages: [UnsafeMutablePointer<UInt64>] = []
    private var used = 0
    /// The most recently freed slot; each free slot's first word holds the next one (0: none).
    private var freeHead: UInt32 = 0

    init(count: Int, nullable: Bool = true, stamped: Bool = false) {
        self.count = count
        self.nullable = nullable
        self.stamped = stamped
        nullsEnd = count + (nullable ? (count + 63) / 64 : 0)
        stride = nullsEnd + (stamped ? 1 : 0)
    }

    func deallocate() { pages.forEach { $0.deallocate() } }

    /// A slot for a new instance's snapshot.
    @inline(__always)
    mutating func allocate() -> UInt32 {
        allocateWords().slot
    }

    /// ``allocate()``, with the slot's words (whose NULL bits, in a store that has them, the caller clears:
    /// see ``clearNulls(_:)``; a store without them keeps no bits aside for a slot handed out).
    @inline(__always)
    mutating func allocateWords() -> (slot: UInt32, words: UnsafeMutablePointer<UInt64>) {
        let slot: UInt32
        let words: UnsafeMutablePointer<UInt64>
        if freeHead != 0 {
            slot = freeHead
            words = self.words(slot)
            freeHead = UInt32(truncatingIfNeeded: words[0])
        } else {
            let index = used
            if index == pages.count << Self.pageShift {
                pages.append(.allocate(capacity: stride << Self.pageShift))
            }
            used = index + 1
            slot = UInt32(used)
            words = pages[index >> Self.pageShift] + (index & Self.pageMask) &* stride
        }
        if stamped { words[nullsEnd] = Self.noStamp }
        return (slot, words)
    }

    @inline(__always)
    mutating func release(_ slot: UInt32) {
        if !nullsAside.isEmpty { nullsAside[slot] = nil }
        words(slot)[0] = UInt64(freeHead)
        freeHead = slot
    }

    /// Marks no property of `slot` NULL (before its words are all written anew).
    @inline(__always)
    mutating func clearNulls(_ slot: UInt32) {
        guard nullable else {
            if !nullsAside.isEmpty { nullsAside[slot] = nil }
            return
        }
        let words = words(slot)
        for i in count..<nullsEnd { words[i] = 0 }
    }

    /// The read stamp of a slot of a `stamped` store (``noStamp`` until one is set).
    @inline(__always)
    func stamp(_ slot: UInt32) -> UInt64 {
        words(slot)[nullsEnd]
    }

    /// Sets the read stamp of a slot of a `stamped` store.
    @inline(__always)
    func setStamp(_ slot: UInt32, _ stamp: UInt64) {
        words(slot)[nullsEnd] = stamp
    }

    /// The words of a slot: `count` property words, then the NULL bits.
    @inline(__always)
    func words(_ slot: UInt32) -> UnsafeMutablePointer<UInt64> {
        let index = Int(slot) &- 1
        return pages[index >> Self.pageShift] + (index & Self.pageMask) &* stride
    }

    @inline(__always)
    func word(_ slot: UInt32, _ index: Int) -> SnapshotWord {
        let words = words(slot)
        let bit: UInt64 = 1 << UInt64(index & 63)
        guard nullable else {
            let aside = nullsAside.isEmpty ? nil : nullsAside[slot]
            return SnapshotWord(bits: words[index], isNull: aside.map { $0[index >> 6] & bit != 0 } ?? false)
        }
        return SnapshotWord(bits: words[index], isNull: words[count + (index >> 6)] & bit != 0)
    }

    @inline(__always)
    mutating func set(_ slot: UInt32, _ index: Int, _ word: SnapshotWord) {
        let words = words(slot)
        words[index] = word.bits
        let bit: UInt64 = 1 << UInt64(index & 63)
        guard nullable else {
            if word.isNull || !nullsAside.isEmpty { setAside(slot, index, isNull: word.isNull) }
            return
        }
        if word.isNull { words[count + (index >> 6)] |= bit } else { words[count + (index >> 6)] &= ~bit }
    }

    /// Keeps the NULL bit of a word of a store without NULL-bit words.
    private mutating func setAside(_ slot: UInt32, _ index: Int, isNull: Bool) {
        var bits = nullsAside[slot] ?? [UInt64](repeating: 0, count: (count + 63) / 64)
        let bit: UInt64 = 1 << UInt64(index & 63)
        if isNull { bits[index >> 6] |= bit } else { bits[index >> 6] &= ~bit }
        nullsAside[slot] = bits.allSatisfy { $0 == 0 } ? nil : bits
    }
}
