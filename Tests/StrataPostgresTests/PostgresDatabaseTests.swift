import Foundation
import Strata
import StrataPostgres
import Testing

// `Database` on PostgreSQL: the handle's raw SQL, transactions, errors and schema sync run on the server
// through the driver protocols; model calls say they need a SQLite handle so far.

/// A `Database` on the test server in a schema of its own (dropped with everything in it at the end).
func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
    let db = try Database(postgresURL: postgresURL ?? "")
    let schema = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    try db.execute("CREATE SCHEMA \(schema); SET search_path TO \(schema)")
    defer {
        if db.isInTransaction { try? db.execute("ROLLBACK") }
        try? db.execute("DROP SCHEMA \(schema) CASCADE")
        try? db.close()
    }
    return try body(db)
}

/// The `ModelError` `body` throws, or nil (with a recorded issue) when it throws none or another.
func modelError(_ body: () throws -> Void) -> ModelError? {
    do {
        try body()
        Issue.record("no error was thrown")
    } catch let error as ModelError {
        return error
    } catch {
        Issue.record("not a ModelError: \(error)")
    }
    return nil
}

/// The `DatabaseError` `body` throws, or nil (with a recorded issue) when it throws none or another.
func databaseError(_ body: () throws -> Void) -> DatabaseError? {
    do {
        try body()
        Issue.record("no error was thrown")
    } catch let error as DatabaseError {
        return error
    } catch {
        Issue.record("not a DatabaseError: \(error)")
    }
    return nil
}

private final class PGNote: Model {
    static let tableName = "note"
    var id: Int64 = 0
    var text = ""
    var stars = 0
    required init() {}
}

