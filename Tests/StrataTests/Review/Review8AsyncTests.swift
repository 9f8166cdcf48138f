import Dispatch
import Foundation
import StrataTestSupport
import Testing
@testable import Strata
import CSQLite

// Review 8: relationships and write integrity through the async API and DatabasePool (its writer, its
// readers, observation).

private final class R8Dept: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "dept", orderBy: "name") var employees: [R8Emp]
    required init() {}
}

private final class R8Emp: Model {
    var id: Int64 = 0
    var name = ""
    var count = 0
    @Reference(onDelete: .cascade) var dept: R8Dept?
    required init() {}
}

private final class R8Pet: Model {
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .setNull) var owner: R8Emp?
    required init() {}
}

private final class R8Post: Model {
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "r8_post_tags", from: "post_id", to: "tag_id") var tags: [R8Tag]
    required init() {}
}

private final class R8Tag: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// A pool on a new temporary file with 2 departments x 3 employees, one pet per employee.
private func company(readers: Int = 2) async throws -> (TemporaryDatabase, DatabasePool) {
    let temp = try TemporaryDatabase()
    try temp.db.close()
    let pool = try DatabasePool(path: temp.path, readers: readers)
    try await pool.write { db in
        for d in ["a", "b"] {
            let dept = R8Dept(); dept.name = d
            try db.save(dept)
            for e in 1...3 {
                let emp = R8Emp(); emp.name = "\(d)\(e)"; emp.dept = dept
                try db.save(emp)
                let pet = R8Pet(); pet.name = "pet-\(d)\(e)"; pet.owner = emp
                try db.save(pet)
            }
        }
    }
    return (temp, pool)
}

/// The join table of `R8Post.tags`, with a post and two tags ("swift" paired with the post, "orm" not).
private func blog(_ pool: DatabasePool) async throws {
    try await pool.write { db in
        try db.execute("""
            CREATE TABLE r8_post_tags (id INTEGER PRIMARY KEY,
                post_id INTEGER NOT NULL REFERENCES R8Post (id) ON DELETE CASCADE,
                tag_id INTEGER NOT NULL REFERENCES R8Tag (id) ON DELETE CASCADE, UNIQUE (post_id, tag_id))
            """)
        let post = R8Post(); post.title = "p"; try db.save(post)
        let swift = R8Tag(); swift.name = "swift"; try db.save(swift)
        let orm = R8Tag(); orm.name = "orm"; try db.save(orm)
        try post.$tags.add(swift)
    }
}

@Suite struct Review8AsyncTests {
    // MARK: Defects

    /// An observation whose fetch loads relationships (a `@Children` prefetch, a `@Siblings` array, which
    /// fetch through the models' cached IN / JSON / range statements) made `pool.close()` throw SQLite's
    /// "unable to close due to unfinalized statements": the statements prepared fresh for the authorizer
    /// were kept by the model's table mapping, outside the connection's cache that close finalizes, so the
    /// reader stayed open (and its WAL on disk) while the pool called itself closed.
    @Test func anObservationThatLoadsRelationshipsLetsThePoolClose() async throws {
        let (temp, pool) = try await company(readers: 1)
        try await blog(pool)
        var staff = pool.observe { db in
            try db.objects(R8Dept.self, where: "ORDER BY id", prefetching: ["employees"]).map { $0.employees.map(\.name) }
        }.makeAsyncIterator()
        var tags = pool.observe { db in try db.object(R8Post.self, forKey: 1)?.tags.map(\.name) ?? [] }.makeAsyncIterator()
        #expect(try await staff.next() == [["a1", "a2", "a3"], ["b1", "b2", "b3"]])
        #expect(try await tags.next() == ["swift"])
        // A second fetch of each, after a commit, prepares its statements again (its tables are still seen).
        try await pool.write { db in try db.execute("INSERT INTO R8Emp (name, count, dept) VALUES ('a0', 0, 1)") }
        #expect(try await staff.next() == [["a0", "a1", "a2", "a3"], ["b1", "b2", "b3"]])
        try await pool.write { db in try db.execute("INSERT INTO r8_post_tags (post_id, tag_id) VALUES (1, 2)") }
        #expect(try await tags.next() == ["swift", "orm"])

        try await pool.close()
        // Every connection closed: the last one removed the WAL.
        #expect(!FileManager.default.fileExists(atPath: temp.path + "-wal"))
        let error = await #expect(throws: DatabaseError.self) { try await pool.read { db in try db.count(R8Emp.self) } }
        #expect(error?.message.contains("closed") == true)
        // The observations ended with the pool.
        #expect(try await staff.next() == nil)
        #expect(try await tags.next() == nil)
    }

