import CSQLite
import Dispatch
import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 10: database files as bad input (missing, a folder, not SQLite, empty, truncated, read-only,
// locked), and migrations' all-or-nothing (a failing statement or closure, re-running, the plan, a
// reordered or renamed list).

private final class R10Note: Model {
    static let tableName = "r10_note"
    var id: Int64 = 0
    var title = ""
    var body = ""
    required init() {}
}

/// The same table with one more column: syncing it needs an ALTER TABLE.
private final class R10NoteWider: Model {
    static let tableName = "r10_note"
    var id: Int64 = 0
    var title = ""
    var body = ""
    var extra: String?
    required init() {}
}

/// A folder that is removed when released, for the files these tests make.
private final class Folder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-r10-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A database file with three notes, closed, in rollback-journal mode (so a writer's lock blocks readers).
private func makeNotes(_ folder: Folder, name: String = "notes.sqlite") throws -> String {
    let path = folder.path(name)
    var configuration = Database.Configuration()
    configuration.journalMode = .delete
    let db = try Database(path: path, configuration: configuration)
    for (title, body) in [("a", "one"), ("b", "two"), ("c", "three")] {
        let note = R10Note(); note.title = title; note.body = body
        try db.save(note)
    }
    try db.close()
    return path
}

@Suite(.serialized) struct Review10FileTests {
    // MARK: Bad files

    /// Each bad file throws a DatabaseError that names the path and SQLite's code and message, from
    /// Database(path:) and from DatabasePool, and leaves the file as it was.
    @Test func badFilesThrowAnErrorNamingThePathAndSQLitesReason() throws {
        let folder = try Folder()
        let notes = try makeNotes(folder)
        let whole = try Data(contentsOf: URL(fileURLWithPath: notes))
        try FileManager.default.createDirectory(atPath: folder.path("folder.sqlite"), withIntermediateDirectories: false)
        try Data("hello, not a database\n".utf8).write(to: URL(fileURLWithPath: folder.path("text.sqlite")))
        try whole.prefix(1024).write(to: URL(fileURLWithPath: folder.path("truncated.sqlite")))
        var header = whole; header.replaceSubrange(0..<16, with: Data(repeating: 0x41, count: 16))
        try header.write(to: URL(fileURLWithPath: folder.path("header.sqlite")))

        let cases: [(name: String, code: ResultCode, says: String)] = [
            ("folder.sqlite", ResultCode(rawValue: 0), "is a directory"),
            ("text.sqlite", .notADatabase, "file is not a database"),
            ("truncated.sqlite", .corrupt, "database disk image is malformed"),
            ("header.sqlite", .notADatabase, "file is not a database"),
        ]
        var readOnly = Database.Configuration(); readOnly.readOnly = true
        for (name, code, says) in cases {
            let path = folder.path(name)
            for configuration in [Database.Configuration(), readOnly] {
                do {
                    _ = try Database(path: path, configuration: configuration)
                    Issue.record("\(name) opened")
                } catch let error as DatabaseError {
                    #expect(String(describing: error).contains(path), "\(name): \(error)")
                    #expect(String(describing: error).contains(says), "\(name): \(error)")
                    if code.rawValue != 0 { #expect(error.code.primary == code.primary, "\(name): \(error)") }
                }
            }
            do {
                _ = try DatabasePool(path: path, readers: 2)
                Issue.record("\(name) opened as a pool")
            } catch let error as DatabaseError {
                #expect(String(describing: error).contains(path), "\(name): \(error)")
                #expect(String(describing: error).contains(says), "\(name): \(error)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("text.sqlite"))) == Data("hello, not a database\n".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("truncated.sqlite"))) == whole.prefix(1024))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("header.sqlite"))) == header)
        #expect(folder.names == ["folder.sqlite", "header.sqlite", "notes.sqlite", "text.sqlite", "truncated.sqlite"], "no side files left")
    }

    /// A missing file opened read-only throws naming the path and creates nothing.
    @Test func aMissingFileOpenedReadOnlyIsNotCreated() throws {
        let folder = try Folder()
        var readOnly = Database.Configuration(); readOnly.readOnly = true
        let path = folder.path("missing.sqlite")
        #expect(throws: DatabaseError.self) { _ = try Database(path: path, configuration: readOnly) }
        do { _ = try Database(path: path, configuration: readOnly) } catch {
            #expect(String(describing: error).contains(path))
            #expect(String(describing: error).contains("unable to open database file"))
        }
        #expect(throws: DatabaseError.self) { _ = try DatabasePool(path: path, configuration: readOnly) }
        #expect(folder.names.isEmpty)
    }

    /// A damaged page deep in the file: opening works (SQLite reads pages lazily), reading the damaged
    /// table throws SQLITE_CORRUPT naming the statement, never a crash.
    @Test func aCorruptPageThrowsWhenRead() throws {
        let folder = try Folder()
        let path = folder.path("big.sqlite")
        var configuration = Database.Configuration(); configuration.journalMode = .delete
        let db = try Database(path: path, configuration: configuration)
        try db.transaction {
            for index in 0..<2000 {
                let note = R10Note(); note.title = "title \(index)"; note.body = String(repeating: "x", count: 100)
                try db.save(note)
            }
        }
        try db.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = 4096
        // Page 3 onwards are the table's b-tree pages: scribble over the middle of several.
        for page in stride(from: 3, to: data.count / pageSize, by: 7) {
            data.replaceSubrange(page * pageSize ..< page * pageSize + 64, with: Data(repeating: 0xFF, count: 64))
        }
        try data.write(to: URL(fileURLWithPath: path))
        let damaged = try Database(path: path, configuration: configuration)
        #expect(throws: DatabaseError.self) {
            _ = try damaged.objects(R10Note.self)
        }
        do { _ = try damaged.rows("SELECT * FROM r10_note") } catch let error as DatabaseError {
            #expect(error.code.primary == .corrupt, "\(error)")
            #expect(error.sql != nil)
        }
        try damaged.close()
    }

    // MARK: Read-only

    @Test func aReadOnlyDatabaseReadsAndRefusesWritesClearly() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var configuration = Database.Configuration(); configuration.readOnly = true
        let db = try Database(path: path, configuration: configuration)
        // A sync that needs no change works; fetches work.
        #expect(try db.syncSchema(R10Note.self).isEmpty)
        let notes = try db.objects(R10Note.self, where: "ORDER BY id")
        #expect(notes.map(\.title) == ["a", "b", "c"])
        // A save throws a clear error and keeps the change on the live instance.
        notes[1].body = "changed"
        do {
            try db.save(notes[1])
            Issue.record("a read-only save succeeded")
        } catch let error as DatabaseError {
            #expect(error.code.primary == .readOnly, "\(error)")
            #expect(String(describing: error).contains("readonly"), "\(error)")
        }
        #expect(notes[1].hasChanges)
        #expect(notes[1].body == "changed")
        #expect(try db.value(String.self, "SELECT body FROM r10_note WHERE id = 2") == "two")
        // Fetching again keeps the unsaved change (the identity map's instance).
        #expect(try db.object(R10Note.self, forKey: 2)?.body == "changed")
        // An insert throws too and the instance stays unsaved.
        let fresh = R10Note(); fresh.title = "d"
        #expect(throws: DatabaseError.self) { try db.save(fresh) }
        #expect(fresh.id == 0)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r10_note") == 3)
        // A sync that needs a change throws naming the read-only file.
        do {
            _ = try db.syncSchema(R10NoteWider.self)
            Issue.record("a read-only sync that needs an ALTER succeeded")
        } catch {
            #expect(String(describing: error).contains("readonly") || String(describing: error).contains("read-only"), "\(error)")
        }
        try db.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    // MARK: Locked

    /// Another connection holds a write transaction: the busy timeout is waited, then the error says
    /// "database is locked" and names the statement.
    @Test func aLockedDatabaseWaitsTheBusyTimeoutAndNamesTheOperation() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        var holderConfiguration = Database.Configuration(); holderConfiguration.journalMode = .delete
        let holder = try Database(path: path, configuration: holderConfiguration)
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(300)
        let db = try Database(path: path, configuration: configuration)
        let note = try #require(try db.object(R10Note.self, forKey: 1))
        try holder.execute("BEGIN IMMEDIATE; UPDATE r10_note SET title = 'held' WHERE id = 3")
        note.body = "mine"
        let start = ContinuousClock.now
        do {
            try db.save(note)
            Issue.record("saved under another connection's write lock")
        } catch let error as DatabaseError {
            #expect(error.code.primary == .busy, "\(error)")
            #expect(error.sql != nil, "\(error)")
            #expect(String(describing: error).contains("database is locked: another connection held the write lock for the whole busy timeout (300 ms)"), "\(error)")
        }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(250), "\(waited)")
        #expect(waited < .seconds(5), "\(waited)")
        #expect(note.hasChanges && note.body == "mine")
        try holder.execute("ROLLBACK")
        try db.save(note)
        #expect(try holder.value(String.self, "SELECT body FROM r10_note WHERE id = 1") == "mine")
        try holder.close(); try db.close()
    }

    // MARK: Migrations

    private func tableSQL(_ db: Database) throws -> [String] {
        try db.column(String.self, "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
    }

    @Test func aMigrationWhoseSecondStatementFailsLeavesNothingAndLiveInstancesMatch() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let db = try Database(path: path)
        let notes = try db.objects(R10Note.self, where: "ORDER BY id")
        var first = Migrator()
        first.register("0001_ok", sql: "UPDATE r10_note SET body = 'v1' WHERE id = 3")
        try first.migrate(db)
        #expect(notes[2].body == "v1")
        let schema = try tableSQL(db)
        let rows = try db.rows("SELECT * FROM r10_note ORDER BY id").map { "\($0)" }

        var migrator = first
        migrator.register("0002_bad", sql: """
            UPDATE r10_note SET title = upper(title);
            ALTER TABLE r10_note ADD COLUMN extra TEXT;
            INSERT INTO nosuch VALUES (1);
            """)
        do {
            try migrator.migrate(db)
            Issue.record("the bad migration ran")
        } catch let error as MigrationError {
            #expect(error.migration == "0002_bad")
            #expect(error.reason == .failed)
            #expect(String(describing: error).contains("no such table: nosuch"), "\(error)")
        }
        #expect(try tableSQL(db) == schema)
        #expect(try db.rows("SELECT * FROM r10_note ORDER BY id").map { "\($0)" } == rows)
        #expect(try migrator.appliedMigrations(in: db).map(\.id) == ["0001_ok"])
        #expect(notes.map(\.title) == ["a", "b", "c"], "live instances match the rows")
        #expect(!notes.contains { $0.hasChanges })
        // The plan still lists it, and the fixed list applies it once.
        #expect(try migrator.plan(for: db).pending.map(\.id) == ["0002_bad"])

        var fixed = first
        fixed.register("0002_bad", sql: "UPDATE r10_note SET title = upper(title);\nALTER TABLE r10_note ADD COLUMN extra TEXT;")
        let plan = try fixed.plan(for: db)
        #expect(plan.description == "-- 0002_bad\nUPDATE r10_note SET title = upper(title);\nALTER TABLE r10_note ADD COLUMN extra TEXT;")
        #expect(try fixed.migrate(db) == ["0002_bad"])
        #expect(try fixed.migrate(db) == [])
        #expect(notes.map(\.title) == ["A", "B", "C"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM pragma_table_info('r10_note') WHERE name = 'extra'") == 1)
        try db.close()
    }

    struct Refused: Error, CustomStringConvertible { var description: String { "refused by the closure" } }

    @Test func aMigrationClosureThatThrowsLeavesNothingAndLiveInstancesMatch() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let db = try Database(path: path)
        let notes = try db.objects(R10Note.self, where: "ORDER BY id")
        let rows = try db.rows("SELECT * FROM r10_note ORDER BY id").map { "\($0)" }
        var migrator = Migrator()
        migrator.register("swift-step") { db in
            for note in try db.objects(R10Note.self) { note.body += "!"; try db.save(note) }
            let extra = R10Note(); extra.title = "d"; try db.save(extra)
            try db.execute("CREATE TABLE r10_side(x)")
            throw Refused()
        }
        do {
            try migrator.migrate(db)
            Issue.record("ran")
        } catch let error as MigrationError {
            #expect(error.reason == .failed)
            #expect(error.underlying is Refused)
            #expect(String(describing: error).contains("refused by the closure"), "\(error)")
        }
        #expect(try db.rows("SELECT * FROM r10_note ORDER BY id").map { "\($0)" } == rows)
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name IN ('r10_side', 'strata_migrations')") == 0)
        #expect(notes.map(\.body) == ["one", "two", "three"])
        #expect(!notes.contains { $0.hasChanges })
        #expect(try db.objects(R10Note.self).count == 3)
        try db.close()
    }

    /// A migration list edited after it ran: a renamed identifier, two applied steps swapped, or a new step
    /// inserted before an applied one. Each throws a clear MigrationError instead of skipping or running out of order.
    @Test func aReorderedOrRenamedMigrationListThrowsClearly() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        var applied = Migrator()
        applied.register("0001_a", sql: "CREATE TABLE r10_a(x)")
        applied.register("0002_b", sql: "CREATE TABLE r10_b(x)")
        applied.register("swift-c") { db in try db.execute("CREATE TABLE r10_c(x)") }
        try applied.migrate(db)
        let schema = try tableSQL(db)

        // Renamed.
        var renamed = Migrator()
        renamed.register("0001_a", sql: "CREATE TABLE r10_a(x)")
        renamed.register("0002_b", sql: "CREATE TABLE r10_b(x)")
        renamed.register("swift-c-renamed") { db in try db.execute("CREATE TABLE r10_c(x)") }
        #expect(throws: MigrationError.self) { try renamed.migrate(db) }
        do { try renamed.migrate(db) } catch let error as MigrationError {
            #expect(error.migration == "swift-c")
            #expect(error.reason == .unknown)
        }

        // Reordered.
        var swapped = Migrator()
        swapped.register("0002_b", sql: "CREATE TABLE r10_b(x)")
        swapped.register("0001_a", sql: "CREATE TABLE r10_a(x)")
        swapped.register("swift-c") { db in try db.execute("CREATE TABLE r10_c(x)") }
        swapped.register("0004_d", sql: "CREATE TABLE r10_d(x)")
        do {
            try swapped.migrate(db)
            Issue.record("a reordered list migrated")
        } catch let error as MigrationError {
            #expect(error.reason == .misordered)
            #expect(error.migration == "0002_b")
            #expect(String(describing: error).contains("it ran after 0001_a"), "\(error)")
        }
        #expect(throws: MigrationError.self) { _ = try swapped.plan(for: db) }

        // A new step inserted before applied ones would run after them.
        var inserted = Migrator()
        inserted.register("0001_a", sql: "CREATE TABLE r10_a(x)")
        inserted.register("0001b_new", sql: "CREATE TABLE r10_new(x)")
        inserted.register("0002_b", sql: "CREATE TABLE r10_b(x)")
        inserted.register("swift-c") { db in try db.execute("CREATE TABLE r10_c(x)") }
        do {
            try inserted.migrate(db)
            Issue.record("a step inserted before applied ones migrated")
        } catch let error as MigrationError {
            #expect(error.migration == "0001b_new", "\(error)")
            #expect(error.reason == .misordered)
            #expect(String(describing: error).contains("registered before swift-c, which already ran"), "\(error)")
        }
        #expect(try tableSQL(db) == schema)
        try db.close()
    }
}

