import Dispatch
import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 15 (async): the pool's async entry points, its change streams and value observations as a server
// uses them, and the size of an error's description.

private final class R15AsyncItem: Model {
    var id: Int64 = 0
    var name = ""
    var value = 0
    required init() {}
}

private func r15AsyncPool(readers: Int = 2) throws -> (TemporaryDatabase, DatabasePool) {
    let temp = try TemporaryDatabase()
    try temp.db.close()
    return (temp, try DatabasePool(path: temp.path, readers: readers))
}

/// Runs `body`, failing (instead of hanging the run) when it takes more than `seconds`.
private func r15AsyncWithin<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); return nil }
        let first = try await group.next()!
        group.cancelAll()
        guard let first else { throw R15AsyncTimeout() }
        return first
    }
}

private struct R15AsyncTimeout: Error {}

#if canImport(Observation)
import Observation

@Observable private final class R15AsyncNote: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<R15AsyncNote>] { [\.title] }
    var id: Int64 = 0
    var title = ""
    var stars = 0
    required init() {}
}

/// An instance carried out of a pool closure, to be read only between calls (test-only).
private final class R15AsyncHeld: @unchecked Sendable {
    var note: R15AsyncNote?
}
#endif
private struct R15AsyncAbort: Error {}

@Suite struct Review15AsyncTests {
    // MARK: Error sizes

    /// An error of a statement with 40,000 parameters (too many for SQLite) printed its whole SQL and, with
    /// public arguments, every argument: hundreds of KB in one log line. The description now keeps a few KB
    /// of SQL and a few dozen arguments, saying how much it left out; `sql` and `arguments` stay whole.
    @Test func theDescriptionOfAnErrorWithHugeSQLAndArgumentsIsBounded() throws {
        var configuration = Database.Configuration()
        configuration.publicArguments = true
        let temp = try TemporaryDatabase(configuration: configuration)
        // Errors raised while the statement runs (not when it is prepared) carry the arguments.
        try temp.db.execute("""
            CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);
            CREATE TABLE u (a, b CHECK (b IS NULL))
            """)
        let marks = Array(repeating: "?", count: 40_000).joined(separator: ", ")
        let sql = "SELECT abs(-9223372036854775807 - id) FROM t WHERE id IN (\(marks))"
        let arguments = (0..<40_000).map { SQLValue.integer(Int64($0)) }
        let error = try #require(throws: DatabaseError.self) { try temp.db.rows(sql, arguments: arguments) }
        #expect(error.sql == sql, "the property keeps the whole SQL")
        #expect(error.arguments.count == 40_000, "and every argument")
        let text = error.description
        #expect(text.count < 6_000, "description is \(text.count) characters")
        #expect(text.contains("characters of SQL left out"))
        #expect(text.contains("39968 more arguments left out"))
        #expect(text.hasPrefix("SQLite error \(error.code.rawValue): \(error.message)"))
        #expect(error.localizedDescription.count < 6_000)

        // A 1 MB literal in the SQL, and 1 MB arguments.
        let blob = String(repeating: "ab", count: 500_000)
        let literal = try #require(throws: DatabaseError.self) { try temp.db.execute("INSERT INTO nope VALUES (x'\(blob)')") }
        #expect(literal.sql?.count == blob.count + 29)
        #expect(literal.description.count < 6_000)
        #expect(literal.description.contains("characters of SQL left out"))
        let big = try #require(throws: DatabaseError.self) {
            try temp.db.execute("INSERT INTO u VALUES (?, ?)", SQLValue.blob(Data(count: 1_000_000)), SQLValue.text(blob))
        }
        #expect(big.description.count < 1_000)
        #expect(big.description.contains("blob of 1000000 bytes"))

