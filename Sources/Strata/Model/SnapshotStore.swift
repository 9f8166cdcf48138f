// Raw memory for dirty-tracking snapshots (the other unsafe file is FieldAccess.swift, for field offsets).
// Tests: every snapshot path runs in WriteIntegrityTests, LiveInstanceTests and FieldAccessTests; run them
// with --sanitize=address after changing this file.

/// The snapshot of every live instance of one model type: per instance, one word per persistent property
/// and the NULL bits (about 8 bytes per column), in pages of 1,024 slots: no allocation per instance, no
/// copying as the store grows, and at most one page unused. An instance holds its slot number in
/// `_snapshotSlot` (0: none).
///
/// The pages are raw memory of `UInt64` words (a trivial type), indexed only through `words(_:)` with
/// slots this store handed out, so every access is in bounds; a slot's words are all written by
/// ``TypeRegistry/capture(_:row:)`` or the decoder before any is read (a free slot's first word links
/// the free list). They belong to one ``TypeRegistry`` (one handle's isolation domain), which frees them.
struct SnapshotStore {
    let count: Int
    let stride: Int
    private static let pageShift = 10
    private var pages: [UnsafeMutablePointer<UInt64>] = []
    private var used = 0
    /// The most recently freed slot; each free slot's first word holds the next one (0: none).
    private var freeHead: UInt32 = 0

    init(count: Int) {
        self.count = count
        stride = count + (count + 63) / 64
    }

    func deallocate() { pages.forEach { $0.deallocate() } }

    /// A slot for a new instance's snapshot.
    @inline(__always)
    mutating func allocate() -> UInt32 {
        if freeHead != 0 {
            let slot = freeHead
            freeHead = UInt32(truncatingIfNeeded: words(slot)[0])
            return slot
        }
        if used == pages.count << Self.pageShift {
            pages.append(.allocate(capacity: stride << Self.pageShift))
        }
        used += 1
        return UInt32(used)
    }

    @inline(__always)
    mutating func release(_ slot: UInt32) {
        words(slot)[0] = UInt64(freeHead)
        freeHead = slot
    }

    /// The words of a slot: `count` property words, then the NULL bits.
    @inline(__always)
    func words(_ slot: UInt32) -> UnsafeMutablePointer<UInt64> {
        let index = Int(slot) - 1
        return pages[index >> Self.pageShift] + (index & ((1 << Self.pageShift) - 1)) * stride
    }

    @inline(__always)
    func word(_ slot: UInt32, _ index: Int) -> SnapshotWord {
        let words = words(slot)
        return SnapshotWord(bits: words[index], isNull: words[count + (index >> 6)] & (1 << UInt64(index & 63)) != 0)
    }

    @inline(__always)
    func set(_ slot: UInt32, _ index: Int, _ word: SnapshotWord) {
        let words = words(slot)
        words[index] = word.bits
        let bit: UInt64 = 1 << UInt64(index & 63)
        if word.isNull { words[count + (index >> 6)] |= bit } else { words[count + (index >> 6)] &= ~bit }
    }
}
