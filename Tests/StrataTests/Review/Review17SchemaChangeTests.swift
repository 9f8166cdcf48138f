import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 17 (issue 33, points 8-10): deletions SQLite does not report to change sets, migrations that
// rebuild a table other rows point at, and another tool's rebuild under an open handle.

private final class R17sUser: Model {
    static let tableName = "r17s_user"
    static let indices: [[String]] = []
    var id: Int64 = 0
    var email = ""
    var name = ""
    required init() {}
}

private final class R17sThing: Model {
    static let tableName = "r17s_thing"
    var id: Int64 = 0
    var name = ""
    var extra = 0
    required init() {}
}

/// The rows of a query as text (`quote()` of each column), for comparing tables before and after.
private func r17sDump(_ db: Database, _ sql: String, _ arguments: any ColumnValue...) throws -> [String] {
    try db.rows(sql, arguments: arguments).map { row in
        row.values.map { value -> String in
            switch value {
            case .integer(let integer): String(integer)
            case .text(let text): text
            default: "\(value)"
            }
        }.joined(separator: "|")
    }
}

private struct R17sTimeout: Error {}

/// The stream's next element, failing after `seconds` instead of hanging the run.
private func r17sNext(_ stream: AsyncStream<DatabaseChange>, within seconds: Double = 5) async throws -> DatabaseChange? {
    try await withThrowingTaskGroup(of: DatabaseChange?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); throw R17sTimeout() }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

@Suite struct Review17SchemaChangeTests {
    // MARK: 8. Deletions SQLite does not report

