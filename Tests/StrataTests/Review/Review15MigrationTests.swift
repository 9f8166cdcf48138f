import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 15 (second reader of migrations): all or nothing over every kind of failure, live instances
// across migrations, `.sql` files as editors write them, dry runs, pools.

final class R15Person: Model {
    static let tableName = "r15_person"
    var id: Int64 = 0
    var name = ""
    var score = 0
    required init() {}
}

/// The bytes of a file.
func r15Bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

/// Every row of every table, and the schema, as text: "the same as before" checks.
func r15Dump(_ db: Database) throws -> [String] {
    var lines = try db.column(String.self, "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
    for table in try db.column(String.self, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
        let columns = try db.column(String.self, "SELECT name FROM pragma_table_info(?)", table)
        let list = columns.map { "quote(\(SQL.quote($0)))" }.joined(separator: " || ',' || ")
        lines += try db.column(String.self, "SELECT '\(table): ' || \(list) FROM \(SQL.quote(table)) ORDER BY rowid")
    }
    lines.append("user_version \(try db.value(Int.self, "PRAGMA user_version") ?? -1)")
    return lines
}

/// A migrations folder in `temp`'s folder with `files` (name: contents).
func r15Folder(_ temp: TemporaryDatabase, _ files: [String: String]) throws -> URL {
    let folder = temp.folder.appendingPathComponent("migrations")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
    return folder
}

let r15AuthorBook = """
    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(id) ON DELETE CASCADE);
    INSERT INTO author VALUES (1, 'A'); INSERT INTO book VALUES (1, 1), (2, 1)
    """

/// SQLite's documented table rebuild, as a user copies it into a migration (without the BEGIN/COMMIT the
/// migrator owns).
let r15RebuildWithPragma = """
    PRAGMA foreign_keys = OFF;
    CREATE TABLE author_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
    INSERT INTO author_new SELECT id, coalesce(name, '') FROM author;
    DROP TABLE author;
    ALTER TABLE author_new RENAME TO author;
    PRAGMA foreign_keys = ON
    """

@Suite struct Review15MigrationTests {
    // MARK: PRAGMA foreign_keys in a migration

    /// `PRAGMA foreign_keys = OFF` is a no-op inside a transaction: a migration following SQLite's rebuild
    /// recipe would run the children's ON DELETE CASCADE in its DROP TABLE, silently. With foreign keys on
    /// during the migration (`.immediate`; the default turns them off, Review17SchemaChangeTests) it is
    /// refused, naming the way that works; nothing changes.
    @Test func aPragmaForeignKeysOffInsideATransactionalMigrationIsRefusedAndLosesNoRows() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(r15AuthorBook)
        let before = try r15Dump(temp.db)
        var migrator = Migrator()
        migrator.register("0002_rebuild", sql: r15RebuildWithPragma, foreignKeyChecks: .immediate)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.migration == "0002_rebuild")
        #expect(error.reason == .failed)
        #expect(error.sql == "PRAGMA foreign_keys = OFF", "the refused statement, not the whole script")
        #expect((error.underlying as? DatabaseError)?.code.rawValue == 23, "SQLITE_AUTH")
        #expect(error.message.contains("SQLite ignores it there"), "\(error)")
        #expect(error.message.contains("foreignKeyChecks: .disabled"), "\(error)")
        #expect(try r15Dump(temp.db) == before)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1)
        #expect(try migrator.appliedMigrations(in: temp.db).isEmpty)
        // Outside migrations, and reading the setting or setting it on, stay allowed.
        try temp.db.transaction { try temp.db.execute("PRAGMA foreign_keys = 0") }
        var reading = Migrator(namespace: "reading")
        reading.register("0001", foreignKeyChecks: .immediate) { db in
            #expect(try db.value(Int.self, "PRAGMA foreign_keys") == 1)
            try db.execute("PRAGMA foreign_keys = ON; PRAGMA main.foreign_keys = yes")
        }
        #expect(try reading.migrate(temp.db) == ["0001"])
    }

    @Test(arguments: ["PRAGMA foreign_keys = OFF", "PRAGMA foreign_keys=0", "pragma MAIN.Foreign_Keys = 'no'", "PRAGMA foreign_keys = false"])
    func aSwiftMigrationTurningForeignKeysOffIsRefusedAndLosesNoRows(pragma: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(r15AuthorBook)
        let before = try r15Dump(temp.db)
        var migrator = Migrator()
        migrator.register("0002_rebuild", foreignKeyChecks: .immediate) { db in
            try db.execute(r15RebuildWithPragma.replacingOccurrences(of: "PRAGMA foreign_keys = OFF", with: pragma))
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.message.contains("inside a migration's transaction is not allowed"), "\(error)")
        #expect(try r15Dump(temp.db) == before)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1)
    }

    /// Outside a transaction the pragma works; the connection's setting comes back after the migration.
    @Test func aNoTransactionMigrationTurningForeignKeysOffGetsThemBackAfter() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(r15AuthorBook)
        var migrator = Migrator()
        migrator.register("0002_rebuild", sql: r15RebuildWithPragma.replacingOccurrences(of: "PRAGMA foreign_keys = ON", with: "SELECT 1"),
                          inTransaction: false)
        #expect(try migrator.migrate(temp.db) == ["0002_rebuild"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 2)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1)
    }

    /// With `.disabled` (the documented way) the same SQL, pragmas included, keeps every row.
    @Test func theSameRebuildWithForeignKeysDisabledKeepsEveryRow() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(r15AuthorBook)
        var migrator = Migrator()
        migrator.register("0002_rebuild", sql: r15RebuildWithPragma, foreignKeyChecks: .disabled)
        #expect(try migrator.migrate(temp.db) == ["0002_rebuild"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 2)
        #expect(try temp.db.value(Int.self, "PRAGMA foreign_keys") == 1)
    }

    // MARK: .sql files as editors write them

    @Test func aFileWithAByteOrderMarkRunsAndKeepsItsDirectives() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001_create.sql": "\u{FEFF}CREATE TABLE t(x);\n",
                                    "0002_vacuum.sql": "\u{FEFF}-- strata: no-transaction\nVACUUM;\n"])
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: url)
        #expect(migrator.migrations.map(\.inTransaction) == [true, false])
        #expect(try migrator.migrate(temp.db) == ["0001_create", "0002_vacuum"])
    }

    @Test func oddFileNamesRunInNameOrderAndOthersAreIgnored() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001 create table.sql": "CREATE TABLE a(x);",
                                    "0002_naïve_café.sql": "CREATE TABLE b(x);",
                                    "0002_second.sql": "CREATE TABLE c(x);",
                                    "notes.txt": "not sql", "0003.sql.bak": "DROP TABLE a;"])
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: url)
        #expect(migrator.migrations.map(\.id) == ["0001 create table", "0002_naïve_café", "0002_second"])
        #expect(try migrator.migrate(temp.db) == ["0001 create table", "0002_naïve_café", "0002_second"])
        #expect(try migrator.appliedMigrations(in: temp.db).map(\.id) == ["0001 create table", "0002_naïve_café", "0002_second"])
    }

    // MARK: All or nothing

    @Test func anotherHandleHoldingTheWriteLockFailsTheMigrationCleanly() throws {
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let temp = try TemporaryDatabase(configuration: configuration)
        var migrator = Migrator()
        migrator.register("0001", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try migrator.migrate(temp.db)
        let before = try r15Dump(temp.db)
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        try other.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (99)")
        migrator.register("0002", sql: "INSERT INTO t VALUES (2); CREATE TABLE u(y)")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.migration == "0002")
        #expect((error.underlying as? DatabaseError)?.code.primary == .busy)
        #expect(error.message.contains("SQLite error 5"), "\(error)")
        #expect(error.message.contains("locked"), "\(error)")
        try other.execute("ROLLBACK")
        #expect(try r15Dump(temp.db) == before)
        #expect(!temp.db.isInTransaction)
        #expect(try migrator.migrate(temp.db) == ["0002"])
    }

    @Test func aSwiftMigrationThatThrowsAfterWritingUndoesItsWritesAndLiveInstances() throws {
        struct Stop: Error {}
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 1
        try temp.db.save(ada)
        let before = try r15Dump(temp.db)
        var migrator = Migrator()
        migrator.register("0001_touch") { db in
            let ada = try #require(try db.object(R15Person.self, forKey: 1))
            ada.score = 50
            try db.save(ada)
            try db.execute("UPDATE r15_person SET name = 'Grace'")
            let extra = R15Person(); extra.name = "Extra"
            try db.save(extra)
            try db.execute("CREATE TABLE side(x)")
            throw Stop()
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.migration == "0001_touch")
        #expect(error.underlying is Stop)
        #expect(try r15Dump(temp.db) == before)
        #expect(ada.name == "Ada")
        #expect(ada.score == 1 || ada.hasChanges, "saved in the rolled-back block: reads its row again")
        #expect(try temp.db.objects(R15Person.self).map(\.name) == ["Ada"])
        #expect(try migrator.appliedMigrations(in: temp.db).isEmpty)
    }

    @Test func aUserVersionStepThatFailsKeepsTheVersion() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE note(x); PRAGMA user_version = 1")
        let before = try r15Dump(temp.db)
        var migrator = Migrator()
        migrator.registerUserVersion(2) { db in
            try db.execute("ALTER TABLE note ADD COLUMN y")
            try db.execute("INSERT INTO nosuch VALUES (1)")
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.migration == "user_version 2")
        #expect(error.sql == "INSERT INTO nosuch VALUES (1)")
        #expect(try r15Dump(temp.db) == before)
    }

    // MARK: Live instances

    @Test func liveInstancesFollowAMigrationsUpdatesAndDeletes() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 1
        let bob = R15Person(); bob.name = "Bob"; bob.score = 2
        try temp.db.save(ada); try temp.db.save(bob)
        var migrator = Migrator()
        migrator.register("0001_backfill", sql: "UPDATE r15_person SET score = score * 10; DELETE FROM r15_person WHERE name = 'Bob'")
        migrator.register("0002_swift") { db in try db.execute("UPDATE r15_person SET name = upper(name)") }
        try migrator.migrate(temp.db)
        #expect(ada.score == 10)
        #expect(ada.name == "ADA")
        #expect(!ada.hasChanges)
        #expect(bob.isDeleted)
    }

    @Test func aFailedMigrationLeavesLiveInstancesWithTheirRows() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 1
        try temp.db.save(ada)
        var migrator = Migrator()
        migrator.register("0001_half", sql: "UPDATE r15_person SET score = 99; DELETE FROM r15_person; INSERT INTO nosuch VALUES (1)")
        #expect(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(ada.score == 1)
        #expect(!ada.isDeleted)
        #expect(!ada.hasChanges)
        ada.score = 2
        try temp.db.save(ada)
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15_person") == 2)
    }

    @Test func aRenamedColumnIsReadByAModelDeclaredForItAfterTheMigration() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r15_person(id INTEGER PRIMARY KEY, fullName TEXT NOT NULL DEFAULT '', score INTEGER NOT NULL DEFAULT 0); INSERT INTO r15_person VALUES (1, 'Ada', 3)")
        var migrator = Migrator()
        migrator.register("0001_rename", sql: "ALTER TABLE r15_person RENAME COLUMN fullName TO name")
        try migrator.migrate(temp.db)
        let ada = try #require(try temp.db.object(R15Person.self, forKey: 1))
        #expect(ada.name == "Ada")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM pragma_table_info('r15_person')") == 3)
    }

    /// The model synced (and cached its mapping) before the migration rebuilt its table.
    @Test func aModelSyncedBeforeAMigrationSeesTheTableItLeft() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 4
        try temp.db.save(ada)
        var migrator = Migrator()
        migrator.register("0001_rebuild", sql: """
            CREATE TABLE r15_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', score INTEGER NOT NULL DEFAULT 0, extra TEXT DEFAULT 'x');
            INSERT INTO r15_new(id, name, score) SELECT id, name, score FROM r15_person;
            DROP TABLE r15_person;
            ALTER TABLE r15_new RENAME TO r15_person
            """)
        try migrator.migrate(temp.db)
        let fresh = R15Person(); fresh.name = "Bob"
        try temp.db.save(fresh)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || extra FROM r15_person ORDER BY id") == ["Ada:x", "Bob:x"])
        ada.score = 5
        try temp.db.save(ada)
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15_person WHERE id = 1") == 5)
    }

    // MARK: Dry runs, namespaces, pools

    @Test func aPlanWritesNothingEvenWhenItWouldErase() throws {
        let temp = try TemporaryDatabase()
        var first = Migrator()
        first.register("0001", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try first.migrate(temp.db)
        let watcher = try Database(path: temp.path)
        defer { try? watcher.close() }
        let version = try watcher.value(Int.self, "PRAGMA data_version")
        try temp.db.close()
        let before = try r15Bytes(temp.path)
        let db = try Database(path: temp.path)
        defer { try? db.close() }
        var changed = Migrator()
        changed.register("0001", sql: "CREATE TABLE t(x, y)")
        changed.register("0002", sql: "CREATE TABLE u(x)")
        changed.eraseDatabaseOnSchemaChange = true
        let plan = try changed.plan(for: db)
        #expect(plan.erasesDatabase)
        #expect(plan.pending.map(\.id) == ["0001", "0002"])
        var fresh = Migrator(namespace: "other")
        fresh.register("0001", sql: "CREATE TABLE v(x)")
        #expect(try fresh.plan(for: db).pending.map(\.id) == ["0001"])
        #expect(try watcher.value(Int.self, "PRAGMA data_version") == version)
        try db.close()
        #expect(try r15Bytes(temp.path) == before)
    }

    @Test func twoNamespacesWithTheSameIdentifiersAndOrder() throws {
        let temp = try TemporaryDatabase()
        var app = Migrator()
        app.register("0001", sql: "CREATE TABLE a(x)")
        app.register("0002", sql: "CREATE TABLE b(x)")
        var plugin = Migrator(namespace: "plugin")
        plugin.register("0002", sql: "CREATE TABLE p2(x)")
        plugin.register("0001", sql: "CREATE TABLE p1(x)")
        #expect(try app.migrate(temp.db) == ["0001", "0002"])
        #expect(try plugin.migrate(temp.db) == ["0002", "0001"], "another namespace's order is its own")
        // A failing plugin migration leaves the app's records alone.
        plugin.register("0003", sql: "INSERT INTO nosuch VALUES (1)")
        #expect(throws: MigrationError.self) { try plugin.migrate(temp.db) }
        #expect(try app.appliedMigrations(in: temp.db).map(\.id) == ["0001", "0002"])
        #expect(try plugin.appliedMigrations(in: temp.db).map(\.id) == ["0002", "0001"])
        #expect(try app.migrate(temp.db) == [])
    }

    @Test func aPoolMigratesWhileReadersHoldInstancesAndThenSeesTheNewSchema() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        try await pool.write { db in
            let ada = R15Person(); ada.name = "Ada"; ada.score = 1
            try db.save(ada)
        }
        let held = try await pool.read { db in try db.objects(R15Person.self).map(\.score) }
        #expect(held == [1])
        var migrator = Migrator()
        migrator.register("0001_backfill", sql: "UPDATE r15_person SET score = 7; ALTER TABLE r15_person ADD COLUMN extra TEXT DEFAULT 'x'")
        #expect(try await migrator.migrate(pool) == ["0001_backfill"])
        #expect(try await pool.read { db in try db.objects(R15Person.self).map(\.score) } == [7])
        #expect(try await pool.read { db in try db.value(String.self, "SELECT extra FROM r15_person") } == "x")
        #expect(try await pool.write { db in try db.objects(R15Person.self).map(\.score) } == [7])
        try await pool.close()
    }
}