        // A short error reads as before.
        let short = try #require(throws: DatabaseError.self) { try temp.db.execute("INSERT INTO u VALUES (1, ?)", SQLValue.integer(3)) }
        #expect(short.description == "SQLite error 275: CHECK constraint failed: b IS NULL - while executing `INSERT INTO u VALUES (1, ?)` with arguments [integer 3]")
    }

    /// A model error naming thousands of properties (a conflict on a very wide table) is cut the same way.
    @Test func theDescriptionOfAModelErrorNamingManyPropertiesIsBounded() {
        let names = (0..<5_000).map { "column_\($0)" }
        let error = ModelError(.conflict, model: "Wide", key: .integer(1), properties: names,
                               "another connection changed \(names.joined(separator: ", ")) after this instance read them")
        #expect(error.properties.count == 5_000)
        #expect(error.description.count < 6_000, "description is \(error.description.count) characters")
        #expect(error.description.contains("more properties left out"))
        #expect(error.description.contains("characters left out"))
        #expect(error.description.hasPrefix("Model Wide, key integer 1, properties column_0, column_1"))
    }

    /// A migration whose one statement is a seed of 20,000 rows printed all of it in the error's
    /// description; it is now cut like a `DatabaseError`'s (the `sql` property keeps it whole).
    @Test func theDescriptionOfAFailedMigrationWithAHugeStatementIsBounded() throws {
        let temp = try TemporaryDatabase()
        let rows = (0..<20_000).map { "(\($0), 'name \($0)')" }.joined(separator: ", ")
        var migrator = Migrator()
        migrator.register("0001_seed", sql: "INSERT INTO nope (id, name) VALUES \(rows)")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.sql?.hasSuffix("'name 19999')") == true)
        #expect(error.description.count < 6_000, "description is \(error.description.count) characters")
        #expect(error.description.contains("characters of SQL left out"))
        #expect(error.description.hasPrefix("migration 0001_seed"))
    }

    // MARK: Async entry points

    /// Probe: 200 reads fanned out in a task group over 2 readers all return, and leave no load counted.
    @Test func twoHundredReadsOverTwoReadersAllReturn() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 2)
        _ = temp
        try await pool.write { db in for n in 0..<10 { let item = R15AsyncItem(); item.value = n; try db.save(item) } }
        let sums = try await r15AsyncWithin(30) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await pool.read { db in try db.objects(R15AsyncItem.self).reduce(0) { $0 + $1.value } } }
                }
                var sums: [Int] = []
                for try await sum in group { sums.append(sum) }
                return sums
            }
        }
        #expect(sums.count == 200)
        #expect(Set(sums) == [45])
        #expect(pool.readers.map(\.load) == [0, 0])
        try await pool.close()
    }

    /// Probe: reads queued behind two slow ones and cancelled before they start never run, throw
    /// `CancellationError`, and leave no load counted on the readers.
    @Test func queuedReadsCancelledBeforeTheyStartNeverRun() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 2)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let release = Locked(false)
        let ran = Locked(0)
        let slow = (0..<2).map { _ in
            Task { try await pool.read { _ in while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.002) } } }
        }
        try await Task.sleep(nanoseconds: 30_000_000)
        let queued = (0..<20).map { _ in Task { try await pool.read { db in ran.withLock { $0 += 1 }; return try db.count(R15AsyncItem.self) } } }
        try await Task.sleep(nanoseconds: 30_000_000)
        for task in queued { task.cancel() }
        release.withLock { $0 = true }
        for task in queued { await #expect(throws: CancellationError.self) { _ = try await task.value } }
        for task in slow { try await task.value }
        #expect(ran.withLock { $0 } == 0)
        #expect(pool.readers.map(\.load) == [0, 0])
        #expect(try await pool.read { db in try db.count(R15AsyncItem.self) } == 0)
        try await pool.close()
    }

    /// Probe: a write inside a read-only reader (raw SQL or a save) throws SQLite's read-only error, the
    /// reader is left outside any transaction, and the pool goes on.
    @Test func aWriteInsideAReaderThrowsAndTheReaderGoesOn() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let raw = await #expect(throws: DatabaseError.self) {
            try await pool.read { db in try db.execute("INSERT INTO R15AsyncItem (name, value) VALUES ('x', 1)") }
        }
        #expect(raw?.code.primary == .readOnly)
        let saved = await #expect(throws: DatabaseError.self) {
            try await pool.read { db in let item = R15AsyncItem(); item.name = "y"; try db.save(item) }
        }
        #expect(saved?.code.primary == .readOnly)
        #expect(try await pool.read { db in try db.count(R15AsyncItem.self) } == 0)
        #expect(pool.readers[0].sync { $0.isInTransaction } == false)
        try await pool.write { db in try db.save(R15AsyncItem()) }
        #expect(try await pool.read { db in try db.count(R15AsyncItem.self) } == 1)
        try await pool.close()
    }

    /// Probe: calling the pool from inside its own closures never deadlocks: a sync call throws `.misuse`,
    /// an async call made from a task the closure starts waits its turn and runs after it.
    @Test func reentrantCallsThrowOrRunAfterwardsNeverDeadlock() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let outcome = try await r15AsyncWithin(20) {
            let (inner, nested) = try await pool.write { db -> (Task<Int, any Error>, String) in
                let nested: String
                do { _ = try pool.blocking.write { _ in 1 }; nested = "ran" } catch let error as DatabaseError { nested = "\(error.code)" }
                let inner = Task { try await pool.write { db in try db.count(R15AsyncItem.self) } }
                try db.save(R15AsyncItem())
                return (inner, nested)
            }
            let closeInside = await #expect(throws: DatabaseError.self) { try await pool.read { _ in try pool.blocking.close() } }
            #expect(closeInside?.code == .misuse)
            return (try await inner.value, nested)
        }
        #expect(outcome.0 == 1, "the inner write ran after the outer one committed")
        #expect(outcome.1 == "\(ResultCode.misuse)")
        try await pool.close()
    }

    /// Probe: a write cancelled while it runs rolls back and throws `CancellationError`, even when its
    /// closure catches the interruption of its own statement and goes on.
    @Test func aCancelledWriteThatSwallowsTheInterruptStillRollsBack() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let started = Locked(false)
        let task = Task {
            try await pool.write { db in
                try db.save(R15AsyncItem())
                started.withLock { $0 = true }
                // A long statement, whose interruption the closure swallows.
                _ = try? db.value(Int.self, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c")
                try db.save(R15AsyncItem())
            }
        }
        try await eventually { started.withLock { $0 } }
        try await Task.sleep(nanoseconds: 20_000_000)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await pool.read { db in try db.count(R15AsyncItem.self) } == 0)
        try await pool.close()
    }

    /// Probe: a pool dropped without `close()` while a slow write runs finishes the write (the caller holds
    /// the pool meanwhile), and then frees every connection: another handle may then change the file's
    /// journal mode, which needs it to be the only connection.
    @Test func aPoolDroppedWithPendingWorkFinishesItAndClosesItsConnections() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        var pool: DatabasePool? = try DatabasePool(path: temp.path, readers: 2)
        weak let freed = pool
        weak let writerFreed = pool?.writer
        weak let readerFreed = pool?.readers[0]
        let pending: Task<Void, any Error>
        do {
            let writes = try #require(pool)
            pending = Task {
                try await writes.write { db in
                    Thread.sleep(forTimeInterval: 0.1)
                    try db.save(R15AsyncItem())
                }
            }
        }
        pool = nil
        try await pending.value
        try await eventually { freed == nil }
        try await eventually { writerFreed == nil && readerFreed == nil }   // the queues' last blocks ended
        let other = try Database(path: temp.path)
        #expect(try other.value(String.self, "PRAGMA journal_mode = DELETE") == "delete")
        #expect(try other.count(R15AsyncItem.self) == 1)
        try other.close()
    }

    // MARK: Change streams

    /// Probe: concurrent writes (saves, raw SQL, and rolled-back ones) are each reported once, in commit
    /// order, and nothing of a rolled-back write appears.
    @Test func concurrentCommitsAreReportedOnceInCommitOrder() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let stream = pool.changes(of: R15AsyncItem.self)
        let order = Locked<[Int64]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<60 {
                group.addTask {
                    do {
                        try await pool.write { db in
                            if n % 2 == 0 {
                                let item = R15AsyncItem(); item.value = n; try db.save(item)
                                order.withLock { $0.append(item.id) }
                            } else {
                                try db.execute("INSERT INTO R15AsyncItem (name, value) VALUES ('raw', ?)", Int64(n))
                                order.withLock { $0.append(db.lastInsertRowID) }
                            }
                            if n % 3 == 0 { order.withLock { _ = $0.removeLast() }; throw R15AsyncAbort() }
                        }
                    } catch is R15AsyncAbort {}
                }
            }
            try await group.waitForAll()
        }
        let committed = order.withLock { $0 }
        #expect(committed.count == 40)
        var seen: [Int64] = []
        for await change in stream {
            #expect(change.updatedRowIDs.isEmpty && change.deletedRowIDs.isEmpty)
            seen.append(contentsOf: change.insertedRowIDs.sorted())
            if seen.count >= committed.count { break }
        }
        #expect(seen == committed)
        try await pool.close()
    }

    /// Probe: a consumer that reads nothing while 500 commits happen then gets every one of them, in order
    /// (the change stream buffers without bound: nothing is dropped).
    @Test func aSlowConsumerOfChangesGetsEveryCommit() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        var iterator = pool.changes(of: R15AsyncItem.self).makeAsyncIterator()
        for _ in 0..<500 { try await pool.write { db in try db.save(R15AsyncItem()) } }
        var ids: [Int64] = []
        for _ in 0..<500 { ids += try #require(await iterator.next()).insertedRowIDs }
        #expect(ids == Array(1...500))
        try await pool.close()
    }

    /// Probe: a stream whose iterating task is cancelled, or that is dropped unread, and an observation
    /// whose task is cancelled, free their registrations with the pool.
    @Test func cancelledOrDroppedStreamsFreeTheirRegistrations() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        #expect(pool.hub.listenerCount == 0)
        let consuming = Task { for await _ in pool.changes(of: R15AsyncItem.self) {} }
        let observing = Task { for try await _ in pool.observe({ db in try db.count(R15AsyncItem.self) }) {} }
        do { _ = pool.changes(ofTables: nil) }   // dropped unread
        try await eventually { pool.hub.listenerCount == 2 }
        try await pool.write { db in try db.save(R15AsyncItem()) }
        consuming.cancel()
        observing.cancel()
        await consuming.value
        _ = try? await observing.value
        try await eventually { pool.hub.listenerCount == 0 }
        try await pool.write { db in try db.save(R15AsyncItem()) }
        try await pool.close()
    }

    /// Probe: a second pool on the same file (another process's commit) is not seen by the first pool's
    /// streams, as documented, but its reads see it, and its own next commit is reported alone.
    @Test func anotherPoolsCommitIsNotStreamedButIsRead() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let other = try DatabasePool(path: temp.path, readers: 1)
        var iterator = pool.changes(of: R15AsyncItem.self).makeAsyncIterator()
        try await other.write { db in try db.save(R15AsyncItem()) }
        #expect(try await pool.read { db in try db.count(R15AsyncItem.self) } == 1)
        try await pool.write { db in try db.save(R15AsyncItem()) }
        #expect(await iterator.next()?.insertedRowIDs == [2])
        try await other.close()
        try await pool.close()
    }

    /// Probe: a second pool's write made from inside the first pool's write waits for the lock the first
    /// holds only as long as the busy timeout, then throws SQLITE_BUSY saying so: no deadlock, nothing
    /// written by the inner call, the outer write commits.
    @Test func aSecondPoolsWriteInsideTheFirstsThrowsBusyInsteadOfDeadlocking() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(150)
        let other = try DatabasePool(path: temp.path, readers: 1, configuration: configuration)
        let inner = try await r15AsyncWithin(20) {
            try await pool.write { db -> String in
                try db.save(R15AsyncItem())
                do { try other.blocking.write { db in try db.save(R15AsyncItem()) }; return "ran" } catch let error as DatabaseError {
                    return "\(error.code.primary == .busy) \(error.message.contains("150 ms"))"
                }
            }
        }
        #expect(inner == "true true")
        #expect(try await other.read { db in try db.count(R15AsyncItem.self) } == 1)
        try await other.close()
        try await pool.close()
    }

    /// Probe: a value observation over concurrent commits, some rolled back, yields counts that only grow,
    /// ends on the final count, and never one a rolled-back write would have made.
    @Test func aValueObservationNeverYieldsARolledBackValue() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 2)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let seen = Locked<[Int]>([])
        let watching = Task {
            for try await count in pool.observe({ db in try db.count(R15AsyncItem.self) }) {
                seen.withLock { $0.append(count) }
                if count == 20 { break }
            }
        }
        try await eventually { !seen.withLock { $0.isEmpty } }   // the first value, before any write
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<40 {
                group.addTask {
                    try? await pool.write { db in
                        for _ in 0..<(n % 2 == 0 ? 1 : 50) { try db.save(R15AsyncItem()) }
                        if n % 2 == 1 { throw R15AsyncAbort() }   // 50 rows, rolled back
                    }
                }
            }
            try await group.waitForAll()
        }
        try await r15AsyncWithin(20) { try await watching.value }
        let counts = seen.withLock { $0 }
        #expect(counts.first == 0)
        #expect(counts.last == 20)
        #expect(counts == counts.sorted() && Set(counts).count == counts.count)
        #expect(counts.allSatisfy { $0 <= 20 })
        try await pool.close()
    }

    /// Two tasks closing the pool at once (a server's shutdown paths): the second `close()` returned at
    /// once while the first still waited for a queued write, so its caller went on (removing the file, say)
    /// with the connections open. Every `close()` now returns once the handles are closed.
    @Test func aSecondConcurrentCloseWaitsForTheHandlesToClose() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let release = Locked(false)
        let slow = Task {
            try await pool.write { db in
                while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.002) }
                try db.save(R15AsyncItem())
            }
        }
        try await Task.sleep(nanoseconds: 30_000_000)   // the slow write holds the writer
        let first = Task { try await pool.close() }
        try await Task.sleep(nanoseconds: 30_000_000)   // the first close waits for it
        let second = Task { () -> Bool in
            try await pool.close()
            return release.withLock { $0 }   // false: it returned while the write (and so the handles) went on
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        release.withLock { $0 = true }
        #expect(try await second.value, "the second close returned before the queued write ended")
        try await first.value
        try await slow.value
        let reopened = try Database(path: temp.path)
        #expect(try reopened.count(R15AsyncItem.self) == 1)
        try reopened.close()
    }

    /// Guard: observations started while commits land (a commit published between the observation's
    /// registration and its first fetch made a second fetch run beside the first; their results could
    /// arrive in either order) each end on the final count, having yielded counts that only grow.
    @Test func observationsStartedWhileCommitsLandEndOnTheNewestValue() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 3)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        let writing = Task { for _ in 0..<100 { try await pool.write { db in try db.save(R15AsyncItem()) } } }
        let counts = try await r15AsyncWithin(30) {
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        var seen: [Int] = []
                        for try await count in pool.observe({ db in try db.count(R15AsyncItem.self) }) {
                            seen.append(count)
                            if count == 100 { break }
                        }
                        return seen
                    }
                    await Task.yield()
                }
                var all: [[Int]] = []
                for try await seen in group { all.append(seen) }
                return all
            }
        }
        try await writing.value
        #expect(counts.count == 50)
        #expect(counts.allSatisfy { $0.last == 100 && $0 == $0.sorted() })
        try await pool.close()
    }

    /// A commit published between an observation's registration and the start of its first fetch (another
    /// task's write landing then) started a second fetch beside the first: two fetches ran at once on two
    /// readers, and their results could arrive in either order, leaving the stream on the older value. The
    /// commit now makes the first fetch run once more, after it.
    @Test func aCommitRightAfterAnObservationRegistersNeverRunsTwoFetchesAtOnce() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 2)
        _ = temp
        try await pool.write { db in try db.syncSchema(R15AsyncItem.self) }
        pool.hub.afterAdd.withLock { hook in
            hook = { try? pool.writer.sync { db in try db.transaction { try db.execute("INSERT INTO R15AsyncItem DEFAULT VALUES") } } }
        }
        let running = Locked((now: 0, most: 0))
        var values = pool.observe { db -> Int in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            defer { running.withLock { $0.now -= 1 } }
            Thread.sleep(forTimeInterval: 0.05)
            return try db.count(R15AsyncItem.self)
        }.makeAsyncIterator()
        pool.hub.afterAdd.withLock { $0 = nil }
        var seen: [Int] = []
        while seen.last != 1, let value = try await values.next() { seen.append(value) }
        #expect(seen.last == 1)
        #expect(running.withLock { $0.most } == 1, "two fetches of one observation ran at once")
        try await pool.close()
    }

    #if canImport(Observation)
    /// Probe: an `@Observable` instance a pool reader holds is told of the writer's commit when the reader
    /// next reads (its refresh), once, for a property the view does not read too; a commit to another row
    /// tells it nothing.
    @Test func anObservableInstanceOfAReaderIsToldOfTheWritersCommit() async throws {
        let (temp, pool) = try r15AsyncPool(readers: 1)
        _ = temp
        try await pool.write { db in for title in ["a", "b"] { let note = R15AsyncNote(); note.title = title; try db.save(note) } }
        let held = R15AsyncHeld()
        try await pool.read { db in held.note = try db.object(R15AsyncNote.self, forKey: 1) }
        let note = try #require(held.note)
        let changes = Locked(0)
        withObservationTracking { _ = note.title } onChange: { changes.withLock { $0 += 1 } }
        try await pool.write { db in try db.execute("UPDATE R15AsyncNote SET title = 'other' WHERE id = 2") }
        _ = try await pool.read { db in try db.count(R15AsyncNote.self) }
        #expect(changes.withLock { $0 } == 0, "another row changed: no notification")
        try await pool.write { db in try db.execute("UPDATE R15AsyncNote SET stars = 4 WHERE id = 1") }
        _ = try await pool.read { db in try db.count(R15AsyncNote.self) }
        #expect(changes.withLock { $0 } == 1)
        #expect(note.stars == 4)
        withObservationTracking { _ = note.title } onChange: { changes.withLock { $0 += 1 } }
        try await pool.write { db in
            let mine = try #require(try db.object(R15AsyncNote.self, forKey: 1))
            mine.title = "saved"
            try db.save(mine)
        }
        _ = try await pool.read { db in try db.count(R15AsyncNote.self) }
        #expect(note.title == "saved")
        #expect(changes.withLock { $0 } == 2)
        held.note = nil
        try await pool.close()
    }
    #endif
}
