import Foundation
import Strata
import StrataPostgres
import Testing

// Observation on PostgreSQL: a pool's (and a handle's) own commits reach `changes(of:)`, `observeChanges`
// and value observations. Saves name their rows by key and the properties they wrote; what else the
// transaction wrote (raw SQL, a cascade, TRUNCATE) is reported by table, rows unknown (`listsEveryRow`
// false). Rolled-back writes never appear.

private final class PGObsParent: Model {
    static let tableName = "obs_parent"
    var id: Int64 = 0
    var name = ""
    var rank = 0
    required init() {}
}

private final class PGObsChild: Model {
    static let tableName = "obs_child"
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var parent: PGObsParent?
    required init() {}
}

private final class PGObsTag: Model {
    static let tableName = "obs_tag"
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

private func next(_ iterator: inout AsyncStream<DatabaseChange>.Iterator) async -> DatabaseChange? {
    await iterator.next()
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("PostgreSQL observation", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresObservationTests {
    @Test func aPoolsOwnCommitsReachChangesByKeyWithTheProperties() async throws {
        try await withPool { pool in
            try await pool.write { db in _ = try db.syncSchema(PGObsParent.self); _ = try db.syncSchema(PGObsChild.self); _ = try db.syncSchema(PGObsTag.self) }
            var parents = pool.changes(of: PGObsParent.self).makeAsyncIterator()
            var all = pool.changes(ofTables: nil).makeAsyncIterator()

            // Inserts: the keys the engine assigned.
            try await pool.write { db in
                for name in ["ada", "grace"] {
                    let parent = PGObsParent()
                    parent.name = name
                    try db.save(parent)
                }
            }
            let inserted = try #require(await next(&parents))
            #expect(inserted.table == "obs_parent" && inserted.modelType == PGObsParent.self)
            #expect(inserted.insertedRowIDs == [1, 2] && inserted.updatedRowIDs.isEmpty && inserted.deletedRowIDs.isEmpty)
            #expect(inserted.insertedRows == [.integer(1), .integer(2)] && inserted.listsEveryRow)
            _ = await next(&all)

            // An update names its row and properties; a delete its row; a rolled-back savepoint is not there.
            try await pool.write { db in
                let ada = try #require(try db.object(PGObsParent.self, forKey: 1))
                ada.rank = 3
                try db.save(ada)
                try db.delete(try #require(try db.object(PGObsParent.self, forKey: 2)))
                try? db.transaction {
                    let ghost = PGObsParent()
                    ghost.name = "ghost"
                    try db.save(ghost)
                    throw CancellationError()
                }
            }
            let updated = try #require(await next(&parents))
            #expect(updated.updatedRowIDs == [1] && updated.updatedProperties[1] == ["rank"])
            #expect(updated.deletedRowIDs == [2] && updated.insertedRowIDs.isEmpty && updated.listsEveryRow)
            _ = await next(&all)

            // A rolled-back transaction publishes nothing; the next commit is the next element.
            await #expect(throws: CancellationError.self) {
                try await pool.write { db in
                    try db.execute("INSERT INTO obs_parent(name, rank) VALUES ('lost', 0)")
                    throw CancellationError()
                }
            }
            // Raw SQL: the table, rows unknown.
            try await pool.write { db in try db.execute("UPDATE obs_parent SET rank = rank + 1") }
            let raw = try #require(await next(&parents))
            #expect(raw.table == "obs_parent" && !raw.listsEveryRow && raw.updatedRowIDs.isEmpty && raw.updatedProperties.isEmpty)
            _ = await next(&all)

            // A text key names its rows as text.
            try await pool.write { db in
                let tag = PGObsTag()
                tag.code = "swift"
                try db.save(tag)
            }
            let tag = try #require(await next(&all))
            #expect(tag.table == "obs_tag" && tag.insertedRows == [.text("swift")] && tag.insertedRowIDs.isEmpty && tag.listsEveryRow)
        }
    }

    @Test func cascadesAndTruncateAreReportedByTableAndAutocommitWritesToo() async throws {
        try await withPool { pool in
            try await pool.write { db in
                _ = try db.syncSchema(PGObsParent.self); _ = try db.syncSchema(PGObsChild.self)
                let parent = PGObsParent()
                parent.name = "p"
                try db.save(parent)
                let child = PGObsChild()
                child.title = "c"
                child.parent = parent
                try db.save(child)
            }
            var all = pool.changes(ofTables: nil).makeAsyncIterator()
            // Deleting the parent cascades to the child: both tables, the child's rows unknown.
            try await pool.write { db in try db.delete(try #require(try db.object(PGObsParent.self, forKey: 1))) }
            let first = try #require(await next(&all)), second = try #require(await next(&all))
            let byTable = Dictionary(uniqueKeysWithValues: [first, second].map { ($0.table, $0) })
            #expect(byTable["obs_parent"]?.deletedRowIDs == [1] && byTable["obs_parent"]?.listsEveryRow == true)
            #expect(byTable["obs_child"]?.listsEveryRow == false && byTable["obs_child"]?.deletedRowIDs == [])
            // TRUNCATE moves no counter: the tables it names are reported.
            try await pool.write { db in try db.execute("INSERT INTO obs_parent(name, rank) VALUES ('q', 0)") }
            _ = await next(&all)
            try await pool.write { db in try db.execute("TRUNCATE \"obs_child\", ONLY obs_parent RESTART IDENTITY") }
            var truncated: Set<String> = []
            for _ in 0..<2 { truncated.insert(try #require(await next(&all)).table) }
            #expect(truncated == ["obs_parent", "obs_child"])
        }
        // A plain handle: writes outside a transaction are observed too (each in a transaction of its own).
        try withDatabase { db in
            _ = try db.syncSchema(PGObsParent.self)
            var seen: [[DatabaseChange]] = []
            let observation = db.observeChanges { seen.append($0) }
            let parent = PGObsParent()
            parent.name = "solo"
            try db.save(parent)
            try db.execute("UPDATE obs_parent SET rank = 7")
            try db.delete(parent)
            observation.cancel()
            try db.execute("DELETE FROM obs_parent")
            #expect(seen.count == 3)
            #expect(seen.first?.first?.insertedRowIDs == [1])
            #expect(seen.dropFirst().first?.first.map { !$0.listsEveryRow && $0.table == "obs_parent" } == true)
            #expect(seen.last?.first?.deletedRowIDs == [1])
            #expect(!db.isInTransaction)
        }
    }

    @Test func valueObservationsRunAgainAfterEachCommitOfWhatTheyRead() async throws {
        try await withPool { pool in
            try await pool.write { db in _ = try db.syncSchema(PGObsParent.self); _ = try db.syncSchema(PGObsTag.self) }
            let runs = Counter()
            var names = pool.observe { db -> [String] in
                runs.increment()
                return try db.objects(PGObsParent.self, where: "ORDER BY id").map(\.name)
            }.makeAsyncIterator()
            #expect(try await names.next() == [])
            try await pool.write { db in
                let parent = PGObsParent()
                parent.name = "ada"
                try db.save(parent)
            }
            #expect(try await names.next() == ["ada"])
            try await pool.write { db in try db.execute("UPDATE obs_parent SET name = 'lovelace'") }
            #expect(try await names.next() == ["lovelace"])
            // A commit to a table the fetch did not read runs nothing; the next one that did, once.
            let before = runs.value
            try await pool.write { db in
                let tag = PGObsTag()
                tag.code = "t"
                try db.save(tag)
            }
            try await pool.write { db in try db.execute("INSERT INTO obs_parent(name, rank) VALUES ('grace', 0)") }
            #expect(try await names.next() == ["lovelace", "grace"])
            #expect(runs.value == before + 1)

            // Raw SQL in the fetch: any commit runs it again (the engine does not say which tables it read).
            var counts = pool.observe { db in try db.value(Int.self, "SELECT count(*) FROM obs_parent") ?? -1 }.makeAsyncIterator()
            #expect(try await counts.next() == 2)
            try await pool.write { db in try db.execute("DELETE FROM obs_parent WHERE name = 'grace'") }
            #expect(try await counts.next() == 1)
        }
    }

    @Test func anotherProcessesCommitsReachThePoolOnceItsTriggersAreInstalled() async throws {
        try await withPool { pool in
            try await withWatchdog {
                try await pool.installChangeNotifications(for: [PGObsParent.self, PGObsTag.self])
                let schema = try await pool.read { db in try db.value(String.self, "SELECT current_schema()") ?? "" }
                var all = pool.changes(ofTables: nil).makeAsyncIterator()
                var values = pool.observe { db in try db.objects(PGObsParent.self, where: "ORDER BY id").map(\.name) }.makeAsyncIterator()
                #expect(try await values.next() == [])

                // A second process (psql) inserts two rows and updates one, in one transaction: one change.
                try psql(schema, "BEGIN; INSERT INTO obs_parent(name, rank) VALUES ('x', 0), ('y', 0); UPDATE obs_parent SET rank = 1 WHERE name = 'x'; COMMIT;")
                let inserted = try #require(await next(&all))
                #expect(inserted.table == "obs_parent" && inserted.insertedRowIDs == [1, 2] && inserted.updatedRowIDs.isEmpty)
                #expect(inserted.listsEveryRow && inserted.modelType == nil && inserted.updatedProperties.isEmpty)
                #expect(try await values.next() == ["x", "y"])

                // Its rolled-back transaction sends nothing; its delete names the row.
                try psql(schema, "BEGIN; DELETE FROM obs_parent; ROLLBACK; DELETE FROM obs_parent WHERE name = 'y';")
                let deleted = try #require(await next(&all))
                #expect(deleted.deletedRowIDs == [2] && deleted.insertedRowIDs.isEmpty && deleted.updatedRowIDs.isEmpty)
                #expect(try await values.next() == ["x"])

                // The pool's own commit comes once (from its writer, with the model type); then another
                // process's insert of a text key.
                try await pool.write { db in
                    let tag = PGObsTag()
                    tag.code = "own"
                    try db.save(tag)
                }
                let own = try #require(await next(&all))
                #expect(own.table == "obs_tag" && own.insertedRows == [.text("own")] && own.modelType == PGObsTag.self)
                try psql(schema, "INSERT INTO obs_tag(code, label) VALUES ('theirs', '')")
                let theirs = try #require(await next(&all))
                #expect(theirs.table == "obs_tag" && theirs.insertedRows == [.text("theirs")] && theirs.modelType == nil)

                // TRUNCATE names the table only.
                try psql(schema, "TRUNCATE obs_tag")
                let truncated = try #require(await next(&all))
                #expect(truncated.table == "obs_tag" && !truncated.listsEveryRow)

                // Removed: the four triggers of each table are gone, nothing else.
                try await pool.removeChangeNotifications(for: [PGObsParent.self, PGObsTag.self])
                let triggers = try await pool.read { db in
                    try db.value(Int.self, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'strata_notify_%' AND tgrelid IN (to_regclass('obs_parent'), to_regclass('obs_tag'))")
                }
                #expect(triggers == 0)
            }
        }
    }
}

/// Runs `sql` in another process: psql, on the test server, in `schema`.
private func psql(_ schema: String, _ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/lib/postgresql/15/bin/psql")
    let url = (postgresURL ?? "") + "&options=-csearch_path%3D" + schema
    process.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "psql failed: \(sql)")
}
