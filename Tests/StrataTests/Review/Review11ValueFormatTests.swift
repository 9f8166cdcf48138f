import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 11, second reader: structured and converted values in columns other tools wrote — JSON text
// with other spacing, key order and escapes, enums over unknown raw values, decimals in TEXT, REAL and
// NUMERIC columns, floats, URLs, data and arrays — through fetch, save, refresh and key-path queries.

private struct R11Address: Codable, Equatable {
    var city = ""
    var zips: [Int] = []
    var score = 0.0
}

private enum R11Status: String, Codable, ColumnValue { case active, draft }
private enum R11Level: Int, Codable, ColumnValue { case low = 1, high = 2 }

/// The columns of a Django model with a JSONField, a CharField of choices, an IntegerField of choices
/// and a DecimalField, as Django's SQLite schema declares them.
private final class R11Doc: Model {
    static let tableName = "doc"
    var id: Int64 = 0
    var title = ""
    var meta: [String: Int] = [:]
    var address = R11Address()
    var tags: [String] = []
    var extra: R11Address?
    var status = R11Status.draft
    var level = R11Level.low
    var price = Decimal(0)
    required init() {}
}

private let docDDL = """
    CREATE TABLE "doc" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(20) NOT NULL,
    "meta" text NOT NULL CHECK ((JSON_VALID("meta") OR "meta" IS NULL)),
    "address" text NOT NULL CHECK ((JSON_VALID("address") OR "address" IS NULL)),
    "tags" text NOT NULL CHECK ((JSON_VALID("tags") OR "tags" IS NULL)),
    "extra" text NULL CHECK ((JSON_VALID("extra") OR "extra" IS NULL)),
    "status" varchar(10) NOT NULL, "level" integer NOT NULL, "price" decimal NOT NULL)
    """

/// The same columns without their CHECK and NOT NULL constraints, for values Django would not write.
private let laxDocDDL = """
    CREATE TABLE "doc" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(20) NOT NULL,
    "meta" text, "address" text, "tags" text, "extra" text, "status" varchar(10), "level" integer, "price" decimal)
    """

