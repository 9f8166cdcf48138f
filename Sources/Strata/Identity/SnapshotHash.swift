/// The 64-bit hash of text and bytes in a snapshot word: wyhash's structure (Wang Yi's, public domain),
/// keyed at random once per process, with each multiplication keeping its factors ("condom" form).
///
/// Dirty tracking needs only that two different values almost never share a word: then a change could
/// go unwritten. wyhash passes SMHasher's collision and distribution tests. Two changes to it close the
/// way an input could be built to collide on purpose: plain wyhash XORs input words with a public
/// constant before multiplying, so bytes equal to that constant zero a factor and the other bytes of the
/// step stop counting; here that constant is a random key, and each step also folds its factors in with
/// the product. So no pair of inputs is known in advance to collide, and the chance stays about 2^-64 per
/// changed value, as with the standard library's SipHash, at a tenth of its cost on short text (about 25
/// instructions for a 14-byte name against 250), which matters because every fetched text column is
/// hashed once. The words never leave the process. Tests: SnapshotHashTests.
enum SnapshotHash {
    private static let secret0: UInt64 = 0x2d35_8dcc_aa6c_78a5
    private static let secret1: UInt64 = 0x8bb8_4b93_962e_acc9
    /// Chosen once per process: the seed, and the key each input word is XORed with before it is
    /// multiplied (wyhash's public `secret[1]` in that place).
    private static let seed: UInt64 = UInt64.random(in: .min ... .max)
    private static let key: UInt64 = UInt64.random(in: .min ... .max)

    /// wyhash's `_wymix` with `WYHASH_CONDOM` 2: the factors are folded in with the product.
    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return (a ^ low) ^ (b ^ high)
    }

    @inline(__always)
    private static func read8(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func read4(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// The hash of `bytes`; `kind` separates kinds of value (text, bytes, a REAL), so equal bytes of
    /// different kinds hash differently.
    static func hash(_ bytes: UnsafeRawBufferPointer, kind: UInt64) -> UInt64 {
        let length = bytes.count
        var seed = (Self.seed ^ kind) ^ mix((Self.seed ^ kind) ^ secret0, secret1)
        var a: UInt64 = 0, b: UInt64 = 0
        if let p = bytes.baseAddress, length > 0 {
            if length <= 16 {
                if length >= 4 {
                    let shift = (length >> 3) << 2
                    a = (read4(p, 0) << 32) | read4(p, shift)
                    b = (read4(p, length - 4) << 32) | read4(p, length - 4 - shift)
                } else {
                    let bytes = p.assumingMemoryBound(to: UInt8.self)
                    a = (UInt64(bytes[0]) << 16) | (UInt64(bytes[length >> 1]) << 8) | UInt64(bytes[length - 1])
                }
            } else {
                var offset = 0
                var remaining = length
                while remaining > 16 {
                    seed = mix(read8(p, offset) ^ key, read8(p, offset + 8) ^ seed)
                    offset += 16
                    remaining -= 16
                }
                a = read8(p, length - 16)
                b = read8(p, length - 8)
            }
        }
        // `_wymum` with `WYHASH_CONDOM` 2: each factor keeps its own bits beside the product's.
        a ^= key
        b ^= seed
        let (high, low) = a.multipliedFullWidth(by: b)
        a ^= low
        b ^= high
        return mix(a ^ secret0 ^ UInt64(length), b ^ secret1)
    }

    /// The hash of a string's UTF-8 bytes (so canonically equivalent but different strings differ).
    @inline(__always)
    static func hash(text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(text: $0) }
    }

    /// ``hash(text:)`` of text's UTF-8 bytes as they are (a column's, before a String is made of them).
    @inline(__always)
    static func hash(text bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        hash(UnsafeRawBufferPointer(bytes), kind: 3)
    }
}
