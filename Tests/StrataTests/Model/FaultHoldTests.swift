import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Relationship faults hold their targets for as long as the owner lives (one SELECT per target, however
// often it is read), and cycles of models are still freed.

private final class HDepartment: Model {
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    @Children(by: "department", orderBy: "name") var employees: [HEmployee]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class HEmployee: Model {
    static let persistentProperties = ["id", "name", "department", "manager"]
    var id: Int64 = 0
    var name = ""
    @Reference var department: HDepartment?
    @Reference var manager: HEmployee?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// A -> B -> C -> A, each a different type.
private final class HA: Model {
    static let persistentProperties = ["id", "next"]
    var id: Int64 = 0
    @Reference var next: HB?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class HB: Model {
    static let persistentProperties = ["id", "next"]
    var id: Int64 = 0
    @Reference var next: HC?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class HC: Model {
    static let persistentProperties = ["id", "next"]
    var id: Int64 = 0
    @Reference var next: HA?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private func company(_ db: Database, departments: Int, employeesEach: Int) throws {
    try db.transaction {
        for d in 1...departments {
            let department = HDepartment(); department.name = "D\(d)"
            try db.save(department)
            for e in 1...employeesEach {
                let employee = HEmployee(); employee.name = "E\(d).\(e)"; employee.department = department
                try db.save(employee)
            }
        }
    }
}

@Suite struct FaultHoldTests {
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: unquoted mixed-case table in the test's SQL, json_each")) func aFaultQueriesOncePerTargetHoweverOftenItIsRead() throws {
        let temp = try TestDatabase()
        try company(temp.db, departments: 3, employeesEach: 4)
        let db = try temp.reopen()
        let employees = try db.objects(HEmployee.self, where: "ORDER BY id")
        #expect(employees.count == 12)
        try db.syncSchema(HDepartment.self)
        let log = StatementLog(db)
        for _ in 0..<2 {
            for employee in employees { _ = employee.department?.name }
        }
        // The first fault loads the department of every live employee in one batched query.
        let queries = log.statements.filter { isDepartmentQuery($0) }
        #expect(queries.count == 1, "\(log.statements)")
        #expect(queries.first?.contains("json_each(") == true)
        #expect(Set(employees.compactMap { $0.department?.name }) == ["D1", "D2", "D3"])

        // An owner fetched alone beside many live ones faults alone: one query, no scan of the others.
        let newcomer = HDepartment(); newcomer.name = "D4"
        try db.save(newcomer)
        try db.execute("INSERT INTO \"HEmployee\"(name, department) VALUES ('E4.1', ?)", newcomer.id)
        let before = log.statements.count
        let single = try #require(try db.objects(HEmployee.self, where: "WHERE name = 'E4.1'").first)
        _ = single.department?.name
        let after = log.statements.dropFirst(before).filter { isDepartmentQuery($0) }
        #expect(after.isEmpty, "its department is live already: \(after)")
    }

    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: unquoted mixed-case table in the test's SQL")) func batchedFaultsRunOncePerPageOfNewOwners() throws {
        let temp = try TestDatabase()
        try company(temp.db, departments: 20, employeesEach: 3)
        let db = try temp.reopen()
        try db.syncSchema(HDepartment.self)
        let log = StatementLog(db)
        let firstPage = try db.objects(HEmployee.self, where: "WHERE id <= 30 ORDER BY id")
        #expect(firstPage.compactMap { $0.department?.name }.count == 30)
        let secondPage = try db.objects(HEmployee.self, where: "WHERE id > 30 ORDER BY id")
        #expect(secondPage.compactMap { $0.department?.name }.count == 30)
        let departmentQueries = log.statements.filter { isDepartmentQuery($0) }
        #expect(departmentQueries.count == 2, "one batch per page: \(departmentQueries)")
        // One owner at a time beside 60 live ones: its fault loads its own department only (a batch per
        // fault would scan every live owner each time: quadratic).
        let department = HDepartment(); department.name = "solo"
        try db.save(department)
        try db.execute("INSERT INTO \"HEmployee\"(name, department) VALUES ('alone', ?)", department.id)
        try db.execute("UPDATE \"HEmployee\" SET department = ? WHERE name = 'alone'", department.id)
        let lone = try #require(try db.objects(HEmployee.self, where: "WHERE name = 'alone'").first)
        let before = log.statements.count
        withExtendedLifetime(department) {}
        #expect(lone.department?.name == "solo")
        let loneQueries = log.statements.dropFirst(before).filter { isDepartmentQuery($0) }
        #expect(loneQueries.count <= 1)
        #expect(loneQueries.allSatisfy { !$0.contains(" IN (") && !$0.contains("json_each(") }, "\(loneQueries)")
        withExtendedLifetime((firstPage, secondPage)) {}
    }

    @Test func aSelfReferencePrefetchNeverFallsBackToOneQueryPerOwner() throws {
        let temp = try TestDatabase()
        try company(temp.db, departments: 1, employeesEach: 100)
        try temp.db.execute("UPDATE \"HEmployee\" SET manager = id + 1 WHERE id < 100")   // a chain of managers
        let db = try temp.reopen()
        try db.syncSchema(HEmployee.self)
        let log = StatementLog(db)
        let employees = try db.objects(HEmployee.self, where: "WHERE id <= 50 ORDER BY id", prefetching: ["manager"])
        #expect(log.count == 2, "\(log.statements.map { $0.prefix(70) })")
        #expect(employees.compactMap { $0.manager?.name }.count == 50)
        #expect(log.count == 2)   // no query per owner
    }

    @Test func cyclesOfReferencesAreFreed() throws {
        let db = try TestDatabase.make()
        try company(db, departments: 1, employeesEach: 3)
        try db.execute("UPDATE \"HEmployee\" SET manager = CASE id WHEN 1 THEN 2 WHEN 2 THEN 1 ELSE 3 END")  // 1 <-> 2, 3 -> 3
        final class Weak { weak var object: ModelObject?; init(_ object: ModelObject?) { self.object = object } }
        var seen: [Weak] = []
        do {
            let employees = try db.objects(HEmployee.self, where: "ORDER BY id")
            for employee in employees {
                seen.append(Weak(employee.manager))          // 1 -> 2 -> 1, and 3 -> itself
                seen.append(Weak(employee.department))
            }
            #expect(employees[0].manager === employees[1] && employees[1].manager === employees[0])
            #expect(employees[2].manager === employees[2])
            let department = try #require(employees[0].department)
            #expect(department.employees.count == 3)         // the department holds its employees too
            seen += employees.map { Weak($0) } + [Weak(department)]
        }
        #expect(seen.allSatisfy { $0.object == nil })
    }

    @Test func aCycleOfThreeTypesIsFreed() throws {
        let temp = try TestDatabase()
        let a = HA(), b = HB(), c = HC()
        try temp.db.save(a); try temp.db.save(b); try temp.db.save(c)
        a.next = b; b.next = c; c.next = a
        try temp.db.save(a); try temp.db.save(b); try temp.db.save(c)
        let db = try temp.reopen()
        let counter = DeinitCounter()
        do {
            let first = try #require(try db.object(HA.self, forKey: 1))
            first.counter = counter
            let second = try #require(first.next); second.counter = counter
            let third = try #require(second.next); third.counter = counter
            #expect(third.next === first)
        }
        #expect(counter.count == 3)
    }

    @Test func objectsAssignedBeforeSavingDoNotKeepEachOtherAlive() throws {
        let db = try TestDatabase.make()
        let counter = DeinitCounter()
        do {
            // Assigned before either is saved: held strongly until saved.
            let e1 = HEmployee(), e2 = HEmployee(), e3 = HEmployee()
            e1.counter = counter; e2.counter = counter; e3.counter = counter
            e1.manager = e2
            try db.save(e2)
            try db.save(e1)
            try db.save(e3)
            // Assigned to each other once saved.
            e2.manager = e1
            e3.manager = e3
            try db.save([e2, e3])
            #expect(e1.manager === e2 && e2.manager === e1 && e3.manager === e3)
        }
        #expect(counter.count == 3)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func aReferenceFindsARowCreatedAfterItWasFoundMissing() throws {
        let db = try TestDatabase.make()
        try company(db, departments: 1, employeesEach: 1)
        try db.execute("PRAGMA foreign_keys = OFF; UPDATE \"HEmployee\" SET department = 7")
        let employee = try #require(try db.first(HEmployee.self))
        try db.prefetch("department", of: [employee])
        #expect(employee.department == nil)
        #expect(throws: ModelError.self) { try employee.$department.load() }
        // Deleted and re-created with the same key: found again.
        let seventh = HDepartment(); seventh.id = 7; seventh.name = "Seventh"
        try db.save(seventh)
        #expect(employee.department?.name == "Seventh")
        try db.delete(seventh)
        #expect(employee.department == nil)
        try db.execute("INSERT INTO \"HDepartment\" (id, name) VALUES (7, 'Again')")
        #expect(employee.department?.name == "Again")
    }
}

extension FaultHoldTests {
    @Test func childrenPrefetchIsOneQueryPerLevel() throws {
        let temp = try TestDatabase()
        try company(temp.db, departments: 1_000, employeesEach: 2)
        try temp.db.execute("INSERT INTO \"HDepartment\" (name) VALUES ('empty')")
        try temp.db.execute("UPDATE \"HEmployee\" SET manager = CASE WHEN id % 2 = 0 THEN id - 1 END")
        let db = try temp.reopen()
        try db.syncSchema(HDepartment.self)
        try db.syncSchema(HEmployee.self)
        let log = StatementLog(db)
        let departments = try db.objects(HDepartment.self, where: "ORDER BY id", prefetching: ["employees.manager"])
        #expect(departments.count == 1_001)
        let queries = log.count
        #expect(queries <= 4, "\(log.statements)")   // departments, employees, (managers already live: none)
        var names: [String] = []
        for department in departments {
            for employee in department.employees { names.append(employee.manager?.name ?? "-") }
        }
        #expect(log.count == queries)                  // no query per department or employee
        #expect(names.count == 2_000 && names.filter { $0 != "-" }.count == 1_000)
        #expect(departments.last?.employees.isEmpty == true)
        #expect(departments[0].employees.map(\.name) == ["E1.1", "E1.2"])   // in the declaration's order
        #expect(departments[0].employees.allSatisfy { $0.department === departments[0] })
    }

    @Test func prefetchedChildrenAndTheirParentsAreFreed() throws {
        let temp = try TestDatabase()
        try company(temp.db, departments: 3, employeesEach: 3)
        let db = try temp.reopen()
        let counter = DeinitCounter()
        do {
            let departments = try db.objects(HDepartment.self, prefetching: ["employees", "employees.department"])
            for department in departments {
                department.counter = counter
                for employee in department.employees { employee.counter = counter }
            }
        }
        #expect(counter.count == 12)
    }
}

/// A fetch of HDepartment rows: `FROM "HDepartment"`, or the join a prefetch of distinct rowid keys uses.
private func isDepartmentQuery(_ sql: String) -> Bool {
    sql.contains(#"FROM "HDepartment""#) || sql.contains(#"JOIN "HDepartment""#)
}

/// A department whose employees refer to it twice: as their department (the `by:` of its children) and as
/// their former one.
private final class HTDepartment: Model {
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    @Children(by: "department") var employees: [HTEmployee]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class HTEmployee: Model {
    static let persistentProperties = ["id", "department", "formerDepartment"]
    var id: Int64 = 0
    @Reference var department: HTDepartment?
    @Reference var formerDepartment: HTDepartment?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// Employees `(department, formerDepartment)` of two departments, in a file database reopened with none live.
private func departmentsWithFormerOnes(_ employees: [(Int, Int)]) throws -> TestDatabase {
    let temp = try TestDatabase()
    let departments = [HTDepartment(), HTDepartment()]
    try temp.db.save(departments)
    for (department, former) in employees {
        let employee = HTEmployee()
        employee.department = departments[department]; employee.formerDepartment = departments[former]
        try temp.db.save(employee)
    }
    return temp
}

extension FaultHoldTests {
    @Test func childrenThatHoldTheirParentThroughAnotherReferenceAreFreed() throws {
        let temp = try departmentsWithFormerOnes([(0, 0)])
        let db = try temp.reopen()
        try db.syncSchema(HTDepartment.self)
        let counter = DeinitCounter()
        do {
            let employee = try #require(try db.object(HTEmployee.self, forKey: 1))
            let department = try #require(employee.formerDepartment)   // held strongly: it holds nothing yet
            let log = StatementLog(db)
            #expect(department.employees.first === employee)           // the department now holds the employee
            #expect(department.employees.count == 1)
            #expect(log.count == 1)                                    // loaded once: still cached
            #expect(employee.formerDepartment === department && employee.department === department)
            employee.counter = counter; department.counter = counter
        }
        #expect(counter.count == 2)
    }

    @Test func prefetchedChildrenThatHoldAnotherParentHoldingThemAreFreed() throws {
        // Each employee's former department is the other one: D1 -> e1 -> D2 -> e2 -> D1 if both arrays were kept.
        let temp = try departmentsWithFormerOnes([(0, 1), (1, 0)])
        let db = try temp.reopen()
        let counter = DeinitCounter()
        do {
            let employees = try db.objects(HTEmployee.self, where: "ORDER BY id", prefetching: ["formerDepartment"])
            let departments = try db.objects(HTDepartment.self, where: "ORDER BY id", prefetching: ["employees"])
            #expect(departments.map { $0.employees.map(\.id) } == [[1], [2]])
            #expect(employees.map { $0.formerDepartment?.id } == [2, 1])
            for employee in employees { employee.counter = counter }
            for department in departments { department.counter = counter }
        }
        #expect(counter.count == 4)
    }
}

extension FaultHoldTests {
    @Test func newObjectsReferringToEachOtherAreFreed() throws {
        let counter = DeinitCounter()
        do {
            let a = HEmployee(), b = HEmployee(), c = HEmployee()
            a.counter = counter; b.counter = counter; c.counter = counter
            a.manager = b; b.manager = a          // neither saved
            c.manager = c                         // itself
            #expect(a.manager === b && b.manager === a && c.manager === c)
        }
        #expect(counter.count == 3)
    }

    @Test func aNewObjectReferringToItselfIsSaved() throws {
        let temp = try TestDatabase()
        let boss = HEmployee(); boss.name = "Boss"; boss.manager = boss
        try temp.db.save(boss)
        #expect(boss.manager === boss && boss.$manager.key == .integer(boss.id))
        #expect(try temp.db.value(Int64.self, "SELECT manager FROM \"HEmployee\" WHERE id = ?", boss.id) == boss.id)
        try temp.db.save(boss)                   // nothing left to write
        let db = try temp.reopen()
        let again = try #require(try db.object(HEmployee.self, forKey: boss.id))
        #expect(again.manager === again)
    }

    @Test func aNewObjectFreedBeforeTheOneReferringToItIsSavedIsAnError() throws {
        let db = try TestDatabase.make()
        let b = HEmployee()
        do {
            let a = HEmployee()
            a.manager = b; b.manager = a          // b holds a weakly (a holds b): no cycle
        }
        #expect(b.manager == nil)                 // a is gone
        let error = try #require(throws: ModelError.self) { try db.save(b) }   // not a silent NULL
        #expect(error.kind == .unsavedRelated)
        b.manager = nil
        try db.save(b)
    }
}

extension FaultHoldTests {
    @Test func aNewOwnerHoldsASavedObjectUntilItIsSavedHoweverLargeItsGraph() throws {
        let db = try TestDatabase.make()
        try company(db, departments: 1, employeesEach: 300)   // more than the cycle walk visits
        let employee = HEmployee(); employee.name = "new"
        do {
            let department = try #require(try db.object(HDepartment.self, forKey: 1))
            #expect(department.employees.count == 300)
            employee.department = department
        }
        #expect(employee.department?.name == "D1")            // held strongly: not saved yet
        try db.save(employee)
        #expect(try db.value(Int64.self, "SELECT department FROM \"HEmployee\" WHERE id = ?", employee.id) == 1)
    }
}