// A statement SQLite cannot prepare, in a script: the error names it, not the whole script.
extension Review15MigrationTests {
    @Test func aSyntaxErrorAfterWritesLeavesEverythingAsBeforeAndNamesItsStatement() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try migrator.migrate(temp.db)
        let before = try r15Dump(temp.db)
        migrator.register("0002_broken", sql: "CREATE TABLE u(y);\nINSERT INTO t VALUES (2);\nUPDATE t SET x = 3 WHERE;\nCREATE TABLE v(z);\n")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.migration == "0002_broken")
        #expect((error.underlying as? DatabaseError)?.code == .error)
        #expect(error.message.contains("SQLite error 1: near \";\": syntax error"), "\(error)")
        #expect(error.sql == "UPDATE t SET x = 3 WHERE", "\(error)")
        #expect(try r15Dump(temp.db) == before)
        #expect(try migrator.appliedMigrations(in: temp.db).map(\.id) == ["0001"])
    }

    @Test func theFailingStatementIsFoundPastTriggerBodiesStringsAndComments() throws {
        let temp = try TemporaryDatabase()
        let script = """
            CREATE TABLE a(x);
            CREATE TRIGGER tr AFTER INSERT ON a BEGIN SELECT 1; SELECT 'x;y'; END;
            -- a comment; with a semicolon
            INSERT INTO a VALUES ('semi;colon');
            SELEC 1;
            CREATE TABLE b(x);
            """
        let error = try #require(throws: DatabaseError.self) { try temp.db.transaction { try temp.db.execute(script) } }
        #expect(error.sql == "SELEC 1", "\(error)")
        let first = try #require(throws: DatabaseError.self) { try temp.db.execute("SELEC 2;\nSELECT 3") }
        #expect(first.sql == "SELEC 2")
        let unfinished = try #require(throws: DatabaseError.self) { try temp.db.execute("SELECT 1; CREATE TABLE oops(") }
        #expect(unfinished.sql == "CREATE TABLE oops(")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master") == 0)
    }
}

