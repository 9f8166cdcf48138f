import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class ErgoItem: Model {
    var id: Int64 = 0
    var name = ""
    var orderId = 0
    var tags: [String] = []
    required init() {}
}

@Suite struct QueryErgonomicsTests {
    private func seeded() throws -> TestDatabase {
        let temp = try TestDatabase()
        for (index, name) in ["a", "b", "c", "d", "e"].enumerated() {
            let item = ErgoItem(); item.name = name; item.orderId = index * 10
            try temp.db.save(item)
        }
        return temp
    }

    @Test func aClauseWorksWithOrWithoutWhere() throws {
        let temp = try seeded()
        let db = temp.db
        #expect(try db.objects(ErgoItem.self, where: "id > ? ORDER BY id", 3).map(\.name) == ["d", "e"])
        #expect(try db.objects(ErgoItem.self, where: "WHERE id > ? ORDER BY id", 3).map(\.name) == ["d", "e"])
        #expect(try db.objects(ErgoItem.self, where: "  where id > ? order by id", 3).map(\.name) == ["d", "e"])
        #expect(try db.objects(ErgoItem.self, where: "ORDER BY id DESC LIMIT 2").map(\.name) == ["e", "d"])
        #expect(try db.objects(ErgoItem.self, where: #""orderId" >= 30 ORDER BY id"#).map(\.name) == ["d", "e"], "a column named like a keyword")
        #expect(try db.first(ErgoItem.self, where: "name = ?", "c")?.id == 3)
        #expect(try db.count(ErgoItem.self, where: "id <= ?", 2) == 2)
        #expect(try db.deleteAll(ErgoItem.self, where: "name = ?", "e") == 1)
        #expect(SQLClause.normalized("NOT INDEXED WHERE x") == "NOT INDEXED WHERE x")
        #expect(SQLClause.normalized("NOT archived") == "WHERE NOT archived")
        #expect(SQLClause.normalized("") == "")
    }

    @Test func anArrayArgumentExpandsToOnePlaceholderPerElement() throws {
        let temp = try seeded()
        let db = temp.db
        #expect(try db.objects(ErgoItem.self, where: "id IN (?) ORDER BY id", [1, 3, 5]).map(\.name) == ["a", "c", "e"])
        #expect(try db.objects(ErgoItem.self, where: "name IN (?) AND id > ?", Set(["a", "b", "c"]), 1).count == 2)
        #expect(try db.objects(ErgoItem.self, where: "id IN (?)", [Int]()).isEmpty, "an empty list matches nothing")
        #expect(try db.count(ErgoItem.self, where: "id IN (?)", arguments: [[2, 4]]) == 2)
        #expect(try db.first(ErgoItem.self, where: "id IN (?) ORDER BY id DESC", arguments: [[1, 2]])?.name == "b")
        #expect(try db.value(Int.self, "SELECT count(*) FROM \"ErgoItem\" WHERE name IN (?) AND '?' = '?'", ["d", "e", "z"]) == 2)
        #expect(try db.rows("SELECT id FROM \"ErgoItem\" WHERE id IN (?) ORDER BY id", [5, 4]).map { $0["id"] } == [.integer(4), .integer(5)])
        #expect(try db.deleteAll(ErgoItem.self, where: "id IN (?)", arguments: [[1, 2]]) == 2)
        try db.execute("UPDATE \"ErgoItem\" SET name = 'x' WHERE id IN (?)", [3, 4])
        #expect(try db.objects(ErgoItem.self, where: "ORDER BY id").map(\.name) == ["x", "x", "e"])
    }

    // PostgreSQL: the test reads the JSON text SQLite stores (JSONB spells it its own way)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: JSONB spells stored JSON its own way")) func jsonIsAnExplicitSpellingAndWhatCannotExpandIsAnError() throws {
        let temp = try seeded()
        let db = temp.db
        try db.execute("UPDATE ErgoItem SET tags = ? WHERE id = 1", JSONText(["red", "blue"]))
        #expect(try db.value(String.self, "SELECT tags FROM ErgoItem WHERE id = 1") == #"["red","blue"]"#)
        #expect(try db.object(ErgoItem.self, forKey: 1)?.tags == ["red", "blue"])
        // A model's array property is still stored as JSON by save.
        let item = try #require(try db.object(ErgoItem.self, forKey: 2))
        item.tags = ["green"]
        try db.save(item)
        #expect(try db.value(String.self, "SELECT tags FROM ErgoItem WHERE id = 2") == #"["green"]"#)

        struct Point: Codable { var x: Int }
        let notBindable = try #require(throws: DatabaseError.self) {
            try db.execute("SELECT ?", [Point(x: 1)])
        }
        #expect(notBindable.message.contains("wrap it in JSONText"))
        let named = try #require(throws: DatabaseError.self) {
            _ = try db.rows("SELECT * FROM ErgoItem WHERE id IN (?1)", [1, 2])
        }
        #expect(named.message.contains("plain `?` placeholders"))
    }
}
