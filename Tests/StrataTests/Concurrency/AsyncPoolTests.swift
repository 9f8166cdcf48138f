import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class AsyncItem: Model {
    var id: Int64 = 0
    var name = ""
    var value = 0
    required init() {}
}

final class AsyncOther: Model {
    var id: Int64 = 0
    var note = ""
    required init() {}
}

/// A pool on a new temporary file, removed with this value (keep it in a local for the test's length).
final class PoolFile {
    let temp: TemporaryDatabase
    let pool: DatabasePool
    var path: String { temp.path }
    var folder: URL { temp.folder }

    init(readers: Int = 3) throws {
        temp = try TemporaryDatabase()
        try temp.db.close()
        pool = try DatabasePool(path: temp.path, readers: readers)
    }
}

/// Waits (off the cooperative pool's threads' way: polling with sleeps of a task) until `condition` holds.
func eventually(_ condition: @Sendable () -> Bool) async throws {
    for _ in 0..<2_000 where !condition() { try await Task.sleep(nanoseconds: 2_000_000) }
    #expect(condition())
}

@Suite struct AsyncPoolTests {
    @Test func asyncReadsAndWritesReturnTheirValues() async throws {
        let file = try PoolFile(); let pool = file.pool
        let id = try await pool.write { db in
            let item = AsyncItem(); item.name = "first"; item.value = 7
            try db.save(item)
            return item.id
        }
        #expect(id == 1)
        let read = try await pool.read { db in try db.object(AsyncItem.self, forKey: id).map { [$0.name, String($0.value)] } }
        #expect(read == ["first", "7"])
        #expect(try await pool.read { db in try db.count(AsyncItem.self) } == 1)
    }