// `.sql` files as editors leave them: Windows line endings, a header comment above the directives,
// editors' hidden lock files.
extension Review15MigrationTests {
    @Test func directivesOfACRLFFileAreRead() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001_create.sql": "CREATE TABLE t(x);\r\n",
                                       "0002_vacuum.sql": "-- strata: no-transaction\r\n-- strata: foreign-keys disabled\r\nVACUUM;\r\n"])
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: url)
        #expect(migrator.migrations.map(\.inTransaction) == [true, false])
        #expect(migrator.migrations.map(\.foreignKeyChecks) == [.deferred, .disabled])
        #expect(try migrator.migrate(temp.db) == ["0001_create", "0002_vacuum"])
    }

    /// A directive below a header comment was ignored: the rebuild ran with foreign keys on, and its DROP
    /// TABLE deleted the books through ON DELETE CASCADE.
    @Test func aDirectiveBelowAHeaderCommentIsRead() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(r15AuthorBook)
        let url = try r15Folder(temp, ["0002_rebuild.sql": """
            -- Rebuild author with a NOT NULL name.

              -- strata: foreign-keys disabled
            CREATE TABLE author_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO author_new SELECT id, coalesce(name, '') FROM author;
            DROP TABLE author;
            ALTER TABLE author_new RENAME TO author;
            """])
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: url)
        #expect(migrator.migrations.map(\.foreignKeyChecks) == [.disabled])
        #expect(try migrator.migrate(temp.db) == ["0002_rebuild"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 2)
    }

    @Test func aDirectiveAfterTheFirstStatementIsRefused() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001_late.sql": "CREATE TABLE t(x);\n-- strata: foreign-keys disabled\nDROP TABLE t;\n"])
        var migrator = Migrator()
        let error = try #require(throws: MigrationError.self) { try migrator.registerSQLFiles(in: url) }
        #expect(error.migration == "0001_late")
        #expect(error.description == "migration 0001_late: the directive `-- strata: foreign-keys disabled` comes after the first statement; directives go in the comment lines atop the file")
        #expect(migrator.migrations.isEmpty)
    }

    /// Emacs leaves `.#name.sql` (a symbolic link to nowhere) beside a file being edited; macOS copies leave `._name.sql`.
    @Test func hiddenFilesOfTheFolderAreNotMigrations() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001_create.sql": "CREATE TABLE t(x);", "._0001_create.sql": "\u{0}\u{5}binary"])
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent(".#0001_create.sql").path,
                                                   withDestinationPath: "root@host.1234:1700000000")
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: url)
        #expect(migrator.migrations.map(\.id) == ["0001_create"])
        #expect(try migrator.migrate(temp.db) == ["0001_create"])
    }
}


