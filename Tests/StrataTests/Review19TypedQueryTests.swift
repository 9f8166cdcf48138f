import Foundation
import Observation
import StrataTestSupport
import Testing
@testable import Strata

// Review 19 (issue 36, point 3): typed queries that went further than comparisons. Each is compiled to
// bound SQL in the column's stored format, and returns the same rows as the equivalent string clause on
// the same data.

private final class R19QSite: Model {
    static let tableName = "r19q_site"
    var id: Int64 = 0
    var city = ""
    required init() {}
}

private final class R19QDept: Model {
    static let tableName = "r19q_dept"
    var id: Int64 = 0
    var name = ""
    @Reference var site: R19QSite?
    @Children(by: \R19QEmployee.$department) var staff: [R19QEmployee]
    required init() {}
}

private final class R19QEmployee: Model {
    static let tableName = "r19q_employee"
    var id: Int64 = 0
    var name = ""
    var email: String?
    var age = 0
    var salary = 0.0
    var hired = Date(timeIntervalSince1970: 0)
    @Reference var department: R19QDept?
    required init() {}
}

@Observable private final class R19QNote: Model {
    static let tableName = "r19q_note"
    var id: Int64 = 0
    var title = ""
    var stars = 0
    @ObservationIgnored @Reference var author: R19QEmployee?
    required init() {}
}

private struct R19QData {
    let db: Database
    let sales: R19QDept, tech: R19QDept, empty: R19QDept
    let paris: R19QSite
    let staff: [R19QEmployee]

    init(_ db: Database) throws {
        self.db = db
        paris = R19QSite(); paris.city = "Paris"
        let oslo = R19QSite(); oslo.city = "Oslo"
        try db.save([paris, oslo])
        sales = R19QDept(); sales.name = "Sales"; sales.site = paris
        tech = R19QDept(); tech.name = "Tech"; tech.site = oslo
        empty = R19QDept(); empty.name = "Empty"; empty.site = paris
        try db.save([sales, tech, empty])
        let rows: [(String, String?, Int, Double, R19QDept?)] = [
            ("Ada", "ada@example.com", 36, 10, sales), ("ADAM", nil, 41, 20, tech), ("Bob 50%", "bob@x.org", 25, 30, sales),
            ("a_b", "ab@example.com", 30, 40, nil), ("axb", nil, 52, 50, tech), ("back\\slash", "bs@example.com", 19, 60, sales),
            ("Élodie", "e@example.com", 28, 70, nil), ("élan", nil, 33, 80, tech),
        ]
        var staff: [R19QEmployee] = []
        for (i, row) in rows.enumerated() {
            let e = R19QEmployee()
            (e.name, e.email, e.age, e.salary, e.department) = row
            e.hired = Date(timeIntervalSince1970: Double(1_000_000 * (i + 1)))
            staff.append(e)
        }
        try db.save(staff)
        self.staff = staff
    }

    /// The names a typed query and a string clause return, to compare.
    func names(_ typed: QueryCondition<R19QEmployee>, _ clause: String, _ arguments: [any ColumnValue] = []) throws -> ([String], [String]) {
        let a = try db.objects(R19QEmployee.self, where: typed, orderBy: .ascending(\.id)).map(\.name)
        let b = try db.objects(R19QEmployee.self, where: clause + " ORDER BY id", arguments: arguments).map(\.name)
        return (a, b)
    }

    /// The SQL and arguments a condition compiles to.
    func sql<T: Model>(_ condition: QueryCondition<T>) throws -> (String, [SQLValue]) {
        try condition.sql(db.registry(for: T.self))
    }
}

@Suite struct Review19TypedQueryTests {
    @Test func referencesCompareByTheirKeys() throws {
        let temp = try TemporaryDatabase()
        let data = try R19QData(temp.db)
        var (typed, string) = try data.names(\.department == data.sales, "WHERE department = ?", [data.sales.id])
        #expect(typed == ["Ada", "Bob 50%", "back\\slash"] && typed == string)
        (typed, string) = try data.names(\.department == nil, "WHERE department IS NULL")
        #expect(typed == ["a_b", "Élodie"] && typed == string)
        (typed, string) = try data.names((\R19QEmployee.department).in([data.tech, data.empty]), "WHERE department IN (?, ?)", [data.tech.id, data.empty.id])
        #expect(typed == ["ADAM", "axb", "élan"] && typed == string)
        (typed, string) = try data.names(\.department != data.sales, "WHERE department <> ?", [data.sales.id])
        #expect(typed == ["ADAM", "axb", "élan"] && typed == string)
        #expect(try data.names(.in(\.department, [R19QDept]()), "WHERE 0").0.isEmpty)
        // Bound, as the key.
        let (sql, arguments) = try data.sql(\R19QEmployee.department == data.tech)
        #expect(sql == "\"department\" = ?" && arguments == [.integer(data.tech.id)])
        // An unsaved object has no key: an error naming the property, not a match on NULL.
        let error = try #require(throws: ModelError.self) { _ = try temp.db.objects(R19QEmployee.self, where: \.department == R19QDept()) }
        #expect(error.kind == .unsavedRelated && error.property == "department")
    }

