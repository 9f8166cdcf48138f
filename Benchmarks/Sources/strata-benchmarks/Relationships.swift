// Workload 5, relationships (issue 4): the to-one relationship of 10,000 employees to their department,
// read through a hand-written JOIN (raw C; GRDB with positional reads), lazily (Strata's faults), and
// with Strata's prefetch. Every contender produces, for every employee, (id, name, department's name).
//
// Database (built once, untimed; each run gets a copy in a fresh folder):
//   dept(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')              1,000 rows, "department d"
//   emp(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', dept INTEGER) 10,000 rows, "employee e",
//       dept = (337 e mod 1000) + 1: ten employees per department, scattered over the emp table
// Strata's schema plan for both models must be empty on it (checked before every Strata run).
//
// The Strata runs also replay their variant, untimed, on another fresh handle with `traceStatements`,
// and fail unless lazy = 1 SELECT of emp + one SELECT by key per distinct department and prefetch =
// 1 SELECT of emp + one IN (...) query per chunk of keys, each dept query an indexed search (EXPLAIN
// QUERY PLAN); the counts are printed under the table.
import CSQLiteBench
import Foundation
import GRDB
#if STRATA_MODELS
import Strata
#endif

/// What every contender produces per employee; `deptName` nil means the relationship read as nil.
struct EmpDept {
    var id: Int64
    var name: String
    var deptName: String?
}

enum RelationshipTables {
    /// Set from `--departments` before any run (the harness is single-threaded).
    nonisolated(unsafe) static var departments = 1_000
    static let createSQL = [
        "CREATE TABLE dept(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE emp(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', dept INTEGER)",
        // The foreign-key column indexed, as Django, Core Data and most schemas have it. (The JOIN scans emp
        // and searches dept by rowid either way; the to-many prefetch of every department still scans emp.)
        "CREATE INDEX emp_dept ON emp(dept)",
    ]
    /// The hand-written JOIN of the raw and GRDB contenders.
    static let joinSQL = "SELECT emp.id, emp.name, dept.name FROM emp JOIN dept ON dept.id = emp.dept"

    static func employeeName(_ id: Int64) -> String { "employee \(id)" }
    static func departmentName(_ id: Int64) -> String { "department \(id)" }
    /// Employee e works in department (337 e mod 1000) + 1 (337 is prime to 1000: every department gets
    /// ten employees, and consecutive employees land in departments far apart).
    static func department(ofEmployee id: Int64) -> Int64 { (id * 337) % Int64(departments) + 1 }