// A file written with foreign keys off (SQLite's default) may hold orphans already: they are not the
// migration's doing, and failed every migration, whatever it did, naming rows it never touched.
extension Review15MigrationTests {
    /// `r15AuthorBook` plus book 3, whose author 77 does not exist.
    private func withAnOrphan(_ configuration: Database.Configuration = Database.Configuration()) throws -> TemporaryDatabase {
        let temp = try TemporaryDatabase(configuration: configuration)
        try temp.db.execute(r15AuthorBook)
        try temp.db.execute("PRAGMA foreign_keys = OFF; INSERT INTO book VALUES (3, 77)")
        if configuration.foreignKeys { try temp.db.execute("PRAGMA foreign_keys = ON") }
        return temp
    }

    @Test(arguments: [(ForeignKeyChecks.deferred, true), (.disabled, true), (.immediate, true), (.deferred, false), (.disabled, false)])
    func anOrphanFromBeforeDoesNotFailAnUnrelatedMigration(checks: ForeignKeyChecks, inTransaction: Bool) throws {
        let temp = try withAnOrphan()
        var migrator = Migrator()
        migrator.register("0002_index", sql: "CREATE INDEX book_author ON book(author)", foreignKeyChecks: checks, inTransaction: inTransaction)
        #expect(try migrator.migrate(temp.db) == ["0002_index"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'book_author'") == 1)
    }

