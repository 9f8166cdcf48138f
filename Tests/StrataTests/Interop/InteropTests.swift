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

/// The JSON object of each tool's `Doc.data` (Python's `json.dumps` layout for Django and SQLAlchemy, SQLite's
/// `json()` for peewee's `JSONField`): unicode text, a list, nested objects, 1.5 and whole doubles.
private struct InteropDocData: JSONColumnValue, Equatable {
    struct Deep: Codable, Equatable { var flag: Bool; var note: String }
    struct Nested: Codable, Equatable { var x: Double; var ys: [Double]; var deep: Deep }
    var title: String
    var tags: [String]
    var nested: Nested
    var whole: Double
    var count: Int
}

/// Each tool's `Doc`: a JSON object, a JSON list (`scores`; peewee's a TextField of `json.dumps`), a decimal
/// (Django's `DecimalField`, SQLAlchemy's `Numeric(10, 2)`, peewee's `DecimalField`) and a float (REAL).
private protocol InteropDoc: ModelDeclaration, ModelObject {
    var id: Int64 { get set }
    var name: String { get set }
    var data: InteropDocData { get set }
    var scores: [Double] { get set }
    var price: Decimal { get set }
    var ratio: Float { get set }
}

/// Key paths to a `Doc`'s columns, formed on the concrete model: in generic code `\T.data` goes through the
/// protocol's witness, a computed key path that names no stored property.
private struct DocColumns<T> {
    let data: KeyPath<T, InteropDocData>, scores: KeyPath<T, [Double]>, price: KeyPath<T, Decimal>, ratio: KeyPath<T, Float>
    init(_ data: KeyPath<T, InteropDocData>, _ scores: KeyPath<T, [Double]>, _ price: KeyPath<T, Decimal>, _ ratio: KeyPath<T, Float>) {
        (self.data, self.scores, self.price, self.ratio) = (data, scores, price, ratio)
    }
}

private let emptyDocData = InteropDocData(title: "", tags: [], nested: .init(x: 0, ys: [], deep: .init(flag: false, note: "")), whole: 0, count: 0)

private final class DjangoDoc: ModelObject, InteropDoc {
    static let tableName = "interop_doc"
    var id: Int64 = 0
    var name = ""
    var data = emptyDocData
    var scores: [Double] = []
    var price = Decimal(0)
    var ratio: Float = 0
    required init() { super.init() }
}

private final class SQLAlchemyDoc: ModelObject, InteropDoc {
    static let tableName = "docs"
    var id: Int64 = 0
    var name = ""
    var data = emptyDocData
    var scores: [Double] = []
    var price = Decimal(0)
    var ratio: Float = 0
    required init() { super.init() }
}

private final class PeeweeDoc: ModelObject, InteropDoc {
    static let tableName = "doc"
    var id: Int64 = 0
    var name = ""
    var data = emptyDocData
    var scores: [Double] = []
    var price = Decimal(0)
    var ratio: Float = 0
    required init() { super.init() }
}

/// peewee's `UUIDField(primary_key=True)` models (uuid.hex in TEXT) and the through table of
/// `Note.labels = ManyToManyField(Label)`, which peewee leaves empty.
private final class PeeweeLabel: Model {
    static let tableName = "label"
    var id = UUID()
    var name = ""
    required init() {}
}

private final class PeeweeNote: Model {
    static let tableName = "note"
    var id = UUID()
    var name = ""
    @Siblings(through: "note_label_through", from: "note_id", to: "label_id", orderBy: "name") var labels: [PeeweeLabel]
    required init() {}
}

/// The JSON of Django's and SQLAlchemy's `Kind.doc` (`{"a": [1, 2], "b": "é"}`, `{"x": null}`; NULL or
/// SQLAlchemy's `null` text for None).
private struct InteropKindDoc: JSONColumnValue, Equatable {
    var a: [Int]?
    var b: String?
}

