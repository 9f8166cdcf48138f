import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Formats decided on an empty table are decided again once another connection wrote its rows; a column
// that merely stays NULL in a table with rows costs nothing at other connections' commits.

private final class ECEvent: Model {
    var id: Int64 = 0
    var name = ""
    var deletedAt: Date?
    var token: UUID?
    required init() {}
}

@Suite struct EmptyColumnFormatTests {
    /// A `deletedAt` that is NULL in every row: its format comes from the declared type, and another
    /// connection's commit re-reads no schema and samples no column (before, every such commit re-synced the
    /// model, a scan of the column included).
    @Test func aColumnThatStaysNullInATableWithRowsIsNotWatched() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE ECEvent(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', deletedAt DATETIME, token CHAR(32));
            INSERT INTO ECEvent(name) VALUES ('a'), ('b');
            """)
        let event = try #require(try temp.db.object(ECEvent.self, forKey: 1))
        #expect(try temp.db.registry(for: ECEvent.self).table.formatsFromEmptyColumns == false)
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        try other.execute("UPDATE ECEvent SET name = 'A' WHERE id = 1")
        let log = StatementLog(temp.db)
        let events = try temp.db.objects(ECEvent.self, where: "ORDER BY id")
        #expect(events.first === event && event.name == "A")
        #expect(!log.statements.contains { $0.contains("pragma_") || $0.contains("IS NOT NULL") })
    }

    /// An empty table is watched: the first rows another connection writes decide the format (32 hex
    /// digits in uppercase here), and the check costs one page read while it stays empty.
    @Test func theFirstRowsAnotherConnectionWritesDecideTheFormat() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE ECEvent(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', deletedAt DATETIME, token TEXT);
            CREATE TABLE unrelated(x);
            """)
        #expect(try temp.db.objects(ECEvent.self).isEmpty)
        #expect(try temp.db.registry(for: ECEvent.self).table.formatsFromEmptyColumns)
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        try other.execute("INSERT INTO unrelated VALUES (1)")   // a commit that leaves the table empty
        let log = StatementLog(temp.db)
        #expect(try temp.db.objects(ECEvent.self).isEmpty)
        #expect(log.statements.filter { $0.contains("ECEvent") }.count == 2)   // the page read, the fetch
        try other.execute("INSERT INTO ECEvent(name, token) VALUES ('x', '0F8FAD5BD9CB469FA16570867728950E')")
        let fetched = try #require(try temp.db.objects(ECEvent.self).first)
        #expect(fetched.token == UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e"))
        let mine = ECEvent(); mine.name = "y"; mine.token = UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7")
        try temp.db.save(mine)
        #expect(try temp.db.value(String.self, "SELECT token FROM ECEvent WHERE name = 'y'") == "7C9E6679742540DE944BE07FC1F90AE7")
        #expect(try temp.db.registry(for: ECEvent.self).table.formatsFromEmptyColumns == false)
    }
}
