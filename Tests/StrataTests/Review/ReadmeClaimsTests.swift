import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The README's snippets and claims (Models, Writes, Relationships, Concurrency), run as written: each
// snippet with the model declarations it shows, on its own temporary database.

/// README "Models".
private enum ModelsSection {
    final class Department: Model {
        var id: Int64 = 0                   // the key: "id" by default; 0 means "let SQLite assign it"
        var name = ""
        required init() {}
    }

    final class Employee: Model {
        static let primaryKey = "employeeId"
        static let persistentProperties = ["employeeId", "name", "dateOfBirth", "department"]  // default: all
        static let indices = [["dateOfBirth"], ["department", "name"]]
        var employeeId: Int64 = 0
        var name = ""
        var dateOfBirth: Date?
        @Reference var department: Department?   // stored as Department's key, loaded when read
        var scratch = 0                           // not listed: never stored
        required init() {}
    }
}

/// README "Relationships".
private enum RelationshipsSection {
    final class Department: Model {
        var id: Int64 = 0
        var name = ""
        @Children(by: "department", orderBy: "name") var employees: [Employee]   // the inverse, never a column
        required init() {}
    }

    final class Employee: Model {
        var id: Int64 = 0
        var name = ""
        @Reference var department: Department?
        @Reference var manager: Employee?
        required init() {}
    }

    final class Loan: Model {
        var id: Int64 = 0
        @Reference(onDelete: .restrict) var side: Employee?
        required init() {}
    }

    final class Tag: Model {
        var id: Int64 = 0
        var name = ""
        required init() {}
    }

    final class Post: Model {
        var id: Int64 = 0
        @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id", orderBy: "name") var tags: [Tag]
        required init() {}
    }

    final class Artist: Model {
        var id: Int64 = 0
        var name = ""
        required init() {}
    }

    final class Album: Model {
        var id: Int64 = 0
        @Reference(onDelete: .cascade) var artist: Artist?     // REFERENCES "Artist" ("id") ON DELETE CASCADE
        @Reference(onDelete: .setNull) var producer: Artist?   // also .restrict, .noAction
        required init() {}
    }
}

/// README "Stored formats": models over tables other tools made.
private enum ConnectionsSection {
    final class Counter: Model {
        var id: Int64 = 0
        var value = 0
        var label = ""
        required init() {}
    }

    final class Member: Model {
        var id: Int64 = 0
        var email = ""
        var name = ""
        required init() {}
    }
}

/// README "Concurrency".
private enum ConcurrencySection {
    final class Department: Model {
        var id: Int64 = 0
        var name = ""
        required init() {}
    }

    final class Employee: Model {
        var id: Int64 = 0
        var name = ""
        var salary = 0
        required init() {}
    }
}

private enum FormatsSection {
    final class Stamp: Model {
        var id: Int64 = 0
        var at = Date(timeIntervalSince1970: 0)
        required init() {}
    }

    final class Token: Model {
        var id: Int64 = 0
        var token = UUID()
        var active = false
        required init() {}
    }

    final class Code: Model {
        var id: Int64 = 0
        var code = SQLValue.null
        required init() {}
    }

    final class Rating: Model {
        var id: Int64 = 0
        var score = 0.0
        var rating = 0.0
        required init() {}
    }
}

@Suite struct ReadmeClaimsTests {
    /// Statements run while `body` runs (BEGIN/COMMIT/SAVEPOINT left out).
    private func statements(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
        var seen: [String] = []
        let trace = db.traceStatements { sql in
            let word = sql.split(separator: " ").first.map { $0.uppercased() } ?? ""
            if !["BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK", "PRAGMA"].contains(word) { seen.append(sql) }
        }
        defer { trace.cancel() }
        try body()
        return seen
    }

    // MARK: Models

