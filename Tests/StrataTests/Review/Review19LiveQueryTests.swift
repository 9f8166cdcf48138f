#if canImport(Observation)
import Foundation
import Observation
import StrataTestSupport
import Testing
@testable import Strata

private final class R19LQItem: Model {
    static let tableName = "r19lq_item"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R19LQOther: Model {
    static let tableName = "r19lq_other"
    var id: Int64 = 0
    required init() {}
}

/// A count that is not `Equatable`: every result is delivered.
private struct Tally: Sendable {
    let count: Int
}

/// Counts the changes Observation reports for a query's `value` (each `onChange` re-registers).
@MainActor private final class QueryChangeCounter {
    var changes = 0
    func track<V>(_ query: LiveQuery<V>) {
        withObservationTracking { _ = query.value } onChange: { [weak self] in
            Task { @MainActor in
                self?.changes += 1
                self?.track(query)
            }
        }
    }
}

/// Polls `condition` on the main actor (with sleeps, so the query's task runs) until it holds.
@MainActor private func until(_ condition: () -> Bool) async throws {
    for _ in 0..<2_500 where !condition() { try await Task.sleep(nanoseconds: 2_000_000) }
    #expect(condition())
}

@Suite @MainActor struct Review19LiveQueryTests {
    @Test func aLiveQueryFollowsCommitsThatTouchItsTablesAndStopsWhenReleased() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in _ = try db.syncSchema(R19LQOther.self); let item = R19LQItem(); item.name = "a"; try db.save(item) }
        var query: LiveQuery<[String]>? = LiveQuery(pool) { db in try db.objects(R19LQItem.self, matching: [:], orderBy: "id").map(\.name) }
        #expect(query?.value == nil)   // the first fetch runs on a reader, after init returns
        try await until { query?.value == ["a"] }
        #expect(pool.hub.listenerCount == 1)

        try await pool.write { db in let item = R19LQItem(); item.name = "b"; try db.save(item) }
        try await until { query?.value == ["a", "b"] }
        // Raw SQL through the pool counts too.
        try await pool.write { db in try db.execute("UPDATE r19lq_item SET name = 'z' WHERE id = 1") }
        try await until { query?.value == ["z", "b"] }
        #expect(query?.error == nil)

        query = nil
        try await until { pool.hub.listenerCount == 0 }
        try await pool.write { db in let item = R19LQItem(); item.name = "c"; try db.save(item) }
        #expect(pool.hub.listenerCount == 0)
    }

    @Test func observationTellsOfEachNewResultAndAnEquatableResultEqualToTheLastChangesNothing() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in _ = try db.syncSchema(R19LQOther.self); try db.save(R19LQItem()) }
        let count = LiveQuery(pool) { db in try db.count(R19LQItem.self) }
        let tally = LiveQuery(pool) { db in Tally(count: try db.count(R19LQItem.self)) }
        try await until { count.value == 1 && tally.value?.count == 1 }
        let countChanges = QueryChangeCounter(), tallyChanges = QueryChangeCounter()
        countChanges.track(count)
        tallyChanges.track(tally)

        // A commit to the table that leaves the count as it was: the Equatable query changes nothing, the
        // other is told of its new (equal) result.
        try await pool.write { db in try db.execute("UPDATE r19lq_item SET name = 'renamed'") }
        try await until { tallyChanges.changes == 1 }
        // A commit to another table: no fetch, no change for either.
        try await pool.write { db in try db.save(R19LQOther()) }
        try await pool.write { db in try db.save(R19LQItem()) }
        try await until { count.value == 2 && tally.value?.count == 2 }
        try await until { countChanges.changes == 1 && tallyChanges.changes == 2 }
        #expect(countChanges.changes == 1)
        #expect(tallyChanges.changes == 2)
    }

    @Test func aFetchThatThrowsEndsTheQueryWithItsError() async throws {
        let file = try PoolFile(); let pool = file.pool
        let query = LiveQuery(pool) { db in try db.value(Int.self, "SELECT count(*) FROM no_such_table") }
        try await until { query.error != nil }
        #expect(query.value == nil)
        #expect("\(query.error.map { "\($0)" } ?? "")".contains("no_such_table"))
        try await until { pool.hub.listenerCount == 0 }
    }
}
#endif
