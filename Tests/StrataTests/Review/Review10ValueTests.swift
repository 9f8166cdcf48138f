import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 10, second reader: hostile identifiers (quotes, brackets, backticks, spaces, dots, `$`, `?`,
// keywords, Unicode, long names) in every statement Strata writes, `$T`/`$PK`/`?` inside literals and
// comments of raw SQL, and extreme values through save, fetch, refresh and merge.

private let weirdTable = "we\"ird] `tab le.$T?"
private let weirdKid = "ki\"d]s `ta.ble $PK ?"
private let weirdJoin = "jo\"in] `t.b $T"
private let longName = String(repeating: "Ω", count: 200)

private final class V10Weird: Model {
    static let tableName = weirdTable
    static let indices: [[String]] = [["order"], ["group", "select"], ["name"]]
    static let uniqueIndices: [[String]] = [["straße"]]
    static let columnNames = ["name": "na\"me ]`.x$T?", "id": "i\"d $PK"]
    var id: Int64 = 0
    var order = 0
    var group = ""
    var select = 0.0
    var straße = ""
    var name = ""
    @Children(by: "owner", orderBy: "order DESC") var kids: [V10WeirdKid]
    @Siblings(through: weirdJoin, from: "from\" $T", to: "to] `?") var tags: [V10WeirdKid]
    required init() {}
}

private final class V10WeirdKid: Model {
    static let tableName = weirdKid
    static let indices: [[String]] = [["owner"], ["order"]]
    static let columnNames = ["owner": "ow\"ner ]` id.$T", "order": longName]
    var id: Int64 = 0
    var order = 0
    var label = ""
    @Reference var owner: V10Weird?
    required init() {}
}

/// A text-keyed model whose key column is named like a keyword with a quote.
private final class V10TextKey: Model {
    static let tableName = "select"
    static let primaryKey = "from"
    static let columnNames = ["from": "fr\"om"]
    var from = ""
    var where_ = ""
    required init() {}
}

@Suite struct Review10ValueTests {
    // MARK: Identifiers in tables Strata creates

    @Test func hostileNamesInTablesStrataCreatesWorkThroughEveryWrite() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(V10Weird.self)
        try db.syncSchema(V10WeirdKid.self)
        try db.execute("CREATE TABLE \(SQL.quote(weirdJoin)) (\"from\"\" $T\" INTEGER NOT NULL, \"to] `?\" INTEGER NOT NULL, PRIMARY KEY (\"from\"\" $T\", \"to] `?\"))")
        #expect(try db.schemaPlan(for: V10Weird.self).isEmpty)
        #expect(try db.schemaPlan(for: V10WeirdKid.self).isEmpty)
        let a = V10Weird(); a.order = 3; a.group = "g"; a.select = 1.5; a.straße = "x"; a.name = "n"
        try db.save(a)
        #expect(a.id == 1)
        let b = V10Weird(); b.straße = "y"
        try db.save(b)
        let k1 = V10WeirdKid(); k1.order = 1; k1.owner = a
        let k2 = V10WeirdKid(); k2.order = 2; k2.owner = a
        try db.save([k1, k2])
        #expect(a.kids.map(\.order) == [2, 1])
        try a.$tags.add(k1)
        try a.$tags.add(k2)
        #expect(try a.$tags.reload().map(\.id) == [k1.id, k2.id])
        try a.$tags.remove(k1)
        #expect(try a.$tags.reload().map(\.id) == [k2.id])
        a.name = "n2"; a.order = 4
        try db.save(a)
        #expect(try db.value(String.self, "SELECT \(SQL.quote("na\"me ]`.x$T?")) FROM \(SQL.quote(weirdTable)) WHERE \(SQL.quote("i\"d $PK")) = 1") == "n2")
        // Raw SQL with $T / $PK reaches the live instance.
        try db.execute("UPDATE $T SET \"order\" = ? WHERE $PK = ?", for: V10Weird.self, 9, a.id)
        #expect(a.order == 9 && !a.hasChanges)
        // Fetches, counts and prefetches.
        let db2 = try Database(path: temp.path)
        let owners = try db2.objects(V10Weird.self, where: "ORDER BY $PK")
        #expect(owners.map(\.straße) == ["x", "y"])
        try db2.prefetch("kids", of: owners)
        try db2.prefetch("tags", of: owners)
        #expect(owners[0].kids.map(\.order) == [2, 1] && owners[0].tags.map(\.order) == [2] && owners[1].kids.isEmpty)
        let kids = try db2.objects(V10WeirdKid.self, where: "ORDER BY $PK", prefetching: ["owner"])
        #expect(kids.map { $0.owner === owners[0] } == [true, true])
        #expect(try db2.count(V10Weird.self, where: "\"group\" = ?", "g") == 1)
        #expect(try db2.objects(V10Weird.self, forKeys: [Int64(2), 1]).map(\.id) == [2, 1])
        #expect(try db2.objects(V10Weird.self, where: \.name == "n2" || (\V10Weird.straße).in(["y"]), orderBy: .descending(\.order)).map(\.id) == [1, 2])
        #expect(try db2.objects(V10WeirdKid.self, matching: ["owner": a.id], orderBy: "\"\(longName)\" DESC").map(\.order) == [2, 1])
        // The unique index holds; the duplicate error names the columns.
        let dup = V10Weird(); dup.straße = "x"
        let error = #expect(throws: ModelError.self) { try db.save(dup) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.key == .integer(1))
        // Deletes.
        #expect(try db.delete(k1))
        #expect(try db2.deleteAll(V10WeirdKid.self, where: "$PK = ?", k2.id) == 1)
        #expect(try db.count(V10WeirdKid.self) == 0)
        #expect(try db.delete(b) && b.isDeleted)
        #expect(try temp.reopen().schemaPlan(for: V10Weird.self).isEmpty)
    }

    @Test func aTextKeyNamedLikeAKeywordWithAQuote() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let row = V10TextKey(); row.from = "a'b\"c"; row.where_ = "w"
        try db.save(row)
        #expect(try db.object(V10TextKey.self, forKey: "a'b\"c") === row)
        row.where_ = "w2"
        try db.save(row)
        try db.execute("UPDATE $T SET where_ = 'w3' WHERE $PK = ?", for: V10TextKey.self, "a'b\"c")
        #expect(row.where_ == "w3")
        #expect(try db.delete(row))
    }

    // MARK: $T, $PK and ? inside literals and comments

    /// A database with one `V10TextKey` row, key "k".
    private func textKeyed() throws -> (TemporaryDatabase, V10TextKey) {
        let temp = try TemporaryDatabase()
        let a = V10TextKey(); a.from = "k"; a.where_ = "w"
        try temp.db.save(a)
        return (temp, a)
    }

    @Test func templatesInLiteralsQuotedNamesAndCommentsAreLeftAlone() throws {
        let (temp, _) = try textKeyed(), db = temp.db
        let rows = try db.rows("SELECT '$T ?' AS lit, $PK AS \"$T?\" FROM $T -- what about $T? it's here\n WHERE $PK = ?", for: V10TextKey.self, "k")
        #expect(rows.count == 1 && rows[0]["lit"] == .text("$T ?") && rows[0]["$T?"] == .text("k"))
    }

    /// Before: the apostrophe of a comment opened a "literal" that hid every `$T`/`$PK` after it, which
    /// SQLite then read as named parameters (a syntax or argument-count error).
    @Test func anApostropheInACommentDoesNotHideTheTemplatesAfterIt() throws {
        let (temp, a) = try textKeyed(), db = temp.db
        let b = V10TextKey(); b.from = "m"
        try db.save(b)
        try db.execute("-- don't forget\nUPDATE $T SET where_ = ? WHERE $PK = ?", for: V10TextKey.self, "x", "k")
        #expect(a.where_ == "x")
        try db.execute("/* it's */ UPDATE $T SET where_ = ? WHERE $PK = ?", for: V10TextKey.self, "y", "k")
        #expect(a.where_ == "y")
        #expect(try db.deleteAll(V10TextKey.self, where: "-- don't\n$PK = ? OR $PK = ?", "zz", "zz") == 0)
        #expect(try db.count(V10TextKey.self) == 2 && !b.isDeleted)
    }

    /// Before: a `?` in a comment took the collection argument, and the real placeholder none.
    @Test func aPlaceholderInACommentIsNoParameterBesideACollectionArgument() throws {
        let (temp, _) = try textKeyed(), db = temp.db
        let found = try db.objects(V10TextKey.self, where: "/* which ones? */ $PK IN (?) AND where_ <> '?' -- any?", ["k", "z"])
        #expect(found.map(\.from) == ["k"])
        let found2 = try db.objects(V10TextKey.self, where: "-- don't?\n $PK IN (?)", ["k", "z"])
        #expect(found2.map(\.from) == ["k"])
    }

    /// Before: scanned by `Character`, a quote followed by a combining mark was one grapheme, not a quote.
    @Test func aQuoteFollowedByACombiningMarkStillOpensALiteral() throws {
        let (temp, _) = try textKeyed(), db = temp.db
        #expect(try db.objects(V10TextKey.self, where: "where_ <> '\u{301}?' AND $PK IN (?)", ["k"]).map(\.from) == ["k"])
        #expect(try db.rows("SELECT '\u{301}$T' AS v", for: V10TextKey.self)[0]["v"] == .text("\u{301}$T"))
    }

    /// Before: `a$T` (a legal SQLite name) became `a"select"`.
    @Test func aTemplateInsideALongerNameIsThatName() throws {
        let (temp, _) = try textKeyed(), db = temp.db
        try db.execute("ALTER TABLE \"select\" ADD COLUMN a$T INTEGER")
        try db.execute("UPDATE $T SET a$T = 7", for: V10TextKey.self)
        #expect(try db.rows("SELECT a$T FROM $T", for: V10TextKey.self)[0]["a$T"] == .integer(7))
    }

    /// Before: a leading comment hid the clause's first keyword, and `WHERE` went in front of `ORDER BY`.
    @Test func aClauseThatStartsWithACommentKeepsItsKeyword() throws {
        let (temp, _) = try textKeyed(), db = temp.db
        #expect(try db.objects(V10TextKey.self, where: "/* newest first */ ORDER BY $PK DESC").map(\.from) == ["k"])
        #expect(try db.objects(V10TextKey.self, where: "-- by key\n$PK = ?", "k").map(\.from) == ["k"])
        #expect(SQLClause.normalized("-- only a comment") == "-- only a comment")
    }

    /// Before: with a collection argument, arguments beyond the placeholders were dropped silently.
    @Test func argumentCountMismatchesThrow() throws {
        let (temp, _) = try textKeyed(), db = temp.db
        #expect(throws: DatabaseError.self) { try db.objects(V10TextKey.self, where: "$PK IN (?)", ["k"], "extra") }
        #expect(throws: DatabaseError.self) { try db.rows("SELECT * FROM $T WHERE $PK = ?", for: V10TextKey.self) }
        #expect(throws: DatabaseError.self) { try db.rows("SELECT * FROM $T WHERE $PK = ?", for: V10TextKey.self, "k", "l") }
        #expect(throws: DatabaseError.self) { try db.objects(V10TextKey.self, where: "$PK IN (?) AND where_ = ?", ["k"]) }
        #expect(throws: DatabaseError.self) { try db.objects(V10TextKey.self, where: "$PK = '?'", "k") }
    }
}

