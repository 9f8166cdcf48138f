import Foundation
import Strata
import StrataPostgres
import Testing

// The Swift side of Fixtures/interop/postgres.sh: tables Django's own migrations created and filled on the
// test server, in the schema STRATA_INTEROP_PG_SCHEMA names. Strata maps them with plain models (an empty
// schema plan: nothing to change), reads every row, changes one column of each type, deletes a row and
// inserts rows; Fixtures/interop/postgres.py then has Django's ORM read every row back. Skipped unless
// postgres.sh runs it.

private let interopSchema = ProcessInfo.processInfo.environment["STRATA_INTEROP_PG_SCHEMA"]

/// Django's `Item.data` (a `JSONField`, `jsonb`).
private struct PGIData: Codable, Equatable {
    struct Nested: Codable, Equatable {
        var x: Double
        var flag: Bool
    }
    var title: String
    var tags: [String]
    var nested: Nested
    var count: Int64
}

/// Django's `Item`: BigAutoField (`bigint` identity), CharField (`varchar(100)`), TextField, IntegerField,
/// BooleanField, DateTimeField (`timestamptz`, USE_TZ), DateField, DecimalField (`numeric(12,2)`),
/// UUIDField (`uuid`), JSONField (`jsonb`), FloatField (`double precision`).
private final class PGIItem: Model {
    static let tableName = "interop_item"
    var id: Int64 = 0
    var name = ""
    var notes: String?
    var counter = 0
    var active = false
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var price = Decimal(0)
    var uid = UUID()
    var data = PGIData(title: "", tags: [], nested: .init(x: 0, flag: false), count: 0)
    var weight = 0.0
    required init() {}
}

/// Django's `Price`: `item = ForeignKey(Item, on_delete=CASCADE)` (column `item_id`, found by convention).
private final class PGIPrice: Model {
    static let tableName = "interop_price"
    var id: Int64 = 0
    @Reference var item: PGIItem?
    var amount = Decimal(0)
    required init() {}
}

/// Django's `Owner`, keyed by `UUIDField(primary_key=True)`.
private final class PGIOwner: Model {
    static let tableName = "interop_owner"
    var id = UUID()
    var name = ""
    required init() {}
}

/// Django's `Pet`: `owner = ForeignKey(Owner, on_delete=PROTECT)` (a `uuid` column) and a nullable datetime.
private final class PGIPet: Model {
    static let tableName = "interop_pet"
    var id: Int64 = 0
    var name = ""
    @Reference var owner: PGIOwner?
    var born: Date?
    required init() {}
}

/// A UTC date from its parts (microseconds exact).
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0,
                 micro: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    let whole = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    return Date(timeIntervalSince1970: (whole?.timeIntervalSince1970 ?? 0) + Double(micro) / 1_000_000)
}

private func uuid(_ text: String) -> UUID { UUID(uuidString: text) ?? UUID() }

/// The models `strata generate` writes for Django's tables (Generated/DjangoPostgresFixture.swift, committed:
/// the test target compiles it) are today's output, map Django's tables with an empty plan and read every row.
private func checkGeneratedModels(schema: String) throws {
    let committed = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Generated/DjangoPostgresFixture.swift"), encoding: .utf8)
    let generated = try generatedModels(schema: schema, namespace: "DjangoPostgresFixture")
    #expect(generated == committed.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().joined())
    let db = try Database(postgresURL: postgresURL ?? "")
    defer { try? db.close() }
    try db.execute("SET search_path TO \(schema)")
    #expect(DjangoPostgresFixture.models.count == 5)
    for model in DjangoPostgresFixture.models {
        try check(model, in: db)
    }
    let owners = try db.objects(DjangoPostgresFixture.InteropOwner.self, orderBy: .ascending(\.name))
    #expect(owners.map(\.id) == [uuid("3F2504E0-4F89-41D3-9A0C-0305E82C3301"), uuid("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")])
    let pets = try db.objects(DjangoPostgresFixture.InteropPet.self, orderBy: .ascending(\.id))
    #expect(pets.map { $0.owner?.name } == ["ann", "bob"] && pets[0].owner === owners[0])
    let prices = try db.objects(DjangoPostgresFixture.InteropPrice.self, orderBy: .ascending(\.id))
    #expect(prices.map { $0.item?.name } == ["alpha", "gamma"] && prices.map(\.amount) == [Decimal(string: "19.99"), Decimal(string: "0.10")])
}

private func check<T: Model>(_ type: T.Type, in db: Database) throws {
    let plan = try db.schemaPlan(for: T.self)
    #expect(plan.steps.map(\.sql) == [], "\(T.self)")
    let rows = try db.value(Int.self, "SELECT count(*) FROM \"\(plan.table)\"") ?? -1
    #expect(try db.objects(T.self).count == rows, "\(T.self)")
}