    static func create(at path: String, employees: Int) throws {
        try SQLiteC.withDatabase(path) { db in
            try SQLiteC.exec(db, "BEGIN")
            for sql in createSQL { try SQLiteC.exec(db, sql) }
            let insertDept = try SQLiteC.prepare(db, "INSERT INTO dept(id, name) VALUES (?, ?)")
            defer { sqlite3_finalize(insertDept) }
            for id in 1...Int64(departments) {
                sqlite3_bind_int64(insertDept, 1, id)
                sqlite3_bind_text(insertDept, 2, departmentName(id), -1, sqliteTransient)
                let rc = sqlite3_step(insertDept)
                guard rc == SQLITE_DONE else { throw SQLiteC.error(db, rc, "template insert (dept)") }
                sqlite3_reset(insertDept)
            }
            let insertEmp = try SQLiteC.prepare(db, "INSERT INTO emp(id, name, dept) VALUES (?, ?, ?)")
            defer { sqlite3_finalize(insertEmp) }
            for id in 1...Int64(employees) {
                sqlite3_bind_int64(insertEmp, 1, id)
                sqlite3_bind_text(insertEmp, 2, employeeName(id), -1, sqliteTransient)
                sqlite3_bind_int64(insertEmp, 3, department(ofEmployee: id))
                let rc = sqlite3_step(insertEmp)
                guard rc == SQLITE_DONE else { throw SQLiteC.error(db, rc, "template insert (emp)") }
                sqlite3_reset(insertEmp)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
    }

    /// Every employee 1...employees exactly once, with its own name and its department's name.
    static func verify(_ rows: [EmpDept], employees: Int, _ what: String) throws {
        try Verification.check(rows.count == employees, "\(what): \(rows.count) employees, expected \(employees)")
        var seen = [Bool](repeating: false, count: employees + 1)
        for (index, row) in rows.enumerated() {
            let id = row.id
            try Verification.check(id >= 1 && id <= Int64(employees), "\(what): row \(index) has id \(id), expected 1...\(employees)")
            try Verification.check(!seen[Int(id)], "\(what): employee \(id) appears twice")
            seen[Int(id)] = true
            let name = employeeName(id), deptName = departmentName(department(ofEmployee: id))
            try Verification.check(row.name == name, "\(what): employee \(id) is named \(row.name), expected \(name)")
            try Verification.check(row.deptName == deptName,
                                   "\(what): employee \(id) has department \(row.deptName ?? "nil"), expected \(deptName)")
        }
    }

    /// The plan SQLite picks for `sql` (EXPLAIN QUERY PLAN details, joined), on a connection of its own.
    static func queryPlan(_ sql: String, at path: String) throws -> String {
        try SQLiteC.withDatabase(path) { db in
            let statement = try SQLiteC.prepare(db, "EXPLAIN QUERY PLAN " + sql)
            defer { sqlite3_finalize(statement) }
            var details: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                details.append(sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? "")
            }
            return details.joined(separator: "; ")
        }
    }

    // MARK: Raw C: the JOIN, one prepared statement, plain structs

    @inline(__always)
    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))),
                      as: UTF8.self)
    }

    static func rawJoin(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw")
        let (duration, rows) = try measure { () throws -> [EmpDept] in
            let statement = try SQLiteC.prepare(db, joinSQL)
            defer { sqlite3_finalize(statement) }
            var rows: [EmpDept] = []
            while true {
                let rc = sqlite3_step(statement)
                guard rc == SQLITE_ROW else {
                    if rc == SQLITE_DONE { break }
                    throw SQLiteC.error(db, rc, "join")
                }
                rows.append(EmpDept(id: sqlite3_column_int64(statement, 0), name: text(statement, 1),
                                    deptName: text(statement, 2)))
            }
            return rows
        }
        try verify(rows, employees: job.rows, "raw JOIN")
        return duration
    }

    // MARK: GRDB optimized: the same JOIN, cached statement, positional reads

    static func grdbJoin(_ job: Job) throws -> Duration {
        let queue = try DatabaseQueue(path: job.path)
        defer { try? queue.close() }
        try Verification.noMutex(queue.inDatabase { $0.sqliteConnection }, "GRDB optimized")
        let (duration, rows) = try measure {
            try queue.inDatabase { try EmpDept.fetchAll($0.cachedStatement(sql: joinSQL)) }
        }
        try verify(rows, employees: job.rows, "GRDB JOIN")
        return duration
    }
}

extension EmpDept: FetchableRecord {
    init(row: GRDB.Row) {
        id = row[0]
        name = row[1]
        deptName = row[2]
    }
}

// MARK: - Statement counts (printed under the table)

/// What the untimed traced replays found; the same in every round (checked), printed once.
final class RelationshipStatements {
    var lazy: String?
    var prefetch: String?
    var children: String?
    var schemaReads: Int?

    var notes: [String] {
        guard lazy != nil || prefetch != nil || children != nil else { return [] }
        var lines = ["statements (traced in an untimed replay of each run):"]
        if let lazy { lines.append("  Strata lazy:     \(lazy)") }
        if let prefetch { lines.append("  Strata prefetch: \(prefetch)") }
        if let children { lines.append("  Strata to-many:  \(children)") }
        if let schemaReads {
            lines.append("  (each timed Strata run also reads the schema of emp and dept on first use, as in fetch: \(schemaReads) statements)")
        }
        return lines
    }

