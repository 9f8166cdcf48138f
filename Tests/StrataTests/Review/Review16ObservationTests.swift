import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 16 (observation): value observations and change streams of a pool, a handle's change observers,
// and `@Observable` live instances, as a GRDB ValueObservation or SwiftData user relies on them.

private final class R16ObsItem: Model {
    var id: Int64 = 0
    var name = ""
    var value = 0
    required init() {}
}

private func r16ObsPool(readers: Int = 2) throws -> (TemporaryDatabase, DatabasePool) {
    let temp = try TemporaryDatabase()
    try temp.db.close()
    return (temp, try DatabasePool(path: temp.path, readers: readers))
}

/// Runs `body`, failing (instead of hanging the run) when it takes more than `seconds`.
private func r16ObsWithin<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); return nil }
        let first = try await group.next()!
        group.cancelAll()
        guard let first else { throw R16ObsTimeout() }
        return first
    }
}

#if canImport(Observation)
import Observation

@Observable private final class R16ObsNote: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<R16ObsNote>] { [\.title, \.stars] }
    var id: Int64 = 0
    var title = ""
    var stars = 0
    required init() {}
}
#endif

#if canImport(Observation)
@Observable private final class R16ObsOwner: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<R16ObsOwner>] { [\.name] }
    var id: Int64 = 0
    var name = ""
    required init() {}
}

@Observable private final class R16ObsPet: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<R16ObsPet>] { [\.name] }
    var id: Int64 = 0
    var name = ""
    @ObservationIgnored @Reference(onDelete: .setNull) var owner: R16ObsOwner?
    required init() {}
}

@Observable private final class R16ObsToy: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<R16ObsToy>] { [\.name] }
    var id: Int64 = 0
    var name = ""
    @ObservationIgnored @Reference(onDelete: .cascade) var owner: R16ObsOwner?
    required init() {}
}
#endif

private struct R16ObsTimeout: Error {}

/// The stream's next element, failing after `seconds` (one iterator at a time: the stream's storage is shared).
private func r16ObsNext<T: Sendable>(_ stream: AsyncThrowingStream<T, any Error>, within seconds: Double = 5) async throws -> T? {
    try await r16ObsWithin(seconds) { () async throws -> T? in
        var iterator = stream.makeAsyncIterator()
        return try await iterator.next()
    }
}
private struct R16ObsAbort: Error {}

@Suite struct Review16ObservationTests {
    // MARK: Schema changes

