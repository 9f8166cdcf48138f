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
}