@Suite("PostgreSQL interop with Django", .enabled(if: postgresURL != nil && interopSchema != nil, "run by Fixtures/interop/postgres.sh"))
struct PostgresInteropTests {
    @Test func strataEditsTheRowsDjangoMigratedAndFilled() throws {
        let schema = try #require(interopSchema)
        let db = try Database(postgresURL: postgresURL ?? "")
        defer { try? db.close() }
        try db.execute("SET search_path TO \(schema)")
        try checkGeneratedModels(schema: schema)

        // Django's tables map as they are: nothing to create, add or change.
        for type in [PGIItem.self, PGIPrice.self, PGIOwner.self, PGIPet.self] as [any Model.Type] {
            #expect(try db.schemaPlan(for: type).steps.map(\.sql) == [], "\(type)")
        }

        // Every row reads back with Django's values.
        let items = Dictionary(uniqueKeysWithValues: try db.objects(PGIItem.self, orderBy: .ascending(\.id)).map { ($0.name, $0) })
        #expect(items.keys.sorted() == ["alpha", "beta", "delta", "gamma"])
        let alpha = try #require(items["alpha"]), beta = try #require(items["beta"])
        let gamma = try #require(items["gamma"]), delta = try #require(items["delta"])
        #expect(alpha.id == 1 && alpha.notes == "first" && alpha.counter == 10 && alpha.active)
        #expect(alpha.created_at == utc(2001, 2, 3, 4, 5, 6, micro: 789_000) && alpha.released_on == utc(1999, 12, 31))
        #expect(alpha.price == Decimal(string: "12.30") && alpha.uid == uuid("0F8FAD5B-D9CB-469F-A165-70867728950E"))
        #expect(alpha.data == PGIData(title: "café ✓", tags: ["a", "ü"], nested: .init(x: 1.5, flag: true), count: 3) && alpha.weight == 1.5)
        #expect(beta.notes == nil && beta.released_on == nil && !beta.active && beta.price == Decimal(string: "0.10"))
        #expect(gamma.notes == "третий ✓" && gamma.created_at == utc(2024, 2, 29, 23, 59, 59, micro: 1) && gamma.weight == -0.5)
        #expect(delta.created_at == utc(1970, 1, 1) && delta.released_on == Date(timeIntervalSince1970: -62_135_596_800)   // 0001-01-01, proleptic Gregorian
                && delta.price == Decimal(string: "-9999999999.99"))
        #expect(delta.data == PGIData(title: "", tags: ["😀"], nested: .init(x: 1e-7, flag: false), count: 1 << 40) && delta.weight == 1e-300)
        #expect(items.values.allSatisfy { !$0.hasChanges })   // jsonb's and numeric's own spellings are no change

        let prices = try db.objects(PGIPrice.self, orderBy: .ascending(\.id))
        #expect(prices.map { $0.item?.name } == ["alpha", "gamma"] && prices.map(\.amount) == [Decimal(string: "19.99"), Decimal(string: "0.10")])
        #expect(prices[0].item === alpha)
        let owners = Dictionary(uniqueKeysWithValues: try db.objects(PGIOwner.self).map { ($0.name, $0) })
        let ann = try #require(owners["ann"]), bob = try #require(owners["bob"])
        #expect(ann.id == uuid("3F2504E0-4F89-41D3-9A0C-0305E82C3301") && bob.id == uuid("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"))
        let pets = try db.objects(PGIPet.self, orderBy: .ascending(\.id))
        #expect(pets.map(\.name) == ["rex", "tom"] && pets.map { $0.owner?.name } == ["ann", "bob"])
        #expect(pets[0].born == utc(2020, 1, 2, 3, 4, 5, micro: 6) && pets[1].born == nil)

