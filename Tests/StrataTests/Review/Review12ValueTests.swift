import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 12, second reader: values other tools stored, queried with key-path conditions and rewritten by
// saves — JSON in Python's json.dumps style, floats another tool wrote as REAL, decimals kept as text.

private struct R12Address: Codable, Equatable, JSONColumnValue {
    var city = ""
    var zips: [Int] = []
    var score = 0.0
}

private enum R12Ratio: Float, Codable, ColumnValue { case low = 0.1, high = 0.7 }

private final class R12Doc: Model {
    static let tableName = "doc"
    var id: Int64 = 0
    var title = ""
    var meta: [String: Int] = [:]
    var address = R12Address()
    var tags: [String] = []
    var labels: Set<String> = []
    var extra: R12Address?
    var ratio: Float = 0
    var maybeRatio: Float?
    var level = R12Ratio.low
    var price = Decimal(0)
    required init() {}
}

/// Django's columns for the model (JSONField as `text` with JSON_VALID, FloatField as `real`), and a
/// `varchar` price that another tool keeps as text with two decimals.
private let docDDL = """
    CREATE TABLE "doc" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(20) NOT NULL,
    "meta" text NOT NULL CHECK ((JSON_VALID("meta") OR "meta" IS NULL)),
    "address" text NOT NULL CHECK ((JSON_VALID("address") OR "address" IS NULL)),
    "tags" text NOT NULL CHECK ((JSON_VALID("tags") OR "tags" IS NULL)),
    "labels" text NOT NULL CHECK ((JSON_VALID("labels") OR "labels" IS NULL)),
    "extra" text NULL CHECK ((JSON_VALID("extra") OR "extra" IS NULL)),
    "ratio" real NOT NULL, "maybeRatio" real NULL, "level" real NOT NULL, "price" varchar(20) NOT NULL)
    """

