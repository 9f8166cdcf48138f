import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// `db.statement(_:)` hands the caller a cached statement to hold between binds and steps. The library's own
// statements (an insert, a select by key) are cached apart: one of the same text is never the caller's.

private final class CSItem: Model {
    static let tableName = "cs_item"
    var id: Int64 = 0
    var n: Int64 = 0
    required init() {}
}

private func item(_ n: Int64) -> CSItem {
    let o = CSItem()
    o.n = n
    return o
}

@Suite struct CallerStatementTests {
    /// The library's SQL for this model's insert, as it runs it.
    private func insertSQL(_ db: Database) throws -> String {
        var sqls: [String] = []
        let trace = db.traceStatements { sqls.append($0) }
        try db.transaction { try db.save(item(10)) }
        trace.cancel()
        return try #require(sqls.first { $0.hasPrefix("INSERT") })
    }

    @Test func aStatementTheCallerHoldsKeepsItsBindingsWhenTheLibraryRunsTheSameText() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let mine = try db.statement(try insertSQL(db))
        try mine.bind([Int64(7)])
        // The library's insert of the same text, between the caller's bind and step (it shared the statement:
        // the caller's step then wrote the library's 50 again, and no 7).
        let x = item(50)
        try db.transaction { try db.save(x) }
        #expect(try mine.step() == false)
        #expect(try db.column(Int64.self, "SELECT n FROM cs_item ORDER BY id") == [10, 50, 7])
        #expect(x.id == 2)
    }

    @Test func theCallersStatementIsCachedForTheCallerAndFinalizedAtClose() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let sql = try insertSQL(db)
        let first = try db.statement(sql)
        #expect(try db.statement(sql) === first)
        try first.run([Int64(3)])
        #expect(try db.column(Int64.self, "SELECT n FROM cs_item ORDER BY id") == [10, 3])
        try db.close()
        #expect(throws: (any Error).self) { try db.statement(sql) }
    }
}
