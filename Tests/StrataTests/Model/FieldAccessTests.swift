import Foundation
import StrataTestSupport
import Testing
@testable import Strata

enum FieldMood: String, Codable { case calm, busy }
enum FieldLevel: Int, ColumnValue { case low = 1, high = 2 }
struct PostalAddress: Codable, Equatable { var city: String; var zip: Int }

/// A model with a property of every storable kind, so every FieldAccess path (fast and generic)
/// writes and reads through its pointer. Run with `swift test --sanitize=address`.
final class EveryType: Model {
    var id: Int64 = 0
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var bool = false
    var double = 0.0
    var float: Float = 0
    var string = ""
    var data = Data()
    var date = Date(timeIntervalSince1970: 0)
    var url = URL(fileURLWithPath: "/")
    var uuid = UUID()
    var level = FieldLevel.low
    var mood = FieldMood.calm
    var tags: [String] = []
    var scores: [String: Int] = [:]
    var address = PostalAddress(city: "", zip: 0)
    var optionalInt: Int?
    var optionalInt64: Int64?
    var optionalDouble: Double?
    var optionalString: String?
    var optionalDate: Date?
    var optionalMood: FieldMood?
    var optionalAddress: PostalAddress?
    var raw: SQLValue = .null
    required init() {}
}

@Suite struct FieldAccessTests {
    private func filled() -> EveryType {
        let o = EveryType()
        o.int = -42; o.int8 = -8; o.int16 = -16; o.int32 = -32; o.int64 = Int64.min
        o.uint = 42; o.uint8 = 255; o.uint16 = 65_535; o.uint32 = UInt32.max; o.uint64 = UInt64(Int64.max)
        o.bool = true; o.double = -0.5; o.float = 1.25
        o.string = "héllo 𝄞 \u{0}nul"
        o.data = Data([0, 1, 2, 255])
        o.date = Date(timeIntervalSince1970: -1_000_000.123456)
        o.url = URL(string: "https://swift.org/a?b=c")!
        o.uuid = UUID(uuidString: "1B4E28BA-2FA1-11D2-883F-0016D3CCA427")!
        o.level = .high; o.mood = .busy
        o.tags = ["a", "b"]; o.scores = ["x": 1]
        o.address = PostalAddress(city: "Oslo", zip: 150)
        o.optionalInt = 7; o.optionalInt64 = Int64.max; o.optionalDouble = 2.5; o.optionalString = "s"
        o.optionalDate = Date(timeIntervalSince1970: 86_400); o.optionalMood = .calm
        o.optionalAddress = PostalAddress(city: "Rome", zip: 1)
        o.raw = .blob(Data([9]))
        return o
    }

    private func expectEqual(_ a: EveryType, _ b: EveryType) {
        #expect(a.int == b.int && a.int8 == b.int8 && a.int16 == b.int16 && a.int32 == b.int32 && a.int64 == b.int64)
        #expect(a.uint == b.uint && a.uint8 == b.uint8 && a.uint16 == b.uint16 && a.uint32 == b.uint32 && a.uint64 == b.uint64)
        #expect(a.bool == b.bool && a.double == b.double && a.float == b.float)
        #expect(a.string == b.string && a.data == b.data && a.url == b.url && a.uuid == b.uuid)
        #expect(abs(a.date.timeIntervalSince1970 - b.date.timeIntervalSince1970) < 1e-6)
        #expect(a.level == b.level && a.mood == b.mood && a.tags == b.tags && a.scores == b.scores && a.address == b.address)
        #expect(a.optionalInt == b.optionalInt && a.optionalInt64 == b.optionalInt64)
        #expect(a.optionalDouble == b.optionalDouble && a.optionalString == b.optionalString)
        #expect(a.optionalDate == b.optionalDate && a.optionalMood == b.optionalMood && a.optionalAddress == b.optionalAddress)
        #expect(a.raw == b.raw)
    }

    // PostgreSQL: text cannot hold NUL (U+0000)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: text cannot hold NUL (U+0000)")) func everyTypeRoundTripsThroughFieldPointers() throws {
        let temp = try TestDatabase()
        let original = filled()
        try temp.db.save(original)
        let db = try temp.reopen()
        let loaded = try #require(try db.object(EveryType.self, forKey: original.id))
        #expect(loaded !== original)
        expectEqual(loaded, original)
    }

    @Test func nilOptionalsAndDefaultsRoundTrip() throws {
        let temp = try TestDatabase()
        let original = EveryType()
        try temp.db.save(original)
        let loaded = try #require(try temp.reopen().object(EveryType.self, forKey: original.id))
        expectEqual(loaded, original)
        #expect(loaded.optionalString == nil && loaded.optionalAddress == nil)
    }

    // PostgreSQL: the filled values include a string with NUL (U+0000), which PostgreSQL text cannot hold
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: text cannot hold NUL (U+0000)")) func updateOverwritesEveryField() throws {
        let temp = try TestDatabase()
        let object = EveryType()
        try temp.db.save(object)
        let values = filled()
        values.id = object.id
        try temp.db.execute("DELETE FROM \"EveryType\"")
        try temp.db.save(values)
        let loaded = try #require(try temp.reopen().object(EveryType.self, forKey: object.id))
        expectEqual(loaded, values)
    }

    // PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())")) func columnTypesFollowTheValueTable() throws {
        let db = try TestDatabase.make()
        try db.syncSchema(EveryType.self)
        let types = Dictionary(uniqueKeysWithValues: try db.rows("SELECT name, type, \"notnull\" FROM pragma_table_info('EveryType')").map {
            (try $0.decode("name", as: String.self), try $0.decode("type", as: String.self) + (try $0.decode("notnull", as: Bool.self) ? " NOT NULL" : ""))
        })
        #expect(types["int"] == "INTEGER NOT NULL")
        #expect(types["bool"] == "INTEGER NOT NULL")
        #expect(types["float"] == "REAL NOT NULL")
        #expect(types["date"] == "REAL NOT NULL")
        #expect(types["uuid"] == "TEXT NOT NULL")
        #expect(types["level"] == "INTEGER NOT NULL")
        #expect(types["mood"] == "TEXT NOT NULL")
        #expect(types["tags"] == "TEXT NOT NULL")
        #expect(types["data"] == "BLOB NOT NULL")
        #expect(types["optionalMood"] == "TEXT")
        #expect(types["optionalAddress"] == "TEXT")
        #expect(types["raw"] == "NUMERIC")
    }

    @Test func uint64AboveInt64MaxIsAnErrorNamingTheProperty() throws {
        let db = try TestDatabase.make()
        let object = EveryType()
        object.uint64 = UInt64.max
        let error = try #require(throws: ValueConversionError.self) { try db.save(object) }
        #expect(error.property == "uint64")
        #expect(error.model == "EveryType")
        #expect(!object.isPersisted)
    }

    // PostgreSQL: SQLite's type affinity (an integer column there refuses 1e300)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func badStoredValueIsAnErrorNamingColumnAndProperty() throws {
        let db = try TestDatabase.make()
        try db.save(EveryType())
        try db.execute("UPDATE EveryType SET int32 = 1e300")
        let error = try #require(throws: ValueConversionError.self) { try db.objects(EveryType.self) }
        #expect(error.column == "int32")
        #expect(error.property == "int32")
        #expect(error.found == .real(1e300))
    }
}