// MARK: Identifiers in tables another tool made

/// Maps a table another tool made with hostile names; its `amount` column changes type (a rebuild).
private final class V10Foreign: Model {
    static let tableName = "Or\"der ]x.`$T ?"
    static let previousTableNames = ["old \"Or]der`.$PK"]
    static let renamedColumns = ["total": "to\"tal ]` old.$T"]
    static let columnNames = ["select": "se\"lect ?", "group": "gr.oup ]"]
    static let indices: [[String]] = [["select", "group"]]
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var select = ""
    var group = ""
    var total = 0
    var amount = 0.0
    @Reference var parent: V10Foreign?
    required init() {}
}

extension Review10ValueTests {
    @Test func aTableWithHostileNamesFromAnotherToolIsRenamedRebuiltAndIndexed() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"""
            CREATE TABLE "old ""Or]der`.$PK" (id INTEGER PRIMARY KEY, "se""lect ?" TEXT NOT NULL DEFAULT '', "gr.oup ]" TEXT NOT NULL DEFAULT '',
                "to""tal ]` old.$T" INTEGER NOT NULL DEFAULT 0, amount TEXT NOT NULL DEFAULT '0',
                parent INTEGER REFERENCES "old ""Or]der`.$PK"(id));
            CREATE INDEX "their ""ix"" ]`.$T ?" ON "old ""Or]der`.$PK" ("gr.oup ]");
            CREATE TRIGGER "their ""tr""" AFTER UPDATE ON "old ""Or]der`.$PK" BEGIN SELECT 1; END;
            CREATE VIEW "their ""view"" $T" AS SELECT "se""lect ?" AS s, "to""tal ]` old.$T" AS t FROM "old ""Or]der`.$PK";
            INSERT INTO "old ""Or]der`.$PK" VALUES (1, 'a', 'b', 5, '1.5', NULL), (2, 'c', 'd', 6, '2', 1);
            """#)
        let plan = try db.schemaPlan(for: V10Foreign.self)
        #expect(plan.rebuildsTable)
        try db.syncSchema(V10Foreign.self)
        #expect(try db.schemaPlan(for: V10Foreign.self).isEmpty)
        #expect(try db.column(String.self, "SELECT name FROM sqlite_master WHERE tbl_name = ? ORDER BY name", "Or\"der ]x.`$T ?").contains("their \"ix\" ]`.$T ?"))
        #expect(try db.value(String.self, "SELECT type FROM pragma_table_info(?) WHERE name = 'amount'", "Or\"der ]x.`$T ?") == "REAL")
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == 1)
        #expect(try db.rows(#"SELECT s, t FROM "their ""view"" $T" ORDER BY t"#).map(\.values) == [[.text("a"), .integer(5)], [.text("c"), .integer(6)]])
        let rows = try db.objects(V10Foreign.self, where: "ORDER BY id")
        #expect(rows.map(\.total) == [5, 6] && rows.map(\.amount) == [1.5, 2] && rows.map(\.group) == ["b", "d"])
        #expect(rows[1].parent === rows[0])
        rows[0].select = "z"
        try db.save(rows[0])
        #expect(try db.value(String.self, "SELECT \"se\"\"lect ?\" FROM $T WHERE id = 1", for: V10Foreign.self) == "z")
        try db.execute("PRAGMA foreign_keys = ON")
        #expect(try db.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try db.delete(rows[1]))
    }
}

extension Database {
    fileprivate func value<T: Model, V: ColumnValue>(_ type: V.Type, _ sql: String, for model: T.Type) throws -> V? {
        try rows(sql, for: model).first.map { try V(sqlValue: $0[0]) }
    }
}

// MARK: Extreme values

private final class V10Values: Model {
    static let tableName = "v10_values"
    var id: Int64 = 0
    var big: Int64 = 0
    var small: Int8 = 0
    var mid: Int16 = 0
    var i32: Int32 = 0
    var u: UInt64 = 0
    var ui: UInt = 0
    var u32: UInt32 = 0
    var d = 0.0
    var f: Float = 0
    var s = ""
    var os: String?
    var data = Data()
    var odata: Data?
    var flag = false
    var when = Date(timeIntervalSince1970: 0)
    var token = UUID()
    var amount = Decimal(0)
    required init() {}
}

extension Review10ValueTests {
    @Test func int64ExtremesThroughSaveFetchRefreshAndMerge() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values(); v.big = .min
        try db.save(v)
        #expect(try db.value(Int64.self, "SELECT big FROM v10_values") == .min)
        v.big = .max
        try db.save(v)
        #expect(!v.hasChanges)
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10Values.self, forKey: v.id))
        #expect(theirs.big == .max && !theirs.hasChanges)
        try db.execute("UPDATE v10_values SET big = ?", Int64.min)
        #expect(v.big == .min && !v.hasChanges)
        #expect(try other.object(V10Values.self, forKey: v.id) === theirs)
        #expect(theirs.big == .min && !theirs.hasChanges)
        theirs.big = .min + 1
        try other.save(theirs)
        #expect(try db.object(V10Values.self, forKey: v.id) === v)
        #expect(v.big == .min + 1 && !v.hasChanges)
    }

    @Test func unsignedValuesBeyondInt64ThrowOnInsertAndUpdate() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values(); v.u = UInt64(Int64.max) + 1
        let e1 = #expect(throws: ValueConversionError.self) { try db.save(v) }
        #expect(e1?.property == "u")
        #expect(try db.count(V10Values.self) == 0 && !v.isPersisted)
        v.u = UInt64(Int64.max)
        try db.save(v)
        v.ui = .max
        let e2 = #expect(throws: ValueConversionError.self) { try db.save(v) }
        #expect(e2?.property == "ui")
        #expect(v.changedProperties == ["ui"])
        v.ui = 7
        try db.save(v)
        #expect(try db.rows("SELECT u, ui FROM v10_values")[0].values == [.integer(.max), .integer(7)])
        // A negative integer stored by another tool in an unsigned column throws, naming it.
        try db.execute("UPDATE v10_values SET u = -1")
        #expect(v.u == UInt64(Int64.max))
        v.s = "x"
        let stale = #expect(throws: ModelError.self) { try db.save(v) }
        #expect(stale?.kind == .stale && stale?.property == "u")
        let fetchError = #expect(throws: (any Error).self) { try Database(path: temp.path).objects(V10Values.self) }
        #expect("\(fetchError.map { "\($0)" } ?? "")".contains("u"))
    }
}

extension Review10ValueTests {
    @Test(arguments: [("small", "200"), ("small", "-129"), ("mid", "40000"), ("i32", "3000000000"), ("u32", "-1"), ("u32", "4294967296"), ("ui", "-5")])
    func narrowIntegersOutOfRangeThrowNamingTheColumnEverywhere(column: String, stored: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values()
        try db.save(v)
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10Values.self, forKey: v.id))
        // Another tool writes the value.
        let tool = try Database(path: temp.path)
        try tool.execute("UPDATE v10_values SET \(column) = \(stored)")
        try tool.close()
        // A fetch through a fresh handle throws, naming the column.
        let fresh = try Database(path: temp.path)
        let e1 = #expect(throws: (any Error).self) { try fresh.object(V10Values.self, forKey: v.id) }
        #expect(e1.map { "\($0)".contains(column) } == true, "\(String(describing: e1))")
        let e2 = #expect(throws: (any Error).self) { try fresh.objects(V10Values.self) }
        #expect(e2.map { "\($0)".contains(column) } == true)
        // A live instance merging the commit keeps its values and becomes stale.
        let e3 = #expect(throws: (any Error).self) { try other.objects(V10Values.self) }
        #expect(e3.map { "\($0)".contains(column) } == true)
        #expect(theirs.small == 0 && theirs.mid == 0)
        theirs.s = "x"
        let e4 = #expect(throws: ModelError.self) { try other.save(theirs) }
        #expect(e4?.kind == .stale && e4?.property == column)
        // Raw SQL through the handle that holds the instance.
        try db.execute("UPDATE v10_values SET s = 'y'")
        #expect(v.s == "")   // the row does not decode: nothing of it reaches the instance
        v.s = "z"
        #expect(throws: ModelError.self) { try db.save(v) }
        // Once fixed, everything reads again.
        try db.execute("UPDATE v10_values SET \(column) = 1")
        #expect(v.s == "y" || v.s == "z")
        #expect(try other.objects(V10Values.self).count == 1)
    }

    @Test func doublesNegativeZeroInfinitiesSubnormalsAndFloats() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values(); v.d = -0.0; v.f = -0.0
        try db.save(v)
        #expect(!v.hasChanges)
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10Values.self, forKey: v.id))
        #expect(theirs.d == 0 && !theirs.hasChanges)
        for value in [Double.infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude / 3, .greatestFiniteMagnitude, 0.1] {
            v.d = value; v.f = Float(value)
            try db.save(v)
            #expect(!v.hasChanges, "\(value)")
            #expect(try other.object(V10Values.self, forKey: v.id) === theirs)
            #expect(theirs.d == value && theirs.f == Float(value) && !theirs.hasChanges, "\(value)")
            #expect(try Database(path: temp.path).object(V10Values.self, forKey: v.id)?.d == value)
            // Raw SQL writes reach the instance.
            try other.execute("UPDATE v10_values SET d = ?, f = ?", -value, Double(-Float(value)))
            #expect(theirs.d == -value && theirs.f == -Float(value) && !theirs.hasChanges, "\(value)")
            // ... and the other handle's commit merges into this one's.
            #expect(try db.object(V10Values.self, forKey: v.id) === v)
            #expect(v.d == -value && v.f == -Float(value) && !v.hasChanges, "\(value)")
        }
        for sub in [Float.leastNonzeroMagnitude, Float.leastNormalMagnitude / 4, Float.greatestFiniteMagnitude] {
            v.f = sub
            try db.save(v)
            #expect(try Database(path: temp.path).object(V10Values.self, forKey: v.id)?.f == sub)
        }
        // NaN: refused on save (WritingSafely.md), stored NaN by another tool reads as NULL -> error.
        v.d = .nan
        let e = #expect(throws: ValueConversionError.self) { try db.save(v) }
        #expect(e?.property == "d")
        v.d = 1
        try db.save(v)
        // A double beyond Float's range stored by another tool: the Float property throws, naming it.
        try db.execute("UPDATE v10_values SET f = 1e300")
        v.s = "q"
        let e2 = #expect(throws: ModelError.self) { try db.save(v) }
        #expect(e2?.property == "f")
    }

    @Test func emptyStringsAndEmptyDataAreNotNullAndNotChanges() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values(); v.os = ""; v.odata = Data(); v.data = Data()
        try db.save(v)
        #expect(try db.rows("SELECT typeof(os), typeof(odata), typeof(data), length(odata) FROM v10_values")[0].values
                == [.text("text"), .text("blob"), .text("blob"), .integer(0)])
        #expect(!v.hasChanges)
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10Values.self, forKey: v.id))
        #expect(theirs.os == "" && theirs.odata == Data() && theirs.data == Data() && !theirs.hasChanges)
        // nil and empty are told apart both ways, through save, raw SQL and merge.
        v.os = nil; v.odata = nil
        try db.save(v)
        #expect(try db.rows("SELECT typeof(os), typeof(odata) FROM v10_values")[0].values == [.text("null"), .text("null")])
        #expect(try other.object(V10Values.self, forKey: v.id) === theirs)
        #expect(theirs.os == nil && theirs.odata == nil && !theirs.hasChanges)
        try other.execute("UPDATE v10_values SET os = '', odata = x''")
        #expect(theirs.os == "" && theirs.odata == Data() && !theirs.hasChanges)
        #expect(try db.object(V10Values.self, forKey: v.id) === v)
        #expect(v.os == "" && v.odata == Data() && !v.hasChanges)
        theirs.odata = nil
        try other.save(theirs)
        #expect(try db.rows("SELECT typeof(odata) FROM v10_values")[0].values == [.text("null")])
        // A zero-length blob bound through a raw statement too.
        try db.execute("UPDATE v10_values SET odata = ?", Data())
        #expect(v.odata == Data())
        #expect(try db.rows("SELECT typeof(odata) FROM v10_values")[0].values == [.text("blob")])
    }

    @Test func textWithNulBytesAndLargeValuesRoundTripEverywhere() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values(); v.s = "a\u{0}b\u{0}"; v.os = "\u{0}"
        try db.save(v)
        #expect(try db.rows("SELECT length(CAST(s AS BLOB)) FROM v10_values")[0].values == [.integer(4)])
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10Values.self, forKey: v.id))
        #expect(theirs.s == "a\u{0}b\u{0}" && theirs.os == "\u{0}" && !theirs.hasChanges)
        try db.execute("UPDATE v10_values SET s = ?", "x\u{0}y")
        #expect(v.s == "x\u{0}y" && !v.hasChanges)
        #expect(try other.object(V10Values.self, forKey: v.id) === theirs)
        #expect(theirs.s == "x\u{0}y")
        // 10 MB of text and of bytes.
        let big = String(repeating: "0123456789\u{0}é", count: 800_000)
        let bytes = Data((0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        v.s = big; v.data = bytes
        try db.save(v)
        #expect(!v.hasChanges)
        #expect(try other.object(V10Values.self, forKey: v.id) === theirs)
        #expect(theirs.s == big && theirs.data == bytes && !theirs.hasChanges)
        #expect(try Database(path: temp.path).object(V10Values.self, forKey: v.id).map { $0.s == big && $0.data == bytes } == true)
    }

    /// Before: read with U+FFFD in place of the bytes (not what the README says: a value that cannot be
    /// read without loss throws), and a `Data` property read the replacement characters' bytes.
    @Test func textThatIsNotUTF8ThrowsIntoStringAndIsNeverRewritten() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values()
        try db.save(v)
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10Values.self, forKey: v.id))
        try db.execute("UPDATE v10_values SET s = CAST(x'61ff62' AS TEXT), os = CAST(x'c3' AS TEXT)")
        let fresh = try Database(path: temp.path)
        let error = #expect(throws: ValueConversionError.self) { try fresh.object(V10Values.self, forKey: v.id) }
        #expect(error?.column == "s" && error?.found == .blob(Data([0x61, 0xFF, 0x62])))
        // Raw rows give the bytes exactly.
        #expect(try fresh.rows("SELECT s, os FROM v10_values")[0].values == [.blob(Data([0x61, 0xFF, 0x62])), .blob(Data([0xC3]))])
        // Live instances keep their values and refuse to save; the merge of another handle too.
        #expect(v.s == "")
        v.big = 5
        #expect(throws: ModelError.self) { try db.save(v) }
        #expect(throws: (any Error).self) { try other.objects(V10Values.self) }
        #expect(theirs.s == "")
        #expect(try fresh.rows("SELECT hex(s), hex(os) FROM v10_values")[0].values == [.text("61FF62"), .text("C3")])
        // Valid text with a real U+FFFD, and a truncated 4-byte sequence (repaired to a same-length U+FFFD).
        try db.execute("UPDATE v10_values SET s = ?, os = NULL", "a\u{FFFD}b")
        #expect(v.s == "a\u{FFFD}b" && v.big == 5)
        try db.execute("UPDATE v10_values SET os = CAST(x'f09f98' AS TEXT)")
        #expect(throws: ValueConversionError.self) { try fresh.object(V10Values.self, forKey: v.id) }
    }

    @Test(arguments: [("2", false), ("-1", false), ("'t'", true), ("'yes'", true), ("'true'", true), ("'f'", true), ("'no'", true), ("'maybe'", false), ("1.0", true), ("0.5", false)])
    func boolColumnsHoldingOtherValues(stored: String, reads: Bool) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE v10_values (id INTEGER PRIMARY KEY, flag BOOL NOT NULL)")
        try db.execute("INSERT INTO v10_values (id, flag) VALUES (1, \(stored))")
        final class Flagged: Model {
            static let tableName = "v10_values"
            var id: Int64 = 0
            var flag = false
            required init() {}
        }
        if reads {
            let row = try #require(try db.object(Flagged.self, forKey: 1))
            #expect(!row.hasChanges)
        } else {
            let error = #expect(throws: (any Error).self) { try db.object(Flagged.self, forKey: 1) }
            #expect(error.map { "\($0)".contains("flag") } == true)
        }
    }

    @Test func datesUUIDsAndDecimalsOtherToolsStored() throws {
        final class Typed: Model {
            static let tableName = "typed"
            var id: Int64 = 0
            var when: Date?
            var token: UUID?
            var amount: Decimal?
            required init() {}
        }
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE typed (id INTEGER PRIMARY KEY, \"when\" DATETIME, token TEXT, amount DECIMAL)")
        try db.execute("INSERT INTO typed VALUES (1, NULL, NULL, '1.5e3'), (2, NULL, NULL, '-2E-2'), (3, 'garbage', NULL, NULL), (4, NULL, x'000102030405060708090a0b0c0d0e', NULL)")
        #expect(try db.object(Typed.self, forKey: 1)?.amount == Decimal(1500))
        #expect(try db.object(Typed.self, forKey: 2)?.amount == Decimal(string: "-0.02"))
        let e3 = #expect(throws: (any Error).self) { try db.object(Typed.self, forKey: 3) }
        #expect(e3.map { "\($0)".contains("when") } == true)
        let e4 = #expect(throws: (any Error).self) { try db.object(Typed.self, forKey: 4) }
        #expect(e4.map { "\($0)".contains("token") } == true)
    }
}

extension Review10ValueTests {
    @Test func aDataPropertyReadsTheExactBytesOfTextThatIsNotUTF8() throws {
        final class Raw: Model {
            static let tableName = "raw"
            var id: Int64 = 0
            var bytes = Data()
            var maybe: Data?
            required init() {}
        }
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, bytes TEXT NOT NULL, maybe TEXT)")
        try db.execute("INSERT INTO raw VALUES (1, CAST(x'61ff62' AS TEXT), CAST(x'f09f98' AS TEXT))")
        let row = try #require(try db.object(Raw.self, forKey: 1))
        #expect(row.bytes == Data([0x61, 0xFF, 0x62]))
        #expect(row.maybe == Data([0xF0, 0x9F, 0x98]))
        #expect(!row.hasChanges)
    }
}

private final class V10Keyed: Model {
    static let tableName = "v10_keyed"
    var id: Int64 = 0
    var name = ""
    @Reference var other: V10Keyed?
    required init() {}
}

extension Review10ValueTests {
    @Test func extremeKeysAndAFullRowIDSpace() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let top = V10Keyed(); top.id = .max; top.name = "top"
        try db.save(top)
        let bottom = V10Keyed(); bottom.id = .min; bottom.name = "bottom"; bottom.other = top
        try db.save(bottom)
        top.other = bottom
        try db.save(top)
        let fresh = try Database(path: temp.path)
        let b = try #require(try fresh.object(V10Keyed.self, forKey: Int64.min))
        #expect(b.other?.name == "top" && b.other?.other === b)
        #expect(try fresh.objects(V10Keyed.self, forKeys: [Int64.max, .min]).map(\.name) == ["top", "bottom"])
        try fresh.prefetch("other", of: [b])
        try fresh.execute("UPDATE $T SET name = 'B' WHERE $PK = ?", for: V10Keyed.self, Int64.min)
        #expect(b.name == "B")
        // With Int64.max used, SQLite has no next key (AUTOINCREMENT): a clear error, nothing saved.
        let next = V10Keyed(); next.name = "next"
        let error = #expect(throws: (any Error).self) { try db.save(next) }
        #expect(error != nil && !next.isPersisted && next.id == 0)
        #expect(try db.count(V10Keyed.self) == 2)
        #expect(try fresh.delete(b) && b.isDeleted)
    }

    @Test func constraintErrorsNameColumnsWithDotsAndCommas() throws {
        final class Dotted: Model {
            static let tableName = "dot.ted, t"
            static let columnNames = ["code": "co.de, x", "note": "no.te"]
            var id: Int64 = 0
            var code = ""
            @Reference var note: Dotted?
            required init() {}
        }
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "dot.ted, t" (id INTEGER PRIMARY KEY, "co.de, x" TEXT NOT NULL UNIQUE, "no.te" INTEGER NOT NULL)"#)
        try db.execute(#"INSERT INTO "dot.ted, t" VALUES (1, 'z', 1)"#)
        let z = try #require(try db.object(Dotted.self, forKey: 1))
        let a = Dotted(); a.code = "a"; a.note = z
        try db.save(a)
        let b = Dotted(); b.code = "a"; b.note = z
        let duplicate = #expect(throws: ModelError.self) { try db.save(b) }
        #expect(duplicate?.kind == .duplicateKey && duplicate?.key == .integer(a.id))
        let c = Dotted(); c.code = "c"
        let missing = #expect(throws: ModelError.self) { try db.save(c) }
        #expect(missing?.kind == .missingValue && missing?.property == "note")
    }
}

private final class V10UpperA: Model {
    static let tableName = "Ä"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class V10LowerA: Model {
    static let tableName = "ä"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

extension Review10ValueTests {
    /// SQLite folds the case of ASCII letters only: "Ä" and "ä" are two tables.
    @Test func tablesWhoseNamesDifferInNonASCIICaseAreTwoTables() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let upper = V10UpperA(); upper.name = "upper"
        let lower = V10LowerA(); lower.name = "lower"
        try db.save(upper)
        try db.save(lower)
        #expect(upper.id == 1 && lower.id == 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('Ä', 'ä')") == 2)
        try db.execute("UPDATE \"Ä\" SET name = 'U'")
        #expect(upper.name == "U" && lower.name == "lower")
        try db.execute("DELETE FROM \"Ä\"")
        #expect(upper.isDeleted && !lower.isDeleted)
        lower.name = "l2"
        try db.save(lower)
        #expect(try db.value(String.self, "SELECT name FROM \"ä\"") == "l2")
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(V10LowerA.self, forKey: 1))
        #expect(theirs.name == "l2")
        #expect(try db.schemaPlan(for: V10LowerA.self).isEmpty && db.schemaPlan(for: V10UpperA.self).steps.count == 0)
        // Columns too.
        final class TwoColumns: Model {
            static let tableName = "two_columns"
            static let columnNames = ["upper": "Ö", "lower": "ö"]
            static let indices = [["upper"], ["lower"]]
            var id: Int64 = 0
            var upper = 0
            var lower = 0
            required init() {}
        }
        let two = TwoColumns(); two.upper = 1; two.lower = 2
        try db.save(two)
        #expect(try db.rows("SELECT \"Ö\", \"ö\" FROM two_columns")[0].values == [.integer(1), .integer(2)])
        try db.execute("UPDATE two_columns SET \"ö\" = 3")
        #expect(two.upper == 1 && two.lower == 3)
        #expect(try temp.reopen().schemaPlan(for: TwoColumns.self).isEmpty)
    }
}

#if canImport(Observation)
import Observation

@Observable private final class V10Observed: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<V10Observed>] { [\.d] }
    static let tableName = "v10_observed"
    var id: Int64 = 0
    var d = 0.0
    var f: Float = 0
    var when = Date(timeIntervalSince1970: 0)
    var amount = Decimal(0)
    var data = Data()
    var odata: Data?
    var flag = false
    var token = UUID()
    var big: Int64 = 0
    var s = ""
    var tick = 0
    required init() {}
}

extension Review10ValueTests {
    @Test func rewritingTheStoredValuesAsTheyAreNotifiesNoObserver() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE v10_observed (id INTEGER PRIMARY KEY, d REAL NOT NULL, f REAL NOT NULL, "when" DATETIME NOT NULL,
                amount DECIMAL NOT NULL, data BLOB NOT NULL, odata BLOB, flag BOOL NOT NULL, token CHAR(32) NOT NULL,
                big INTEGER NOT NULL, s TEXT NOT NULL, tick INTEGER NOT NULL);
            INSERT INTO v10_observed VALUES (1, 0.0, 0.1, '2024-01-02 03:04:05.123456', '1.50', x'', x'', 't', '0F8FAD5BD9CB469FA16570867728950E', 9223372036854775807, 'a', 0);
            """)
        let o = try #require(try db.object(V10Observed.self, forKey: 1))
        #expect(o.changedProperties == [])
        o.d = -0.0; o.f = 0.1; o.when = o.when.addingTimeInterval(0.000_000_4); o.amount = Decimal(string: "1.5")!
        o.big = .max; o.s = "a\u{0}b"
        try db.save(o)
        #expect(o.changedProperties == [])
        let counter = ChangeCounter()
        counter.track { _ = o.d }
        try db.execute("UPDATE v10_observed SET d = d, f = f, \"when\" = \"when\", amount = amount, data = data, odata = odata, flag = flag, token = token, big = big, s = s")
        #expect(counter.value == 0, "nothing changed")
        #expect(o.changedProperties == [])
        let other = try Database(path: temp.path)
        try other.execute("UPDATE v10_observed SET d = d, f = f, \"when\" = \"when\", amount = amount, data = data, odata = odata, s = s, tick = tick")
        _ = try db.objects(V10Observed.self)
        #expect(counter.value == 0, "nothing changed")
        try other.execute("UPDATE v10_observed SET tick = 1")
        _ = try db.objects(V10Observed.self)
        #expect(counter.value == 1 && o.tick == 1)
        #expect(o.odata == Data() && o.data == Data() && o.flag && o.s == "a\u{0}b")
    }
}
#endif