        // One column of each type changed (alpha: text, integer, boolean, datetime; gamma: date, decimal,
        // UUID, JSON, float), beta deleted, delta left alone, a row inserted.
        alpha.name = "alpha-strata"
        alpha.notes = "notes ✓ strata"
        alpha.counter = -11
        alpha.active = false
        alpha.created_at = utc(2024, 5, 6, 7, 8, 9, micro: 123_456)
        try db.save(alpha)
        gamma.released_on = utc(2000, 2, 29)
        gamma.price = Decimal(string: "1234567890.12") ?? 0
        gamma.uid = uuid("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        gamma.data = PGIData(title: "drei ✓ strata", tags: ["x", "ß"], nested: .init(x: 2.0, flag: false), count: 5)
        gamma.weight = 0.1
        try db.save(gamma)
        try db.delete(beta)
        let new = PGIItem()
        new.name = "strata-new"
        new.counter = 7
        new.active = true
        new.created_at = utc(2024, 5, 6, 7, 8, 9, micro: 500_000)
        new.released_on = utc(2024, 5, 6)
        new.price = Decimal(string: "5.50") ?? 0
        new.uid = uuid("12345678-1234-5678-1234-567812345678")
        new.data = PGIData(title: "neu 😀", tags: [], nested: .init(x: 2.5, flag: true), count: 0)
        new.weight = 2.5
        try db.save(new)
        #expect(new.id == 5)   // the identity column's next value

        // The foreign keys: gamma's price changed, a price for the new row; tom moves to ann, kit for bob.
        prices[1].amount = Decimal(string: "12345.68") ?? 0
        try db.save(prices[1])
        let price = PGIPrice()
        price.item = new
        price.amount = Decimal(string: "5.50") ?? 0
        try db.save(price)
        let cy = PGIOwner()
        cy.id = uuid("550E8400-E29B-41D4-A716-446655440000")
        cy.name = "cy"
        try db.save(cy)
        pets[1].owner = ann
        try db.save(pets[1])
        let kit = PGIPet()
        kit.name = "kit"
        kit.owner = bob
        kit.born = utc(2024, 1, 2, 3, 4, 5, micro: 250_000)
        try db.save(kit)

        // What PostgreSQL stored, in the columns' own types (as psql shows them).
        #expect(try db.rows("""
            SELECT name, notes, counter::text, active::text, created_at::text, released_on::text, price::text, uid::text, data::text, weight::text
            FROM interop_item WHERE id IN (1, 3, 5) ORDER BY id
            """).map(\.values) == [
                [.text("alpha-strata"), .text("notes ✓ strata"), .text("-11"), .text("false"), .text("2024-05-06 07:08:09.123456+00"),
                 .text("1999-12-31"), .text("12.30"), .text("0f8fad5b-d9cb-469f-a165-70867728950e"),
                 .text(#"{"tags": ["a", "ü"], "count": 3, "title": "café ✓", "nested": {"x": 1.5, "flag": true}}"#), .text("1.5")],
                [.text("gamma"), .text("третий ✓"), .text("30"), .text("true"), .text("2024-02-29 23:59:59.000001+00"),
                 .text("2000-02-29"), .text("1234567890.12"), .text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"),
                 .text(#"{"tags": ["x", "ß"], "count": 5, "title": "drei ✓ strata", "nested": {"x": 2.0, "flag": false}}"#), .text("0.1")],
                [.text("strata-new"), .null, .text("7"), .text("true"), .text("2024-05-06 07:08:09.5+00"),
                 .text("2024-05-06"), .text("5.50"), .text("12345678-1234-5678-1234-567812345678"),
                 .text(#"{"tags": [], "count": 0, "title": "neu 😀", "nested": {"x": 2.5, "flag": true}}"#), .text("2.5")],
            ])
        #expect(try db.rows("SELECT item_id, amount::text FROM interop_price ORDER BY id").map(\.values)
                == [[.integer(1), .text("19.99")], [.integer(3), .text("12345.68")], [.integer(5), .text("5.50")]])
        #expect(try db.rows("SELECT name, owner_id::text, born::text FROM interop_pet ORDER BY id").map(\.values) == [
            [.text("rex"), .text("3f2504e0-4f89-41d3-9a0c-0305e82c3301"), .text("2020-01-02 03:04:05.000006+00")],
            [.text("tom"), .text("3f2504e0-4f89-41d3-9a0c-0305e82c3301"), .null],
            [.text("kit"), .text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), .text("2024-01-02 03:04:05.25+00")],
        ])
        #expect(try db.column(String.self, "SELECT id::text FROM interop_owner ORDER BY name")
                == ["3f2504e0-4f89-41d3-9a0c-0305e82c3301", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "550e8400-e29b-41d4-a716-446655440000"])

        // Another handle reads Strata's rows back equal.
        let other = try Database(postgresURL: postgresURL ?? "")
        defer { try? other.close() }
        try other.execute("SET search_path TO \(schema)")
        let again = try other.objects(PGIItem.self, orderBy: .ascending(\.id))
        #expect(again.map(\.name) == ["alpha-strata", "gamma", "delta", "strata-new"])
        for (read, wrote) in zip(again, [alpha, gamma, delta, new]) {
            #expect(read.created_at == wrote.created_at && read.released_on == wrote.released_on && read.price == wrote.price
                    && read.uid == wrote.uid && read.data == wrote.data && read.weight == wrote.weight && read.notes == wrote.notes, "\(read.name)")
        }
    }
}
