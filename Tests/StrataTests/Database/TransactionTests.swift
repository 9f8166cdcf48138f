import Foundation
import StrataTestSupport
import Testing
@testable import Strata

private struct Oops: Error, Equatable {
    var tag = "oops"
}

/// Collects traced SQL (a class, so the escaping observer can append to it).
private final class TraceLog {
    var statements: [String] = []
    /// The traced statements that are among `sql` (the library may run bookkeeping statements of its own).
    func only(_ sql: Set<String>) -> [String] { statements.filter(sql.contains) }
}

@Suite struct TransactionTests {
    private func makeTable(_ db: Database) throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER)")
    }

    private func values(_ db: Database) throws -> [Int] {
        try db.column(Int.self, "SELECT x FROM t ORDER BY id")
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func commitPersists() throws {
        let file = try TestDatabase()
        try makeTable(file.db)
        let result = try file.db.transaction {
            try file.db.execute("INSERT INTO t(x) VALUES (?)", 1)
            try file.db.execute("INSERT INTO t(x) VALUES (?)", 2)
            #expect(file.db.isInTransaction)
            return "done"
        }
        #expect(result == "done")
        #expect(!file.db.isInTransaction)
        // Another handle (and a reopened one) sees the committed rows.
        let other = try file.openAnother()
        #expect(try values(other) == [1, 2])
        try other.close()
        let reopened = try file.reopen()
        #expect(try values(reopened) == [1, 2])
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid"),
          arguments: [Database.TransactionKind.deferred, .immediate, .exclusive])
    func eachKindCommits(kind: Database.TransactionKind) throws {
        let file = try TestDatabase()
        try makeTable(file.db)
        try file.db.transaction(kind) {
            try file.db.execute("INSERT INTO t(x) VALUES (?)", 7)
        }
        #expect(!file.db.isInTransaction)
        #expect(try values(file.db) == [7])
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func thrownErrorRollsBackAndIsRethrown() throws {
        let db = try TestDatabase.make()
        try makeTable(db)
        try db.execute("INSERT INTO t(x) VALUES (?)", 1)
        let error = try #require(throws: Oops.self) {
            try db.transaction {
                try db.execute("INSERT INTO t(x) VALUES (?)", 2)
                try db.execute("UPDATE t SET x = x * 10")
                throw Oops(tag: "mine")
            }
        }
        #expect(error == Oops(tag: "mine"))
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
    }

    @Test func databaseErrorInsideRollsBackEverything() throws {
        let db = try TestDatabase.make()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER UNIQUE)")
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction {
                try db.execute("INSERT INTO t(id, x) VALUES (?, ?)", 1, 1)
                try db.execute("INSERT INTO t(id, x) VALUES (?, ?)", 2, 1)
            }
        }
        #expect(error.code == .constraintUnique)
        #expect(!db.isInTransaction)
        #expect(try values(db) == [])
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func innerSavepointRollsBackAloneWhileOuterCommits() throws {
        let file = try TestDatabase()
        let db = file.db
        try makeTable(db)
        try db.transaction {
            try db.execute("INSERT INTO t(x) VALUES (?)", 1)
            #expect(throws: Oops.self) {
                try db.transaction {
                    try db.execute("INSERT INTO t(x) VALUES (?)", 2)
                    #expect(try values(db) == [1, 2])
                    throw Oops()
                }
            }
            // Still inside the outer transaction, which sees its own write but not the inner one.
            #expect(db.isInTransaction)
            #expect(try values(db) == [1])
            try db.transaction {
                try db.execute("INSERT INTO t(x) VALUES (?)", 3)
            }
            try db.execute("INSERT INTO t(x) VALUES (?)", 4)
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1, 3, 4])
        #expect(try values(try file.reopen()) == [1, 3, 4])
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func deeplyNestedSavepoints() throws {
        let db = try TestDatabase.make()
        try makeTable(db)
        try db.transaction {
            try db.execute("INSERT INTO t(x) VALUES (1)")
            try db.transaction {
                try db.execute("INSERT INTO t(x) VALUES (2)")
                try? db.transaction {
                    try db.execute("INSERT INTO t(x) VALUES (3)")
                    try db.transaction {
                        try db.execute("INSERT INTO t(x) VALUES (4)")
                    }
                    throw Oops()
                }
                try db.execute("INSERT INTO t(x) VALUES (5)")
            }
        }
        #expect(try values(db) == [1, 2, 5])
        #expect(!db.isInTransaction)
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func errorOutOfOuterBlockLeavesNoTransactionAndNothingWritten() throws {
        let file = try TestDatabase()
        let db = file.db
        try makeTable(db)
        #expect(throws: Oops.self) {
            try db.transaction {
                try db.execute("INSERT INTO t(x) VALUES (?)", 1)
                try db.transaction {   // released savepoint: still undone with the outer transaction
                    try db.execute("INSERT INTO t(x) VALUES (?)", 2)
                }
                throw Oops()
            }
        }
        #expect(db.isInTransaction == false)
        #expect(try values(db) == [])
        // Nothing was written to the file either, and the handle is usable for a new transaction.
        let other = try file.openAnother()
        #expect(try values(other) == [])
        try other.close()
        try db.transaction { try db.execute("INSERT INTO t(x) VALUES (?)", 9) }
        #expect(try values(db) == [9])
    }

    @Test func failedCommitRollsBack() throws {
        // A deferred foreign key is only checked at COMMIT, which then fails: the transaction must not stay open.
        let db = try TestDatabase.make()
        try db.execute("""
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY,
                               parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction {
                try db.execute("INSERT INTO child(id, parent_id) VALUES (?, ?)", 1, 42)
            }
        }
        #expect(error.code == .constraintForeignKey)
        #expect(!db.isInTransaction)
        #expect(try db.value(Int.self, "SELECT count(*) FROM child") == 0)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func dropStatementsTakeEffect() throws {
        // DDL run through execute must not be silently skipped (e.g. by an authorizer answering SQLITE_IGNORE).
        let db = try TestDatabase.make()
        try db.execute("CREATE TABLE a(x); CREATE TABLE b(y); CREATE VIEW v AS SELECT x FROM a; CREATE INDEX b_y ON b(y)")
        try db.execute("INSERT INTO a(x) VALUES (?)", 1)
        try db.execute("DROP VIEW v")
        try db.execute("DROP INDEX b_y")
        try db.execute("DROP TABLE a")
        try db.execute("DROP TABLE IF EXISTS b")
        try db.execute("DROP TABLE IF EXISTS never_existed")
        #expect(try db.column(String.self, "SELECT name FROM sqlite_master") == [])
        try db.execute("CREATE TABLE a(x TEXT)")   // the name is free again
        try db.transaction { try db.execute("DROP TABLE a") }
        #expect(try db.column(String.self, "SELECT name FROM sqlite_master") == [])
        #expect(throws: DatabaseError.self) { try db.execute("DROP TABLE a") }
    }

    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func lastInsertRowIDAndChanges() throws {
        let db = try TestDatabase.make()
        try makeTable(db)
        try db.execute("INSERT INTO t(x) VALUES (?)", 10)
        #expect(db.lastInsertRowID == 1)
        #expect(db.changes == 1)
        try db.execute("INSERT INTO t(id, x) VALUES (?, ?)", 41, 20)
        #expect(db.lastInsertRowID == 41)
        try db.execute("INSERT INTO t(x) VALUES (?)", 30)
        #expect(db.lastInsertRowID == 42)
        try db.execute("UPDATE t SET x = x + 1 WHERE x >= ?", 20)
        #expect(db.changes == 2)
        try db.execute("DELETE FROM t")
        #expect(db.changes == 3)
        #expect(db.lastInsertRowID == 42)   // unchanged by DELETE
        try db.execute("UPDATE t SET x = 0")
        #expect(db.changes == 0)
    }

    // PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())")) func limitsAndVersion() throws {
        let db = try TestDatabase.make()
        #expect(db.maximumArguments > 0)
        #expect(db.maximumArguments >= 999)
        #expect(Database.sqliteVersion.hasPrefix("3."))
        #expect(try db.value(String.self, "SELECT sqlite_version()") == Database.sqliteVersion)
        // As many arguments as the limit allows bind in one statement; one more does not prepare.
        let count = db.maximumArguments
        let sql = "SELECT 5 IN (" + Array(repeating: "?", count: count).joined(separator: ",") + ")"
        let arguments: [any ColumnValue] = Array(repeating: 0, count: count - 1) + [5]
        let rows = try db.rows(sql, arguments: arguments)
        #expect(rows.first?.values == [.integer(1)])
        let tooMany = try #require(throws: DatabaseError.self) {
            _ = try db.rows("SELECT 1 IN (" + Array(repeating: "?", count: count + 1).joined(separator: ",") + ")")
        }
        #expect(tooMany.code == .error)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func traceSeesExecutedSQLUntilCancelled() throws {
        let db = try TestDatabase.make()
        let log = TraceLog()
        let trace = db.traceStatements { log.statements.append($0) }
        try db.execute("CREATE TABLE traced(x)")
        try db.execute("INSERT INTO traced(x) VALUES (?)", 1)
        _ = try db.rows("SELECT x FROM traced")
        #expect(log.statements.contains("CREATE TABLE traced(x)"))
        #expect(log.statements.contains("INSERT INTO traced(x) VALUES (?)"))
        #expect(log.statements.contains("SELECT x FROM traced"))
        // Parameters are not expanded into the traced SQL.
        #expect(!log.statements.contains { $0.contains("VALUES (1)") })

        trace.cancel()
        let seen = log.statements.count
        try db.execute("INSERT INTO traced(x) VALUES (?)", 2)
        _ = try db.value(Int.self, "SELECT count(*) FROM traced")
        #expect(log.statements.count == seen)
        trace.cancel()  // cancelling twice is harmless
    }

    @Test func releasingTheTraceStopsIt() throws {
        let db = try TestDatabase.make()
        let log = TraceLog()
        var trace: StatementTrace? = db.traceStatements { log.statements.append($0) }
        try db.execute("SELECT 1")
        #expect(log.only(["SELECT 1", "SELECT 2"]) == ["SELECT 1"])
        #expect(trace != nil)
        trace = nil
        let seen = log.statements.count
        try db.execute("SELECT 2")
        #expect(log.statements.count == seen)
    }

    @Test func twoTracesBothSeeStatements() throws {
        let db = try TestDatabase.make()
        let first = TraceLog(), second = TraceLog()
        let a = db.traceStatements { first.statements.append($0) }
        let b = db.traceStatements { second.statements.append($0) }
        try db.execute("SELECT 1")
        a.cancel()
        try db.execute("SELECT 2")
        b.cancel()
        #expect(first.only(["SELECT 1", "SELECT 2"]) == ["SELECT 1"])
        #expect(second.only(["SELECT 1", "SELECT 2"]) == ["SELECT 1", "SELECT 2"])
    }

    // PostgreSQL: prepared statements, the statement cache and bare statements inside a raw transaction are SQLite handle API
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite handle API (statements)")) func statementCacheReturnsTheSameObject() throws {
        let db = try TestDatabase.make()
        try makeTable(db)
        let sql = "SELECT x FROM t WHERE id = ?"
        let first = try db.statement(sql)
        let second = try db.statement(sql)
        #expect(first === second)
        #expect(try db.statement("SELECT x FROM t") !== first)
        #expect(first.sql == sql)
        #expect(first.parameterCount == 1)
        #expect(first.columnCount == 1)
        #expect(first.columnNames == ["x"])

        // A cached statement comes back reset, ready to run again.
        try db.execute("INSERT INTO t(id, x) VALUES (1, 10), (2, 20)")
        try first.bind([1])
        #expect(try first.step())
        #expect(first.int64(at: 0) == 10)
        let again = try db.statement(sql)
        #expect(again === first)
        try again.bind([2])
        #expect(try again.step())
        #expect(again.value(at: 0) == .integer(20))
        #expect(try again.step() == false)
        again.reset()
    }

    // PostgreSQL: prepared statements, the statement cache and bare statements inside a raw transaction are SQLite handle API
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite handle API (statements)")) func statementRunsManyTimes() throws {
        let db = try TestDatabase.make()
        try makeTable(db)
        let insert = try db.statement("INSERT INTO t(x) VALUES (?)")
        for x in 0..<100 { try insert.run([x]) }
        #expect(try db.value(Int.self, "SELECT sum(x) FROM t") == 4950)
        let named = try db.statement("SELECT count(*) FROM t WHERE x >= :min")
        try named.bind(90, named: ":min")
        #expect(try named.step())
        #expect(named.int64(at: 0) == 10)
        named.reset()
        #expect(throws: DatabaseError.self) { try named.bind(1, named: ":nope") }
    }
}