    @Test func theModelsSnippetRunsAsWritten() throws {
        typealias Department = ModelsSection.Department
        typealias Employee = ModelsSection.Employee
        let temp = try TemporaryDatabase()
        let db = temp.db
        let sales = Department(); sales.name = "Sales"
        try db.save(sales)                                  // first use: CREATE TABLE "Department"
        let ada = Employee(); ada.name = "Ada"; ada.department = sales
        try db.save(ada)                                    // ada.employeeId now holds the assigned key
        #expect(ada.employeeId == 1)
        let columns = try db.rows("PRAGMA table_info(\"Employee\")").map { try $0.decode("name", as: String.self) }
        #expect(columns == ["employeeId", "name", "dateOfBirth", "department"])

        let staff = try db.objects(Employee.self, where: "WHERE employeeId < ? ORDER BY employeeId", 10)
        let read = statements(db) { #expect(staff[0].department?.name == "Sales") }
        #expect(read.isEmpty, "the live ada holds sales already: \(read)")
        #expect(try db.object(Employee.self, forKey: ada.employeeId) === ada)          // one live instance per row
        try db.execute("UPDATE $T SET name = ? WHERE name = ?", for: Employee.self, "Ada L.", "Ada")
        #expect(ada.name == "Ada L.")
        try db.delete(ada)
        #expect(ada.isDeleted)
    }

    /// "one SELECT on Department, only now": for an employee fetched without its department in memory.
    @Test func aFetchedEmployeesDepartmentIsOneSelectOnFirstRead() throws {
        typealias Department = ModelsSection.Department
        typealias Employee = ModelsSection.Employee
        let temp = try TemporaryDatabase()
        do {
            let sales = Department(); sales.name = "Sales"
            try temp.db.save(sales)
            let ada = Employee(); ada.name = "Ada"; ada.department = sales
            try temp.db.save(ada)
        }
        let db = try temp.reopen()
        try db.syncSchema(Department.self)   // the first use of Department checks its table: not the fault's cost
        let staff = try db.objects(Employee.self, where: "WHERE employeeId < ? ORDER BY employeeId", 10)
        let first = statements(db) { #expect(staff[0].department?.name == "Sales") }
        #expect(first.count == 1, "\(first)")
        #expect(first.first?.contains("\"Department\"") == true)
        let again = statements(db) { _ = staff[0].department?.name }
        #expect(again.isEmpty)
    }

    // MARK: Writes

    @Test func aSaveWritesOnlyTheChangedColumnAndNothingWhenNothingChanged() throws {
        typealias Employee = ModelsSection.Employee
        let temp = try TemporaryDatabase()
        let first = Employee(); first.name = "Ada"
        try temp.db.save(first)
        let db = try temp.reopen()
        let ada = try db.object(Employee.self, forKey: 1)!
        ada.name = "Ada L."
        #expect(ada.changedProperties == ["name"])
        let update = try statements(db) { try db.save(ada) }
        #expect(update == ["UPDATE \"Employee\" SET \"name\" = ? WHERE \"employeeId\" = ?"])
        var all: [String] = []
        let trace = db.traceStatements { all.append($0) }
        try db.save(ada)          // nothing changed: no SQL
        trace.cancel()
        #expect(all.isEmpty, "\(all)")
    }

    @Test func deletingANeverSavedInstanceReturnsFalse() throws {
        let temp = try TemporaryDatabase()
        let never = ModelsSection.Department()
        try temp.db.syncSchema(ModelsSection.Department.self)   // a first use creates the table
        var deleted = true
        let all = try statements(temp.db) { deleted = try temp.db.delete(never) }
        #expect(deleted == false)
        #expect(all.isEmpty)
    }

    @Test func aNewInstanceOverAnExistingKeyIsDuplicateKeyNamingColumnAndKey() throws {
        let temp = try TemporaryDatabase()
        let first = ModelsSection.Department(); first.name = "Sales"
        try temp.db.save(first)
        let other = try Database(path: temp.path)
        let copy = ModelsSection.Department(); copy.id = 1; copy.name = "Copy"
        let error = #expect(throws: ModelError.self) { try other.save(copy) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.properties == ["id"])
        #expect(error?.key == .integer(1))
        #expect(try temp.db.value(String.self, "SELECT name FROM Department WHERE id = 1") == "Sales")
    }

    @Test func anUpdateThatFindsNoRowIsNotFoundOrDeletedAndNeverAnInsert() throws {
        let temp = try TemporaryDatabase()
        let d = ModelsSection.Department(); d.name = "Sales"
        try temp.db.save(d)
        // raw SQL changed its key: the hook reports it, so the handle knows (deleted or not found)
        let other = try Database(path: temp.path)
        try other.execute("DELETE FROM Department")
        d.name = "Sales 2"
        let error = #expect(throws: ModelError.self) { try temp.db.save(d) }
        #expect(error?.kind == .deleted)
        #expect(d.isDeleted)
        #expect(try temp.db.count(ModelsSection.Department.self) == 0)
    }

    // MARK: Stored formats

    /// Saves a new Stamp at `date` into a table made by `create` (holding `rows`), returns the stored value.
    private func stored(_ create: String, _ rows: [String], _ date: Date) throws -> SQLValue {
        let temp = try TemporaryDatabase()
        try temp.db.execute(create)
        for row in rows { try temp.db.execute("INSERT INTO Stamp(at) VALUES (\(row))") }
        let stamp = FormatsSection.Stamp(); stamp.at = date
        try temp.db.save(stamp)
        return try temp.db.rows("SELECT at FROM Stamp WHERE id = ?", stamp.id)[0]["at"] ?? .null
    }

    private let whole = Date(timeIntervalSince1970: 1_600_000_000)            // 2020-09-13 12:26:40 UTC
    private let fraction = Date(timeIntervalSince1970: 1_600_000_000.25)

    @Test func theStoredFormatsTableHolds() throws {
        let django = "CREATE TABLE Stamp(id integer NOT NULL PRIMARY KEY AUTOINCREMENT, at datetime NOT NULL)"
        let python = ["'2001-02-03 04:05:06.789000'", "'2010-06-07 08:09:10'"]
        #expect(try stored(django, python, whole) == .text("2020-09-13 12:26:40"))
        #expect(try stored(django, python, fraction) == .text("2020-09-13 12:26:40.250000"))
        let alchemy = ["'2001-02-03T04:05:06.789000Z'", "'2010-06-07T08:09:10.000000Z'"]
        #expect(try stored(django, alchemy, whole) == .text("2020-09-13T12:26:40.000000Z"))
        let threeDigits = ["'2001-02-03 04:05:06.789'"]
        #expect(try stored(django, threeDigits, fraction) == .text("2020-09-13 12:26:40.250"))
        let dateColumn = "CREATE TABLE Stamp(id INTEGER PRIMARY KEY, at date NOT NULL)"
        #expect(try stored(dateColumn, ["'1999-12-31'"], whole) == .text("2020-09-13"))
        let integer = "CREATE TABLE Stamp(id INTEGER PRIMARY KEY, at INTEGER NOT NULL)"
        #expect(try stored(integer, ["1000000000"], fraction) == .integer(1_600_000_000))
        #expect(try stored(integer, ["1000000000000"], fraction) == .integer(1_600_000_000_250))
        #expect(try stored(integer, ["1000000000000000"], fraction) == .integer(1_600_000_000_250_000))
        let numeric = "CREATE TABLE Stamp(id INTEGER PRIMARY KEY, at NUMERIC NOT NULL)"
        #expect(try stored(numeric, ["1000000000", "1000000000.5"], fraction) == .real(1_600_000_000.25))
        // empty columns: by the declared type
        #expect(try stored(django, [], fraction) == .text("2020-09-13 12:26:40.250000"))
        #expect(try stored(django, [], whole) == .text("2020-09-13 12:26:40"))
        #expect(try stored(dateColumn, [], whole) == .text("2020-09-13"))
        #expect(try stored(integer, [], fraction) == .integer(1_600_000_000))
    }

    @Test func uuidsAndBooleansKeepTheColumnsFormat() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Token(id INTEGER PRIMARY KEY, token char(32) NOT NULL, active bool NOT NULL)")
        try temp.db.execute("INSERT INTO Token(token, active) VALUES ('0F8FAD5BD9CB469FA16570867728950E', 't')")
        let token = FormatsSection.Token(); token.token = UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7")!
        token.active = true
        try temp.db.save(token)
        let row = try temp.db.rows("SELECT token, active FROM Token WHERE id = ?", token.id)[0]
        #expect(row["token"] == .text("7C9E6679742540DE944BE07FC1F90AE7"))
        #expect(row["active"] == .text("t"))
        let empty = try TemporaryDatabase()
        try empty.db.execute("CREATE TABLE Token(id INTEGER PRIMARY KEY, token char(32) NOT NULL, active bool NOT NULL)")
        let fresh = FormatsSection.Token(); fresh.token = token.token
        try empty.db.save(fresh)
        #expect(try empty.db.rows("SELECT token FROM Token")[0]["token"] == .text("7c9e6679742540de944be07fc1f90ae7"))
    }

    @Test func aKeyPathConditionFindsTheRowsDjangoWrote() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Stamp(id integer NOT NULL PRIMARY KEY AUTOINCREMENT, at datetime NOT NULL)")
        try temp.db.execute("INSERT INTO Stamp(at) VALUES ('2020-09-13 12:26:40'), ('2020-09-13 12:26:40.250000')")
        let found = try temp.db.objects(FormatsSection.Stamp.self, where: \.at == fraction)
        #expect(found.map(\.id) == [2])
        #expect(try temp.db.objects(FormatsSection.Stamp.self, matching: ["at": whole]).map(\.id) == [1])
    }

