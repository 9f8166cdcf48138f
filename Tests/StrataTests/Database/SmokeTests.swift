import Testing
@testable import Strata

@Test func opensInMemoryAndReadsBack() throws {
    let db = try Database()
    try db.execute("CREATE TABLE t(x INTEGER)")
    try db.execute("INSERT INTO t(x) VALUES (?)", 42)
    #expect(try db.value(Int.self, "SELECT x FROM t") == 42)
}
