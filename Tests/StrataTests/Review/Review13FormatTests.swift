import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 13, second reader: the formats values take in columns other tools made — whole doubles in
// Python's JSON layout, reference columns whose key tables fill after mapping, Bool text columns.

private struct R13Point: Codable, Equatable, JSONColumnValue {
    var x = 0.0
    var n = 0
    var tags: [Float] = []
}

private final class R13Reading: Model {
    static let tableName = "reading"
    var id: Int64 = 0
    var values: [Double] = []
    var weights: [String: Double] = [:]
    var counts: [String: Int] = [:]
    var point = R13Point()
    var maybe: R13Point?
    required init() {}
}

/// Django's JSONField columns, with rows as `json.dumps` wrote them.
private let readingDDL = #"""
    CREATE TABLE "reading" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "values" text NOT NULL CHECK ((JSON_VALID("values") OR "values" IS NULL)),
    "weights" text NOT NULL CHECK ((JSON_VALID("weights") OR "weights" IS NULL)),
    "counts" text NOT NULL CHECK ((JSON_VALID("counts") OR "counts" IS NULL)),
    "point" text NOT NULL CHECK ((JSON_VALID("point") OR "point" IS NULL)),
    "maybe" text NULL CHECK ((JSON_VALID("maybe") OR "maybe" IS NULL)));
    INSERT INTO reading VALUES (1, '[1.0, 2.5]', '{"a": 1.0}', '{"a": 1}', '{"x": 1.0, "n": 2, "tags": [3.0]}', '{"x": 2.0, "n": 0, "tags": []}');
    """#


private let g1 = UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!

private final class R13Flag: Model {
    static let tableName = "flag"
    var id: Int64 = 0
    var on = false
    required init() {}
}

private final class R13Day: Model {
    static let tableName = "day"
    static let primaryKey = "day"
    var day = Date()
    var note = ""
    required init() {}
}

@Suite struct Review13FormatTests {

    @Test func wholeDoublesKeepTheirPointInPythonsJSONLayout() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(readingDDL)
        let reading = try #require(try db.object(R13Reading.self, forKey: 1))
        #expect(reading.values == [1, 2.5])
        reading.values = [3, 4.5, -0.0, 1e20]
        reading.weights = ["b": 2, "a": 0.5]
        reading.counts = ["b": 2]
        reading.point = R13Point(x: 7, n: 8, tags: [1, 0.5])
        reading.maybe = R13Point(x: 1, n: 1, tags: [])
        try db.save(reading)
        func stored(_ column: String) throws -> String? { try db.value(String.self, "SELECT \"\(column)\" FROM reading WHERE id = 1") }
        #expect(try stored("values") == "[3.0, 4.5, -0.0, 1e+20]")
        #expect(try stored("weights") == #"{"a": 0.5, "b": 2.0}"#)
        #expect(try stored("counts") == #"{"b": 2}"#)
        #expect(try stored("point") == #"{"n": 8, "tags": [1.0, 0.5], "x": 7.0}"#)
        #expect(try stored("maybe") == #"{"n": 1, "tags": [], "x": 1.0}"#)
        // Read back, nothing changed: a save writes nothing, and a condition finds the row.
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        let again = try #require(try other.object(R13Reading.self, forKey: 1))
        #expect(again.values == [3, 4.5, -0.0, 1e20] && again.point == R13Point(x: 7, n: 8, tags: [1, 0.5]))
        #expect(try other.objects(R13Reading.self, where: \.point == R13Point(x: 7, n: 8, tags: [1, 0.5])).count == 1)
    }

    @Test func wholeDoublesStayAsJSONEncoderWritesThemInStrataColumns() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let reading = R13Reading()
        reading.values = [1, 2.5]
        reading.point = R13Point(x: 7, n: 8, tags: [1])
        try db.save(reading)
        #expect(try db.value(String.self, "SELECT \"values\" || ' ' || point FROM reading") == #"[1,2.5] {"n":8,"tags":[1],"x":7}"#)
    }

    @Test func floatPathsOfMixedAndKeyedValues() throws {
        #expect(JSONFloatPaths.of([1.0, 2]) == [[JSONFloatPaths.element]])
        #expect(JSONFloatPaths.of(["a": 1.0]) == [["a"]])
        #expect(JSONFloatPaths.of([g1: 1.0]) == [[JSONFloatPaths.element]])   // pairs: the key is text
        #expect(JSONFloatPaths.of(Date(timeIntervalSinceReferenceDate: 5)) == [[]])
        #expect(JSONFloatPaths.of([Decimal(1)]).isEmpty && JSONFloatPaths.of([Data([1])]).isEmpty)
        #expect(JSONStyle.restyle(#"{"a\"b":[1,{"c":2}],"d":3}"#, spaced: true, asciiOnly: true,
                                  floats: [[#"a"b"#, JSONFloatPaths.element], [#"a"b"#, JSONFloatPaths.element, "c"]])
                == #"{"a\"b": [1.0, {"c": 2.0}], "d": 3}"#)
    }

    @Test func referenceColumnFollowsKeysThisHandleInsertsFirstWithRawSQL() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE "gadget" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
            CREATE TABLE "widget" ("id" INTEGER NOT NULL PRIMARY KEY, "gadget_id" TEXT,
                FOREIGN KEY ("gadget_id") REFERENCES "gadget" ("id"));
            """)
        #expect(try db.objects(PeeweeWidget.self).isEmpty)   // mapped while both tables are empty
        try db.execute("INSERT INTO gadget VALUES ('0f8fad5bd9cb469fa16570867728950e', 'g1')")
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        let widget = PeeweeWidget(); widget.gadget = gadget
        try db.save(widget)
        #expect(try db.value(String.self, "SELECT gadget_id FROM widget") == "0f8fad5bd9cb469fa16570867728950e")
    }

    @Test func joinColumnFollowsKeysThisHandleInsertsFirstWithRawSQL() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE "gadget" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
            CREATE TABLE "part" ("id" INTEGER NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
            CREATE TABLE "gadget_part_through" ("id" INTEGER NOT NULL PRIMARY KEY,
                "gadget_id" TEXT NOT NULL, "part_id" INTEGER NOT NULL,
                FOREIGN KEY ("gadget_id") REFERENCES "gadget" ("id"), FOREIGN KEY ("part_id") REFERENCES "part" ("id"));
            """)
        let bolt = PeeweePart(); bolt.name = "bolt"
        try db.save(bolt)
        #expect(try bolt.$gadgets.load().isEmpty)
        // gadget_id's format decided while gadget is empty (as the first use that needs it would).
        #expect(try db.joinColumnFormat(table: "gadget_part_through", column: "gadget_id", holding: .of(PeeweeGadget.self)) == .native)
        try db.execute("INSERT INTO gadget VALUES ('0f8fad5bd9cb469fa16570867728950e', 'g1')")
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        try gadget.$parts.add(bolt)
        #expect(try db.value(String.self, "SELECT gadget_id FROM gadget_part_through") == "0f8fad5bd9cb469fa16570867728950e")
        #expect(try gadget.$parts.reload().map(\.name) == ["bolt"])
        #expect(try bolt.$gadgets.reload().map(\.name) == ["g1"])
    }

    @Test func allNullReferenceColumnOfAPopulatedTableFollowsTheKeyColumn() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE "gadget" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
            CREATE TABLE "widget" ("id" INTEGER NOT NULL PRIMARY KEY, "gadget_id" TEXT,
                FOREIGN KEY ("gadget_id") REFERENCES "gadget" ("id"));
            INSERT INTO gadget VALUES ('0f8fad5bd9cb469fa16570867728950e', 'g1');
            INSERT INTO widget VALUES (1, NULL);
            """)
        let widget = try #require(try db.object(PeeweeWidget.self, forKey: 1))
        widget.gadget = try db.object(PeeweeGadget.self, forKey: g1)
        try db.save(widget)
        #expect(try db.value(String.self, "SELECT gadget_id FROM widget") == "0f8fad5bd9cb469fa16570867728950e")
    }

    @Test func boolTextColumnEmptyAtFirstFollowsTheRowsAnotherToolWritesLater() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "flag" ("id" integer NOT NULL PRIMARY KEY, "on" bool NOT NULL)"#)
        #expect(try db.objects(R13Flag.self).isEmpty)   // mapped while empty: Strata's 0/1
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        try other.execute("INSERT INTO flag VALUES (1, 't')")
        let flag = try #require(try db.object(R13Flag.self, forKey: 1))
        #expect(flag.on)
        flag.on = false
        try db.save(flag)
        #expect(try db.value(String.self, #"SELECT "on" FROM flag WHERE id = 1"#) == "f")
        // The same through this handle's own raw SQL.
        try db.execute("INSERT INTO flag VALUES (2, 'f')")
        #expect(try db.objects(R13Flag.self, where: \.on == false).map(\.id) == [1, 2])
    }

    @Test func boolTextColumnFilledByThisHandlesRawSQLFirst() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "flag" ("id" integer NOT NULL PRIMARY KEY, "on" bool NOT NULL)"#)
        #expect(try db.objects(R13Flag.self).isEmpty)
        try db.execute("INSERT INTO flag VALUES (1, 'f')")
        let flag = R13Flag(); flag.on = true
        try db.save(flag)
        #expect(try db.column(String.self, #"SELECT "on" FROM flag ORDER BY id"#) == ["f", "t"])
        #expect(try db.objects(R13Flag.self, where: \.on == true).map(\.id) == [flag.id])
    }

    @Test func aDateKeyIsRefusedNamingModelPropertyAndWhy() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "day" ("day" DATE NOT NULL PRIMARY KEY, "note" TEXT NOT NULL)"#)
        do {
            _ = try db.objects(R13Day.self)
            Issue.record("a Date key mapped")
        } catch let error as ModelError {
            #expect(error.kind == .invalidPrimaryKey)
            #expect(error.model == "R13Day" && error.property == "day")
            #expect("\(error)".contains("not Date (stored as REAL), column \"day\""))
        }
    }

    @Test func allNullReferenceColumnWithoutAForeignKeyFollowsTheRelatedKeyColumn() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE "gadget" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
            CREATE TABLE "widget" ("id" INTEGER NOT NULL PRIMARY KEY, "gadget" TEXT);
            INSERT INTO gadget VALUES ('0f8fad5bd9cb469fa16570867728950e', 'g1');
            INSERT INTO widget VALUES (1, NULL);
            """)
        let widget = try #require(try db.object(PeeweeWidget.self, forKey: 1))
        widget.gadget = try db.object(PeeweeGadget.self, forKey: g1)
        try db.save(widget)
        #expect(try db.value(String.self, "SELECT gadget FROM widget") == "0f8fad5bd9cb469fa16570867728950e")
    }

    @Test func wholeDoublesInSQLAlchemysNumericJSONColumn() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"""
            CREATE TABLE reading (id INTEGER NOT NULL PRIMARY KEY, "values" JSON NOT NULL, weights JSON NOT NULL,
                counts JSON NOT NULL, point JSON NOT NULL, maybe JSON);
            INSERT INTO reading VALUES (1, '[0.5, 1.0]', '{"a": 1.0}', '{}', '{"x": 1.5, "n": 2, "tags": []}', NULL);
            """#)
        let reading = try #require(try db.object(R13Reading.self, forKey: 1))
        reading.weights = ["a": 2]
        reading.values = [2]
        try db.save(reading)
        #expect(try db.value(String.self, "SELECT weights FROM reading") == #"{"a": 2.0}"#)
        #expect(try db.value(String.self, "SELECT \"values\" FROM reading") == "[2.0]")
        #expect(try db.object(R13Reading.self, forKey: 1)?.weights == ["a": 2])
    }
}