extension Review10FileTests {
    /// A migration's SQL that ends the migrator's transaction itself (`COMMIT`, `END`, `ROLLBACK`, or a
    /// `BEGIN` of its own as Django's sqlmigrate prints) fails clearly and leaves nothing behind.
    @Test(arguments: [
        "CREATE TABLE r10_a(x); COMMIT; CREATE TABLE r10_b(x); INSERT INTO nosuch VALUES (1);",
        "CREATE TABLE r10_a(x); END; CREATE TABLE r10_b(x);",
        "CREATE TABLE r10_a(x); COMMIT;",
        "UPDATE r10_note SET title = 'x'; ROLLBACK; CREATE TABLE r10_b(x);",
        "BEGIN; CREATE TABLE r10_a(x); COMMIT;",
    ])
    func aMigrationThatEndsTheTransactionItselfFailsAndLeavesNothing(_ sql: String) throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        let notes = try db.objects(R10Note.self, where: "ORDER BY id")
        let schema = try tableSQL(db)
        let rows = try db.rows("SELECT * FROM r10_note ORDER BY id").map { "\($0)" }
        var migrator = Migrator()
        migrator.register("0001_own_transaction", sql: sql)
        do {
            try migrator.migrate(db)
            Issue.record("ran: \(sql)")
        } catch let error as MigrationError {
            #expect(error.migration == "0001_own_transaction")
            #expect(String(describing: error).contains("transaction"), "\(error)")
        }
        #expect(!db.isInTransaction)
        #expect(try tableSQL(db) == schema, "\(sql)")
        #expect(try db.rows("SELECT * FROM r10_note ORDER BY id").map { "\($0)" } == rows)
        #expect(notes.map(\.title) == ["a", "b", "c"])
        #expect(try migrator.appliedMigrations(in: db).isEmpty)
        try db.close()
    }

    /// The same from a Swift migration.
    @Test func aSwiftMigrationThatCommitsItselfFailsAndLeavesNothing() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        let schema = try tableSQL(db)
        var migrator = Migrator()
        migrator.register("swift-commit") { db in
            try db.execute("CREATE TABLE r10_a(x)")
            try db.execute("COMMIT")
            try db.execute("CREATE TABLE r10_b(x)")
        }
        #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(try tableSQL(db) == schema)
        #expect(try migrator.appliedMigrations(in: db).isEmpty)
        try db.close()
    }
}