/// Rows as Python's `json.dumps` writes them: spaces, keys in insertion order, `\\u00e9`, `1.0`.
private let pythonRows = #"""
    INSERT INTO doc VALUES (1, 'one', '{"b": 2, "a": 1}', '{"zips": [1, 2], "city": "Caf\u00e9", "score": 1.0}',
        '["x", "y"]', '["b", "a"]', 'null', 0.1, 0.7, 0.7, '12.30');
    INSERT INTO doc VALUES (2, 'two', '{}', '{"city": "Oslo", "zips": [], "score": 0.5}', '[]', '[]', NULL, 0.5, NULL, 0.1, '9.50');
    """#

private func column(_ db: Database, _ name: String, _ id: Int64) throws -> String? {
    try db.value(String.self, "SELECT quote(\(name)) FROM doc WHERE id = ?", id)
}

@Suite struct Review12ValueTests {

    @Test func floatConditionsMatchAnotherToolsReals() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        #expect(try db.objects(R12Doc.self, where: \.ratio == 0.1).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.ratio != 0.1).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: \.ratio <= 0.1).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.ratio > 0.1).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: \.ratio >= 0.1).map(\.id) == [1, 2])
        #expect(try db.objects(R12Doc.self, where: \.ratio < 0.5).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: (\R12Doc.ratio).in([0.1, 0.3])).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.maybeRatio == 0.7).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.level == .high).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.level == .low).map(\.id) == [2])
        // The widened double GRDB writes, and the 15 digits GYDataCenter's FMDB kept of 1.1f, read as the
        // same floats and match them.
        try db.execute("UPDATE doc SET ratio = 0.100000001490116 WHERE id = 1")
        try db.execute("UPDATE doc SET ratio = 1.10000002384186 WHERE id = 2")
        #expect(try db.objects(R12Doc.self, where: \.ratio == 0.1).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.ratio == 1.1).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: \.ratio > 0.1).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: \.ratio <= 1.1).map(\.id) == [1, 2])
        #expect(try db.objects(R12Doc.self, where: \.ratio < 1.1).map(\.id) == [1])
    }

    @Test func unchangedValuesReadFromPythonRowsAreNoChange() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        var writes: [String] = []
        let trace = db.traceStatements { if $0.hasPrefix("UPDATE") { writes.append($0) } }
        defer { trace.cancel() }
        for doc in try db.objects(R12Doc.self) {
            #expect(doc.changedProperties == [])
            try db.save(doc)
        }
        #expect(writes.isEmpty)
        let doc = try #require(try db.object(R12Doc.self, forKey: 1))
        #expect(doc.ratio == 0.1 && doc.labels == ["a", "b"] && doc.level == .high)
    }

    @Test func aChangedFloatIsWrittenAsItsShortestDecimal() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        let doc = try #require(try db.object(R12Doc.self, forKey: 2))
        doc.ratio = 0.3
        doc.maybeRatio = 0.1
        doc.level = .high
        try db.save(doc)
        #expect(try column(db, "ratio", 2) == "0.3")
        #expect(try column(db, "maybeRatio", 2) == "0.1")
        #expect(try column(db, "level", 2) == "0.7")
        #expect(doc.changedProperties == [])
        _ = try db.objects(R12Doc.self)
        #expect(doc.changedProperties == [] && doc.ratio == 0.3)
    }

    @Test func jsonConditionsMatchRowsInPythonsStyle() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        #expect(try db.objects(R12Doc.self, where: \.meta == ["a": 1, "b": 2]).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.tags == ["x", "y"]).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.tags == []).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: \.address == R12Address(city: "Café", zips: [1, 2], score: 1)).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.labels == ["a", "b"]).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.meta != ["a": 1, "b": 2]).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: (\R12Doc.tags).in([["x", "y"], ["z"]])).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.extra == R12Address(city: "Oslo")).map(\.id) == [])
        // The JSON text `null` reads as nil, as SQL NULL does: `== nil` finds both.
        #expect(try db.objects(R12Doc.self, where: \.extra == nil).map(\.id) == [1, 2])
        #expect(try db.objects(R12Doc.self, where: \.extra != nil).map(\.id) == [])
        try db.execute(#"UPDATE doc SET extra = '{"score": 0.0, "zips": [], "city": "Oslo\/Nord\n"}', labels = '["c", "a", "b"]' WHERE id = 2"#)
        #expect(try db.objects(R12Doc.self, where: \.extra == R12Address(city: "Oslo/Nord\n")).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: \.extra != nil).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, where: (\R12Doc.labels).in([["a", "b", "c"], ["a", "b"]])).map(\.id) == [1, 2])
        #expect(try db.count(R12Doc.self, where: \.labels == ["a", "b", "c"] && \.tags == []) == 1)
    }

    @Test func theCanonicalJSONTextOfEachSpelling() {
        let cases: [(String, String?)] = [
            (#"{"b": [1, 2.0], "a": "Caf\u00e9"}"#, #"{"a":"Café","b":[1,2]}"#),
            (#" [ 1.5e3 , -0 , 1E-7, 100000000000000000000, 1e+20, true, null ] "#, "[1500,0,1e-07,1e+20,1e+20,true,null]"),
            (#""\ud83d\ude00 \" \/ \u0001""#, "\"😀 \\\" / \\u0001\""),
            (#"{"a": 1,}"#, nil), ("[1] x", nil), (#""\x""#, nil), ("01", nil), ("", nil),
        ]
        for (input, canonical) in cases {
            #expect(JSONCanonical.text(Array(input.utf8)) == canonical, "\(input)")
        }
        #expect(JSONCanonical.text(Array(#"["b", "a", ["d", "c"]]"#.utf8), sortingArray: true) == #"["a","b",["d","c"]]"#)
    }

    @Test func aChangedDecimalKeepsTheTextColumnsDecimalPlaces() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        let doc = try #require(try db.object(R12Doc.self, forKey: 2))
        doc.price = Decimal(string: "12.5")!
        try db.save(doc)
        #expect(try column(db, "price", 2) == "'12.50'")
        #expect(doc.changedProperties == [])
        _ = try db.objects(R12Doc.self)
        #expect(doc.changedProperties == [])
        doc.price = Decimal(string: "1.125")!
        try db.save(doc)
        #expect(try column(db, "price", 2) == "'1.125'")
        #expect(try db.objects(R12Doc.self, where: \.price == Decimal(string: "12.3")!).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, where: \.price > Decimal(2)).map(\.id) == [1])
    }

    @Test(arguments: [("'12.30', '9.5'", "'12.5'"), ("'12', '9.50'", "'12.5'"), ("'1e1', '9.50'", "'12.5'"), ("'12.300', '9.500'", "'12.500'")])
    func aDecimalTextColumnWhoseRowsDisagreeGetsStrataText(prices: String, written: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        let values = prices.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        try db.execute("UPDATE doc SET price = \(values[0]) WHERE id = 1; UPDATE doc SET price = \(values[1]) WHERE id = 2")
        let doc = try #require(try db.object(R12Doc.self, forKey: 2))
        #expect(doc.changedProperties == [])
        doc.price = Decimal(string: "12.5")!
        try db.save(doc)
        #expect(try column(db, "price", 2) == written)
    }

    @Test func aChangedJSONValueIsWrittenInTheColumnsStyle() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        let doc = try #require(try db.object(R12Doc.self, forKey: 2))
        doc.meta = ["z": 1, "é": 2]
        doc.tags = ["a", "b"]
        doc.address = R12Address(city: "Zürich", zips: [8001], score: 2.5)
        try db.save(doc)
        #expect(try column(db, "meta", 2) == #"'{"z": 1, "\u00e9": 2}'"#)
        #expect(try column(db, "tags", 2) == #"'["a", "b"]'"#)
        #expect(try column(db, "address", 2) == #"'{"city": "Z\u00fcrich", "score": 2.5, "zips": [8001]}'"#)
        #expect(doc.changedProperties == [])
        _ = try db.objects(R12Doc.self)
        #expect(doc.changedProperties == [])
    }

    @Test func theJSONLayoutOfAColumnIsFoundFromItsRowsAndAppliedWhole() throws {
        #expect(JSONStyle.detect([#"{"a": 1, "b": "\u00e9"}"#, "[]"]) == .jsonText(spaced: true, asciiOnly: true))
        #expect(JSONStyle.detect([#"{"a": "é"}"#]) == .jsonText(spaced: true, asciiOnly: false))
        #expect(JSONStyle.detect([#"["\u00e9"]"#]) == .jsonText(spaced: true, asciiOnly: true))
        #expect(JSONStyle.detect([#"{"a": 1}"#, #"{"a":1}"#]) == .native)
        #expect(JSONStyle.detect([#"{"a":1,"b":"x, y: z"}"#, #"["é"]"#, "[]"]) == .native)
        #expect(JSONStyle.detect([#"{"a, ":"b: "}"#]) == .native)   // spaces inside strings show nothing
        #expect(JSONStyle.restyle(#"{"a":["é😀",1],"b\"":"x,:y"}"#, spaced: true, asciiOnly: true)
                == #"{"a": ["\u00e9\ud83d\ude00", 1], "b\"": "x,:y"}"#)

        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        // The optional column holds only `null` yet: Strata's own layout; the others Python's.
        let doc = try #require(try db.object(R12Doc.self, forKey: 1))
        doc.extra = R12Address(city: "Åre", zips: [1, 2])
        doc.labels = ["é", "a"]
        try db.save(doc)
        #expect(try column(db, "extra", 1) == #"'{"city":"Åre","score":0,"zips":[1,2]}'"#)
        #expect(try column(db, "labels", 1) == #"'["a", "\u00e9"]'"#)
        #expect(try db.objects(R12Doc.self, where: \.labels == ["a", "é"]).map(\.id) == [1])
        #expect(doc.changedProperties == [])
        // A table Strata made keeps Strata's layout.
        let own = try TemporaryDatabase(), mine = own.db
        let made = R12Doc()
        made.tags = ["é", "b"]
        try mine.save(made)
        made.meta = ["k": 1, "j": 2]
        try mine.save(made)
        #expect(try column(mine, "tags", made.id) == #"'["é","b"]'"#)
        #expect(try column(mine, "meta", made.id) == #"'{"j":2,"k":1}'"#)
    }
}

private struct R12Prefs: Codable, Equatable, JSONColumnValue {
    var theme: String?
    var n: Int?
}

/// SQLAlchemy's `users`, its `prefs JSON` column (NUMERIC affinity) holding an object, the text `null`
/// and SQL NULL.
private final class R12User: Model {
    static let tableName = "users"
    static let persistentProperties = ["id", "username", "prefs"]
    var id: Int64 = 0
    var username = ""
    var prefs: R12Prefs?
    required init() {}
}

extension Review12ValueTests {
    @Test(.enabled(if: Fixtures.available)) func sqlalchemyJSONColumnIsQueriedAndWrittenInItsLayout() throws {
        let temp = try TemporaryDatabase(copying: Fixtures.path("sqlalchemy_blog.sqlite3")), db = temp.db
        #expect(try db.objects(R12User.self, where: \.prefs == R12Prefs(theme: "dark", n: 3)).map(\.id) == [1])
        #expect(try db.objects(R12User.self, where: \.prefs == nil).map(\.id) == [2, 3])
        let user = try #require(try db.object(R12User.self, forKey: 3))
        #expect(user.changedProperties == [])
        user.prefs = R12Prefs(theme: "light", n: 4)
        try db.save(user)
        #expect(try db.value(String.self, "SELECT quote(prefs) FROM users WHERE id = 3") == #"'{"n": 4, "theme": "light"}'"#)
        #expect(try db.objects(R12User.self, where: \.prefs != nil).map(\.id) == [1, 3])
    }
}

private struct R12Score: Codable, Equatable, JSONColumnValue {
    var value: Double
    init(_ value: Double) { self.value = value }
    init(from decoder: Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(value) }
}

private final class R12Sheet: Model {
    static let tableName = "sheet"
    var id: Int64 = 0
    var score = R12Score(0)
    var note: R12Prefs?
    var cost: Decimal?
    var weights: [String: Double] = [:]
    required init() {}
}

extension Review12ValueTests {
    @Test func neighboursOptionalsTopLevelNumbersBlobJSONAndJSONNull() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE sheet (id INTEGER PRIMARY KEY, score JSON NOT NULL, note JSON, cost varchar(20), weights JSON NOT NULL);
            INSERT INTO sheet VALUES (1, '2.5', 'null', '1.50', '{"b": 1.0, "a": 0.5}'), (2, '3', '{"theme": "x"}', NULL, X'7B7D')
            """)
        let sheets = try db.objects(R12Sheet.self)
        #expect(sheets.map(\.score) == [R12Score(2.5), R12Score(3)])
        #expect(sheets.map(\.note) == [nil, R12Prefs(theme: "x")])
        #expect(sheets.map(\.weights) == [["a": 0.5, "b": 1], [:]])
        #expect(sheets.allSatisfy { $0.changedProperties == [] })
        #expect(try db.objects(R12Sheet.self, where: \.weights == ["a": 0.5, "b": 1]).map(\.id) == [1])
        #expect(try db.objects(R12Sheet.self, where: \.weights == [:]).map(\.id) == [2])
        #expect(try db.objects(R12Sheet.self, where: \.score == R12Score(3)).map(\.id) == [2])
        #expect(try db.objects(R12Sheet.self, where: \.cost == Decimal(string: "1.5")!).map(\.id) == [1])
        let second = sheets[1]
        second.cost = Decimal(2)
        second.score = R12Score(4.25)
        try db.save(second)
        #expect(try db.value(String.self, "SELECT quote(cost) || ' ' || quote(score) FROM sheet WHERE id = 2") == "'2.00' 4.25")
        second.note = nil
        try db.save(second)
        #expect(try db.value(String.self, "SELECT quote(note) FROM sheet WHERE id = 2") == "NULL")
        #expect(try db.objects(R12Sheet.self, where: \.note == nil).map(\.id) == [1, 2])
        _ = try db.objects(R12Sheet.self)
        #expect(second.changedProperties == [] && second.score == R12Score(4.25) && second.cost == 2)
    }
}

