import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class PoolShelfV1: Model {
    static let tableName = "Shelf"
    var id: Int64 = 0
    var capacity = "12"
    required init() {}
}

final class PoolShelfV2: Model {
    static let tableName = "Shelf"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var capacity = 12
    required init() {}
}

@Suite struct PoolLifecycleTests {
    @Test func newFilesUseWALAndExistingFilesKeepTheirMode() throws {
        let temp = try TemporaryDatabase()
        #expect(try temp.db.value(String.self, "PRAGMA journal_mode") == "wal")

        var rollback = Database.Configuration()
        rollback.journalMode = .delete
        let legacy = try TemporaryDatabase(configuration: rollback)
        try legacy.db.execute("CREATE TABLE t(x)")
        try legacy.reopen()
        #expect(try legacy.db.value(String.self, "PRAGMA journal_mode") == "delete", "an existing file keeps its mode")
        var wal = Database.Configuration()
        wal.journalMode = .wal
        try legacy.reopen(configuration: wal)
        #expect(try legacy.db.value(String.self, "PRAGMA journal_mode") == "wal", "opting in")

        let memory = try Database()
        #expect(try memory.value(String.self, "PRAGMA journal_mode") == "memory")
    }

    @Test func twoPlainHandlesOnANewFileReadWhileTheOtherWrites() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        var impatient = Database.Configuration()
        impatient.busyTimeout = .milliseconds(10)
        let reader = try Database(path: temp.path, configuration: impatient)
        try temp.db.transaction {
            try temp.db.execute("INSERT INTO t VALUES (2)")
            // WAL: no SQLITE_BUSY, and not half of the open transaction.
            #expect(try reader.value(Int.self, "SELECT count(*) FROM t") == 1)
        }
        #expect(try reader.value(Int.self, "SELECT count(*) FROM t") == 2)
    }

    @Test func aPoolTurnsAnExistingRollbackJournalFileToWAL() async throws {
        var rollback = Database.Configuration()
        rollback.journalMode = .delete
        let legacy = try TemporaryDatabase(configuration: rollback)
        try legacy.db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try legacy.db.close()
        let pool = try DatabasePool(path: legacy.path, readers: 2)
        #expect(try await pool.read { db in try db.value(String.self, "PRAGMA journal_mode") } == "wal")
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT x FROM t") } == 1)
    }

    @Test func closeWaitsForQueuedWorkThenRefusesNewWork() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in try db.syncSchema(AsyncItem.self) }
        let started = Locked(0)
        let writes = (0..<5).map { index in
            Task {
                try await pool.write { db in
                    started.withLock { $0 += 1 }
                    Thread.sleep(forTimeInterval: 0.01)
                    let item = AsyncItem(); item.value = index
                    try db.save(item)
                }
            }
        }
        // Close once a write is under way (not after a fixed wait, which a loaded machine can outlast).
        while started.withLock({ $0 }) == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        try await pool.close()
        var written = 0
        for write in writes { if case .success = await write.result { written += 1 } }
        let error = await #expect(throws: DatabaseError.self) { try await pool.read { db in try db.count(AsyncItem.self) } }
        #expect(error?.code == .misuse)
        #expect(error?.message == "the pool is closed")
        #expect(throws: DatabaseError.self) { try pool.checkpoint() }
        try await pool.close()   // a second close does nothing
        // What was accepted before close was written.
        let check = try Database(path: pool.path)
        #expect(try check.count(AsyncItem.self) == written)
        #expect(written >= 1)
    }

    @Test func checkpointEmptiesTheWAL() async throws {
        let temp = try PoolFile(); let pool = temp.pool
        try await pool.write { db in for _ in 0..<50 { try db.save(AsyncItem()) } }
        let walPath = temp.path + "-wal"
        #expect(((try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? 0) > 0)
        let result = try pool.checkpoint(.truncate)
        #expect(result.logFrames == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) == 0)
        // Nothing was lost: a rollback-journal reader of the main file alone sees every row.
        #expect(try await pool.read { db in try db.count(AsyncItem.self) } == 50)

        let plain = try Database()
        #expect(try plain.checkpoint().logFrames == -1, "not in WAL mode")
    }

    @Test func backupCopiesTheDatabaseWhileWritesGoOn() async throws {
        let temp = try PoolFile(); let pool = temp.pool
        try await pool.write { db in
            for value in 0..<100 { let item = AsyncItem(); item.value = value; try db.save(item) }
        }
        let copyPath = temp.folder.appendingPathComponent("backup.sqlite").path
        try pool.backup(to: copyPath)
        try await pool.write { db in try db.save(AsyncItem()) }
        let copy = try Database(path: copyPath)
        #expect(try copy.count(AsyncItem.self) == 100)
        #expect(try copy.value(Int.self, "SELECT sum(value) FROM AsyncItem") == 4_950)
        #expect(try copy.value(String.self, "PRAGMA integrity_check") == "ok")

        // Handle to handle, replacing what the destination held; its live instances follow.
        let other = try Database()
        let stale = AsyncItem(); stale.value = -1
        try other.save(stale)
        try copy.backup(to: other)
        #expect(try other.count(AsyncItem.self) == 100)
        #expect(stale.value == 0, "the live instance of row 1 now holds the copied row")
    }

    @Test func aModelFirstUsedThroughAReaderIsSyncedByTheWriter() async throws {
        let file = try PoolFile(readers: 2); let pool = file.pool
        #expect(try await pool.read { db in try db.count(AsyncItem.self) } == 0)
        #expect(try await pool.write { db in try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'AsyncItem'") } == 1)
        // A read that already read something when it meets a new model runs again, once.
        let runs = Locked(0)
        let counted = try await pool.read { db in
            runs.withLock { $0 += 1 }
            _ = try db.value(Int.self, "SELECT count(*) FROM AsyncItem")
            return try db.count(AsyncOther.self)
        }
        #expect(counted == 0)
        #expect(runs.withLock { $0 } == 2)
        // The synchronous API takes the same path.
        try await pool.write { db in try db.execute("DROP TABLE AsyncOther") }
        func blockingRead() throws -> Int { try pool.blocking.read { db in try db.objects(AsyncOther.self).count } }
        #expect(try blockingRead() == 0)
    }

    @Test func anOptInRebuildRunsThroughThePool() async throws {
        let file = try PoolFile(); let pool = file.pool
        try await pool.write { db in let shelf = PoolShelfV1(); shelf.capacity = "30"; try db.save(shelf) }
        let plan = try await pool.syncSchema(PoolShelfV2.self)
        #expect(plan.rebuildsTable)
        #expect(try await pool.read { db in try db.objects(PoolShelfV2.self).map(\.capacity) } == [30])
        #expect(try await pool.read { db in try db.value(String.self, "SELECT typeof(capacity) FROM Shelf") } == "integer")
    }

    @Test func aRebuildOfManyRowsReportsProgress() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Shelf(id INTEGER PRIMARY KEY, capacity TEXT NOT NULL DEFAULT '12')")
        try temp.db.execute("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000) INSERT INTO Shelf(capacity) SELECT i FROM c")
        var reports: [Int] = []
        let plan = try temp.db.syncSchema(PoolShelfV2.self) { reports.append($0) }
        #expect(plan.rebuildsTable)
        #expect(reports.first == 1_000_000)
        #expect(reports == reports.sorted())
        #expect(try temp.db.value(String.self, "SELECT typeof(capacity) FROM Shelf LIMIT 1") == "integer")
    }
}