extension Review10FileTests {
    /// The shared mechanism under migrations: a COMMIT inside a transaction block is refused with a message
    /// saying why, the block rolls back whole and live instances match; outside any block, raw SQL still
    /// manages its own transactions.
    @Test func aCommitInsideATransactionBlockIsRefusedAndTheBlockRollsBackWhole() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        let note = try #require(try db.object(R10Note.self, forKey: 1))
        do {
            try db.transaction {
                note.title = "changed"
                try db.save(note)
                try db.execute("UPDATE r10_note SET body = 'raw' WHERE id = 2; COMMIT; UPDATE r10_note SET body = 'after' WHERE id = 3")
            }
            Issue.record("committed inside the block")
        } catch let error as DatabaseError {
            #expect(error.code.primary == ResultCode(rawValue: 23), "\(error)")   // SQLITE_AUTH
            #expect(error.message.hasPrefix("COMMIT inside a transaction Strata began"), "\(error)")
        }
        #expect(!db.isInTransaction)
        #expect(try db.column(String.self, "SELECT title || '/' || body FROM r10_note ORDER BY id") == ["a/one", "b/two", "c/three"])
        #expect(note.title == "a" && !note.hasChanges)
        // Nested: a savepoint block refuses it too, and the outer block goes on.
        try db.transaction {
            try? db.transaction { try db.execute("ROLLBACK") }
            try db.execute("UPDATE r10_note SET body = 'kept' WHERE id = 1")
        }
        #expect(try db.value(String.self, "SELECT body FROM r10_note WHERE id = 1") == "kept")
        // Outside a block, raw transaction control works as before.
        try db.execute("BEGIN; UPDATE r10_note SET body = 'own' WHERE id = 2; COMMIT")
        try db.execute("BEGIN; UPDATE r10_note SET body = 'undone' WHERE id = 2; ROLLBACK")
        #expect(try db.value(String.self, "SELECT body FROM r10_note WHERE id = 2") == "own")
        #expect(try db.object(R10Note.self, forKey: 2)?.body == "own")
        try db.close()
    }
}

