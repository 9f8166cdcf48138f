/// The distinct keys of a to-many prefetch's owners, each numbered (its bucket), and the lookup of a
/// child's key among them: one or two per child, so it must cost little.
///
/// Integer keys (rowids, mostly) that lie close together are found by their offset from the least one in
/// a plain array; scattered ones through a dictionary. Swift's `Dictionary` hashes an `Int64` with
/// SipHash, about 145 instructions a lookup here, against a handful for the array. Other keys (text,
/// UUIDs) go through a dictionary of ``SQLValue``.
struct KeyBuckets {
    /// The distinct keys, in bucket order.
    private(set) var keys: [SQLValue] = []
    private var integers: [Int64: Int] = [:]
    private var others: [SQLValue: Int] = [:]
    /// Bucket + 1 of the integer key `low + i` at `i` (0: not a key); empty until ``seal()`` finds the
    /// keys close enough together.
    private var dense: [Int32] = []
    private(set) var low: Int64 = .max
    private(set) var high: Int64 = .min

    /// Whether every key is an integer (there is at least one).
    var allIntegers: Bool { others.isEmpty && !integers.isEmpty }

    /// The bucket of `key`, a new one when it is not there yet.
    mutating func bucket(adding key: SQLValue) -> Int {
        if let existing = bucket(of: key) { return existing }
        let index = keys.count
        if case .integer(let value) = key {
            integers[value] = index
            low = min(low, value)
            high = max(high, value)
        } else {
            others[key] = index
        }
        keys.append(key)
        return index
    }

    /// Builds the array lookup when the integer keys span at most four slots per key (plus some slack):
    /// call once every key is in.
    mutating func seal() {
        guard !integers.isEmpty, keys.count < Int(Int32.max) else { return }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < Int64(4 * integers.count + 1_024) else { return }
        var table = [Int32](repeating: 0, count: Int(span) + 1)
        for (key, index) in integers { table[Int(key &- low)] = Int32(index + 1) }
        dense = table
    }

    /// The bucket of an integer key, nil when no owner has it.
    @inline(__always)
    func bucket(of value: Int64) -> Int? {
        if !dense.isEmpty {
            guard value >= low, value <= high else { return nil }
            let entry = dense[Int(value &- low)]
            return entry == 0 ? nil : Int(entry) - 1
        }
        return integers[value]
    }

    /// The bucket of any key, nil when no owner has it. A real equal to an integer key is that key, as
    /// SQLite's `=` has it (it keeps -2^63 as a REAL even in an INTEGER column).
    func bucket(of key: SQLValue) -> Int? {
        switch key {
        case .integer(let value): return bucket(of: value)
        case .real(let value): if let integer = Int64(exactly: value), let found = bucket(of: integer) { return found }
        default: break
        }
        return others.isEmpty ? nil : others[key]
    }
}