    @Test func aRebuildOfATableWithAnOrphanFromBeforePasses() throws {
        let temp = try withAnOrphan()
        var migrator = Migrator()
        migrator.register("0002_rebuild", sql: """
            CREATE TABLE author_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO author_new SELECT id, coalesce(name, '') FROM author;
            DROP TABLE author;
            ALTER TABLE author_new RENAME TO author
            """, foreignKeyChecks: .disabled)
        #expect(try migrator.migrate(temp.db) == ["0002_rebuild"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 3)
    }

    @Test(arguments: [(ForeignKeyChecks.deferred, true), (.disabled, true), (.disabled, false)])
    func aNewOrphanBesideAnOldOneStillFailsNamingIt(checks: ForeignKeyChecks, inTransaction: Bool) throws {
        let temp = try withAnOrphan()
        let before = try r15Dump(temp.db)
        var migrator = Migrator()
        migrator.register("0002_orphan", sql: "INSERT INTO book VALUES (4, 88)", foreignKeyChecks: checks, inTransaction: inTransaction)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.reason == .foreignKeyViolation)
        #expect(error.migration == "0002_orphan")
        #expect(error.message.contains("book row 4 points at a missing row of author"), "\(error)")
        if inTransaction {
            #expect(try r15Dump(temp.db) == before)
            #expect(error.message.hasPrefix("foreign key violations, rolled back: "))
        } else {
            #expect(error.message == "foreign key violations, not rolled back (it runs outside a transaction), unrecorded: book row 4 points at a missing row of author")
        }
        if checks == .disabled { #expect(!error.message.contains("book row 3"), "\(error)") }
        #expect(try migrator.appliedMigrations(in: temp.db).isEmpty)
    }