extension Review10FileTests {
    /// A migration outside a transaction (`inTransaction: false`) whose SQL begins its own and fails before
    /// its COMMIT: that transaction is rolled back, so nothing is left and later saves commit.
    @Test func aNoTransactionMigrationWhoseOwnTransactionFailsLeavesNothingOpen() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let db = try Database(path: path)
        let schema = try tableSQL(db)
        var migrator = Migrator()
        migrator.register("own", sql: "BEGIN; CREATE TABLE r10_a(x); UPDATE r10_note SET body = 'x'; INSERT INTO nosuch VALUES (1); COMMIT;",
                          inTransaction: false)
        do {
            try migrator.migrate(db)
            Issue.record("ran")
        } catch let error as MigrationError {
            #expect(String(describing: error).contains("no such table: nosuch"), "\(error)")
        }
        #expect(!db.isInTransaction)
        #expect(try tableSQL(db) == schema)
        let note = try #require(try db.object(R10Note.self, forKey: 1))
        #expect(note.body == "one")
        note.body = "saved"
        try db.save(note)
        let other = try Database(path: path)
        #expect(try other.value(String.self, "SELECT body FROM r10_note WHERE id = 1") == "saved")
        try other.close(); try db.close()
    }
}

extension Review10FileTests {
    /// A migration outside a transaction whose SQL begins one and never ends it fails, rolled back, instead
    /// of leaving the handle inside it (where every later save would wait for a COMMIT that never comes).
    @Test func aNoTransactionMigrationThatLeavesItsTransactionOpenFails() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let db = try Database(path: path)
        let schema = try tableSQL(db)
        var migrator = Migrator()
        migrator.register("open", sql: "BEGIN; CREATE TABLE r10_a(x);", inTransaction: false)
        do {
            try migrator.migrate(db)
            Issue.record("ran")
        } catch let error as MigrationError {
            #expect(error.migration == "open")
            #expect(String(describing: error).contains("began a transaction and did not end it"), "\(error)")
        }
        #expect(!db.isInTransaction)
        #expect(try tableSQL(db) == schema)
        #expect(try migrator.appliedMigrations(in: db).isEmpty)
        try db.close()
    }
}

