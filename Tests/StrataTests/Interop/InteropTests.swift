import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The Swift side of Fixtures/interop: databases that Django, SQLAlchemy and peewee built, in the folder
// STRATA_INTEROP_DIR names. Strata updates one property of a row, saves an unchanged row, deletes a row
// and inserts one; Fixtures/interop/interop.py then has each tool read every row back. Skipped unless
// Fixtures/interop/run.sh runs it.

private let interopFolder = ProcessInfo.processInfo.environment["STRATA_INTEROP_DIR"]

/// The columns all three tools' `Item` models share (each tool's own declared types and formats).
private protocol InteropItem: ModelDeclaration, ModelObject {
    var id: Int64 { get set }
    var name: String { get set }
    var created_at: Date { get set }
    var released_on: Date? { get set }
    var uid: UUID { get set }
    var active: Bool { get set }
    var counter: Int { get set }
    var weight: Double { get set }
    var notes: String? { get set }
}

private final class DjangoItem: ModelObject, InteropItem {
    static let tableName = "interop_item"
    var id: Int64 = 0
    var name = ""
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var uid = UUID()
    var active = false
    var counter = 0
    var weight = 0.0
    var notes: String?
    required init() { super.init() }
}

private final class SQLAlchemyItem: ModelObject, InteropItem {
    static let tableName = "items"
    var id: Int64 = 0
    var name = ""
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var uid = UUID()
    var active = false
    var counter = 0
    var weight = 0.0
    var notes: String?
    required init() { super.init() }
}

private final class PeeweeItem: ModelObject, InteropItem {
    static let tableName = "item"
    var id: Int64 = 0
    var name = ""
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var uid = UUID()
    var active = false
    var counter = 0
    var weight = 0.0
    var notes: String?
    var seen_at = Date(timeIntervalSince1970: 0)
    required init() { super.init() }
}

/// Django's `Price`: `item = ForeignKey(Item)` (column `item_id`, found by convention) and
/// `amount = DecimalField(max_digits=12, decimal_places=2)` (declared `decimal`).
private final class DjangoPrice: Model {
    static let tableName = "interop_price"
    var id: Int64 = 0
    @Reference var item: DjangoItem?
    var amount = Decimal(0)
    required init() {}
}

@Suite(.enabled(if: interopFolder != nil, "run by Fixtures/interop/run.sh"))
struct InteropTests {
    private func exercise<T: InteropItem>(_ type: T.Type, file: String, extra: (T) -> Void = { _ in }) throws {
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent(file).path)
        defer { try? db.close() }

        let alpha = try #require(try db.first(T.self, where: "WHERE name = ?", "alpha"))
        alpha.name = "alpha-strata"
        #expect(alpha.changedProperties == ["name"])
        try db.save(alpha)

        let gamma = try #require(try db.first(T.self, where: "WHERE name = ?", "gamma"))
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.save(gamma)
        trace.cancel()
        #expect(statements.isEmpty)

        let beta = try #require(try db.first(T.self, where: "WHERE name = ?", "beta"))
        #expect(try db.delete(beta))

        let new = T()
        new.name = "strata-new"
        new.created_at = Date(timeIntervalSince1970: 1_714_979_289.123456)
        new.released_on = Date(timeIntervalSince1970: 1_714_953_600)
        new.uid = try #require(UUID(uuidString: "12345678-1234-5678-1234-567812345678"))
        new.active = true
        new.counter = 7
        new.weight = 2.5
        new.notes = "from strata"
        extra(new)
        try db.save(new)
        #expect(new.id == 4)
    }

    @Test func django() throws {
        try exercise(DjangoItem.self, file: "django.sqlite3")

        // A ForeignKey and a DecimalField, mapped as Django made them.
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent("django.sqlite3").path)
        defer { try? db.close() }
        let plan = try db.schemaPlan(for: DjangoPrice.self)
        #expect(plan.isEmpty && plan.columns["item"] == "item_id")
        let prices = try db.objects(DjangoPrice.self, where: "ORDER BY id")
        #expect(prices.map { $0.item?.name } == ["alpha-strata", "gamma"])
        #expect(prices.map(\.amount) == [Decimal(string: "19.99"), Decimal(string: "0.1")])
        prices[1].amount = try #require(Decimal(string: "1234567.89"))
        try db.save(prices[1])
        let second = DjangoPrice()
        second.item = prices[0].item
        second.amount = try #require(Decimal(string: "5.5"))
        try db.save(second)
        #expect(try db.value(Int64.self, "SELECT item_id FROM interop_price WHERE id = ?", second.id) == 1)
    }

    @Test func sqlalchemy() throws {
        try exercise(SQLAlchemyItem.self, file: "sqlalchemy.sqlite3")
    }

    @Test func peewee() throws {
        try exercise(PeeweeItem.self, file: "peewee.sqlite3") { $0.seen_at = Date(timeIntervalSince1970: 1_714_979_289) }
    }
}
