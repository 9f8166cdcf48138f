import Foundation
import Strata
import StrataTestSupport
import Testing

private func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

@Suite(.serialized) struct CommandLineTests {
    /// A folder with `library.sqlite` (rollback journal, so a lock blocks readers) and `migrations/`.
    private func makeFolder() throws -> (TemporaryDatabase, URL) {
        var rollback = Database.Configuration()
        rollback.journalMode = .delete
        let temp = try TemporaryDatabase(configuration: rollback)
        try temp.db.close()
        try FileManager.default.moveItem(atPath: temp.path, toPath: temp.folder.appendingPathComponent("library.sqlite").path)
        let migrations = temp.folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        try "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\nCREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER NOT NULL REFERENCES author(id));\n"
            .write(to: migrations.appendingPathComponent("0001_create.sql"), atomically: true, encoding: .utf8)
        try "CREATE INDEX book_title ON book(title);\n".write(to: migrations.appendingPathComponent("0002_index.sql"), atomically: true, encoding: .utf8)
        return (temp, temp.folder)
    }

    @Test func versionAndHelp() throws {
        let (temp, folder) = try makeFolder()
        defer { withExtendedLifetime(temp) {} }
        let version = try strata(["--version"], in: folder)
        #expect(version.status == 0)
        #expect(version.output == "strata \(StrataLibrary.version) (SQLite \(Database.sqliteVersion))\n")
        for subcommand in ["inspect", "plan", "migrate", "diff", "generate"] {
            let help = try strata([subcommand, "--help"], in: folder)
            #expect(help.status == 0, "\(subcommand) --help")
            #expect(help.output.contains("USAGE: strata \(subcommand)"))
        }
        let usage = try strata(["bogus"], in: folder)
        #expect(usage.status == 64)
    }

    @Test func planThenMigrateThenInspect() throws {
        let (temp, folder) = try makeFolder()
        defer { withExtendedLifetime(temp) {} }
        let before = try bytes(folder.appendingPathComponent("library.sqlite"))
        let plan = try strata(["plan", "library.sqlite", "--migrations", "migrations"], in: folder)
        #expect(plan.status == 0)
        #expect(plan.output == """
            -- 0001_create
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER NOT NULL REFERENCES author(id));
            -- 0002_index
            CREATE INDEX book_title ON book(title);