extension Review10FileTests {
    /// A migration outside a transaction that fails midway cannot be undone: the error says what stays
    /// instead of "rolled back", and the migration is not recorded (it runs again once fixed).
    @Test func aNoTransactionMigrationThatFailsMidwaySaysWhatStays() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        var migrator = Migrator()
        migrator.register("outside", sql: "CREATE TABLE IF NOT EXISTS r10_a(x); INSERT INTO nosuch VALUES (1);", inTransaction: false)
        do {
            try migrator.migrate(db)
            Issue.record("ran")
        } catch let error as MigrationError {
            #expect(!String(describing: error).contains("rolled back"), "\(error)")
            #expect(String(describing: error).contains("runs outside a transaction"), "\(error)")
            #expect(String(describing: error).contains("no such table: nosuch"), "\(error)")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'r10_a'") == 1)
        #expect(try migrator.appliedMigrations(in: db).isEmpty)
        var fixed = Migrator()
        fixed.register("outside", sql: "CREATE TABLE IF NOT EXISTS r10_a(x);", inTransaction: false)
        #expect(try fixed.migrate(db) == ["outside"])
        #expect(try fixed.migrate(db) == [])
        try db.close()
    }
}

extension Review10FileTests {
    /// The same for a foreign key violation found after a migration outside a transaction.
    @Test func aNoTransactionMigrationsForeignKeyViolationIsNotCalledRolledBack() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        try db.execute("CREATE TABLE r10_parent(id INTEGER PRIMARY KEY); CREATE TABLE r10_child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES r10_parent(id))")
        var migrator = Migrator()
        migrator.register("orphan", sql: "PRAGMA foreign_keys = OFF; INSERT INTO r10_child(parent) VALUES (9); PRAGMA foreign_keys = ON;", inTransaction: false)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.reason == .foreignKeyViolation)
        #expect(String(describing: error).contains("not rolled back (it runs outside a transaction)"), "\(error)")
        #expect(try db.value(Int.self, "SELECT count(*) FROM r10_child") == 1)
        #expect(try migrator.appliedMigrations(in: db).isEmpty)
        try db.close()
    }
}