    /// A close that a statement prepared outside the library keeps from closing a connection throws, takes
    /// no new work, and the next `close()` closes what is still open (before, it did nothing: the reader
    /// stayed open, its WAL on disk).
    @Test func aPoolCloseThatFailedIsTriedAgainByTheNextClose() async throws {
        let (temp, pool) = try await company(readers: 1)
        // A statement the library does not know of, left open on the reader.
        let pending = try await pool.read { db -> Int in
            var statement: OpaquePointer?
            #expect(sqlite3_prepare_v2(db.sqliteHandle, "SELECT count(*) FROM R8Emp", -1, &statement, nil) == SQLITE_OK)
            return Int(bitPattern: statement)
        }
        let failure = await #expect(throws: DatabaseError.self) { try await pool.close() }
        #expect(failure?.code.primary == .busy)
        let refused = await #expect(throws: DatabaseError.self) { try await pool.read { db in try db.count(R8Emp.self) } }
        #expect(refused?.message.contains("closed") == true)
        #expect(FileManager.default.fileExists(atPath: temp.path + "-wal"))

        sqlite3_finalize(OpaquePointer(bitPattern: pending))
        try await pool.close()
        // Every connection closed now: the last one removed the WAL.
        #expect(!FileManager.default.fileExists(atPath: temp.path + "-wal"))
        try await pool.close()   // closed: nothing to do
    }

    // MARK: Guards

    /// Guard: a delete in a pool write that cascades (ON DELETE CASCADE into employees, then SET NULL into
    /// their pets) wakes the observations of the child tables with the new values.
    @Test func cascadesOfAPoolWriteReachObserversOfTheChildTables() async throws {
        let (temp, pool) = try await company()
        _ = temp
        var staff = pool.observe { db in try db.objects(R8Emp.self, where: "ORDER BY name").map(\.name) }.makeAsyncIterator()
        var orphans = pool.observe { db in try db.column(String.self, "SELECT name FROM R8Pet WHERE owner IS NULL ORDER BY name") }.makeAsyncIterator()
        #expect(try await staff.next() == ["a1", "a2", "a3", "b1", "b2", "b3"])
        #expect(try await orphans.next() == [])
        try await pool.write { db in
            let a = try #require(try db.objects(R8Dept.self, where: "name = 'a'").first)
            #expect(try db.delete(a))
        }
        #expect(try await staff.next() == ["b1", "b2", "b3"])
        #expect(try await orphans.next() == ["pet-a1", "pet-a2", "pet-a3"])
        try await pool.close()
    }