    func record(_ value: String, in slot: ReferenceWritableKeyPath<RelationshipStatements, String?>) throws {
        if let previous = self[keyPath: slot] {
            try Verification.check(previous == value, "statement counts changed between rounds: \(previous) vs \(value)")
        }
        self[keyPath: slot] = value
    }
}

#if STRATA_MODELS
// MARK: - Strata: models declared as a user would

final class StrataDept: Model {
    static let tableName = "dept"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class StrataEmp: Model {
    static let tableName = "emp"
    var id: Int64 = 0
    var name = ""
    @Reference var dept: StrataDept?
    required init() {}
}

/// The department again, from the to-many side: its employees as `@Children` (a model of its own, so that
/// the to-one variants' department has no to-many relationship to weigh on them).
final class StrataTeam: Model {
    static let tableName = "dept"
    var id: Int64 = 0
    var name = ""
    @Children(by: "dept") var staff: [StrataStaffMember]
    required init() {}
}

/// The employee as the to-many side sees it: its `dept` refers to a ``StrataTeam``.
final class StrataStaffMember: Model {
    static let tableName = "emp"
    var id: Int64 = 0
    var name = ""
    @Reference var dept: StrataTeam?
    required init() {}
}

extension StrataContender {
    /// to-many: every department with its employees prefetched (`@Children`), then one row per employee.
    /// The departments hold their employees until they are released, after the clock stops.
    static func readChildren(_ db: Strata.Database) throws -> (teams: [StrataTeam], rows: [EmpDept]) {
        let teams = try db.objects(StrataTeam.self, where: "", prefetching: ["staff"])
        var rows: [EmpDept] = []
        rows.reserveCapacity(RelationshipTables.departments * 10)
        for team in teams {
            for member in team.staff {
                rows.append(EmpDept(id: member.id, name: member.name, deptName: team.name))
            }
        }
        return (teams, rows)
    }