    @Test func conditionsThroughAReferenceAreSubqueriesOneLevelAndTwo() throws {
        let temp = try TemporaryDatabase()
        let data = try R19QData(temp.db)
        var (typed, string) = try data.names(.through(\.department, \.name == "Tech"),
                                             "WHERE department IN (SELECT id FROM r19q_dept WHERE name = ?)", ["Tech"])
        #expect(typed == ["ADAM", "axb", "élan"] && typed == string)
        (typed, string) = try data.names(.through(\.department, .through(\.site, \.city == "Paris")),
                                         "WHERE department IN (SELECT id FROM r19q_dept WHERE site IN (SELECT id FROM r19q_site WHERE city = ?))", ["Paris"])
        #expect(typed == ["Ada", "Bob 50%", "back\\slash"] && typed == string)
        let (sql, arguments) = try data.sql(QueryCondition<R19QEmployee>.through(\.department, \.name == "Tech"))
        #expect(sql == "\"department\" IN (SELECT \"id\" FROM \"r19q_dept\" WHERE \"name\" = ?)" && arguments == [.text("Tech")])
    }

    @Test func conditionsOverChildrenAreExistsSubqueries() throws {
        let temp = try TemporaryDatabase()
        let data = try R19QData(temp.db)
        let typed = try temp.db.objects(R19QDept.self, where: .any(\.$staff, \.age > 40), orderBy: .ascending(\.id)).map(\.name)
        let string = try temp.db.objects(R19QDept.self, where: "WHERE EXISTS (SELECT 1 FROM r19q_employee e WHERE e.department = r19q_dept.id AND e.age > ?) ORDER BY id", 40).map(\.name)
        #expect(typed == ["Tech"] && typed == string)
        let anyStaff = try temp.db.objects(R19QDept.self, where: !.any(\.$staff, \.age > 0)).map(\.name)
        #expect(anyStaff == ["Empty"])
        _ = data.staff
    }

    @Test func textMatchesEscapeTheirWildcardsAndFollowLikesCaseRule() throws {
        let temp = try TemporaryDatabase()
        let data = try R19QData(temp.db)
        // `%`, `_` and `\` match themselves: "a_b" does not find "axb", "50%" not "50x".
        var (typed, string) = try data.names((\R19QEmployee.name).contains("a_b"), "WHERE name LIKE ? ESCAPE '\\'", ["%a\\_b%"])
        #expect(typed == ["a_b"] && typed == string)
        (typed, string) = try data.names(.hasSuffix(\.name, "50%"), "WHERE name LIKE ? ESCAPE '\\'", ["%50\\%"])
        #expect(typed == ["Bob 50%"] && typed == string)
        (typed, string) = try data.names(.contains(\.name, "k\\s"), "WHERE name LIKE ? ESCAPE '\\'", ["%k\\\\s%"])
        #expect(typed == ["back\\slash"] && typed == string)
        // ASCII letters without case; other letters with it (LIKE's rule).
        (typed, string) = try data.names(.hasPrefix(\.name, "ad"), "WHERE name LIKE ?", ["ad%"])
        #expect(typed == ["Ada", "ADAM"] && typed == string)
        (typed, string) = try data.names(.hasPrefix(\.name, "él"), "WHERE name LIKE ?", ["él%"])
        #expect(typed == ["élan"] && typed == string)
        // Case-sensitive: bytes.
        (typed, string) = try data.names(.hasPrefix(\.name, "Ad", caseSensitive: true), "WHERE name GLOB ?", ["Ad*"])
        #expect(typed == ["Ada"] && typed == string)
        (typed, string) = try data.names(.hasSuffix(\.name, "AM", caseSensitive: true), "WHERE name GLOB ?", ["*AM"])
        #expect(typed == ["ADAM"] && typed == string)
        (typed, string) = try data.names(.contains(\.email, "example", caseSensitive: true), "WHERE instr(email, ?) > 0", ["example"])
        #expect(typed == ["Ada", "a_b", "back\\slash", "Élodie"] && typed == string)
        // A collated comparison.
        (typed, string) = try data.names(.equals(\.name, "adam", collate: .nocase), "WHERE name = ? COLLATE NOCASE", ["adam"])
        #expect(typed == ["ADAM"] && typed == string)
        let (sql, arguments) = try data.sql((\R19QEmployee.name).contains("50%"))
        #expect(sql == "\"name\" LIKE ? ESCAPE '\\'" && arguments == [.text("%50\\%%")])
    }

