import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Issue 36, point 8: migrate(upTo:), eraseDatabaseOnSchemaChange for edited Swift migrations, numeric
// order of SQL files, AppliedMigration.appliedAt as a Date.

private final class R19mExtra: Model {
    static let tableName = "r19m_extra"
    var id: Int64 = 0
    var note = ""
    required init() {}
}

/// The column names of `table`, in order.
private func columns(_ db: Database, _ table: String) throws -> [String] {
    try db.rows("SELECT name FROM pragma_table_info(?)", table).map { row in
        if case .text(let name) = row.values[0] { name } else { "?" }
    }
}

@Suite struct Review19MigrationTests {
    private func threeSteps() -> Migrator {
        var migrator = Migrator()
        migrator.register("v1", sql: "CREATE TABLE r19m_a (id INTEGER PRIMARY KEY)")
        migrator.register("v2") { db in try db.execute("CREATE TABLE r19m_b (id INTEGER PRIMARY KEY)") }
        migrator.register("v3", sql: "CREATE TABLE r19m_c (id INTEGER PRIMARY KEY)")
        return migrator
    }

    @Test func migrateUpToRunsTheMigrationsUpToTheOneNamed() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let migrator = threeSteps()
        #expect(try migrator.migrate(db, upTo: "v2") == ["v1", "v2"])
        #expect(try db.value(String.self, "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE name LIKE 'r19m_%' ORDER BY name)") == "r19m_a,r19m_b")
        #expect(try migrator.plan(for: db).pending.map(\.id) == ["v3"])
        #expect(try migrator.migrate(db, upTo: "v2").isEmpty)
        do {
            try migrator.migrate(db, upTo: "v9")
            Issue.record("an unknown id must throw")
        } catch let error as MigrationError {
            #expect(error.reason == .unknown && error.migration == "v9")
            #expect(error.message.contains("names no registered migration") && error.message.contains("v1, v2, v3"))
        }
        #expect(try migrator.migrate(db) == ["v3"])
    }

    @Test func eraseOnSchemaChangeNoticesAnEditedSwiftMigration() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        var first = Migrator()
        first.register("create") { db in try db.execute("CREATE TABLE r19m_t (a TEXT)") }
        try first.migrate(db)
        try db.execute("INSERT INTO r19m_t VALUES ('kept?')")
        try db.save(R19mExtra())   // a model's own table, made by sync: not the migrations' doing

        // Unchanged migrations: nothing is erased (the model's table and the row stay).
        var same = Migrator()
        same.eraseDatabaseOnSchemaChange = true
        same.register("create") { db in try db.execute("CREATE TABLE r19m_t (a TEXT)") }
        #expect(try same.plan(for: db).erasesDatabase == false)
        #expect(try same.migrate(db).isEmpty)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r19m_t") == 1)

        // The Swift migration edited: a column added. Before, only SQL checksums were compared.
        var edited = Migrator()
        edited.eraseDatabaseOnSchemaChange = true
        edited.register("create") { db in try db.execute("CREATE TABLE r19m_t (a TEXT, b INTEGER NOT NULL DEFAULT 0)") }
        #expect(try edited.plan(for: db).erasesDatabase)
        #expect(try edited.migrate(db) == ["create"])
        #expect(try columns(db, "r19m_t") == ["a", "b"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM r19m_t") == 0)
        // An index changed is noticed too.
        var indexed = edited
        indexed.register("index") { db in try db.execute("CREATE INDEX r19m_t_a ON r19m_t(a)") }
        try indexed.migrate(db)
        var reindexed = edited
        reindexed.register("index") { db in try db.execute("CREATE INDEX r19m_t_a ON r19m_t(a, b)") }
        #expect(try reindexed.plan(for: db).erasesDatabase)
        #expect(try indexed.plan(for: db).erasesDatabase == false)
        // Migrations that cannot run on an empty database (this one reads a model's table): the file is kept.
        try db.execute("INSERT INTO r19m_t (a) VALUES ('kept')")
        try db.execute("CREATE TABLE IF NOT EXISTS r19m_extra (id INTEGER PRIMARY KEY, note TEXT NOT NULL DEFAULT '')")
        var reading = indexed
        reading.register("copy") { db in try db.execute("INSERT INTO r19m_t (a) SELECT note FROM r19m_extra") }
        try reading.migrate(db)
        #expect(try reading.plan(for: db).erasesDatabase == false)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r19m_t WHERE a = 'kept'") == 1)
    }

    @Test func sqlFilesRunInTheOrderOfTheirNumbers() throws {
        let temp = try TemporaryDatabase()
        let folder = temp.folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func write(_ name: String, _ sql: String) throws {
            try sql.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write("1_create.sql", "CREATE TABLE r19m_n (id INTEGER PRIMARY KEY, a TEXT)")
        try write("2_column.sql", "ALTER TABLE r19m_n ADD COLUMN b TEXT")
        try write("10_index.sql", "CREATE INDEX r19m_n_b ON r19m_n(b)")   // needs 2's column
        try write("010_seed.sql", "INSERT INTO r19m_n (a, b) VALUES ('x', 'y')")
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: folder)
        // By name, 010_seed and 10_index came before 1_create and 2_column (and failed: no table yet).
        #expect(migrator.migrations.map(\.id) == ["1_create", "2_column", "010_seed", "10_index"])
        #expect(try migrator.migrate(temp.db) == ["1_create", "2_column", "010_seed", "10_index"])
        #expect(try temp.db.value(String.self, "SELECT b FROM r19m_n") == "y")

        // A name without a number among numbered ones: refused, nothing registered.
        try write("seed.sql", "SELECT 1")
        var mixed = Migrator()
        do {
            try mixed.registerSQLFiles(in: folder)
            Issue.record("a mixed folder must be refused")
        } catch let error as MigrationError {
            #expect(error.migration == "seed")
            #expect(error.message.contains("the order is ambiguous") && error.message.contains("begin every file name with its number, as 010_seed.sql does"))
        }
        #expect(mixed.migrations.isEmpty)
    }

    @Test func appliedAtIsADateAndOldRowsStillRead() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let before = Date()
        var migrator = Migrator()
        migrator.register("v1", sql: "CREATE TABLE r19m_d (id INTEGER PRIMARY KEY)")
        try migrator.migrate(db)
        let applied = try #require(try migrator.appliedMigrations(in: db).first)
        #expect(applied.appliedAt.timeIntervalSince(before) > -2 && applied.appliedAt.timeIntervalSinceNow < 2)
        #expect(applied.appliedAtText.hasSuffix("Z"))
        #expect(try db.value(String.self, "SELECT typeof(applied_at) FROM strata_migrations") == "text")
        // Rows another version or tool wrote: SQLite's datetime() form, fractional seconds, no date at all.
        try db.execute("INSERT INTO strata_migrations VALUES ('main', 'v0', NULL, '2024-01-02 03:04:05'), ('main', 'vf', NULL, '2024-01-02T03:04:05.250Z'), ('main', 'vx', NULL, 'yesterday')")
        var all = migrator
        all.allowsUnknownMigrations = true
        let dates = Dictionary(try all.appliedMigrations(in: db).map { ($0.id, $0.appliedAt.timeIntervalSince1970) }, uniquingKeysWith: { a, _ in a })
        #expect(dates["v0"] == 1_704_164_645)
        #expect(dates["vf"] == 1_704_164_645.25)
        #expect(dates["vx"] == Date.distantPast.timeIntervalSince1970)
    }
}
