// The query-forms workload (issue 15): the same lookups written as a string clause and as a key-path
// condition, to show the type-checked spelling costs no more. 20,000 `first(where:)` calls by key, each
// way, interleaved over rounds; medians.
//
//   cd Benchmarks && swift run -c release strata-benchmarks --queries
#if STRATA_MODELS
import Foundation
import Strata

enum QueryFormsWorkload {
    static let rows = 20_000

    static func run(folder: URL, rounds: Int) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("queries.sqlite").path
        try ItemTable.create(at: path, rows: rows)
        var configuration = Strata.Database.Configuration()
        configuration.logger.logLevel = .warning
        let db = try Strata.Database(path: path, configuration: configuration)
        defer { try? db.close() }
        var stringTimes: [Double] = [], keyPathTimes: [Double] = []
        for round in 0...rounds {
            let (string, a) = try measure { () throws -> Int64 in
                var sum: Int64 = 0
                for key in 1...Int64(rows) { sum &+= try db.first(StrataItem.self, where: "id = ?", key)?.i0 ?? 0 }
                return sum
            }
            let (keyPath, b) = try measure { () throws -> Int64 in
                var sum: Int64 = 0
                for key in 1...Int64(rows) { sum &+= try db.first(StrataItem.self, where: \.id == key)?.i0 ?? 0 }
                return sum
            }
            try Verification.check(a == b && a > 0, "query forms: the two spellings found different rows")
            if round > 0 { stringTimes.append(string.milliseconds); keyPathTimes.append(keyPath.milliseconds) }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print("\nquery forms: \(rows.formatted()) first(where:) lookups by key, \(rounds) rounds, medians")
        print(String(format: "  string clause  \"id = ?\"   %8.2f ms", median(stringTimes)))
        print(String(format: "  key path       \\.id == k   %8.2f ms  (%.2fx the string clause)", median(keyPathTimes),
                     median(keyPathTimes) / median(stringTimes)))
    }
}
#endif
