import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Real databases written by other tools (../shared/fixtures, see its README). Each test opens a copy, so
// the originals are never touched; without the folder the suite is skipped.

/// What one fixture holds, as counted with `sqlite3 -readonly FILE` when these tests were written.
struct FixtureContents: Sendable, CustomTestStringConvertible {
    let file: String
    /// `SELECT count(*) FROM sqlite_master WHERE type = 'table'` (sqlite_sequence included).
    let tables: Int
    /// The sum of `SELECT count(*)` over those tables.
    let rows: Int

    var testDescription: String { "\(file) (\(tables) tables, \(rows) rows)" }

    static let all: [FixtureContents] = [
        FixtureContents(file: "GYDataCenterTests.db", tables: 3, rows: 6),
        FixtureContents(file: "fcmodel_test.sqlite3", tables: 3, rows: 0),
        FixtureContents(file: "smodel_test.sqlite3", tables: 7, rows: 0),
        FixtureContents(file: "familysearch_app.sqlite3", tables: 51, rows: 0),
        FixtureContents(file: "sqlalchemy_blog.sqlite3", tables: 7, rows: 15),
        FixtureContents(file: "sqlalchemy_blog_v1.sqlite3", tables: 7, rows: 15),
        FixtureContents(file: "peewee_notes.sqlite3", tables: 5, rows: 12),
        FixtureContents(file: "peewee_notes_v1.sqlite3", tables: 5, rows: 12),
        FixtureContents(file: "grdb_ProfilingDatabase.sqlite", tables: 1, rows: 100_000),
    ]
}

private func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// A copy of the fixture in its own temporary folder.
private func openCopy(_ file: String) throws -> TemporaryDatabase {
    let path = try #require(Fixtures.path(file))
    try #require(FileManager.default.fileExists(atPath: path), "missing fixture \(file)")
    let copy = try TemporaryDatabase(copying: path)
    #expect(copy.path != path)
    return copy
}

