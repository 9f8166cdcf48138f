import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Regressions found by a second review of change tracking: nested savepoints, stale rollback flags,
// REPLACE on text keys under rollback, faults racing bare statements, triggers on the row being saved.

private struct Boom: Error {}

private final class SrItem: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class SrTag: Model {
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

private final class SrDept: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class SrEmp: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var dept: SrDept?
    required init() {}
}

private final class SrStamped: Model {
    var id: Int64 = 0
    var name = ""
    var stamp = ""
    required init() {}
}

@Suite struct SecondReviewTests {
    @Test func aReleasedSavepointsInsertSurvivesASiblingRollback() throws {
        let db = try TestDatabase.make()
        let b = SrItem(); b.name = "b"
        let c = SrItem(); c.name = "c"
        try db.transaction {
            try db.transaction { try db.save(b) }
            _ = try? db.transaction { try db.save(c); throw Boom() }
        }
        #expect(b.isPersisted && b.id == 1)
        #expect(!c.isPersisted && c.id == 0)
        try db.save(b)
        #expect(try db.value(Int.self, "SELECT count(*) FROM \"SrItem\"") == 1)
    }

    @Test func aFailedBareStatementDoesNotUndoALaterTransactionsInsert() throws {
        let db = try TestDatabase.make()
        let a = SrItem(); a.name = "a"
        try db.save(a)
        #expect(throws: DatabaseError.self) {
            try db.statement("INSERT INTO \"SrItem\"(id, name) VALUES (1, 'dup')").run()
        }
        let x = SrItem(); x.name = "x"
        try db.transaction {
            try db.save(x)
            _ = try db.count(SrItem.self)
        }
        #expect(x.isPersisted && x.id == 2)
        try db.save(x)
        #expect(try db.value(Int.self, "SELECT count(*) FROM \"SrItem\"") == 2)
    }

    @Test func replaceOnATextKeyRolledBackLeavesTheInstanceLive() throws {
        let db = try TestDatabase.make()
        let t = SrTag(); t.code = "a"; t.label = "one"
        try db.save(t)
        _ = try? db.transaction {
            try db.execute("INSERT OR REPLACE INTO SrTag(code, label) VALUES ('a', 'two')")
            #expect(t.label == "two")
            throw Boom()
        }
        #expect(!t.isDeleted && t.label == "one")
        #expect(try db.object(SrTag.self, forKey: "a") === t)
    }

    // PostgreSQL: prepared statements, the statement cache and bare statements inside a raw transaction are SQLite handle API
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite handle API (statements)")) func aFaultAfterABareStatementSeesTheNewKey() throws {
        let temp = try TestDatabase()
        let d1 = SrDept(); d1.name = "d1"
        let d2 = SrDept(); d2.name = "d2"
        try temp.db.save([d1, d2])
        let e0 = SrEmp(); e0.name = "e"; e0.dept = d1
        try temp.db.save(e0)
        let db = try temp.reopen()
        let e = try #require(try db.objects(SrEmp.self).first)
        try db.statement("UPDATE SrEmp SET dept = 2 WHERE id = 1").run()
        #expect(e.dept?.name == "d2")
        #expect(e.$dept.key == .integer(2))
        e.name = "renamed"
        try db.save(e)
        #expect(try db.value(Int64.self, "SELECT dept FROM SrEmp WHERE id = 1") == 2)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func aBareStatementFailingInsideARawTransactionDeletesNothing() throws {
        let db = try TestDatabase.make()
        let a = SrItem(); a.name = "a"
        try db.save(a)
        try db.execute("CREATE TRIGGER g AFTER DELETE ON SrItem BEGIN SELECT RAISE(ABORT, 'no'); END")
        try db.execute("BEGIN")
        #expect(throws: DatabaseError.self) { try db.statement("DELETE FROM SrItem WHERE id = 1").run() }
        _ = try db.objects(SrItem.self)
        #expect(!a.isDeleted)
        try db.execute("COMMIT")
        a.name = "z"
        try db.save(a)
        #expect(try db.value(String.self, "SELECT name FROM SrItem") == "z")
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func aTriggerWritingTheSavedRowReachesTheInstance() throws {
        let db = try TestDatabase.make()
        try db.syncSchema(SrStamped.self)
        try db.execute("CREATE TRIGGER s AFTER UPDATE OF name ON SrStamped BEGIN UPDATE SrStamped SET stamp = 'touched' WHERE id = NEW.id; END")
        let x = SrStamped(); x.name = "a"
        try db.save(x)
        x.name = "b"
        try db.save(x)
        #expect(x.stamp == "touched")
    }

    // PostgreSQL: table names that differ in case are different tables there (SQLite folds ASCII case)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: table names that differ in case are different tables")) func ownWritesToATableNamedInAnotherCaseAreNotReloaded() throws {
        let db = try TestDatabase.make()
        try db.execute("CREATE TABLE sritem(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        let x = SrItem(); x.name = "a"
        try db.save(x)
        var seen: [String] = []
        let trace = db.traceStatements { seen.append($0) }
        x.name = "b"
        try db.save(x)
        trace.cancel()
        // The save's own transaction and its one UPDATE; no reload of the row.
        #expect(seen == ["BEGIN IMMEDIATE TRANSACTION", #"UPDATE "SrItem" SET "name" = ? WHERE "id" = ?"#, "COMMIT TRANSACTION"])
    }
}

@Suite struct RolledBackBySQLiteTests {
    // PostgreSQL: the test relies on INTEGER PRIMARY KEY assigning the rowid
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: INTEGER PRIMARY KEY as the rowid")) func aStatementThatRollsBackTheTransactionEndsEveryEnclosingBlock() throws {
        let db = try TestDatabase.make()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try db.execute("INSERT INTO t(name) VALUES ('taken')")
        let a = SrItem(); a.name = "a"
        let b = SrItem(); b.name = "b"
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction {
                try db.save(a)
                _ = try? db.transaction {
                    try db.execute("INSERT OR ROLLBACK INTO t(name) VALUES ('taken')")
                }
                try db.save(b)   // would commit on its own: refused
            }
        }
        #expect(error.code == .abort)
        #expect(!db.isInTransaction)
        #expect(!a.isPersisted && a.id == 0)
        #expect(!b.isPersisted)
        // The table was created by the first save, inside the rolled-back transaction: it is gone, and the
        // next use of the model creates it again.
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'SrItem'") == 0)
        try db.save(a)
        #expect(a.isPersisted)
        #expect(try db.value(Int.self, "SELECT count(*) FROM \"SrItem\"") == 1)
    }
}
