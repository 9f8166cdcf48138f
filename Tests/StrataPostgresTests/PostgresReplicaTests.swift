import Foundation
import Strata
import StrataPostgres
import Testing

// Reads from a hot standby (issue 35, point 10): `DatabasePool(postgresURL:replicaURL:)` reads on the
// standby once it has replayed the pool's last commit, and on the primary when it has not within the wait.
// Run under `Scripts/with-postgres.sh --replica`, which starts the standby and sets STRATA_POSTGRES_REPLICA_URL.

let postgresReplicaURL = ProcessInfo.processInfo.environment["STRATA_POSTGRES_REPLICA_URL"]

private final class R35Entry: Model {
    static let tableName = "r35_entry"
    var id: Int64 = 0
    var title = ""
    var amount = 0
    required init() {}
}

private final class R35Late: Model {
    static let tableName = "r35_late"
    var id: Int64 = 0
    var text = ""
    required init() {}
}

/// `url` with its connections starting in `schema` (libpq's `options`).
private func inSchema(_ url: String, _ schema: String) -> String {
    url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
}

/// A replica pool in a schema of its own (made on the primary, dropped after), and an admin handle on the
/// standby (for pausing its replay).
private func withReplicaPool<T>(readers: Int = 2, wait: Duration = .seconds(10),
                                _ body: (DatabasePool, Database) async throws -> T) async throws -> T {
    let url = postgresURL ?? "", replica = postgresReplicaURL ?? ""
    let schema = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let admin = try Database(postgresURL: url)
    let standby = try Database(postgresURL: replica)
    try admin.execute("CREATE SCHEMA \(schema)")
    defer {
        try? standby.execute("SELECT pg_wal_replay_resume()")
        try? standby.close()
        try? admin.execute("DROP SCHEMA \(schema) CASCADE")
        try? admin.close()
    }
    let pool = try DatabasePool(postgresURL: inSchema(url, schema), replicaURL: inSchema(replica, schema),
                                readers: readers, replicaWait: wait)
    let result = try await body(pool, standby)
    try await pool.close()
    return result
}

// Serialized: pausing the standby's replay pauses it for every test.
@Suite("PostgreSQL replica pool", .serialized, .enabled(if: postgresURL != nil && postgresReplicaURL != nil,
                                            "STRATA_POSTGRES_REPLICA_URL is not set (run under Scripts/with-postgres.sh --replica)"))
struct PostgresReplicaTests {
    @Test func aReadAfterAWriteSeesItOnTheStandbyAcross200Pairs() async throws {
        try await withReplicaPool { pool, _ in
            try await pool.write { db in try db.execute("CREATE TABLE r35_pair(n bigint PRIMARY KEY, tag text NOT NULL)") }
            var missed: [Int] = [], onPrimary = 0
            for n in 1...200 {
                // Async and blocking calls alike, each read right after its write returned.
                let read: (count: Int, last: Int, tag: String, standby: Bool)
                if n % 2 == 0 {
                    try await pool.write { db in try db.execute("INSERT INTO r35_pair(n, tag) VALUES (?, ?)", n, "t\(n)") }
                    read = try await pool.read { db in try Self.lastPair(db) }
                } else {
                    try pool.blocking.write { db in try db.execute("INSERT INTO r35_pair(n, tag) VALUES (?, ?)", n, "t\(n)") }
                    read = try pool.blocking.read { db in try Self.lastPair(db) }
                }
                if read.count != n || read.last != n || read.tag != "t\(n)" { missed.append(n) }
                if !read.standby { onPrimary += 1 }
            }
            #expect(missed == [], "reads that did not see the write just before them")
            #expect(onPrimary == 0, "every read ran on the standby (it replays within the 10 s wait)")
        }
    }

    private static func lastPair(_ db: Database) throws -> (count: Int, last: Int, tag: String, standby: Bool) {
        let row = try #require(try db.rows("SELECT count(*) AS c, max(n) AS m, (SELECT tag FROM r35_pair ORDER BY n DESC LIMIT 1) AS t, pg_is_in_recovery() AS r FROM r35_pair").first)
        return (try row.decode("c"), try row.decode("m"), try row.decode("t"), try row.decode("r"))
    }