/// Rows as Django writes them: `json.dumps` with spaces, keys in insertion order, `\\u00e9` escapes,
/// `1.0` for floats, JSON `null` and SQL NULL, decimals through NUMERIC affinity.
private let djangoRows = #"""
    INSERT INTO doc VALUES (1, 'one', '{"b": 2, "a": 1}', '{"zips": [1, 2], "city": "Caf\u00e9", "score": 1.0}',
        '["x", "y"]', 'null', 'active', 2, '12.30');
    INSERT INTO doc VALUES (2, 'two', '{}', '{"city": "Oslo", "zips": [], "score": 0.5}', '[]', NULL, 'draft', 1, '9.5');
    """#

/// Each column of a `doc` row as `quote()` gives it: the exact stored bytes and storage class.
private func quoted(_ db: Database, _ id: Int64) throws -> String? {
    try db.value(String.self, """
        SELECT quote(meta) || ' | ' || quote(address) || ' | ' || quote(tags) || ' | ' || quote(extra) || ' | ' ||
        quote(status) || ' | ' || quote(level) || ' | ' || quote(price) FROM doc WHERE id = ?
        """, id)
}

@Suite struct Review11ValueFormatTests {
    @Test func djangoJSONRowsAreNotRewrittenByUnchangedOrUnrelatedSaves() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(djangoRows)
        let before = try quoted(db, 1)
        var writes: [String] = []
        let trace = db.traceStatements { if $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT") { writes.append($0) } }
        defer { trace.cancel() }
        let doc = try #require(try db.object(R11Doc.self, forKey: 1))
        #expect(doc.meta == ["a": 1, "b": 2])
        #expect(doc.address == R11Address(city: "Café", zips: [1, 2], score: 1))
        #expect(doc.tags == ["x", "y"])
        #expect(doc.extra == nil)
        #expect(doc.status == .active && doc.level == .high)
        #expect(doc.price == Decimal(string: "12.3"))
        #expect(!doc.hasChanges, "\(doc.changedProperties)")
        try db.save(doc)
        #expect(writes.isEmpty)
        doc.title = "uno"
        try db.save(doc)
        #expect(writes.count == 1)
        #expect(try quoted(db, 1) == before)
        #expect(try db.value(String.self, "SELECT title FROM doc WHERE id = 1") == "uno")
    }
}

extension Review11ValueFormatTests {
    @Test func aRefreshOfAnotherColumnOrAnotherHandlesCommitLeavesJSONUnchangedAndUnsaved() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(djangoRows)
        let before = try quoted(db, 1)
        let doc = try #require(try db.object(R11Doc.self, forKey: 1))
        var changes = 0
        let observation = db.observeChanges { changes += $0.count }
        defer { observation.cancel() }
        var writes: [String] = []
        let trace = db.traceStatements { if $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT") { writes.append($0) } }
        defer { trace.cancel() }
        try db.execute("UPDATE doc SET title = 'raw' WHERE id = 1")
        #expect(doc.title == "raw")
        #expect(doc.changedProperties == [])
        let rawChanges = changes
        writes = []
        try db.save(doc)
        #expect(writes.isEmpty)
        #expect(changes == rawChanges)
        let other = try Database(path: temp.path)
        try other.execute("UPDATE doc SET title = 'other' WHERE id = 1")
        try other.close()
        _ = try db.objects(R11Doc.self)
        #expect(doc.title == "other")
        #expect(doc.changedProperties == [])
        writes = []
        try db.save(doc)
        #expect(writes.isEmpty)
        #expect(try quoted(db, 1) == before)
    }

    @Test func aChangedJSONValueIsWrittenAsValidJSONAndTheOthersStay() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(docDDL)
        try db.execute(djangoRows)
        let doc = try #require(try db.object(R11Doc.self, forKey: 1))
        doc.address.city = "Zürich \"Ω\" \\ / \n\u{1F600}"
        doc.address.score = 2
        doc.meta["c"] = 3
        doc.extra = R11Address(city: "x", zips: [], score: 0.1)
        try db.save(doc)
        #expect(try db.value(Int.self, "SELECT json_valid(meta) AND json_valid(address) AND json_valid(extra) FROM doc WHERE id = 1") == 1)
        #expect(try db.value(String.self, "SELECT json_extract(address, '$.city') FROM doc WHERE id = 1") == "Zürich \"Ω\" \\ / \n\u{1F600}")
        #expect(try db.value(Double.self, "SELECT json_extract(extra, '$.score') FROM doc WHERE id = 1") == 0.1)
        #expect(try db.value(String.self, "SELECT quote(tags) FROM doc WHERE id = 1") == #"'["x", "y"]'"#)
        // An optional set to nil is SQL NULL; a JSON `null` other tools wrote reads as nil too.
        doc.extra = nil
        try db.save(doc)
        #expect(try db.value(String.self, "SELECT quote(extra) FROM doc WHERE id = 1") == "NULL")
        let fresh = try #require(try Database(path: temp.path).object(R11Doc.self, forKey: 1))
        #expect(fresh.address == doc.address && fresh.meta == doc.meta && fresh.changedProperties == [])
    }

    @Test(arguments: ["status = 'archived'", "level = 7", "level = 'high'", "status = NULL", "meta = '{\"a\": \"x\"}'",
                      "address = '{\"city\": 1}'", "tags = 'not json'", "price = 'abc'"])
    func anUndecodableValueAnotherToolWroteThrowsNamingItAndNeverOverwritesTheRow(assignment: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(laxDocDDL)
        try db.execute(djangoRows)
        let doc = try #require(try db.object(R11Doc.self, forKey: 1))
        try db.execute("UPDATE doc SET title = 'raw', \(assignment) WHERE id = 1")
        let before = try quoted(db, 1)
        let column = String(assignment.prefix { $0 != " " })
        // A new handle's fetch throws, naming the model, property, column, key and stored value.
        let fetchError = #expect(throws: (any Error).self) { try Database(path: temp.path).object(R11Doc.self, forKey: 1) }
        let text = "\(fetchError.map { "\($0)" } ?? "")"
        #expect(text.contains("R11Doc") && text.contains(column) && text.contains("1"), "\(text)")
        // The live instance is stale: its save throws and the row keeps what the other tool wrote.
        #expect(doc.title == "one")
        doc.title = "mine"
        let saveError = #expect(throws: ModelError.self) { try db.save(doc) }
        #expect(saveError?.kind == .stale && saveError?.property == column, "\(String(describing: saveError))")
        #expect(try quoted(db, 1) == before)
        #expect(try db.value(String.self, "SELECT title FROM doc WHERE id = 1") == "raw")
    }
}

private final class R11Price: Model {
    static let tableName = "price"
    var id: Int64 = 0
    var amount = Decimal(0)
    var status = R11Status.draft
    var level = R11Level.low
    var ratio: Float = 0
    required init() {}
}

extension Review11ValueFormatTests {
    /// Decimals as Strata stores them (TEXT), and as other tools do (text in a TEXT column, numbers in a
    /// NUMERIC, REAL or INTEGER one): key-path comparisons compare numbers, not text.
    @Test(arguments: ["", "TEXT", "varchar(20)", "decimal(10, 2)", "REAL", "INTEGER", "BLOB"])
    func decimalConditionsCompareNumbersInEveryColumnType(declared: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        if declared.isEmpty {
            try db.syncSchema(R11Price.self)
        } else {
            try db.execute("CREATE TABLE price (id INTEGER PRIMARY KEY, amount \(declared) NOT NULL, status TEXT NOT NULL DEFAULT 'draft', level INTEGER NOT NULL DEFAULT 1, ratio REAL NOT NULL DEFAULT 0)")
        }
        // Another tool's rows: '12.30' and '9.5' as it wrote them (a NUMERIC column makes them numbers).
        try db.execute("INSERT INTO price (id, amount, status, level) VALUES (1, '12.30', 'active', 2), (2, '9.5', 'draft', 1), (3, '100', 'active', 1)")
        let mine = R11Price(); mine.amount = Decimal(string: "10.25")!
        try db.save(mine)
        func ids(_ condition: QueryCondition<R11Price>) throws -> [Int64] {
            try db.objects(R11Price.self, where: condition).map(\.id).sorted()
        }
        #expect(try ids(\.amount > Decimal(10)) == [1, 3, 4], "\(declared)")
        #expect(try ids(\.amount < Decimal(10)) == [2], "\(declared)")
        #expect(try ids(\.amount >= Decimal(string: "12.3")!) == [1, 3], "\(declared)")
        #expect(try ids(\.amount == Decimal(string: "12.3")!) == [1], "\(declared)")
        #expect(try ids(\.amount != Decimal(string: "12.3")!) == [2, 3, 4], "\(declared)")
        #expect(try ids((\R11Price.amount).in([Decimal(string: "9.50")!, Decimal(100)])) == [2, 3], "\(declared)")
        #expect(try db.objects(R11Price.self, orderBy: .ascending(\.amount)).map(\.id) == [2, 4, 1, 3], "\(declared)")
        #expect(try ids(\.status == .active) == [1, 3])
        #expect(try ids(\.level == .high) == [1])
        #expect(try ids((\R11Price.level).in([.high, .low])) == [1, 2, 3, 4])
    }
}

private struct R11Stamped: Codable, Equatable {
    var at: Date?
    var note: String?
}

/// Other value types over columns other tools wrote.
private final class R11Misc: Model {
    static let tableName = "misc"
    var id: Int64 = 0
    var title = ""
    var ratio: Float = 0
    var link = URL(string: "https://example.com")!
    var bytes = Data()
    var counts: [Int] = []
    var names: Set<String> = []
    var stamped = R11Stamped()
    var amount = Decimal(0)
    var maybeAmount: Decimal?
    required init() {}
}

extension Review11ValueFormatTests {
    @Test func otherValueTypesOverAnotherToolsRowsAreNoChangeAndStayAsStored() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE misc (id INTEGER PRIMARY KEY, title TEXT NOT NULL, ratio REAL NOT NULL, link varchar(200) NOT NULL,
            bytes BLOB NOT NULL, counts TEXT NOT NULL, names TEXT NOT NULL, stamped TEXT NOT NULL, amount varchar(20) NOT NULL,
            maybeAmount decimal)
            """)
        try db.execute(#"""
            INSERT INTO misc VALUES (1, 't', 0.1, 'https://example.com/a%20b?q=1#f', x'00ff', '[1, 2, 3]',
                '["b", "a", "c", "d", "e"]', '{"note": null, "at": null}', '12.30', '0.10');
            INSERT INTO misc VALUES (2, 't', 1.10000002384186, 'relative/path', x'', '[]', '[]', '{}', '1e3', NULL);
            """#)
        let before = try db.value(String.self, "SELECT group_concat(quote(ratio) || quote(link) || quote(bytes) || quote(counts) || quote(names) || quote(stamped) || quote(amount) || quote(maybeAmount), ' | ') FROM misc")
        var writes: [String] = []
        let trace = db.traceStatements { if $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT") { writes.append($0) } }
        defer { trace.cancel() }
        let rows = try db.objects(R11Misc.self, orderBy: .ascending(\.id))
        #expect(rows.map(\.changedProperties) == [[], []])
        #expect(rows[0].ratio == Float(0.1) && rows[1].ratio == Float(1.1))
        #expect(rows[0].link.absoluteString == "https://example.com/a%20b?q=1#f")
        #expect(rows[0].names == ["a", "b", "c", "d", "e"])
        // Equal sets (each with an iteration order of its own) store one text.
        let sets = (0..<20).map { _ in Set(["e", "d", "c", "b", "a"].shuffled()) }
        #expect(try Set(sets.map { try $0.sqlValue }) == [.text(#"["a","b","c","d","e"]"#)])
        #expect(rows[0].amount == Decimal(string: "12.3") && rows[1].amount == 1000)
        #expect(rows[0].maybeAmount == Decimal(string: "0.1") && rows[1].maybeAmount == nil)
        try db.save(rows)
        #expect(writes.isEmpty)
        try db.execute("UPDATE misc SET title = 'raw'")
        let other = try Database(path: temp.path)
        try other.execute("UPDATE misc SET title = 'other'")
        try other.close()
        _ = try db.objects(R11Misc.self)
        #expect(rows.map(\.changedProperties) == [[], []])
        for row in rows { row.title = "mine" }
        writes = []
        try db.save(rows)
        #expect(writes.count == 2)
        #expect(try db.value(String.self, "SELECT group_concat(quote(ratio) || quote(link) || quote(bytes) || quote(counts) || quote(names) || quote(stamped) || quote(amount) || quote(maybeAmount), ' | ') FROM misc") == before)
        // Float(0.1) saved by Strata reads back as no change, here and through another handle.
        rows[1].ratio = 0.1
        rows[1].stamped.at = Date(timeIntervalSince1970: 1_700_000_000.25)
        rows[1].counts = [1, -2]
        try db.save(rows[1])
        #expect(rows[1].changedProperties == [])
        let again = try #require(try Database(path: temp.path).object(R11Misc.self, forKey: 2))
        #expect(again.changedProperties == [] && again.ratio == Float(0.1) && again.stamped == rows[1].stamped)
        #expect(try db.value(Int.self, "SELECT json_valid(stamped) AND json_valid(counts) FROM misc WHERE id = 2") == 1)
    }
}

private struct R11Tagged: Codable, Equatable {
    var labels: Set<String> = []
}

private final class R11Keyed: Model {
    static let tableName = "keyed"
    var id: Int64 = 0
    var title = ""
    var byID: [UUID: Int] = [:]
    var byName: [String: [Int]] = [:]
    var tagged = R11Tagged()
    var maybeTagged: R11Tagged?
    required init() {}
}

extension Review11ValueFormatTests {
    /// A dictionary whose keys are not strings (stored as an array of pairs) is as stable as a set; a set
    /// nested in a struct is no change on a refresh.
    @Test func aDictionaryOfUUIDKeysIsNoChangeAfterARefresh() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let item = R11Keyed()
        item.byID = Dictionary(uniqueKeysWithValues: (0..<8).map { (UUID(), $0) })
        item.byName = ["b": [3, 1, 2], "a": [], "c": [0]]
        item.tagged.labels = Set((0..<8).map { "l\($0)" })
        item.maybeTagged = item.tagged
        try db.save(item)
        let stored = try db.value(String.self, "SELECT byID || byName FROM keyed")
        try db.execute("UPDATE keyed SET title = 'raw'")
        #expect(item.title == "raw" && item.changedProperties == [])
        var writes: [String] = []
        let trace = db.traceStatements { if $0.hasPrefix("UPDATE") { writes.append($0) } }
        defer { trace.cancel() }
        try db.save(item)
        #expect(writes.isEmpty)
        let other = try #require(try Database(path: temp.path).object(R11Keyed.self, forKey: 1))
        #expect(other.changedProperties == [] && other.byID == item.byID && other.byName == item.byName && other.tagged == item.tagged)
        // A set nested in a struct keeps its instance's order in its text: equal values are no change on a
        // refresh all the same (Equatable types), so nothing is saved, nor notified.
        let otherHandle = try Database(path: temp.path)
        try otherHandle.execute("UPDATE keyed SET title = 'other'")
        try otherHandle.close()
        _ = try db.objects(R11Keyed.self)
        #expect(item.title == "other" && item.changedProperties == [])
        try db.save(item)
        #expect(writes.isEmpty)
        #expect(try db.value(String.self, "SELECT byID || byName FROM keyed") == stored)
        #expect(try db.value(String.self, "SELECT byName FROM keyed") == #"{"a":[],"b":[3,1,2],"c":[0]}"#)
    }
}

private final class R11Kind: Model {
    static let tableName = "kind"
    var id = R11Status.draft
    var label = ""
    required init() {}
}

private final class R11Thing: Model {
    static let tableName = "thing"
    var id: Int64 = 0
    var name = ""
    @Reference var kind: R11Kind?
    required init() {}
}

extension Review11ValueFormatTests {
    /// An enum key, and a reference to it, over a value no case has: a thrown error, no default.
    @Test func enumKeysOverAValueNoCaseHasThrow() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE kind (id varchar(10) PRIMARY KEY, label TEXT NOT NULL DEFAULT '')")
        try db.execute("CREATE TABLE thing (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', kind varchar(10) REFERENCES kind(id))")
        try db.execute("INSERT INTO kind VALUES ('active', 'A'), ('archived', 'Z'); INSERT INTO thing VALUES (1, 'a', 'active'), (2, 'z', 'archived')")
        #expect(try db.object(R11Kind.self, forKey: R11Status.active)?.label == "A")
        let error = #expect(throws: (any Error).self) { try db.objects(R11Kind.self) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("archived"))
        let a = try #require(try db.object(R11Thing.self, forKey: 1))
        #expect(a.kind?.label == "A")
        let z = try? db.object(R11Thing.self, forKey: 2)
        #expect(z?.$kind.key == .text("archived"))
        #expect(z?.kind == nil, "the related row does not decode: it reads as nil, the key stays readable")
        let loadError = #expect(throws: (any Error).self) { try z?.$kind.load() }
        #expect("\(loadError.map { "\($0)" } ?? "")".contains("archived"))
        if let z {
            z.name = "changed"
            try db.save(z)
            #expect(try db.value(String.self, "SELECT kind FROM thing WHERE id = 2") == "archived")
        }
    }
}
