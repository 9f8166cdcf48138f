// Decoding a new instance of a row whose key columns a fetch has read already (``Database/lookUp(keyedBy:registry:)``):
// the key's values go straight to their fields and snapshot words, and only the other columns are read.
extension Database {
    /// ``decodeRow(_:into:registry:capturing:rowID:)`` capturing the snapshot of a new instance, with the key
    /// columns' values taken from `key` (what ``lookUp(keyedBy:registry:)`` read: two integer parts stored in
    /// plain number fields, or a text key's String and its ``SnapshotHash``, which is its snapshot word)
    /// instead of reading them again. Other rows, and a key part whose field does not take the value this
    /// way, are read from their columns as usual.
    func decodeRow(_ statement: Statement, into object: ModelObject, registry: TypeRegistry, key: NewKey) throws {
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals,
           case .pair(let a, let b) = key.identity, reals.count >= 2, !reals[0], !reals[1] {
            // Fields of 8-byte numbers side by side, the two key parts integers: stored, the rest read.
            let words = registry.snapshotWords(for: object)
            storePlainWord(UInt64(bitPattern: a), into: object, start: start, index: 0)
            storePlainWord(UInt64(bitPattern: b), into: object, start: start, index: 1)
            words[0] = UInt64(bitPattern: a)
            words[1] = UInt64(bitPattern: b)
            try decodePlainWords(statement, into: object, registry: registry, start: start, reals: reals, words: words, from: 2)
            return
        }
        // Two integer parts in fields that are not all plain numbers (references, say): read as any row (taking
        // the parts from the key measured no cheaper there: callgrind, fetch-composite-refs).
        guard registry.metadata.plainWordsStart == nil, case .single(.text(let text)) = key.identity else {
            try decodeRow(statement, into: object, registry: registry, capturing: true)
            return
        }
        let words = registry.snapshotWords(for: object)
        do {
            try registry.fields.withUnsafeBufferPointer { fields in
                let count = fields.count
                for i in 0..<count {
                    // The text key, column 0: its String and hash from lookUp.
                    let stored = i == 0 ? fields[0]?.store(text: text, hash: key.hash, into: object) : nil
                    let word: SnapshotWord
                    if let stored {
                        word = stored
                    } else if let read = fields[i]?.read(statement, column: Int32(i), into: object) {
                        word = read
                    } else {
                        word = try decodeCapturing(statement, column: i, into: object, registry: registry)
                    }
                    words[i] = word.bits
                    if word.isNull { words[count + (i >> 6)] |= 1 << UInt64(i & 63) }
                }
            }
        } catch {
            registry.releaseSnapshot(object)
            throw error
        }
    }
}
