/// The order ``Migrator/registerSQLFiles(in:)`` registers a folder's files in (issue 36): by the number a
/// name begins with, compared as a number, so `2_seed.sql` comes before `10_index.sql` (by name, `10_`
/// sorts first); files with the same number, by name. A folder whose names all lack a number keeps the
/// order of names. One that mixes numbered and unnumbered names is refused: where `seed.sql` goes among
/// `1_create.sql` and `2_index.sql` would be a guess.
enum MigrationFileOrder {
    /// `names` in migration order; throws a ``MigrationError`` naming the first unnumbered name of a
    /// folder with numbered ones.
    static func ordered(_ names: [String], namespace: String) throws -> [String] {
        let numbered = names.map { (name: $0, number: number(of: $0)) }
        let unnumbered = numbered.filter { $0.number == nil }.map(\.name).sorted()
        if unnumbered.count == names.count { return names.sorted() }
        if let first = unnumbered.first {
            let example = numbered.compactMap { $0.number == nil ? nil : $0.name }.sorted().first ?? ""
            throw MigrationError(migration: String(first.dropLast(4)), namespace: namespace, reason: .misordered, sql: nil, underlying: nil,
                                 message: "the migrations folder mixes numbered names (\(example)) with names that have no number (\(unnumbered.joined(separator: ", "))), so the order is ambiguous; begin every file name with its number, as \(example) does")
        }
        return numbered.sorted { a, b in
            guard let x = a.number, let y = b.number else { return a.name < b.name }
            // Compared as numbers of any length: without leading zeros, the shorter is the smaller.
            if x.count != y.count { return x.count < y.count }
            if x != y { return x < y }
            return a.name < b.name
        }.map(\.name)
    }

    /// The digits `name` begins with, without leading zeros ("0" for zero); nil when it begins otherwise.
    static func number(of name: String) -> Substring? {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return nil }
        let significant = digits.drop { $0 == "0" }
        return significant.isEmpty ? digits.suffix(1) : significant
    }
}
