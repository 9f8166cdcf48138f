import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// A value without `Equatable`, so an observation yields each fetch (no duplicate removal).
struct Counted: Sendable {
    let count: Int
}

@Suite struct PoolObservationTests {
    @Test func changesStreamReportsEachCommitWithKeysAndChangedProperties() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self); try db.syncSchema(AsyncOther.self) }
        var iterator = pool.changes(of: AsyncItem.self).makeAsyncIterator()

        try await pool.write { db in
            for name in ["a", "b"] { let item = AsyncItem(); item.name = name; try db.save(item) }
            try db.save(AsyncOther())   // another table: not in this stream
        }
        let inserted = try #require(await iterator.next())
        #expect(inserted.table == "AsyncItem")
        #expect(inserted.modelType == AsyncItem.self)
        #expect(inserted.insertedRowIDs == [1, 2])

        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await pool.write { db in try db.execute("DELETE FROM AsyncItem"); throw Abort() }
        }
        try await pool.write { db in
            let item = try #require(try db.object(AsyncItem.self, forKey: 1))
            item.value = 5
            try db.save(item)
        }
        let saved = try #require(await iterator.next())
        #expect(saved.insertedRowIDs.isEmpty && saved.deletedRowIDs.isEmpty, "the rolled-back delete never appears")
        #expect(saved.updatedRowIDs == [1])
        #expect(saved.updatedProperties == [1: ["value"]])

        try await pool.write { db in try db.execute("UPDATE AsyncItem SET name = 'z' WHERE id = 2") }
        let raw = try #require(await iterator.next())
        #expect(raw.updatedRowIDs == [2])
        #expect(raw.updatedProperties.isEmpty, "raw SQL: which columns changed is not known")

        try await pool.write { db in
            let item = try #require(try db.object(AsyncItem.self, forKey: 2))
            item.name = "y"
            try db.save(item)
            try db.execute("UPDATE AsyncItem SET value = 9 WHERE id = 2")
        }
        let mixed = try #require(await iterator.next())
        #expect(mixed.updatedRowIDs == [2])
        #expect(mixed.updatedProperties[2] == nil, "a save followed by raw SQL on the same row: unknown")
    }

    @Test func changesStreamEndsWhenThePoolCloses() async throws {
        let file = try PoolFile(); let pool = file.pool
        let stream = pool.changes(ofTables: nil)
        try await pool.write { db in try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        try await pool.close()
        var tables: [String] = []
        for await change in stream { tables.append(change.table) }
        #expect(tables == ["t"])
    }

    @Test func valueObservationYieldsAfterCommitsToItsTablesOnly() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self); try db.syncSchema(AsyncOther.self) }
        var values = pool.observe { db in Counted(count: try db.count(AsyncItem.self)) }.makeAsyncIterator()
        #expect(try await values.next()?.count == 0)

        try await pool.write { db in try db.save(AsyncItem()) }
        #expect(try await values.next()?.count == 1)

        // Another table, then a rollback: neither makes the observation fetch; the next value is the
        // insert that follows.
        try await pool.write { db in try db.save(AsyncOther()) }
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await pool.write { db in try db.save(AsyncItem()); throw Abort() }
        }
        try await pool.write { db in try db.execute("INSERT INTO AsyncItem(name, value) VALUES ('raw', 0)") }
        #expect(try await values.next()?.count == 2)
    }

    @Test func valueObservationCoalescesBurstsAndEndsWithTheLastValue() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self) }
        let fetches = Locked(0)
        let stream = pool.observe { db in
            fetches.withLock { $0 += 1 }
            return try db.count(AsyncItem.self)
        }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        for _ in 0..<200 { try await pool.write { db in try db.save(AsyncItem()) } }
        var last = 0
        while last < 200, let value = try await iterator.next() { last = value }
        #expect(last == 200)
        #expect(fetches.withLock { $0 } <= 201)
    }

    @Test func equatableObservationsSkipEqualResults() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self) }
        var names = pool.observe { db in try db.objects(AsyncItem.self, where: "ORDER BY id").map(\.name) }.makeAsyncIterator()
        #expect(try await names.next() == [])
        try await pool.write { db in let item = AsyncItem(); item.name = "a"; try db.save(item) }
        #expect(try await names.next() == ["a"])
        try await pool.write { db in try db.execute("UPDATE AsyncItem SET value = value + 1") }   // names unchanged
        try await pool.write { db in let item = AsyncItem(); item.name = "b"; try db.save(item) }
        #expect(try await names.next() == ["a", "b"])
    }

    @Test func aFailingFetchEndsTheObservationWithItsError() async throws {
        let file = try PoolFile(); let pool = file.pool
        var iterator = pool.observe { db in try db.value(Int.self, "SELECT x FROM missing") }.makeAsyncIterator()
        let error = await #expect(throws: DatabaseError.self) { _ = try await iterator.next() }
        #expect(error?.message.contains("no such table") == true)
    }

    @Test func aDroppedPoolIsFreedAndEndsItsStreams() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        var pool: DatabasePool? = try DatabasePool(path: temp.path, readers: 1)
        weak var freed: DatabasePool?
        freed = pool
        var values = try #require(pool).observe { db in try db.value(Int.self, "SELECT 1") ?? 0 }.makeAsyncIterator()
        var changes = try #require(pool).changes(ofTables: nil).makeAsyncIterator()
        #expect(try await values.next() == 1)
        try await Task.sleep(nanoseconds: 20_000_000)   // the first fetch has released its reader
        pool = nil
        #expect(freed == nil, "no cycle through the streams keeps the pool (and its connections) alive")
        #expect(try await values.next() == nil)
        #expect(await changes.next() == nil)
    }
}
