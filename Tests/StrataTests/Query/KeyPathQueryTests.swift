import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class KPPerson: Model {
    static let columnNames = ["birthYear": "birth_year"]
    static let persistentProperties = ["id", "name", "birthYear", "email", "joined", "tags"]
    var id: Int64 = 0
    var name = ""
    var birthYear = 0
    var email: String?
    var joined = Date(timeIntervalSince1970: 0)
    var tags: [String] = []
    var nickname: String { name.lowercased() }
    var scratch = 0
    required init() {}
}

@Suite struct KeyPathQueryTests {
    private func people() throws -> TestDatabase {
        let temp = try TestDatabase()
        for (index, name) in ["Ada", "Grace", "Edsger", "Barbara"].enumerated() {
            let person = KPPerson()
            person.name = name
            person.birthYear = 1815 + index * 40
            person.email = index == 2 ? nil : "\(name.lowercased())@example.com"
            person.joined = Date(timeIntervalSince1970: Double(index) * 86_400)
            person.tags = index == 0 ? ["math"] : []
            try temp.db.save(person)
        }
        return temp
    }

    @Test func conditionsCompileToBoundSQLThroughColumnNames() throws {
        let temp = try people()
        let db = temp.db
        let log = StatementLog(db)
        #expect(try db.objects(KPPerson.self, where: \.birthYear > 1850, orderBy: .ascending(\.name)).map(\.name) == ["Barbara", "Edsger", "Grace"])
        #expect(log.statements.last.map(TestEngine.questionMarks) == #"SELECT "KPPerson"."id", "KPPerson"."name", "KPPerson"."birth_year", "KPPerson"."email", "KPPerson"."joined", "KPPerson"."tags" FROM "KPPerson" WHERE "birth_year" > ? ORDER BY "name""#)
        #expect(try db.objects(KPPerson.self, where: \.email == nil).map(\.name) == ["Edsger"])
        #expect(try db.objects(KPPerson.self, where: \.email != nil && \.birthYear <= 1855, orderBy: .descending(\.birthYear)).map(\.name) == ["Grace", "Ada"])
        #expect(try db.objects(KPPerson.self, where: (\KPPerson.name).in(["Ada", "Barbara", "Nobody"]), orderBy: .ascending(\.id)).map(\.name) == ["Ada", "Barbara"])
        #expect(try db.objects(KPPerson.self, where: (\KPPerson.name).in([])).isEmpty)
        #expect(try db.count(KPPerson.self, where: !(\.name == "Ada")) == 3)
        #expect(try db.count(KPPerson.self, where: \.birthYear < 1850 || \.birthYear >= 1935) == 2)
        #expect(try db.first(KPPerson.self, where: \.birthYear >= 1800, orderBy: .descending(\.birthYear))?.name == "Barbara")
        #expect(try db.objects(KPPerson.self, orderBy: .descending(\.birthYear).then(.ascending(\.name)), limit: 2).map(\.name) == ["Barbara", "Edsger"])
        #expect(try db.objects(KPPerson.self, where: \.tags == ["math"]).map(\.name) == ["Ada"], "an array compares as its JSON")
        #expect(try db.deleteAll(KPPerson.self, where: \.name == "Barbara") == 1)
        #expect(try db.count(KPPerson.self, where: \.name == "Barbara") == 0)
    }

    // PostgreSQL: the test rewrites the column with SQLite's functions (strftime, typeof)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's functions in the test (strftime, typeof)")) func valuesAreBoundInTheColumnsStoredFormat() throws {
        let temp = try people()
        let db = temp.db
        // A column holding dates as text (another tool's format): the condition's date is converted.
        try db.execute("UPDATE KPPerson SET joined = strftime('%Y-%m-%d %H:%M:%S', joined, 'unixepoch')")
        let reopened = try temp.reopen()
        #expect(try reopened.value(String.self, "SELECT typeof(joined) FROM KPPerson LIMIT 1") == "text")
        let after = try reopened.objects(KPPerson.self, where: \.joined >= Date(timeIntervalSince1970: 86_400 * 2), orderBy: .ascending(\.id))
        #expect(after.map(\.name) == ["Edsger", "Barbara"])
    }

    @Test func aKeyPathThatIsNotAPersistentPropertyIsAClearError() throws {
        let temp = try people()
        let computed = try #require(throws: ModelError.self) { try temp.db.objects(KPPerson.self, where: \.nickname == "ada") }
        #expect(computed.kind == .unknownProperty)
        #expect(computed.message.contains("does not name a persistent stored property"))
        let notPersistent = try #require(throws: ModelError.self) { try temp.db.objects(KPPerson.self, where: \.scratch == 1) }
        #expect(notPersistent.kind == .unknownProperty)
    }
}