extension Review10FileTests {
    /// Read-only: a delete and a batch save throw and leave the instances as they were.
    @Test func aReadOnlyDatabaseRefusesADeleteAndABatchSave() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        var configuration = Database.Configuration(); configuration.readOnly = true
        let db = try Database(path: path, configuration: configuration)
        let notes = try db.objects(R10Note.self, where: "ORDER BY id")
        #expect(throws: DatabaseError.self) { try db.delete(notes[0]) }
        #expect(try db.object(R10Note.self, forKey: 1) === notes[0])
        notes[0].body = "x"; notes[2].body = "z"
        let error = try #require(throws: DatabaseError.self) { try db.save(notes) }
        #expect(error.code.primary == .readOnly)
        #expect(notes[0].hasChanges && notes[2].hasChanges && notes[0].body == "x" && notes[2].body == "z")
        #expect(try db.column(String.self, "SELECT body FROM r10_note ORDER BY id") == ["one", "two", "three"])
        try db.close()
    }

    /// A pool opened read-only on a rollback-journal file and on a WAL file: reads work, writes throw.
    @Test(arguments: [false, true])
    func aReadOnlyPoolReadsAndRefusesWrites(wal: Bool) async throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        if wal {
            let db = try Database(path: path); try db.setJournalMode(.wal); try db.close()
        }
        var configuration = Database.Configuration(); configuration.readOnly = true
        let pool = try DatabasePool(path: path, readers: 2, configuration: configuration)
        let titles = try await pool.read { db in try db.objects(R10Note.self, where: "ORDER BY id").map(\.title) }
        #expect(titles == ["a", "b", "c"])
        do {
            try await pool.write { db in
                let note = try #require(try db.object(R10Note.self, forKey: 1)); note.body = "w"; try db.save(note)
            }
            Issue.record("a read-only pool wrote")
        } catch let error as DatabaseError {
            #expect(error.code.primary == .readOnly, "\(error)")
        }
        try await pool.close()
        #expect(folder.names == ["notes.sqlite"] || wal, "\(folder.names)")
    }

    /// A pool's write under another connection's write lock waits the busy timeout, then names the operation.
    @Test func aPoolWriteUnderAnotherConnectionsLockWaitsThenNamesIt() async throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        var configuration = Database.Configuration(); configuration.busyTimeout = .milliseconds(300)
        let pool = try DatabasePool(path: path, readers: 1, configuration: configuration)
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE; UPDATE r10_note SET title = 'held' WHERE id = 3")
        let start = ContinuousClock.now
        do {
            try await pool.write { db in try db.execute("UPDATE r10_note SET body = 'pool' WHERE id = 1") }
            Issue.record("wrote under the lock")
        } catch let error as DatabaseError {
            #expect(error.code.primary == .busy, "\(error)")
            #expect(error.sql != nil)
        }
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        // Readers still read (WAL) meanwhile.
        #expect(try await pool.read { db in try db.value(String.self, "SELECT title FROM r10_note WHERE id = 3") } == "c")
        try holder.execute("ROLLBACK"); try holder.close()
        try await pool.write { db in try db.execute("UPDATE r10_note SET body = 'pool' WHERE id = 1") }
        #expect(try await pool.read { db in try db.value(String.self, "SELECT body FROM r10_note WHERE id = 1") } == "pool")
        try await pool.close()
    }

    /// A user_version step that fails leaves user_version and the tables as they were.
    @Test func aFailingUserVersionStepLeavesTheVersion() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        try db.execute("PRAGMA user_version = 2")
        let schema = try tableSQL(db)
        var migrator = Migrator()
        migrator.registerUserVersion(2) { db in try db.execute("CREATE TABLE r10_never(x)") }
        migrator.registerUserVersion(3) { db in
            try db.execute("ALTER TABLE r10_note ADD COLUMN v3 TEXT")
            try db.execute("UPDATE nosuch SET x = 1")
        }
        #expect(try migrator.plan(for: db).pending.map(\.id) == ["user_version 3"])
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.migration == "user_version 3" && error.sql == "UPDATE nosuch SET x = 1")
        #expect(try db.value(Int.self, "PRAGMA user_version") == 2)
        #expect(try tableSQL(db) == schema)
        try db.close()
    }
}