/// Field types beyond the Item tables, as each tool declares and stores them. Django's `Kind`: a
/// `DecimalField`, a `DurationField` (bigint microseconds: Int64), a `TimeField` (`time`: SQLValue, the
/// tool's text), a nullable `JSONField`, a `BinaryField`, a `GenericIPAddressField` (char(39)), a
/// `PositiveSmallIntegerField` (`smallint unsigned`: UInt16), a nullable `BooleanField` and a `DateTimeField`.
private final class DjangoKind: Model {
    static let tableName = "interop_kind"
    var id: Int64 = 0
    var name = ""
    var amount = Decimal(0)
    var span: Int64 = 0
    var at_time = SQLValue.text("00:00:00")
    var doc: InteropKindDoc?
    var blob = Data()
    var ip = ""
    var small: UInt16 = 0
    var flag: Bool?
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

/// Django's `Memo` (`data = JSONField()`), which Django leaves empty: Strata writes the first row.
private final class DjangoMemo: Model {
    static let tableName = "interop_memo"
    var id: Int64 = 0
    var data = InteropKindDoc()
    required init() {}
}

/// SQLAlchemy's native `Enum` (VARCHAR of the member names) and a non-native one with a CHECK, storing the
/// values (`values_callable`).
private enum InteropColor: String, ColumnValue { case red, green }
private enum InteropShade: String, ColumnValue { case red = "r", green = "g" }

/// SQLAlchemy's `Kind`: `Numeric(10, 2)`, `Interval` (DATETIME text: 1970-01-01 plus the interval, a Date),
/// `Time` (SQLValue), `JSON`, `LargeBinary`, the two enums, a nullable `Boolean`, `DateTime(timezone=True)`.
private final class SQLAlchemyKind: Model {
    static let tableName = "kinds"
    var id: Int64 = 0
    var name = ""
    var amount = Decimal(0)
    var span = Date(timeIntervalSince1970: 0)
    var at_time = SQLValue.text("00:00:00")
    var doc: InteropKindDoc?
    var blob = Data()
    var color = InteropColor.red
    var shade = InteropShade.red
    var flag: Bool?
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

/// peewee's `Kind`: `TimestampField(resolution=1000)` (INTEGER milliseconds), `DecimalField`, `TimeField`,
/// `BlobField`, a nullable `BooleanField` and a `DateTimeField` with microseconds.
private final class PeeweeKind: Model {
    static let tableName = "kind"
    var id: Int64 = 0
    var name = ""
    var ts_ms = Date(timeIntervalSince1970: 0)
    var amount = Decimal(0)
    var at_time = SQLValue.text("00:00:00")
    var blob = Data()
    var flag: Bool?
    var at = Date(timeIntervalSince1970: 0)
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

    /// Over each tool's `Doc` rows: reads them, finds the untouched one by key-path conditions on its JSON,
    /// decimal and float, changes one JSON value (`one`), a decimal and a float (`two`, to 45.6 and 0.1),
    /// saves `three` unchanged (no SQL) and inserts `strata`. interop.py checks what each tool reads.
    private func exerciseDocs<T: InteropDoc>(_ type: T.Type, file: String, _ c: DocColumns<T>) throws {
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent(file).path)
        defer { try? db.close() }
        #expect(try db.schemaPlan(for: T.self).isEmpty)

        let docs = try db.objects(T.self, where: "ORDER BY id")
        try #require(docs.map(\.name) == ["one", "two", "three"])
        let one = docs[0], two = docs[1], three = docs[2]
        #expect(one.data == InteropDocData(title: "café ✓", tags: ["a", "ü"],
                                           nested: .init(x: 1.5, ys: [1, 2.5], deep: .init(flag: true, note: "naïve 😀")),
                                           whole: 2, count: 3))
        #expect(three.data.whole == 1e20 && three.data.nested.x == 0.1)
        #expect(docs.map(\.scores) == [[1.5, 2, 3], [], [0.1]])
        #expect(docs.map(\.price) == ["12.3", "0.1", "7"].map { Decimal(string: $0)! })
        #expect(docs.map(\.ratio) == [1.25, 3, -2.5])

        // Key-path conditions find the rows the tool wrote.
        #expect(try db.objects(T.self, where: c.data == three.data).map(\.name) == ["three"])
        #expect(try db.objects(T.self, where: c.data == one.data).map(\.name) == ["one"])
        #expect(try db.objects(T.self, where: c.scores == [1.5, 2, 3]).map(\.name) == ["one"])
        #expect(try db.objects(T.self, where: c.scores == [0.1]).map(\.name) == ["three"])
        #expect(try db.objects(T.self, where: c.price == Decimal(string: "12.30")!).map(\.name) == ["one"])
        #expect(try db.objects(T.self, where: c.price == Decimal(string: "0.1")!).map(\.name) == ["two"])
        #expect(try db.objects(T.self, where: c.ratio == 1.25).map(\.name) == ["one"])

        one.data.title = "café ✓ strata"
        #expect(one.changedProperties == ["data"])
        try db.save(one)
        two.price = Decimal(string: "45.6")!
        two.ratio = 0.1
        #expect(two.changedProperties == ["price", "ratio"])
        try db.save(two)
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.save(three)
        trace.cancel()
        #expect(statements.isEmpty)

