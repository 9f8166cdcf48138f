import Foundation
import Strata
import StrataTestSupport
import Testing

private final class TFNote: Model {
    static let tableName = "tf_note"
    var id: Int64 = 0
    var text = ""
    required init() {}
}

/// The test factory on PostgreSQL (what STRATA_TEST_ENGINE=postgresql gives the engine-neutral suites): each
/// database is a schema of its own, its handles and pools start in it, and it is dropped afterwards.
@Suite(.enabled(if: TestEngine.isPostgreSQL, "runs with STRATA_TEST_ENGINE=postgresql (.ci/run's PostgreSQL pass)"))
struct TestFactoryTests {
    /// The schemas named `name` on the server, read on a handle of another schema.
    private func schemas(named name: String) throws -> [String] {
        try withTestDatabase { admin in try admin.column(String.self, "SELECT nspname FROM pg_namespace WHERE nspname = ?", name) }
    }

    @Test func aTestDatabaseIsASchemaOfItsOwnDroppedOnRelease() throws {
        var schema = ""
        do {
            let test = try TestDatabase()
            schema = try #require(try test.db.value(String.self, "SELECT current_schema()"))
            #expect(schema.hasPrefix("strata_test_"))
            let note = TFNote(); note.text = "a"
            try test.db.save(note)
            let other = try test.openAnother()
            #expect(try other.value(String.self, "SELECT text FROM tf_note WHERE id = ?", note.id) == "a")
            try other.close()
            let reopened = try test.reopen()
            #expect(try reopened.objects(TFNote.self).map(\.text) == ["a"])
            #expect(try schemas(named: schema) == [schema])
        }
        #expect(try schemas(named: schema).isEmpty)
    }

    @Test func aPoolAndAClosureDatabaseStartInTheirSchemaAndLeaveNothing() async throws {
        let poolSchema = try await withTestPool { pool in
            try await pool.write { db in
                let note = TFNote()
                note.text = "p"
                try db.save(note)
            }
            #expect(try await pool.read { db in try db.objects(TFNote.self).map(\.text) } == ["p"])
            return try await pool.read { db in try db.value(String.self, "SELECT current_schema()") } ?? ""
        }
        #expect(poolSchema.hasPrefix("strata_test_"))
        #expect(try schemas(named: poolSchema).isEmpty)
        let closureSchema = try withTestDatabase { db in try db.value(String.self, "SELECT current_schema()") ?? "" }
        #expect(closureSchema.hasPrefix("strata_test_") && closureSchema != poolSchema)
        #expect(try schemas(named: closureSchema).isEmpty)
        let made = try TestDatabase.make()
        #expect(try made.value(String.self, "SELECT current_schema()")?.hasPrefix("strata_test_") == true)
    }
}