    /// Guard: `@Siblings` add and remove in the writer, and a target's delete that cascades into the join
    /// table, wake an observation that reads the array on a reader.
    @Test func siblingsWritesInThePoolWakeAnObservationOfTheArray() async throws {
        let (temp, pool) = try await company(readers: 1)
        _ = temp
        try await blog(pool)
        var tags = pool.observe { db in try db.object(R8Post.self, forKey: 1)?.tags.map(\.name) ?? [] }.makeAsyncIterator()
        #expect(try await tags.next() == ["swift"])
        try await pool.write { db in
            let post = try #require(try db.object(R8Post.self, forKey: 1))
            try post.$tags.add(try #require(try db.object(R8Tag.self, forKey: 2)))
        }
        #expect(try await tags.next() == ["swift", "orm"])
        try await pool.write { db in
            let post = try #require(try db.object(R8Post.self, forKey: 1))
            try post.$tags.remove(try #require(try db.object(R8Tag.self, forKey: 1)))
        }
        #expect(try await tags.next() == ["orm"])
        try await pool.write { db in
            let orm = try #require(try db.object(R8Tag.self, forKey: 2))
            #expect(try db.delete(orm))
        }
        #expect(try await tags.next() == [])
        try await pool.close()
    }

    /// Guard: faults and prefetch inside a pool read cost what the README says (one batched query for the
    /// employees' departments, read twice; one per prefetch level), on a reader that met the models before.
    @Test func faultsAndPrefetchInAPoolReadCostOneQueryPerLevel() async throws {
        let (temp, pool) = try await company(readers: 1)
        _ = temp
        _ = try await pool.read { db in (try db.count(R8Emp.self), try db.count(R8Dept.self)) }
        let (names, statements) = try await pool.read { db -> ([String], [String]) in
            var seen: [String] = []
            let trace = db.traceStatements { seen.append($0) }
            defer { trace.cancel() }
            let employees = try db.objects(R8Emp.self, where: "ORDER BY id")
            var names = employees.map { $0.dept?.name ?? "-" }
            names += employees.map { $0.dept?.name ?? "-" }
            let departments = try db.objects(R8Dept.self, where: "ORDER BY id", prefetching: ["employees"])
            names += departments.map { $0.employees.map(\.name).joined(separator: ",") }
            return (names, seen)
        }
        #expect(names == ["a", "a", "a", "b", "b", "b", "a", "a", "a", "b", "b", "b", "a1,a2,a3", "b1,b2,b3"])
        #expect(statements.count == 4)
        try await pool.close()
    }

    /// Guard: a closed pool refuses the calls the older close tests did not cover — a new value
    /// observation (its stream throws), a new change stream (it ends at once), a backup, an async schema
    /// sync — each with an error that says the pool is closed; a change stream open at close ends.
    @Test func aClosedPoolRefusesObservationStreamsAndBackupsSayingSo() async throws {
        let (temp, pool) = try await company(readers: 1)
        var open = pool.changes(of: R8Emp.self).makeAsyncIterator()
        try await pool.close()
        #expect(await open.next() == nil)
        var observation = pool.observe { db in try db.count(R8Emp.self) }.makeAsyncIterator()
        let observed = await #expect(throws: DatabaseError.self) { _ = try await observation.next() }
        #expect(observed?.message.contains("closed") == true)
        var changes = pool.changes(of: R8Emp.self).makeAsyncIterator()
        #expect(await changes.next() == nil)
        let backup = #expect(throws: DatabaseError.self) { try pool.backup(to: temp.folder.appendingPathComponent("copy.sqlite").path) }
        #expect(backup?.message.contains("closed") == true)
        #expect(!FileManager.default.fileExists(atPath: temp.folder.appendingPathComponent("copy.sqlite").path))
        let sync = await #expect(throws: DatabaseError.self) { try await pool.syncSchema(R8Tag.self) }
        #expect(sync?.message.contains("closed") == true)
        let write = await #expect(throws: DatabaseError.self) { try await pool.write { db in try db.save(R8Tag()) } }
        #expect(write?.message.contains("closed") == true)
    }

    /// Guard: a pool write cancelled while its batch save runs (the third UPDATE's trigger is interrupted)
    /// throws CancellationError and keeps nothing: SQLite rolled the whole transaction back, the closure's
    /// later statements throw instead of running in autocommit, and no row changed.
    @Test func aWriteCancelledDuringABatchSaveKeepsNothing() async throws {
        let (temp, pool) = try await company(readers: 1)
        _ = temp
        let gate = Gate()
        try await pool.write { db in
            try db.execute("""
                CREATE TABLE r8_log (x);
                CREATE TRIGGER r8_pause AFTER UPDATE ON R8Emp WHEN NEW.name = 'a3' BEGIN
                    SELECT r8_pause();
                    INSERT INTO r8_log SELECT max(x) FROM (WITH RECURSIVE c(x) AS (VALUES (1) UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x FROM c);
                END
                """)
        }
        struct Seen: Sendable { var error = "", freshID: Int64 = -1, inTransaction = true, laterRaw = "", laterSave = "" }
        let seen = Locked(Seen())
        let task = Task {
            try await pool.write { db in
                gate.install(on: db)
                let employees = try db.objects(R8Emp.self, where: "ORDER BY id")
                let a = try #require(try db.object(R8Dept.self, forKey: 1))
                for employee in employees { employee.count += 10 }
                let fresh = R8Emp(); fresh.name = "new"; fresh.dept = a
                do {
                    try db.save([fresh] + employees)
                } catch {
                    seen.withLock { $0.error = "\(error)"; $0.freshID = fresh.id; $0.inTransaction = db.isInTransaction }
                    do { try db.execute("INSERT INTO r8_log VALUES (1)") } catch { seen.withLock { $0.laterRaw = "\(error)" } }
                    do { try db.save(R8Emp()) } catch { seen.withLock { $0.laterSave = "\(error)" } }
                }
            }
        }
        await gate.reached()
        task.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await task.value }
        let result = seen.withLock { $0 }
        #expect(result.error.contains("interrupted"))
        #expect(result.freshID == 0 && !result.inTransaction)
        #expect(result.laterRaw.contains("rolled back") && result.laterSave.contains("rolled back"))
        let rows = try await pool.read { db in
            (try db.column(Int.self, "SELECT count FROM R8Emp ORDER BY id"), try db.value(Int.self, "SELECT count(*) FROM r8_log"))
        }
        #expect(rows.0 == [0, 0, 0, 0, 0, 0] && rows.1 == 0)
        try await pool.close()
    }
}

/// Registers `r8_pause()` on a handle: the SQL that calls it signals `reached` and waits for `open`.
private final class Gate: Sendable {
    let arrived = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_create_function_v2(db.sqliteHandle, "r8_pause", 0, SQLITE_UTF8, context, { ctx, _, _ in
            let gate = Unmanaged<Gate>.fromOpaque(sqlite3_user_data(ctx)!).takeUnretainedValue()
            gate.arrived.signal()
            gate.go.wait()
            sqlite3_result_null(ctx)
        }, nil, nil, nil)
    }
    func reached() async {
        await withCheckedContinuation { c in DispatchQueue.global().async { self.arrived.wait(); c.resume() } }
    }
    func open() { go.signal() }
}

