import Foundation
import Strata
import StrataTestSupport
import Testing

// The engine-boundary guard (issue 34): the statements Strata issues for the benchmark workloads (first use,
// fetch, insert, update, faults, prefetch, to-many), the demo's schema evolution, the failure diagnoses, a
// migration run and a pool are recorded here, and must stay exactly these while code moves behind the driver,
// dialect and introspector. A change of SQL is then a visible edit of `StatementTraceGolden.swift`, never a
// side effect of a move.
//
// To record again after a deliberate change: STRATA_RECORD_TRACE=/tmp/trace.swift swift test --filter
// StatementTraceTests, then copy that file over StatementTraceGolden.swift.

private final class TraceItem: Model {
    static let tableName = "item"
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    required init() {}
}

private final class TraceDept: Model {
    static let tableName = "dept"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class TraceEmp: Model {
    static let tableName = "emp"
    var id: Int64 = 0
    var name = ""
    @Reference var dept: TraceDept?
    required init() {}
}

private final class TraceTeam: Model {
    static let tableName = "dept"
    var id: Int64 = 0
    var name = ""
    @Children(by: "dept") var staff: [TraceStaff]
    required init() {}
}

private final class TraceStaff: Model {
    static let tableName = "emp"
    var id: Int64 = 0
    var name = ""
    @Reference var dept: TraceTeam?
    required init() {}
}

private final class TraceParent: Model {
    static let tableName = "parent"
    var id: Int64 = 0
    required init() {}
}

private final class TraceChild: Model {
    static let tableName = "child"
    var id: Int64 = 0
    @Reference var parent: TraceParent?
    required init() {}
}

private enum TraceV1 {
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

private enum TraceV2 {
    final class Department: Model {
        static let tableName = "Department"
        var id: Int64 = 0
        var name = ""
        @Children(by: "department", orderBy: "name") var employees: [Employee]
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

/// Every statement one handle runs, in order, with a section title before each part.
private final class Recorder {
    var lines: [String] = []
    func section(_ title: String) { lines.append("-- \(title)") }
}

private func record(_ db: Database, into recorder: Recorder, _ body: () throws -> Void) rethrows {
    recorder.lines += try statements(db, body)
}

private struct TraceSection {
    var title: String
    var statements: [String] = []
}

@Suite struct StatementTraceTests {
    /// The workloads, run on one temporary database; the same statements in the same order every run.
    private func workloadTrace() throws -> [String] {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let recorder = Recorder()
        try db.execute("""
            CREATE TABLE item(id INTEGER PRIMARY KEY, i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, \
            i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)
            """)
        try db.execute("INSERT INTO item(i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)")
        try db.execute("CREATE TABLE dept(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
        try db.execute("CREATE TABLE emp(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', dept INTEGER)")
        try db.execute("CREATE INDEX emp_dept ON emp(dept)")
        try db.execute("INSERT INTO dept(id, name) VALUES (1, 'A'), (2, 'B')")
        try db.execute("INSERT INTO emp(id, name, dept) VALUES (1, 'x', 1), (2, 'y', 2), (3, 'z', 1)")
        try temp.reopen()
        let fresh = temp.db

        recorder.section("fetch (first use)")
        var items: [TraceItem] = []
        try record(fresh, into: recorder) { items = try fresh.objects(TraceItem.self) }
        #expect(items.count == 1)

        recorder.section("insert")
        try record(fresh, into: recorder) {
            try fresh.transaction {
                for row in 0..<3 {
                    let item = TraceItem()
                    item.i0 = Int64(row); item.i9 = Int64(row * 9)
                    try fresh.save(item)
                }
            }
        }
        recorder.section("update")
        try record(fresh, into: recorder) {
            let all = try fresh.objects(TraceItem.self)
            try fresh.transaction {
                for item in all { item.i5 += 1; try fresh.save(item) }
            }
        }
        recorder.section("lazy faults")
        try record(fresh, into: recorder) {
            let owners = try fresh.objects(TraceEmp.self)
            #expect(owners.map { $0.dept?.name ?? "-" } == ["A", "B", "A"])
        }
        try temp.reopen()
        let second = temp.db
        recorder.section("prefetch")
        try record(second, into: recorder) {
            let owners = try second.objects(TraceEmp.self, where: "", prefetching: ["dept"])
            #expect(owners.map { $0.dept?.name ?? "-" } == ["A", "B", "A"])
        }
        recorder.section("to-many prefetch")
        try record(second, into: recorder) {
            let teams = try second.objects(TraceTeam.self, where: "", prefetching: ["staff"])
            #expect(teams.map { $0.staff.count } == [2, 1])
        }

        recorder.section("demo: version 1")
        try record(second, into: recorder) {
            try second.syncSchema(TraceV1.Department.self)
            try second.syncSchema(TraceV1.Employee.self)
            let research = TraceV1.Department(); research.name = "Research"
            try second.save(research)
            let ada = TraceV1.Employee(); ada.name = "Ada"; ada.department = research
            ada.dateOfBirth = Date(timeIntervalSince1970: -312_508_800)
            try second.save(ada)
        }
        try temp.reopen()
        let third = temp.db
        recorder.section("demo: version 2 (plan, sync, default, to-many, raw SQL)")
        try record(third, into: recorder) {
            _ = try third.schemaPlan(for: TraceV2.Employee.self)
            try third.syncSchema(TraceV2.Employee.self)
            try third.syncSchema(TraceV2.Department.self)
            let ada = try #require(try third.first(TraceV2.Employee.self, where: "WHERE name = ?", "Ada"))
            #expect(ada.level == 1)
            #expect(ada.department?.employees.map(\.name) == ["Ada"])
            ada.level += 1
            try third.save(ada)
            try third.execute("UPDATE $T SET name = ?, level = level + 1 WHERE $PK = ?", for: TraceV2.Employee.self, "Ada L", ada.employeeId)
            #expect(ada.level == 3)
        }

        recorder.section("unique failure")
        try record(third, into: recorder) {
            let a = TraceV2.Employee(); a.name = "a"; a.email = "same"
            let b = TraceV2.Employee(); b.name = "b"; b.email = "same"
            try third.save(a)
            #expect(throws: ModelError.self) { try third.save(b) }
        }
        recorder.section("foreign key failure")
        try third.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY)")
        try third.execute("CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id))")
        try record(third, into: recorder) {
            let parent = TraceParent()
            try third.save(parent)
            let child = TraceChild(); child.parent = parent
            try third.save(child)
            #expect(throws: (any Error).self) { try third.delete(parent) }
        }

        recorder.section("migrations")
        var migrator = Migrator()
        migrator.register("0001_create", sql: "CREATE TABLE m (x INTEGER NOT NULL)")
        migrator.register("0002_seed", sql: "INSERT INTO m VALUES (1)")
        try record(third, into: recorder) {
            let first = try migrator.migrate(third)
            let again = try migrator.migrate(third)
            #expect(first == ["0001_create", "0002_seed"])
            #expect(again == [])
        }
        recorder.section("refresh after another connection's commit")
        try record(third, into: recorder) {
            let other = try Database(path: temp.path)
            try other.execute("UPDATE item SET i1 = 77 WHERE id = 1")
            try other.close()
            let one = try #require(try third.object(TraceItem.self, forKey: Int64(1)))
            #expect(one.i1 == 77)
        }
        return recorder.lines
    }

