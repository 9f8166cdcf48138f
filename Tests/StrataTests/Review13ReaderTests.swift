import Foundation
import StrataTestSupport
import Testing
@testable import Strata
import CSQLite

// Review 13: a second reader of the @Reference holder, the snapshot without NULL words, and the change
// streams of WITHOUT ROWID tables.

private final class R13Plain: Model {
    var id: Int64 = 0
    var a: Int64 = 0
    var b: Double = 0
    required init() {}
}

private final class R13Tag: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

/// What the observer saw, one line per change: "table i[..] u[..] d[..]".
private final class Seen {
    var lines: [String] = []
    var observation: ChangeObservation?
    init(_ db: Database) {
        observation = db.observeChanges { [unowned self] changes in
            for change in changes.sorted(by: { $0.table < $1.table }) {
                self.lines.append("\(change.table) i\(change.insertedRowIDs.sorted()) u\(change.updatedRowIDs.sorted()) d\(change.deletedRowIDs.sorted())")
            }
        }
    }
    /// What was seen by the next model call (a bare statement's writes are told then).
    func take(_ db: Database) -> [String] {
        _ = try? db.objects(R13Tag.self)
        defer { lines.removeAll() }
        return lines
    }
}

@Suite struct Review13ReaderTests {
    /// A WITHOUT ROWID table with a column named rowid (so `SELECT rowid` prepares) is still WITHOUT
    /// ROWID: its writes are reported, and deciding so runs no statement a trace observer sees.
    @Test func aWithoutRowIDTableWithAColumnNamedRowIDIsReported() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE w (rowid TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        let seen = Seen(db)
        var traced: [String] = []
        let trace = db.traceStatements { traced.append($0) }
        try db.execute("INSERT INTO w (rowid, n) VALUES ('x', 1)")
        trace.cancel()
        #expect(traced.filter { $0 != "PRAGMA schema_version" } == ["INSERT INTO w (rowid, n) VALUES ('x', 1)"])
        #expect(seen.take(db) == ["w i[] u[] d[]"])
        try db.execute("UPDATE w SET n = 2 WHERE rowid = 'x'")
        #expect(seen.take(db) == ["w i[] u[] d[]"])
        #expect(try db.value(Int64.self, "SELECT n FROM w") == 2)
    }

    /// Writes to a WITHOUT ROWID table of an attached database are not the main table's.
    @Test func anAttachedWithoutRowIDTableOfTheSameNameIsNotReportedAsMain() throws {
        let temp = try TemporaryDatabase()
        let other = try TemporaryDatabase()
        let db = temp.db
        try other.db.execute("CREATE TABLE w (k INTEGER PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        try db.execute("CREATE TABLE w (k INTEGER PRIMARY KEY, n INTEGER)")
        try db.execute("ATTACH DATABASE '\(other.path)' AS aux")
        let seen = Seen(db)
        try db.execute("INSERT INTO aux.w (k, n) VALUES (1, 1)")
        #expect(seen.take(db) == [])
        try db.execute("INSERT INTO w (k, n) VALUES (1, 1)")
        #expect(seen.take(db) == ["w i[1] u[] d[]"])
        try db.execute("DETACH DATABASE aux")
    }

    /// A model of plain 8-byte numbers (a snapshot with no NULL-bit word) over a row another tool left
    /// NULL: the fetch throws instead of reading past the slot (run under the address sanitizer), and the
    /// rows that are whole save and read back as written.
    @Test func aPlainNumberModelOverNullColumnsStaysInItsSlot() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE R13Plain (id INTEGER PRIMARY KEY, a INTEGER, b REAL)")
        try db.execute("INSERT INTO R13Plain (id, a, b) VALUES (1, NULL, NULL), (2, 5, 2.5)")
        #expect(throws: (any Error).self) { try db.objects(R13Plain.self, where: "ORDER BY id") }
        let two = try #require(try db.object(R13Plain.self, forKey: 2))
        two.a = 6
        try db.save(two)
        #expect(try db.value(Int64.self, "SELECT a FROM R13Plain WHERE id = 2") == 6)
        try db.execute("UPDATE R13Plain SET a = NULL WHERE id = 2")
        #expect(two.a == 6 || two.a == 0)
        #expect(throws: (any Error).self) { try db.object(R13Plain.self, forKey: 1) }
    }
}
