import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class MigratedPerson: Model {
    static let tableName = "person"
    var id: Int64 = 0
    var firstName = ""
    var lastName = ""
    var email: String?
    required init() {}
}

/// The bytes of a file, for "left untouched" checks.
private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

@Suite struct MigratorTests {
    @Test func eachMigrationRunsOnceAndIsRecorded() throws {
        let temp = try TemporaryDatabase()
        let runs = Locked(0)
        var migrator = Migrator()
        migrator.register("0001_create", sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO person(name) VALUES ('Ada Lovelace')")
        migrator.register("0002_split") { db in
            runs.withLock { $0 += 1 }
            try db.execute("ALTER TABLE person ADD COLUMN firstName TEXT NOT NULL DEFAULT ''")
            try db.execute("ALTER TABLE person ADD COLUMN lastName TEXT NOT NULL DEFAULT ''")
            try db.execute("UPDATE person SET firstName = substr(name, 1, instr(name, ' ') - 1), lastName = substr(name, instr(name, ' ') + 1)")
        }
        #expect(try migrator.migrate(temp.db) == ["0001_create", "0002_split"])
        #expect(try migrator.migrate(temp.db) == [])
        #expect(runs.withLock { $0 } == 1)
        let applied = try migrator.appliedMigrations(in: temp.db)
        #expect(applied.map(\.id) == ["0001_create", "0002_split"])
        #expect(applied[0].checksum == Migration.checksum(of: migrator.migrations[0].sql ?? ""))
        #expect(applied[0].checksum?.count == 16)
        #expect(applied[1].checksum == nil)
        #expect(applied[1].appliedAtText.hasSuffix("Z"))

        // Then models sync additively on first use: `email` is added, the migrated data is read.
        let ada = try #require(try temp.db.object(MigratedPerson.self, forKey: 1))
        #expect([ada.firstName, ada.lastName] == ["Ada", "Lovelace"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM pragma_table_info('person') WHERE name = 'email'") == 1)
    }

    @Test func anEditedMigrationIsAnErrorNamingIt() throws {
        let temp = try TemporaryDatabase()
        var first = Migrator()
        first.register("0001_create", sql: "CREATE TABLE t(x)")
        try first.migrate(temp.db)
        var edited = Migrator()
        edited.register("0001_create", sql: "CREATE TABLE t(x, y)")
        edited.register("0002_more", sql: "CREATE TABLE u(x)")
        let error = try #require(throws: MigrationError.self) { try edited.migrate(temp.db) }
        #expect(error.reason == .edited)
        #expect(error.migration == "0001_create")
        #expect(error.description.contains("changed after it ran"))
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'u'") == 0, "nothing ran")
        edited.allowsEditedMigrations = true
        #expect(try edited.migrate(temp.db) == ["0002_more"])
    }

    @Test func anUnknownAppliedMigrationIsAnErrorByDefault() throws {
        let temp = try TemporaryDatabase()
        var newer = Migrator()
        newer.register("0001", sql: "CREATE TABLE t(x)")
        newer.register("0002", sql: "CREATE TABLE u(x)")
        try newer.migrate(temp.db)
        var older = Migrator()
        older.register("0001", sql: "CREATE TABLE t(x)")
        let error = try #require(throws: MigrationError.self) { try older.migrate(temp.db) }
        #expect(error.reason == .unknown)
        #expect(error.migration == "0002")
        older.allowsUnknownMigrations = true
        #expect(try older.migrate(temp.db) == [])
    }

    @Test func aFailingMigrationLeavesTheFileByteIdentical() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001_create", sql: "CREATE TABLE t(x INTEGER NOT NULL); INSERT INTO t VALUES (1), (2)")
        try migrator.migrate(temp.db)
        try temp.db.close()
        let before = try bytes(temp.path)

        let db = try Database(path: temp.path)
        migrator.register("0002_broken", sql: "CREATE TABLE u(y);\nINSERT INTO t VALUES (3);\nUPDATE t SET x = NULL WHERE x = 1;\nINSERT INTO t VALUES (4)")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.reason == .failed)
        #expect(error.migration == "0002_broken")
        #expect(error.sql == "UPDATE t SET x = NULL WHERE x = 1")
        #expect(error.message.contains("NOT NULL constraint failed: t.x"))
        #expect((error.underlying as? DatabaseError)?.code == .constraintNotNull)
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 2)
        try db.close()
        #expect(try bytes(temp.path) == before)
        let walIsEmpty = try !FileManager.default.fileExists(atPath: temp.path + "-wal") || bytes(temp.path + "-wal").isEmpty
        #expect(walIsEmpty)
    }

    @Test func userVersionStepsRunFromTheFilesVersion() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT); PRAGMA user_version = 2")
        let ran = Locked<[Int]>([])
        var migrator = Migrator()
        for version in 1...4 {
            migrator.registerUserVersion(version) { db in
                ran.withLock { $0.append(version) }
                try db.execute("ALTER TABLE note ADD COLUMN c\(version) INTEGER")
            }
        }
        #expect(try migrator.plan(for: temp.db).pending.map(\.id) == ["user_version 3", "user_version 4"])
        try migrator.migrate(temp.db)
        #expect(ran.withLock { $0 } == [3, 4])
        #expect(try temp.db.value(Int.self, "PRAGMA user_version") == 4)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'strata_migrations'") == 0,
                "user_version is the record: the file gains no table")
        try migrator.migrate(temp.db)
        #expect(ran.withLock { $0 } == [3, 4])
    }

    @Test func twoNamespacesCoexist() throws {
        let temp = try TemporaryDatabase()
        var app = Migrator()
        app.register("0001", sql: "CREATE TABLE app_item(x)")
        var plugin = Migrator(namespace: "search-plugin")
        plugin.register("0001", sql: "CREATE TABLE plugin_index(x)")
        #expect(try app.migrate(temp.db) == ["0001"])
        #expect(try plugin.migrate(temp.db) == ["0001"])
        #expect(try app.migrate(temp.db) == [])
        #expect(try plugin.appliedMigrations(in: temp.db).map(\.id) == ["0001"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM strata_migrations") == 2)
    }

    @Test func foreignKeysAreCheckedAtTheEndAndAViolationNamesTheRow() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001", sql: "CREATE TABLE author(id INTEGER PRIMARY KEY); CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(id))")
        // Child first, parent after: fine with deferred checks (the default).
        migrator.register("0002_import", sql: "INSERT INTO book VALUES (1, 7); INSERT INTO author VALUES (7)")
        #expect(try migrator.migrate(temp.db) == ["0001", "0002_import"])

        migrator.register("0003_orphan", sql: "INSERT INTO book VALUES (2, 99)")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.reason == .foreignKeyViolation)
        #expect(error.message.contains("book row 2 points at a missing row of author"))
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 1)

        var immediate = Migrator(namespace: "immediate")
        immediate.register("0001_orphan", foreignKeyChecks: .immediate) { db in try db.execute("INSERT INTO book VALUES (3, 98)") }
        let immediateError = try #require(throws: MigrationError.self) { try immediate.migrate(temp.db) }
        #expect((immediateError.underlying as? DatabaseError)?.code == .constraintForeignKey)
        #expect(immediateError.sql == "INSERT INTO book VALUES (3, 98)")
    }

    @Test(arguments: [ForeignKeyChecks.immediate, .deferred, .disabled])
    func renamingAColumnThatForeignKeysPointAtRewritesTheReferences(checks: ForeignKeyChecks) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE author(id INTEGER PRIMARY KEY); CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(id)); INSERT INTO author VALUES (1); INSERT INTO book VALUES (1, 1)")
        var migrator = Migrator()
        migrator.register("rename", foreignKeyChecks: checks) { db in try db.execute("ALTER TABLE author RENAME COLUMN id TO authorId") }
        try migrator.migrate(temp.db)
        let bookSQL = try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'book'") ?? ""
        #expect(bookSQL == "CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(authorId))")
        #expect(try temp.db.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1, "restored after a .disabled migration")
        try temp.db.execute("DELETE FROM book")
        #expect(throws: DatabaseError.self) { try temp.db.execute("INSERT INTO book VALUES (2, 5)") }
    }

    @Test func aTableRebuildNeedsForeignKeysDisabled() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(id) ON DELETE CASCADE);
            INSERT INTO author VALUES (1, 'A'); INSERT INTO book VALUES (1, 1)
            """)
        var migrator = Migrator()
        migrator.register("rebuild-author", sql: """
            CREATE TABLE author_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO author_new SELECT id, coalesce(name, '') FROM author;
            DROP TABLE author;
            ALTER TABLE author_new RENAME TO author
            """, foreignKeyChecks: .disabled)
        try migrator.migrate(temp.db)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 1, "the drop ran no ON DELETE CASCADE")
    }

    @Test func eraseOnSchemaChangeStartsOverOnlyWhenAsked() throws {
        let temp = try TemporaryDatabase()
        var first = Migrator()
        first.register("0001", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try first.migrate(temp.db)
        try temp.db.execute("CREATE TABLE scratch(y)")
        var changed = Migrator()
        changed.register("0001", sql: "CREATE TABLE t(x, y)")
        #expect(throws: MigrationError.self) { try changed.migrate(temp.db) }
        changed.eraseDatabaseOnSchemaChange = true
        #expect(try changed.plan(for: temp.db).erasesDatabase)
        #expect(try changed.migrate(temp.db) == ["0001"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM t") == 0)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM pragma_table_info('t')") == 2)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'scratch'") == 0)
    }

    @Test func aDryRunShowsTheSQLAndChangesNothing() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001_create", sql: "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT)")
        migrator.register("0002_backfill") { db in try db.execute("INSERT INTO tag(name) VALUES ('a')") }
        let plan = try migrator.plan(for: temp.db)
        #expect(plan.pending.map(\.id) == ["0001_create", "0002_backfill"])
        #expect(plan.description == "-- 0001_create\nCREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT)\n-- 0002_backfill (Swift)")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func aMigrationCanSyncAModelAndOutsideATransactionRunVacuum() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001_people") { db in
            try db.syncSchema(MigratedPerson.self)
            let person = MigratedPerson(); person.firstName = "Grace"
            try db.save(person)
        }
        migrator.register("0002_vacuum", sql: "VACUUM", inTransaction: false)
        #expect(try migrator.migrate(temp.db) == ["0001_people", "0002_vacuum"])
        #expect(try temp.db.objects(MigratedPerson.self).map(\.firstName) == ["Grace"])

        migrator.register("0003_in_transaction", sql: "VACUUM")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.message.contains("cannot VACUUM from within a transaction"))
    }

    @Test func sqlFilesRunInNameOrderWithTheirDirectives() throws {
        let temp = try TemporaryDatabase()
        let folder = temp.folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "CREATE TABLE b(x);".write(to: folder.appendingPathComponent("0002_b.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE a(x);".write(to: folder.appendingPathComponent("0001_a.sql"), atomically: true, encoding: .utf8)
        try "-- strata: no-transaction\nVACUUM;".write(to: folder.appendingPathComponent("0003_vacuum.sql"), atomically: true, encoding: .utf8)
        try "not sql".write(to: folder.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: folder)
        #expect(migrator.migrations.map(\.id) == ["0001_a", "0002_b", "0003_vacuum"])
        #expect(migrator.migrations.map(\.inTransaction) == [true, true, false])
        #expect(try migrator.migrate(temp.db) == ["0001_a", "0002_b", "0003_vacuum"])
    }

    @Test func progressIsReportedForEachMigrationAndForLongOnes() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001", sql: "CREATE TABLE n(i INTEGER)")
        migrator.register("0002_fill", sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) INSERT INTO n SELECT i FROM c")
        var events: [MigrationProgress] = []
        try migrator.migrate(temp.db) { events.append($0) }
        #expect(events.first == .started(id: "0001", index: 1, count: 2))
        #expect(events.last == .finished(id: "0002_fill", index: 2, count: 2))
        #expect(events.contains(.working(id: "0002_fill", steps: 1_000_000)))
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM n") == 200_000)
    }

    @Test func duplicateIdentifiersAndOpenTransactionsAreRefused() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("same", sql: "CREATE TABLE a(x)")
        migrator.register("same", sql: "CREATE TABLE b(x)")
        #expect(try #require(throws: MigrationError.self) { try migrator.plan(for: temp.db) }.reason == .duplicate)
        var single = Migrator()
        single.register("one", sql: "CREATE TABLE a(x)")
        #expect(throws: MigrationError.self) { try temp.db.transaction { try single.migrate(temp.db) } }
    }

    @Test func aPoolMigratesOnItsWriter() async throws {
        let file = try PoolFile(); let pool = file.pool
        var migrator = Migrator()
        migrator.register("0001", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        #expect(try await migrator.migrate(pool) == ["0001"])
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT x FROM t") } == 1)
        #expect(try await migrator.migrate(pool) == [])
    }
}
