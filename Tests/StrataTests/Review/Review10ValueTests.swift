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
