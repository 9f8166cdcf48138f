import Foundation
import StrataTestSupport
import Testing
@testable import Strata

private final class Note: Model {
    var id: Int64 = 0
    var title = ""
    var body: Data = Data()
    required init() {}
}

@Suite struct SnapshotHashTests {
    /// Every length from 0 to 100 (each branch of the hash: 0, 1-3, 4-16 and longer, and each tail), with
    /// every byte changed in turn: no two of these inputs share a hash, and the same bytes always give
    /// the same one.
    @Test func eachByteOfEachLengthChangesTheHash() {
        var seen: [UInt64: [UInt8]] = [:]
        for length in 0...100 {
            let base = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var variants = [base]
            for index in 0..<length {
                var changed = base
                changed[index] ^= 0x01
                variants.append(changed)
                changed[index] ^= 0x81
                variants.append(changed)
            }
            for bytes in variants {
                let hash = bytes.withUnsafeBytes { SnapshotHash.hash($0, kind: 4) }
                #expect(hash == bytes.withUnsafeBytes { SnapshotHash.hash($0, kind: 4) })
                if let other = seen[hash] {
                    Issue.record("\(bytes) and \(other) share the hash \(hash)")
                }
                seen[hash] = bytes
            }
        }
        #expect(seen.count == 1 + (1...100).reduce(0) { $0 + 1 + 2 * $1 })
    }

    /// Bytes equal to plain wyhash's public constant (little-endian `0x8bb84b93962eacc9`) where they zeroed a factor
    /// of a multiplication, in a 9-to-16-byte value, in the last block of a longer one and in a middle
    /// block: every other byte still changes the hash (plain wyhash ignored them there).
    @Test func bytesThatZeroAFactorStillLeaveTheRestCounting() {
        let constant: [UInt8] = [0xc9, 0xac, 0x2e, 0x96, 0x93, 0x4b, 0xb8, 0x8b]
        let swapped = Array(constant[4...] + constant[..<4])    // `a` of a 9-16-byte value is (first 4) << 32 | next 4
        let cases: [[UInt8]] = [
            swapped + [0x00],
            swapped + [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07],
            [0x10] + constant + Array(repeating: 0x20, count: 8),            // 17 bytes: last block starts at 1
            Array(repeating: 0x30, count: 8) + constant + Array(repeating: 0x40, count: 8),
            constant + Array(repeating: 0x50, count: 8) + Array(repeating: 0x60, count: 16),   // first loop block
        ]
        for bytes in cases {
            var seen: Set<UInt64> = []
            for index in bytes.indices {
                for delta: UInt8 in [0, 1, 0x80] {
                    var changed = bytes
                    changed[index] &+= delta
                    if delta != 0 && changed == bytes { continue }
                    seen.insert(changed.withUnsafeBytes { SnapshotHash.hash($0, kind: 4) })
                }
            }
            #expect(seen.count == 1 + 2 * bytes.count, "\(bytes.count) bytes: \(seen.count) distinct hashes")
        }
    }

    /// Through a model: a blob that starts with those bytes, changed in its last byte, is saved.
    @Test func aBlobOfTheConstantChangedInItsLastByteIsSaved() throws {
        let temp = try TestDatabase()
        let note = Note()
        note.body = Data([0x93, 0x4b, 0xb8, 0x8b, 0xc9, 0xac, 0x2e, 0x96, 0x00])
        try temp.db.save(note)
        note.body = Data([0x93, 0x4b, 0xb8, 0x8b, 0xc9, 0xac, 0x2e, 0x96, 0x01])
        #expect(note.changedProperties == ["body"])
        try temp.db.save(note)
        #expect(try temp.db.value(Data.self, "SELECT body FROM \"Note\" WHERE id = ?", note.id) == note.body)
    }

    /// Trailing zero bytes, and the same bytes as text, bytes and a number, all hash apart.
    @Test func lengthAndKindAreHashed() {
        let zeros = (0...20).map { [UInt8](repeating: 0, count: $0).withUnsafeBytes { SnapshotHash.hash($0, kind: 4) } }
        #expect(Set(zeros).count == zeros.count)
        let text = SnapshotWord(.text("abcdefgh"))
        let blob = SnapshotWord(.blob(Data("abcdefgh".utf8)))
        let real = SnapshotWord(.real(Double(bitPattern: UInt64(littleEndian: 0x6867_6665_6463_6261))))
        #expect(Set([text.bits, blob.bits, real.bits]).count == 3)
    }

    /// Canonically equivalent strings (é as one scalar, and as e plus a combining accent) are different
    /// stored values, so a change from one to the other is written.
    @Test func canonicallyEquivalentStringsDiffer() {
        #expect("\u{E9}" == "e\u{301}")
        #expect(SnapshotWord(text: "\u{E9}").bits != SnapshotWord(text: "e\u{301}").bits)
    }

    /// Through a model: a text or bytes property changed in any one character, at any length, counts as
    /// changed and is saved; set back to what was stored, it does not.
    @Test func everyOneCharacterChangeIsSaved() throws {
        let temp = try TestDatabase()
        let note = Note()
        try temp.db.save(note)
        for length in [0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 48, 49, 200] {
            let title = String(repeating: "a", count: length)
            note.title = title
            note.body = Data(title.utf8)
            try temp.db.save(note)
            #expect(!note.hasChanges)
            for index in 0..<length {
                var characters = Array(title)
                characters[index] = "b"
                note.title = String(characters)
                #expect(note.changedProperties == ["title"])
                note.title = title
                var bytes = Array(title.utf8)
                bytes[index] = UInt8(ascii: "b")
                note.body = Data(bytes)
                #expect(note.changedProperties == ["body"])
                note.body = Data(title.utf8)
                #expect(!note.hasChanges)
            }
            note.title = title + "!"
            try temp.db.save(note)
            #expect(try temp.db.value(String.self, "SELECT title FROM \"Note\" WHERE id = ?", note.id) == title + "!")
        }
    }
}