            """)
        #expect(try bytes(folder.appendingPathComponent("library.sqlite")) == before, "a plan touches nothing")

        let migrate = try strata(["migrate", "library.sqlite", "--migrations", "migrations"], in: folder)
        #expect(migrate.status == 0)
        #expect(migrate.output == "applied 0001_create\napplied 0002_index\n")
        #expect(try strata(["migrate", "library.sqlite", "--migrations", "migrations"], in: folder).output == "no pending migrations\n")

        let inspect = try strata(["inspect", "library.sqlite"], in: folder)
        #expect(inspect.status == 0)
        #expect(inspect.output.contains("  foreign key author_id -> author(id)"))
        #expect(inspect.output.contains("user_version: 0"))
        #expect(inspect.output.contains("migrations (2):\n  main/0001_create  "))

        let diagram = try strata(["inspect", "library.sqlite", "--diagram", "--table", "author", "--table", "book"], in: folder)
        #expect(diagram.output == """
            erDiagram
                author {
                    INTEGER id PK
                    TEXT name
                }
                book {
                    INTEGER id PK
                    TEXT title
                    INTEGER author_id FK
                }
                author ||--o{ book : "author_id"

            """)

        let json = try strata(["inspect", "library.sqlite", "--json"], in: folder)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let details = object?["details"] as? [String: Any]
        #expect((details?["migrations"] as? [[String: Any]])?.count == 2)
        #expect(((object?["schema"] as? [String: Any])?["tables"] as? [Any])?.count == 3)
    }

    @Test func diffPrintsTheAdditiveSQL() throws {
        let (temp, folder) = try makeFolder()
        defer { withExtendedLifetime(temp) {} }
        let a = try Database(path: folder.appendingPathComponent("a.sqlite").path)
        try a.execute("CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE gone(x)")
        let b = try Database(path: folder.appendingPathComponent("b.sqlite").path)
        try b.execute("CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, born INTEGER NOT NULL DEFAULT 0); CREATE TABLE tag(x); CREATE INDEX author_name ON author(name)")
        try a.close(); try b.close()
        let diff = try strata(["diff", "a.sqlite", "b.sqlite"], in: folder)
        #expect(diff.status == 0)
        #expect(diff.output == """
            ALTER TABLE "author" ADD COLUMN "born" INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE tag(x);
            CREATE INDEX author_name ON author(name);
            -- table gone is only in the first database (dropping is not additive)

            """)
        #expect(try strata(["diff", "a.sqlite", "a.sqlite"], in: folder).output == "-- the schemas are the same\n")
    }

    @Test func aMissingACorruptAndALockedFileFailClearlyAndStayUntouched() throws {
        let (temp, folder) = try makeFolder()
        defer { withExtendedLifetime(temp) {} }
        for arguments in [["inspect", "missing.sqlite"], ["migrate", "missing.sqlite", "--migrations", "migrations"], ["diff", "missing.sqlite", "library.sqlite"]] {
            let run = try strata(arguments, in: folder)
            #expect(run.status == 1)
            #expect(run.error == "Error: no database at missing.sqlite\n")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("missing.sqlite").path))

        let corrupt = folder.appendingPathComponent("corrupt.sqlite")
        try Data(repeating: 0x5A, count: 4096).write(to: corrupt)
        for arguments in [["inspect", "corrupt.sqlite"], ["migrate", "corrupt.sqlite", "--migrations", "migrations"], ["generate", "corrupt.sqlite"]] {
            let run = try strata(arguments, in: folder)
            #expect(run.status == 1)
            #expect(run.error.contains("file is not a database"), "\(arguments): \(run.error)")
        }
        #expect(try bytes(corrupt) == Data(repeating: 0x5A, count: 4096))

        // Locked: another connection holds an exclusive lock with a write in progress.
        let library = folder.appendingPathComponent("library.sqlite")
        var rollback = Database.Configuration()
        rollback.journalMode = .delete   // a rollback journal: an exclusive lock keeps readers out
        let holder = try Database(path: library.path, configuration: rollback)
        try holder.execute("CREATE TABLE t(x)")
        let before = try bytes(library)
        try holder.execute("BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        for arguments in [["inspect", "library.sqlite"], ["migrate", "library.sqlite", "--migrations", "migrations"]] {
            let run = try strata(arguments, in: folder)
            #expect(run.status == 1)
            #expect(run.error.contains("database is locked"), "\(arguments): \(run.error)")
        }
        try holder.execute("ROLLBACK")
        try holder.close()
        #expect(try bytes(library) == before)
    }

    @Test func aFailingMigrationStopsWithItsStatementAndKeepsTheOthers() throws {
        let (temp, folder) = try makeFolder()
        defer { withExtendedLifetime(temp) {} }
        try "INSERT INTO book(title, author_id) VALUES ('orphan', 42);\n"
            .write(to: folder.appendingPathComponent("migrations/0003_orphan.sql"), atomically: true, encoding: .utf8)
        let run = try strata(["migrate", "library.sqlite", "--migrations", "migrations"], in: folder)
        #expect(run.status == 1)
        #expect(run.output == "applied 0001_create\napplied 0002_index\n")
        #expect(run.error.contains("migration 0003_orphan: foreign key violations, rolled back: book row 1 points at a missing row of author"))
        let db = try Database(path: folder.appendingPathComponent("library.sqlite").path)
        #expect(try db.value(Int.self, "SELECT count(*) FROM book") == 0)
    }

    @Test func planAgainstASchemaFile() throws {
        let (temp, folder) = try makeFolder()
        defer { withExtendedLifetime(temp) {} }
        _ = try strata(["migrate", "library.sqlite", "--migrations", "migrations"], in: folder)
        try "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER);\nCREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER NOT NULL REFERENCES author(id));\nCREATE TABLE strata_migrations(namespace TEXT NOT NULL, id TEXT NOT NULL, checksum TEXT, applied_at TEXT NOT NULL, PRIMARY KEY (namespace, id));\nCREATE INDEX book_title ON book(title);\n"
            .write(to: folder.appendingPathComponent("schema.sql"), atomically: true, encoding: .utf8)
        let plan = try strata(["plan", "library.sqlite", "--schema", "schema.sql"], in: folder)
        #expect(plan.status == 0)
        #expect(plan.output == "ALTER TABLE \"author\" ADD COLUMN \"born\" INTEGER;\n")
        let neither = try strata(["plan", "library.sqlite"], in: folder)
        #expect(neither.status == 64)
        #expect(neither.error.contains("give --migrations <folder> or --schema <file>"))
    }

    /// Every read-only subcommand on every fixture database: exit 0, output, and the file untouched.
    @Test(.enabled(if: Fixtures.available), arguments: [
        "GYDataCenterTests.db", "familysearch_app.sqlite3", "fcmodel_test.sqlite3", "grdb_ProfilingDatabase.sqlite",
        "peewee_notes.sqlite3", "smodel_test.sqlite3", "sqlalchemy_blog.sqlite3",
    ])
    func theSubcommandsOnTheFixtures(file: String) throws {
        let path: String = try #require(Fixtures.path(file))
        let temp = try TemporaryDatabase(copying: path)
        try temp.db.close()
        let before = try bytes(URL(fileURLWithPath: temp.path))
        let inspect = try strata(["inspect", file], in: temp.folder)
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect(inspect.output.hasPrefix("\(file): "))
        let diagram = try strata(["inspect", file, "--diagram"], in: temp.folder)
        #expect(diagram.status == 0)
        #expect(diagram.output.hasPrefix("erDiagram\n"))
        let json = try strata(["inspect", file, "--json"], in: temp.folder)
        #expect(json.status == 0)
        #expect((try? JSONSerialization.jsonObject(with: Data(json.output.utf8))) != nil)
        let same = try strata(["diff", file, file], in: temp.folder)
        #expect(same.output == "-- the schemas are the same\n")
        let generate = try strata(["generate", file], in: temp.folder)
        #expect(generate.status == 0)
        #expect(generate.output.contains("import Strata"))
        try FileManager.default.createDirectory(at: temp.folder.appendingPathComponent("none"), withIntermediateDirectories: true)
        let plan = try strata(["plan", file, "--migrations", "none"], in: temp.folder)
        #expect(plan.output == "-- no pending migrations\n")
        #expect(try bytes(URL(fileURLWithPath: temp.path)) == before)
    }
}