extension Review10FileTests {
    /// A migration that syncs a model (adding a column) and then fails: the column is gone again, and the
    /// handle does not go on believing the model's table has it — the model syncs again and saves.
    @Test func aFailedMigrationThatSyncedAModelLeavesTheModelUsable() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        var migrator = Migrator()
        migrator.register("sync-then-fail") { db in
            try db.syncSchema(R10NoteWider.self)
            let note = try #require(try db.object(R10NoteWider.self, forKey: 1))
            note.extra = "in migration"
            try db.save(note)
            throw Refused()
        }
        #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM pragma_table_info('r10_note') WHERE name = 'extra'") == 0)
        let wider = try #require(try db.object(R10NoteWider.self, forKey: 1))
        #expect(wider.extra == nil)
        wider.extra = "after"
        try db.save(wider)
        #expect(try db.value(String.self, "SELECT extra FROM r10_note WHERE id = 1") == "after")
        try db.close()
    }
}

extension Review10FileTests {
    /// A migrations folder with a file that is not UTF-8 text, or a folder named like a .sql file: a
    /// MigrationError naming the file, not Foundation's bare error.
    @Test func unreadableSQLFilesAreNamed() throws {
        let folder = try Folder()
        let migrations = folder.url.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        try Data([0xFF, 0xFE, 0x20, 0x80]).write(to: migrations.appendingPathComponent("0001_binary.sql"))
        var migrator = Migrator()
        let binary = try #require(throws: MigrationError.self) { try migrator.registerSQLFiles(in: migrations) }
        #expect(binary.migration == "0001_binary")
        #expect(binary.description == "migration 0001_binary: cannot read \(migrations.path)/0001_binary.sql: it is not UTF-8 text")
        try FileManager.default.removeItem(at: migrations.appendingPathComponent("0001_binary.sql"))
        try FileManager.default.createDirectory(at: migrations.appendingPathComponent("0002_folder.sql"), withIntermediateDirectories: true)
        let directory = try #require(throws: MigrationError.self) { try migrator.registerSQLFiles(in: migrations) }
        #expect(directory.description.hasSuffix("0002_folder.sql: it is a directory, not a .sql file"), "\(directory)")
        let missing = try #require(throws: MigrationError.self) { try migrator.registerSQLFiles(in: folder.url.appendingPathComponent("nope")) }
        #expect(missing.description.contains("cannot list the migrations folder \(folder.url.path)/nope"), "\(missing)")
        #expect(migrator.migrations.isEmpty)
    }
}

