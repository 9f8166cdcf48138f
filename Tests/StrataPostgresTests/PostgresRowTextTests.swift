import Foundation
@testable import Strata
import StrataPostgres
import Testing

// What a live instance keeps of its row on PostgreSQL, and what an INSERT returns (issue 35, the benchmark's
// paths): the texts of integer columns are spelled from the snapshot, not kept; an INSERT returns the key,
// the columns the server fills in and those whose text is kept, unless the table has triggers. The conflict
// guard still sees every change another writer made to a column the instance changed.

private final class PP35Num: Model {
    static let tableName = "pp35_num"
    var id: Int64 = 0
    var a: Int64 = 0
    var b = 0
    var c: Int64?
    required init() {}
}

private final class PP35Mixed: Model {
    static let tableName = "pp35_mixed"
    var id: Int64 = 0
    var a: Int64 = 0
    var label = ""
    var score = 0.0
    required init() {}
}

/// The statements of the handle's session (`pg_prepared_statements`) that start with `prefix`.
private func prepared(_ db: Database, _ prefix: String) throws -> [String] {
    try db.column(String.self, "SELECT statement FROM pg_prepared_statements WHERE statement LIKE ? ORDER BY statement", prefix + "%")
}


@Suite("PostgreSQL row texts and INSERT returning", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresRowTextTests {
    @Test func anInsertReturnsTheKeyAndKeptColumnsOnlyUnlessTheTableHasTriggers() throws {
        try withDatabase { db in
            let num = PP35Num()
            num.a = 5
            num.b = -7
            try db.save(num)
            let mixed = PP35Mixed()
            mixed.a = 1
            mixed.label = "x"
            mixed.score = 0.5
            try db.save(mixed)
            #expect(try prepared(db, "INSERT INTO \"pp35_num\"")
                    == [#"INSERT INTO "pp35_num" ("a", "b", "c") VALUES ($1, $2, $3) RETURNING "id""#])
            #expect(try prepared(db, "INSERT INTO \"pp35_mixed\"")
                    == [#"INSERT INTO "pp35_mixed" ("a", "label", "score") VALUES ($1, $2, $3) RETURNING "id", "label", "score""#])
            #expect(num.id == 1 && mixed.id == 1)
            #expect(try db.rows("SELECT id, a, b, c FROM pp35_num")[0].values == [.integer(1), .integer(5), .integer(-7), .null])

            // A trigger may change what was written: every column comes back, and the instance holds it.
            try db.execute("""
                CREATE FUNCTION pp35_double() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.a := NEW.a * 2; RETURN NEW; END $$;
                CREATE TRIGGER pp35_doubling BEFORE INSERT OR UPDATE ON pp35_num FOR EACH ROW EXECUTE FUNCTION pp35_double()
                """)
            let other = try Database(postgresURL: postgresURL ?? "")
            defer { try? other.close() }
            try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
            let doubled = PP35Num()
            doubled.a = 21
            try other.save(doubled)
            #expect(doubled.a == 42 && !doubled.hasChanges)
            #expect(try prepared(other, "INSERT INTO \"pp35_num\"")
                    == [#"INSERT INTO "pp35_num" ("a", "b", "c") VALUES ($1, $2, $3) RETURNING "id", "a", "b", "c""#])
            // Its next save compares with what the row holds (42, not the 21 written): no conflict.
            doubled.a = 50
            try other.save(doubled)
            #expect(try other.value(Int.self, "SELECT a FROM pp35_num WHERE id = ?", doubled.id) == 100)
        }
    }

    @Test func integerColumnsKeepNoTextAndTheGuardStillSeesAnotherWritersChange() throws {
        try withDatabase { db in
            let num = PP35Num()
            num.a = 1
            num.b = 2
            try db.save(num)
            let mixed = PP35Mixed()
            mixed.label = "x"
            mixed.score = 0.25
            try db.save(mixed)
            // Integer columns keep nothing; the others keep the server's text.
            #expect(db.remoteKeptTexts(num, registry: try db.remoteRegistry(for: PP35Num.self)) == [])
            #expect(db.models.remoteRows[ObjectIdentifier(num)] == nil)   // (no kept row: a read stamp in its snapshot)
            #expect(db.models.remoteRows[ObjectIdentifier(mixed)]?.texts == ["x", "0.25"])
            #expect(db.remoteKnownTexts(num, registry: try db.remoteRegistry(for: PP35Num.self)) == ["1", "1", "2", nil])

            // Another writer's change of a column the instance changed too: a conflict, never an overwrite.
            try db.execute("UPDATE pp35_num SET a = 10 WHERE id = 1")
            num.a += 1
            let conflict = modelError { try db.save(num) }
            #expect(conflict?.kind == .conflict && conflict?.properties == ["a"])
            #expect(num.a == 10 && !num.hasChanges)
            #expect(try db.value(Int.self, "SELECT a FROM pp35_num") == 10)
            // Of a column it did not change: the save writes its own column only.
            try db.execute("UPDATE pp35_num SET c = 7 WHERE id = 1")
            num.b = 3
            try db.save(num)
            #expect(try db.rows("SELECT a, b, c FROM pp35_num")[0].values == [.integer(10), .integer(3), .integer(7)])
            // A fetch takes the column it had not changed, and the guard compares with that value from then on.
            _ = try db.objects(PP35Num.self)
            #expect(num.c == 7 && !num.hasChanges)
            try db.execute("UPDATE pp35_num SET c = NULL WHERE id = 1")
            num.c = 8
            #expect(modelError { try db.save(num) }?.properties == ["c"])
            #expect(num.c == nil)
            num.c = 9
            try db.save(num)
            #expect(try db.rows("SELECT a, b, c FROM pp35_num")[0].values == [.integer(10), .integer(3), .integer(9)])
            #expect(db.remoteKnownTexts(num, registry: try db.remoteRegistry(for: PP35Num.self)) == ["1", "10", "3", "9"])

            // A fetch that meets a change of a column the instance changed records the conflict.
            try db.execute("UPDATE pp35_mixed SET a = 4, label = 'y' WHERE id = 1")
            mixed.a = 5
            _ = try db.objects(PP35Mixed.self)
            #expect(mixed.label == "y")
            #expect(modelError { try db.save(mixed) }?.properties == ["a"])
            #expect(mixed.a == 4 && mixed.label == "y" && mixed.score == 0.25)
            #expect(db.models.remoteRows[ObjectIdentifier(mixed)]?.texts == ["y", "0.25"])
        }
    }
}
