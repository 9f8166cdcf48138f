import Foundation
import Strata
import StrataPostgres
import Testing

// Two processes each incrementing one row 1,000 times through a live instance on PostgreSQL lose nothing:
// the same test as SQLite's (Review9ProcessTests). The second process is this test binary again, running
// `child()` with the schema in its environment; both start their loops at one signal.

private final class PGCounter: Model {
    static let tableName = "process_counter"
    var id: Int64 = 0
    var count = 0
    required init() {}
}

private let childSchema = ProcessInfo.processInfo.environment["STRATA_PG_CHILD_SCHEMA"]

/// Opens a handle in `schema`, fetches counter 1, says it is ready, waits for "go", then increments it
/// `times` times (each save retried on conflict); returns how many conflicts it met.
private func increment(in schema: String, times: Int, ready: () throws -> Void) throws -> Int {
    let db = try Database(postgresURL: postgresURL ?? "")
    defer { try? db.close() }
    try db.execute("SET search_path TO \(schema)")
    let counter = try #require(try db.object(PGCounter.self, forKey: 1))
    try ready()
    var conflicts = 0
    for _ in 0..<times {
        try db.retryingOnConflict(maxAttempts: 10_000) {
            counter.count += 1
            do { try db.save(counter) } catch let error as ModelError where error.kind == .conflict { conflicts += 1; throw error }
        }
    }
    return conflicts
}

@Suite("PostgreSQL processes", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresProcessTests {
    /// (Run again as the child, the same test plays the second process: no test of its own, which every
    /// other run would list as skipped.)
    @Test(.enabled(if: CommandLine.arguments[0].hasSuffix(".xctest")))
    func twoProcessesIncrementingOneRowAThousandTimesEachLoseNothing() throws {
        if let childSchema { return try child(childSchema) }
        try withDatabase { db in
            let counter = PGCounter()
            try db.save(counter)
            let schema = try db.value(String.self, "SELECT current_schema()") ?? ""
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["--testing-library", "swift-testing", "--filter", "PostgresProcessTests/twoProcessesIncrementingOneRowAThousandTimesEachLoseNothing"]
            var environment = ProcessInfo.processInfo.environment
            environment["STRATA_PG_CHILD_SCHEMA"] = schema
            child.environment = environment
            let input = Pipe(), output = Pipe()
            child.standardInput = input
            child.standardOutput = output
            child.standardError = FileHandle.nullDevice
            try child.run()
            let conflicts = try increment(in: schema, times: 1_000) {
                // The child is ready (connected, counter fetched): both loops start now.
                var seen = ""
                while !seen.contains("STRATA-PG-READY") {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty { throw CancellationError() }
                    seen += String(decoding: data, as: UTF8.self)
                }
                input.fileHandleForWriting.write(Data("go\n".utf8))
            }
            child.waitUntilExit()
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(child.terminationStatus == 0, "the child failed: \(rest.suffix(2000))")
            #expect(try db.value(Int.self, "SELECT count FROM process_counter WHERE id = 1") == 2_000)
            let childConflicts = rest.split(separator: "\n").first { $0.hasPrefix("STRATA-PG-CONFLICTS ") }.flatMap { Int($0.dropFirst(20)) }
            // Both met the other's writes (the loops overlapped): each conflict was retried, none lost.
            #expect(conflicts + (childConflicts ?? 0) > 0, "parent \(conflicts), child \(String(describing: childConflicts))")
        }
    }

    /// The second process's part.
    private func child(_ schema: String) throws {
        let conflicts = try increment(in: schema, times: 1_000) {
            FileHandle.standardOutput.write(Data("STRATA-PG-READY\n".utf8))
            _ = readLine()
        }
        FileHandle.standardOutput.write(Data("STRATA-PG-CONFLICTS \(conflicts)\n".utf8))
    }
}