    @Test func readsRunOnTheStandbyReadOnlyAndModelsAreTheCommittedRows() async throws {
        try await withReplicaPool { pool, _ in
            let keys = try await pool.write { db -> [Int64] in
                let entries = [("rent", 1200), ("food", 340), ("books", 45)].map { title, amount in
                    let entry = R35Entry(); entry.title = title; entry.amount = amount; return entry
                }
                for entry in entries { try db.save(entry) }
                return entries.map(\.id)
            }
            let (rows, standby, writerStandby) = try await pool.read { db in
                (try db.objects(R35Entry.self, where: "ORDER BY id").map { "\($0.id) \($0.title) \($0.amount)" },
                 try db.value(Bool.self, "SELECT pg_is_in_recovery()"),
                 try db.value(Bool.self, "SELECT current_setting('transaction_read_only')::bool"))
            }
            #expect(rows == ["\(keys[0]) rent 1200", "\(keys[1]) food 340", "\(keys[2]) books 45"])
            #expect(standby == true && writerStandby == true)
            #expect(try await pool.write { db in try db.value(Bool.self, "SELECT pg_is_in_recovery()") } == false)
            // An update and a delete reach the objects a later read fetches.
            try await pool.write { db in
                let rent = try #require(try db.object(R35Entry.self, forKey: keys[0]))
                rent.amount = 1250
                try db.save(rent)
                try db.delete(try #require(try db.object(R35Entry.self, forKey: keys[2])))
            }
            let after = try pool.blocking.read { db in try db.objects(R35Entry.self, where: "ORDER BY id").map { "\($0.title) \($0.amount)" } }
            #expect(after == ["rent 1250", "food 340"])
            let refused = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in try db.execute("INSERT INTO r35_entry(title, amount) VALUES ('x', 1)") }
            }
            #expect(refused?.code == .readOnly && refused?.sqlState == "25006")
        }
    }

    @Test func aWriteThatEndsAtASegmentBoundaryIsReadOnTheStandbyWithoutWaitingForMoreWAL() async throws {
        try await withReplicaPool(wait: .seconds(3)) { pool, _ in
            // After a WAL switch the primary's insert position is the next segment's start plus its page
            // header, which the standby's replay position never equals until another record comes.
            let inserted = try await pool.write { db -> String in
                _ = try db.value(String.self, "SELECT pg_switch_wal()::text")
                return try db.value(String.self, "SELECT pg_current_wal_insert_lsn()::text") ?? ""
            }
            let clock = ContinuousClock()
            let started = clock.now
            let onStandby = try await pool.read { db in try db.value(Bool.self, "SELECT pg_is_in_recovery()") }
            #expect(onStandby == true, "read on the standby within the wait (insert position \(inserted))")
            #expect(clock.now - started < .seconds(3))
        }
    }

    @Test func aReplicaURLThatIsNotAStandbyIsRefusedAtOpen() throws {
        let url = postgresURL ?? ""
        let error = #expect(throws: DatabaseError.self) {
            _ = try DatabasePool(postgresURL: url, replicaURL: url, readers: 1)
        }
        #expect(error?.code == .cannotOpen && error?.sqlState == "08001")
        #expect(error?.message.contains("is not a hot standby (pg_is_in_recovery() is false)") == true)
    }

    @Test func aPausedStandbyGivesReadsToThePrimaryAfterTheWaitThenAtOnceUntilItCatchesUp() async throws {
        try await withReplicaPool(wait: .seconds(1)) { pool, standby in
            try await pool.write { db in try db.execute("CREATE TABLE r35_lag(n bigint PRIMARY KEY)") }
            #expect(try await pool.read { db in try db.value(Bool.self, "SELECT pg_is_in_recovery()") } == true)
            try standby.execute("SELECT pg_wal_replay_pause()")
            try await pool.write { db in try db.execute("INSERT INTO r35_lag(n) VALUES (1)") }
            let clock = ContinuousClock()
            let started = clock.now
            let first = try await pool.read { db in
                (try db.value(Int.self, "SELECT count(*) FROM r35_lag"), try db.value(Bool.self, "SELECT pg_is_in_recovery()"),
                 try db.value(Bool.self, "SELECT current_setting('transaction_read_only')::bool"))
            }
            let waited = clock.now - started
            #expect(first.0 == 1 && first.1 == false && first.2 == true, "read on the primary, read-only, with the row")
            #expect(waited >= .seconds(1), "the read waited the whole replicaWait first: \(waited)")
            // Known behind: the next reads go to the primary without waiting again (five would take 5 s).
            let againStarted = clock.now
            for _ in 0..<5 {
                let read = try pool.blocking.read { db in
                    (try db.value(Int.self, "SELECT count(*) FROM r35_lag"), try db.value(Bool.self, "SELECT pg_is_in_recovery()"))
                }
                #expect(read.0 == 1 && read.1 == false)
            }
            #expect(clock.now - againStarted < .seconds(1), "reads went to the primary at once: \(clock.now - againStarted)")
            // Resumed: once a read finds the standby caught up, reads run there again.
            try standby.execute("SELECT pg_wal_replay_resume()")
            var onStandby = false
            for _ in 0..<100 where !onStandby {
                let read = try await pool.read { db in
                    (try db.value(Int.self, "SELECT count(*) FROM r35_lag"), try db.value(Bool.self, "SELECT pg_is_in_recovery()"))
                }
                #expect(read.0 == 1)
                onStandby = read.1 == true
                if !onStandby { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(onStandby)
        }
    }

    @Test func aModelFirstUsedOnAReaderOfAPausedStandbyIsReadOnThePrimary() async throws {
        try await withReplicaPool(wait: .milliseconds(300)) { pool, standby in
            try standby.execute("SELECT pg_wal_replay_pause()")
            // The reader meets the model first: the writer creates its table, which the paused standby
            // cannot replay; the read runs again on the primary instead of failing with "no table".
            let (texts, onStandby) = try await pool.read { db in
                (try db.objects(R35Late.self).map(\.text), try db.value(Bool.self, "SELECT pg_is_in_recovery()"))
            }
            #expect(texts == [] && onStandby == false)
            try await pool.write { db in let late = R35Late(); late.text = "saved while paused"; try db.save(late) }
            #expect(try await pool.read { db in try db.objects(R35Late.self).map(\.text) } == ["saved while paused"])
            try standby.execute("SELECT pg_wal_replay_resume()")
        }
    }

    @Test func observationsOnAPausedStandbySeeAnotherConnectionsCommitTheyHeardOf() async throws {
        try await withReplicaPool(wait: .seconds(1)) { pool, standby in
            _ = try await pool.write { db in try db.syncSchema(R35Entry.self) }
            try await pool.installChangeNotifications(for: [R35Entry.self])
            // Caught up (the read waits for it), then paused.
            let schema = try await pool.read { db in try db.value(String.self, "SELECT current_schema()") ?? "" }
            let other = try Database(postgresURL: inSchema(postgresURL ?? "", schema))
            defer { try? other.close() }
            try standby.execute("SELECT pg_wal_replay_pause()")
            defer { try? standby.execute("SELECT pg_wal_replay_resume()") }
            try other.execute("SELECT 1")
            let insertFromOther = { @Sendable in
                let db = try Database(postgresURL: inSchema(postgresURL ?? "", schema))
                defer { try? db.close() }
                try db.execute("INSERT INTO r35_entry(title, amount) VALUES ('theirs', 0)")
            }
            try await withWatchdog {
                var counts = pool.observe { db in try db.count(R35Entry.self) }.makeAsyncIterator()
                #expect(try await counts.next() == 0)   // on the standby, caught up
                // Another connection's commit, heard through the notifications: the listener raises the
                // position reads wait for before the observation hears of it, so its read waits for the
                // paused standby and then reads the primary.
                try insertFromOther()
                #expect(try await counts.next() == 1)
            }
        }
    }

    @Test func observationsOnAPausedStandbySeeThePoolsOwnCommitTheyHeardOf() async throws {
        try await withReplicaPool(wait: .seconds(1)) { pool, standby in
            _ = try await pool.write { db in try db.syncSchema(R35Entry.self) }
            _ = try await pool.read { db in try db.count(R35Entry.self) }   // caught up (the read waits for it)
            try standby.execute("SELECT pg_wal_replay_pause()")
            defer { try? standby.execute("SELECT pg_wal_replay_resume()") }
            try await withWatchdog {
                var counts = pool.observe { db in try db.count(R35Entry.self) }.makeAsyncIterator()
                #expect(try await counts.next() == 0)   // on the standby, caught up
                // The commit's position is recorded before the observation hears of it: its read waits for
                // the paused standby, then reads the primary.
                try await pool.write { db in
                    let entry = R35Entry()
                    entry.title = "own"
                    try db.save(entry)
                }
                #expect(try await counts.next() == 1)
            }
        }
    }
}