extension Review10FileTests {
    /// A migration that deletes and inserts rows, then fails: the deleted instance is not marked deleted,
    /// no inserted row shows up as an instance, and a later save of the instance updates its row.
    @Test func aFailedMigrationThatDeletedRowsLeavesTheirInstancesAlive() throws {
        let folder = try Folder()
        let db = try Database(path: try makeNotes(folder))
        let first = try #require(try db.object(R10Note.self, forKey: 1))
        var migrator = Migrator()
        migrator.register("delete-then-fail", sql: """
            DELETE FROM r10_note WHERE id = 1;
            INSERT INTO r10_note(id, title, body) VALUES (10, 'ten', 'x');
            UPDATE nosuch SET x = 1;
            """)
        #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(try db.objects(R10Note.self).count == 3)
        #expect(try db.object(R10Note.self, forKey: 10) == nil)
        first.body = "after"
        try db.save(first)
        #expect(try db.value(String.self, "SELECT body FROM r10_note WHERE id = 1") == "after")
        try db.close()
    }
}

extension Review10FileTests {
    /// A file SQLite opens read-only although the configuration did not ask (mode 0444 for a user other than
    /// root; `?mode=ro` here, which has the same effect): fetches and an unneeded sync work, a save throws
    /// SQLITE_READONLY and keeps the change.
    @Test func aFileOpenedReadOnlyBySQLiteReadsAndRefusesWrites() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let db = try Database(path: "file:\(path)?mode=ro")
        #expect(sqlite3_db_readonly(db.sqliteHandle, "main") == 1)
        #expect(try db.syncSchema(R10Note.self).isEmpty)
        let notes = try db.objects(R10Note.self, where: "ORDER BY id")
        #expect(notes.map(\.title) == ["a", "b", "c"])
        #expect(try db.transaction { try db.count(R10Note.self) } == 3)
        notes[0].body = "changed"
        let error = try #require(throws: DatabaseError.self) { try db.save(notes[0]) }
        #expect(error.code.primary == .readOnly, "\(error)")
        #expect(notes[0].hasChanges && notes[0].body == "changed")
        try db.close()
    }
}

extension Review10FileTests {
    /// The plan (the dry run) lists exactly what migrate then runs, in order, for SQL, Swift and
    /// user_version steps, and changes nothing itself.
    @Test func thePlanIsWhatRuns() throws {
        let folder = try Folder()
        let path = try makeNotes(folder)
        let db = try Database(path: path)
        var migrator = Migrator()
        migrator.register("0001_sql", sql: "CREATE TABLE r10_a(x)")
        migrator.registerUserVersion(1) { db in try db.execute("CREATE TABLE r10_v1(x)") }
        migrator.register("0002_swift") { db in try db.execute("INSERT INTO r10_a VALUES (1)") }
        try db.execute("PRAGMA user_version = 0")
        let schema = try tableSQL(db)
        let plan = try migrator.plan(for: db)
        #expect(try tableSQL(db) == schema)
        #expect(plan.description == "-- 0001_sql\nCREATE TABLE r10_a(x)\n-- user_version 1 (Swift, sets user_version = 1)\n-- 0002_swift (Swift)")
        #expect(try migrator.migrate(db) == plan.pending.map(\.id))
        #expect(try migrator.plan(for: db).pending.isEmpty)
        #expect(try migrator.plan(for: db).description == "-- no pending migrations")
        try db.close()
    }
}
