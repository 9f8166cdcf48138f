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