    @Test func aDateOutsideYears1To9999IsRefusedNamingThePropertyAndDatetimeMaxIsWrittenBack() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Stamp(id integer NOT NULL PRIMARY KEY AUTOINCREMENT, at datetime NOT NULL)")
        try temp.db.execute("INSERT INTO Stamp(at) VALUES ('9999-12-31 23:59:59.999999')")
        let never = try #require(try temp.db.object(FormatsSection.Stamp.self, forKey: 1))
        let fresh = FormatsSection.Stamp(); fresh.at = never.at
        try temp.db.save(fresh)
        #expect(try temp.db.value(String.self, "SELECT at FROM Stamp WHERE id = ?", fresh.id) == "9999-12-31 23:59:59.999999")
        let far = FormatsSection.Stamp(); far.at = Date(timeIntervalSince1970: 300_000_000_000)   // year 11476
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(far) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("at"), "\(String(describing: error))")
        #expect(try temp.db.count(FormatsSection.Stamp.self) == 2)
    }

    @Test func aSQLValueANumericColumnConvertsIsRememberedAsStored() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Code(id INTEGER PRIMARY KEY, code STRING)")
        let code = FormatsSection.Code(); code.code = .text("0123")
        try temp.db.save(code)
        #expect(try temp.db.rows("SELECT code FROM Code")[0]["code"] == .integer(123))
        #expect(!code.hasChanges)                     // the snapshot holds 123, as the column gives it back
        let other = try Database(path: temp.path)
        try other.execute("UPDATE Code SET code = 5")
        #expect(try temp.db.object(FormatsSection.Code.self, forKey: code.id)?.code == .integer(5))
    }

    @Test func aNaNIsRefusedNamingThePropertyAndANullInANonOptionalNamesTableKeyColumn() throws {
        let temp = try TemporaryDatabase()
        let rating = FormatsSection.Rating(); rating.score = .nan
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(rating) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("score"))
        #expect(try temp.db.count(FormatsSection.Rating.self) == 0)
        let second = try TemporaryDatabase()
        try second.db.execute("CREATE TABLE Rating(id INTEGER PRIMARY KEY, score REAL, rating REAL)")
        try second.db.execute("INSERT INTO Rating VALUES (7, 1, NULL)")
        let nullError = #expect(throws: (any Error).self) { try second.db.object(FormatsSection.Rating.self, forKey: 7) }
        let text = "\(nullError.map { "\($0)" } ?? "")"
        #expect(text.contains("Rating") && text.contains("7") && text.contains("rating"), "\(text)")
    }

    // MARK: One truth across connections

    @Test func anotherConnectionsCommitMergesAndAConflictNamesTheColumnAndTakesTheCommittedValue() throws {
        typealias Counter = ConnectionsSection.Counter
        let temp = try TemporaryDatabase()
        let counter = Counter()
        try temp.db.save(counter)
        let other = try Database(path: temp.path)
        let theirs = try #require(try other.object(Counter.self, forKey: counter.id))
        theirs.label = "theirs"
        theirs.value = 10
        try other.save(theirs)
        counter.value += 1                                   // unsaved, over a column they changed
        let error = #expect(throws: ModelError.self) { try temp.db.save(counter) }
        #expect(error?.kind == .conflict)
        #expect(error?.properties == ["value"])
        #expect(counter.value == 10 && counter.label == "theirs")
        try temp.db.retryingOnConflict {                     // the README's snippet
            counter.value += 1
            try temp.db.save(counter)
        }
        #expect(try other.value(Int.self, "SELECT value FROM Counter") == 11)
        _ = try other.count(Counter.self)                    // a count reads no instance: merges nothing
        #expect(theirs.value == 10)
        _ = try other.objects(Counter.self)                  // a fetch merges: theirs takes 11
        #expect(theirs.value == 11)
        theirs.value = 20
        #expect(theirs.changedProperties == ["value"])
        try other.save(theirs)
        try temp.db.transaction {                            // IMMEDIATE, merges, then increments 20
            counter.value += 1
            try temp.db.save(counter)
        }
        #expect(try other.value(Int.self, "SELECT value FROM Counter") == 21)
        counter.label = "mine"                               // an unsaved change over an untouched column
        try other.execute("UPDATE Counter SET value = 30")
        _ = try temp.db.objects(Counter.self, where: "id = 0")   // a fetch merges
        #expect(counter.value == 30 && counter.label == "mine")
    }

    @Test func aRowThatNoLongerDecodesLeavesTheInstanceAndItsSaveIsStaleNamingPropertyAndValue() throws {
        typealias Counter = ConnectionsSection.Counter
        let temp = try TemporaryDatabase()
        let counter = Counter(); counter.value = 3; counter.label = "a"
        try temp.db.save(counter)
        let other = try Database(path: temp.path)
        try other.execute("UPDATE Counter SET value = 'lots', label = 'b'")
        try temp.db.transaction {}                               // a transaction begins: merges
        #expect(counter.value == 3 && counter.label == "a")      // all or nothing
        counter.label = "c"
        let error = #expect(throws: ModelError.self) { try temp.db.save(counter) }
        #expect(error?.kind == .stale)
        #expect(error?.property == "value")
        #expect(error?.message.contains("lots") == true, "\(String(describing: error))")
        let fetch = #expect(throws: ModelError.self) { try temp.db.object(Counter.self, forKey: counter.id) }
        #expect(fetch?.kind == .stale)
        #expect(try other.value(String.self, "SELECT value FROM Counter") == "lots")
    }

    @Test func onConflictReplaceIsADuplicateKeyNeverADeletedRow() throws {
        typealias Member = ConnectionsSection.Member
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Member(id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT REPLACE, name TEXT NOT NULL DEFAULT '')")
        let ada = Member(); ada.email = "a@x"; ada.name = "Ada"
        try temp.db.save(ada)
        let copy = Member(); copy.email = "a@x"; copy.name = "Copy"
        let error = #expect(throws: ModelError.self) { try temp.db.save(copy) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.properties == ["email"])
        #expect(!ada.isDeleted)
        #expect(try temp.db.value(String.self, "SELECT group_concat(name) FROM Member") == "Ada")
    }

    @Test func aClosedHandleThrowsFromFetchesSavesAndFaults() throws {
        typealias Department = RelationshipsSection.Department
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        let sales = Department(); sales.name = "Sales"
        try temp.db.save(sales)
        let ada = Employee(); ada.name = "Ada"; ada.department = sales
        try temp.db.save(ada)
        let db = try temp.reopen()
        let fetched = try #require(try db.object(Employee.self, forKey: ada.id))
        try db.close()
        #expect(throws: DatabaseError.self) { try fetched.$department.load() }
        #expect(throws: DatabaseError.self) { try db.object(Employee.self, forKey: 1) }
        fetched.name = "x"
        #expect(throws: DatabaseError.self) { try db.save(fetched) }
    }

    // MARK: Relationships

    /// Departments "A", "B", "C" with `perDepartment` employees each, saved; the handle reopened.
    private func company(_ temp: TemporaryDatabase, perDepartment: Int = 4) throws -> Database {
        typealias Department = RelationshipsSection.Department
        typealias Employee = RelationshipsSection.Employee
        for name in ["A", "B", "C"] {
            let department = Department(); department.name = name
            try temp.db.save(department)
            for index in 0..<perDepartment {
                let employee = Employee(); employee.name = "\(name)\(index)"; employee.department = department
                try temp.db.save(employee)
            }
        }
        let db = try temp.reopen()
        try db.syncSchema(Department.self)
        try db.syncSchema(Employee.self)
        return db
    }

    @Test func twelveEmployeesOfThreeDepartmentsFaultWithOneSelect() throws {
        let temp = try TemporaryDatabase()
        let db = try company(temp)
        let staff = try db.objects(RelationshipsSection.Employee.self)
        #expect(staff.count == 12)
        let seen = statements(db) {
            for _ in 0..<3 { for employee in staff { _ = employee.department?.name } }
        }
        #expect(seen.count == 1, "\(seen)")
        #expect(Set(staff.compactMap { $0.department?.name }) == ["A", "B", "C"])
    }

    @Test func theRelationshipsSnippetCostsWhatItSays() throws {
        typealias Department = RelationshipsSection.Department
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        let db = try company(temp, perDepartment: 3)
        var staff: [Employee] = []
        let fetch = try statements(db) {
            staff = try db.objects(Employee.self, where: "ORDER BY name", prefetching: ["department"])  // 2 queries
        }
        #expect(fetch.count == 2, "\(fetch)")
        let read = statements(db) { #expect(staff.map { $0.department?.name }.first == "A") }
        #expect(read.isEmpty)
        let sales = try #require(staff.first?.department)
        let first = statements(db) { #expect(sales.employees.map(\.name) == ["A0", "A1", "A2"]) }
        #expect(first.count == 1)
        #expect(statements(db) { _ = sales.employees }.isEmpty)
        #expect(try sales.$employees.reload().count == 3)
        let fresh = try temp.reopen()
        try fresh.syncSchema(Department.self)
        try fresh.syncSchema(Employee.self)
        var teams: [Department] = []
        let prefetch = try statements(fresh) { teams = try fresh.objects(Department.self, prefetching: ["employees"]) }
        #expect(prefetch.count == 2, "\(prefetch)")
        var counts: [Int] = []
        #expect(statements(fresh) { counts = teams.map(\.employees.count) }.isEmpty)
        #expect(counts == [3, 3, 3])
    }

    @Test func movingAChildDropsBothLoadedArraysAndEachRereadIsOneQuery() throws {
        let temp = try TemporaryDatabase()
        let db = try company(temp, perDepartment: 2)
        let departments = try db.objects(RelationshipsSection.Department.self, where: "ORDER BY id")
        let sales = departments[0], support = departments[1]
        #expect(sales.employees.count == 2 && support.employees.count == 2)
        let employee = try #require(sales.employees.first)
        employee.department = support
        try db.save(employee)
        let reads = statements(db) { #expect(sales.employees.count == 1 && support.employees.count == 3) }
        #expect(reads.count == 2, "\(reads)")
    }

    @Test func aDanglingKeyReadsNilShowsItsKeyAndLoadThrowsNotFound() throws {
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(RelationshipsSection.Department.self)
        try temp.db.execute("PRAGMA foreign_keys = OFF")
        try temp.db.syncSchema(Employee.self)
        try temp.db.execute("INSERT INTO Employee(name, department) VALUES ('Ada', 99)")
        let ada = try #require(try temp.db.object(Employee.self, forKey: 1))
        #expect(ada.department == nil)
        #expect(ada.$department.key == .integer(99))
        let error = #expect(throws: ModelError.self) { try ada.$department.load() }
        #expect(error?.kind == .notFound)
        #expect(!ada.hasChanges)
    }

    @Test func anUnsavedRelatedObjectIsAnErrorAndASelfReferenceIsInsertedThenUpdated() throws {
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        let ada = Employee(); ada.name = "Ada"; ada.department = RelationshipsSection.Department()
        let error = #expect(throws: ModelError.self) { try temp.db.save(ada) }
        #expect(error?.kind == .unsavedRelated)
        #expect(error?.model == "Employee" && error?.property == "department")
        #expect(error?.message.contains("Department") == true)
        #expect(try temp.db.count(Employee.self) == 0)
        ada.department = nil
        ada.manager = ada
        let writes = try statements(temp.db) { try temp.db.save(ada) }.filter { !$0.hasPrefix("SELECT") && !$0.hasPrefix("CREATE") }
        #expect(writes.count == 2 && writes[0].hasPrefix("INSERT") && writes[1].hasPrefix("UPDATE"), "\(writes)")
        #expect(try temp.db.value(Int64.self, "SELECT manager FROM Employee WHERE id = ?", ada.id) == ada.id)
    }

    @Test func newObjectsReferringToEachOtherAreSavedInOneCallClosedByOneUpdate() throws {
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(Employee.self)
        let ada = Employee(), grace = Employee()
        ada.name = "Ada"; grace.name = "Grace"
        ada.manager = grace; grace.manager = ada
        let writes = try statements(temp.db) { try temp.db.save([ada, grace]) }.filter { !$0.hasPrefix("SELECT") }
        #expect(writes.filter { $0.hasPrefix("INSERT") }.count == 2)
        #expect(writes.filter { $0.hasPrefix("UPDATE") }.count == 1, "\(writes)")
        let pairs = try temp.db.rows("SELECT name, (SELECT name FROM Employee m WHERE m.id = e.manager) AS boss FROM Employee e ORDER BY name")
        #expect(try pairs.map { try $0.decode("boss", as: String.self) } == ["Grace", "Ada"])
    }

    @Test func integerKeysStoredAsTextOrRealFindRowOne() throws {
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Department(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        try temp.db.execute("CREATE TABLE Employee(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', department, manager INTEGER)")
        try temp.db.execute("INSERT INTO Department(id, name) VALUES (1, 'Sales')")
        try temp.db.execute("INSERT INTO Employee(name, department) VALUES ('text', '1'), ('real', 1.0), ('int', 1)")
        let staff = try temp.db.objects(Employee.self, where: "ORDER BY id")
        #expect(staff.map { $0.department?.name } == ["Sales", "Sales", "Sales"])
        #expect(staff.map(\.$department.key) == [.integer(1), .integer(1), .integer(1)])
        #expect(staff.allSatisfy { !$0.hasChanges })
        let sales = try #require(staff[0].department)
        #expect(sales.employees.map(\.name) == ["int", "real", "text"])
        #expect(try temp.db.objects(Employee.self, matching: ["department": 1]).count == 3)
    }

    @Test func theSiblingsSnippetCostsWhatItSays() throws {
        typealias Post = RelationshipsSection.Post
        typealias Tag = RelationshipsSection.Tag
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Post(id INTEGER PRIMARY KEY)")
        try temp.db.execute("CREATE TABLE Tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try temp.db.execute("CREATE TABLE blog_post_tags(id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL REFERENCES Post(id), tag_id INTEGER NOT NULL REFERENCES Tag(id), UNIQUE(post_id, tag_id))")
        try temp.db.execute("INSERT INTO Post(id) VALUES (1), (2)")
        try temp.db.execute("INSERT INTO Tag(id, name) VALUES (1, 'swift'), (2, 'orm'), (3, 'sqlite')")
        try temp.db.execute("INSERT INTO blog_post_tags(post_id, tag_id) VALUES (1, 2), (1, 3), (2, 1)")
        let db = try temp.reopen()
        try db.syncSchema(Post.self)
        try db.syncSchema(Tag.self)
        let posts = try db.objects(Post.self, where: "ORDER BY id")
        let tags = try db.objects(Tag.self, where: "ORDER BY id")
        let (swift, orm) = (tags[0], tags[1])
        let post = posts[0]
        let first = statements(db) { #expect(post.tags.map(\.name) == ["orm", "sqlite"]) }
        #expect(first.count == 1 && first[0].contains("JOIN \"blog_post_tags\""), "\(first)")
        #expect(statements(db) { _ = post.tags }.isEmpty)
        let add = try statements(db) { try post.$tags.add(swift) }
        #expect(add.filter { $0.hasPrefix("INSERT") }.count == 1, "\(add)")
        #expect(post.tags.map(\.name) == ["orm", "sqlite", "swift"])
        let again = try statements(db) { try post.$tags.add(swift) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM blog_post_tags WHERE post_id = 1") == 3, "\(again)")
        let remove = try statements(db) { try post.$tags.remove(orm) }
        #expect(remove.filter { $0.hasPrefix("DELETE") }.count == 1, "\(remove)")
        #expect(post.tags.map(\.name) == ["sqlite", "swift"])
        let fresh = try temp.reopen()
        try fresh.syncSchema(Post.self)
        try fresh.syncSchema(Tag.self)
        let all = try fresh.objects(Post.self, where: "ORDER BY id")
        let prefetch = try statements(fresh) { try fresh.prefetch("tags", of: all) }
        #expect(prefetch.count == 1, "\(prefetch)")
        var names: [[String]] = []
        #expect(statements(fresh) { names = all.map { $0.tags.map(\.name) } }.isEmpty)
        #expect(names == [["sqlite", "swift"], ["swift"]])
    }

    @Test func theForeignKeySnippetCreatesTheConstraintsAndLiveInstancesFollowCascadesAndSetNull() throws {
        typealias Artist = RelationshipsSection.Artist
        typealias Album = RelationshipsSection.Album
        let temp = try TemporaryDatabase()
        let artist = Artist(), producer = Artist()
        try temp.db.save([artist, producer])
        let album = Album(); album.artist = artist; album.producer = producer
        try temp.db.save(album)
        let sql = try temp.db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'Album'") ?? ""
        #expect(sql.contains("REFERENCES \"Artist\" (\"id\") ON DELETE CASCADE"), "\(sql)")
        #expect(sql.contains("ON DELETE SET NULL"))
        let other = Album(); other.artist = producer; other.producer = producer
        try temp.db.save(other)
        try temp.db.delete(producer)
        #expect(album.producer == nil && !album.isDeleted && other.isDeleted)
        #expect(!album.hasChanges)
        try temp.db.delete(artist)
        #expect(album.isDeleted)
        #expect(try temp.db.count(Album.self) == 0)
    }

    @Test func aDeleteAKeyRefusesNamesModelKeyAndTheRowsStillPointingAtIt() throws {
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        let ada = Employee(); ada.name = "Ada"
        try temp.db.save(ada)
        let loan = RelationshipsSection.Loan(); loan.side = ada
        try temp.db.save(loan)
        let error = #expect(throws: DatabaseError.self) { try temp.db.delete(ada) }
        let message = error?.message ?? ""
        #expect(message.contains("Employee") && message.contains("still referenced by 1 row(s) of \"Loan\" through (side) ON DELETE RESTRICT"), "\(message)")
        #expect(!ada.isDeleted)
        #expect(try temp.db.count(Employee.self) == 1)
    }

    @Test func theArticlesPrefetchIsThreeStatements() throws {
        typealias Department = RelationshipsSection.Department
        let temp = try TemporaryDatabase()
        let db = try company(temp, perDepartment: 2)
        let staff = try db.objects(RelationshipsSection.Employee.self, where: "ORDER BY id")
        let boss = RelationshipsSection.Employee(); boss.name = "Boss"   // in no department
        try db.save(boss)
        for employee in staff { employee.manager = boss }
        try db.save(staff)
        let fresh = try temp.reopen()
        try fresh.syncSchema(Department.self)
        try fresh.syncSchema(RelationshipsSection.Employee.self)
        var departments: [Department] = []
        let seen = try statements(fresh) {
            departments = try fresh.objects(Department.self, prefetching: ["employees", "employees.manager"])
        }
        #expect(seen.count == 3, "\(seen)")
        var managers: [String?] = []
        let reads = statements(fresh) { managers = departments[2].employees.map { employee in employee.manager?.name } }
        #expect(reads.isEmpty)
        #expect(managers == ["Boss", "Boss"])
    }

    // MARK: Concurrency

    @Test func thePoolSnippetRunsAndNestingAndCloseThrowMisuse() async throws {
        typealias Department = ConcurrencySection.Department
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.folder.appendingPathComponent("app.sqlite").path, readers: 4)
        let id = try await pool.write { db in            // IMMEDIATE transaction on the writer's queue
            let sales = Department(); sales.name = "Sales"
            try db.save(sales)
            return sales.id
        }
        let names = try await pool.read { db in          // DEFERRED transaction on the least busy reader
            try db.objects(Department.self).map(\.name)
        }
        #expect(id == 1 && names == ["Sales"])
        let nested = #expect(throws: DatabaseError.self) {
            try pool.blocking.write { _ in try pool.blocking.read { db in try db.count(Department.self) } }
        }
        #expect(nested?.code == .misuse)
        #expect(nested?.message.contains("use the `db`") == true)
        try await pool.close()
        await #expect(throws: DatabaseError.self) { try await pool.read { db in try db.count(Department.self) } }
    }

    @Test func theChangeStreamNamesTheSavedPropertyAndObserveYieldsOnEachCommit() async throws {
        typealias Employee = ConcurrencySection.Employee
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.folder.appendingPathComponent("app.sqlite").path, readers: 2)
        let id = try await pool.write { db in
            let ada = Employee(); ada.name = "Ada"
            try db.save(ada)
            return ada.id
        }
        var changes = pool.changes(of: Employee.self).makeAsyncIterator()
        var counts = pool.observe({ db in try db.count(Employee.self) }).makeAsyncIterator()
        #expect(try await counts.next() == 1)                            // now
        try await pool.write { db in
            let ada = try db.object(Employee.self, forKey: id)
            ada?.salary = 100
            if let ada { try db.save(ada) }
        }
        try await pool.write { db in try db.execute("INSERT INTO Employee(name, salary) VALUES ('Grace', 1)") }
        let saved = await changes.next()
        #expect(saved?.updatedRowIDs == [id])
        #expect(saved?.updatedProperties == [id: ["salary"]])
        let raw = await changes.next()
        #expect(raw?.insertedRowIDs == [id + 1])
        #expect(raw?.updatedProperties.isEmpty == true)
        #expect(try await counts.next() == 2)                            // the UPDATE left the count equal
        try await pool.close()
    }

    // MARK: Transactions and rollbacks

    @Test func aSaveOutsideATransactionRunsInItsOwnImmediateTransaction() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(ModelsSection.Department.self)
        var all: [String] = []
        let trace = temp.db.traceStatements { all.append($0) }
        let sales = ModelsSection.Department(); sales.name = "Sales"
        try temp.db.save(sales)
        trace.cancel()
        #expect(all == ["BEGIN IMMEDIATE TRANSACTION", "INSERT INTO \"Department\" (\"name\") VALUES (?)", "COMMIT TRANSACTION"])
    }

    @Test func aRolledBackInsertLeavesTheReferenceToBeSavedAgainAndRawSQLDropsLoadedChildren() throws {
        typealias Department = RelationshipsSection.Department
        typealias Employee = RelationshipsSection.Employee
        let temp = try TemporaryDatabase()
        let ada = Employee(); ada.name = "Ada"
        try temp.db.save(ada)
        let sales = Department(); sales.name = "Sales"
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try temp.db.transaction {
                try temp.db.save(sales)
                ada.department = sales
                try temp.db.save(ada)
                throw Undo()
            }
        }
        #expect(try temp.db.count(Department.self) == 0)
        #expect(ada.department == nil && !ada.hasChanges)        // ada holds its row again
        #expect(sales.id == 0 || !sales.isPersisted)
        #expect(throws: Undo.self) {                                  // an unsaved assignment keeps the object
            try temp.db.transaction {
                try temp.db.save(sales)
                ada.department = sales
                throw Undo()
            }
        }
        #expect(ada.department === sales && ada.changedProperties == ["department"])
        try temp.db.save([sales])
        try temp.db.save(ada)
        #expect(try temp.db.value(Int64.self, "SELECT department FROM Employee WHERE id = ?", ada.id) == sales.id)
        #expect(sales.employees.map(\.name) == ["Ada"])
        try temp.db.execute("INSERT INTO Employee(name, department) VALUES ('Bob', ?)", sales.id)
        let reads = statements(temp.db) { #expect(sales.employees.map(\.name) == ["Ada", "Bob"]) }
        #expect(reads.count == 1)
    }

    @Test func aDeferredForeignKeyFailsTheCommitAndLiveInstancesHoldTheRowsAgain() throws {
        final class Shelf: Model { var id: Int64 = 0; var name = ""; required init() {} }
        final class Book: Model { var id: Int64 = 0; @Reference var shelf: Shelf?; required init() {} }
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Shelf(id integer NOT NULL PRIMARY KEY AUTOINCREMENT, name varchar(10) NOT NULL)")
        try temp.db.execute("CREATE TABLE Book(id integer NOT NULL PRIMARY KEY AUTOINCREMENT, shelf_id bigint NULL REFERENCES Shelf(id) DEFERRABLE INITIALLY DEFERRED)")
        let shelf = Shelf(); shelf.name = "A"
        try temp.db.save(shelf)
        let book = Book(); book.shelf = shelf
        try temp.db.save(book)
        let error = #expect(throws: DatabaseError.self) {
            try temp.db.transaction {
                shelf.name = "B"
                try temp.db.save(shelf)
                try temp.db.delete(shelf)
            }
        }
        #expect(error?.code == .constraintForeignKey)
        #expect(!shelf.isDeleted && shelf.name == "A")
        #expect(try temp.db.value(String.self, "SELECT name FROM Shelf") == "A")
    }
}