extension Review10ValueTests {
    /// Before: a refresh remembered the row's 0 for a -0.0 the instance kept, so the instance then showed
    /// a change it never made (a save wrote it again; another connection's change of it was a conflict).
    @Test func aNegativeZeroKeptThroughARefreshIsNoChange() throws {
        final class Plain: Model {
            static let tableName = "plain_numbers"
            var id: Int64 = 0
            var x = 0.0
            var n = 0
            required init() {}
        }
        let temp = try TemporaryDatabase(), db = temp.db
        let v = V10Values(); v.d = -0.0
        let p = Plain(); p.x = -0.0
        try db.save(v)
        try db.save(p)
        try db.execute("UPDATE v10_values SET d = d, s = 'x'")
        try db.execute("UPDATE plain_numbers SET x = x, n = 1")
        #expect(v.s == "x" && v.changedProperties == [] && p.n == 1 && p.changedProperties == [])
        let other = try Database(path: temp.path)
        try other.execute("UPDATE v10_values SET d = 2, big = 1")
        try other.execute("UPDATE plain_numbers SET x = 2")
        v.big = 5
        let conflict = #expect(throws: ModelError.self) { try db.save(v) }
        #expect(conflict?.kind == .conflict && conflict?.properties == ["big"])
        #expect(v.d == 2)
        _ = try db.objects(Plain.self)
        #expect(p.x == 2 && p.changedProperties == [])
    }
}

