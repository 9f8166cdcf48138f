import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Every SQLite failure surfaces as a DatabaseError carrying the extended code, the message and the SQL.

@Suite struct ErrorTests {
    @Test func syntaxErrorWithoutArguments() throws {
        let db = try Database()
        let sql = "SELEC 1"
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql) }
        #expect(error.code == .error)
        #expect(error.code.primary == .error)
        #expect(error.sql == sql)
        #expect(error.message.contains("syntax error"))
        #expect(error.description.contains(sql))
    }

    @Test func syntaxErrorWithArguments() throws {
        let db = try Database()
        let sql = "SELECT ? FORM nowhere"
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql, 1) }
        #expect(error.code == .error)
        #expect(error.sql == sql)
    }

    @Test func missingTable() throws {
        let db = try Database()
        let sql = "SELECT * FROM nope"
        let viaRows = try #require(throws: DatabaseError.self) { _ = try db.rows(sql) }
        #expect(viaRows.code == .error)
        #expect(viaRows.sql == sql)
        #expect(viaRows.message.contains("no such table: nope"))

        let viaValue = try #require(throws: DatabaseError.self) { _ = try db.value(Int.self, sql) }
        #expect(viaValue.code == .error)
        #expect(viaValue.sql == sql)

        let insert = "INSERT INTO nope(x) VALUES (1)"
        let viaExecute = try #require(throws: DatabaseError.self) { try db.execute(insert) }
        #expect(viaExecute.sql == insert)
        #expect(viaExecute.message.contains("no such table"))
    }

    @Test func uniqueConstraintViolation() throws {
        let db = try Database()
        try db.execute("CREATE TABLE user(id INTEGER PRIMARY KEY, email TEXT UNIQUE)")
        let sql = "INSERT INTO user(email) VALUES (?)"
        try db.execute(sql, "ada@example.com")
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql, "ada@example.com") }
        #expect(error.code == .constraintUnique)
        #expect(error.code.primary == .constraint)
        #expect(error.code != .constraint)
        #expect(error.sql == sql)
        #expect(error.arguments == [.text("ada@example.com")])
        #expect(error.message.contains("UNIQUE constraint failed: user.email"))
        // The code also matches its primary code in a switch.
        switch error.code {
        case .constraint: break
        default: Issue.record("\(error.code) did not match .constraint")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM user") == 1)

        // The same failure from a script, without arguments.
        let literal = "INSERT INTO user(email) VALUES ('ada@example.com')"
        let scriptError = try #require(throws: DatabaseError.self) { try db.execute(literal) }
        #expect(scriptError.code == .constraintUnique)
        #expect(scriptError.sql == literal)
    }

    @Test func primaryKeyConstraintViolation() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO t(id) VALUES (?)", 1)
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t(id) VALUES (?)", 1) }
        #expect(error.code == .constraintPrimaryKey)
        #expect(error.code.primary == .constraint)
    }

    @Test func notNullConstraintViolation() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        let sql = "INSERT INTO t(name) VALUES (?)"
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql, String?.none) }
        #expect(error.code == .constraintNotNull)
        #expect(error.code.primary == .constraint)
        #expect(error.sql == sql)
        #expect(error.arguments == [.null])
        #expect(error.message.contains("NOT NULL constraint failed: t.name"))
    }

    @Test func foreignKeyConstraintViolation() throws {
        let db = try Database()   // foreign keys are on by default
        try db.execute("""
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
            """)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO child(parent_id) VALUES (?)", 99)
        }
        #expect(error.code == .constraintForeignKey)
    }

    @Test func argumentsAreHiddenByDefault() throws {
        let db = try Database()
        #expect(db.configuration.publicArguments == false)
        try db.execute("CREATE TABLE user(email TEXT UNIQUE)")
        let secret = "secret-\(UUID().uuidString)@example.com"
        try db.execute("INSERT INTO user(email) VALUES (?)", secret)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO user(email) VALUES (?)", secret)
        }
        #expect(!error.argumentsArePublic)
        #expect(!error.description.contains(secret))
        #expect(error.description.contains("1 argument(s) (hidden)"))
        #expect(error.description.contains("INSERT INTO user(email) VALUES (?)"))
        #expect(!String(describing: error).contains(secret))
        // The values stay available to code that handles the error.
        #expect(error.arguments == [.text(secret)])
    }

    @Test func argumentsAreShownWhenPublic() throws {
        var configuration = Database.Configuration()
        configuration.publicArguments = true
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE user(email TEXT UNIQUE, age INTEGER)")
        let secret = "public-\(UUID().uuidString)@example.com"
        try db.execute("INSERT INTO user(email, age) VALUES (?, ?)", secret, 36)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO user(email, age) VALUES (?, ?)", secret, 37)
        }
        #expect(error.argumentsArePublic)
        #expect(error.description.contains(secret))
        #expect(error.description.contains("37"))
        #expect(!error.description.contains("hidden"))
    }

    @Test func busyWhenAnotherConnectionHoldsTheWriteLock() throws {
        let file = try TemporaryDatabase()
        let first = file.db
        try first.execute("CREATE TABLE t(x INTEGER)")
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let second = try Database(path: file.path, configuration: configuration)
        defer { try? second.close() }

        try first.execute("BEGIN IMMEDIATE")
        #expect(first.isInTransaction)

        let sql = "INSERT INTO t(x) VALUES (?)"
        let error = try #require(throws: DatabaseError.self) { try second.execute(sql, 1) }
        #expect(error.code.primary == .busy)
        #expect(error.sql == sql)

        let script = "INSERT INTO t(x) VALUES (2)"
        let scriptError = try #require(throws: DatabaseError.self) { try second.execute(script) }
        #expect(scriptError.code.primary == .busy)
        #expect(scriptError.sql == script)

        // Reading is still allowed under a RESERVED lock; after the commit the write goes through.
        #expect(try second.value(Int.self, "SELECT count(*) FROM t") == 0)
        try first.execute("COMMIT")
        try second.execute(sql, 3)
        #expect(try first.value(Int.self, "SELECT count(*) FROM t") == 1)
        #expect(!second.isInTransaction)
    }

    @Test func busyReadingUnderAnExclusiveLock() throws {
        // A rollback journal: in WAL mode (the default for new files) readers are never blocked.
        var rollbackJournal = Database.Configuration()
        rollbackJournal.journalMode = .delete
        let file = try TemporaryDatabase(configuration: rollbackJournal)
        let first = file.db
        try first.execute("CREATE TABLE t(x INTEGER); INSERT INTO t(x) VALUES (1)")
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let second = try Database(path: file.path, configuration: configuration)
        defer { try? second.close() }

        try first.execute("BEGIN EXCLUSIVE")
        try first.execute("INSERT INTO t(x) VALUES (2)")
        let sql = "SELECT count(*) FROM t"
        let error = try #require(throws: DatabaseError.self) { _ = try second.value(Int.self, sql) }
        #expect(error.code.primary == .busy)
        #expect(error.sql == sql)
        try first.execute("ROLLBACK")
        #expect(try second.value(Int.self, sql) == 1)
    }

    @Test func aModelFetchUnderAnExclusiveLockSaysWhatItWaitedFor() throws {
        // Before a model call the handle reads PRAGMA data_version to merge other connections' commits; a busy
        // error there used to name that pragma as the failing SQL, a statement the user never wrote.
        final class Tally: Model {
            var id: Int64 = 0
            var count = 0
            required init() {}
        }
        var rollbackJournal = Database.Configuration()
        rollbackJournal.journalMode = .delete
        let file = try TemporaryDatabase(configuration: rollbackJournal)
        let first = file.db
        let tally = Tally(); tally.count = 1
        try first.save(tally)
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let second = try Database(path: file.path, configuration: configuration)
        defer { try? second.close() }
        #expect(try second.objects(Tally.self).map(\.count) == [1])

        try first.execute("BEGIN EXCLUSIVE")
        try first.execute("UPDATE Tally SET count = 2")
        let error = try #require(throws: DatabaseError.self) { _ = try second.objects(Tally.self) }
        #expect(error.code.primary == .busy)
        #expect(error.sql == nil)
        #expect(!error.description.contains("PRAGMA"))
        #expect(error.message.contains("other connections' commits"))
        try first.execute("COMMIT")
        #expect(try second.objects(Tally.self).map(\.count) == [2])
    }

    @Test func fileThatIsNotADatabase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("garbage.sqlite").path
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        #expect(FileManager.default.createFile(atPath: path, contents: garbage))

        let error = try #require(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(error.code == .notADatabase)
        // Opening again behaves the same (nothing was left half-closed).
        let again = try #require(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(again.code == .notADatabase)
        // The file is untouched.
        #expect(FileManager.default.contents(atPath: path) == garbage)
    }

    @Test func readOnlyDatabaseRejectsWrites() throws {
        let file = try TemporaryDatabase()
        try file.db.execute("CREATE TABLE t(x)")
        var configuration = Database.Configuration()
        configuration.readOnly = true
        let reader = try Database(path: file.path, configuration: configuration)
        defer { try? reader.close() }
        #expect(try reader.value(Int.self, "SELECT count(*) FROM t") == 0)
        let error = try #require(throws: DatabaseError.self) { try reader.execute("INSERT INTO t(x) VALUES (1)") }
        #expect(error.code.primary == .readOnly)
    }

    @Test func usingAClosedDatabaseThrowsMisuse() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(x)")
        let statement = try db.statement("SELECT x FROM t")
        try db.close()

        let viaExecute = try #require(throws: DatabaseError.self) { try db.execute("SELECT 1") }
        #expect(viaExecute.code == .misuse)
        let viaExecuteArguments = try #require(throws: DatabaseError.self) { try db.execute("SELECT ?", 1) }
        #expect(viaExecuteArguments.code == .misuse)
        let viaRows = try #require(throws: DatabaseError.self) { _ = try db.rows("SELECT x FROM t") }
        #expect(viaRows.code == .misuse)
        let viaValue = try #require(throws: DatabaseError.self) { _ = try db.value(Int.self, "SELECT 1") }
        #expect(viaValue.code == .misuse)
        let viaStatement = try #require(throws: DatabaseError.self) { _ = try db.statement("SELECT 1") }
        #expect(viaStatement.code == .misuse)

        // A statement prepared before the close fails too, instead of touching a finalized handle.
        let viaOldStatement = try #require(throws: DatabaseError.self) { try statement.bind([]) }
        #expect(viaOldStatement.code == .misuse)
        let viaOldStep = try #require(throws: DatabaseError.self) { _ = try statement.step() }
        #expect(viaOldStep.code == .misuse)

        // Closing twice is harmless.
        try db.close()
    }

    @Test func statementOutlivingItsDatabaseThrowsMisuse() throws {
        var db: Database? = try Database()
        let statement = try #require(db).statement("SELECT ?")
        db = nil   // the connection is gone; the statement was finalized with it
        let bindError = try #require(throws: DatabaseError.self) { try statement.bind([1]) }
        #expect(bindError.code == .misuse)
        #expect(bindError.sql == "SELECT ?")
        let stepError = try #require(throws: DatabaseError.self) { _ = try statement.step() }
        #expect(stepError.code == .misuse)
        #expect(throws: DatabaseError.self) { try statement.bind(.integer(1), at: 1) }
        #expect(throws: DatabaseError.self) { try statement.run([1]) }
        #expect(statement.value(at: 0) == .null)
        statement.reset()
    }

    @Test func wrongNumberOfArgumentsThrows() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a, b)")
        let sql = "INSERT INTO t(a, b) VALUES (?, ?)"
        let tooFew = try #require(throws: DatabaseError.self) { try db.execute(sql, 1) }
        #expect(tooFew.sql == sql)
        #expect(tooFew.code == .range)
        let tooMany = try #require(throws: DatabaseError.self) { try db.execute(sql, 1, 2, 3) }
        #expect(tooMany.sql == sql)
        let noneExpected = try #require(throws: DatabaseError.self) { _ = try db.rows("SELECT 1", 1) }
        #expect(noneExpected.code == .range)
        let missing = try #require(throws: DatabaseError.self) { _ = try db.rows("SELECT ?") }
        #expect(missing.code == .range)
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
        // The cached statement still works with the right arguments afterwards.
        try db.execute(sql, 1, 2)
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 1)
    }

    @Test func multiStatementExecuteWithoutArguments() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE a(x);
            -- a comment between statements
            CREATE TABLE b(y);
            INSERT INTO a(x) VALUES (1); INSERT INTO a(x) VALUES (2);
            INSERT INTO b(y) SELECT x * 10 FROM a;
            """)
        #expect(try db.column(Int.self, "SELECT y FROM b ORDER BY y") == [10, 20])
        // An empty script does nothing.
        try db.execute("")
        try db.execute("  ;  ")
    }

    @Test func scriptStopsAtTheFailingStatement() throws {
        let db = try Database()
        try db.execute("CREATE TABLE a(x UNIQUE)")
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO a(x) VALUES (1); INSERT INTO a(x) VALUES (1); INSERT INTO a(x) VALUES (2)")
        }
        #expect(error.code == .constraintUnique)
        #expect(try db.column(Int.self, "SELECT x FROM a") == [1])
    }

    @Test func statementWithTwoStatementsThrows() throws {
        let db = try Database()
        let sql = "SELECT 1; SELECT 2"
        let error = try #require(throws: DatabaseError.self) { _ = try db.statement(sql) }
        #expect(error.sql == sql)
        // With arguments, execute needs exactly one statement too.
        try db.execute("CREATE TABLE t(x)")
        #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t(x) VALUES (?); INSERT INTO t(x) VALUES (2)", 1)
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
        // A trailing semicolon is still one statement.
        _ = try db.statement("SELECT 1;")
    }

    @Test func resultCodeDescriptionAndPrimary() {
        #expect(ResultCode.constraintUnique.rawValue == 2067)
        #expect(ResultCode.constraintNotNull.primary == .constraint)
        #expect(ResultCode.busySnapshot.primary == .busy)
        #expect(ResultCode.busy.description.contains("5"))
        let error = DatabaseError(code: .misuse, message: "closed", sql: "SELECT 1")
        #expect(error.description.contains("closed"))
        #expect(error.description.contains("SELECT 1"))
    }
}
