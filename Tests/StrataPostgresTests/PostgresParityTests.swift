import Foundation
import Strata
import StrataPostgres
import Testing

// Issue 35: what SQLite does that PostgreSQL did otherwise (the engine-neutral suites found these gaps).
// A new object referring to itself is inserted then updated, all or nothing; a cycle over a NOT NULL column
// is refused before anything is sent; a second instance of a live key is refused before the INSERT; a
// `@Children` ordered by no property throws at the owner's first fetch; `eraseDatabaseOnSchemaChange` notices
// an edited Swift migration (replayed in a scratch schema).

private final class PPEmployee: Model {
    static let tableName = "pp_employee"
    var id: Int64 = 0
    var name = ""
    @Reference var manager: PPEmployee?
    required init() {}
}

private final class PPStrict: Model {
    static let tableName = "pp_strict"
    var id: Int64 = 0
    @Reference var partner: PPStrict?
    required init() {}
}

private final class PPGrant: Model {
    static let tableName = "pp_grant"
    static let compositeKey = ["user", "permission"]
    var user: Int64 = 0
    var permission = ""
    var level = 1
    required init() {}
}

private final class PPChild: Model {
    static let tableName = "pp_child"
    var id: Int64 = 0
    var name = ""
    @Reference var owner: PPBadOrder?
    required init() {}
}

private final class PPBadOrder: Model {
    static let tableName = "pp_bad_order"
    var id: Int64 = 0
    var name = ""
    @Children(by: "owner", orderBy: "nmae") var kids: [PPChild]
    required init() {}
}

private final class PPExtra: Model {
    static let tableName = "pp_extra"
    var id: Int64 = 0
    var note = ""
    required init() {}
}