    /// A connection with foreign keys off keeps no count: the lists before and after are compared.
    @Test func withForeignKeysOffTheListsAreCompared() throws {
        var configuration = Database.Configuration()
        configuration.foreignKeys = false
        let temp = try withAnOrphan(configuration)
        var migrator = Migrator()
        migrator.register("0002_index", sql: "CREATE INDEX book_author ON book(author)")
        #expect(try migrator.migrate(temp.db) == ["0002_index"])
        migrator.register("0003_orphan", sql: "INSERT INTO book VALUES (4, 88)")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(error.message == "foreign key violations, rolled back: book row 4 points at a missing row of author", "\(error)")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM book") == 3)
    }

    @Test func aMigrationThatRepairsTheOrphanPasses() throws {
        let temp = try withAnOrphan()
        var migrator = Migrator()
        migrator.register("0002_repair", sql: "INSERT INTO author VALUES (77, 'Found')")
        #expect(try migrator.migrate(temp.db) == ["0002_repair"])
        #expect(try temp.db.rows("PRAGMA foreign_key_check").isEmpty)
    }
}

// The same migration checked out with other line endings (git's autocrlf on Windows) is not an edit.
extension Review15MigrationTests {
    @Test func lineEndingsAreNotAnEdit() throws {
        let temp = try TemporaryDatabase()
        let unix = "CREATE TABLE t(x);\nINSERT INTO t VALUES (1);\n"
        let windows = unix.replacingOccurrences(of: "\n", with: "\r\n")
        var mac = Migrator()
        mac.register("0001", sql: unix)
        try mac.migrate(temp.db)
        #expect(try mac.appliedMigrations(in: temp.db).first?.checksum == Migration.checksum(of: unix), "LF text: as before")
        var pc = Migrator()
        pc.register("0001", sql: windows)
        pc.register("0002", sql: "CREATE TABLE u(x);\r\n")
        #expect(pc.migrations[0].checksum == mac.migrations[0].checksum)
        #expect(try pc.migrate(temp.db) == ["0002"])
        var back = Migrator()
        back.register("0001", sql: "\u{FEFF}" + unix)
        back.register("0002", sql: "CREATE TABLE u(x);\n")
        #expect(try back.plan(for: temp.db).pending.isEmpty)
        // An edit is still one.
        var edited = Migrator()
        edited.register("0001", sql: unix.replacingOccurrences(of: "(1)", with: "(2)"))
        #expect(try #require(throws: MigrationError.self) { try edited.plan(for: temp.db) }.reason == .edited)
    }

