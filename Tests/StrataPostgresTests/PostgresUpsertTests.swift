import Foundation
import Strata
import StrataPostgres
import Testing

// `upsert` and `traceStatements` on PostgreSQL: the row by primary key or upsert keys takes the object's
// values through its live instance (an UPDATE of what differs), no row is an INSERT, a failure leaves the
// row and the live instance as they were; each statement sent is traced in PostgreSQL's spelling.

private final class PGUpsertPerson: Model {
    static let tableName = "upsert_person"
    var id: Int64 = 0
    var name = ""
    var age = 0
    required init() {}
}

private final class PGUpsertAccount: Model {
    static let tableName = "upsert_account"
    static let upsertKeys = ["serverID"]
    var id: Int64 = 0
    var serverID = ""
    var balance = 0
    required init() {}
}

@Suite("PostgreSQL upsert and tracing", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresUpsertTests {
    @Test func upsertByKeyUpdatesWhatDiffersThroughTheLiveInstanceAndInsertsOtherwise() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PGUpsertPerson.self)
            try db.execute("INSERT INTO upsert_person(id, name, age) VALUES (7, 'Ada', 36)")
            let live = try #require(try db.object(PGUpsertPerson.self, forKey: 7))
            let decoded = PGUpsertPerson()   // as from JSON: key 7, which is stored already
            decoded.id = 7
            decoded.name = "Ada L."
            decoded.age = 36
            var statements: [String] = []
            let trace = db.traceStatements { statements.append($0) }
            let saved = try db.upsert(decoded)
            trace.cancel()
            #expect(saved === live && live.name == "Ada L." && !decoded.isPersisted)
            #expect(try db.value(String.self, "SELECT name FROM upsert_person WHERE id = 7") == "Ada L.")
            let updates = statements.filter { $0.hasPrefix("UPDATE") }
            #expect(updates.count == 1 && updates[0].contains("SET \"name\" = $1") && !updates[0].contains("\"age\" ="))
            #expect(statements.contains("BEGIN") && statements.last == "COMMIT")
            // Cancelled: no more statements reach the observer.
            _ = try db.value(Int.self, "SELECT 1")
            #expect(statements.filter { $0 == "SELECT 1" }.isEmpty)

            // No row with the key: an INSERT, and `object` is the live instance.
            let fresh = PGUpsertPerson()
            fresh.id = 8
            fresh.name = "Grace"
            #expect(try db.upsert(fresh) === fresh && fresh.isPersisted)
            #expect(try db.column(String.self, "SELECT name FROM upsert_person ORDER BY id") == ["Ada L.", "Grace"])
        }
    }

    @Test func upsertKeysFindTheRowAndAFailureLeavesRowAndInstanceAsTheyWere() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PGUpsertAccount.self)
            try db.execute("INSERT INTO upsert_account(\"serverID\", balance) VALUES ('s-1', 10)")
            try db.execute("ALTER TABLE upsert_account ADD CONSTRAINT positive CHECK (balance >= 0)")
            let incoming = PGUpsertAccount()
            incoming.serverID = "s-1"
            incoming.balance = 25
            let account = try db.upsert(incoming)
            #expect(account.id == 1 && account.balance == 25 && account !== incoming)
            #expect(try db.value(Int.self, "SELECT balance FROM upsert_account WHERE id = 1") == 25)

            // A CHECK refuses it: nothing written, the live instance keeps its values.
            let bad = PGUpsertAccount()
            bad.serverID = "s-1"
            bad.balance = -5
            let error = #expect(throws: DatabaseError.self) { try db.upsert(bad) }
            #expect(error?.sqlState == "23514", "\(String(describing: error))")
            #expect(account.balance == 25 && !db.isInTransaction)
            #expect(try db.value(Int.self, "SELECT balance FROM upsert_account WHERE id = 1") == 25)

            // Two rows with the upsert keys' values name no single row.
            try db.execute("INSERT INTO upsert_account(\"serverID\", balance) VALUES ('s-1', 3)")
            let twice = PGUpsertAccount()
            twice.serverID = "s-1"
            let duplicate = #expect(throws: ModelError.self) { try db.upsert(twice) }
            #expect(duplicate?.kind == .duplicateKey && duplicate?.properties == ["serverID"])
            #expect(try db.column(Int.self, "SELECT balance FROM upsert_account ORDER BY id") == [25, 3])
        }
    }
}