/// The scratch schemas of the replays left behind (none: each is dropped).
private func replaySchemas(_ db: Database) throws -> Int {
    try db.value(Int.self, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'strata\\_replay\\_%'") ?? -1
}

private func columns(_ db: Database, _ table: String) throws -> [String] {
    try db.column(String.self, "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position", table)
}

@Suite("PostgreSQL parity with SQLite", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresParityTests {
    @Test func aNewObjectReferringToItselfIsInsertedThenUpdatedInOneTransaction() throws {
        try withDatabase { db in
            try db.save(PPEmployee())   // the model's first use (its table synced) before the trace
            let boss = PPEmployee(); boss.name = "Boss"; boss.manager = boss
            var statements: [String] = []
            let trace = db.traceStatements { statements.append($0) }
            try db.save(boss)
            trace.cancel()
            let verbs = statements.map { $0.split(separator: " ").first.map(String.init) ?? "" }
            #expect(verbs == ["BEGIN", "INSERT", "UPDATE", "COMMIT"], "\(statements)")
            #expect(try db.value(Int64.self, "SELECT manager FROM pp_employee WHERE id = ?", boss.id) == boss.id)
            #expect(boss.manager === boss && boss.isPersisted)
        }
    }

    @Test func aNewObjectReferringToItselfWhoseUpdateFailsLeavesNothing() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PPEmployee.self)
            // The insert (manager NULL) passes, the update to its own key does not.
            try db.execute("ALTER TABLE pp_employee ADD CONSTRAINT not_own CHECK (manager IS NULL OR manager <> id)")
            let first = PPEmployee(); first.name = "First"
            try db.transaction {
                try db.save(first)
                let boss = PPEmployee(); boss.name = "Boss"; boss.manager = boss
                let error = try #require(throws: DatabaseError.self) { try db.save(boss) }
                #expect(error.sqlState == "23514")
                #expect(!boss.isPersisted && boss.manager === boss)
            }
            // The block goes on and commits: the failed save's insert is undone, the block's other write kept.
            #expect(try db.column(String.self, "SELECT name FROM pp_employee ORDER BY id") == ["First"])
        }
    }

    @Test func aCycleOverANotNullColumnIsRefusedBeforeAnyInsert() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE pp_strict (id BIGSERIAL PRIMARY KEY, partner BIGINT NOT NULL)")
            let (a, b) = (PPStrict(), PPStrict())
            a.partner = b; b.partner = a
            var statements: [String] = []
            let trace = db.traceStatements { statements.append($0) }
            let error = modelError { try db.save([a, b]) }
            trace.cancel()
            #expect(error?.kind == .unsavedRelated && error?.property == "partner" && error?.model == "PPStrict")
            #expect(error?.message.contains("NOT NULL") == true)
            #expect(!statements.contains { $0.hasPrefix("INSERT") }, "\(statements)")
            #expect(a.id == 0 && b.id == 0 && a.partner === b && b.partner === a)
            #expect(try db.value(Int.self, "SELECT count(*) FROM pp_strict") == 0)
        }
    }

    @Test func aSecondInstanceOfALiveCompositeKeyIsRefusedBeforeTheInsert() throws {
        try withDatabase { db in
            let grant = PPGrant(); grant.user = 1; grant.permission = "read"; grant.level = 2
            try db.save(grant)
            let twin = PPGrant(); twin.user = 1; twin.permission = "read"; twin.level = 9
            var statements: [String] = []
            let trace = db.traceStatements { statements.append($0) }
            let error = modelError { try db.save(twin) }
            trace.cancel()
            #expect(error?.kind == .duplicateInstance && error?.key == .text("(1, 'read')"))
            #expect(!statements.contains { $0.hasPrefix("INSERT") }, "\(statements)")
            #expect(!twin.isPersisted)
            #expect(try db.object(PPGrant.self, forKey: CompositeKey(1, "read")) === grant)
            #expect(try db.column(Int.self, "SELECT level FROM pp_grant") == [2])
        }
    }

    @Test func childrenOrderedByNoPropertyThrowAtTheOwnersFirstFetch() throws {
        try withDatabase { db in
            let error = modelError { _ = try db.objects(PPBadOrder.self) }
            #expect(error?.kind == .unknownProperty && error?.property == "nmae" && error?.model == "PPChild")
            #expect(error?.message.contains("orders by \"nmae\"") == true)
            // Nothing was synced for the owner either.
            let tables = try db.value(Int.self, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'pp_bad_order'")
            #expect(tables == 0)
        }
    }

    @Test func eraseOnSchemaChangeNoticesAnEditedSwiftMigration() throws {
        try withDatabase { db throws in
            var first = Migrator()
            first.register("create") { db in try db.execute("CREATE TABLE pp_t (a text); INSERT INTO pp_t VALUES ('seed')") }
            try first.migrate(db)
            try db.execute("INSERT INTO pp_t VALUES ('kept?')")
            try db.save(PPExtra())   // a model's own table, made by sync: not the migrations' doing

            // Unchanged migrations: nothing is erased; the replay's own INSERT stayed in its scratch schema.
            var same = Migrator()
            same.eraseDatabaseOnSchemaChange = true
            same.register("create") { db in try db.execute("CREATE TABLE pp_t (a text); INSERT INTO pp_t VALUES ('seed')") }
            #expect(try same.plan(for: db).erasesDatabase == false)
            #expect(try same.migrate(db).isEmpty)
            #expect(try db.column(String.self, "SELECT a FROM pp_t ORDER BY a") == ["kept?", "seed"])
            #expect(try replaySchemas(db) == 0)

            // The Swift migration edited (a column added): noticed, the database erased and migrated again.
            var edited = Migrator()
            edited.eraseDatabaseOnSchemaChange = true
            edited.register("create") { db in try db.execute("CREATE TABLE pp_t (a text, b integer NOT NULL DEFAULT 0)") }
            #expect(try edited.plan(for: db).erasesDatabase)
            #expect(try edited.migrate(db) == ["create"])
            #expect(try columns(db, "pp_t") == ["a", "b"])
            #expect(try db.value(Int.self, "SELECT count(*) FROM pp_t") == 0)
            // An index changed is noticed too.
            var indexed = edited
            indexed.register("index") { db in try db.execute("CREATE INDEX pp_t_a ON pp_t(a)") }
            try indexed.migrate(db)
            var reindexed = edited
            reindexed.register("index") { db in try db.execute("CREATE INDEX pp_t_a ON pp_t(a, b)") }
            #expect(try reindexed.plan(for: db).erasesDatabase)
            #expect(try indexed.plan(for: db).erasesDatabase == false)
            // Migrations that cannot run on an empty schema (this one reads a model's table): the database is kept.
            try db.execute("INSERT INTO pp_t (a) VALUES ('kept')")
            try db.execute("CREATE TABLE IF NOT EXISTS pp_extra (id bigserial PRIMARY KEY, note text NOT NULL DEFAULT '')")
            var reading = indexed
            reading.register("copy") { db in try db.execute("INSERT INTO pp_t (a) SELECT note FROM pp_extra") }
            try reading.migrate(db)
            #expect(try reading.plan(for: db).erasesDatabase == false)
            #expect(try db.value(Int.self, "SELECT count(*) FROM pp_t WHERE a = 'kept'") == 1)
            #expect(try replaySchemas(db) == 0)
        }
    }

    @Test func aNotNullViolationNamesThePropertyAsOnSQLite() throws {
        try withDatabase { db throws in
            // A new object referring to itself over a NOT NULL column: its insert (the reference unset) fails.
            try db.execute("CREATE TABLE pp_strict (id BIGSERIAL PRIMARY KEY, partner BIGINT NOT NULL)")
            let alone = PPStrict(); alone.partner = alone
            let error = modelError { try db.save(alone) }
            #expect(error?.kind == .missingValue && error?.property == "partner" && error?.properties == ["partner"])
            #expect(error?.message.hasPrefix("column \"partner\" is NOT NULL and property \"partner\" has no value for it") == true)
            #expect(!alone.isPersisted && alone.partner === alone)
            #expect(try db.value(Int.self, "SELECT count(*) FROM pp_strict") == 0)
        }
    }
}
