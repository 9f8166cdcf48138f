import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Models declared over tables other tools made (../shared/fixtures, see its README), always on a copy.
// Expected values were read with `sqlite3 -readonly FILE` when these tests were written.

// MARK: GYDataCenterTests.db

private final class FxGYEmployee: Model {
    static let tableName = "Employee"
    static let primaryKey = "employeeId"
    static let persistentProperties: [String] = ["employeeId", "name", "dateOfBirth", "department"]
    var employeeId: Int64 = 0
    var name = ""
    var dateOfBirth: Date?
    var department: Int64?
    var scratch = 0
    required init() {}
}

private final class FxGYDepartment: Model {
    static let tableName = "Department"
    static let primaryKey = "departmentId"
    var departmentId: Int64 = 0
    var doubleProperty = 0.0
    var floatProperty = 0.0
    var stringProperty: String?
    var mutableStringProperty: String?
    var intProperty = 0
    var dateProperty: Date?
    var charProperty = 0
    var BOOLProperty = false
    var arrayProperty: Data?
    var dataProperty: Data?
    required init() {}
}

// MARK: fcmodel_test.sqlite3

private final class FxFCSimple: Model {
    static let tableName = "SimpleModel"
    static let primaryKey = "uniqueID"
    // FCModel stores dates as seconds since 1970 even in DATETIME columns; an empty DATETIME column would
    // otherwise take the text layout Django, SQLAlchemy and peewee use.
    static let columnFormats: [String: ColumnFormat] = ["date": .native]
    var uniqueID = ""
    var name: String?
    var date: Date?
    var nullableNumberDefault1: Int?
    var lowercase: String?
    var mixedcase = 0
    var typelessTest: String?
    required init() {}
}

/// Leaves out `mixedcase` (Integer NOT NULL, no default): inserts could never succeed.
private final class FxFCSimpleWithoutMixedcase: Model {
    static let tableName = "SimpleModel"
    static let primaryKey = "uniqueID"
    var uniqueID = ""
    var name: String?
    required init() {}
}

// MARK: smodel_test.sqlite3

private final class FxSThing: Model {
    static let tableName = "Thing"
    static let primaryKey = "localId"
    static let uniqueIndices: [[String]] = [["tid"]]  // INDEX_tid serves it
    var localId = ""
    var tid: String?
    var name: String?
    var place: String?
    var other: Int?
    var otherDouble: Double?
    required init() {}
}

private final class FxSAnimal: Model {
    static let tableName = "Animal"
    static let primaryKey = "aid"
    var aid = ""
    var name: String?
    var living = false
    var lastUpdated: Date?
    var ids: [String] = []
    var props: Data?
    required init() {}
}

// MARK: sqlalchemy_blog.sqlite3

private final class FxSAUser: Model {
    static let tableName = "users"
    static let indices: [[String]] = [["email"]]  // ix_users_email serves it
    var id: Int64 = 0
    var username = ""
    var email = ""
    var is_admin = false
    var created_at = Date(timeIntervalSince1970: 0)
    var balance = 0.0
    var avatar: Data?
    var prefs = SQLValue.null   // JSON: NUMERIC affinity holding text, so taken as SQLite stores it
    var external_id = ""
    var status = "active"
    var bio: String?
    var karma = 0
    var views: Int64 = 0
    required init() {}
}

private final class FxSAPostWritingGenerated: Model {
    static let tableName = "posts"
    var id: Int64 = 0
    var title = ""
    var body_length: Int?
    required init() {}
}

private final class FxSAPostTag: Model {
    static let tableName = "post_tags"
    static let primaryKey = "post_id"
    var post_id: Int64 = 0
    var tag_id: Int64 = 0
    required init() {}
}

// MARK: Helpers

private func copy(_ file: String) throws -> TemporaryDatabase {
    let path = try #require(Fixtures.path(file))
    try #require(FileManager.default.fileExists(atPath: path), "missing fixture \(file)")
    return try TemporaryDatabase(copying: path)
}

private func indexSQL(_ db: Database) throws -> [String] {
    try db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").map { $0.values.map(\.description).joined(separator: " ") }
}

