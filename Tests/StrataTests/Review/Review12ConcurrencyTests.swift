import Dispatch
import Foundation
import StrataTestSupport
import Testing
@testable import Strata
import CSQLite

// Review 12: the async API, the pool and its change streams where two connections or tasks meet.

private final class R12Row: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R12Text: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

private final class R12UUID: Model {
    var id = UUID()
    var name = ""
    required init() {}
}

/// A composite key over a WITHOUT ROWID table the test creates (as Django and SQLAlchemy map them).
private final class R12Pair: Model {
    static let compositeKey = ["owner", "n"]
    var owner = ""
    var n = 0
    var name = ""
    required init() {}
}

/// Instances handed out of a pool closure to look at once the call returned (the test's own thread
/// reads them only after the closure ended).
private final class Box: @unchecked Sendable {
    var objects: [ModelObject] = []
    var notes: [String] = []
}

private func pool(readers: Int = 2) throws -> (TemporaryDatabase, DatabasePool) {
    let temp = try TemporaryDatabase()
    try temp.db.close()
    return (temp, try DatabasePool(path: temp.path, readers: readers))
}

/// Refuses a row named 'bad' (insert or update) on `table`.
private func refuseBad(_ db: Database, _ table: String) throws {
    try db.execute("""
        CREATE TRIGGER "\(table)_bad_i" BEFORE INSERT ON "\(table)" WHEN NEW.name = 'bad' BEGIN SELECT RAISE(ABORT, 'bad name'); END;
        CREATE TRIGGER "\(table)_bad_u" BEFORE UPDATE ON "\(table)" WHEN NEW.name = 'bad' BEGIN SELECT RAISE(ABORT, 'bad name'); END
        """)
}

/// A model over a WITHOUT ROWID table keyed by COLLATE NOCASE text (created by the test).
private final class R12Tag: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

/// Collects what a change stream yields, as text, on a task of its own.
private final class ChangeLog: Sendable {
    let lines = Locked<[String]>([])
    let task: Task<Void, Never>
    init(_ stream: AsyncStream<DatabaseChange>) {
        let lines = self.lines
        task = Task {
            for await change in stream {
                lines.withLock {
                    $0.append("\(change.table) i\(change.insertedRowIDs.sorted()) u\(change.updatedRowIDs.sorted()) d\(change.deletedRowIDs.sorted())")
                }
            }
        }
    }
    /// Writes a marker row through the pool and waits for the stream to yield it: every commit made
    /// before has been reported by then. Returns the lines yielded since the last call, the marker's left out.
    func drain(_ pool: DatabasePool) async throws -> [String] {
        try await pool.write { db in try db.execute("INSERT INTO r12_marker DEFAULT VALUES") }
        try await eventually { self.lines.withLock { $0.last?.hasPrefix("r12_marker") == true } }
        return lines.withLock { lines in
            defer { lines.removeAll() }
            return Array(lines.dropLast())
        }
    }
}

/// Collects what a value observation yields, on a task of its own (so that a missing value fails the test
/// after a while instead of waiting for ever).
private final class ValueLog<T: Sendable>: Sendable {
    let values = Locked<[T]>([])
    let task: Task<Void, any Error>
    init(_ stream: AsyncThrowingStream<T, any Error>) {
        let values = self.values
        task = Task { for try await value in stream { values.withLock { $0.append(value) } } }
    }
    /// The values yielded once there are `count` of them (or after about 4 s).
    func first(_ count: Int) async throws -> [T] {
        try await eventually { self.values.withLock { $0.count } >= count }
        return values.withLock { $0 }
    }
}

/// A pool over tables that SQLite's update hook reports differently: a NOCASE text key, a WITHOUT ROWID
/// NOCASE text key, a WITHOUT ROWID composite key, and children of a NOCASE parent with ON DELETE CASCADE
/// (a rowid child, a WITHOUT ROWID child) and SET NULL.
private func keyedPool() async throws -> (TemporaryDatabase, DatabasePool) {
    let (temp, pool) = try pool()
    try await pool.write { db in
        try db.execute("""
            CREATE TABLE r12_marker (id INTEGER PRIMARY KEY);
            CREATE TABLE R12Tag (code TEXT PRIMARY KEY COLLATE NOCASE, name TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
            CREATE TABLE R12Pair (owner TEXT NOT NULL, n INTEGER NOT NULL, name TEXT NOT NULL DEFAULT '',
                PRIMARY KEY (owner, n)) WITHOUT ROWID;
            CREATE TABLE parent (code TEXT PRIMARY KEY COLLATE NOCASE, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent TEXT REFERENCES parent (code) ON DELETE CASCADE);
            CREATE TABLE wchild (parent TEXT REFERENCES parent (code) ON DELETE CASCADE, n INTEGER,
                PRIMARY KEY (parent, n)) WITHOUT ROWID;
            CREATE TABLE nchild (id INTEGER PRIMARY KEY, parent TEXT REFERENCES parent (code) ON DELETE SET NULL);
            INSERT INTO parent VALUES ('Ada', 'ada'), ('Bob', 'bob'), ('Cy', 'cy');
            INSERT INTO child (parent) VALUES ('ada'), ('Bob');
            INSERT INTO wchild VALUES ('ADA', 1), ('Bob', 2);
            INSERT INTO nchild (parent) VALUES ('ada');
            """)
    }
    return (temp, pool)
}