    /// `INSERT OR REPLACE` removing a row through a UNIQUE index fires no update hook for the removed row:
    /// the live instance is marked deleted, and the change set now says so too. Beside it, what SQLite
    /// itself reports (checked, as the documentation states it): `DELETE FROM t` without WHERE (Strata
    /// turns the truncate optimization off), ON DELETE CASCADE, and a replaced row no instance stood for
    /// (not reported: nothing knew it).
    @Test func aRowReplacedThroughAUniqueIndexIsReportedDeletedOnAHandle() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r17s_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL DEFAULT '')")
        let ada = R17sUser(); ada.email = "ada@x"; ada.name = "Ada"
        try db.save(ada)
        var seen: [DatabaseChange] = []
        let observation = db.observeChanges { seen += $0 }
        try db.execute("INSERT OR REPLACE INTO r17s_user(email, name) VALUES ('ada@x', 'Ada 2')")
        #expect(ada.isDeleted)
        #expect(seen.count == 1)
        #expect(seen.first?.table == "r17s_user")
        #expect(seen.first?.insertedRowIDs == [2])
        #expect(seen.first?.deletedRowIDs == [1], "the row the REPLACE removed")

        // UPDATE OR REPLACE: the same.
        let bob = R17sUser(); bob.email = "bob@x"; try db.save(bob)   // row 3
        seen.removeAll()
        try db.execute("UPDATE OR REPLACE r17s_user SET email = 'bob@x' WHERE id = 2")
        #expect(bob.isDeleted)
        #expect(seen.first?.updatedRowIDs == [2])
        #expect(seen.first?.deletedRowIDs == [3])

        // A replaced row no live instance stood for: SQLite tells nothing, and Strata knows nothing.
        try db.execute("INSERT INTO r17s_user(id, email) VALUES (10, 'ghost@x')")
        seen.removeAll()
        try db.execute("INSERT OR REPLACE INTO r17s_user(email) VALUES ('ghost@x')")
        #expect(seen.first?.insertedRowIDs == [11])
        #expect(seen.first?.deletedRowIDs == [], "documented: no instance, no report")
        // Recursive triggers fire a DELETE trigger for the replaced row, but SQLite's update hook still
        // reports nothing: the trigger's own write is all that shows.
        try db.execute("""
            CREATE TABLE r17s_log(id INTEGER PRIMARY KEY, gone INTEGER);
            CREATE TRIGGER r17s_user_gone AFTER DELETE ON r17s_user BEGIN INSERT INTO r17s_log(gone) VALUES (old.id); END;
            PRAGMA recursive_triggers = ON
            """)
        seen.removeAll()
        try db.execute("INSERT OR REPLACE INTO r17s_user(email) VALUES ('ghost@x')")
        #expect(try db.value(Int.self, "SELECT gone FROM r17s_log") == 11, "the trigger saw the replaced row")
        let afterTrigger = Dictionary(uniqueKeysWithValues: seen.map { ($0.table, $0) })
        #expect(afterTrigger["r17s_user"]?.insertedRowIDs == [12])
        #expect(afterTrigger["r17s_user"]?.deletedRowIDs == [], "documented: the hook stays silent even so")
        #expect(afterTrigger["r17s_log"]?.insertedRowIDs == [1])
        try db.execute("DROP TRIGGER r17s_user_gone; PRAGMA recursive_triggers = OFF")

        // DELETE without WHERE (SQLite's truncate optimization skips the hook; Strata turns it off).
        seen.removeAll()
        try db.execute("DELETE FROM r17s_user")
        #expect(seen.first?.deletedRowIDs == [2, 12])

        // ON DELETE CASCADE: SQLite reports the children it deletes.
        try db.execute("""
            CREATE TABLE r17s_parent(id INTEGER PRIMARY KEY);
            CREATE TABLE r17s_child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES r17s_parent(id) ON DELETE CASCADE);
            INSERT INTO r17s_parent VALUES (1); INSERT INTO r17s_child VALUES (5, 1), (6, 1)
            """)
        #expect(try db.value(Int.self, "PRAGMA foreign_keys") == 1)
        seen.removeAll()
        try db.execute("DELETE FROM r17s_parent WHERE id = 1")
        let byTable = Dictionary(uniqueKeysWithValues: seen.map { ($0.table, $0.deletedRowIDs) })
        #expect(byTable == ["r17s_parent": [1], "r17s_child": [5, 6]])
        observation.cancel()
    }

    /// The same through a pool's change stream: the writer's live instance of the replaced row is marked
    /// deleted and the element reports the row.
    @Test func aRowReplacedThroughAUniqueIndexIsReportedDeletedOnAPool() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r17s_user(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL DEFAULT '')")
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        let stream = pool.changes(ofTables: ["r17s_user"])
        let deleted = try await pool.write { db in
            let ada = R17sUser(); ada.email = "ada@x"; ada.name = "Ada"
            try db.save(ada)   // the pool's write is one transaction: one element
            try db.execute("INSERT OR REPLACE INTO r17s_user(email, name) VALUES ('ada@x', 'Ada 2')")
            return ada.isDeleted
        }
        #expect(deleted)
        let both = try #require(try await r17sNext(stream))
        #expect(both.insertedRowIDs == [2], "row 1 came and went in the same transaction")
        #expect(both.deletedRowIDs == [1])
        // In two transactions: the second element reports the row the REPLACE removed.
        let bob = try await pool.write { db in
            let bob = R17sUser(); bob.email = "bob@x"; try db.save(bob)
            return bob.id
        }
        let saved = try #require(try await r17sNext(stream))
        #expect(saved.insertedRowIDs == [bob])
        let stillDeleted = try await pool.write { db in
            let bob = try #require(try db.object(R17sUser.self, forKey: bob))
            try db.execute("INSERT OR REPLACE INTO r17s_user(email, name) VALUES ('bob@x', 'Bob 2')")
            return bob.isDeleted
        }
        #expect(stillDeleted)
        let replaced = try #require(try await r17sNext(stream))
        #expect(replaced.insertedRowIDs == [bob + 1])
        #expect(replaced.deletedRowIDs == [bob])
        try await pool.close()
    }

    // MARK: 9. A migration rebuilding a table other rows point at

    /// Parents and children: `book` points at `author` with no action, `note` with ON DELETE CASCADE.
    static let authorsAndChildren = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE book(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(id));
        CREATE TABLE note(id INTEGER PRIMARY KEY, author INTEGER REFERENCES author(id) ON DELETE CASCADE);
        INSERT INTO author VALUES (1, 'A'), (2, NULL);
        INSERT INTO book VALUES (1, 1), (2, 2);
        INSERT INTO note VALUES (1, 1), (2, 2)
        """
    /// SQLite's documented rebuild of `author` (without the BEGIN/COMMIT the migrator owns).
    static let rebuildAuthor = """
        CREATE TABLE author_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
        INSERT INTO author_new SELECT id, coalesce(name, '') FROM author;
        DROP TABLE author;
        ALTER TABLE author_new RENAME TO author
        """

    private static func everything(_ db: Database) throws -> [String] {
        try r17sDump(db, "SELECT type, name, sql FROM sqlite_master ORDER BY name")
            + r17sDump(db, "SELECT 'author', id, quote(name) FROM author ORDER BY id")
            + r17sDump(db, "SELECT 'book', id, author FROM book ORDER BY id")
            + r17sDump(db, "SELECT 'note', id, author FROM note ORDER BY id")
    }

    private static func migrator(_ kind: String, folder: URL, _ migrations: [(String, String)]) throws -> Migrator {
        var migrator = Migrator()
        for (id, sql) in migrations {
            switch kind {
            case "closure": migrator.register(id) { db in try db.execute(sql) }
            case "sql": migrator.register(id, sql: sql)
            default: try Data(sql.utf8).write(to: folder.appendingPathComponent("\(id).sql"))
            }
        }
        if kind == "file" { try migrator.registerSQLFiles(in: folder) }
        return migrator
    }

    /// The rebuild, run with the default foreign-key checks, used to fail at COMMIT with a bare "FOREIGN KEY
    /// constraint failed" (book) while `PRAGMA foreign_key_check` was clean. Now it commits, every child kept
    /// (the cascading notes too); a later migration that leaves a real violation fails, naming table, row and
    /// parent, and changes nothing; foreign keys are on again after both.
    @Test(arguments: ["closure", "sql", "file"])
    func aRebuildOfAReferencedTableRunsWithTheDefaultChecks(kind: String) throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(Self.authorsAndChildren)
        #expect(try db.value(Int.self, "PRAGMA foreign_keys") == 1)
        let folder = temp.folder.appendingPathComponent("migrations-\(kind)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let migrator = try Self.migrator(kind, folder: folder, [("0002_rebuild", Self.rebuildAuthor)])
        #expect(try migrator.migrate(db) == ["0002_rebuild"])
        #expect(try r17sDump(db, "SELECT id, quote(name) FROM author ORDER BY id") == ["1|'A'", "2|''"])
        #expect(try r17sDump(db, "SELECT id, author FROM book ORDER BY id") == ["1|1", "2|2"])
        #expect(try r17sDump(db, "SELECT id, author FROM note ORDER BY id") == ["1|1", "2|2"], "no ON DELETE CASCADE ran")
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'author'")
                == "CREATE TABLE \"author\"(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        #expect(try db.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try db.value(Int.self, "PRAGMA foreign_keys") == 1)

        let before = try Self.everything(db)
        let next = try Self.migrator(kind, folder: folder, [("0002_rebuild", Self.rebuildAuthor),
                                                            ("0003_drop_author_2", "DELETE FROM author WHERE id = 2; UPDATE author SET name = 'B'")])
        let error = try #require(throws: MigrationError.self) { try next.migrate(db) }
        #expect(error.migration == "0003_drop_author_2")
        #expect(error.reason == .foreignKeyViolation)
        #expect(error.message == "foreign key violations, rolled back: note row 2 points at a missing row of author; book row 2 points at a missing row of author", "\(error)")
        #expect(try Self.everything(db) == before, "all or nothing")
        #expect(try next.appliedMigrations(in: db).map(\.id) == ["0002_rebuild"])
        #expect(try db.value(Int.self, "PRAGMA foreign_keys") == 1, "restored after the failure too")
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO book VALUES (9, 99)") }
    }

    /// The same on a pool's writer: the rebuild commits, a violation fails naming the row, and the writer's
    /// foreign keys are on again.
    @Test func aRebuildOfAReferencedTableRunsOnAPool() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(Self.authorsAndChildren)
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        var migrator = Migrator()
        migrator.register("0002_rebuild", sql: Self.rebuildAuthor)
        #expect(try await migrator.migrate(pool) == ["0002_rebuild"])
        let children = try await pool.read { db in
            try r17sDump(db, "SELECT id, author FROM book ORDER BY id") + r17sDump(db, "SELECT id, author FROM note ORDER BY id")
        }
        #expect(children == ["1|1", "2|2", "1|1", "2|2"])
        let before = try await pool.read { db in try Self.everything(db) }
        migrator.register("0003_orphan") { db in try db.execute("UPDATE book SET author = 7 WHERE id = 1") }
        let error = await #expect(throws: MigrationError.self) { try await migrator.migrate(pool) }
        #expect(error?.message == "foreign key violations, rolled back: book row 1 points at a missing row of author")
        #expect(try await pool.read { db in try Self.everything(db) } == before)
        #expect(try await pool.write { db in try db.value(Int.self, "PRAGMA foreign_keys") } == 1)
        try await pool.close()
    }

    // MARK: 10. Another tool's rebuild under an open handle

    /// Django's way of dropping `extra` (and adding `other`): a new table, a copy, DROP, RENAME.
    static let djangoRebuild = """
        BEGIN;
        CREATE TABLE "new__r17s_thing" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" text NOT NULL, "other" integer NULL);
        INSERT INTO "new__r17s_thing" ("id", "name") SELECT "id", "name" FROM "r17s_thing";
        DROP TABLE "r17s_thing";
        ALTER TABLE "new__r17s_thing" RENAME TO "r17s_thing";
        COMMIT
        """

    /// A handle that synced `R17sThing` (one row, `first`, alive), then another connection's `sql`.
    private static func thingsChangedBehind(_ sql: String) throws -> (TemporaryDatabase, R17sThing) {
        let temp = try TemporaryDatabase()
        let first = R17sThing(); first.name = "first"; first.extra = 7
        try temp.db.save(first)
        let other = try Database(path: temp.path)
        try other.execute(sql)
        try other.close()
        return (temp, first)
    }

    /// After the rebuild, the handle's next save (an insert) used to fail with "table r17s_thing has no
    /// column named extra". It notices the schema change, adds `extra` back (keeping the other tool's
    /// `other`), and saves, in the save's transaction; the live instance keeps its identity and its row's
    /// values. Then the neighbours, which worked before and must keep working: the other tool adds a column,
    /// or rebuilds again and the handle's next call is a fetch; a pool's writer over the same file.
    @Test func aSaveAfterAnotherToolsRebuildAddsTheColumnBackAndSaves() throws {
        let (temp, first) = try Self.thingsChangedBehind(Self.djangoRebuild)
        let db = temp.db
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        let second = R17sThing(); second.name = "second"; second.extra = 5
        try db.save(second)
        trace.cancel()
        #expect(second.id == 2)
        #expect(statements.first == "BEGIN IMMEDIATE TRANSACTION" && statements.last == "COMMIT TRANSACTION", "\(statements)")
        #expect(statements.contains { $0.hasPrefix("ALTER TABLE \"r17s_thing\" ADD COLUMN \"extra\"") }, "\(statements)")
        #expect(try Self.columns(db) == ["id", "name", "other", "extra"])
        #expect(try r17sDump(db, "SELECT id, quote(name), quote(other), quote(extra), typeof(extra) FROM r17s_thing ORDER BY id")
                == ["1|'first'|NULL|0|integer", "2|'second'|NULL|5|integer"])
        // The live instance: the same object, its name kept, `extra` as its row holds it now (the other tool
        // dropped the value), not deleted; an update of it saves.
        #expect(try db.object(R17sThing.self, forKey: 1) === first)
        #expect(!first.isDeleted)
        #expect(first.name == "first")
        #expect(first.extra == 0)
        first.extra = 9
        try db.save(first)
        #expect(try r17sDump(db, "SELECT quote(extra) FROM r17s_thing WHERE id = 1") == ["9"])

        // The other tool adds a column: the next save writes, the column stays.
        let other = try Database(path: temp.path)
        try other.execute("ALTER TABLE r17s_thing ADD COLUMN more TEXT NOT NULL DEFAULT 'm'")
        first.name = "first again"
        try db.save(first)
        #expect(try r17sDump(db, "SELECT quote(name), quote(more), quote(extra) FROM r17s_thing WHERE id = 1") == ["'first again'|'m'|9"])
        // It rebuilds again without `extra`; the next call is a fetch: same instances, `extra` back.
        try other.execute(Self.djangoRebuild.replacingOccurrences(of: "\"other\" integer NULL", with: "\"other\" integer NULL, \"more\" text NOT NULL DEFAULT 'm'")
            .replacingOccurrences(of: "(\"id\", \"name\")", with: "(\"id\", \"name\", \"more\")")
            .replacingOccurrences(of: "SELECT \"id\", \"name\"", with: "SELECT \"id\", \"name\", \"more\""))
        try other.close()
        let all = try db.objects(R17sThing.self, where: "ORDER BY id")
        #expect(all.count == 2 && all[0] === first && all[1] === second)
        #expect(first.extra == 0 && second.extra == 0 && first.name == "first again")
        #expect(try Self.columns(db) == ["id", "name", "other", "more", "extra"])

        // A pool's writer: its write's transaction merges first, then the model is looked up.
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try pool.blocking.write { db in
            let third = R17sThing(); third.name = "third"; third.extra = 3
            try db.save(third)
        }
        let rebuild = try Database(path: temp.path)
        try rebuild.execute("ALTER TABLE r17s_thing DROP COLUMN extra")
        try rebuild.close()
        let fourth = try pool.blocking.write { db in
            let fourth = R17sThing(); fourth.name = "fourth"; fourth.extra = 4
            try db.save(fourth)
            return fourth.id
        }
        #expect(try pool.blocking.read { db in try r17sDump(db, "SELECT quote(name), quote(extra) FROM r17s_thing WHERE id = ?", fourth) } == ["'fourth'|4"])
        try pool.blocking.close()
    }

    private static func columns(_ db: Database) throws -> [String] {
        try db.rows("PRAGMA table_info(r17s_thing)").compactMap { row -> String? in
            if case .text(let name) = row["name"] { return name } else { return nil }
        }
    }

    /// An update (not an insert) as the first call after the rebuild, and a table dropped and made again
    /// with fewer columns: the save adds `extra` back and writes; the instance stays the same object.
    @Test(arguments: ["rebuild", "recreate"])
    func anUpdateAfterAnotherToolsSchemaChangeAddsTheColumnBack(kind: String) throws {
        let sql = kind == "recreate"
            ? "DROP TABLE r17s_thing; CREATE TABLE r17s_thing(id INTEGER PRIMARY KEY, name TEXT NOT NULL, other INTEGER); INSERT INTO r17s_thing(id, name) VALUES (1, 'first')"
            : Self.djangoRebuild
        let (temp, first) = try Self.thingsChangedBehind(sql)
        let db = temp.db
        first.name = "renamed"
        try db.save(first)
        #expect(try r17sDump(db, "SELECT id, quote(name), quote(other), quote(extra) FROM r17s_thing") == ["1|'renamed'|NULL|0"])
        #expect(try db.object(R17sThing.self, forKey: 1) === first)
        #expect(first.name == "renamed" && first.extra == 0 && !first.isDeleted)
        first.extra = 2
        try db.save(first)
        #expect(try r17sDump(db, "SELECT quote(extra) FROM r17s_thing") == ["2"])
    }
}
