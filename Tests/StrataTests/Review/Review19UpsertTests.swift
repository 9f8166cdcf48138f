import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Issue 36, point 5: `db.upsert(object)`, insert-or-update by primary key or by the model's upsert keys.

private final class R19uItem: Model, Codable {
    static let tableName = "r19u_item"
    var id: Int64 = 0
    var name = ""
    var stock = 0
    required init() {}
}

private final class R19uPair: Model {
    static let tableName = "r19u_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b = ""
    var label = ""
    required init() {}
}

private final class R19uCode: Model {
    static let tableName = "r19u_code"
    static let primaryKey = "code"
    var code = ""
    var title = ""
    required init() {}
}

private final class R19uNote: Model {
    static let tableName = "r19u_note"
    static let upsertKeys = ["serverID"]
    static let uniqueIndices = [["serverID"]]
    var id: Int64 = 0
    var serverID = ""
    var text = ""
    required init() {}
}

/// The rows of `sql`, each as its values joined by "|" (text as is, NULL as NULL).
private func cells(_ db: Database, _ sql: String) throws -> [String] {
    try db.rows(sql).map { row in
        row.values.map { value in
            switch value {
            case .null: "NULL"
            case .integer(let v): "\(v)"
            case .real(let v): "\(v)"
            case .text(let v): v
            case .blob(let v): "blob \(v.count)"
            }
        }.joined(separator: "|")
    }
}

@Suite struct Review19UpsertTests {
    private func item(_ id: Int64, _ name: String, _ stock: Int) -> R19uItem {
        let item = R19uItem(); item.id = id; item.name = name; item.stock = stock
        return item
    }

