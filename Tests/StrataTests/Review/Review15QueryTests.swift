import Foundation
import StrataTestSupport
import Testing
import CSQLite
@testable import Strata

// Review 15, second reader of the query layer: `$T`/`$PK` and `?` expansion, key-path conditions against
// other tools' stored formats, fetch results and prefetches past the variable limit.

private final class R15Odd: Model {
    static let tableName = #"we"ird $T tåble"#
    static let primaryKey = "key"
    var key: Int64 = 0
    var name = ""
    var email: String?
    required init() {}
}

private final class R15Pair: Model {
    static let tableName = "pair $x"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b = ""
    var n = 0
    required init() {}
}

private final class R15QueryPerson: Model {
    static let tableName = "person"
    var id: Int64 = 0
    var name = ""
    var email: String?
    var age = 0
    required init() {}
}

private final class R15Event: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    var token = UUID()
    var done = false
    var status = R15Status.open
    required init() {}
}

enum R15Status: String, ColumnValue, Sendable { case open, closed }

private final class R15Item: Model {
    static let tableName = "item"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R15ItemView: Model {
    static let tableName = "item_view"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R15Owner: Model {
    static let tableName = "owner"
    var id: Int64 = 0
    @Children(by: "owner") var pets: [R15Pet]
    required init() {}
}

private final class R15Pet: Model {
    static let tableName = "pet"
    var id: Int64 = 0
    @Reference var owner: R15Owner?
    required init() {}
}

private final class R15Margin: Model {
    static let tableName = "q?margin"
    var id: Int64 = 0
    var left = 0
    var right = 0
    var full = false
    var window = ""
    var indexed = 0
    var natural = 0
    var cross = 0
    required init() {}
}

private final class R15Token: Model {
    static let tableName = "token"
    static let primaryKey = "uuid"
    var uuid = UUID()
    var label = ""
    required init() {}
}

private final class R15Quoted: Model {
    static let tableName = #"ü "t" $PK"#
    static let primaryKey = "code"
    static let columnNames = ["code": #"k"y $T"#, "label": "la bel"]
    var code = ""
    var label = ""
    required init() {}
}

@Suite struct Review15QueryTests {
    private func people(_ db: Database) throws {
        try db.syncSchema(R15QueryPerson.self)
        for (i, name) in ["Ada", "Grace", "50% off", "a_b", "Alan"].enumerated() {
            let p = R15QueryPerson(); p.name = name; p.age = 20 + i; p.email = i % 2 == 0 ? "\(i)@x" : nil
            try db.save(p)
        }
    }

    @Test func templateSkipsLiteralsIdentifiersAndComments() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15Odd.self)
        let o = R15Odd(); o.name = "x"; try db.save(o)
        let rows = try db.rows("SELECT $PK, '$T costs $5' AS \"$T\" FROM $T -- $T\n /* $T */ WHERE $PK = ?", for: R15Odd.self, o.key)
        #expect(rows.count == 1)
        #expect(try rows.first?.decode("$T", as: String.self) == "$T costs $5")
        let found = try db.objects(R15Odd.self, where: "$PK = ? AND name = '$PK'", o.key)
        #expect(found.isEmpty)
        let found2 = try db.objects(R15Odd.self, where: "$T.$PK = ? AND name <> '$PK' -- $T ?", o.key)
        #expect(found2.count == 1)
        #expect(try db.count(R15Odd.self, where: "$PK IN (?)", [o.key, 99]) == 1)
    }

    @Test func compositeKeyTemplate() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15Pair.self)
        let p = R15Pair(); p.a = 1; p.b = "x"; try db.save(p)
        let rows = try db.rows("SELECT $PK FROM $T", for: R15Pair.self)
        #expect(rows.count == 1)
        #expect(try rows[0].decode("b", as: String.self) == "x")
        #expect(try db.objects(R15Pair.self, where: "($PK) = (?, ?)", 1, "x").count == 1)
    }

    @Test func argumentCountMismatchesThrow() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        #expect(throws: DatabaseError.self) { try db.objects(R15QueryPerson.self, where: "age > ?", 1, 2) }
        #expect(throws: DatabaseError.self) { try db.objects(R15QueryPerson.self, where: "age > ? AND age < ?", 1) }
        #expect(throws: DatabaseError.self) { try db.objects(R15QueryPerson.self, where: "id IN (?) AND age < ?", [1, 2]) }
        #expect(throws: DatabaseError.self) { try db.objects(R15QueryPerson.self, where: "id IN (?)", [1, 2], 3) }
        #expect(throws: DatabaseError.self) { try db.objects(R15QueryPerson.self, where: "id IN (?) AND age = ?1", [1, 2], 3) }
        #expect(throws: DatabaseError.self) { try db.count(R15QueryPerson.self, where: "age > ?") }
        #expect(throws: DatabaseError.self) { try db.count(R15QueryPerson.self, where: "age > ?", 1, 2) }
        // Numbered and named parameters without collections
        #expect(try db.objects(R15QueryPerson.self, where: "age = ?2 OR age = ?1", 20, 21).count == 2)
        #expect(try db.count(R15QueryPerson.self, where: "age = :a OR age = :a", 20) == 1)
        #expect(try db.count(R15QueryPerson.self, where: "name = '?' OR age = ?", 20) == 1)
    }

    @Test func nilComparisonsAndEmptyIn() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        #expect(try db.count(R15QueryPerson.self, where: \.email == nil) == 2)
        #expect(try db.count(R15QueryPerson.self, where: \.email != nil) == 3)
        #expect(try db.count(R15QueryPerson.self, where: (\R15QueryPerson.age).in([])) == 0)
        #expect(try db.count(R15QueryPerson.self, where: !(\R15QueryPerson.age).in([])) == 5)
        #expect(try db.first(R15QueryPerson.self, where: (\R15QueryPerson.name).in([])) == nil)
        #expect(try db.count(R15QueryPerson.self, where: "name IN (?)", [String]()) == 0)
    }

    @Test func keyPathInPastTheVariableLimit() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        let many = Array(0..<40_000)
        #expect(try db.count(R15QueryPerson.self, where: (\R15QueryPerson.age).in(many)) == 5)
        #expect(try db.objects(R15QueryPerson.self, where: (\R15QueryPerson.age).in(many), orderBy: .ascending(\.age), limit: 2).map(\.age) == [20, 21])
        let names = (0..<40_000).map { "n\($0)" } + ["Ada"]
        #expect(try db.count(R15QueryPerson.self, where: (\R15QueryPerson.name).in(names)) == 1)
    }

    @Test func rawInPastTheVariableLimit() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        let many = Array(0..<40_000)
        #expect(try db.objects(R15QueryPerson.self, where: "age IN (?)", many).count == 5)
    }

    @Test func orderingLimitsCountFirstOnEmpty() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15QueryPerson.self)
        #expect(try db.first(R15QueryPerson.self) == nil)
        #expect(try db.first(R15QueryPerson.self, where: \.age > 1) == nil)
        #expect(try db.count(R15QueryPerson.self) == 0)
        try people(db)
        #expect(try db.objects(R15QueryPerson.self, orderBy: .descending(\.age), limit: 2).map(\.age) == [24, 23])
        #expect(try db.first(R15QueryPerson.self, where: \.age > 1, orderBy: .descending(\.age))?.age == 24)
        #expect(try db.count(R15QueryPerson.self, where: "ORDER BY age") == 5)
        #expect(try db.objects(R15QueryPerson.self, where: "name LIKE ? ESCAPE '\\'", "50\\%%").map(\.name) == ["50% off"])
    }

    /// `count` with a clause that shapes the rows (LIMIT, OFFSET, GROUP BY, HAVING) counts the rows
    /// `objects` returns for it, not the rows before the clause's LIMIT or the first group's.
    @Test func countCountsTheRowsTheClauseSelects() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        for clause in ["age > ? LIMIT 2", "WHERE age > ? ORDER BY age LIMIT 10 OFFSET 3", "age > ? GROUP BY age % 2",
                       "age > ? GROUP BY age % 2 HAVING count(*) > 2", "age > ? LIMIT 0"] {
            #expect(try db.count(R15QueryPerson.self, where: clause, 0) == db.objects(R15QueryPerson.self, where: clause, 0).count, "\(clause)")
        }
        #expect(try db.count(R15QueryPerson.self, where: "age > ? LIMIT 2", 0) == 2)
        #expect(try db.count(R15QueryPerson.self, where: "age > ? GROUP BY age % 2", 0) == 2)
        #expect(try db.count(R15QueryPerson.self, where: "age > ? LIMIT ?", 0, 3) == 3)
        #expect(try db.count(R15QueryPerson.self, where: \.age > 20) == 4)
    }

    /// Django's datetime, a 32-hex UUID and 't'/'f' booleans: a query by value finds the row as the column stores it.
    @Test func keyPathValuesInOtherToolsFormats() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE "event" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "at" datetime NOT NULL, "token" char(32) NOT NULL,
            "done" boolean NOT NULL, "status" varchar(10) NOT NULL);
            INSERT INTO event VALUES (1, '2024-01-02 03:04:05.250000', '0f8fad5bd9cb469fa16570867728950e', 't', 'open');
            INSERT INTO event VALUES (2, '2024-01-02 03:04:06', 'aaaaaaaabbbbccccddddeeeeeeeeeeee', 'f', 'closed');
            """)
        let t1 = Date(timeIntervalSince1970: 1_704_164_645.25), t2 = Date(timeIntervalSince1970: 1_704_164_646)
        let u1 = UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!
        #expect(try db.first(R15Event.self, where: \.at == t1)?.id == 1)
        #expect(try db.first(R15Event.self, where: \.at == t2)?.id == 2)
        #expect(try db.objects(R15Event.self, where: \.at > t1).map(\.id) == [2])
        #expect(try db.objects(R15Event.self, where: (\R15Event.at).in([t1, t2])).count == 2)
        #expect(try db.first(R15Event.self, where: \.token == u1)?.id == 1)
        #expect(try db.objects(R15Event.self, where: (\R15Event.token).in([u1])).map(\.id) == [1])
        #expect(try db.first(R15Event.self, where: \.done == true)?.id == 1)
        #expect(try db.first(R15Event.self, where: \.done == false)?.id == 2)
        #expect(try db.first(R15Event.self, where: \.status == .closed)?.id == 2)
        #expect(try db.objects(R15Event.self, matching: ["done": true, "token": u1, "at": t1]).map(\.id) == [1])
        #expect(try db.objects(R15Event.self, matching: ["at": [t2]]).map(\.id) == [2])
        #expect(try db.objects(R15Event.self, orderBy: .descending(\.at)).map(\.id) == [2, 1])
        let e = try #require(try db.first(R15Event.self, where: \.id == 2))
        #expect(e.at == t2 && e.done == false && e.status == .closed)
    }

    @Test func fetchFromAViewAndJoinClauses() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15Item.self)
        for n in ["a", "b", "c"] { let i = R15Item(); i.name = n; try db.save(i) }
        try db.execute("CREATE VIEW item_view AS SELECT * FROM item WHERE name <> 'b'")
        #expect(try db.objects(R15ItemView.self, where: "ORDER BY name").map(\.name) == ["a", "c"])
        #expect(try db.first(R15ItemView.self, where: \.name == "c")?.id == 3)
        try db.execute("CREATE TABLE tag (id INTEGER PRIMARY KEY, item INTEGER, name TEXT)")
        try db.execute("INSERT INTO tag (item, name) VALUES (1, 'x'), (1, 'y'), (3, 'z')")
        let joined = try db.objects(R15Item.self, where: "JOIN tag ON tag.item = item.id WHERE tag.name <> ? ORDER BY tag.id", "q")
        #expect(joined.map(\.name) == ["a", "a", "c"])
        #expect(joined[0] === joined[1])
        #expect(try db.count(R15Item.self, where: "JOIN tag ON tag.item = item.id") == 3)
    }

    @Test func nullInANonOptionalColumnNamesTableKeyAndColumn() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (7, NULL)")
        do {
            _ = try db.objects(R15Item.self)
            Issue.record("no error")
        } catch {
            let text = "\(error)"
            #expect(text.contains("item") && text.contains("7") && text.contains("name"), "\(text)")
        }
    }

    @Test func fetchOfAModelWhoseTableDoesNotExist() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        do {
            let found = try db.objects(R15Item.self)
            #expect(found.isEmpty)
        } catch {
            #expect("\(error)".contains("item"), "\(error)")
        }
        #expect(try db.first(R15Item.self, where: \.name == "x") == nil)
        #expect(try db.count(R15Item.self) == 0)
    }

    @Test func fetchesInsideARolledBackTransaction() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15Item.self)
        let a = R15Item(); a.name = "a"; try db.save(a)
        struct Stop: Error {}
        var inside: R15Item?
        #expect(throws: Stop.self) {
            try db.transaction {
                try db.execute("UPDATE item SET name = 'b' WHERE id = 1")
                try db.execute("INSERT INTO item (id, name) VALUES (2, 'new')")
                inside = try db.first(R15Item.self, where: \.id == 2)
                #expect(try db.objects(R15Item.self).map(\.name) == ["b", "new"])
                throw Stop()
            }
        }
        #expect(a.name == "a")
        #expect(inside?.isDeleted == true)
        #expect(try db.objects(R15Item.self).map(\.name) == ["a"])
        #expect(try db.first(R15Item.self, where: \.id == 2) == nil)
    }

    /// 40,000 owners: a prefetch by name, children and references, in one statement per level (integer keys
    /// as one JSON array per 32,768), or chunked under a stock variable limit without JSON functions.
    @Test(arguments: [true, false]) func prefetchPastTheVariableLimit(json: Bool) throws {
        /// 40,000 owners with a pet each, under a stock variable limit, with or without JSON functions.
        func ownersAndPets() throws -> TemporaryDatabase {
            let temp = try TemporaryDatabase(), db = temp.db
            try db.syncSchema(R15Owner.self); try db.syncSchema(R15Pet.self)
            try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) INSERT INTO owner (id) SELECT i FROM n")
            try db.execute("INSERT INTO pet (id, owner) SELECT id, 40001 - id FROM owner")
            sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 32_766)
            db.connection.hasJSONEach = json
            return temp
        }
        let temp = try ownersAndPets(), db = temp.db
        let owners = try db.objects(R15Owner.self)
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.prefetch("pets", of: owners)
        trace.cancel()
        #expect(statements.count <= 3, "\(statements.map { $0.prefix(120) })")
        #expect(owners.allSatisfy { $0.pets.count == 1 && $0.pets[0].id == 40001 - $0.id })
        let temp2 = try ownersAndPets(), db2 = temp2.db
        let pets = try db2.objects(R15Pet.self)
        statements = []
        let trace2 = db2.traceStatements { statements.append($0) }
        try db2.prefetch("owner", of: pets)
        trace2.cancel()
        #expect(statements.count == (json ? 2 : 3), "\(statements.map { $0.prefix(120) })")
        #expect(statements.allSatisfy { $0.filter { $0 == "?" }.count <= 32_766 })
        #expect(pets.count == 40_000 && pets.allSatisfy { $0.owner?.id == 40001 - $0.id })
    }

    /// A statement with a parameter and no argument ran as a script, the parameter NULL: `UPDATE … SET
    /// email = ?` cleared every email, `deleteAll(where: "age > ?")` quietly deleted nothing. It throws,
    /// naming the statement, and nothing is written.
    @Test func aParameterWithNoArgumentThrowsInsteadOfBindingNull() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        func expectRefused(_ sql: String, _ body: () throws -> Void) {
            do { try body(); Issue.record("no error for \(sql)") } catch let error as DatabaseError {
                #expect(error.code == .range && error.sql == sql && error.message.contains("1 parameter"), "\(error)")
            } catch { Issue.record("\(error)") }
        }
        expectRefused("UPDATE person SET email = ?") { try db.execute("UPDATE person SET email = ?") }
        expectRefused(#"DELETE FROM "person" WHERE age > ?"#) { try db.deleteAll(R15QueryPerson.self, where: "age > ?") }
        expectRefused(#"UPDATE "person" SET name = :name"#) { try db.execute("UPDATE $T SET name = :name", for: R15QueryPerson.self) }
        // In a script, the statement with the parameter; those before it ran, as a failing statement's do.
        expectRefused("UPDATE person SET age = ?") { try db.execute("UPDATE person SET age = age + 1; UPDATE person SET age = ?;") }
        #expect(try db.count(R15QueryPerson.self, where: \.email != nil) == 3)
        #expect(try db.objects(R15QueryPerson.self, orderBy: .ascending(\.age)).map(\.age) == [21, 22, 23, 24, 25])
        #expect(try db.objects(R15QueryPerson.self).map(\.name) == ["Ada", "Grace", "50% off", "a_b", "Alan"])
        try db.execute("UPDATE person SET name = '?' || name WHERE id = 1 -- ?")
        #expect(try db.first(R15QueryPerson.self, where: \.id == 1)?.name == "?Ada")
    }

    /// A key-path `in` list past the variable limit (32,766 in a stock SQLite, 250,000 in Debian's) failed
    /// with "too many SQL variables"; it binds as one JSON array, with the other conditions, the order and
    /// the limit as before.
    @Test func keyPathInPastAStockVariableLimit() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 32_766)
        let many = Array(0..<40_000)
        #expect(try db.count(R15QueryPerson.self, where: (\R15QueryPerson.age).in(many)) == 5)
        #expect(try db.objects(R15QueryPerson.self, where: (\R15QueryPerson.age).in(many) && \.age > 20, orderBy: .ascending(\.age), limit: 2).map(\.age) == [21, 22])
        #expect(try db.count(R15QueryPerson.self, where: !(\R15QueryPerson.age).in(many)) == 0)
        let names = (0..<40_000).map { "n\($0)" } + ["Ada", "it's \"q\" \\ é"]
        #expect(try db.count(R15QueryPerson.self, where: (\R15QueryPerson.name).in(names)) == 1)
        #expect(try db.deleteAll(R15QueryPerson.self, where: (\R15QueryPerson.name).in(names)) == 1)
        #expect(try db.count(R15QueryPerson.self) == 4)
    }

    /// `objects(matching:)` with a list past a stock variable limit, and lists as JSON against the column's
    /// affinity: an INTEGER column found by text digits, a TEXT column by integers, as bound values find them.
    @Test func matchingAndInListsPastTheVariableLimitKeepTheColumnsAffinity() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 32_766)
        let ages: [Int] = Array(0..<40_000)
        #expect(try db.objects(R15QueryPerson.self, matching: ["age": ages, "name": ["Ada", "Alan"]]).map(\.name) == ["Ada", "Alan"])
        try db.execute("CREATE TABLE loose (id INTEGER PRIMARY KEY, n INTEGER, t TEXT); INSERT INTO loose VALUES (1, 5, '7')")
        let digits = (0..<40_000).map(String.init)
        #expect(try db.value(Int.self, "SELECT count(*) FROM loose WHERE n IN (SELECT +value FROM json_each(?))", SQL.inList(digits.map { .text($0) }, asJSON: true).1[0]) == 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM loose WHERE t IN (SELECT +value FROM json_each(?))", SQL.inList(ages.map { .integer(Int64($0)) }, asJSON: true).1[0]) == 1)
        #expect(SQL.inList([.text("a\"b\\c\u{1}é"), .integer(-3), .null], asJSON: true).1 == [.text(#"["a\"b\\c\u0001é",-3,null]"#)])
        #expect(SQL.inList([.real(1.5), .integer(1)], asJSON: true).0 == "(?, ?)")
    }

    @Test func clausesStartingWithAColumnNamedLikeAJoinKeyword() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15Margin.self); try db.syncSchema(R15Token.self)
        let m = R15Margin(); m.left = 5; m.right = 2; m.full = true; m.window = "w"; m.indexed = 1; m.natural = 3; m.cross = 4
        try db.save(m)
        for clause in ["left > ?", "right < ?", "full = 1 AND left > ?", "window = 'w' AND left > ?", "indexed = 1 AND left > ?",
                       "natural > 0 AND left > ?", "cross > 0 AND left > ?", "left NOT IN (?)", "window LIKE 'w' AND left > ?", "window IS NOT NULL AND left > ?", "  Left>?"] {
            #expect(try db.objects(R15Margin.self, where: clause, [3]).count == 1, "\(clause)")
            #expect(try db.count(R15Margin.self, where: clause, [3]) == 1, "\(clause)")
        }
        #expect(try db.objects(R15Margin.self, where: "LEFT JOIN token ON token.label = $T.window WHERE left > ?", 3).count == 1)
        #expect(try db.objects(R15Margin.self, where: "NATURAL LEFT JOIN token").count == 1)
        #expect(try db.objects(R15Margin.self, where: "CROSS JOIN token").isEmpty)
        #expect(SQLClause.normalized("WINDOW w AS (ORDER BY id)") == "WINDOW w AS (ORDER BY id)")
        #expect(SQLClause.normalized("left outer join t") == "left outer join t")
        #expect(SQLClause.normalized("natural join t") == "natural join t")
        #expect(SQLClause.normalized("INDEXED BY i WHERE a") == "INDEXED BY i WHERE a")
        #expect(SQLClause.normalized("window LIKE ?") == "WHERE window LIKE ?")
    }

    @Test func uuidKeyIn32HexFoundByKeysAndConditions() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE token (uuid char(32) NOT NULL PRIMARY KEY, label varchar(10) NOT NULL);
            INSERT INTO token VALUES ('0f8fad5bd9cb469fa16570867728950e', 'a'), ('aaaaaaaabbbbccccddddeeeeeeeeeeee', 'b');
            """)
        let u1 = UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!, u2 = UUID(uuidString: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")!
        #expect(try db.object(R15Token.self, forKey: u1)?.label == "a")
        #expect(try db.objects(R15Token.self, forKeys: [u2, u1]).map(\.label) == ["b", "a"])
        #expect(try db.objects(R15Token.self, where: (\R15Token.uuid).in([u2])).map(\.label) == ["b"])
        let t = try #require(try db.object(R15Token.self, forKey: u2))
        t.label = "c"; try db.save(t)
        #expect(try db.value(String.self, "SELECT uuid FROM token WHERE label = 'c'") == "aaaaaaaabbbbccccddddeeeeeeeeeeee")
    }

    /// A collection argument of a raw `IN (?)` past the variable limit failed with "too many SQL variables"
    /// (a 120 KB message of placeholders): it binds as one JSON array there, in every raw entry point.
    @Test func rawInListPastAStockVariableLimit() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 32_766)
        let many = Array(0..<40_000)
        var seen: [String] = []
        let trace = db.traceStatements { seen.append($0) }
        #expect(try db.objects(R15QueryPerson.self, where: "age IN (?) AND age > ? ORDER BY age", many, 22).map(\.age) == [23, 24])
        trace.cancel()
        #expect(seen.count == 1 && seen[0].contains("json_each(") && seen[0].count < 500)
        #expect(try db.first(R15QueryPerson.self, where: "age in( ? ) ORDER BY age DESC", arguments: [many])?.age == 24)
        #expect(try db.count(R15QueryPerson.self, where: "name NOT IN (?)", (0..<40_000).map { "n\($0)" } + ["Ada"]) == 4)
        #expect(try db.rows("SELECT name FROM person WHERE name IN (?) ORDER BY id", ["Ada", "Grace"] + (0..<40_000).map { "x\($0)" }).count == 2)
        #expect(try db.value(Int.self, "SELECT count(*) FROM person WHERE id IN (?)", many) == 5)
        try db.execute("UPDATE person SET email = 'x' WHERE age IN (?)", many)
        #expect(try db.count(R15QueryPerson.self, where: \.email == "x") == 5)
        #expect(try db.deleteAll(R15QueryPerson.self, where: "age IN (?)", many) == 5)
        // Under the limit, placeholders as before.
        #expect(ArgumentList.isWholeInList(Array("x IN (?)".utf8), at: 6))
        #expect(ArgumentList.isWholeInList(Array("x in(\n?\n)".utf8), at: 6))
        #expect(!ArgumentList.isWholeInList(Array("xin (?)".utf8), at: 5))
        #expect(!ArgumentList.isWholeInList(Array("f(?)".utf8), at: 2))
        #expect(!ArgumentList.isWholeInList(Array("x IN (?, ?)".utf8), at: 6))
        #expect(!ArgumentList.isWholeInList(Array("VALUES (?)".utf8), at: 8))
    }

    /// Named and numbered parameters beside a collection argument throw (the `?` count would bind wrongly);
    /// `$T` inside backquotes and brackets is a name, left as it is.
    @Test func namedParametersBesideACollectionThrowAndBracketedNamesStay() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try people(db)
        for clause in ["id IN (?) AND age = :a", "id IN (?) AND age = @a", "id IN (?) AND age = $a", "id IN (?) AND age = ?2"] {
            #expect(throws: DatabaseError.self, "\(clause)") { try db.objects(R15QueryPerson.self, where: clause, [1, 2], 20) }
        }
        #expect(try db.objects(R15QueryPerson.self, where: "id IN (?) AND name <> ':a' AND name <> '@b' -- $c ?3", [1, 2]).count == 2)
        let rows = try db.rows("SELECT 1 AS `$T`, 2 AS [$PK], 3 AS a$T FROM $T LIMIT 1", for: R15QueryPerson.self)
        #expect(rows.count == 1 && rows[0].columnNames == ["$T", "$PK", "a$T"])
    }

    /// A table and a key column whose names hold quotes, spaces, `$T`/`$PK` and unicode, through every query.
    @Test func quotedTableAndKeyNamesThroughEveryQuery() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.syncSchema(R15Quoted.self)
        for (code, label) in [("a'1", "x"), ("ß?", "y"), ("$PK", "z")] {
            let q = R15Quoted(); q.code = code; q.label = label; try db.save(q)
        }
        #expect(try db.object(R15Quoted.self, forKey: "ß?")?.label == "y")
        #expect(try db.objects(R15Quoted.self, forKeys: ["$PK", "a'1"]).map(\.label) == ["z", "x"])
        #expect(try db.objects(R15Quoted.self, where: "$PK IN (?) ORDER BY $PK", ["ß?", "$PK"]).map(\.label) == ["z", "y"])
        #expect(try db.count(R15Quoted.self, where: "$T.$PK <> '$PK' LIMIT 5") == 2)
        #expect(try db.first(R15Quoted.self, where: \.code == "$PK")?.label == "z")
        #expect(try db.objects(R15Quoted.self, matching: ["code": ["a'1", "nope"]]).map(\.label) == ["x"])
        try db.execute("UPDATE $T SET \"la bel\" = ? WHERE $PK = ?", for: R15Quoted.self, "w", "a'1")
        #expect(try db.object(R15Quoted.self, forKey: "a'1")?.label == "w")
        #expect(try db.rows("SELECT $PK AS k FROM $T ORDER BY 1", for: R15Quoted.self).map { try $0.decode("k", as: String.self) } == ["$PK", "a'1", "ß?"])
        #expect(try db.deleteAll(R15Quoted.self, where: \.code == "ß?") == 1)
        #expect(try db.count(R15Quoted.self) == 2)
    }
}