    /// A `DROP TABLE` of a table an observation reads: its next fetch fails, and the stream ends with that
    /// error (instead of going silent on the last value).
    @Test func aDroppedTableEndsAnObservationWithItsError() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.execute("CREATE TABLE r16t(x INTEGER); INSERT INTO r16t VALUES (1)") }
        let values = pool.observe { db in try db.value(Int.self, "SELECT count(*) FROM r16t") ?? -1 }
        #expect(try await r16ObsNext(values) == 1)
        try await pool.write { db in try db.execute("DROP TABLE r16t") }
        let error = await #expect(throws: DatabaseError.self) {
            _ = try await r16ObsNext(values)
        }
        #expect(error?.message.contains("no such table: r16t") == true)
        try await pool.close()
    }

    /// A raw rebuild of an observed table (`CREATE new`, `INSERT ... SELECT`, `DROP`, `ALTER ... RENAME`)
    /// that changes its values: the observation yields the new values.
    @Test func aRawRebuildOfAnObservedTableIsDelivered() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.execute("CREATE TABLE r16t(x INTEGER); INSERT INTO r16t VALUES (1), (2)") }
        let values = pool.observe { db in try db.value(Int.self, "SELECT sum(x) FROM r16t") ?? -1 }
        #expect(try await r16ObsNext(values) == 3)
        try await pool.write { db in
            try db.execute("""
                CREATE TABLE r16t_new(x INTEGER NOT NULL);
                INSERT INTO r16t_new SELECT x * 10 FROM r16t;
                DROP TABLE r16t;
                ALTER TABLE r16t_new RENAME TO r16t;
                """)
        }
        let next = try await r16ObsNext(values)
        #expect(next == 30)
        try await pool.close()
    }

    /// A handle's change observer hears of a committed `DROP TABLE` (its rows are gone, though SQLite's update
    /// hook reports none of them); a rolled-back one is not reported.
    @Test func aHandlesObserverHearsOfADroppedTable() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r16t(x INTEGER); INSERT INTO r16t VALUES (1); CREATE TABLE r16u(y)")
        var tables: [[String]] = []
        let observation = temp.db.observeChanges { changes in tables.append(changes.map(\.table).sorted()) }
        #expect(throws: R16ObsAbort.self) {
            try temp.db.transaction { try temp.db.execute("DROP TABLE r16t"); throw R16ObsAbort() }
        }
        #expect(tables.isEmpty)
        try temp.db.execute("DROP TABLE r16t")
        #expect(tables == [["r16t"]])
        observation.cancel()
    }

    /// Migrations run on the pool's writer (a rebuild that changes values, then an UPDATE) reach an
    /// observation of the rebuilt table.
    @Test func aPoolsMigrationsReachAnObservation() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.execute("CREATE TABLE r16t(x INTEGER); INSERT INTO r16t VALUES (1), (2)") }
        let values = pool.observe { db in try db.value(Int.self, "SELECT sum(x) FROM r16t") ?? -1 }
        #expect(try await r16ObsNext(values) == 3)
        var migrator = Migrator()
        migrator.register("rebuild", sql: """
            CREATE TABLE r16t_new(x INTEGER NOT NULL);
            INSERT INTO r16t_new SELECT x * 10 FROM r16t;
            DROP TABLE r16t;
            ALTER TABLE r16t_new RENAME TO r16t;
            """)
        try await migrator.migrate(pool)
        #expect(try await r16ObsNext(values) == 30)
        migrator.register("bump", sql: "UPDATE r16t SET x = x + 1")
        try await migrator.migrate(pool)
        #expect(try await r16ObsNext(values) == 32)
        try await pool.close()
    }

    /// An observation that reads through a view, and one that reads an FTS5 table, fetch again after a
    /// commit to the tables beneath.
    @Test func anObservationThroughAViewOrAFullTextTableSeesWrites() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in
            try db.execute("""
                CREATE TABLE r16t(x INTEGER); CREATE VIEW r16v AS SELECT x FROM r16t WHERE x > 1;
                CREATE VIRTUAL TABLE r16f USING fts5(body);
                """)
        }
        let viewed = pool.observe { db in try db.value(Int.self, "SELECT count(*) FROM r16v") ?? -1 }
        let searched = pool.observe { db in try db.value(Int.self, "SELECT count(*) FROM r16f WHERE r16f MATCH 'swift'") ?? -1 }
        #expect(try await r16ObsNext(viewed) == 0)
        #expect(try await r16ObsNext(searched) == 0)
        try await pool.write { db in try db.execute("INSERT INTO r16t VALUES (5)") }
        #expect(try await r16ObsNext(viewed) == 1)
        try await pool.write { db in try db.execute("INSERT INTO r16f(body) VALUES ('swift and sqlite')") }
        #expect(try await r16ObsNext(searched) == 1)
        try await pool.close()
    }

    /// A handle's change observer that fetches again (as FCModel's notification handlers do) after a save,
    /// after a `transaction` block and after raw SQL: its reads threw SQLITE_ABORT "the transaction was
    /// rolled back by SQLite; nothing written in it was kept" after the two committed transactions (the
    /// block whose COMMIT it followed was still counted as open). An observer's own save works too.
    @Test func aChangeObserverCanReadAndWriteThroughTheHandle() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.syncSchema(R16ObsItem.self)
        var seen: [[String]] = []
        var failures: [String] = []
        let observation = db.observeChanges { _ in
            do {
                seen.append(try db.objects(R16ObsItem.self, where: "ORDER BY id").map(\.name))
                if seen.count == 1 { let item = R16ObsItem(); item.name = "from observer"; try db.save(item) }
            } catch {
                failures.append("\(error)")
            }
        }
        let item = R16ObsItem(); item.name = "saved"
        try db.save(item)
        try db.transaction { try db.execute("INSERT INTO R16ObsItem(name, value) VALUES ('block', 0)") }
        try db.execute("UPDATE R16ObsItem SET value = 1")
        #expect(failures == [])
        #expect(seen == [["saved"], ["saved", "from observer"], ["saved", "from observer", "block"],
                         ["saved", "from observer", "block"]])
        #expect(try db.count(R16ObsItem.self) == 3)
        observation.cancel()
    }

    // MARK: Values delivered

    /// An `Equatable` observation whose consumer is slow: A is taken, B is yielded but not taken, then the
    /// result goes back to A. The consumer must not receive A twice in a row.
    @Test func aSlowConsumerOfAnEquatableObservationNeverGetsTheSameValueTwice() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.syncSchema(R16ObsItem.self) }
        let fetches = Locked(0)
        let values = pool.observe { db -> Int in
            fetches.withLock { $0 += 1 }
            return try db.count(R16ObsItem.self)
        }
        #expect(try await r16ObsNext(values) == 0)
        try await pool.write { db in try db.save(R16ObsItem()) }
        try await eventually { fetches.withLock { $0 } == 2 }
        try await pool.write { db in try db.execute("DELETE FROM R16ObsItem") }
        try await eventually { fetches.withLock { $0 } == 3 }
        // The consumer comes back: 1 is gone (a newer value replaced it), and 0 it has already.
        var next: Int??
        do { next = try await r16ObsNext(values, within: 0.3) } catch is R16ObsTimeout {}
        #expect(next == nil, "0 was delivered already; nothing changed since but the 1 it never took")
        try await pool.close()
    }

    /// Raw SQL savepoints inside a pool write: what a `ROLLBACK TO` undid is never reported nor delivered;
    /// what a released savepoint wrote is.
    @Test func aRolledBackSavepointIsNeverDelivered() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.syncSchema(R16ObsItem.self) }
        var changes = pool.changes(of: R16ObsItem.self).makeAsyncIterator()
        let seen = Locked<[[String]]>([])
        let watching = Task {
            for try await names in pool.observe({ db in try db.objects(R16ObsItem.self, where: "ORDER BY id").map(\.name) }) {
                seen.withLock { $0.append(names) }
                if names == ["kept", "inner"] { break }
            }
        }
        try await eventually { seen.withLock { $0.count } == 1 }
        try await pool.write { db in
            try db.execute("SAVEPOINT a; INSERT INTO R16ObsItem(name, value) VALUES ('undone', 0); ROLLBACK TO a; RELEASE a")
            try db.execute("INSERT INTO R16ObsItem(name, value) VALUES ('kept', 0)")
            try? db.transaction {
                let item = R16ObsItem(); item.name = "undone too"; try db.save(item)
                throw R16ObsAbort()
            }
            try db.transaction { let item = R16ObsItem(); item.name = "inner"; try db.save(item) }
        }
        let change = try #require(await changes.next())
        #expect(change.insertedRowIDs.count == 2)
        try await r16ObsWithin(5) { try await watching.value }
        #expect(seen.withLock { $0 } == [[], ["kept", "inner"]])
        try await pool.close()
    }

    // MARK: Failures

    /// A row another tool wrote that the model cannot decode ends the observation with an error naming the
    /// model and the property.
    @Test func anUndecodableRowEndsTheObservationNamingModelAndProperty() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.syncSchema(R16ObsItem.self); try db.save(R16ObsItem()) }
        let values = pool.observe { db in try db.objects(R16ObsItem.self).map(\.value) }
        #expect(try await r16ObsNext(values) == [0])
        try await pool.write { db in try db.execute("UPDATE R16ObsItem SET value = 'many'") }
        var thrown: (any Error)?
        do { _ = try await r16ObsNext(values) } catch { thrown = error }
        let text = "\(thrown.map { "\($0)" } ?? "nothing thrown")"
        #expect(text.contains("R16ObsItem") && text.contains("value"), "\(text)")
        try await pool.close()
    }

    // MARK: Cancellation

    /// An observation whose stream is dropped after one value (no task cancelled, the loop just left)
    /// frees its registration with the pool.
    @Test func aDroppedObservationStreamIsFreed() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.syncSchema(R16ObsItem.self) }
        do {
            let values = pool.observe { db in try db.count(R16ObsItem.self) }
            #expect(try await r16ObsNext(values) == 0)
            #expect(pool.hub.listenerCount == 1)
        }
        try await eventually { pool.hub.listenerCount == 0 }
        do {
            for try await count in pool.observe({ db in try db.count(R16ObsItem.self) }) { if count == 0 { break } }
        }
        try await eventually { pool.hub.listenerCount == 0 }
        try await pool.write { db in try db.save(R16ObsItem()) }
        try await pool.close()
    }

    #if canImport(Observation)
    /// A live `@Observable` instance changed by raw SQL inside a savepoint that is rolled back (raw
    /// `ROLLBACK TO`, and a nested `transaction` that throws) holds its stored values again, and its
    /// observers were told; after the outer commit it holds what was committed.
    @Test func anObservableInstanceFollowsARolledBackSavepoint() throws {
        let temp = try TemporaryDatabase()
        let note = R16ObsNote(); note.title = "kept"; note.stars = 1
        try temp.db.save(note)
        let told = Locked(0)
        withObservationTracking { _ = note.title } onChange: { told.withLock { $0 += 1 } }
        try temp.db.transaction {
            try temp.db.execute("SAVEPOINT a; UPDATE R16ObsNote SET title = 'undone' WHERE id = 1")
            #expect(note.title == "undone")
            try temp.db.execute("ROLLBACK TO a; RELEASE a")
            #expect(note.title == "kept")
            try? temp.db.transaction {
                try temp.db.execute("UPDATE R16ObsNote SET stars = 9 WHERE id = 1")
                throw R16ObsAbort()
            }
            #expect(note.stars == 1)
            try temp.db.execute("UPDATE R16ObsNote SET stars = 2 WHERE id = 1")
        }
        #expect(told.withLock { $0 } == 1, "the first refresh told the observer (tracking is one-shot)")
        #expect(note.title == "kept" && note.stars == 2)
        let after = Locked(0)
        withObservationTracking { _ = note.stars } onChange: { after.withLock { $0 += 1 } }
        let other = try Database(path: temp.path)
        try other.execute("UPDATE R16ObsNote SET stars = 3 WHERE id = 1")
        try other.close()
        _ = try temp.db.objects(R16ObsNote.self)   // a model fetch looks for other connections' commits
        #expect(note.stars == 3)
        #expect(after.withLock { $0 } == 1)
        #expect(try temp.db.object(R16ObsNote.self, forKey: 1)?.title == "kept")
    }
    #endif

    /// A consumer waiting for the next value when the pool closes gets the end of the stream (no hang);
    /// a value fetched but not taken before the close is still handed out first.
    @Test func closingThePoolEndsAWaitingConsumerAfterThePendingValue() async throws {
        let (temp, pool) = try r16ObsPool()
        _ = temp
        try await pool.write { db in try db.syncSchema(R16ObsItem.self) }
        let fetches = Locked(0)
        let values = pool.observe { db -> Int in fetches.withLock { $0 += 1 }; return try db.count(R16ObsItem.self) }
        #expect(try await r16ObsNext(values) == 0)
        let waiting = Task { try await r16ObsNext(values) }
        try await Task.sleep(nanoseconds: 30_000_000)
        try await pool.close()
        #expect(try await waiting.value == nil)
        #expect(pool.hub.listenerCount == 0)

        let (temp2, pool2) = try r16ObsPool()
        _ = temp2
        try await pool2.write { db in try db.syncSchema(R16ObsItem.self) }
        let counts = pool2.observe { db in try db.count(R16ObsItem.self) }
        #expect(try await r16ObsNext(counts) == 0)
        let fetched = Locked(0)
        let trace = pool2.readers.map { reader in reader.sync { db in db.traceStatements { _ in fetched.withLock { $0 += 1 } } } }
        try await pool2.write { db in try db.save(R16ObsItem()) }
        try await eventually { fetched.withLock { $0 } >= 3 }   // BEGIN, the count, COMMIT
        for (reader, token) in zip(pool2.readers, trace) { reader.sync { _ in token.cancel() } }
        try await pool2.close()
        #expect(try await r16ObsNext(counts) == 1)
        #expect(try await r16ObsNext(counts) == nil)
    }

    #if canImport(Observation)
    /// Deleting a parent through raw SQL: the live child its ON DELETE CASCADE removed is marked deleted and
    /// its observers told; the live child its SET NULL changed loses the reference and its observers are
    /// told; a rolled-back delete leaves both as they were.
    @Test func foreignKeyActionsNotifyObservableChildren() throws {
        let temp = try TemporaryDatabase()
        let owner = R16ObsOwner(); owner.name = "Ada"
        try temp.db.save(owner)
        let pet = R16ObsPet(); pet.name = "Rex"; pet.owner = owner
        let toy = R16ObsToy(); toy.name = "Ball"; toy.owner = owner
        try temp.db.save(pet); try temp.db.save(toy)
        let told = Locked((pet: 0, toy: 0))
        withObservationTracking { _ = pet.name } onChange: { told.withLock { $0.pet += 1 } }
        withObservationTracking { _ = toy.name } onChange: { told.withLock { $0.toy += 1 } }
        try? temp.db.transaction {
            try temp.db.execute("DELETE FROM R16ObsOwner WHERE id = 1")
            throw R16ObsAbort()
        }
        #expect(!toy.isDeleted && pet.owner === owner)
        #expect(try temp.db.count(R16ObsToy.self) == 1)
        withObservationTracking { _ = pet.name } onChange: { told.withLock { $0.pet += 1 } }
        withObservationTracking { _ = toy.name } onChange: { told.withLock { $0.toy += 1 } }
        let before = told.withLock { $0 }
        try temp.db.execute("DELETE FROM R16ObsOwner WHERE id = 1")
        #expect(toy.isDeleted)
        #expect(pet.owner == nil && !pet.isDeleted)
        let after = told.withLock { $0 }
        #expect(after.toy == before.toy + 1 && after.pet == before.pet + 1)
    }
    #endif

    /// A cancelled observation runs no more SQL on the readers after later commits.
    @Test func aCancelledObservationRunsNoMoreSQL() async throws {
        let (temp, pool) = try r16ObsPool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R16ObsItem.self) }
        let statements = Locked(0)
        let trace = pool.readers[0].sync { db in db.traceStatements { _ in statements.withLock { $0 += 1 } } }
        let observing = Task { for try await _ in pool.observe({ db in try db.count(R16ObsItem.self) }) {} }
        try await eventually { statements.withLock { $0 } > 0 }
        observing.cancel()
        _ = try? await observing.value
        try await eventually { pool.hub.listenerCount == 0 }
        try await pool.read { _ in }   // a fetch in flight when the task was cancelled has ended
        let before = statements.withLock { $0 }
        for _ in 0..<5 { try await pool.write { db in try db.save(R16ObsItem()) } }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(statements.withLock { $0 } == before)
        pool.readers[0].sync { _ in trace.cancel() }
        try await pool.close()
    }
}