    @Test func upsertInsertsANewRowAndLaterSavesUpdateIt() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let new = item(5, "bolt", 3)
        let saved = try db.upsert(new)
        #expect(saved === new)
        #expect(try cells(db, "SELECT id, name, stock FROM r19u_item") == ["5|bolt|3"])
        new.stock = 4
        try db.save(new)   // an UPDATE: the instance is live
        #expect(try db.value(Int.self, "SELECT stock FROM r19u_item WHERE id = 5") == 4)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r19u_item") == 1)
        #expect(try db.object(R19uItem.self, forKey: 5) === new)
    }

    @Test func upsertUpdatesAnExistingRowAndItsLiveInstance() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.save(item(1, "nut", 10))
        let live = try #require(try db.object(R19uItem.self, forKey: 1))
        let incoming = item(1, "hex nut", 12)
        let result = try db.upsert(incoming)
        #expect(result === live)                    // one row, one instance
        #expect(live.name == "hex nut" && live.stock == 12)
        #expect(incoming._registry == nil)           // the merged object stays new
        #expect(try cells(db, "SELECT name, stock FROM r19u_item WHERE id = 1") == ["hex nut|12"])
        #expect(try db.object(R19uItem.self, forKey: 1) === live)
        // Nothing unsaved is left: the live instance's snapshot is the row.
        let run = try statements(db) { try db.save(live) }
        #expect(run.isEmpty)
    }

    @Test func anObjectDecodedFromJSONWithATakenKeyIsUpserted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.save(item(7, "washer", 1))
        let json = Data(#"{"id":7,"name":"washer M8","stock":40}"#.utf8)
        let decoded = try JSONDecoder().decode(R19uItem.self, from: json)
        do {
            try db.save(decoded)
            Issue.record("a plain save of a new object with a taken key must be refused")
        } catch let error as ModelError {
            #expect(error.kind == .duplicateKey)
        }
        // No live instance for row 7 (the first save's was released): the decoded one becomes it.
        let result = try db.upsert(decoded)
        #expect(result === decoded)
        #expect(try cells(db, "SELECT typeof(stock), quote(name), stock FROM r19u_item")
                == ["integer|'washer M8'|40"])
        #expect(try db.object(R19uItem.self, forKey: 7) === decoded)
        decoded.stock = 41
        let run = try statements(db) { try db.save(decoded) }
        #expect(run.contains { $0.hasPrefix("UPDATE") } && !run.contains { $0.hasPrefix("INSERT") })
        #expect(try db.value(Int.self, "SELECT stock FROM r19u_item WHERE id = 7") == 41)
    }

    @Test func upsertByCompositeKey() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let first = R19uPair(); first.a = 1; first.b = "x"; first.label = "one"
        try db.save(first)
        let other = R19uPair(); other.a = 1; other.b = "y"; other.label = "two"
        try db.save(other)
        let incoming = R19uPair(); incoming.a = 1; incoming.b = "x"; incoming.label = "uno"
        #expect(try db.upsert(incoming) === first)
        #expect(first.label == "uno")
        let fresh = R19uPair(); fresh.a = 2; fresh.b = "x"; fresh.label = "dos"
        #expect(try db.upsert(fresh) === fresh)
        #expect(try cells(db, "SELECT a, b, label FROM r19u_pair ORDER BY a, b")
                == ["1|x|uno", "1|y|two", "2|x|dos"])
    }

    @Test func upsertByTextKey() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r19u_code (code TEXT NOT NULL PRIMARY KEY, title TEXT NOT NULL)")
        try db.execute("INSERT INTO r19u_code VALUES ('EUR', 'Euro')")
        let incoming = R19uCode(); incoming.code = "EUR"; incoming.title = "euro"
        #expect(try db.upsert(incoming) === incoming)
        let usd = R19uCode(); usd.code = "USD"; usd.title = "Dollar"
        try db.upsert(usd)
        #expect(try cells(db, "SELECT quote(code), quote(title) FROM r19u_code ORDER BY code")
                == ["'EUR'|'euro'", "'USD'|'Dollar'"])
        #expect(try db.object(R19uCode.self, forKey: "EUR") === incoming)
    }

    @Test func upsertByDeclaredUpsertKeysMergesIntoTheLiveInstance() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let live = R19uNote(); live.serverID = "s-1"; live.text = "draft"
        try db.save(live)
        // Before: a new instance with the upsert keys of a live row is refused (duplicateInstance).
        let incoming = R19uNote(); incoming.serverID = "s-1"; incoming.text = "final"
        #expect(try db.upsert(incoming) === live)
        #expect(live.text == "final" && live.id == 1)
        #expect(try cells(db, "SELECT id, serverID, text FROM r19u_note") == ["1|s-1|final"])
    }

    @Test func aFailedUpsertLeavesTheRowAndTheLiveInstanceAsTheyWere() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE r19u_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, stock INTEGER NOT NULL CHECK (stock >= 0))")
        try db.save(item(1, "nut", 10))
        let live = try #require(try db.object(R19uItem.self, forKey: 1))
        let bad = item(1, "negative nut", -1)
        do {
            try db.upsert(bad)
            Issue.record("the CHECK should refuse the upsert")
        } catch let error as DatabaseError {
            #expect(error.message.contains("CHECK constraint failed"))
        }
        #expect(live.name == "nut" && live.stock == 10)
        #expect(try cells(db, "SELECT name, stock FROM r19u_item") == ["nut|10"])
        #expect(try statements(db) { try db.save(live) }.isEmpty)   // nothing unsaved left behind

        // The adopting case: no live instance; the object stays new with its own values.
        try db.execute("INSERT INTO r19u_item VALUES (2, 'bolt', 5)")
        let alsoBad = item(2, "bolt", -5)
        #expect(throws: DatabaseError.self) { try db.upsert(alsoBad) }
        #expect(alsoBad._registry == nil && alsoBad.id == 2 && alsoBad.stock == -5)
        #expect(try db.value(Int.self, "SELECT stock FROM r19u_item WHERE id = 2") == 5)
        let fetched = try #require(try db.object(R19uItem.self, forKey: 2))
        #expect(fetched !== alsoBad && fetched.stock == 5)

        // Inside a transaction block: the savepoint is undone, the block goes on.
        try db.transaction {
            #expect(throws: DatabaseError.self) { try db.upsert(self.item(1, "x", -3)) }
            #expect(live.name == "nut" && live.stock == 10)
            try db.upsert(self.item(1, "nut", 11))
        }
        #expect(live.stock == 11)
        #expect(try db.value(Int.self, "SELECT stock FROM r19u_item WHERE id = 1") == 11)
    }
}
