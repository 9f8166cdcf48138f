// Decoding a new instance of a row whose key columns a fetch has read already (``Database/lookUp(keyedBy:registry:)``):
// the key's values go straight to their fields and snapshot words, and only the other columns are read.
extension Database {
    /// ``decodeRow(_:into:registry:capturing:rowID:)`` capturing the snapshot of a new instance, with the key
    /// columns' values taken from `key` (what ``lookUp(keyedBy:registry:)`` read: two integer parts, or a text
    /// key and its ``SnapshotHash``, which is its snapshot word) instead of reading them again. A key part whose
    /// field does not take the value this way is read from its column as usual.
    func decodeRow(_ statement: Statement, into object: ModelObject, registry: TypeRegistry, key: NewKey) throws {
        if let start = registry.metadata.plainWordsStart, let reals = registry.plainReals,
           case .pair(let a, let b) = key.identity, reals.count >= 2, !reals[0], !reals[1] {
            // Fields of 8-byte numbers side by side, the two key parts integers: stored, the rest read.
            let words = registry.snapshotWords(for: object)
            storePlainWord(UInt64(bitPattern: a), into: object, start: start, index: 0)
            storePlainWord(UInt64(bitPattern: b), into: object, start: start, index: 1)
            words[0] = UInt64(bitPattern: a)
            words[1] = UInt64(bitPattern: b)
            var next = 2
            do {
                try reals.withUnsafeBufferPointer { reals in
                    while let column = readPlainWords(statement, into: object, start: start, reals: reals, from: next, words: words) {
                        try decodeConverting(statement, column: column, into: object, registry: registry)
                        words[column] = loadPlainWord(object, start: start, index: column)
                        next = column + 1
                    }
                }
            } catch {
                registry.releaseSnapshot(object)
                throw error
            }
            return
        }
        guard registry.metadata.plainWordsStart == nil else {
            try decodeRow(statement, into: object, registry: registry, capturing: true)
            return
        }
        let words = registry.snapshotWords(for: object)
        do {
            try registry.fields.withUnsafeBufferPointer { fields in
                let count = fields.count
                for i in 0..<count {
                    var stored: SnapshotWord?
                    if i < 2 { stored = keyWord(key.identity, part: i, hash: key.hash, fields[i], reader: registry.readers[i], into: object) }
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

    /// Stores part `part` of an already read key into its field (a fast field, else the reader of a reference)
    /// and returns its snapshot word; nil when the field does not take it this way, or `part` is no key part.
    @inline(__always)
    private func keyWord(_ identity: IdentityKey, part: Int, hash: UInt64, _ field: FastField?, reader: AnyFieldIO?,
                         into object: ModelObject) -> SnapshotWord? {
        switch identity {
        case .pair(let a, let b):
            let value = part == 0 ? a : b
            if let field { return field.store(rowID: value, into: object) }
            return reader?.storeCapturing(integer: value, into: object)
        case .single(.text(let text)) where part == 0:
            return field?.store(text: text, hash: hash, into: object)
        default:
            return nil
        }
    }
}
