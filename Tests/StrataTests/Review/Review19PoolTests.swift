import Dispatch
import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Issue 36, points 6 and 7: task locals inside async pool closures; writes outside a transaction and the
// barrier write.

private enum R19pContext {
    @TaskLocal static var requestID: String?
}

private final class R19pBlob: Model {
    static let tableName = "r19p_blob"
    var id: Int64 = 0
    var payload = ""
    required init() {}

    /// Saves `rows` rows of 2,000 bytes, then deletes them all: the file keeps their pages on its free list.
    static func fill(_ pool: DatabasePool, rows: Int) async throws {
        try await pool.write { db in
            for _ in 0..<rows { let blob = R19pBlob(); blob.payload = String(repeating: "x", count: 2_000); try db.save(blob) }
        }
        try await pool.write { db in try db.execute("DELETE FROM r19p_blob") }
    }
}

/// What the closures of a barrier test did, in order.
private final class R19pLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    func add(_ entry: String) { lock.lock(); entries.append(entry); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return entries }
}

@Suite struct Review19PoolTests {
    @Test func taskLocalsReadTheSameInsideAsyncReadsAndWrites() async throws {
        let file = try PoolFile(readers: 2); let pool = file.pool
        let seen = try await R19pContext.$requestID.withValue("req-42") {
            let read = try await pool.read { _ in R19pContext.requestID }
            let write = try await pool.write { _ in R19pContext.requestID }
            let plain = try await pool.writeWithoutTransaction { _ in R19pContext.requestID }
            // Nested bindings and concurrent calls each see their own task's value.
            async let a = R19pContext.$requestID.withValue("a") { try await pool.read { _ in R19pContext.requestID } }
            async let b = R19pContext.$requestID.withValue("b") { try await pool.write { _ in R19pContext.requestID } }
            return [read, write, plain, try await a, try await b]
        }
        #expect(seen == ["req-42", "req-42", "req-42", "a", "b"])
        // Outside the binding: nothing, inside the closures too.
        #expect(try await pool.read { _ in R19pContext.requestID } == nil)
    }

    @Test func vacuumRunsInWriteWithoutTransaction() async throws {
        let file = try PoolFile(readers: 1); let pool = file.pool
        try await R19pBlob.fill(pool, rows: 200)
        let before = try await pool.read { db in try db.value(Int.self, "PRAGMA freelist_count") }
        #expect((before ?? 0) > 50)
        // In a transaction, SQLite refuses it.
        do {
            try await pool.write { db in try db.execute("VACUUM") }
            Issue.record("VACUUM inside a transaction should be refused")
        } catch let error as DatabaseError {
            #expect(error.message.contains("cannot VACUUM from within a transaction"))
        }
        let after = try await pool.writeWithoutTransaction { db in
            try db.execute("VACUUM")
            return try db.value(Int.self, "PRAGMA freelist_count")
        }
        #expect(after == 0)
        #expect(try await pool.read { db in try db.value(Int.self, "PRAGMA freelist_count") } == 0)
        // The barrier write runs outside a transaction too.
        try await R19pBlob.fill(pool, rows: 50)
        #expect(try await pool.barrierWriteWithoutTransaction { db in
            try db.execute("VACUUM")
            return try db.value(Int.self, "PRAGMA freelist_count")
        } == 0)
    }

    /// The blocking forms, from synchronous code.
    @Test func blockingFormsRunOutsideATransaction() throws {
        let file = try PoolFile(readers: 1); let pool = file.pool
        func fill(_ rows: Int) throws {
            try pool.blocking.write { db in
                for _ in 0..<rows { let blob = R19pBlob(); blob.payload = String(repeating: "x", count: 2_000); try db.save(blob) }
            }
            try pool.blocking.write { db in try db.execute("DELETE FROM r19p_blob") }
        }
        try fill(100)
        #expect((try pool.blocking.read { db in try db.value(Int.self, "PRAGMA freelist_count") } ?? 0) > 20)
        let vacuumed = try pool.blocking.writeWithoutTransaction { db in
            try db.execute("VACUUM")
            return try db.value(Int.self, "PRAGMA freelist_count")
        }
        try fill(50)
        let barrier = try pool.blocking.barrierWriteWithoutTransaction { db in
            try db.execute("VACUUM")
            return try db.value(Int.self, "PRAGMA freelist_count")
        }
        #expect([vacuumed, barrier] == [0, 0])
    }

    /// A read in progress holds the barrier back; a read issued while the barrier waits or runs comes
    /// after it. (Gates and the readers' load, not timers: the order cannot depend on the machine's speed.)
    @Test(arguments: [false, true])
    func barrierWriteWaitsForTheReadAndHoldsTheNextOne(async useAsync: Bool) async throws {
        let file = try PoolFile(readers: 2); let pool = file.pool
        try await pool.write { db in let blob = R19pBlob(); blob.payload = "one"; try db.save(blob) }
        let log = R19pLog()
        let readStarted = DispatchSemaphore(value: 0), readGate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        DispatchQueue.global().async {
            _ = try? pool.blocking.read { db in
                readStarted.signal()
                readGate.wait()
                log.add("read 1 ends")
                return try db.count(R19pBlob.self)
            }
            done.leave()
        }
        readStarted.wait()
        let barrierDone = DispatchGroup()
        barrierDone.enter()
        let body: @Sendable (Database) throws -> Void = { db in
            log.add("barrier")
            try db.execute("VACUUM")
        }
        if useAsync {
            Task {
                try? await pool.barrierWriteWithoutTransaction(body)
                barrierDone.leave()
            }
        } else {
            DispatchQueue.global().async {
                try? pool.blocking.barrierWriteWithoutTransaction(body)
                barrierDone.leave()
            }
        }
        // The barrier holds both readers once its blocks are queued: 1 (the read) + 1 and 1.
        try await eventually { pool.isClosed.withLock { _ in pool.readers.map(\.load).sorted() } == [1, 2] }
        done.enter()
        DispatchQueue.global().async {
            _ = try? pool.blocking.read { _ in log.add("read 2") }
            done.leave()
        }
        #expect(log.all.isEmpty)
        readGate.signal()
        await withCheckedContinuation { continuation in barrierDone.notify(queue: .global()) { continuation.resume() } }
        await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
        #expect(log.all == ["read 1 ends", "barrier", "read 2"])
    }
}