private final class V10NulKey: Model {
    static let tableName = "v10_nul_key"
    var id = ""
    var name = ""
    required init() {}
}

extension Review10ValueTests {
    @Test func textKeysWithNulBytesAreTheirOwnRows() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let a = V10NulKey(); a.id = "a"; a.name = "plain"
        let b = V10NulKey(); b.id = "a\u{0}b"; b.name = "nul"
        let c = V10NulKey(); c.id = "a\u{0}"; c.name = "trailing"
        try db.save([a, b, c])
        #expect(try db.count(V10NulKey.self) == 3)
        #expect(try db.object(V10NulKey.self, forKey: "a\u{0}b") === b)
        try db.execute("UPDATE $T SET name = 'N' WHERE $PK = ?", for: V10NulKey.self, "a\u{0}b")
        #expect(b.name == "N" && a.name == "plain" && c.name == "trailing")
        let fresh = try Database(path: temp.path)
        #expect(try fresh.objects(V10NulKey.self, forKeys: ["a\u{0}", "a", "a\u{0}b"]).map(\.name) == ["trailing", "plain", "N"])
        #expect(try db.delete(c) && !a.isDeleted && !b.isDeleted)
    }

    @Test func datesOtherToolsStoredAsNonFiniteOrHugeNumbersThrowNamingTheColumn() throws {
        final class Dated: Model {
            static let tableName = "dated"
            var id: Int64 = 0
            var at = Date(timeIntervalSince1970: 0)
            required init() {}
        }
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE dated (id INTEGER PRIMARY KEY, at REAL NOT NULL)")
        try db.execute("INSERT INTO dated VALUES (1, 9e999), (2, -9e999), (3, 1e300), (4, 9223372036854775807)")
        for key in 1...3 as ClosedRange<Int64> {
            do {
                let row = try db.object(Dated.self, forKey: key)
                // Read: then it must survive an unchanged save and a change of nothing else.
                #expect(row?.changedProperties == [])
            } catch {
                #expect("\(error)".contains("at"), "\(key)")
            }
        }
        let huge = try db.object(Dated.self, forKey: 4)
        #expect(huge?.changedProperties == [])
    }
}

