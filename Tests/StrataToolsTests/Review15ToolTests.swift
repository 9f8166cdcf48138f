import Foundation
import Strata
import StrataTestSupport
import Testing

// Review 15 (second reader of the `strata` tool's migrations): one-line errors for failing migrations,
// folders with odd names, namespaces, and the inspecting subcommands leaving the file alone.

@Suite(.serialized) struct Review15ToolTests {
    /// A database with one table and a migrations folder whose name has a space and an accent.
    private func makeFolder() throws -> (TemporaryDatabase, URL, String) {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO author VALUES (1, 'A')")
        try temp.db.close()
        let migrations = temp.folder.appendingPathComponent("my migrations é")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        return (temp, migrations, URL(fileURLWithPath: temp.path).lastPathComponent)
    }

    private func write(_ text: String, _ name: String, in folder: URL) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    /// A statement spanning lines fails: exit 1, one line naming the migration, the statement (not the
    /// rest of the file), SQLite's code and message; the migrations before it stay; the file is otherwise as it was.
    @Test func aFailingMultiLineStatementIsOneLineNamingItAndNothingElseOfItsFileStays() throws {
        let (temp, migrations, name) = try makeFolder()
        try write("CREATE TABLE tag(id INTEGER PRIMARY KEY);\n", "0001 tags.sql", in: migrations)
        try write("INSERT INTO tag VALUES (1);\nCREATE TABLE book(\n    id INTEGER PRIMARY KEY,\n    title nosuch(\n);\nINSERT INTO tag VALUES (2);\n",
                  "0002_book.sql", in: migrations)
        let run = try strata(["migrate", name, "--migrations", migrations.lastPathComponent], in: temp.folder)
        #expect(run.status == 1)
        #expect(run.output == "applied 0001 tags\n")
        #expect(run.error.split(separator: "\n").count == 1, "\(run.error)")
        #expect(run.error == "Error: migration 0002_book: failed and was rolled back (SQLite error 1: near \")\": syntax error) while executing `CREATE TABLE book( id INTEGER PRIMARY KEY, title nosuch( )`\n", "\(run.error)")
        let db = try Database(path: temp.path)
        defer { try? db.close() }
        #expect(try db.column(Int.self, "SELECT id FROM tag") == [])
        #expect(try db.column(String.self, "SELECT id FROM strata_migrations") == ["0001 tags"])
    }

    /// Windows line endings, a header comment, a hidden lock file, a README, two files with one number,
    /// a namespace: `plan` shows them without writing, `migrate` runs them, `inspect` lists them.
    @Test func anOddFolderPlansMigratesAndInspects() throws {
        let (temp, migrations, name) = try makeFolder()
        try write("-- Tags.\r\n-- strata: foreign-keys immediate\r\nCREATE TABLE tag(id INTEGER PRIMARY KEY);\r\n", "0001_tags.sql", in: migrations)
        try write("CREATE TABLE note(x);\n", "0001_ünïcode note.sql", in: migrations)
        try write("-- strata: no-transaction\nVACUUM;\n", "0002 vacuum.sql", in: migrations)
        try write("read me", "README.md", in: migrations)
        try FileManager.default.createSymbolicLink(atPath: migrations.appendingPathComponent(".#0001_tags.sql").path,
                                                   withDestinationPath: "user@host.42:1700000000")
        let before = try Data(contentsOf: URL(fileURLWithPath: temp.path))
        let plan = try strata(["plan", name, "--migrations", migrations.lastPathComponent, "--namespace", "plug in", "--json"], in: temp.folder)
        #expect(plan.status == 0, "\(plan.error)")
        let object = try JSONSerialization.jsonObject(with: Data(plan.output.utf8)) as? [String: Any]
        let pending = (object?["pending"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(pending == ["0001_tags", "0001_ünïcode note", "0002 vacuum"])
        #expect((object?["pending"] as? [[String: Any]])?.compactMap { $0["inTransaction"] as? Bool } == [true, true, false])
        #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path)) == before, "a plan writes nothing")

        let migrate = try strata(["migrate", name, "--migrations", migrations.lastPathComponent, "--namespace", "plug in"], in: temp.folder)
        #expect(migrate.status == 0, "\(migrate.error)")
        #expect(migrate.output == "applied 0001_tags\napplied 0001_ünïcode note\napplied 0002 vacuum\n")
        let again = try strata(["migrate", name, "--migrations", migrations.lastPathComponent, "--namespace", "plug in"], in: temp.folder)
        #expect(again.output == "no pending migrations\n")
        let other = try strata(["plan", name, "--migrations", migrations.lastPathComponent], in: temp.folder)
        #expect(other.output.hasPrefix("-- 0001_tags\n"), "the main namespace has run none of them")

        let migrated = try Data(contentsOf: URL(fileURLWithPath: temp.path))
        let inspect = try strata(["inspect", name], in: temp.folder)
        #expect(inspect.status == 0)
        #expect(inspect.output.contains("migrations (3):\n  plug in/0001_tags  "), "\(inspect.output)")
        #expect(inspect.output.contains("  plug in/0001_ünïcode note  "))
        _ = try strata(["diff", name, name], in: temp.folder)
        _ = try strata(["plan", name, "--migrations", migrations.lastPathComponent, "--namespace", "plug in"], in: temp.folder)
        #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path)) == migrated, "inspect, diff and plan write nothing")
    }

    /// A refused directive, and a migrations path that is a file: one line, exit 1, nothing applied.
    @Test func aLateDirectiveOrAFileForAFolderIsOneLine() throws {
        let (temp, migrations, name) = try makeFolder()
        try write("CREATE TABLE tag(x);\n-- strata: no-transaction\n", "0001.sql", in: migrations)
        let before = try Data(contentsOf: URL(fileURLWithPath: temp.path))
        for command in ["plan", "migrate"] {
            let run = try strata([command, name, "--migrations", migrations.lastPathComponent], in: temp.folder)
            #expect(run.status == 1)
            #expect(run.error == "Error: migration 0001: the directive `-- strata: no-transaction` comes after the first statement; directives go in the comment lines atop the file\n", "\(run.error)")
        }
        let notAFolder = try strata(["migrate", name, "--migrations", name], in: temp.folder)
        #expect(notAFolder.status == 1)
        #expect(notAFolder.error == "Error: no migrations folder at \(name)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path)) == before)
    }
}