extension Review12ValueTests {
    @Test func aFloatGRDBStoredWidenedIsNoChangeAndStaysAsStored() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        try db.execute("UPDATE doc SET ratio = 0.100000001490116, maybeRatio = 1.10000002384186 WHERE id = 1")
        let doc = try #require(try db.object(R12Doc.self, forKey: 1))
        #expect(doc.ratio == 0.1 && doc.maybeRatio == 1.1 && doc.changedProperties == [])
        var writes: [String] = []
        let trace = db.traceStatements { if $0.hasPrefix("UPDATE") { writes.append($0) } }
        defer { trace.cancel() }
        doc.title = "uno"
        try db.save(doc)
        #expect(writes.count == 1 && !writes.joined().contains("ratio"), "\(writes)")
        #expect(try column(db, "ratio", 1) == "0.100000001490116" && column(db, "maybeRatio", 1) == "1.10000002384186")
        let other = try Database(path: temp.path)
        try other.execute("UPDATE doc SET title = 'other' WHERE id = 1")
        try other.close()
        _ = try db.objects(R12Doc.self)
        #expect(doc.title == "other" && doc.changedProperties == [])
    }
}

private enum R12Tier: Decimal, ColumnValue { case basic = 1.5, plus = 10 }

private final class R12Plan: Model {
    static let tableName = "plan"
    var id: Int64 = 0
    var tier = R12Tier.basic
    var maybeTier: R12Tier?
    required init() {}
}