@Suite(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
struct FixtureTests {
    @Test(arguments: FixtureContents.all)
    func readsEveryTableOfACopy(_ fixture: FixtureContents) throws {
        let original = try #require(Fixtures.path(fixture.file))
        let originalBytes = try #require(FileManager.default.contents(atPath: original))
        do {
            let copy = try openCopy(fixture.file)
            let db = copy.db
            let tables = try db.column(String.self, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(tables.count == fixture.tables)
            #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == fixture.tables)

            var total = 0
            for table in tables {
                let rows = try db.rows("SELECT * FROM \(quoted(table))")
                let count = try #require(try db.value(Int.self, "SELECT count(*) FROM \(quoted(table))"))
                #expect(rows.count == count, "table \(table)")
                if let first = rows.first {
                    #expect(first.values.count == first.columnNames.count, "table \(table)")
                    #expect(rows.allSatisfy { $0.columnNames == first.columnNames }, "table \(table)")
                }
                total += rows.count
            }
            #expect(total == fixture.rows)
        }
        // The original is untouched and has no side files.
        #expect(FileManager.default.contents(atPath: original) == originalBytes)
        #expect(!FileManager.default.fileExists(atPath: original + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: original + "-journal"))
    }

    @Test func fixtureListIsComplete() throws {
        let folder = try #require(Fixtures.folder)
        let databases = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".db") || $0.hasSuffix(".sqlite") || $0.hasSuffix(".sqlite3") }
        #expect(Set(databases).isSuperset(of: FixtureContents.all.map(\.file)))
    }

    @Test func gyDataCenterEmployeesAndDepartment() throws {
        let copy = try openCopy("GYDataCenterTests.db")
        let db = copy.db
        #expect(try db.value(Int.self, "SELECT count(*) FROM Employee") == 3)
        #expect(try db.value(Int.self, "SELECT count(*) FROM Department") == 1)

        let employees = try db.rows("SELECT * FROM Employee ORDER BY employeeId")
        try #require(employees.count == 3)
        #expect(employees[0].columnNames == ["employeeId", "dateOfBirth", "department", "name"])
        #expect(try employees.map { try $0.decode("name", as: String.self) } == ["Emp1", "Emp2", "Emp3"])
        #expect(try employees.map { try $0.decode("employeeId", as: Int64.self) } == [1, 2, 3])
        // The department column holds the related primary key.
        #expect(try employees.map { try $0.decode("department", as: Int.self) } == [1, 1, 1])

        // The GYDataCenter test suite saved these employees without a birth date: the REAL column holds NULL
        // (`sqlite3 -readonly GYDataCenterTests.db "SELECT typeof(dateOfBirth) FROM Employee"` → null).
        let first = employees[0]
        #expect(first["dateOfBirth"] == .null)
        #expect(try first.decode("dateOfBirth", as: Date?.self) == nil)
        let error = try #require(throws: ValueConversionError.self) { try first.decode("dateOfBirth", as: Date.self) }
        #expect(error.column == "dateOfBirth")
        #expect(error.found == .null)

        // The Department row holds one value of each property kind GYDataCenter supports.
        let department = try #require(try db.rows("SELECT * FROM Department").first)
        #expect(try department.decode("departmentId", as: Int.self) == 1)
        #expect(try department.decode("BOOLProperty", as: Bool.self) == false)
        #expect(try department.decode("booleanProperty", as: Bool.self) == false)
        #expect(try department.decode("charProperty", as: UInt8.self) == 97)
        #expect(try department.decode("intProperty", as: Int32.self) == -1)
        #expect(try department.decode("longLongProperty", as: Int64.self) == -666_666)
        #expect(try department.decode("longProperty", as: Int.self) == -4444)
        #expect(try department.decode("shortProperty", as: Int16.self) == -333)
        #expect(try department.decode("stringProperty", as: String.self) == "abc")
        #expect(try department.decode("mutableStringProperty", as: String.self) == "def")
        #expect(try department.decode("unsignedLongLongProperty", as: UInt64.self) == 7_777_777)
        #expect(try department.decode("unsignedLongProperty", as: UInt.self) == 55_555)
        #expect(try department.decode("unsignedProperty", as: UInt32.self) == 22)
        #expect(try department.decode("doubleProperty", as: Double.self) == -1.1)
        // A Float saved through a double column (1.10000002384186 as the sqlite3 shell prints it) is the
        // float 1.1 widened, and reads back as the float 1.1.
        #expect(department["floatProperty"] == .real(Double(Float(1.1))))
        #expect(try department.decode("floatProperty", as: Float.self) == Float(1.1))
        #expect(try department.decode("dateProperty", as: Date?.self) == nil)
        #expect(try department.decode("dataProperty", as: Data?.self) == nil)
        // The array is a binary property list, opaque to Strata: it reads as bytes.
        let plist = try department.decode("arrayProperty", as: Data.self)
        #expect(plist.count == 243)
        #expect(plist.prefix(8) == Data("bplist00".utf8))
        #expect(throws: ValueConversionError.self) { try department.decode("arrayProperty", as: [String].self) }
    }

    @Test func peeweeTimestampsAndHexUUIDs() throws {
        let copy = try openCopy("peewee_notes.sqlite3")
        let db = copy.db
        // DATETIME text, before 1970 and with microseconds (expected: sqlite3 strftime('%s', created)).
        let created = try db.column(Date.self, "SELECT created FROM note ORDER BY id")
        let expected = [-3_992_112_000, 1_609_459_200.000001, -334_454_400]
        try #require(created.count == expected.count)
        for (date, seconds) in zip(created, expected) {
            #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6, "\(date.timeIntervalSince1970) != \(seconds)")
        }
        #expect(try db.column(Int64.self, "SELECT big FROM note ORDER BY id") == [-4_611_686_018_427_387_904, 0, 0])
        #expect(try db.column(Double.self, "SELECT ratio FROM note ORDER BY id") == [0.5, 0, 1e-300])

        let authors = try db.rows("SELECT * FROM author ORDER BY id")
        try #require(authors.count == 2)
        #expect(try authors[0].decode("ext_id", as: UUID.self) == UUID(uuidString: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"))
        #expect(try authors[1].decode("ext_id", as: UUID.self) == UUID(uuidString: "12345678-0000-0000-0000-000000000000"))
        // TimestampField: INTEGER seconds.
        #expect(try authors[0].decode("last_seen", as: Date?.self)?.timeIntervalSince1970 == 1_589_716_800)
        #expect(try authors[1].decode("last_seen", as: Date?.self) == nil)
        #expect(abs(try authors[0].decode("joined", as: Date.self).timeIntervalSince1970 - 1_449_739_800.123456) < 1e-6)
        #expect(try authors[0].decode("birthday", as: Date?.self)?.timeIntervalSince1970 == -4_861_728_000)
        // DECIMAL column: REAL 10.5 and INTEGER 3 side by side.
        #expect(try authors.map { try $0.decode("karma", as: Double.self) } == [10.5, 3])
        #expect(try authors.map { try $0.decode("active", as: Bool.self) } == [true, false])
    }

    @Test func sqlalchemyMixedStorageClasses() throws {
        let copy = try openCopy("sqlalchemy_blog.sqlite3")
        let db = copy.db
        let users = try db.rows("SELECT * FROM users ORDER BY id")
        try #require(users.count == 3)
        let createdAt = try users.map { try $0.decode("created_at", as: Date.self).timeIntervalSince1970 }
        #expect(abs(createdAt[0] - 1_577_934_245.678901) < 1e-6)
        #expect(createdAt[1] == 946_684_799)
        #expect(createdAt[2] == 978_307_200)
        // NUMERIC(10, 2): REAL and INTEGER in one column.
        #expect(try users.map { try $0.decode("balance", as: Double.self) } == [1234.5, -0.01, 5])
        #expect(try users.map { try $0.decode("is_admin", as: Bool.self) } == [true, false, false])
        #expect(try users[2].decode("external_id", as: UUID.self) == UUID(uuidString: "01234567-89ab-cdef-0123-456789abcdef"))
        // JSON: an object, the text `null`, and SQL NULL.
        #expect(try users[0].decode("prefs", as: [String: SQLJSONValue].self) == ["theme": .string("dark"), "n": .number(3)])
        #expect(users[1]["prefs"] == .text("null"))
        #expect(try users[2].decode("prefs", as: [String: SQLJSONValue]?.self) == nil)
    }
}

/// A JSON scalar, to decode heterogeneous JSON objects in the fixtures.
enum SQLJSONValue: Codable, Equatable, Sendable {
    case string(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let s): try container.encode(s)
        case .number(let n): try container.encode(n)
        }
    }
}
