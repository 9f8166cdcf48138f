import Dispatch
import Foundation
import Strata
import StrataPostgres
import Testing

/// The server the driver tests use, started by `Scripts/with-postgres.sh` (nil: the suite is skipped).
let postgresURL = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"]

/// Opens a connection in a schema of its own (a unique name, dropped with everything in it at the end).
func withSchema<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    let connection = try PostgresConnection(url: postgresURL ?? "")
    let schema = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    try connection.execute("CREATE SCHEMA \(schema); SET search_path TO \(schema)")
    defer {
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        try? connection.execute("DROP SCHEMA \(schema) CASCADE")
        try? connection.close()
    }
    return try body(connection)
}

/// The error `body` throws, or nil (with a recorded issue) when it throws none or another.
func postgresError(_ body: () throws -> Void) -> PostgresError? {
    do {
        try body()
        Issue.record("no error was thrown")
    } catch let error as PostgresError {
        return error
    } catch {
        Issue.record("not a PostgresError: \(error)")
    }
    return nil
}

@Suite("PostgreSQL driver", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresDriverTests {
    @Test func boundValuesReadBackThroughCellKindsAndValues() throws {
        try withSchema { connection in
            try connection.execute("""
                CREATE TABLE item(id bigint PRIMARY KEY, score double precision, name text, data bytea, note text,
                                  flag boolean, small smallint, amount numeric)
                """)
            let insert = try connection.prepare("INSERT INTO item VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
            #expect(insert.parameterCount == 8)
            #expect(insert.columnCount == 0)
            try insert.bind(values: [.integer(.max), .real(0.1), .text("Zoë ✓ 日本"), .blob(Data([0, 1, 0xFE, 0xFF])),
                                     .null, .integer(1), .integer(-3), .text("12.5")])
            #expect(try insert.step() == false)
            #expect(connection.changes == 1)
            // The unboxed binds, and an empty blob (not NULL).
            let second = try connection.cachedStatement("INSERT INTO item(id, score, data) VALUES ($1, $2, $3)")
            second.bind(int64: -2, at: 1)
            second.bind(double: -1.5e300, at: 2)
            try second.bind(.blob(Data()), at: 3)
            #expect(try second.step() == false)

            let select = try connection.prepare("SELECT id, score, name, data, note, flag, small, amount FROM item ORDER BY id")
            #expect(select.columnCount == 8)
            #expect(select.columnName(at: 2) == "name")
            #expect(try select.step())
            #expect(select.kind(at: 0) == .integer && select.int64(at: 0) == -2)
            #expect(select.kind(at: 1) == .real && select.double(at: 1) == -1.5e300)
            #expect(select.kind(at: 2) == .null && select.value(at: 2) == .null)
            #expect(select.kind(at: 3) == .blob && select.value(at: 3) == .blob(Data()))
            #expect(select.kind(at: 5) == .null && select.kind(at: 7) == .null)

            #expect(try select.step())
            let id = select.cell(at: 0)
            #expect(id.kind == .integer && id.int64 == .max && select.value(at: 0) == .integer(.max))
            let score = select.cell(at: 1)
            #expect(score.kind == .real && score.double == 0.1 && select.value(at: 1) == .real(0.1))
            let name = select.cell(at: 2)
            #expect(name.kind == .text && name.string == "Zoë ✓ 日本" && select.value(at: 2) == .text("Zoë ✓ 日本"))
            #expect(select.withUTF8(at: 2) { Array($0) } == Array("Zoë ✓ 日本".utf8))
            #expect(select.kind(at: 3) == .blob && select.value(at: 3) == .blob(Data([0, 1, 0xFE, 0xFF])))
            #expect(select.withUTF8(at: 3) { Array($0) } == [0, 1, 0xFE, 0xFF])
            #expect(select.kind(at: 4) == .null && select.value(at: 4) == .null && select.cell(at: 4).string == "")
            #expect(select.kind(at: 5) == .integer && select.value(at: 5) == .integer(1) && select.cell(at: 5).string == "1")
            #expect(select.kind(at: 6) == .integer && select.value(at: 6) == .integer(-3))
            #expect(select.kind(at: 7) == .real && select.value(at: 7) == .real(12.5))
            #expect(try select.step() == false)

            // Bindings stay across reset; binding anew runs the statement again.
            let byID = try connection.prepare("SELECT name FROM item WHERE id = $1")
            try byID.bind(values: [.integer(.max)])
            #expect(try byID.step() && byID.value(at: 0) == .text("Zoë ✓ 日本"))
            byID.reset()
            #expect(try byID.step() && byID.value(at: 0) == .text("Zoë ✓ 日本"))
            try byID.bind(values: [.integer(-2)])
            #expect(try byID.step() && byID.value(at: 0) == .null)
        }
    }

    @Test func changesCountTheRowsOfTheLastWrite() throws {
        try withSchema { connection in
            try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY, x int)")
            try connection.execute("INSERT INTO t SELECT g, 0 FROM generate_series(1, 5) AS g")
            #expect(connection.changes == 5)
            let update = try connection.prepare("UPDATE t SET x = x + 1 WHERE id <= $1")
            try update.bind(values: [.integer(2)])
            #expect(try update.step() == false)
            #expect(connection.changes == 2)
            let select = try connection.prepare("SELECT id FROM t")
            while try select.step() {}
            #expect(connection.changes == 2)   // a SELECT changes nothing
            try connection.execute("DELETE FROM t WHERE x = 0")
            #expect(connection.changes == 3)
            #expect(connection.totalChanges == 10)
            let insert = try connection.prepare("INSERT INTO t VALUES ($1, 0)\(connection.dialect.returning("id"))")
            try insert.bind(values: [.integer(42)])
            #expect(try insert.step() && insert.int64(at: 0) == 42)
            #expect(connection.lastInsertedRowID == 42 && connection.changes == 1)
        }
    }

    @Test func transactionStateFollowsBeginCommitAndRollback() throws {
        try withSchema { connection in
            try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
            #expect(!connection.isInTransaction)
            try connection.execute(connection.dialect.begin(.immediate))
            #expect(connection.isInTransaction)
            try connection.execute("INSERT INTO t VALUES (1)")
            try connection.execute("COMMIT")
            #expect(!connection.isInTransaction)
            // A failed statement leaves the transaction open (and failed) until ROLLBACK.
            try connection.execute(connection.dialect.begin(.exclusive))
            _ = postgresError { try connection.execute("INSERT INTO t VALUES (1)") }
            #expect(connection.isInTransaction)
            try connection.execute("ROLLBACK")
            #expect(!connection.isInTransaction)
        }
    }

    @Test func failuresCarryTheSQLSTATEAndTheSQL() throws {
        try withSchema { connection in
            try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
            let sql = "INSERT INTO t VALUES ($1)"
            let insert = try connection.prepare(sql)
            try insert.bind(values: [.integer(7)])
            _ = try insert.step()
            try insert.bind(values: [.integer(7)])
            let duplicate = postgresError { _ = try insert.step() }
            #expect(duplicate?.sqlState == "23505")
            #expect(duplicate?.sql == sql)
            #expect(duplicate?.message.contains("duplicate key") == true)
            #expect(duplicate.map { "\($0)" }?.contains("23505") == true)
            let syntax = postgresError { try connection.execute("SELEC 1") }
            #expect(syntax?.sqlState == "42601" && syntax?.sql == "SELEC 1")
            let missing = postgresError { _ = try connection.prepare("SELECT * FROM nope") }
            #expect(missing?.sqlState == "42P01")
            let count = postgresError { try insert.bind(values: []) }
            #expect(count?.sqlState == "22023")
            try connection.close()
            #expect(postgresError { _ = try connection.prepare("SELECT 1") }?.sqlState == "08003")
        }
    }

    @Test func rewrittenPlaceholdersRunOnTheServer() throws {
        try withSchema { connection in
            let (sql, count) = PostgresSQL.numberingPlaceholders(#"SELECT ? AS a, '?' AS "?", ? -- ?"#)
            #expect(count == 2)
            let statement = try connection.prepare(sql + "\n")
            #expect(statement.parameterCount == 2)
            try statement.bind(values: [.text("x"), .integer(3)])
            #expect(try statement.step())
            #expect(statement.value(at: 0) == .text("x") && statement.value(at: 1) == .text("?"))
            #expect(statement.columnName(at: 1) == "?")
            #expect(statement.int64(at: 2) == 3)
        }
    }

    @Test func dialectSpellingsRunOnTheServer() throws {
        try withSchema { connection in
            let dialect = connection.dialect
            let keys = try connection.prepare("SELECT value FROM \(dialect.keyList(parameter: 1)) ORDER BY value")
            try keys.bind(values: [PostgresDialect.arrayLiteral([.integer(3), .integer(1), .integer(2)])])
            var read: [Int64] = []
            while try keys.step() { read.append(keys.int64(at: 0)) }
            #expect(read == [1, 2, 3])
            let matching = try connection.prepare(
                "SELECT count(*) FROM generate_series(1, 10) AS g(id) WHERE \(dialect.anyKey(column: "id", parameter: 1))")
            try matching.bind(values: [PostgresDialect.arrayLiteral([.integer(2), .integer(4), .integer(99)])])
            #expect(try matching.step() && matching.int64(at: 0) == 2)
            let literals = try connection.prepare("SELECT \(dialect.literal(.text("it's \\"))), \(dialect.literal(.blob(Data([0, 255])))), "
                                                  + "\(dialect.literal(.real(-.infinity))), \(dialect.literal(.null))")
            #expect(try literals.step())
            #expect(literals.value(at: 0) == .text("it's \\") && literals.value(at: 1) == .blob(Data([0, 255])))
            #expect(literals.value(at: 2) == .real(-.infinity) && literals.value(at: 3) == .null)
            let table = dialect.quote(#"we"ird"#)
            // No NOCASE on PostgreSQL: the dialect's collation exists once its definition ran.
            try connection.execute(PostgresDialect.caseInsensitiveCollationDefinition)
            try connection.execute("CREATE TABLE \(table)(\(dialect.quote("select")) text COLLATE \(dialect.caseInsensitiveCollation))")
            try connection.execute("INSERT INTO \(table) VALUES ('ABC')")
            let nocase = try connection.prepare("SELECT count(*) FROM \(table) WHERE \"select\" = $1")
            try nocase.bind(values: [.text("abc")])
            #expect(try nocase.step() && nocase.int64(at: 0) == 1)
            #expect(try connection.schemaToken() != 0)
            let before = try connection.commitToken()
            try connection.execute("INSERT INTO \(table) VALUES ('x')")
            #expect(try connection.commitToken() != before)
            // The DDL the planner would write: an identity key and one column of each type, read back by kind.
            let columns = ColumnType.allCases.map { "c_\($0.rawValue.lowercased()) \(dialect.columnType($0, strict: false))" }
            try connection.execute("CREATE TABLE typed(id \(dialect.singleKeyDefinition(integer: true, format: nil)), \(columns.joined(separator: ", ")))")
            try connection.execute("INSERT INTO typed(c_integer, c_real, c_text, c_blob, c_numeric) VALUES (7, 0.5, 't', '\\x01', 2.25)")
            try connection.execute("INSERT INTO typed(c_integer) VALUES (8)")
            let typed = try connection.prepare("SELECT id, c_integer, c_real, c_text, c_blob, c_numeric FROM typed ORDER BY id")
            #expect(try typed.step())
            #expect(typed.value(at: 0) == .integer(1) && typed.value(at: 1) == .integer(7) && typed.value(at: 2) == .real(0.5))
            #expect(typed.value(at: 3) == .text("t") && typed.value(at: 4) == .blob(Data([1])) && typed.value(at: 5) == .real(2.25))
            #expect(try typed.step() && typed.value(at: 0) == .integer(2))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func interruptCancelsARunningStatement() throws {
        let connection = try PostgresConnection(url: postgresURL ?? "")
        defer { try? connection.close() }
        let sleep = try connection.prepare("SELECT pg_sleep(10)")
        let canceller = connection.canceller
        // Several requests, in case the first arrives before the statement starts (an idle backend ignores it).
        for delay in [0.3, 0.8, 1.5] {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { canceller.cancel() }
        }
        let start = Date()
        let error = postgresError { _ = try sleep.step() }
        let elapsed = Date().timeIntervalSince(start)
        #expect(error?.sqlState == "57014")
        #expect(elapsed < 5, "cancelled after \(elapsed) s")
        Thread.sleep(forTimeInterval: 1.6)   // let the late requests land before the connection closes
        connection.interrupt()   // on an idle connection: nothing to cancel, nothing breaks
        #expect(try connection.prepare("SELECT 1").step())
    }
}

@Suite("PostgreSQL without a server")
struct PostgresOfflineTests {
    @Test func placeholdersAreNumberedOutsideLiteralsIdentifiersAndComments() {
        let rewrite = { (sql: String) in PostgresSQL.numberingPlaceholders(sql).sql }
        #expect(rewrite("SELECT * FROM t WHERE a = ? AND b = ?") == "SELECT * FROM t WHERE a = $1 AND b = $2")
        #expect(rewrite("SELECT '?', \"?\", ? -- ?\n, ?") == "SELECT '?', \"?\", $1 -- ?\n, $2")
        #expect(rewrite("SELECT /* ? */ ? , 'it''s ?', ?") == "SELECT /* ? */ $1 , 'it''s ?', $2")
        #expect(rewrite(#"SELECT E'\'?', ?"#) == #"SELECT E'\'?', $1"#)
        #expect(rewrite("SELECT $$ ? $$, $f$ ?$ $f$, $1, tags[?]") == "SELECT $$ ? $$, $f$ ?$ $f$, $1, tags[$1]")
        #expect(rewrite("SELECT 'café ?', ?") == "SELECT 'café ?', $1")
        #expect(PostgresSQL.numberingPlaceholders("SELECT 1").count == 0)
    }

    @Test func aConnectionThatCannotOpenSaysSo() {
        let error = postgresError { _ = try PostgresConnection(url: "postgresql:///nope?host=/nonexistent-strata&connect_timeout=2") }
        #expect(error?.sqlState == "08001")
        #expect(error?.message.isEmpty == false)
    }

    @Test func columnKindsOfTypeOIDs() {
        #expect([16, 20, 21, 23].map(PostgresCell.kind(of:)) == [.integer, .integer, .integer, .integer])
        #expect([700, 701, 1700].map(PostgresCell.kind(of:)) == [.real, .real, .real])
        #expect(PostgresCell.kind(of: 17) == .blob)
        #expect([25, 1043, 1114, 1184, 2950, 3802].map(PostgresCell.kind(of:)) == Array(repeating: .text, count: 6))
    }

    /// SQLite users pull nothing new: the `Strata` product's target neither imports libpq nor depends on it.
    @Test func theStrataProductDoesNotReachLibPQ() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources/Strata")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 50)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("CLibPQ") && !text.contains("libpq-fe"), "\(file.lastPathComponent) reaches libpq")
        }
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".library(name: "Strata", targets: ["Strata"])"#))
        let strataTarget = try #require(manifest.range(of: #"name: "Strata",\s*dependencies: \["#, options: .regularExpression))
        let dependencies = manifest[strataTarget.upperBound...].prefix { $0 != "]" }
        #expect(dependencies.contains("CSQLite") && !dependencies.contains("CLibPQ"))
    }
}