        let new = T()
        new.name = "strata"
        new.data = InteropDocData(title: "neu ✓ 😀", tags: ["é"], nested: .init(x: 2.5, ys: [1.5, 2], deep: .init(flag: true, note: "strata")),
                                  whole: 4, count: 7)
        new.scores = [0.5, 2]
        new.price = Decimal(string: "12.30")!
        new.ratio = 0.1
        try db.save(new)
        #expect(new.id == 4)
        #expect(try db.objects(T.self, where: c.ratio == 0.1).map(\.name) == ["two", "strata"])
        #expect(try db.objects(T.self, where: c.price == Decimal(string: "12.3")!).map(\.name) == ["one", "strata"])
        #expect(try db.objects(T.self, where: c.data == new.data).map(\.name) == ["strata"])
        #expect(try db.objects(T.self, where: c.data == one.data).map(\.name) == ["one"])
    }

    /// Over each tool's `Kind` rows (k1, k2, k3, tool-new): changes one property of k1, saves k2 unchanged (no
    /// SQL) and inserts `strata-new` with tool-new's values; interop.py checks that each tool reads every row
    /// and that strata-new is stored byte for byte as tool-new.
    /// `find` runs key-path conditions on tool-new's values, which must find tool-new and strata-new.
    private func exerciseKinds<T: Model>(_ type: T.Type, file: String, change: (T) -> Void, new: (T) -> Void,
                                         find: (Database) throws -> [String]) throws -> [T] {
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent(file).path)
        defer { try? db.close() }
        #expect(try db.schemaPlan(for: T.self).isEmpty)
        let rows = try db.objects(T.self, where: "ORDER BY id")
        try #require(rows.count == 4)
        change(rows[0])
        #expect(rows[0].changedProperties.count == 1)
        try db.save(rows[0])
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.save(rows[1])
        trace.cancel()
        #expect(statements.isEmpty)
        let inserted = T()
        new(inserted)
        try db.save(inserted)
        #expect(inserted.changedProperties.isEmpty)
        #expect(try find(db) == ["tool-new", "strata-new"])
        return rows
    }

    @Test func djangoKinds() throws {
        let rows = try exerciseKinds(DjangoKind.self, file: "django.sqlite3", change: { $0.span = -172_796_750_000 }) { new in
            new.name = "strata-new"; new.amount = Decimal(string: "5.50")!; new.span = 172_800_000_007
            new.at_time = .text("08:09:10.500000"); new.doc = InteropKindDoc(a: [3], b: "ü ✓"); new.blob = Data()
            new.ip = "::1"; new.small = 65535; new.flag = false; new.at = Date(timeIntervalSince1970: 1_714_979_289)
        } find: { db in
            try db.objects(DjangoKind.self, where: \.amount == Decimal(string: "5.5")! && \.span == 172_800_000_007
                           && \.at_time == .text("08:09:10.500000") && \.doc == InteropKindDoc(a: [3], b: "ü ✓") && \.blob == Data()
                           && \.small == 65535 && \.flag == false && \.at == Date(timeIntervalSince1970: 1_714_979_289)).map(\.name)
        }
        #expect(rows.map(\.name) == ["k1", "k2", "k3", "tool-new"])
        #expect(rows.map(\.amount) == ["12.3", "0.1", "-7", "5.5"].map { Decimal(string: $0)! })
        #expect(rows.map(\.at_time) == [.text("13:14:15.123456"), .text("01:02:03"), .text("00:00:00"), .text("08:09:10.500000")])
        #expect(rows.map(\.doc) == [InteropKindDoc(a: [1, 2], b: "é"), nil, InteropKindDoc(), InteropKindDoc(a: [3], b: "ü ✓")])
        #expect(rows.map(\.blob) == [Data([0, 1, 255]), Data(), Data("abc".utf8), Data()])
        #expect(rows.map(\.small) == [7, 0, 32767, 65535] && rows.map(\.flag) == [nil, true, false, false])
        #expect(rows[1].span == 1_500_000 && rows[2].at.timeIntervalSince1970 == 946_684_799.999999)
    }

    /// The first row of an empty Django `JSONField` column: Django's exact lookup must find it (interop.py).
    @Test func djangoMemo() throws {
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent("django.sqlite3").path)
        defer { try? db.close() }
        #expect(try db.schemaPlan(for: DjangoMemo.self).isEmpty)
        let memo = DjangoMemo()
        memo.data = InteropKindDoc(a: [3, 4], b: "ü ✓")
        try db.save(memo)
        #expect(memo.id == 1)
    }

    @Test func sqlalchemyKinds() throws {
        let rows = try exerciseKinds(SQLAlchemyKind.self, file: "sqlalchemy.sqlite3", change: { $0.span = Date(timeIntervalSince1970: -3599.999995) }) { new in
            new.name = "strata-new"; new.amount = Decimal(string: "5.50")!; new.span = Date(timeIntervalSince1970: 90.25)
            new.at_time = .text("08:09:10.000000"); new.doc = InteropKindDoc(a: [3], b: "ü ✓"); new.blob = Data()
            new.color = .green; new.shade = .red; new.flag = false; new.at = Date(timeIntervalSince1970: 1_714_979_289)
        } find: { db in
            try db.objects(SQLAlchemyKind.self, where: \.amount == Decimal(string: "5.50")! && \.span == Date(timeIntervalSince1970: 90.25)
                           && \.doc == InteropKindDoc(a: [3], b: "ü ✓") && \.blob == Data() && \.color == .green && \.shade == .red
                           && \.flag == false && \.at == Date(timeIntervalSince1970: 1_714_979_289)).map(\.name)
        }
        #expect(rows.map(\.span) == [-3599.999995, 1.5, -86_400, 90.25].map { Date(timeIntervalSince1970: $0) })
        #expect(rows.map(\.doc) == [InteropKindDoc(a: [1, 2], b: "é"), nil, InteropKindDoc(), InteropKindDoc(a: [3], b: "ü ✓")])
        #expect(rows.map(\.color) == [.red, .green, .red, .green] && rows.map(\.shade) == [.green, .red, .red, .red])
        #expect(rows.map(\.flag) == [nil, true, false, false] && rows.map(\.blob) == [Data([0, 1, 255]), Data(), Data("abc".utf8), Data()])
    }

    @Test func peeweeKinds() throws {
        let rows = try exerciseKinds(PeeweeKind.self, file: "peewee.sqlite3", change: { $0.ts_ms = Date(timeIntervalSince1970: 1_720_429_811.25) }) { new in
            new.name = "strata-new"; new.ts_ms = Date(timeIntervalSince1970: 1_714_979_289.123); new.amount = Decimal(string: "5.50")!
            new.at_time = .text("08:09:10.500000"); new.blob = Data(); new.flag = false; new.at = Date(timeIntervalSince1970: 1_714_979_289.123456)
        } find: { db in
            try db.objects(PeeweeKind.self, where: \.ts_ms == Date(timeIntervalSince1970: 1_714_979_289.123) && \.amount == Decimal(string: "5.5")!
                           && \.blob == Data() && \.flag == false && \.at == Date(timeIntervalSince1970: 1_714_979_289.123456)).map(\.name)
        }
        #expect(rows.map(\.ts_ms.timeIntervalSince1970) == [1_720_429_811.25, 1_704_164_645, 946_684_799.999, 1_714_979_289.123])
        #expect(rows.map(\.flag) == [nil, true, false, false] && rows.map(\.blob) == [Data([0, 1, 255]), Data(), Data("abc".utf8), Data()])
    }

    @Test func djangoDocs() throws { try exerciseDocs(DjangoDoc.self, file: "django.sqlite3", DocColumns(\.data, \.scores, \.price, \.ratio)) }
    @Test func sqlalchemyDocs() throws { try exerciseDocs(SQLAlchemyDoc.self, file: "sqlalchemy.sqlite3", DocColumns(\.data, \.scores, \.price, \.ratio)) }
    @Test func peeweeDocs() throws { try exerciseDocs(PeeweeDoc.self, file: "peewee.sqlite3", DocColumns(\.data, \.scores, \.price, \.ratio)) }

    /// Links into peewee's empty ManyToManyField through table between UUIDField keys: Strata adds three
    /// and removes one; interop.py has peewee read them from both sides.
    @Test func peeweeLinks() throws {
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent("peewee.sqlite3").path)
        defer { try? db.close() }
        #expect(try db.schemaPlan(for: PeeweeNote.self).isEmpty)
        let todo = try #require(try db.object(PeeweeNote.self, forKey: UUID(uuidString: "3f2504e0-4f89-41d3-9a0c-0305e82c3301")!))
        let done = try #require(try db.object(PeeweeNote.self, forKey: UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")!))
        let work = try #require(try db.object(PeeweeLabel.self, forKey: UUID(uuidString: "550e8400-e29b-41d4-a716-446655440000")!))
        let home = try #require(try db.first(PeeweeLabel.self, where: \.name == "home"))
        #expect(home.id == UUID(uuidString: "c9bf9e57-1685-4c89-bafb-ff5af830be8a"))
        #expect(todo.name == "todo" && done.name == "done" && work.name == "work")
        #expect(todo.labels.isEmpty && done.labels.isEmpty)
        try todo.$labels.add(work)
        try todo.$labels.add(home)
        try done.$labels.add(work)
        try todo.$labels.add(home)     // there already: nothing
        try todo.$labels.remove(work)
        #expect(todo.labels.map(\.name) == ["home"])
        #expect(try todo.$labels.reload().map(\.name) == ["home"])
        #expect(try done.$labels.reload().map(\.name) == ["work"])
        #expect(try db.value(Int64.self, "SELECT count(*) FROM note_label_through") == 2)
        let notes = try db.objects(PeeweeNote.self, where: "ORDER BY name", prefetching: ["labels"])
        #expect(notes.map { $0.labels.map(\.name) } == [["work"], ["home"]])
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
