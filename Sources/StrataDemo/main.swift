import Foundation
import Strata

// Version 1 of the app's models.
enum V1 {
    final class Department: Model {
        static let tableName = "Department"
        var id: Int64 = 0
        var name = ""
        required init() {}
    }

    final class Employee: Model {
        static let tableName = "Employee"
        static let primaryKey = "employeeId"
        var employeeId: Int64 = 0
        var name = ""
        var dateOfBirth: Date?
        @Reference var department: Department?
        required init() {}
    }
}

// Version 2: Employee gains two properties and two indices; Department lists its employees.
enum V2 {
    final class Department: Model {
        static let tableName = "Department"
        var id: Int64 = 0
        var name = ""
        @Children(by: "department", orderBy: "name") var employees: [Employee]   // never a column
        required init() {}
    }

    final class Employee: Model {
        static let tableName = "Employee"
        static let primaryKey = "employeeId"
        static let indices = [["department", "name"]]
        static let uniqueIndices = [["email"]]
        var employeeId: Int64 = 0
        var name = ""
        var dateOfBirth: Date?
        @Reference var department: Department?
        var email: String?
        var level = 1
        required init() {}
    }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("company.sqlite").path
print("Strata demo — SQLite \(Database.sqliteVersion), database at \(path)")

struct DemoError: Error, CustomStringConvertible { let description: String }

func section(_ title: String) { print("\n== \(title)") }

var configuration = Database.Configuration()
configuration.logger.logLevel = .warning   // .info logs each schema step, .debug every statement

// 1. Version 1: first use creates the tables.
do {
    let db = try Database(path: path, configuration: configuration)
    section("Version 1: first use creates the tables")
    for step in try db.syncSchema(V1.Department.self).steps + db.syncSchema(V1.Employee.self).steps {
        print("  applied: \(step.sql)")
    }
    let sales = V1.Department(); sales.name = "Sales"
    let research = V1.Department(); research.name = "Research"
    try db.save([sales, research])
    let born = Date(timeIntervalSince1970: -312_508_800)  // 1960-02-04
    for (name, department) in [("Ada", research), ("Grace", research), ("Linus", sales)] {
        let employee = V1.Employee()
        employee.name = name
        employee.dateOfBirth = born
        employee.department = department
        try db.save(employee)
    }
    let researchers = try db.objects(V1.Employee.self, where: "WHERE department = ? ORDER BY name", research.id)
    print("  saved 2 departments and 3 employees; in Research: \(researchers.map(\.name))")
    try db.close()
}

// 2. Version 2 on the same file: additive sync, planned first (dry run), then applied.
let db = try Database(path: path, configuration: configuration)
section("Version 2 on the same file: the plan (a dry run), then the sync")
print(try db.schemaPlan(for: V2.Employee.self).steps.map { "  would run: \($0.sql)" }.joined(separator: "\n"))
for step in try db.syncSchema(V2.Employee.self).steps { print("  applied: \(step.sql)") }
print("  again: \(try db.schemaPlan(for: V2.Employee.self))")
try db.syncSchema(V2.Department.self)
guard let ada = try db.first(V2.Employee.self, where: "WHERE name = ?", "Ada") else {
    throw DemoError(description: "Ada was not saved")
}
print("  Ada's new columns hold their defaults: email \(ada.email ?? "nil"), level \(ada.level)")

// 3. A fault: the relationship loads with one SELECT, only when read.
section("A relationship is a fault until read")
var statements: [String] = []
let trace = db.traceStatements { statements.append($0) }
let department = ada.department
print("  ada.department?.name = \(department?.name ?? "nil"), with \(statements.count) statement(s):")
for sql in statements { print("    \(sql)") }
statements.removeAll()
_ = ada.department
print("  read again: \(statements.count) statement(s)")

section("Prefetch: N owners and their departments in 2 statements, not N + 1")
statements.removeAll()
let staff = try db.objects(V2.Employee.self, where: "ORDER BY name", prefetching: ["department"])
for employee in staff { print("  \(employee.name) works in \(employee.department?.name ?? "-")") }
print("  \(statements.count) statements:")
for sql in statements { print("    \(sql)") }

section("The to-many side: one query on first access")
statements.removeAll()
let research = try db.first(V2.Department.self, where: "WHERE name = ?", "Research")
print("  Research employs \(research?.employees.map(\.name) ?? [])")
print("  \(statements.count) statements:")
for sql in statements { print("    \(sql)") }
trace.cancel()

section("A save writes only what changed; two handles never overwrite each other")
statements.removeAll()
let writes = db.traceStatements { if !$0.hasPrefix("SELECT") { statements.append($0) } }
ada.level += 1
print("  changed: \(ada.changedProperties)")
try db.save(ada)
try db.save(ada)                     // nothing changed: no SQL at all
for sql in statements { print("    \(sql)") }
let other = try Database(path: path)  // a second connection to the same file
let adaThere = try other.object(V2.Employee.self, forKey: ada.employeeId)!
adaThere.email = "ada@example.org"
try other.save(adaThere)
ada.level += 1                        // changed here meanwhile: a different column
try db.save(ada)                      // merges the other handle's commit first, writes only "level"
print("  after both saves: email \(ada.email ?? "nil"), level \(ada.level)")
writes.cancel()
try other.close()

// 4. One live instance per row, and raw SQL that live objects see.
section("One live instance per row; raw SQL reaches it")
let again = try db.object(V2.Employee.self, forKey: ada.employeeId)
print("  fetched Ada again: same instance? \(again === ada)")
try db.execute("UPDATE $T SET name = ?, level = level + 1 WHERE $PK = ?", for: V2.Employee.self, "Ada Lovelace", ada.employeeId)
print("  after a raw UPDATE $T: ada.name = \(ada.name), level \(ada.level)")
try db.execute("DELETE FROM $T WHERE name = ?", for: V2.Employee.self, "Ada Lovelace")
print("  after a raw DELETE: ada.isDeleted = \(ada.isDeleted)")
print("\n\(try db.count(V2.Employee.self)) employees left")
