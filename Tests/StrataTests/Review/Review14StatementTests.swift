import Foundation
import StrataTestSupport
import Testing
@testable import Strata
import CSQLite

// Review 14: change reporting around statements SQLite re-prepares after a schema change (it fires the
// rollback hook first, in autocommit mode) and around raw `ROLLBACK TO`, which fires no hook at all.

private final class R14Item: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private typealias Seen = SeenChanges<R14Item>

@Suite struct Review14StatementTests {
    private func setUp() throws -> (TemporaryDatabase, Database) {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(R14Item.self)
        let other = try Database(path: temp.path)
        return (temp, other)
    }

    /// A cached `db.execute` statement re-prepared after another handle's ALTER TABLE: its insert is reported.
    @Test func aCachedExecuteReprearedAfterAnotherHandlesAlterIsReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        try db.execute("INSERT INTO R14Item (name) VALUES (?)", "a")
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try other.execute("ALTER TABLE R14Item ADD COLUMN extra TEXT")
        try db.execute("INSERT INTO R14Item (name) VALUES (?)", "b")
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]"])
        try other.close()
    }

    /// The same after another handle's CREATE INDEX, for an UPDATE: the live instance and the observer agree.
    @Test func aCachedUpdateReprearedAfterAnotherHandlesIndexIsReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let item = R14Item(); item.name = "a"
        try db.save(item)
        let seen = Seen(db)
        try db.execute("UPDATE R14Item SET name = ? WHERE id = ?", "b", item.id)
        #expect(seen.take(db) == ["R14Item i[] u[1] d[]"])
        try other.execute("CREATE INDEX r14_name ON R14Item(name)")
        try db.execute("UPDATE R14Item SET name = ? WHERE id = ?", "c", item.id)
        #expect(item.name == "c")
        #expect(seen.take(db) == ["R14Item i[] u[1] d[]"])
        try other.close()
    }

    /// A model save after another handle's schema change: reported.
    @Test func aSaveAfterAnotherHandlesIndexIsReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        let a = R14Item(); a.name = "a"
        try db.save(a)
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try other.execute("CREATE INDEX r14_name ON R14Item(name)")
        let b = R14Item(); b.name = "b"
        try db.save(b)
        a.name = "a2"
        try db.save(a)
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]", "R14Item i[] u[1] d[]"])
        try other.close()
    }

    /// `db.rows` of a writing statement (RETURNING), cached, re-prepared after another handle's ALTER.
    @Test func rowsOfAWriteReprearedAfterAnotherHandlesAlterAreReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        _ = try db.rows("INSERT INTO R14Item (name) VALUES (?) RETURNING id", "a")
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try other.execute("ALTER TABLE R14Item ADD COLUMN extra TEXT")
        let rows = try db.rows("INSERT INTO R14Item (name) VALUES (?) RETURNING id", "b")
        #expect(rows.first?["id"] == .integer(2))
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]"])
        try other.close()
    }

    /// A `Statement` the user prepared, run again after another handle's ALTER TABLE: reported at the next call.
    @Test func aUserStatementReprearedAfterAnotherHandlesAlterIsReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        let insert = try db.statement("INSERT INTO R14Item (name) VALUES (?)")
        try insert.run(["a"])
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try other.execute("ALTER TABLE R14Item ADD COLUMN extra TEXT")
        try insert.run(["b"])
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]"])
        try other.close()
    }

    /// This handle's own DDL after a statement was cached: the next run is reported.
    @Test func aCachedStatementAfterOwnDDLIsReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        try db.execute("INSERT INTO R14Item (name) VALUES (?)", "a")
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try db.execute("CREATE INDEX r14_name ON R14Item(name)")
        #expect(seen.take(db) == [])
        try db.execute("INSERT INTO R14Item (name) VALUES (?)", "b")
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]"])
        try other.close()
    }

    /// A real rollback still reports nothing: a failing autocommit statement, OR ROLLBACK, a script's ROLLBACK.
    @Test func realRollbacksReportNothing() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        try db.execute("CREATE UNIQUE INDEX r14_unique ON R14Item(name)")
        let a = R14Item(); a.name = "a"
        try db.save(a)
        let seen = Seen(db)
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO R14Item (name) VALUES ('x'), ('a')") }
        #expect(seen.take(db) == [])
        #expect(throws: DatabaseError.self) {
            try db.execute("BEGIN; INSERT INTO R14Item (name) VALUES ('y'); INSERT OR ROLLBACK INTO R14Item (name) VALUES ('a')")
        }
        #expect(!db.isInTransaction)
        #expect(seen.take(db) == [])
        try db.execute("BEGIN; UPDATE R14Item SET name = 'z'; ROLLBACK")
        #expect(seen.take(db) == [])
        #expect(a.name == "a")
        #expect(try db.value(Int.self, "SELECT count(*) FROM R14Item") == 1)
        try other.close()
    }

    /// A script that rolls back a transaction and then writes in autocommit reports the later write.
    @Test func aScriptThatRollsBackThenWritesReportsTheWrite() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        try db.execute("BEGIN; INSERT INTO R14Item (name) VALUES ('x'); ROLLBACK; INSERT INTO R14Item (name) VALUES ('y')")
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        #expect(try db.object(R14Item.self, forKey: 1)?.name == "y")
        try other.close()
    }

    /// A WITHOUT ROWID table's write by a re-prepared statement (reported without row IDs) still reaches observers.
    @Test func aReprearedWriteToAWithoutRowIDTableIsReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        try db.execute("CREATE TABLE w (k TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        let seen = Seen(db)
        try db.execute("INSERT INTO w (k, n) VALUES (?, ?)", "a", 1)
        #expect(seen.take(db) == ["w i[] u[] d[]"])
        try other.execute("ALTER TABLE w ADD COLUMN extra TEXT")
        try db.execute("INSERT INTO w (k, n) VALUES (?, ?)", "b", 2)
        #expect(seen.take(db) == ["w i[] u[] d[]"])
        try other.close()
    }

    /// A script's statements of autocommit mode that committed before a failing one stay reported; a
    /// script's transaction committed before another one it rolls back stays reported.
    @Test func writesCommittedBeforeARollbackInOneScriptStayReported() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        try db.execute("CREATE UNIQUE INDEX r14_unique ON R14Item(name)")
        let seen = Seen(db)
        #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO R14Item (name) VALUES ('p'); INSERT INTO R14Item (name) VALUES ('x'), ('p')")
        }
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try db.execute("BEGIN; INSERT INTO R14Item (name) VALUES ('q'); COMMIT; BEGIN; INSERT INTO R14Item (name) VALUES ('r'); ROLLBACK")
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]"])
        #expect(try db.column(String.self, "SELECT name FROM R14Item ORDER BY id") == ["p", "q"])
        try other.close()
    }

    /// A pool's change stream gets the write of a statement its writer re-prepared after another handle's ALTER.
    @Test func aPoolsChangeStreamGetsAReprearedWrite() async throws {
        let (temp, other) = try setUp()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        let stream = pool.changes(ofTables: ["R14Item"])
        try await pool.write { try $0.execute("INSERT INTO R14Item (name) VALUES (?)", "a") }
        try other.execute("ALTER TABLE R14Item ADD COLUMN extra TEXT")
        try await pool.write { try $0.execute("INSERT INTO R14Item (name) VALUES (?)", "b") }
        try await pool.close()
        var inserted: [[Int64]] = []
        for await change in stream { inserted.append(change.insertedRowIDs.sorted()) }
        #expect(inserted == [[1], [2]])
        try other.close()
    }
    // MARK: ROLLBACK TO

    /// A script whose savepoint is rolled back inside a transaction it commits: only the kept rows are reported.
    @Test func aScriptRollingBackToASavepointReportsOnlyWhatItCommits() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let a = R14Item(); a.name = "a"
        try db.save(a)
        let seen = Seen(db)
        try db.execute("BEGIN; SAVEPOINT s; INSERT INTO R14Item (name) VALUES ('x'); UPDATE R14Item SET name = 'changed' WHERE id = 1; ROLLBACK TO s; INSERT INTO R14Item (name) VALUES ('y'); COMMIT")
        #expect(seen.take(db) == ["R14Item i[2] u[] d[]"])
        #expect(a.name == "a")
        #expect(try db.value(String.self, "SELECT name FROM R14Item WHERE id = 2") == "y")
        try other.close()
    }

    /// A bare `Statement` running ROLLBACK TO: what it undid is not reported and live instances match.
    @Test func aBareStatementRollingBackToASavepointIsChecked() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let a = R14Item(); a.name = "a"
        try db.save(a)
        let seen = Seen(db)
        try db.execute("BEGIN")
        try db.statement("SAVEPOINT s").run()
        try db.statement("INSERT INTO R14Item (name) VALUES ('x')").run()
        try db.statement("UPDATE R14Item SET name = 'changed' WHERE id = 1").run()
        _ = seen.take(db)
        #expect(a.name == "changed")
        try db.statement("ROLLBACK TO s").run()
        #expect(seen.take(db) == [])
        #expect(a.name == "a")
        try db.execute("COMMIT")
        #expect(seen.take(db) == [])
        #expect(a.name == "a")
        #expect(try db.value(Int.self, "SELECT count(*) FROM R14Item") == 1)
        try other.close()
    }

    /// ROLLBACK TO inside a script that ends in autocommit (RELEASE of the outermost savepoint).
    @Test func aSavepointTransactionRolledBackToAndReleasedReportsOnlyWhatItKept() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        try db.execute("SAVEPOINT outer; INSERT INTO R14Item (name) VALUES ('x'); SAVEPOINT inner; INSERT INTO R14Item (name) VALUES ('y'); ROLLBACK TO inner; RELEASE outer")
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        try other.close()
    }


    /// A raw savepoint rolled back inside a transaction block: the block reports only what it kept, and a
    /// save the savepoint undid leaves its instance unsaved.
    @Test func aRawSavepointRolledBackInsideATransactionBlockReportsOnlyWhatItKept() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        let kept = R14Item(); kept.name = "kept"
        let undone = R14Item(); undone.name = "undone"
        try db.transaction {
            try db.save(kept)
            try db.execute("SAVEPOINT raw")
            try db.save(undone)
            try db.execute("UPDATE R14Item SET name = 'changed' WHERE id = ?", kept.id)
            try db.execute("ROLLBACK TO raw")
            #expect(kept.name == "kept")
            #expect(undone.id == 0)
            try db.execute("RELEASE raw")
        }
        #expect(seen.take(db) == ["R14Item i[1] u[] d[]"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM R14Item") == 1)
        try other.close()
    }

    /// A nested transaction block that throws after raw SQL opened a savepoint in it: nothing of it is reported.
    @Test func aNestedBlockRolledBackAfterARawSavepointReportsNothingOfIt() throws {
        let (temp, other) = try setUp()
        let db = temp.db
        let seen = Seen(db)
        struct Stop: Error {}
        try db.transaction {
            try db.execute("INSERT INTO R14Item (name) VALUES ('outer')")
            #expect(throws: Stop.self) {
                try db.transaction {
                    try db.execute("SAVEPOINT raw; INSERT INTO R14Item (name) VALUES ('inner')")
                    throw Stop()
                }
            }
            try db.execute("INSERT INTO R14Item (name) VALUES ('after')")
        }
        #expect(seen.take(db) == ["R14Item i[1, 2] u[] d[]"])
        #expect(try db.column(String.self, "SELECT name FROM R14Item ORDER BY id") == ["outer", "after"])
        try other.close()
    }
}