    /// A database migrated before line endings were normalized recorded a `\r\n` file's bytes: still no edit.
    @Test func aChecksumRecordedOfWindowsBytesStillMatches() throws {
        let temp = try TemporaryDatabase()
        let windows = "CREATE TABLE t(x);\r\n"
        var migrator = Migrator()
        migrator.register("0001", sql: windows)
        try migrator.migrate(temp.db)
        try temp.db.execute("UPDATE strata_migrations SET checksum = ?", Migration.checksum(of: windows))
        #expect(try migrator.plan(for: temp.db).pending.isEmpty)
        var unix = Migrator()
        unix.register("0001", sql: "CREATE TABLE t(x);\n")
        #expect(throws: MigrationError.self, "LF text against CRLF bytes recorded earlier: a real difference then") { try unix.plan(for: temp.db) }
    }
}

// A migration that rebuilds, drops or renames a table moves rows SQLite's update hook never reports:
// the handle's live instances kept the values they had, and a later save wrote them back over the
// migration's.
extension Review15MigrationTests {
    private static let reorderingRebuild = """
        CREATE TABLE r15_new(extra TEXT DEFAULT 'e', score INTEGER NOT NULL DEFAULT 0, id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
        INSERT INTO r15_new(id, name, score) SELECT id, name, score * 2 FROM r15_person WHERE name <> 'Bob';
        DROP TABLE r15_person;
        ALTER TABLE r15_new RENAME TO r15_person
        """

    @Test func liveInstancesReadTheirRowsAfterAMigrationRebuiltTheirTable() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 3
        let bob = R15Person(); bob.name = "Bob"; bob.score = 1
        try temp.db.save(ada); try temp.db.save(bob)
        var migrator = Migrator()
        migrator.register("0001_rebuild", sql: Self.reorderingRebuild)
        try migrator.migrate(temp.db)
        #expect(ada.score == 6)
        #expect(!ada.hasChanges)
        #expect(bob.isDeleted, "its row was not copied")
        ada.score += 1
        try temp.db.save(ada)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score || ':' || extra FROM r15_person") == ["Ada:7:e"])
    }

    @Test func anUnsavedChangeOverARebuiltRowIsAConflictNotAnOverwrite() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 3
        try temp.db.save(ada)
        ada.score = 10   // not saved; the migration doubles the stored 3
        var migrator = Migrator()
        migrator.register("0001_rebuild", sql: Self.reorderingRebuild)
        try migrator.migrate(temp.db)
        #expect(throws: (any Error).self) { try temp.db.save(ada) }
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15_person") == 6)
    }

    @Test func aMigrationDroppingATableMarksItsLiveInstancesDeleted() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"
        try temp.db.save(ada)
        var migrator = Migrator()
        migrator.register("0001_drop", sql: "DROP TABLE r15_person")
        try migrator.migrate(temp.db)
        #expect(ada.isDeleted, "its row is gone")
        #expect(try temp.db.objects(R15Person.self).isEmpty)
    }

    /// A later migration that fails: the ones before it committed, and the instances follow those.
    @Test func aFailureAfterARebuildStillLeavesInstancesWithTheCommittedRows() throws {
        let temp = try TemporaryDatabase()
        let ada = R15Person(); ada.name = "Ada"; ada.score = 3
        try temp.db.save(ada)
        var migrator = Migrator()
        migrator.register("0001_rebuild", sql: Self.reorderingRebuild)
        migrator.register("0002_broken", sql: "UPDATE r15_person SET score = 100; INSERT INTO nosuch VALUES (1)")
        #expect(throws: MigrationError.self) { try migrator.migrate(temp.db) }
        #expect(ada.score == 6)
        #expect(!ada.hasChanges)
    }
}