@Suite struct Review12ConcurrencyTests {
    // MARK: Defects

    /// SQLite's update hook says nothing of WITHOUT ROWID tables, so `changes(of:)` of a model on one
    /// yielded nothing for its saves, raw SQL, or an ON DELETE CASCADE into it, and `observe` of such a table
    /// never fetched again. Statements that may write such tables (themselves, by trigger or by foreign key
    /// action, as the authorizer tells when they are prepared) now report the table when they changed rows
    /// the hook did not report: one change per commit, with no row IDs.
    @Test func changeStreamsAndObservationsSeeWritesToWithoutRowIDTables() async throws {
        let (temp, pool) = try await keyedPool()
        _ = temp
        let all = ChangeLog(pool.changes(ofTables: nil))
        let tags = ChangeLog(pool.changes(of: R12Tag.self))
        let names = ValueLog(pool.observe { db in try db.objects(R12Tag.self, where: "ORDER BY code").map(\.name) })
        #expect(try await names.first(1) == [[]])

        // The library's own save, then raw SQL, each once.
        try await pool.write { db in let tag = R12Tag(); tag.code = "swift"; tag.name = "Swift"; try db.save(tag) }
        #expect(try await all.drain(pool) == ["R12Tag i[] u[] d[]"])
        #expect(try await names.first(2) == [[], ["Swift"]])
        try await pool.write { db in try db.execute("UPDATE R12Tag SET name = 'SWIFT' WHERE code = 'SWIFT'") }
        #expect(try await all.drain(pool) == ["R12Tag i[] u[] d[]"])
        #expect(try await names.first(3) == [[], ["Swift"], ["SWIFT"]])
        // A composite key, and a batch of saves: one change for the commit.
        try await pool.write { db in
            let pairs = (1...3).map { n -> R12Pair in let pair = R12Pair(); pair.owner = "o"; pair.n = n; return pair }
            try db.save(pairs)
        }
        #expect(try await all.drain(pool) == ["R12Pair i[] u[] d[]"])

        // A cascade into a WITHOUT ROWID child is reported, next to the rowid tables' rows.
        try await pool.write { db in try db.execute("DELETE FROM parent WHERE code = 'ADA'") }
        #expect(try await all.drain(pool).sorted() == ["child i[] u[] d[1]", "nchild i[] u[1] d[]", "parent i[] u[] d[1]", "wchild i[] u[] d[]"])
        // A cascade that found no WITHOUT ROWID child reports none; nor does a statement that changed nothing.
        try await pool.write { db in
            try db.execute("DELETE FROM parent WHERE code = 'cy'")
            try db.execute("DELETE FROM R12Tag WHERE code = 'none'")
        }
        #expect(try await all.drain(pool) == ["parent i[] u[] d[3]"])
        // Rolled back (the whole write, or a savepoint in a write that commits): never reported.
        await #expect(throws: CancellationError.self) {
            try await pool.write { db in try db.execute("DELETE FROM R12Tag"); throw CancellationError() }
        }
        try await pool.write { db in
            try? db.transaction { try db.execute("INSERT INTO R12Pair (owner, n) VALUES ('x', 1)"); throw CancellationError() }
        }
        #expect(try await all.drain(pool) == [])
        #expect(try await pool.read { db in (try db.count(R12Tag.self), try db.count(R12Pair.self)) } == (1, 3))