extension Review12ValueTests {
    @Test func enumsOfDecimalRawValuesInATextColumnCompareAsNumbersAndKeepItsDigits() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE plan (id INTEGER PRIMARY KEY, tier varchar(10) NOT NULL, maybeTier varchar(10)); INSERT INTO plan VALUES (1, '1.50', NULL), (2, '10.00', '1.50')")
        #expect(try db.objects(R12Plan.self).map(\.tier) == [.basic, .plus])
        #expect(try db.objects(R12Plan.self, where: \.tier == .basic).map(\.id) == [1])
        #expect(try db.objects(R12Plan.self, where: \.maybeTier == .basic).map(\.id) == [2])
        let plan = try #require(try db.object(R12Plan.self, forKey: 1))
        plan.tier = .plus
        plan.maybeTier = .plus
        try db.save(plan)
        #expect(try db.value(String.self, "SELECT tier || ' ' || maybeTier FROM plan WHERE id = 1") == "10.00 10.00")
    }
}

extension Review12ValueTests {
    @Test func matchingComparesFloatsAndJSONAsKeyPathConditionsDo() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(pythonRows)
        try db.execute("UPDATE doc SET maybeRatio = 0.100000001490116 WHERE id = 2")
        #expect(try db.objects(R12Doc.self, matching: ["ratio": Float(0.1)]).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, matching: ["maybeRatio": Float?(0.1)]).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, matching: ["meta": ["a": 1, "b": 2]]).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, matching: ["labels": Set(["a", "b"]), "title": "one"]).map(\.id) == [1])
        #expect(try db.objects(R12Doc.self, matching: ["address": R12Address(city: "Oslo", zips: [], score: 0.5)]).map(\.id) == [2])
        #expect(try db.objects(R12Doc.self, matching: ["level": R12Ratio.high]).map(\.id) == [1])
    }
}