    static func relationshipsChildren(_ job: Job, _ statements: RelationshipStatements) throws -> Duration {
        if !countingInstructions {
            let db = try database(job.path)
            defer { try? db.close() }
            for (table, plan) in [("emp", { try db.schemaPlan(for: StrataStaffMember.self) }), ("dept", { try db.schemaPlan(for: StrataTeam.self) })] {
                try Verification.check(try plan().isEmpty, "Strata plans to change the benchmark table \(table) for the to-many models")
            }
        }
        let duration: Duration
        do {
            let db = try open(job)
            defer { try? db.close() }
            let (elapsed, result) = try measure { try readChildren(db) }
            duration = elapsed
            try RelationshipTables.verify(result.rows, employees: job.rows, "Strata to-many")
        }
        if countingInstructions { return duration }
        // Untimed: the same, every statement traced: 1 SELECT of dept + one query of emp per chunk of keys.
        let db = try open(job)
        defer { try? db.close() }
        var traced: [String] = []
        let trace = db.traceStatements { traced.append($0) }
        let result = try readChildren(db)
        trace.cancel()
        try RelationshipTables.verify(result.rows, employees: job.rows, "Strata to-many (traced replay)")
        let queries = traced.filter { !$0.lowercased().contains("pragma") && !$0.lowercased().contains("sqlite_master")
            && !$0.lowercased().contains("sqlite_schema") }
        // (Over an indexed column, a prefetch of more than 64 owners reads their table's greatest rowid to
        // choose between the index and a scan.)
        let estimate = queries.filter { $0 == #"SELECT max(rowid) FROM "dept""# }
        let deptQueries = queries.filter { $0.contains(#"FROM "dept""#) && !estimate.contains($0) }, empQueries = queries.filter { $0.contains(#""emp""#) }
        try Verification.check(deptQueries.count == 1 && empQueries.count >= 1 && estimate.count <= 1
                               && queries.count == deptQueries.count + empQueries.count + estimate.count,
                               "Strata to-many: expected 1 SELECT of dept and one query of emp per chunk of keys, got \(queries)")
        let form = empQueries.allSatisfy { $0.contains("BETWEEN") } ? "scan of emp between the least and greatest of" : "SELECT of emp by"
        try statements.record("\(queries.count) statements (1 SELECT of dept + \(estimate.isEmpty ? "" : "its greatest rowid + ")\(empQueries.count) \(form) \(RelationshipTables.departments.formatted()) department keys)",
                              in: \.children)
        return duration
    }

    /// What a variant returns: the owners (which hold their departments), an unused list kept for the
    /// shape of the result, and the (employee, department) names. Released after the clock stops.
    typealias RelationshipResult = (owners: [StrataEmp], departments: [StrataDept?], rows: [EmpDept])

    /// lazy: fetch every employee, then read `emp.dept?.name`: the first read of each department is a
    /// fault (one SELECT by key), later reads find the live instance in the identity map.
    static func readLazily(_ db: Strata.Database) throws -> RelationshipResult {
        let owners = try db.objects(StrataEmp.self)
        var rows: [EmpDept] = []
        rows.reserveCapacity(owners.count)
        for owner in owners {
            // The owner holds its department once resolved: no list of them needs keeping here.
            rows.append(EmpDept(id: owner.id, name: owner.name, deptName: owner.dept?.name))
        }
        return (owners, [], rows)
    }

    /// prefetch: every employee and, in one more query per chunk of keys, their departments (held by
    /// the owners); reading runs no query.
    static func readPrefetched(_ db: Strata.Database) throws -> RelationshipResult {
        let owners = try db.objects(StrataEmp.self, where: "", prefetching: ["dept"])
        var rows: [EmpDept] = []
        rows.reserveCapacity(owners.count)
        for owner in owners {
            rows.append(EmpDept(id: owner.id, name: owner.name, deptName: owner.dept?.name))
        }
        return (owners, [], rows)
    }

    /// Strata's plan for both models must be empty on the benchmark's tables (else first use would
    /// migrate inside the timed part). A separate handle, so that the timed one starts cold.
    static func checkRelationshipTablesInSync(_ job: Job) throws {
        let hint = "make RelationshipTables.createSQL (Relationships.swift) match what Strata declares for StrataEmp and StrataDept"
        let db = try database(job.path)
        defer { try? db.close() }
        for (table, plan) in [("emp", { try db.schemaPlan(for: StrataEmp.self) }), ("dept", { try db.schemaPlan(for: StrataDept.self) })] {
            let steps: SchemaPlan
            do { steps = try plan() } catch {
                throw Verification.failure("Strata rejects the benchmark table \(table) (\(error)); \(hint)")
            }
            try Verification.check(steps.isEmpty, "Strata plans to change the benchmark table \(table) (\(steps)); \(hint)")
        }
    }

    static func relationshipsLazy(_ job: Job, _ statements: RelationshipStatements) throws -> Duration {
        try relationships(job, "Strata lazy", statements, lazy: true, readLazily)
    }

    static func relationshipsPrefetch(_ job: Job, _ statements: RelationshipStatements) throws -> Duration {
        try relationships(job, "Strata prefetch", statements, lazy: false, readPrefetched)
    }

    private static func relationships(_ job: Job, _ what: String, _ statements: RelationshipStatements, lazy: Bool,
                                      _ body: (Strata.Database) throws -> RelationshipResult) throws -> Duration {
        if !countingInstructions { try checkRelationshipTablesInSync(job) }
        // Timed: on a fresh handle (the first use of both models, with its schema check, is part of it).
        let duration: Duration
        do {
            let db = try open(job)
            defer { try? db.close() }
            let (elapsed, result) = try measure { try body(db) }
            duration = elapsed
            try RelationshipTables.verify(result.rows, employees: job.rows, what)
        }
        // Untimed: the same on another fresh handle, every statement traced (not in a callgrind child:
        // the timed run checked it, and it would count as Strata's work).
        if countingInstructions { return duration }
        let db = try open(job)
        defer { try? db.close() }
        var traced: [String] = []
        let trace = db.traceStatements { traced.append($0) }
        let result = try body(db)
        trace.cancel()
        try RelationshipTables.verify(result.rows, employees: job.rows, "\(what) (traced replay)")
        try checkStatements(traced, job, what, statements, lazy: lazy, maximumArguments: db.maximumArguments)
        return duration
    }

    /// Sorts the traced statements into schema reads, queries of emp and queries of dept, and checks
    /// the counts: lazy and prefetch alike = 1 + one IN query per chunk of keys (lazy faults are batched:
    /// the first fault loads the department of every live employee); every dept query an indexed search.
    private static func checkStatements(_ traced: [String], _ job: Job, _ what: String, _ statements: RelationshipStatements,
                                        lazy: Bool, maximumArguments: Int) throws {
        var schemaReads = 0
        var empQueries: [String] = [], deptQueries: [String] = [], other: [String] = []
        for sql in traced {
            let lowercased = sql.lowercased()
            if lowercased.contains("pragma") || lowercased.contains("sqlite_master") || lowercased.contains("sqlite_schema") {
                schemaReads += 1
            } else if sql.contains(#"FROM "emp""#) {
                empQueries.append(sql)
            } else if sql.contains(#"FROM "dept""#) || sql.contains(#"JOIN "dept""#) {
                deptQueries.append(sql)
            } else {
                other.append(sql)
            }
        }
        let distinct = Set((1...Int64(job.rows)).map(RelationshipTables.department(ofEmployee:))).count
        try Verification.check(other.isEmpty, "\(what): unexpected statements \(other)")
        try Verification.check(empQueries.count == 1, "\(what): \(empQueries.count) queries of emp, expected 1: \(empQueries)")
        try Verification.check(empQueries[0].range(of: "WHERE") == nil, "\(what): the emp query has a WHERE: \(empQueries[0])")
        // Integer keys go in one JSON array per 32,768 (json_each); other keys in IN lists under the variable limit.
        let usesJSON = deptQueries.first?.contains("json_each(") == true
        let expectedDept = (distinct + (usesJSON ? 32_768 : maximumArguments) - 1) / (usesJSON ? 32_768 : maximumArguments)
        let shape = lazy ? "one batched query per chunk of faulted keys" : "one query per chunk of keys"
        try Verification.check(deptQueries.count == expectedDept,
                               "\(what): \(deptQueries.count) queries of dept, expected \(expectedDept) (\(shape)) for \(distinct) departments")
        for sql in Set(deptQueries) {
            // Integer keys come as one JSON array, joined key by key (distinct rowid keys) or as `IN (...)`.
            try Verification.check(sql.contains(" IN (") || sql.contains("json_each("), "\(what): a dept query is not \(shape): \(sql)")
            let plan = try RelationshipTables.queryPlan(sql, at: job.path)
            // Scanning the JSON array of keys is the point; the table itself must be searched by key.
            let tableScans = plan.components(separatedBy: "; ").filter { !$0.contains("VIRTUAL TABLE") }.joined(separator: "; ")
            try Verification.check(plan.contains("SEARCH") && !tableScans.contains("SCAN"),
                                   "\(what): a dept query is not an indexed search: \(sql) -> \(plan)")
        }
        let total = empQueries.count + deptQueries.count
        let plan = try RelationshipTables.queryPlan(deptQueries[0], at: job.path)
        let summary = lazy
            ? "\(total.formatted()) statements (1 SELECT of emp + \(deptQueries.count) batched SELECT of dept by \(distinct.formatted()) keys at the first fault; \(plan))"
            : "\(total.formatted()) statements (1 SELECT of emp + \(deptQueries.count) SELECT of dept by \(distinct.formatted()) keys; \(plan))"
        try statements.record(summary, in: lazy ? \.lazy : \.prefetch)
        if let previous = statements.schemaReads {
            try Verification.check(previous == schemaReads, "\(what): \(schemaReads) schema reads, \(previous) in another run")
        }
        statements.schemaReads = schemaReads
    }
}
#endif
