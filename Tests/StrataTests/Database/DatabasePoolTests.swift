import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class PoolCounter: Model {
    var id: Int64 = 0
    var value = 0
    required init() {}
}

@Suite struct DatabasePoolTests {
    @Test func readersAndAWriterRunConcurrently() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 3)
        #expect(try await pool.read { db in try db.value(String.self, "PRAGMA journal_mode") } == "wal")
        try await pool.write { db in
            for value in 0..<100 { let counter = PoolCounter(); counter.value = value; try db.save(counter) }
        }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    if task == 0 {
                        return try await pool.write { db in
                            let counter = PoolCounter(); counter.value = 1_000
                            try db.save(counter)
                            return -1
                        }
                    }
                    return try await pool.read { db in try db.count(PoolCounter.self) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.filter { $0 >= 0 }.allSatisfy { $0 == 100 || $0 == 101 })
        #expect(try await pool.read { db in try db.count(PoolCounter.self) } == 101)
        #expect(try await pool.read { db in try db.objects(PoolCounter.self, where: "ORDER BY value DESC").first?.value } == 1_000)
    }

    @Test func readersCannotWrite() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try await pool.write { db in try db.execute("CREATE TABLE t(x)") }
        let error = try #require(throws: DatabaseError.self) {
            try pool.blocking.read { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error.code.primary == .readOnly)
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 0)
    }

    @Test func aThrowingWriteRollsBack() async throws {
        struct Abort: Error {}
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path)
        try await pool.write { db in try db.execute("CREATE TABLE t(x)") }
        #expect(throws: Abort.self) {
            try pool.blocking.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 0)
    }
}