extension Review10ValueTests {
    @Test(arguments: ["INTEGER", "DECIMAL(10,2)", "REAL", "TEXT", ""])
    func decimalsBeyondInt64AndDoubleInEveryColumnType(declared: String) throws {
        final class Money: Model {
            static let tableName = "money"
            var id: Int64 = 0
            var amount = Decimal(0)
            required init() {}
        }
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE money (id INTEGER PRIMARY KEY, amount \(declared) NOT NULL DEFAULT 0)")
        try db.execute("INSERT INTO money VALUES (1, 5)")
        let m = try #require(try db.object(Money.self, forKey: 1))
        for text in ["123456789012345678901234567890", "-9223372036854775809", "9223372036854775807", "1e-30", "-1.5e40", "0.1"] {
            m.amount = try #require(Decimal(string: text))
            do {
                try db.save(m)
                let back = try #require(try Database(path: temp.path).object(Money.self, forKey: 1))
                #expect(back.changedProperties == [], "\(declared) \(text)")
            } catch {
                // Refused: the error names the property, and nothing was written.
                #expect("\(error)".contains("amount"), "\(declared) \(text): \(error)")
                _ = try db.objects(Money.self)
                m.amount = 0
                try db.save(m)
            }
        }
    }
}

private final class V10Tag: Model {
    static let tableName = "ta\"g ]`.$PK"
    static let primaryKey = "code"
    static let columnNames = ["code": "co\"de ?"]
    var code = ""
    var label = ""
    required init() {}
}