@Suite("PostgreSQL Database handle", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresDatabaseTests {
    @Test func rawSQLBindsQuestionMarksAndReadsValuesBack() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE item(id bigint PRIMARY KEY, score double precision, name text, data bytea, note text, flag boolean)")
            try db.execute("INSERT INTO item VALUES (?, ?, ?, ?, ?, ?)", 1, 0.5, "Zoë ✓", Data([0, 0xFF]), String?.none, true)
            try db.execute("INSERT INTO item(id, name) VALUES (?, ?)", arguments: [2, "what?"])
            try db.execute("INSERT INTO item(id, name) VALUES (3, 'a ? in a literal'); INSERT INTO item(id) VALUES (4)")
            #expect(db.changes == 1)
            #expect(db.totalChanges == 4)

            let rows = try db.rows("SELECT id, score, name, data, note, flag FROM item WHERE id = ?", 1)
            #expect(rows.count == 1)
            #expect(rows[0].columnNames == ["id", "score", "name", "data", "note", "flag"])
            #expect(rows[0].values == [.integer(1), .real(0.5), .text("Zoë ✓"), .blob(Data([0, 0xFF])), .null, .integer(1)])
            #expect(try db.value(Int.self, "SELECT count(*) FROM item") == 4)
            #expect(try db.value(String.self, "SELECT name FROM item WHERE id = ?", 4) == nil)   // NULL
            #expect(try db.value(String.self, "SELECT name FROM item WHERE id = ?", 99) == nil)  // no row
            // `?` in a literal stays a character; a collection argument spreads into one parameter each.
            #expect(try db.column(String.self, "SELECT name FROM item WHERE name LIKE '%?%' ORDER BY id") == ["what?", "a ? in a literal"])
            #expect(try db.column(Int.self, "SELECT id FROM item WHERE id IN (?) ORDER BY id", [2, 4, 9]) == [2, 4])
            #expect(db.path.hasPrefix("postgresql://") || db.path.contains("host="))
        }
    }

    @Test func transactionsCommitRollBackAndNestAsSavepoints() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
            try db.transaction { try db.execute("INSERT INTO t VALUES (1)") }
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try db.transaction {
                    try db.execute("INSERT INTO t VALUES (2)")
                    throw Refused()
                }
            }
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (3)")
                try? db.transaction {          // a savepoint: only its own insert goes
                    try db.execute("INSERT INTO t VALUES (4)")
                    throw Refused()
                }
                #expect(db.isInTransaction)
            }
            #expect(!db.isInTransaction)
            #expect(try db.column(Int.self, "SELECT id FROM t ORDER BY id") == [1, 3])
        }
    }

    @Test func aBlockThatWentOnAfterAFailedStatementCommitsNothingAndSaysSo() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
            try db.execute("INSERT INTO t VALUES (1)")
            let error = databaseError {
                try db.transaction {
                    try db.execute("INSERT INTO t VALUES (2)")
                    _ = try? db.execute("INSERT INTO t VALUES (1)")   // a duplicate, caught: PostgreSQL aborts the transaction
                }
            }
            #expect(error?.code == .abort)
            #expect(error?.sqlState == "25P02")
            #expect(error?.message.contains("nothing the block wrote was committed") == true)
            #expect(!db.isInTransaction)
            #expect(try db.column(Int.self, "SELECT id FROM t ORDER BY id") == [1])
        }
    }

    @Test func errorsCarryTheSQLStateAndTheNearestSQLiteCode() throws {
        try withDatabase { db in
            try db.execute("""
                CREATE TABLE parent(id bigint PRIMARY KEY);
                CREATE TABLE child(id bigint PRIMARY KEY, parent bigint REFERENCES parent(id), name text NOT NULL CHECK (name <> ''))
                """)
            try db.execute("INSERT INTO parent VALUES (1)")
            let unique = databaseError { try db.execute("INSERT INTO parent VALUES (?)", 1) }
            #expect(unique?.code == .constraintUnique && unique?.sqlState == "23505")
            #expect(unique?.sql == "INSERT INTO parent VALUES ($1)")
            #expect(unique?.description.hasPrefix("PostgreSQL error 23505: duplicate key value violates unique constraint") == true)
            let foreign = databaseError { try db.execute("INSERT INTO child VALUES (1, 9, 'a')") }
            #expect(foreign?.code == .constraintForeignKey && foreign?.sqlState == "23503")
            let notNull = databaseError { try db.execute("INSERT INTO child(id) VALUES (1)") }
            #expect(notNull?.code == .constraintNotNull && notNull?.sqlState == "23502")
            let check = databaseError { try db.execute("INSERT INTO child VALUES (1, 1, '')") }
            #expect(check?.code == .constraintCheck && check?.sqlState == "23514")
            let missing = databaseError { _ = try db.rows("SELECT * FROM nope") }
            #expect(missing?.code == .error && missing?.sqlState == "42P01")
            // The same `catch` as on SQLite.
            var caught = false
            do { try db.execute("INSERT INTO parent VALUES (1)") } catch let error as DatabaseError where error.code == .constraintUnique { caught = true }
            #expect(caught)
        }
    }

    @Test func openingFailuresNameTheServerWithoutThePassword() throws {
        let error = databaseError { _ = try Database(postgresURL: "postgresql://app:secret@127.0.0.1:1/none?connect_timeout=2") }
        #expect(error?.code == .cannotOpen)
        #expect(error?.sqlState == "08001")
        #expect(error?.message.contains("postgresql://app:***@127.0.0.1:1/none") == true)
        #expect(error?.message.contains("secret") == false)
        #expect(PostgresConnection.redacted("host=db password=secret user=app") == "host=db password=*** user=app")
        #expect(PostgresConnection.redacted("postgresql:///app?user=a&password=secret&host=/x") == "postgresql:///app?user=a&password=***&host=/x")
    }

    @Test func retryingOnConflictRunsASerializationFailureAgain() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
            var attempts = 0
            try db.retryingOnConflict {
                attempts += 1
                try db.execute("INSERT INTO t VALUES (?)", attempts)
                if attempts == 1 {   // what the server says when it cannot serialize the transaction
                    try db.execute("DO $$ BEGIN RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001'; END $$")
                }
            }
            #expect(attempts == 2)
            #expect(try db.column(Int.self, "SELECT id FROM t") == [2])   // the first attempt rolled back whole
            // Another error is not retried.
            attempts = 0
            let error = databaseError {
                try db.retryingOnConflict {
                    attempts += 1
                    try db.execute("INSERT INTO t VALUES (2)")
                }
            }
            #expect(attempts == 1 && error?.sqlState == "23505")
        }
    }

    @Test func schemaSyncRunsThroughTheHandleAndSQLiteCallsSayWhereItRuns() throws {
        try withDatabase { db in
            let plan = try db.schemaPlan(for: PGNote.self)
            #expect(plan.steps.map(\.sql) == [#"CREATE TABLE "note" ("id" BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "text" TEXT NOT NULL DEFAULT '', "stars" BIGINT NOT NULL DEFAULT 0)"#])
            let applied = try db.syncSchema(PGNote.self)
            #expect(applied.steps.count == 1)
            #expect(try db.schemaPlan(for: PGNote.self).steps.isEmpty)
            try db.execute("INSERT INTO note(text) VALUES (?)", "hello")
            #expect(try db.rows("SELECT id, text, stars FROM note").map(\.values) == [[.integer(1), .text("hello"), .integer(0)]])
            // A sync inside a block is a savepoint of it: rolled back with it.
            try? db.transaction {
                try db.execute("ALTER TABLE note DROP COLUMN stars")
                try db.syncSchema(PGNote.self)
                throw CancellationError()
            }
            #expect(try db.column(String.self, "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'note' ORDER BY ordinal_position") == ["id", "text", "stars"])

            #expect(try db.objects(PGNote.self).map(\.text) == ["hello"])
            // SQLite's own calls (a bare prepared statement) say where the handle runs.
            let error = databaseError { _ = try db.statement("SELECT 1") }
            #expect(error?.code == .misuse)
            #expect(error?.message.contains("this handle runs on PostgreSQL") == true)
        }
    }
}