    @Test func theStatementsOfTheWorkloadsAreThoseRecorded() throws {
        let actual = try workloadTrace()
        if let path = ProcessInfo.processInfo.environment["STRATA_RECORD_TRACE"] {
            let body = actual.map { "    " + String(reflecting: $0) + "," }.joined(separator: "\n")
            let file = "// Recorded by StatementTraceTests (STRATA_RECORD_TRACE); see that file.\n"
                + "let statementTraceGolden: [String] = [\n\(body)\n]\n"
            try file.write(toFile: path, atomically: true, encoding: .utf8)
        }
        // Compared section by section, as multisets: a few diagnoses visit tables in dictionary order,
        // which Swift seeds per process; any statement added, removed or changed still shows.
        let seen: [TraceSection] = sections(actual)
        let expected: [TraceSection] = sections(statementTraceGolden)
        let seenTitles: [String] = seen.map { $0.title }
        let expectedTitles: [String] = expected.map { $0.title }
        #expect(seenTitles == expectedTitles)
        for (now, was) in zip(seen, expected) {
            let nowSorted: [String] = now.statements.sorted()
            let wasSorted: [String] = was.statements.sorted()
            if nowSorted == wasSorted { continue }
            let added: [String] = now.statements.filter { !was.statements.contains($0) }
            let removed: [String] = was.statements.filter { !now.statements.contains($0) }
            let message: String = "section " + now.title + " changed; new: " + added.description + "; gone: " + removed.description
            Issue.record(Comment(rawValue: message))
        }
    }

    private func sections(_ lines: [String]) -> [TraceSection] {
        var result: [TraceSection] = []
        for line in lines {
            if line.hasPrefix("-- ") {
                result.append(TraceSection(title: String(line.dropFirst(3))))
            } else if !result.isEmpty {
                result[result.count - 1].statements.append(line)
            }
        }
        return result
    }
}
