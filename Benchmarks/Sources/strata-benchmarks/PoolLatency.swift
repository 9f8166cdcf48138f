// The pool workload (issue 12): async read latency, p50/p99, on an idle pool and while 4 tasks run slow
// writes (each holds the write lock 20 ms), and read throughput with 1, 2 and 4 reader handles; Strata's
// DatabasePool beside GRDB's, in one run. Each read fetches one row of `item` by a random key as an
// object. Timing is per read (ContinuousClock), so this is a latency figure, not instruction counts.
//
//   cd Benchmarks && swift run -c release strata-benchmarks --pool
#if STRATA_MODELS
import Foundation
import GRDB
import Strata

struct PoolFigures {
    var name: String
    var idle: Latency
    var loaded: Latency
    var slowWrites: Int
    var throughput: [(readers: Int, readsPerSecond: Double)]
}

struct Latency {
    var p50: Double
    var p99: Double

    init(_ nanoseconds: [Int64]) {
        let sorted = nanoseconds.sorted()
        func at(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1_000_000 }
        p50 = at(0.5)
        p99 = at(0.99)
    }
}

/// One pool under test: an async read of one object by key, and a slow write.
protocol PoolUnderTest: Sendable {
    func read(_ key: Int64) async throws -> Int64
    func slowWrite(milliseconds: Int) async throws
}

struct StrataPoolUnderTest: PoolUnderTest {
    let pool: Strata.DatabasePool
    func read(_ key: Int64) async throws -> Int64 {
        try await pool.read { db in try db.object(StrataItem.self, forKey: key)?.i0 ?? -1 }
    }
    func slowWrite(milliseconds: Int) async throws {
        try await pool.write { db in
            try db.execute("UPDATE item SET i9 = i9 + 1 WHERE id = 1")
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1_000)
        }
    }
}

struct GRDBPoolUnderTest: PoolUnderTest {
    let pool: GRDB.DatabasePool
    func read(_ key: Int64) async throws -> Int64 {
        try await pool.read { db in try GRDBCodableItem.fetchOne(db, key: key)?.i0 ?? -1 }
    }
    func slowWrite(milliseconds: Int) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE item SET i9 = i9 + 1 WHERE id = 1")
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1_000)
        }
    }
}

enum PoolLatencyWorkload {
    static let rows = 10_000
    static let reads = 20_000
    static let concurrentReaders = 8
    static let slowWriters = 4
    static let slowWriteMilliseconds = 20

    static func run(folder: URL) async throws -> [PoolFigures] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = folder.appendingPathComponent("pool-template.sqlite").path
        try ItemTable.create(at: template, rows: rows)
        var figures: [PoolFigures] = []
        for name in ["Strata", "GRDB"] {
            func open(_ readers: Int) throws -> (any PoolUnderTest, () throws -> Void) {
                let path = folder.appendingPathComponent("pool-\(name)-\(readers)-\(UUID().uuidString).sqlite").path
                try FileManager.default.copyItem(atPath: template, toPath: path)
                if name == "Strata" {
                    var configuration = Strata.Database.Configuration()
                    configuration.logger.logLevel = .warning
                    let pool = try Strata.DatabasePool(path: path, readers: readers, configuration: configuration)
                    return (StrataPoolUnderTest(pool: pool), { try pool.blocking.close() })
                }
                var configuration = GRDB.Configuration()
                configuration.maximumReaderCount = readers
                let pool = try GRDB.DatabasePool(path: path, configuration: configuration)
                return (GRDBPoolUnderTest(pool: pool), { try pool.close() })
            }
            let (pool, close) = try open(4)
            _ = try await timedReads(pool, count: 2_000, concurrency: concurrentReaders)   // warm-up
            let idle = try await timedReads(pool, count: reads, concurrency: concurrentReaders)
            let (loaded, slowWrites) = try await withSlowWriters(pool) {
                try await timedReads(pool, count: reads, concurrency: concurrentReaders)
            }
            try close()
            var throughput: [(Int, Double)] = []
            for readers in [1, 2, 4] {
                let (pool, close) = try open(readers)
                _ = try await timedReads(pool, count: 2_000, concurrency: readers * 2)
                let start = ContinuousClock.now
                _ = try await timedReads(pool, count: reads * 2, concurrency: readers * 2)
                throughput.append((readers, Double(reads * 2) / (ContinuousClock.now - start).seconds))
                try close()
            }
            figures.append(PoolFigures(name: name, idle: Latency(idle), loaded: Latency(loaded), slowWrites: slowWrites, throughput: throughput))
        }
        return figures
    }

    /// `count` reads by random keys from `concurrency` tasks; the latency of each, in nanoseconds.
    static func timedReads(_ pool: any PoolUnderTest, count: Int, concurrency: Int) async throws -> [Int64] {
        try await withThrowingTaskGroup(of: [Int64].self) { group in
            for task in 0..<concurrency {
                group.addTask {
                    var generator = SplitMix(seed: UInt64(task + 1))
                    var latencies: [Int64] = []
                    latencies.reserveCapacity(count / concurrency + 1)
                    for _ in 0..<(count / concurrency) {
                        let key = Int64(generator.next() % UInt64(rows)) + 1
                        let start = ContinuousClock.now
                        let value = try await pool.read(key)
                        let elapsed = ContinuousClock.now - start
                        guard value >= 0 else { throw Verification.failure("row \(key) not found") }
                        latencies.append(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// Runs `body` while `slowWriters` tasks each run slow writes back to back; returns how many ran.
    static func withSlowWriters<T: Sendable>(_ pool: any PoolUnderTest, _ body: () async throws -> T) async throws -> (T, Int) {
        let stop = Flag()
        let writers = (0..<slowWriters).map { _ in
            Task {
                var count = 0
                while !stop.isSet {
                    try await pool.slowWrite(milliseconds: slowWriteMilliseconds)
                    count += 1
                }
                return count
            }
        }
        try await Task.sleep(nanoseconds: 50_000_000)   // the writes are queued and running
        let result = try await body()
        stop.set()
        var total = 0
        for writer in writers { total += try await writer.value }
        return (result, total)
    }

    static func printReport(_ figures: [PoolFigures]) {
        print("\npool: async reads of one object by key, \(concurrentReaders) concurrent tasks, \(reads.formatted()) reads per phase; "
              + "\(slowWriters) tasks running \(slowWriteMilliseconds) ms writes back to back")
        print("contender  idle p50   idle p99   loaded p50  loaded p99  p99 ratio  slow writes   reads/s (1 / 2 / 4 readers)")
        for figure in figures {
            let ratio = figure.loaded.p99 / figure.idle.p99
            let throughput = figure.throughput.map { String(format: "%.0f", $0.readsPerSecond) }.joined(separator: " / ")
            print(String(format: "%-9@  %6.3f ms  %6.3f ms  %7.3f ms  %7.3f ms  %7.2fx  %11d   %@",
                         figure.name as NSString, figure.idle.p50, figure.idle.p99, figure.loaded.p50, figure.loaded.p99,
                         ratio, figure.slowWrites, throughput as NSString))
        }
    }
}

/// A flag set once, read by other tasks.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}


extension Duration {
    var seconds: Double { milliseconds / 1_000 }
}
#endif