// Another process applies a migration between this one's plan and its run: `.finished` (what
// `strata migrate` prints as "applied") was still reported for it, though this run committed nothing.
extension Review15MigrationTests {
    @Test func aMigrationAnotherConnectionAppliedMeanwhileIsNotReportedFinished() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001", sql: "CREATE TABLE t(x)")
        migrator.register("0002", sql: "CREATE TABLE u(x)")
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        let racer = migrator
        var events: [MigrationProgress] = []
        let ran = try migrator.migrate(temp.db) { progress in
            events.append(progress)
            if case .started(id: "0001", _, _) = progress { _ = try? racer.migrate(other) }
        }
        #expect(ran == [])
        #expect(events == [.started(id: "0001", index: 1, count: 2), .started(id: "0002", index: 2, count: 2)])
        #expect(try migrator.appliedMigrations(in: temp.db).map(\.id) == ["0001", "0002"])
    }
}

// A probe that passed: a pool's reader that used the model before a rebuilding migration on the writer
// reads the rebuilt rows after it (another connection's commit: it syncs again and refreshes).
extension Review15MigrationTests {
    @Test func aPoolReaderReadsTheRowsARebuildingMigrationLeft() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try await pool.write { db in
            let ada = R15Person(); ada.name = "Ada"; ada.score = 3
            try db.save(ada)
        }
        #expect(try await pool.read { db in try db.objects(R15Person.self).map { "\($0.name):\($0.score)" } } == ["Ada:3"])
        var migrator = Migrator()
        migrator.register("0001_rebuild", sql: """
            CREATE TABLE r15_new(extra TEXT DEFAULT 'e', score INTEGER NOT NULL DEFAULT 0, id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO r15_new(id, name, score) SELECT id, name, score * 2 FROM r15_person;
            DROP TABLE r15_person;
            ALTER TABLE r15_new RENAME TO r15_person
            """)
        #expect(try await migrator.migrate(pool) == ["0001_rebuild"])
        #expect(try await pool.read { db in try db.objects(R15Person.self).map { "\($0.name):\($0.score)" } } == ["Ada:6"])
        try await pool.write { db in
            let bob = R15Person(); bob.name = "Bob"; bob.score = 1
            try db.save(bob)
        }
        #expect(try await pool.read { db in try db.objects(R15Person.self).map { "\($0.name):\($0.score)" } } == ["Ada:6", "Bob:1"])
        try await pool.close()
    }
}

// A folder registers all of its files or none of them.
extension Review15MigrationTests {
    @Test func aFolderWithABadFileRegistersNoneOfItsFiles() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001_create.sql": "CREATE TABLE t(x);\n",
                                       "0002_bad.sql": "-- strata: sometimes\nCREATE TABLE u(x);\n",
                                       "0003_more.sql": "CREATE TABLE v(x);\n"])
        var migrator = Migrator()
        migrator.register("0000_first", sql: "CREATE TABLE s(x)")
        let error = #expect(throws: MigrationError.self) { try migrator.registerSQLFiles(in: url) }
        #expect(error?.migration == "0002_bad")
        #expect(migrator.migrations.map(\.id) == ["0000_first"])
        #expect(try migrator.migrate(temp.db) == ["0000_first"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name IN ('t', 'u', 'v')") == 0)
    }

    /// A `.SQL` file (an upper-case extension, as some Windows tools write) was skipped silently, so the
    /// migrations after it ran without it.
    @Test func anUpperCaseExtensionIsAMigrationToo() throws {
        let temp = try TemporaryDatabase()
        let url = try r15Folder(temp, ["0001_create.SQL": "CREATE TABLE t(x);\n",
                                       "0002_fill.sql": "INSERT INTO t VALUES (1);\n"])
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: url)
        #expect(migrator.migrations.map(\.id) == ["0001_create", "0002_fill"])
        #expect(try migrator.migrate(temp.db) == ["0001_create", "0002_fill"])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM t") == 1)
    }
}
