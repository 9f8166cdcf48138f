import Foundation
import Strata
import StrataPostgres
import Testing

// The Migrator on a `Database(postgresURL:)` (issue 35, point 7): Swift and SQL-file migrations, each in its
// own transaction (PostgreSQL's DDL is transactional), recorded in `strata_migrations` with a timestamp.

/// A folder of `.sql` files (name -> text), removed after `body`.
func withMigrationFolder<T>(_ files: [String: String], _ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("r35m-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    return try body(folder)
}

/// The `MigrationError` `body` throws, or nil (with a recorded issue) when it throws none or another.
private func migrationError(_ body: () throws -> Void) -> MigrationError? {
    do {
        try body()
        Issue.record("no error was thrown")
    } catch let error as MigrationError {
        return error
    } catch {
        Issue.record("not a MigrationError: \(error)")
    }
    return nil
}

/// Whether the current schema has a table or view of this name.
private func exists(_ db: Database, _ name: String) throws -> Bool {
    try db.value(Bool.self, "SELECT to_regclass(?) IS NOT NULL", name) == true
}

@Suite("PostgreSQL migrations", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresMigrationTests {
    @Test func swiftAndSQLFileMigrationsRunInOrderOnceAndAreRecordedWithATimestamp() throws {
        try withDatabase { db throws in
            try withMigrationFolder([
                "1_create.sql": "CREATE TABLE r35m_author(id bigint PRIMARY KEY, name text NOT NULL);\nCREATE TABLE r35m_book(id bigint PRIMARY KEY, author_id bigint REFERENCES r35m_author(id));",
                "2_seed.sql": "-- seed\nINSERT INTO r35m_author VALUES (1, 'Ann');",
            ]) { folder throws in
                var migrator = Migrator()
                try migrator.registerSQLFiles(in: folder)
                migrator.register("3_swift") { db in
                    try db.execute("ALTER TABLE r35m_author ADD COLUMN shout text")
                    try db.execute("UPDATE r35m_author SET shout = upper(name) WHERE id = ?", 1)
                }
                let started = Date()
                var progress: [MigrationProgress] = []
                #expect(try migrator.migrate(db) { progress.append($0) } == ["1_create", "2_seed", "3_swift"])
                #expect(progress.filter { if case .finished = $0 { true } else { false } }.count == 3)
                #expect(try db.value(String.self, "SELECT shout FROM r35m_author WHERE id = 1") == "ANN")

                let rows = try db.rows("SELECT namespace, id, checksum, pg_typeof(applied_at)::text AS type, "
                                       + "applied_at > now() - interval '1 minute' AS recent FROM strata_migrations ORDER BY seq")
                #expect(rows.map { $0["id"] } == [.text("1_create"), .text("2_seed"), .text("3_swift")])
                #expect(rows.map { $0["namespace"] } == Array(repeating: .text("main"), count: 3))
                #expect(rows.map { $0["checksum"] } == migrator.migrations.map { $0.checksum.map(SQLValue.text) ?? .null })
                #expect(rows[0]["checksum"] != .null && rows[2]["checksum"] == .null)
                #expect(rows.map { $0["type"] } == Array(repeating: .text("timestamp with time zone"), count: 3))
                #expect(rows.map { $0["recent"] } == Array(repeating: .integer(1), count: 3))

                let applied = try migrator.appliedMigrations(in: db)
                #expect(applied.map(\.id) == ["1_create", "2_seed", "3_swift"])
                #expect(applied.allSatisfy { abs($0.appliedAt.timeIntervalSince(started)) < 60 && $0.appliedAtText.hasSuffix("Z") })

                // A second run applies nothing.
                #expect(try migrator.plan(for: db).pending.isEmpty)
                #expect(try migrator.migrate(db).isEmpty)
                #expect(try db.value(Int.self, "SELECT count(*) FROM r35m_author") == 1)
                #expect(try db.value(Int.self, "SELECT count(*) FROM strata_migrations") == 3)
            }
        }
    }

    @Test func aFailingMigrationLeavesNeitherItsTablesNorItsRecordAndNamesItsSQLState() throws {
        try withDatabase { db throws in
            var migrator = Migrator()
            migrator.register("0001_ok", sql: "CREATE TABLE r35m_a(id bigint PRIMARY KEY)")
            migrator.register("0002_bad", sql: "CREATE TABLE r35m_b(id bigint PRIMARY KEY);\nINSERT INTO r35m_missing VALUES (1);")
            let failure = migrationError { try migrator.migrate(db) }
            #expect(failure?.migration == "0002_bad")
            #expect(failure?.reason == .failed)
            #expect((failure?.underlying as? DatabaseError)?.sqlState == "42P01")
            #expect(failure?.description.contains("migration 0002_bad: failed and was rolled back (PostgreSQL error 42P01: ") == true)
            #expect(failure?.description.contains("r35m_missing") == true)
            #expect(try exists(db, "r35m_a"))
            #expect(try exists(db, "r35m_b") == false)
            #expect(try db.column(String.self, "SELECT id FROM strata_migrations ORDER BY seq") == ["0001_ok"])
            #expect(!db.isInTransaction)

            // A Swift migration that throws after its DDL: rolled back too.
            var swift = Migrator(namespace: "r35m-swift")
            swift.register("made-then-threw") { db in
                try db.execute("CREATE TABLE r35m_c(id bigint)")
                try db.execute("INSERT INTO r35m_c VALUES ('not a number')")
            }
            let thrown = migrationError { try swift.migrate(db) }
            #expect(thrown?.migration == "made-then-threw" && thrown?.namespace == "r35m-swift")
            #expect((thrown?.underlying as? DatabaseError)?.sqlState == "22P02")
            #expect(try exists(db, "r35m_c") == false)
            #expect(try swift.appliedMigrations(in: db).isEmpty)
        }
    }

    @Test func twoConnectionsMigratingAtOnceRunEachMigrationOnce() throws {
        try withDatabase { db throws in
            let schema = try db.value(String.self, "SELECT current_schema()") ?? ""
            let url = (postgresURL ?? "") + "&options=-csearch_path%3D" + schema
            var migrator = Migrator()
            migrator.register("1", sql: "CREATE TABLE r35m_runs(who text)")
            migrator.register("2", sql: "SELECT pg_sleep(0.5); INSERT INTO r35m_runs VALUES ('ran')")
            try migrator.migrate(db, upTo: "1")
            let both = migrator
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let handle = try Database(postgresURL: url)
                    defer { try? handle.close() }
                    results.append(.success(try both.migrate(handle)))
                } catch {
                    results.append(.failure(error))
                }
            }
            let ran = results.all.compactMap { try? $0.get() }
            #expect(ran.count == 2, "\(results.all)")
            #expect(ran.flatMap { $0 }.sorted() == ["2"])   // one connection ran it, the other found it applied
            #expect(try db.column(String.self, "SELECT who FROM r35m_runs") == ["ran"])
        }
    }

    @Test func aPoolMigratesOnItsWriter() async throws {
        let setup = try Database(postgresURL: postgresURL ?? "")
        let schema = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try setup.execute("CREATE SCHEMA \(schema)")
        defer {
            try? setup.execute("DROP SCHEMA \(schema) CASCADE")
            try? setup.close()
        }
        let pool = try DatabasePool(postgresURL: (postgresURL ?? "") + "&options=-csearch_path%3D" + schema, readers: 1)
        var migrator = Migrator()
        migrator.register("1", sql: "CREATE TABLE r35m_pool(id bigint)")
        migrator.register("2") { db in try db.execute("INSERT INTO r35m_pool VALUES (?)", 42) }
        let registered = migrator
        #expect(try await registered.migrate(pool) == ["1", "2"])
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT id FROM r35m_pool") } == 42)
        #expect(try await pool.read { db in try registered.appliedMigrations(in: db).map(\.id) } == ["1", "2"])
        try await pool.close()
    }

    @Test func anEditedAppliedMigrationIsRefusedAndUpToStopsAtTheNamedOne() throws {
        try withDatabase { db throws in
            var migrator = Migrator()
            migrator.register("a", sql: "CREATE TABLE r35m_a(id bigint)")
            migrator.register("b", sql: "CREATE TABLE r35m_b(id bigint)")
            migrator.register("c", sql: "CREATE TABLE r35m_c(id bigint)")
            #expect(try migrator.migrate(db, upTo: "b") == ["a", "b"])
            #expect(try exists(db, "r35m_b"))
            #expect(try exists(db, "r35m_c") == false)
            #expect(try migrator.plan(for: db).pending.map(\.id) == ["c"])
            #expect(migrationError { try migrator.migrate(db, upTo: "z") }?.reason == .unknown)

            var edited = Migrator()
            edited.register("a", sql: "CREATE TABLE r35m_a(id bigint, extra text)")
            edited.register("b", sql: "CREATE TABLE r35m_b(id bigint)")
            edited.register("c", sql: "CREATE TABLE r35m_c(id bigint)")
            let refused = migrationError { try edited.migrate(db) }
            #expect(refused?.migration == "a" && refused?.reason == .edited)
            #expect(refused?.message.contains("its SQL changed after it ran on 20") == true)
            #expect(try exists(db, "r35m_c") == false)

            edited.allowsEditedMigrations = true
            #expect(try edited.migrate(db) == ["c"])
            #expect(try db.column(String.self, "SELECT id FROM strata_migrations ORDER BY seq") == ["a", "b", "c"])
        }
    }

    @Test func eraseOnSchemaChangeDropsTablesOthersPointAtAndViewsThenMigratesAgain() throws {
        try withDatabase { db throws in
            var migrator = Migrator()
            migrator.register("1", sql: """
                CREATE TABLE r35m_parent(id bigint PRIMARY KEY);
                CREATE TABLE r35m_child(id bigint PRIMARY KEY, parent_id bigint REFERENCES r35m_parent(id));
                CREATE VIEW r35m_children AS SELECT id FROM r35m_child;
                INSERT INTO r35m_parent VALUES (1); INSERT INTO r35m_child VALUES (1, 1);
                """)
            try migrator.migrate(db)
            var changed = Migrator()
            changed.register("1", sql: "CREATE TABLE r35m_parent(id bigint PRIMARY KEY, name text)")
            changed.eraseDatabaseOnSchemaChange = true
            #expect(try changed.plan(for: db).erasesDatabase)
            #expect(try changed.migrate(db) == ["1"])
            #expect(try exists(db, "r35m_child") == false)
            #expect(try exists(db, "r35m_children") == false)
            #expect(try db.column(String.self, "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'r35m_parent' AND table_schema = current_schema() ORDER BY ordinal_position") == ["id", "name"])
            #expect(try changed.appliedMigrations(in: db).map(\.checksum) == [changed.migrations[0].checksum])
        }
    }

    @Test func foreignKeysAreDeferredWhereDeclaredDeferrableAndAViolationFailsTheMigration() throws {
        try withDatabase { db throws in
            try db.execute("""
                CREATE TABLE r35m_parent(id bigint PRIMARY KEY);
                CREATE TABLE r35m_child(id bigint PRIMARY KEY,
                    parent_id bigint REFERENCES r35m_parent(id) DEFERRABLE INITIALLY IMMEDIATE)
                """)
            var migrator = Migrator()
            // The child first, its parent after: fine when the check waits for the COMMIT.
            migrator.register("child-first", sql: "INSERT INTO r35m_child VALUES (1, 7); INSERT INTO r35m_parent VALUES (7);")
            migrator.register("orphan", sql: "INSERT INTO r35m_child VALUES (2, 99)")
            let failure = migrationError { try migrator.migrate(db) }
            #expect(failure?.migration == "orphan")
            #expect(failure?.reason == .foreignKeyViolation)
            #expect((failure?.underlying as? DatabaseError)?.sqlState == "23503")
            #expect(try db.column(Int.self, "SELECT id FROM r35m_child ORDER BY id") == [1])
            #expect(try migrator.appliedMigrations(in: db).map(\.id) == ["child-first"])

            var immediate = Migrator(namespace: "r35m-immediate")
            immediate.register("child-first", sql: "INSERT INTO r35m_child VALUES (3, 8); INSERT INTO r35m_parent VALUES (8);", foreignKeyChecks: .immediate)
            #expect(migrationError { try immediate.migrate(db) }?.reason == .foreignKeyViolation)
            #expect(try db.value(Int.self, "SELECT count(*) FROM r35m_parent WHERE id = 8") == 0)
        }
    }

    @Test func aNoTransactionFileRunsOutsideATransactionAndUserVersionStepsSayTheyNeedSQLite() throws {
        try withDatabase { db throws in
            try db.execute("CREATE TABLE r35m_big(id bigint, name text)")
            try withMigrationFolder([
                "1_index.sql": "-- strata: no-transaction\nCREATE INDEX CONCURRENTLY r35m_big_name ON r35m_big (name);\n",
            ]) { folder throws in
                var migrator = Migrator()
                try migrator.registerSQLFiles(in: folder)
                #expect(migrator.migrations.map(\.inTransaction) == [false])
                #expect(try migrator.migrate(db) == ["1_index"])   // CONCURRENTLY refuses a transaction block (25001)
                #expect(try db.value(Int.self, "SELECT count(*) FROM pg_indexes WHERE indexname = 'r35m_big_name'") == 1)
                #expect(try migrator.appliedMigrations(in: db).map(\.id) == ["1_index"])
            }
            // Two statements in one text: the server makes them one transaction, which CONCURRENTLY refuses.
            var twoStatements = Migrator(namespace: "r35m-two")
            twoStatements.register("2_two", sql: "CREATE INDEX CONCURRENTLY r35m_big_id ON r35m_big (id); SELECT 1;", inTransaction: false)
            let refusedBlock = migrationError { try twoStatements.migrate(db) }
            #expect((refusedBlock?.underlying as? DatabaseError)?.sqlState == "25001")
            #expect(refusedBlock?.message.contains("the server runs a text of several statements as one transaction: give this statement a file of its own; PostgreSQL error 25001: ") == true)
            var counted = Migrator()
            counted.registerUserVersion(1) { db in try db.execute("CREATE TABLE r35m_counted(id bigint)") }
            let refused = migrationError { try counted.migrate(db) }
            #expect(refused?.migration == "user_version 1")
            #expect(refused?.message == "registerUserVersion steps need SQLite's user_version, which PostgreSQL has not; register it with register(_:) to record it in strata_migrations")
            #expect(try exists(db, "r35m_counted") == false)
        }
    }
}

/// What the threads of a test report, behind a lock.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<[String], any Error>] = []
    func append(_ result: Result<[String], any Error>) { lock.withLock { results.append(result) } }
    var all: [Result<[String], any Error>] { lock.withLock { results } }
}
