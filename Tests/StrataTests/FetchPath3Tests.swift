import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The rowid fetch of a model of integers (issue 37, performance round 3, fetch path): each column read
// straight into its field and its snapshot word (`readPlainIntegers`), a cell that is not an integer sending
// the row to the converting decoder, the registration inline (an empty slot of the rowid map filled at
// once), and a release taking the inline path (`forgetReleased`) only when nothing else needs it.

private final class F3Item: Model {
    static let tableName = "f3_item"
    var id: Int64 = 0
    var i0: Int64 = 0
    var i1: Int64 = 0
    var i2: Int64 = 0
    var i3: Int = 0
    required init() {}
}

@Suite struct FetchPath3Tests {
    private func table(_ db: Database) throws {
        try db.execute("CREATE TABLE f3_item(id INTEGER PRIMARY KEY, i0 INTEGER NOT NULL DEFAULT 0, i1 INTEGER NOT NULL DEFAULT 0, i2 INTEGER NOT NULL DEFAULT 0, i3 INTEGER NOT NULL DEFAULT 0)")
        try db.execute("INSERT INTO f3_item VALUES (1, 10, 11, 12, 13), (2, 20, 21, 22, 23), (3, -30, 9223372036854775807, -9223372036854775808, 0)")
    }

    private func values(_ items: [F3Item]) -> [[Int64]] {
        items.map { [$0.id, $0.i0, $0.i1, $0.i2, Int64($0.i3)] }
    }

    /// The snapshot words of `item`, as the registry keeps them.
    private func snapshot(_ item: F3Item) throws -> [Int64] {
        let registry = try #require(item._registry)
        return try (0..<5).map { Int64(bitPattern: try #require(registry.snapshotWord(of: item, at: $0)).bits) }
    }

    @Test func fetchedIntegersLandInTheFieldsAndTheSnapshot() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try table(db)
        let items = try db.objects(F3Item.self)
        #expect(values(items) == [[1, 10, 11, 12, 13], [2, 20, 21, 22, 23], [3, -30, .max, .min, 0]])
        #expect(try items.map(snapshot) == values(items))
        #expect(items.allSatisfy { !$0.hasChanges })
        // A change is told apart from the snapshot column by column, and the save writes that column alone.
        items[1].i2 = 99
        #expect(items[1].changedProperties == ["i2"])
        final class Log { var statements: [String] = [] }
        let log = Log()
        let trace = db.traceStatements { log.statements.append($0) }
        try db.save(items[1])
        trace.cancel()
        #expect(log.statements.filter { $0.contains("UPDATE") } == ["UPDATE \"f3_item\" SET \"i2\" = ? WHERE \"id\" = ?"])
        #expect(try db.column(String.self, "SELECT typeof(i2) || '|' || quote(i2) || '|' || quote(i1) FROM f3_item WHERE id = 2") == ["integer|99|21"])
        #expect(try snapshot(items[1]) == [2, 20, 21, 99, 23])
    }

    @Test func aCellThatIsNotAnIntegerSendsTheRowToTheConvertingDecoder() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try table(db)
        // INTEGER affinity keeps text that is no number as text, and a fraction as a real.
        try db.execute("UPDATE f3_item SET i1 = 'abc' WHERE id = 2")
        #expect(try db.column(String.self, "SELECT typeof(i1) || '|' || quote(i1) FROM f3_item WHERE id = 2") == ["text|'abc'"])
        let error = try #require(throws: ValueConversionError.self) { try db.objects(F3Item.self) }
        #expect(error.column == "i1" && error.table == "f3_item" && error.key == .integer(2))
        #expect("\(error)".contains("abc"))
        // The row that failed left no instance or snapshot behind: the first row's instance is the one registered.
        let registry = try db.registry(for: F3Item.self)
        #expect(registry.liveCount == 0)
        // A real where an integer was declared goes the same way, and is refused with its value.
        try db.execute("UPDATE f3_item SET i1 = 21 WHERE id = 2")
        try db.execute("UPDATE f3_item SET i3 = 2.5 WHERE id = 3")
        #expect(try db.column(String.self, "SELECT typeof(i3) FROM f3_item WHERE id = 3") == ["real"])
        let real = try #require(throws: ValueConversionError.self) { try db.objects(F3Item.self) }
        #expect(real.column == "i3" && real.key == .integer(3))
        // Mended, every row reads exactly, the first two from instances made before the error.
        try db.execute("UPDATE f3_item SET i3 = 7 WHERE id = 3")
        let items = try db.objects(F3Item.self)
        #expect(values(items) == [[1, 10, 11, 12, 13], [2, 20, 21, 22, 23], [3, -30, .max, .min, 7]])
        #expect(try items.map(snapshot) == values(items))
    }

    @Test func identityHoldsAcrossFetchesAndAReleasedRowIsReadAgain() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try table(db)
        var first: [F3Item]? = try db.objects(F3Item.self)
        let registry = try #require(first?.first?._registry)
        let again = try db.objects(F3Item.self, where: "id >= ?", 2)
        #expect(again.count == 2 && again[0] === first?[1] && again[1] === first?[2])
        first = nil
        // Two still held; the released one left the map and gave its snapshot slot back.
        #expect(registry.liveCount == 2 && registry.instance(rowID: 1) == nil)
        // A write while row 1 has no instance is read by the next fetch; the reused slot holds the new words.
        try db.execute("UPDATE f3_item SET i0 = 1000 WHERE id = 1")
        let third = try db.objects(F3Item.self)
        #expect(values(third) == [[1, 1000, 11, 12, 13], [2, 20, 21, 22, 23], [3, -30, .max, .min, 0]])
        #expect(third[1] === again[0] && third[2] === again[1] && registry.instance(rowID: 1) === third[0])
        #expect(try snapshot(third[0]) == [1, 1000, 11, 12, 13] && !third[0].hasChanges)
    }

    @Test func anUnsavedChangeOfALiveInstanceIsNeverOverwrittenByAFetch() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try table(db)
        let items = try db.objects(F3Item.self)
        items[0].i1 = 5
        try db.execute("UPDATE f3_item SET i1 = 6, i2 = 7 WHERE id = 1")
        // The raw write reached the column left alone; the changed one kept its value and is a conflict.
        let refetched = try db.objects(F3Item.self)
        #expect(refetched[0] === items[0] && items[0].i1 == 5 && items[0].i2 == 7)
        let conflict = try #require(throws: ModelError.self) { try db.save(items[0]) }
        #expect(conflict.kind == .conflict && conflict.properties == ["i1"])
    }

    @Test func aReleasedInstanceTakesItsConflictAlong() throws {
        let temp = try TemporaryDatabase(); let db = temp.db
        try table(db)
        var items: [F3Item]? = try db.objects(F3Item.self)
        let registry = try #require(items?.first?._registry)
        items?[0].i1 = 5
        try db.execute("UPDATE f3_item SET i1 = 6 WHERE id = 1")
        #expect(registry.conflicts.count == 1)
        items = nil
        // The release took the slow path: the conflict of the instance gone is gone too.
        #expect(registry.conflicts.isEmpty && registry.liveCount == 0)
        let fresh = try db.objects(F3Item.self)
        fresh[0].i1 = 8
        try db.save(fresh[0])
        #expect(try db.column(String.self, "SELECT typeof(i1) || '|' || quote(i1) FROM f3_item WHERE id = 1") == ["integer|8"])
    }
}
