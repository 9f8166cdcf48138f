// The for-keys workload (issue 14): 10,000 objects by key, in the order of the keys (shuffled), from a
// table of 50,000 rows. Raw C: one `WHERE id IN (?, …)` statement, rows decoded into structs, then put in
// key order through a dictionary; Strata: `db.objects(_:forKeys:)` (ordered).
import CSQLiteBench
import Foundation

enum ForKeys {
    static let tableRows = 50_000

    /// The keys asked for: `count` distinct ids in a fixed shuffled order.
    static func keys(_ count: Int) -> [Int64] {
        var generator = SplitMix(seed: 7)
        var keys = Array(1...Int64(tableRows))
        for index in stride(from: keys.count - 1, to: 0, by: -1) {
            keys.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        return Array(keys.prefix(count))
    }

    static func raw(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        let keys = keys(job.rows)
        let (duration, items) = try measure { () throws -> [PlainItem] in
            let sql = ItemTable.selectSQL + " WHERE id IN (" + Array(repeating: "?", count: keys.count).joined(separator: ", ") + ")"
            let statement = try SQLiteC.prepare(db, sql)
            defer { sqlite3_finalize(statement) }
            for (index, key) in keys.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), key) }
            var byKey: [Int64: PlainItem] = [:]
            byKey.reserveCapacity(keys.count)
            for item in try RawContender.readItems(db, statement) { byKey[item.id] = item }
            return keys.compactMap { byKey[$0] }
        }
        try Verification.check(items.map(\.id) == keys, "raw for-keys: rows out of key order")
        return duration
    }
}


#if STRATA_MODELS
import Strata

extension ForKeys {
    static func strata(_ job: Job) throws -> Duration {
        let db = try StrataContender.openItemTable(job)
        defer { try? db.close() }
        let keys = keys(job.rows)
        let (duration, items) = try measure { try db.objects(StrataItem.self, forKeys: keys) }
        try Verification.check(items.map(\.id) == keys, "Strata for-keys: objects out of key order")
        return duration
    }
}
#endif
