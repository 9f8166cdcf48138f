import Foundation
import Strata
import StrataPostgres
import Testing

// Values of every kind through models on PostgreSQL: written in the column's own type (TIMESTAMPTZ to the
// microsecond, UUID, NUMERIC every digit, JSONB, BOOLEAN, SMALLINT), read back equal by another handle, and
// columns another tool declared (VARCHAR(n), TIMESTAMP, DATE, INTEGER, SMALLINT, SERIAL) mapped as they are.

private struct PGTypedSettings: Codable, Equatable {
    var theme = "dark"
    var size = 2
    var ratio = 1.0
}

private enum PGTypedMood: String, Codable {
    case calm, busy
}

private final class PGTyped: Model {
    static let tableName = "typed"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var price = Decimal(0)
    var settings = PGTypedSettings()
    var mood = PGTypedMood.calm
    var small: Int16 = 0
    var flag = false
    var maybeAt: Date?
    required init() {}
}

/// A table Django or a DBA made, mapped as it is.
private final class PGLegacy: Model {
    static let tableName = "legacy"
    var id = 0
    var name = ""
    var born = Date(timeIntervalSince1970: 0)
    var day = Date(timeIntervalSince1970: 0)
    var rank = 0
    var level: Int16 = 0
    required init() {}
}

/// A handle on the same schema as `db`.
private func otherHandle(_ db: Database) throws -> Database {
    let other = try Database(postgresURL: postgresURL ?? "")
    try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
    return other
}

@Suite("PostgreSQL values", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresTypeTests {
    /// (A whole Double in JSON keeps its `.0`: jsonb keeps a number's spelling, and Python reads `2` as an int.)
    @Test func everyKindIsStoredInItsColumnsTypeAndReadsBackEqual() throws {
        try withDatabase { db in
            let typed = PGTyped()
            typed.at = Date(timeIntervalSince1970: 1_600_000_000.25)
            typed.token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            typed.price = Decimal(string: "12345678901234567890.123456789")!
            typed.settings = PGTypedSettings(theme: "light", size: 3, ratio: 2.0)
            typed.mood = .busy
            typed.small = -7
            typed.flag = true
            try db.save(typed)
            // The column types' own text, as psql would show it.
            let stored = try db.rows("""
                SELECT at::text, token::text, price::text, settings::text, mood, small, flag::text, "maybeAt" FROM typed
                """)[0].values
            #expect(stored == [.text("2020-09-13 12:26:40.25+00"), .text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"),
                               .text("12345678901234567890.123456789"), .text(#"{"size": 3, "ratio": 2.0, "theme": "light"}"#), .text("busy"),
                               .integer(-7), .text("true"), .null])
            let other = try otherHandle(db)
            defer { try? other.close() }
            let read = try #require(try other.object(PGTyped.self, forKey: 1))
            #expect(read.at == typed.at && read.token == typed.token && read.price == typed.price && read.settings == typed.settings
                    && read.mood == .busy && read.small == -7 && read.flag && read.maybeAt == nil)
            #expect(!read.hasChanges)   // JSONB's own spelling of the settings is no change
            // A save of one column writes that column only; a date to the microsecond.
            read.maybeAt = Date(timeIntervalSince1970: 1_700_000_000.123456)
            try other.save(read)
            #expect(try db.value(String.self, #"SELECT "maybeAt"::text FROM typed"#) == "2023-11-14 22:13:20.123456+00")
            #expect(try db.value(String.self, "SELECT price::text FROM typed") == "12345678901234567890.123456789")
        }
    }

    @Test func columnsAnotherToolDeclaredAreMappedAsTheyAre() throws {
        try withDatabase { db in
            try db.execute("""
                CREATE TABLE legacy(id serial PRIMARY KEY, name varchar(20) NOT NULL, born timestamp NOT NULL,
                                    day date NOT NULL, rank integer NOT NULL, level smallint NOT NULL);
                INSERT INTO legacy(name, born, day, rank, level) VALUES ('Ada', '2001-02-03 04:05:06.789', '2001-02-03', 7, 2)
                """)
            #expect(try db.schemaPlan(for: PGLegacy.self).steps.isEmpty)   // nothing to change
            let ada = try #require(try db.object(PGLegacy.self, forKey: 1))
            #expect(ada.name == "Ada" && ada.rank == 7 && ada.level == 2)
            #expect(ada.born == Date(timeIntervalSince1970: 981_173_106.789))
            #expect(ada.day == Date(timeIntervalSince1970: 981_158_400))
            ada.rank = 8
            ada.day = Date(timeIntervalSince1970: 981_158_400 + 86_400)
            try db.save(ada)
            #expect(try db.rows("SELECT born::text, day::text, rank FROM legacy")[0].values
                    == [.text("2001-02-03 04:05:06.789"), .text("2001-02-04"), .integer(8)])
            // A value the column cannot hold is the engine's error, named; nothing written.
            ada.name = String(repeating: "x", count: 21)
            let error = databaseError { try db.save(ada) }
            #expect(error?.sqlState == "22001" && error?.code == .tooBig)
            #expect(try db.value(String.self, "SELECT name FROM legacy") == "Ada")
            let new = PGLegacy()
            new.name = "Grace"
            try db.save(new)
            #expect(new.id == 2)   // the serial's sequence
        }
    }
}
