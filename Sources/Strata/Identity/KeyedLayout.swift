/// How a fetch by key (``TypeRegistry/KeyShape``) decodes a new instance of a model whose fields are not all
/// 8-byte numbers (those take ``Database`` `decodePlainWords`): where two `@Reference` key parts keep their
/// integer keys, and whether the columns after the key parts are 8-byte numbers side by side, read in one
/// loop (``readPlainWords(_:into:start:reals:from:words:)``) rather than one accessor call per column.
/// Made once per table mapping (``TypeRegistry/table``). Tests: KeyShapeFetch3Tests.
///
/// ```swift
/// // (a @Reference, b @Reference, i0...i9 Int64): referenceStates (a's, b's), tail from column 2
/// let layout = KeyedLayout.make(metadata, table: table, keyShape: .integerPair)
/// ```
struct KeyedLayout {
    /// The offsets of the ``ReferenceState``s of two `@Reference` key parts that read integer keys natively
    /// (an ``TypeRegistry/KeyShape/integerPair`` of references); nil otherwise.
    let referenceStates: (Int, Int)?
    /// The columns from ``tailFrom`` on, when each is an `Int64`, `Int` or `Double` read natively and the
    /// fields lie side by side: column `i` is at byte `tailStart + 8 * i` of the instance; nil otherwise.
    let tailStart: Int?
    /// The first column after the key parts.
    let tailFrom: Int
    /// Per column, whether it is a `Double` (the tail's; false for the key parts).
    let reals: [Bool]

    /// The layout of `metadata`'s instances in `table` for a fetch of `keyShape`; nil for the shape
    /// ``TypeRegistry/KeyShape/decoded`` and for models of 8-byte numbers only.
    static func make(_ metadata: ModelMetadata, table: TableMapping, keyShape: TypeRegistry.KeyShape) -> KeyedLayout? {
        guard keyShape != .decoded, metadata.plainWordsStart == nil else { return nil }
        let fields = table.fastFields
        let from = metadata.keyCount
        var reals = [Bool](repeating: false, count: fields.count)
        var start: Int?
        var plain = fields.count > from
        for i in from..<max(from, fields.count) where plain {
            let offset: Int
            switch fields[i] {
            case .int64(let o)?: offset = o
            case .int(let o)? where MemoryLayout<Int>.size == 8: offset = o
            case .double(let o)?: offset = o; reals[i] = true
            default: plain = false; continue
            }
            if table.readingBack.contains(i) { plain = false }
            let columnZero = offset - 8 * i
            if start == nil { start = columnZero } else if start != columnZero { plain = false }
        }
        var states: (Int, Int)?
        if keyShape == .integerPair, fields.count >= 2, fields[0] == nil, fields[1] == nil,
           table.formats[0] == .native, table.formats[1] == .native,
           case .generic(let a) = metadata.properties[0].accessor, case .generic(let b) = metadata.properties[1].accessor,
           let stateA = a.integerKeyStateOffset, let stateB = b.integerKeyStateOffset {
            states = (stateA, stateB)
        }
        return KeyedLayout(referenceStates: states, tailStart: plain ? start : nil, tailFrom: from, reals: reals)
    }
}