@Suite(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
struct ExistingDatabaseTests {
    @Test func gyDataCenterEmployeesAndDepartment() throws {
        let temp = try copy("GYDataCenterTests.db")
        let db = temp.db
        let before = try schemaSnapshot(db)
        let employees = try db.objects(FxGYEmployee.self, where: "ORDER BY employeeId")
        #expect(employees.map(\.employeeId) == [1, 2, 3])
        #expect(employees.map(\.name) == ["Emp1", "Emp2", "Emp3"])
        #expect(employees.map(\.dateOfBirth) == [nil, nil, nil])   // stored as NULL by GYDataCenter's tests
        #expect(employees.map(\.department) == [1, 1, 1])
        #expect(try schemaSnapshot(db) == before)   // the model fits: nothing to change

        let department = try #require(try db.object(FxGYDepartment.self, forKey: employees[0].department ?? 0))
        #expect(department.doubleProperty == -1.1)
        #expect(department.floatProperty == Double(Float(1.1)))   // a Float stored as REAL
        #expect(department.stringProperty == "abc" && department.mutableStringProperty == "def")
        #expect(department.intProperty == -1 && department.charProperty == 97)
        #expect(department.dateProperty == nil && department.BOOLProperty == false)
        #expect(department.dataProperty == nil)
        #expect(department.arrayProperty?.starts(with: Array("bplist00".utf8)) == true)

        // Save: AUTOINCREMENT continues from sqlite_sequence; REAL seconds since 1970 for dates.
        let born = Date(timeIntervalSince1970: 315_532_800.25)
        let newcomer = FxGYEmployee(); newcomer.name = "Emp4"; newcomer.dateOfBirth = born; newcomer.department = 1
        try db.save(newcomer)
        #expect(newcomer.employeeId == 4)
        #expect(try db.value(Double.self, "SELECT dateOfBirth FROM Employee WHERE employeeId = 4") == 315_532_800.25)
        employees[1].name = "Emp2 renamed"
        try db.save(employees[1])

        let fresh = try temp.reopen()
        #expect(try fresh.schemaPlan(for: FxGYEmployee.self).isEmpty)
        #expect(try fresh.schemaPlan(for: FxGYDepartment.self).isEmpty)
        let reread = try fresh.objects(FxGYEmployee.self, where: "ORDER BY employeeId")
        #expect(reread.map(\.name) == ["Emp1", "Emp2 renamed", "Emp3", "Emp4"])
        #expect(reread[3].dateOfBirth == born)
        #expect(try schemaSnapshot(fresh) == before)
    }

    @Test func fcmodelTables() throws {
        let temp = try copy("fcmodel_test.sqlite3")
        let db = temp.db
        // A partial model (it leaves out the NOT NULL column "mixedcase", which has no default) reads and
        // plans nothing; only its inserts are refused, naming the column.
        #expect(try db.schemaPlan(for: FxFCSimpleWithoutMixedcase.self).isEmpty)
        #expect(try db.objects(FxFCSimpleWithoutMixedcase.self).isEmpty)
        let missing = try #require(throws: ModelError.self) {
            let partial = FxFCSimpleWithoutMixedcase(); partial.uniqueID = "p"
            try db.save(partial)
        }
        #expect(missing.kind == .missingColumns && missing.properties == ["mixedcase"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM SimpleModel") == 0)

        let before = try schemaSnapshot(db)
        let simple = FxFCSimple()
        simple.uniqueID = "u1"; simple.name = "one"; simple.date = Date(timeIntervalSince1970: 1_000)
        simple.mixedcase = 3; simple.typelessTest = "anything"
        try db.save(simple)
        let row = try #require(try db.rows("SELECT * FROM SimpleModel").first)
        // Columns the model leaves out take the table's defaults, including the string 'NULL'.
        #expect(row["textDefaultNullString"] == .text("NULL"))
        #expect(row["textDefaultNullLiteral"] == .null)
        // Mapped, and still holding its init() value (nil): the column's DEFAULT 1 applies (FCModel's rule),
        // and the instance holds what was stored.
        #expect(row["nullableNumberDefault1"] == .integer(1))
        #expect(simple.nullableNumberDefault1 == 1)
        #expect(row["date"] == .integer(1_000))            // DATETIME is NUMERIC affinity: 1000.0 is kept as 1000
        #expect(row["typelessTest"] == .text("anything"))

        let simpler = FxFCSimpler(); simpler.title = "t"
        try db.save(simpler)
        #expect(simpler.id == 1)
        let advanced = FxFCAdvanced(); advanced.uniqueID = "a"; advanced.url = URL(string: "https://example.org/x?y=1")
        try db.save(advanced)
        #expect(try schemaSnapshot(db) == before)

        let fresh = try temp.reopen()
        for plan in [try fresh.schemaPlan(for: FxFCSimple.self), try fresh.schemaPlan(for: FxFCSimpler.self),
                     try fresh.schemaPlan(for: FxFCAdvanced.self)] {
            #expect(plan.isEmpty)
        }
        let reread = try #require(try fresh.object(FxFCSimple.self, forKey: "u1"))
        #expect(reread.name == "one" && reread.date == Date(timeIntervalSince1970: 1_000) && reread.mixedcase == 3)
        #expect(reread.nullableNumberDefault1 == 1 && reread.typelessTest == "anything")
        #expect(try fresh.object(FxFCSimpler.self, forKey: 1)?.title == "t")
        #expect(try fresh.object(FxFCAdvanced.self, forKey: "a")?.url?.absoluteString == "https://example.org/x?y=1")
    }

    @Test func smodelTablesWithTextKeysAndTheirIndices() throws {
        let temp = try copy("smodel_test.sqlite3")
        let db = temp.db
        let indicesBefore = try indexSQL(db)
        let plan = try db.schemaPlan(for: FxSThing.self)
        #expect(plan.isEmpty)   // INDEX_tid already is a unique index on tid

        let thing = FxSThing(); thing.localId = "L1"; thing.tid = "T1"; thing.name = "thing"; thing.other = 2; thing.otherDouble = 2.5
        try db.save(thing)
        let twin = FxSThing(); twin.localId = "L2"; twin.tid = "T1"
        let violation = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(violation.kind == .duplicateKey)
        #expect(violation.properties == ["tid"])
        #expect(violation.key == .text("L1"))                 // the row it would duplicate
        #expect(violation.message.contains("UNIQUE"))
        #expect(!twin.isPersisted)

        let animal = FxSAnimal(); animal.aid = "cat"; animal.living = true; animal.ids = ["a", "b"]
        animal.lastUpdated = Date(timeIntervalSince1970: 12.5); animal.props = Data([0, 1])
        try db.save(animal)
        let person = FxSPerson(); person.name = "Ada"; person.age = 36; person.active = true
        try db.save(person)
        #expect(try indexSQL(db) == indicesBefore)

        let fresh = try temp.reopen()
        #expect(try fresh.schemaPlan(for: FxSThing.self).isEmpty)
        #expect(try fresh.schemaPlan(for: FxSAnimal.self).isEmpty)
        #expect(try fresh.schemaPlan(for: FxSPerson.self).isEmpty)
        let rereadThing = try #require(try fresh.object(FxSThing.self, forKey: "L1"))
        #expect(rereadThing.tid == "T1" && rereadThing.other == 2 && rereadThing.otherDouble == 2.5 && rereadThing.place == nil)
        let rereadAnimal = try #require(try fresh.first(FxSAnimal.self, where: "WHERE aid = ?", "cat"))
        #expect(rereadAnimal.living && rereadAnimal.ids == ["a", "b"] && rereadAnimal.props == Data([0, 1]))
        #expect(rereadAnimal.lastUpdated == Date(timeIntervalSince1970: 12.5))
        let rereadPerson = try #require(try fresh.object(FxSPerson.self, forKey: person.id))
        #expect(rereadPerson.name == "Ada" && rereadPerson.age == 36 && rereadPerson.active)
        #expect(try indexSQL(fresh) == indicesBefore)
    }

    @Test func sqlalchemyBlogTables() throws {
        let temp = try copy("sqlalchemy_blog.sqlite3")
        let db = temp.db
        let indicesBefore = try indexSQL(db)

        let users = try db.objects(FxSAUser.self, where: "ORDER BY id")
        #expect(users.map(\.username) == ["alice", "Bob", "carol"])
        #expect(users.map(\.is_admin) == [true, false, false])
        #expect(users.map(\.balance) == [1234.5, -0.01, 5])
        #expect(abs(users[0].created_at.timeIntervalSince1970 - 1_577_934_245.678901) < 0.000_01)
        #expect(users[1].created_at.timeIntervalSince1970 == 946_684_799)
        #expect(users[0].prefs == .text(#"{"theme": "dark", "n": 3}"#))
        #expect(users[1].prefs == .text("null"))   // JSON null, beside SQL NULL
        #expect(users[2].prefs == .null)
        #expect(users[2].external_id == "0123456789abcdef0123456789abcdef")
        #expect(users.map(\.status) == ["active", "banned", "active"])

        let posts = try db.objects(FxSAPost.self, where: "ORDER BY id")
        #expect(posts.map(\.title) == ["Hello", "Draft", "Hello"])
        #expect(posts[0].published_on == Date(timeIntervalSince1970: 1_578_009_600))
        #expect(posts[0].updated_at == Date(timeIntervalSince1970: 1_578_052_800))
        #expect(posts[1].published_on == nil && posts[1].body == nil)
        #expect(abs((posts[2].updated_at?.timeIntervalSince1970 ?? 0) - 1_625_040_930.25) < 0.000_01)

        let events = try db.objects(FxSAEvent.self)   // a STRICT table
        #expect(events.map(\.kind) == ["login"])
        #expect(events.first?.at == Date(timeIntervalSince1970: 1_577_934_245.5))
        #expect(events.first?.payload == Data("{}".utf8))

        let settings = try db.objects(FxSASetting.self, where: "ORDER BY key")   // a WITHOUT ROWID table
        #expect(settings.map(\.key) == ["empty", "schema_owner"])
        #expect(settings.map(\.value) == [nil, "sqlalchemy"])
        #expect(try db.object(FxSASetting.self, forKey: "schema_owner") === settings[1])

        #expect(try db.objects(FxSATag.self, where: "ORDER BY id").map(\.name) == ["sqlite", "orm"])

        // Models that cannot fit are errors, with nothing changed.
        let composite = try #require(throws: SchemaError.self) { try db.objects(FxSAPostTag.self) }
        #expect(composite.table == "post_tags")
        #expect(composite.found.contains("post_id") && composite.found.contains("tag_id"))
        // A generated column is read, never written.
        let withLength = try db.objects(FxSAPostWritingGenerated.self, where: "ORDER BY id")
        #expect(withLength.map(\.body_length) == [posts[0].body.map { $0.count }, nil, posts[2].body.map { $0.count }])
        withLength[0].body_length = 99
        let refused = try #require(throws: ModelError.self) { try db.save(withLength[0]) }
        #expect(refused.kind == .readOnly && refused.property == "body_length")

        // Saving rows.
        let dave = FxSAUser(); dave.username = "dave"; dave.email = "dave@example.org"; dave.balance = 10.25
        dave.created_at = Date(timeIntervalSince1970: 1_700_000_000); dave.external_id = "ffffffffffffffffffffffffffffffff"
        try db.save(dave)
        #expect(dave.id == 4)
        let post = FxSAPost(); post.user_id = dave.id; post.title = "Mine"; post.body = "abcd"
        try db.save(post)
        #expect(post.id == 4)
        #expect(try db.value(Int.self, "SELECT body_length FROM posts WHERE id = 4") == 4)
        let event = FxSAEvent(); event.kind = "logout"; event.at = Date(timeIntervalSince1970: 1.5)
        try db.save(event)
        settings[0].value = "now set"
        try db.save(settings[0])
        let setting = FxSASetting(); setting.key = "new"; setting.value = "v"
        try db.save(setting)
        try db.execute("UPDATE $T SET value = 'raw' WHERE $PK = ?", for: FxSASetting.self, "new")
        // SQLite does not call the update hook for WITHOUT ROWID tables; Strata reloads their live instances
        // after raw SQL that changed rows.
        #expect(setting.value == "raw")
        try db.execute("DELETE FROM $T WHERE $PK = ?", for: FxSASetting.self, "new")
        #expect(setting.isDeleted)
        try db.delete(settings[1])
        #expect(settings[1].isDeleted)
        users[0].karma = 42
        try db.save(users[0])
        #expect(try indexSQL(db) == indicesBefore)

        let fresh = try temp.reopen()
        for plan in [try fresh.schemaPlan(for: FxSAUser.self), try fresh.schemaPlan(for: FxSAPost.self),
                     try fresh.schemaPlan(for: FxSAEvent.self), try fresh.schemaPlan(for: FxSASetting.self),
                     try fresh.schemaPlan(for: FxSATag.self)] {
            #expect(plan.isEmpty)
        }
        let reread = try #require(try fresh.object(FxSAUser.self, forKey: 4))
        #expect(reread.username == "dave" && reread.balance == 10.25 && reread.prefs == .null)
        #expect(reread.created_at == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try fresh.object(FxSAUser.self, forKey: 1)?.karma == 42)
        #expect(try fresh.objects(FxSASetting.self, where: "ORDER BY key").map(\.value) == ["now set"])
        #expect(try fresh.count(FxSAEvent.self) == 2)
        #expect(try fresh.object(FxSAPost.self, forKey: 4)?.title == "Mine")
        #expect(try indexSQL(fresh) == indicesBefore)
    }

    @Test func otherToolsIndicesSurviveAModelThatDeclaresNone() throws {
        let temp = try copy("sqlalchemy_blog.sqlite3")
        let before = try indexSQL(temp.db)
        final class BareUser: Model {
            static var tableName: String { "users" }
            var id: Int64 = 0
            var username = ""
            var email = ""
            var balance = 0.0
            var external_id = ""
            var status = "active"
            required init() {}
        }
        #expect(try temp.db.syncSchema(BareUser.self).isEmpty)
        #expect(try indexSQL(temp.db) == before)
        let bare = BareUser(); bare.username = "eve"; bare.email = "e@x"
        try temp.db.save(bare)
        // The columns it leaves out have database defaults (is_admin, created_at, karma, views) or are nullable.
        let row = try #require(try temp.db.rows("SELECT is_admin, karma, created_at FROM users WHERE username = 'eve'").first)
        #expect(row["is_admin"] == .integer(0) && row["karma"] == .integer(0))
        #expect(row["created_at"] != .null)
        #expect(try temp.db.syncSchema(BareUser.self).isEmpty)
        #expect(try indexSQL(temp.db) == before)
    }
}