    @Test func offsetSeveralOrderingsAndNullsPlacement() throws {
        let temp = try TemporaryDatabase()
        _ = try R19QData(temp.db)
        let typed = try temp.db.objects(R19QEmployee.self, where: \.age > 20,
                                        orderBy: .ascending(\.email, nulls: .last).then(.descending(\.age)), limit: 3, offset: 2).map(\.name)
        let string = try temp.db.objects(R19QEmployee.self, where: "WHERE age > ? ORDER BY email IS NULL, email, age DESC LIMIT 3 OFFSET 2", 20).map(\.name)
        #expect(typed == ["Bob 50%", "Élodie", "axb"] && typed == string)
        let first = try temp.db.objects(R19QEmployee.self, where: \.age > 0, orderBy: .descending(\.email, nulls: .first).then(.ascending(\.name, collate: .nocase)), offset: 5).map(\.name)
        let firstString = try temp.db.objects(R19QEmployee.self, where: "WHERE age > 0 ORDER BY email IS NOT NULL, email DESC, name COLLATE NOCASE LIMIT -1 OFFSET 5").map(\.name)
        #expect(first == ["Bob 50%", "Ada", "a_b"] && first == firstString)
    }

    @Test func aggregatesOverAKeyPathWithACondition() throws {
        let temp = try TemporaryDatabase()
        let data = try R19QData(temp.db)
        let db = temp.db
        #expect(try db.sum(\R19QEmployee.age, where: \.department == data.sales) == 80)
        #expect(try db.sum(\R19QEmployee.age, where: \.department == data.sales) == db.value(Int.self, "SELECT sum(age) FROM r19q_employee WHERE department = ?", data.sales.id))
        #expect(try db.sum(\R19QEmployee.salary) == 360)
        #expect(try db.sum(\R19QEmployee.age, where: \.age > 100) == nil)
        #expect(try db.minimum(\R19QEmployee.age, where: .hasPrefix(\.name, "a")) == 30)
        #expect(try db.maximum(\R19QEmployee.hired, where: \.department == data.tech) == Date(timeIntervalSince1970: 8_000_000))
        #expect(try db.average(\R19QEmployee.salary, where: \.department == nil) == 55)
        #expect(try db.average(\R19QEmployee.salary, where: \.department == nil) == db.value(Double.self, "SELECT avg(salary) FROM r19q_employee WHERE department IS NULL"))
        #expect(try db.count(R19QEmployee.self, where: .through(\.department, \.name == "Sales")) == 3)
        #expect(try db.exists(R19QEmployee.self, where: \.name == "Ada"))
        #expect(try !db.exists(R19QEmployee.self, where: \.name == "Zed"))
    }

    @Test func observableModelsInComparisonsAndOrders() throws {
        let temp = try TemporaryDatabase()
        for (title, stars) in [("b", 2), ("a", 5), ("c", 5)] {
            let note = R19QNote()
            note.title = title; note.stars = stars
            try temp.db.save(note)
        }
        let typed = try temp.db.objects(R19QNote.self, where: \.stars == 5 || \.title == "b", orderBy: .descending(\.stars).then(.ascending(\.title))).map(\.title)
        let string = try temp.db.objects(R19QNote.self, where: "WHERE stars = ? OR title = ? ORDER BY stars DESC, title", 5, "b").map(\.title)
        #expect(typed == ["a", "c", "b"] && typed == string)
        #expect(try temp.db.count(R19QNote.self, where: \.title != "a") == 2)
    }

    @Test func observableModelsInKeyPathQueries() throws {
        let temp = try TemporaryDatabase()
        let data = try R19QData(temp.db)
        for (title, stars) in [("b", 2), ("a", 5), ("c", 5)] {
            let note = R19QNote()
            note.title = title; note.stars = stars; note.author = data.staff[0]
            try temp.db.save(note)
        }
        let typed = try temp.db.objects(R19QNote.self, where: \.stars == 5 && .hasPrefix(\.title, "a") || \.title == "b",
                                        orderBy: .descending(\.stars).then(.ascending(\.title))).map(\.title)
        let string = try temp.db.objects(R19QNote.self, where: "WHERE (stars = ? AND title LIKE ?) OR title = ? ORDER BY stars DESC, title", 5, "a%", "b").map(\.title)
        #expect(typed == ["a", "b"] && typed == string)
        #expect(try temp.db.count(R19QNote.self, where: \.author == data.staff[0]) == 3)
        #expect(try temp.db.sum(\R19QNote.stars) == 12)
    }
}
