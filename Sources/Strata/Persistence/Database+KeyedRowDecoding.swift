// Decoding a new instance of a row whose key columns a fetch has read already (``Database/lookUp(keyedBy:registry:newKey:)``):
// the key's values go straight to their fields and snapshot words, and only the other columns are read.
extension Database {
    /// ``decodeRow(_:into:registry:capturing:rowID:)`` capturing the snapshot of a new instance, with the key
    /// columns' values taken from `key` (what ``lookUp(keyedBy:registry:newKey:)`` read: two integer parts stored in
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
        guard let layout = registry.keyedLayout else {
            try decodeRow(statement, into: object, registry: registry, capturing: true)
            return
        }
        try decodeRow(statement, into: object, registry: registry, key: key, layout: layout)
    }

    /// The keyed decoding of a model whose fields are not all 8-byte numbers (``KeyedLayout``): key parts
    /// set from `key` where their fields take it (two `@Reference`s, a `String`), the rest read. (Kept out of
    /// line: inlined, it made the plain pair path above cost more.)
    @inline(never)
    private func decodeRow(_ statement: Statement, into object: ModelObject, registry: TypeRegistry, key: NewKey,
                           layout: KeyedLayout) throws {
        let words = registry.snapshotWords(for: object)
        do {
            // The key columns set from the key where the fields take it that way (else read below).
            var first = 0
            switch key.identity {
            case .pair(let a, let b):
                // Two `@Reference` parts: their states take the integers (no accessor call, no column read).
                if let (stateA, stateB) = layout.referenceStates,
                   storeNewReferenceKey(a, into: object, stateOffset: stateA),
                   storeNewReferenceKey(b, into: object, stateOffset: stateB) {
                    words[0] = UInt64(bitPattern: a)
                    words[1] = UInt64(bitPattern: b)
                    first = 2
                }
            case .single(.text(let text)):
                // The text key, column 0: its String and hash from lookUp.
                if let word = registry.fields.first??.store(text: text, hash: key.hash, into: object) {
                    words[0] = word.bits
                    first = 1
                }
            default:
                break
            }
            try decodeKeyedColumns(statement, into: object, registry: registry, layout: layout, words: words, from: first)
        } catch {
            registry.releaseSnapshot(object)
            throw error
        }
    }

    /// Columns `first...` of the current row into a new instance and its snapshot `words`: those before the
    /// layout's plain tail one by one, the tail in one loop (a column of another kind there, a NULL say, is
    /// read through its accessor).
    @inline(__always)
    private func decodeKeyedColumns(_ statement: Statement, into object: ModelObject, registry: TypeRegistry, layout: KeyedLayout,
                                    words: UnsafeMutablePointer<UInt64>, from first: Int) throws {
        let count = layout.reals.count
        let end = layout.tailStart == nil ? count : max(first, layout.tailFrom)
        if first < end {
            try registry.fields.withUnsafeBufferPointer { fields in
                try decodeColumns(first..<end, of: statement, into: object, registry: registry, fields: fields, words: words, count: count)
            }
        }
        guard let start = layout.tailStart, end < count else { return }
        try layout.reals.withUnsafeBufferPointer { reals in
            var next = end
            while let column = readPlainWords(statement, into: object, start: start, reals: reals, from: next, words: words) {
                let word = try decodeCapturing(statement, column: column, into: object, registry: registry)
                words[column] = word.bits
                if word.isNull { words[count + (column >> 6)] |= 1 << UInt64(column & 63) }
                next = column + 1
            }
        }
    }
}