    /// Slow writes queue on the writer's queue, not on the cooperative threads: while a write holds the
    /// writer and three more wait for it, 24 reads issued afterwards all finish. The first write holds the
    /// writer until those reads are done (a gate, not a timer, so a loaded machine can't reorder it); with
    /// blocking calls the waiting writes would hold the cooperative threads, the reads could not run, and
    /// the gate would only open on its 60-second timeout, which the test reports.
    @Test func slowWritesNeverHoldTheCooperativeThreads() async throws {
        let file = try PoolFile(readers: 2); let pool = file.pool
        try await pool.write { db in try db.save(AsyncItem()) }
        let gate = DispatchSemaphore(value: 0)
        let writerHeld = Locked(false)
        let timedOut = Locked(false)
        let log = Locked<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await pool.write { db in
                    writerHeld.withLock { $0 = true }
                    if gate.wait(timeout: .now() + 60) == .timedOut { timedOut.withLock { $0 = true } }
                    try db.execute("UPDATE AsyncItem SET value = value + 1")
                }
                log.withLock { $0.append("w") }
            }
            try await eventually { writerHeld.withLock { $0 } }
            for _ in 0..<3 {
                group.addTask {
                    try await pool.write { db in try db.execute("UPDATE AsyncItem SET value = value + 1") }
                    log.withLock { $0.append("w") }
                }
            }
            try await Task.sleep(nanoseconds: 20_000_000)   // the three writes are queued behind the first
            try await withThrowingTaskGroup(of: Void.self) { reads in
                for _ in 0..<24 {
                    reads.addTask {
                        _ = try await pool.read { db in try db.count(AsyncItem.self) }
                        log.withLock { $0.append("r") }
                    }
                }
                try await reads.waitForAll()
            }
            gate.signal()
            try await group.waitForAll()
        }
        let order = log.withLock { $0 }
        #expect(timedOut.withLock { $0 } == false, "the reads ran while writes waited for the writer")
        #expect(order.filter { $0 == "r" }.count == 24)
        #expect(Array(order.suffix(4)) == ["w", "w", "w", "w"], "every write finishes after every read: \(order)")
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT value FROM AsyncItem") } == 4)
    }

    @Test func aCancelledRunningWriteRollsBackAndThrowsCancellationError() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self) }
        let started = Locked(false)
        let task = Task {
            try await pool.write { db in
                let item = AsyncItem(); item.name = "never"
                try db.save(item)
                started.withLock { $0 = true }
                // A long statement: interrupted by the cancellation.
                _ = try db.value(Int.self, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000000) SELECT count(*) FROM n")
            }
        }
        try await eventually { started.withLock { $0 } }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await pool.read { db in try db.count(AsyncItem.self) } == 0)
        // The writer is usable afterwards.
        try await pool.write { db in let item = AsyncItem(); item.name = "later"; try db.save(item) }
        #expect(try await pool.read { db in try db.objects(AsyncItem.self).map(\.name) } == ["later"])
    }

    @Test func aWriteCancelledBeforeItStartsNeverRuns() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self) }
        let release = Locked(false)
        let blocker = Task {
            try await pool.write { _ in
                while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.002) }
            }
        }
        let ran = Locked(false)
        let queued = Task {
            try await pool.write { db in
                ran.withLock { $0 = true }
                try db.save(AsyncItem())
            }
        }
        queued.cancel()
        release.withLock { $0 = true }
        try await blocker.value
        let result = await queued.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ran.withLock { $0 } == false)
        #expect(try await pool.read { db in try db.count(AsyncItem.self) } == 0)
    }

    @Test func aCancelledReadThrowsCancellationError() async throws {
        let file = try PoolFile(); let pool = file.pool
        let started = Locked(false)
        let task = Task {
            try await pool.read { db in
                started.withLock { $0 = true }
                return try db.value(Int.self, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000000) SELECT count(*) FROM n")
            }
        }
        try await eventually { started.withLock { $0 } }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT 41 + 1") } == 42)
    }

    /// A cancellation that lands between two statements of a read (its sqlite3_interrupt then reaches no
    /// statement, and SQLite clears it as the next one starts) still stops the next statement.
    @Test func aReadCancelledBetweenItsStatementsStopsAtTheNextOne() async throws {
        let file = try PoolFile(); let pool = file.pool
        let started = Locked(false), cancelled = Locked(false), counted = Locked(false)
        let task = Task {
            try await pool.read { db in
                _ = try db.value(Int.self, "SELECT 1")
                started.withLock { $0 = true }
                while !cancelled.withLock({ $0 }) { usleep(1_000) }   // no statement runs meanwhile
                let count = try db.value(Int.self, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000000) SELECT count(*) FROM n")
                counted.withLock { $0 = true }   // (the whole 20 million rows: the cancellation was lost)
                return count
            }
        }
        try await eventually { started.withLock { $0 } }
        task.cancel()
        cancelled.withLock { $0 = true }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(!counted.withLock { $0 })
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT 41 + 1") } == 42)
    }

    @Test func nestedPoolCallsThrowInsteadOfWaitingForThemselves() async throws {
        let file = try PoolFile(); let pool = file.pool
        let inWrite = try #require(throws: DatabaseError.self) {
            try pool.blocking.write { _ in try pool.blocking.write { _ in 1 } }
        }
        #expect(inWrite.code == .misuse)
        #expect(inWrite.message.contains("would wait for itself"))
        let readInWrite = try #require(throws: DatabaseError.self) {
            try pool.blocking.write { _ in try pool.blocking.read { _ in 1 } }
        }
        #expect(readInWrite.code == .misuse)
        let inAsyncRead = await #expect(throws: DatabaseError.self) {
            try await pool.read { _ in try pool.blocking.read { _ in 1 } }
        }
        #expect(inAsyncRead?.code == .misuse)
        // The pool still works.
        #expect(try await pool.write { db in try db.value(Int.self, "SELECT 1") } == 1)
    }

    @Test func aReaderNeverSeesHalfATransaction() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self) }
        let firstInserted = DispatchSemaphore(value: 0)
        let readerDone = DispatchSemaphore(value: 0)
        let writing = Task {
            try await pool.write { db in
                try db.save(AsyncItem())
                firstInserted.signal()
                readerDone.wait()
                try db.save(AsyncItem())
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { firstInserted.wait(); continuation.resume() }
        }
        let during = try await pool.read { db in try db.count(AsyncItem.self) }
        readerDone.signal()
        try await writing.value
        #expect(during == 0)
        #expect(try await pool.read { db in try db.count(AsyncItem.self) } == 2)
    }
}