private final class V10Post: Model {
    static let tableName = "po\"st $T"
    static let primaryKey = "slug"
    static let columnNames = ["slug": "sl\"ug ]"]
    var slug = ""
    @Siblings(through: "post \"tags\" [x]", from: "po\"st", to: "ta]g", orderBy: "label DESC") var tags: [V10Tag]
    required init() {}
}

extension Review10ValueTests {
    @Test func siblingsOverTextKeysWithHostileNamesAddRemoveAndPrefetch() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "post ""tags"" [x]" ("po""st" TEXT NOT NULL, "ta]g" TEXT NOT NULL, UNIQUE ("po""st", "ta]g"))"#)
        let tags = ["a'1", "b\"2", "c?3"].map { code in let t = V10Tag(); t.code = code; t.label = "L" + code; return t }
        try db.save(tags)
        let posts = ["p'1", "p$T2"].map { slug in let p = V10Post(); p.slug = slug; return p }
        try db.save(posts)
        try posts[0].$tags.add(tags[0])
        try posts[0].$tags.add(tags[2])
        try posts[0].$tags.add(tags[2])
        try posts[1].$tags.add(tags[1])
        #expect(try db.value(Int.self, #"SELECT count(*) FROM "post ""tags"" [x]""#) == 3)
        let fresh = try Database(path: temp.path)
        let loaded = try fresh.objects(V10Post.self, where: "ORDER BY $PK", prefetching: ["tags"])
        #expect(loaded.map(\.slug) == ["p$T2", "p'1"])   // `$` sorts before `'`
        #expect(loaded.map { $0.tags.map(\.code) } == [["b\"2"], ["c?3", "a'1"]])
        try posts[0].$tags.remove(tags[2])
        #expect(try posts[0].$tags.reload().map(\.code) == ["a'1"])
    }
}

private let veryLong = String(repeating: "lang\"name ]` ", count: 500)

private final class V10Long: Model {
    static let tableName = veryLong
    static let columnNames = ["value": veryLong + "col"]
    static let indices: [[String]] = [["value"]]
    static let uniqueIndices: [[String]] = [["value", "id"]]
    var id: Int64 = 0
    var value = 0
    @Reference var parent: V10Long?
    required init() {}
}

extension Review10ValueTests {
    @Test func namesOfThousandsOfCharacters() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let a = V10Long(); a.value = 1
        try db.save(a)
        let b = V10Long(); b.value = 2; b.parent = a
        try db.save(b)
        try db.execute("UPDATE $T SET \(SQL.quote(veryLong + "col")) = 3 WHERE $PK = ?", for: V10Long.self, a.id)
        #expect(a.value == 3)
        let fresh = try Database(path: temp.path)
        let rows = try fresh.objects(V10Long.self, where: "ORDER BY $PK", prefetching: ["parent"])
        #expect(rows.map(\.value) == [3, 2] && rows[1].parent === rows[0])
        #expect(try temp.reopen().schemaPlan(for: V10Long.self).isEmpty)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'strata%'") == 2)
    }
}
