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

/// Django's `Event` (empty), SQLAlchemy's `events` (Python's datetime.max), peewee's `event` (`at` NULL,
/// `stamp_us` a `TimestampField(resolution=10**6)`).
private final class DjangoEvent: Model {
    static let tableName = "interop_event"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

private final class SQLAlchemyEvent: Model {
    static let tableName = "events"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

private final class PeeweeEvent: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var at: Date?
    var stamp_us = Date(timeIntervalSince1970: 0)
    required init() {}
}

/// Django's `UUIDField(primary_key=True)` models (keys stored as 32 hex digits in `char(32)`): pets with a
/// `ForeignKey` to their owner, owners with a `ManyToManyField` to tags (the auto table
/// `interop_owner_tags`).
private final class DjangoOwner: Model {
    static let tableName = "interop_owner"
    var id = UUID()
    var name = ""
    @Children(by: "owner", orderBy: "name") var pets: [DjangoPet]
    @Siblings(through: "interop_owner_tags", from: "owner_id", to: "tag_id", orderBy: "name") var tags: [DjangoTag]
    required init() {}
}

private final class DjangoTag: Model {
    static let tableName = "interop_tag"
    var id = UUID()
    var name = ""
    required init() {}
}

private final class DjangoPet: Model {
    static let tableName = "interop_pet"
    var id: Int64 = 0
    var name = ""
    @Reference var owner: DjangoOwner?
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

        // UUID keys: Django reads back what Strata wrote (interop.py checks through its joins).
        let pets = try db.objects(DjangoPet.self, where: "ORDER BY id", prefetching: ["owner"])
        #expect(pets.map { $0.owner?.name } == ["ann", "bob"])
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        for pet in pets { try db.save(pet) }   // unchanged: no SQL
        trace.cancel()
        #expect(statements.isEmpty)
        let ann = try #require(pets[0].owner), bob = try #require(pets[1].owner)
        pets[1].owner = ann
        try db.save(pets[1])
        let kit = DjangoPet(); kit.name = "kit"; kit.owner = bob
        try db.save(kit)
        #expect(ann.pets.map(\.name) == ["rex", "tom"])
        let red = try #require(try db.first(DjangoTag.self, where: "WHERE name = 'red'"))
        let blue = try #require(try db.first(DjangoTag.self, where: "WHERE name = 'blue'"))
        #expect(ann.tags.map(\.name) == ["red"])
        try ann.$tags.add(red)     // there already: nothing
        try ann.$tags.add(blue)
        try bob.$tags.add(red)
        try ann.$tags.remove(red)
        #expect(try ann.$tags.reload().map(\.name) == ["blue"])
    }

    /// Whole seconds into an empty datetime column and beside datetime.max; a microsecond timestamp.
    @Test func events() throws {
        let folder = try #require(interopFolder)
        func open(_ file: String) throws -> Database {
            try Database(path: URL(fileURLWithPath: folder).appendingPathComponent(file).path)
        }
        let whole = Date(timeIntervalSince1970: 1_704_337_445)   // 2024-01-04 03:04:05 UTC
        let django = try open("django.sqlite3")
        defer { try? django.close() }
        for at in [whole, whole.addingTimeInterval(0.25)] {
            let event = DjangoEvent(); event.at = at
            try django.save(event)
        }
        let sqlalchemy = try open("sqlalchemy.sqlite3")
        defer { try? sqlalchemy.close() }
        let never = try #require(try sqlalchemy.object(SQLAlchemyEvent.self, forKey: 1))
        for at in [never.at, whole] {
            let event = SQLAlchemyEvent(); event.at = at
            try sqlalchemy.save(event)
        }
        let peewee = try open("peewee.sqlite3")
        defer { try? peewee.close() }
        let seeded = try #require(try peewee.object(PeeweeEvent.self, forKey: 1))
        #expect(seeded.stamp_us.timeIntervalSince1970 == 1_704_164_645.25 && seeded.at == nil)
        let event = PeeweeEvent(); event.at = whole; event.stamp_us = whole.addingTimeInterval(0.5)
        try peewee.save(event)
    }

    @Test func sqlalchemy() throws {
        try exercise(SQLAlchemyItem.self, file: "sqlalchemy.sqlite3")
    }

    @Test func peewee() throws {
        try exercise(PeeweeItem.self, file: "peewee.sqlite3") { $0.seen_at = Date(timeIntervalSince1970: 1_714_979_289) }
    }
}