        // The model's own stream: the save and the raw update, nothing else.
        try await eventually { tags.lines.withLock { $0.count } >= 2 }
        #expect(tags.lines.withLock { $0 } == ["R12Tag i[] u[] d[]", "R12Tag i[] u[] d[]"])
        try await pool.close()
        try await names.task.value
        _ = await (all.task.value, tags.task.value)
    }

    /// Raw SQL that rolled back to a savepoint of its own (`SAVEPOINT s ... ROLLBACK TO s`) inside a pool
    /// write: SQLite's rollback hook does not tell, and the rows inserted after the savepoint were reported
    /// to `changes(of:)` at commit although they were never committed (the rowid was then reported again for
    /// the row that took it). Changes recorded in the transaction are now checked against the rows after
    /// such a rollback.
    @Test func rowsARawRollbackToASavepointUndidAreNotReported() async throws {
        let (temp, pool) = try await keyedPool()
        _ = temp
        let log = ChangeLog(pool.changes(ofTables: nil))
        try await pool.write { db in
            try db.execute("INSERT INTO child (parent) VALUES ('Bob')")
            try db.execute("SAVEPOINT s1")
            try db.execute("INSERT INTO child (parent) VALUES ('Bob')")
            try db.execute("DELETE FROM child WHERE id = 2")
            try db.execute("ROLLBACK TO s1")
            try db.execute("RELEASE s1")
        }
        #expect(try await log.drain(pool) == ["child i[3] u[] d[]"])
        try await pool.write { db in
            try db.execute("INSERT INTO child (parent) VALUES ('Bob')")
            try db.execute("SAVEPOINT s1; INSERT INTO child (parent) VALUES ('Bob'); DELETE FROM child WHERE id = 1; ROLLBACK TO s1; RELEASE s1")
        }
        #expect(try await log.drain(pool) == ["child i[4] u[] d[]"])
        #expect(try await pool.read { db in try db.column(Int64.self, "SELECT id FROM child ORDER BY id") } == [1, 2, 3, 4])
        try await pool.close()
        await log.task.value
    }

    /// A pool write cancelled while it waited for another connection's write lock (another process's
    /// transaction) went on waiting for the whole busy timeout (5 s) and then threw SQLITE_BUSY, not
    /// `CancellationError`: `sqlite3_interrupt` does not end SQLite's busy wait. A pool's handles now wait
    /// with a busy handler of their own (SQLite's schedule, the same timeout) that stops once the call is
    /// cancelled; the call throws `CancellationError` at once, wrote nothing, and the writer takes the next.
    @Test func aWriteCancelledWhileWaitingForAnotherConnectionsLockStopsAtOnce() async throws {
        // A 60 s busy timeout: a write that ignored the cancellation would wait for all of it, so a bound
        // of 10 s tells the two apart even on a loaded machine (1 s, with the default 5 s, did not).
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1, configuration: .patient)
        try await pool.write { db in try db.syncSchema(R12Row.self) }
        let other = try Database(path: temp.path)
        try other.execute("BEGIN IMMEDIATE")
        let ran = Locked(false)
        let task = Task { try await pool.write { db in ran.withLock { $0 = true }; try db.save(R12Row()) } }
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelled = Date()
        task.cancel()
        let result = await task.result
        let waited = Date().timeIntervalSince(cancelled)
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(waited < 10, "waited \(waited) s after the cancellation")
        #expect(!ran.withLock { $0 })
        // Uncancelled, a write still waits for the lock, and gets it once the other connection lets go.
        let next = Task { try await pool.write { db in try db.save(R12Row()) } }
        try await Task.sleep(nanoseconds: 100_000_000)
        try other.execute("ROLLBACK")
        try await next.value
        #expect(try await pool.read { db in try db.count(R12Row.self) } == 1)
        try other.close()
        try await pool.close()
    }

    // MARK: Guards (probes that passed, of cases no other test covers)

    /// Guard: a batch that fails on its last object inside a pool write whose closure then throws: the
    /// objects saved earlier in the same write stay saved while the write goes on (the batch's savepoint
    /// alone rolled back), and once the write rolled back every instance is unsaved again with its key as
    /// before (0 where SQLite assigned it; its own text, UUID or composite key kept), the file holds
    /// none of their rows, and the same instances save cleanly in the next write. Rowid, text, UUID and
    /// composite (WITHOUT ROWID) keys alike.
    @Test func aBatchFailingInAPoolWriteLeavesEveryKeyKindUnsavedAndRetriesCleanly() async throws {
        let (temp, pool) = try await keyedPool()
        _ = temp
        try await pool.write { db in
            try db.syncSchema(R12Row.self); try db.syncSchema(R12Text.self); try db.syncSchema(R12UUID.self)
            for table in ["R12Row", "R12Text", "R12UUID", "R12Pair"] { try refuseBad(db, table) }
        }
        let box = Box()
        let uuid = UUID(), badUUID = UUID()
        let failure = await #expect(throws: DatabaseError.self) {
            try await pool.write { db in
                let row = R12Row(); row.name = "r"
                let text = R12Text(); text.code = "T"; text.name = "t"
                let uuidKeyed = R12UUID(); uuidKeyed.id = uuid; uuidKeyed.name = "u"
                let pair = R12Pair(); pair.owner = "o"; pair.n = 1; pair.name = "p"
                try db.save(row); try db.save(text); try db.save(uuidKeyed); try db.save(pair)
                let rowBad = R12Row(); rowBad.name = "bad"
                let textBad = R12Text(); textBad.code = "Z"; textBad.name = "bad"
                let uuidBad = R12UUID(); uuidBad.id = badUUID; uuidBad.name = "bad"
                let pairBad = R12Pair(); pairBad.owner = "o"; pairBad.n = 2; pairBad.name = "bad"
                box.objects = [row, text, uuidKeyed, pair, rowBad, textBad, uuidBad, pairBad]
                var failures = 0
                do { try db.save([row, rowBad]) } catch { failures += 1 }
                do { try db.save([text, textBad]) } catch { failures += 1 }
                do { try db.save([uuidKeyed, uuidBad]) } catch { failures += 1 }
                do { try db.save([pair, pairBad]) } catch { failures += 1 }
                box.notes = ["\(failures)", "\(row.id) \(row.isPersisted) \(text.isPersisted) \(uuidKeyed.isPersisted) \(pair.isPersisted)",
                             "\(rowBad.id) \(rowBad.isPersisted) \(textBad.isPersisted) \(uuidBad.isPersisted) \(pairBad.isPersisted)",
                             try db.column(String.self, "SELECT name FROM R12Row UNION ALL SELECT name FROM R12Text UNION ALL SELECT name FROM R12UUID UNION ALL SELECT name FROM R12Pair").joined(separator: ",")]
                // The write fails as a whole: the earlier saves roll back too.
                try db.save(rowBad)
            }
        }
        #expect(failure?.message.contains("bad name") == true)
        #expect(box.notes == ["4", "1 true true true true", "0 false false false false", "r,t,u,p"])
        let row = box.objects[0] as! R12Row, text = box.objects[1] as! R12Text
        let uuidKeyed = box.objects[2] as! R12UUID, pair = box.objects[3] as! R12Pair
        #expect(!row.isPersisted && !text.isPersisted && !uuidKeyed.isPersisted && !pair.isPersisted)
        #expect(row.id == 0 && text.code == "T" && uuidKeyed.id == uuid && pair.owner == "o" && pair.n == 1)
        let count = "SELECT (SELECT count(*) FROM R12Row) + (SELECT count(*) FROM R12Text) + (SELECT count(*) FROM R12UUID) + (SELECT count(*) FROM R12Pair)"
        #expect(try await pool.read { db in try db.value(Int.self, count) } == 0)

        for case let object as R12Row in box.objects { if object.name == "bad" { object.name = "r2" } }
        for case let object as R12Text in box.objects { if object.name == "bad" { object.name = "t2" } }
        for case let object as R12UUID in box.objects { if object.name == "bad" { object.name = "u2" } }
        for case let object as R12Pair in box.objects { if object.name == "bad" { object.name = "p2" } }
        let objects = box
        try await pool.write { db in
            try db.save(objects.objects.compactMap { $0 as? R12Row })
            try db.save(objects.objects.compactMap { $0 as? R12Text })
            try db.save(objects.objects.compactMap { $0 as? R12UUID })
            try db.save(objects.objects.compactMap { $0 as? R12Pair })
        }
        #expect(row.id == 1 && row.isPersisted && pair.isPersisted)
        let stored = try await pool.read { db in
            try db.column(String.self, "SELECT id || name FROM R12Row UNION ALL SELECT code || name FROM R12Text UNION ALL SELECT name FROM R12UUID UNION ALL SELECT owner || n || name FROM R12Pair")
        }
        #expect(stored == ["1r", "2r2", "Tt", "Zt2", "u", "u2", "o1p", "o2p2"])
        try await pool.close()
    }

    /// Guard: a change stream of a model keyed by NOCASE text sees raw SQL, the library's saves and an
    /// ON DELETE SET NULL made through the writer once each, with their rowids, and nothing of a write the
    /// task's cancellation rolled back while it ran.
    @Test func aTextKeyedStreamSeesEachCommitOnceAndNothingOfACancelledWrite() async throws {
        let (temp, pool) = try await keyedPool()
        _ = temp
        let log = ChangeLog(pool.changes(ofTables: ["PARENT", "nchild", "R12_MARKER"]))
        try await pool.write { db in
            try db.execute("INSERT INTO parent VALUES ('dee', 'd')")
            try db.execute("UPDATE parent SET name = 'Ada' WHERE code = 'ADA'")
        }
        #expect(try await log.drain(pool) == ["parent i[4] u[1] d[]"])
        let started = Locked(false)
        let task = Task {
            try await pool.write { db in
                try db.execute("DELETE FROM parent WHERE code = 'ada'")
                started.withLock { $0 = true }
                _ = try db.value(Int.self, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000000) SELECT count(*) FROM n")
            }
        }
        try await eventually { started.withLock { $0 } }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await log.drain(pool) == [])
        try await pool.write { db in try db.execute("DELETE FROM parent WHERE code = 'ada'") }
        #expect(try await log.drain(pool).sorted() == ["nchild i[] u[1] d[]", "parent i[] u[] d[1]"])
        try await pool.close()
        await log.task.value
    }

    /// Guard: an instance a reader fetched, held across a write of the writer, is the instance the next
    /// read on that reader returns, holding the committed values.
    @Test func anInstanceHeldAcrossAWriteReadsTheCommittedValues() async throws {
        let (temp, pool) = try pool(readers: 1)
        _ = temp
        try await pool.write { db in let row = R12Row(); row.name = "before"; try db.save(row) }
        let box = Box()
        try await pool.read { db in box.objects = [try #require(try db.object(R12Row.self, forKey: 1))] }
        try await pool.write { db in
            let row = try #require(try db.object(R12Row.self, forKey: 1))
            row.name = "after"; try db.save(row)
        }
        let same = try await pool.read { db in try db.object(R12Row.self, forKey: 1) === box.objects[0] }
        #expect(same)
        #expect((box.objects[0] as! R12Row).name == "after")
        try await pool.close()
    }

    /// Guard: two pools on one file (two processes, say), two tasks each, 25 increments per task of one
    /// counter: every increment is kept.
    @Test func twoPoolsIncrementingOneRowLoseNothing() async throws {
        let (temp, pool) = try pool()
        let other = try DatabasePool(path: temp.path, readers: 1)
        try await pool.write { db in try db.save(R12Row()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for target in [pool, other, pool, other] {
                group.addTask {
                    for _ in 0..<25 {
                        try await target.write { db in
                            let row = try #require(try db.object(R12Row.self, forKey: 1))
                            row.name = String((Int(row.name) ?? 0) + 1)
                            try db.save(row)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await other.read { db in try db.object(R12Row.self, forKey: 1)?.name } == "100")
        try await other.close()
        try await pool.close()
    }

    /// Guard: `close()` while writes wait behind a slow one and streams observe: the queued writes run
    /// (close waits for them), the observation and the change stream end, later calls throw "closed", and
    /// nothing hangs (a hang fails the test after 20 s instead of blocking the run).
    @Test func closingWhileWritesWaitAndStreamsObserveEndsEverything() async throws {
        let (temp, pool) = try pool(readers: 1)
        _ = temp
        try await pool.write { db in try db.syncSchema(R12Row.self) }
        let done = Locked<[String]>([])
        let release = Locked(false)
        let work = Task {
            var observation = pool.observe { db in try db.count(R12Row.self) }.makeAsyncIterator()
            _ = try await observation.next()
            let changes = ChangeLog(pool.changes(of: R12Row.self))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await pool.write { db in
                        while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.002) }
                        try db.save(R12Row())
                    }
                }
                try await Task.sleep(nanoseconds: 20_000_000)   // the slow write holds the writer
                for _ in 0..<3 {
                    group.addTask { try await pool.write { db in try db.save(R12Row()) } }
                }
                group.addTask {
                    try await Task.sleep(nanoseconds: 50_000_000)
                    let closing = Task { try await pool.close() }
                    try await Task.sleep(nanoseconds: 20_000_000)
                    release.withLock { $0 = true }
                    try await closing.value
                }
                try await group.waitForAll()
            }
            while try await observation.next() != nil {}
            await changes.task.value
            done.withLock { $0.append("ended") }
            let error = await #expect(throws: DatabaseError.self) { try await pool.write { db in try db.save(R12Row()) } }
            if error?.message.contains("closed") == true { done.withLock { $0.append("closed") } }
        }
        for _ in 0..<10_000 where done.withLock({ $0.count }) < 2 { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(done.withLock { $0 } == ["ended", "closed"])
        if done.withLock({ $0.count }) < 2 { work.cancel(); return }
        let reopened = try Database(path: temp.path)
        #expect(try reopened.count(R12Row.self) == 4)
        try reopened.close()
    }
}

