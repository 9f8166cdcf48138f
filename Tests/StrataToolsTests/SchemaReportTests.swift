import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataTools

@Suite struct SchemaReportTests {
    func readOnly(_ path: String) throws -> Database {
        var configuration = Database.Configuration()
        configuration.readOnly = true
        return try Database(path: path, configuration: configuration)
    }

    @Test func reportsColumnsIndicesOptionsAndCounts() throws {
        let temporary = try TemporaryDatabase()
        try temporary.db.execute("""
            CREATE TABLE author (id INTEGER PRIMARY KEY, name varchar(40) NOT NULL DEFAULT 'anon', born datetime,
                                 upper_name TEXT GENERATED ALWAYS AS (upper(name)) VIRTUAL, UNIQUE (name))
            """)
        try temporary.db.execute("CREATE TABLE tag (code TEXT PRIMARY KEY, weight REAL) WITHOUT ROWID")
        try temporary.db.execute("CREATE TABLE event (id INTEGER PRIMARY KEY, at REAL NOT NULL, payload ANY) STRICT")
        try temporary.db.execute("CREATE TABLE link (a INTEGER, b INTEGER, PRIMARY KEY (a, b))")
        try temporary.db.execute("CREATE INDEX author_born ON author (born DESC) WHERE born IS NOT NULL")
        try temporary.db.execute("CREATE INDEX author_lower ON author (lower(name))")
        try temporary.db.execute("CREATE VIEW named AS SELECT name FROM author")
        try temporary.db.execute("INSERT INTO author (name) VALUES ('Ada'), ('Grace')")
        try temporary.db.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: temporary.path))

        let db = try readOnly(temporary.path)
        let text = SchemaReport(schema: try DatabaseSchema(reading: db, countingRows: true), title: "test.sqlite").text
        try db.close()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        #expect(lines[0].hasPrefix("test.sqlite: 4 tables (SQLite "))
        #expect(lines.contains("views: named"))
        #expect(lines.contains("table author: 2 rows"))
        #expect(lines.contains("  column      type         affinity  not null  default  pk  kind"))
        #expect(lines.contains("  id          INTEGER      INTEGER                      1"))
        #expect(lines.contains("  name        varchar(40)  TEXT      NOT NULL  'anon'"))
        #expect(lines.contains("  born        datetime     NUMERIC"))
        #expect(lines.contains("  upper_name  TEXT         TEXT                             generated VIRTUAL"))
        #expect(lines.contains("  index author_born (born DESC): not unique, origin c, partial"))
        #expect(lines.contains("  index author_lower (<expression>): not unique, origin c"))
        #expect(lines.contains("  index sqlite_autoindex_author_1 (name): unique, origin u"))
        #expect(lines.contains("table tag (WITHOUT ROWID): 0 rows"))
        #expect(lines.contains("  index sqlite_autoindex_tag_1 (code): unique, origin pk"))
        #expect(lines.contains("table event (STRICT): 0 rows"))
        #expect(lines.contains("  payload  ANY      NUMERIC"))
        #expect(lines.contains("  indices: none"))
        #expect(lines.contains("  a       INTEGER  INTEGER                      1"))
        #expect(lines.contains("  b       INTEGER  INTEGER                      2"))
        // Read-only: the file is byte for byte what it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: temporary.path)) == before)
    }

    @Test func readOnlyDatabaseRefusesWrites() throws {
        let temporary = try TemporaryDatabase()
        try temporary.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        try temporary.db.close()
        let db = try readOnly(temporary.path)
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t DEFAULT VALUES") }
        #expect(try DatabaseSchema(reading: db).tables.map(\.name) == ["t"])
    }

    @Test func internalTablesAreLeftOut() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT)")
        try db.execute("INSERT INTO t DEFAULT VALUES")
        #expect(try DatabaseSchema(reading: db).tables.map(\.name) == ["t"])   // no sqlite_sequence
    }
}
