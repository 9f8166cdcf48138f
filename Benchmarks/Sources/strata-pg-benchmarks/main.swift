// Strata on PostgreSQL beside a raw libpq loop (issue 35), in one run:
//   swift run -c release strata-pg-benchmarks --postgres URL [--rows N] [--rounds N] [--json PATH] [--callgrind [--callgrind-rows N]]
//
// Each round, in a fresh table `pgbench_item(id, i0...i9)` (dropped and made again by Strata's syncSchema,
// untimed, for each contender), on fresh connections opened untimed:
//   insert: N rows in one transaction (raw: PQprepare once, PQexecPrepared per row, BEGIN/COMMIT;
//           Strata: db.transaction { for o in objects { try db.save(o) } }), the objects made inside
//   fetch:  every row into plain structs (raw: one SELECT, text results parsed with strtoll), plain final
//           classes (raw-classes: the same loop, one object per row, the least an object mapper does) or
//           objects (Strata: db.objects(T.self)); the timed part includes releasing the array (checked
//           untimed in between), as in strata-benchmarks
//   update: i5 += 1 on each fetched row/object (fetched untimed), written in one transaction (raw:
//           prepared `UPDATE ... SET i5 = $1 WHERE id = $2` per row; Strata: save of each dirty object)
//   prefetch: N employees each referring to one of N/10 departments (tables pgbench_emp, pgbench_dept, filled
//           untimed), fetched with their departments and each employee's department name read (raw: two
//           queries, `SELECT ... FROM pgbench_emp`, then `... FROM pgbench_dept WHERE id = ANY($1)` with the
//           distinct ids, into plain classes linked by reference; Strata: db.objects(Emp.self, prefetching:
//           ["dept"]), then emp.dept?.name); release included, as for fetch
// Row r (1...N) holds id r and 10*r + c in column ic; every result is checked outside the timed part.
// Strata's first use of the model on each handle (a catalog read) is made untimed, with db.count(T.self).
// Each statement is a round trip to the server: N = 10,000 rows take seconds per round, not milliseconds.
import CLibPQBench
import Foundation
import Logging
import Strata
import StrataPostgres

final class PGBenchItem: Model {
    static let tableName = "pgbench_item"
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    required init() {}
}

final class PGBenchDept: Model {
    static let tableName = "pgbench_dept"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class PGBenchEmp: Model {
    static let tableName = "pgbench_emp"
    var id: Int64 = 0
    var name = ""
    @Reference var dept: PGBenchDept?
    required init() {}
}

/// The raw prefetch's rows: plain classes, an employee holding its department.
final class PlainDept {
    var id: Int64 = 0
    var name = ""
}

final class PlainEmp {
    var id: Int64 = 0
    var name = ""
    var dept: PlainDept?
}

struct RawItem {
    var id: Int64
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64
}

/// The raw-classes contender's row: a plain final class with the same fields, no ORM.
final class PlainItem {
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw BenchFailure(description: message()) }
}

// MARK: - Options

var url: String?
var rows = 10_000
var rounds = 10
var jsonPath: String?
var callgrind = false
/// The rows of each `--callgrind` child (default: --rows): instructions per row hardly depend on it.
var callgrindRows: Int?
/// Set in a `--callgrind` child: the contender whose timed parts callgrind collects (raw, raw-classes, strata).
var counting: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--postgres": url = arguments.popFirst()
    case "--rows": rows = arguments.popFirst().flatMap { Int($0) } ?? rows
    case "--rounds": rounds = arguments.popFirst().flatMap { Int($0) } ?? rounds
    case "--json": jsonPath = arguments.popFirst()
    case "--callgrind": callgrind = true
    case "--callgrind-rows": callgrindRows = arguments.popFirst().flatMap { Int($0) }
    case "--counting": counting = arguments.popFirst()
    default:
        print("usage: strata-pg-benchmarks --postgres URL [--rows N] [--rounds N] [--json PATH] [--callgrind] [--callgrind-rows N]")
        exit(argument == "--help" ? 0 : 2)
    }
}
guard rounds >= 1, rows >= 1, (callgrindRows ?? 1) >= 1 else {
    print("strata-pg-benchmarks: --rows, --rounds and --callgrind-rows need a whole number of at least 1")
    exit(2)
}
guard let url else {
    print("strata-pg-benchmarks: --postgres URL is required (e.g. postgresql:///strata?host=/tmp/dir&user=postgres)")
    exit(2)
}

/// The run's server and size, handed to every function (top-level variables are the main actor's).
struct Settings: Sendable {
    let url: String
    let rows: Int
    /// In a `--callgrind` child: the contender counted (its timed parts only, in the counted round).
    let counting: String?
}
let settings = Settings(url: url, rows: rows, counting: counting)

// MARK: - Raw libpq

final class RawConnection {
    let conn: OpaquePointer

    init(_ url: String) throws {
        guard let conn = PQconnectdb(url) else { throw BenchFailure(description: "PQconnectdb returned nil") }
        self.conn = conn
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(conn))
            PQfinish(conn)
            throw BenchFailure(description: "raw connect: \(message)")
        }
    }

    deinit { PQfinish(conn) }

    var error: String { String(cString: PQerrorMessage(conn)) }

    /// Runs a result-less statement (or checks a PGresult), clearing the result.
    func expectCommand(_ result: OpaquePointer?, _ what: String) throws {
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw BenchFailure(description: "raw \(what): \(error)") }
    }

    func exec(_ sql: String) throws { try expectCommand(PQexec(conn, sql), sql) }

    func prepare(_ name: String, _ sql: String, parameters: Int32) throws {
        try expectCommand(PQprepare(conn, name, sql, parameters, nil), "prepare \(sql)")
    }

    /// Runs a prepared statement with `values` as text parameters (each written into `buffer`, 24 bytes a value).
    func execPrepared(_ name: String, _ values: [Int64], buffer: UnsafeMutablePointer<CChar>,
                      pointers: UnsafeMutablePointer<UnsafePointer<CChar>?>) throws {
        for (i, value) in values.enumerated() {
            let slot = buffer + 24 * i
            _ = withVaList([value]) { vsnprintf(slot, 24, "%lld", $0) }
            pointers[i] = UnsafePointer(slot)
        }
        try expectCommand(PQexecPrepared(conn, name, Int32(values.count), pointers, nil, nil, 0), "execute \(name)")
    }
}

enum Raw {
    static let columns = "id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9"

    static func insert(_ raw: RawConnection, rows: Int) throws {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 24 * 11)
        let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 11)
        defer { buffer.deallocate(); pointers.deallocate() }
        try raw.prepare("ins", "INSERT INTO pgbench_item (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", parameters: 11)
        try raw.exec("BEGIN")
        var values = [Int64](repeating: 0, count: 11)
        for r in 1...rows {
            let r = Int64(r)
            values[0] = r
            for c in 0..<10 { values[c + 1] = 10 * r + Int64(c) }
            try raw.execPrepared("ins", values, buffer: buffer, pointers: pointers)
        }
        try raw.exec("COMMIT")
    }

    static func fetch(_ raw: RawConnection) throws -> [RawItem] {
        let result = PQexec(raw.conn, "SELECT \(columns) FROM pgbench_item")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw BenchFailure(description: "raw fetch: \(raw.error)") }
        let count = PQntuples(result)
        var items: [RawItem] = []
        items.reserveCapacity(Int(count))
        for row in 0..<count {
            func value(_ column: Int32) -> Int64 { strtoll(PQgetvalue(result, row, column), nil, 10) }
            items.append(RawItem(id: value(0), i0: value(1), i1: value(2), i2: value(3), i3: value(4), i4: value(5),
                                 i5: value(6), i6: value(7), i7: value(8), i8: value(9), i9: value(10)))
        }
        return items
    }

    /// The same loop as ``fetch(_:)``, one plain final class per row (raw-classes).
    static func fetchClasses(_ raw: RawConnection) throws -> [PlainItem] {
        let result = PQexec(raw.conn, "SELECT \(columns) FROM pgbench_item")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw BenchFailure(description: "raw-classes fetch: \(raw.error)") }
        let count = PQntuples(result)
        var items: [PlainItem] = []
        items.reserveCapacity(Int(count))
        for row in 0..<count {
            func value(_ column: Int32) -> Int64 { strtoll(PQgetvalue(result, row, column), nil, 10) }
            let item = PlainItem()
            item.id = value(0); item.i0 = value(1); item.i1 = value(2); item.i2 = value(3); item.i3 = value(4)
            item.i4 = value(5); item.i5 = value(6); item.i6 = value(7); item.i7 = value(8); item.i8 = value(9)
            item.i9 = value(10)
            items.append(item)
        }
        return items
    }

    /// The employees and, by a second query for the distinct department ids they hold, their departments.
    static func prefetch(_ raw: RawConnection) throws -> [PlainEmp] {
        let result = PQexec(raw.conn, "SELECT id, name, dept FROM pgbench_emp")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw BenchFailure(description: "raw prefetch: \(raw.error)") }
        let count = PQntuples(result)
        var emps: [PlainEmp] = []
        emps.reserveCapacity(Int(count))
        var deptIDs: [Int64] = []
        deptIDs.reserveCapacity(Int(count))
        var wanted = Set<Int64>()
        for row in 0..<count {
            let emp = PlainEmp()
            emp.id = strtoll(PQgetvalue(result, row, 0), nil, 10)
            emp.name = String(cString: PQgetvalue(result, row, 1))
            let dept = strtoll(PQgetvalue(result, row, 2), nil, 10)
            deptIDs.append(dept)
            wanted.insert(dept)
            emps.append(emp)
        }
        let array = "{" + wanted.map(String.init).joined(separator: ",") + "}"
        let depts = array.withCString { text -> OpaquePointer? in
            var values: [UnsafePointer<CChar>?] = [text]
            return PQexecParams(raw.conn, "SELECT id, name FROM pgbench_dept WHERE id = ANY($1::bigint[])", 1, nil, &values, nil, nil, 0)
        }
        defer { PQclear(depts) }
        guard PQresultStatus(depts) == PGRES_TUPLES_OK else { throw BenchFailure(description: "raw prefetch departments: \(raw.error)") }
        var byID: [Int64: PlainDept] = [:]
        byID.reserveCapacity(Int(PQntuples(depts)))
        for row in 0..<PQntuples(depts) {
            let dept = PlainDept()
            dept.id = strtoll(PQgetvalue(depts, row, 0), nil, 10)
            dept.name = String(cString: PQgetvalue(depts, row, 1))
            byID[dept.id] = dept
        }
        for (i, emp) in emps.enumerated() { emp.dept = byID[deptIDs[i]] }
        return emps
    }

    static func update(_ raw: RawConnection, _ items: inout [RawItem]) throws {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 24 * 2)
        let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 2)
        defer { buffer.deallocate(); pointers.deallocate() }
        try raw.prepare("upd", "UPDATE pgbench_item SET i5 = $1 WHERE id = $2", parameters: 2)
        try raw.exec("BEGIN")
        for i in items.indices {
            items[i].i5 += 1
            try raw.execPrepared("upd", [items[i].i5, items[i].id], buffer: buffer, pointers: pointers)
        }
        try raw.exec("COMMIT")
    }
}

// MARK: - Harness

/// Strata's defaults, but for the log level (no line per schema step).
func openStrata(_ s: Settings) throws -> Database {
    var configuration = Database.Configuration()
    configuration.logger.logLevel = .warning
    return try Database(postgresURL: s.url, configuration: configuration)
}

/// A fresh `pgbench_item`, as Strata declares it (the same table for both contenders).
func freshTable(_ s: Settings) throws {
    let db = try openStrata(s)
    defer { try? db.close() }
    try db.execute("DROP TABLE IF EXISTS pgbench_item")
    _ = try db.syncSchema(PGBenchItem.self)
}

/// Whether this process counts the timed parts of `contender` (a `--callgrind` child's counted round).
nonisolated(unsafe) var countedRound = false

/// The milliseconds `body` takes. In a `--callgrind` child counting `contender`, callgrind collects
/// exactly while `body` runs, and the counts are dumped labelled `label` (the workload).
func time(_ s: Settings, _ contender: String, _ label: String, _ body: () throws -> Void) rethrows -> Double {
    let counted = countedRound && s.counting == contender
    if counted { strata_pg_bench_callgrind_toggle() }
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    if counted {
        strata_pg_bench_callgrind_toggle()
        strata_pg_bench_callgrind_dump(label)
    }
    return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
}

/// A fetch's milliseconds: `fetch`, then (untimed) `verify`, then releasing what it returned (timed).
func timeFetch<T>(_ s: Settings, _ contender: String, _ fetch: () throws -> [T], label: String = "fetch",
                  verify: ([T]) throws -> Void) throws -> Double {
    var items: [T] = []
    let fetching = try time(s, contender, label) { items = try fetch() }
    try verify(items)
    let releasing = time(s, contender, label) { items = [] }
    withExtendedLifetime(items) {}
    return fetching + releasing
}

/// Every row as the table holds it (id, the sum of i5, the sum of the other columns' mismatches).
func verifyTable(_ s: Settings, _ who: String, updated: Bool) throws {
    let db = try openStrata(s)
    defer { try? db.close() }
    let count = try db.value(Int.self, "SELECT count(*) FROM pgbench_item") ?? -1
    let bad = try db.value(Int.self, """
        SELECT count(*) FROM pgbench_item WHERE i0 <> 10*id OR i1 <> 10*id+1 OR i2 <> 10*id+2 OR i3 <> 10*id+3
          OR i4 <> 10*id+4 OR i5 <> 10*id+5+? OR i6 <> 10*id+6 OR i7 <> 10*id+7 OR i8 <> 10*id+8 OR i9 <> 10*id+9
          OR id < 1 OR id > ?
        """, updated ? 1 : 0, s.rows) ?? -1
    try check(count == s.rows && bad == 0, "\(who): table holds \(count) rows, \(bad) wrong (expected \(s.rows), 0)")
}

func verifyFetched(_ s: Settings, _ who: String, _ values: [(Int64, [Int64])]) throws {
    try check(values.count == s.rows, "\(who) fetch: \(values.count) rows, expected \(s.rows)")
    for (id, columns) in values {
        for (c, v) in columns.enumerated() where v != 10 * id + Int64(c) {
            throw BenchFailure(description: "\(who) fetch: row \(id) column i\(c) = \(v), expected \(10 * id + Int64(c))")
        }
    }
}

/// Fresh `pgbench_dept` (N/10 rows, at least one) and `pgbench_emp` (N rows, employee r in department
/// 1 + r % D), as Strata declares them, filled by SQL (untimed).
func freshPrefetchTables(_ s: Settings) throws {
    let db = try openStrata(s)
    defer { try? db.close() }
    try db.execute("DROP TABLE IF EXISTS pgbench_emp; DROP TABLE IF EXISTS pgbench_dept")
    _ = try db.syncSchema(PGBenchDept.self)
    _ = try db.syncSchema(PGBenchEmp.self)
    let depts = max(1, s.rows / 10)
    try db.execute("INSERT INTO pgbench_dept (id, name) SELECT g, 'd' || g FROM generate_series(1, ?::bigint) g", depts)
    try db.execute("INSERT INTO pgbench_emp (id, name, dept) SELECT g, 'e' || g, 1 + g % ? FROM generate_series(1, ?::bigint) g", depts, s.rows)
}

/// A prefetch's result, checked: every employee, each with its department, named as the table holds it.
func verifyPrefetched(_ s: Settings, _ who: String, _ rows: [(id: Int64, name: String, dept: Int64?, deptName: String?)]) throws {
    let depts = Int64(max(1, s.rows / 10))
    try check(rows.count == s.rows, "\(who) prefetch: \(rows.count) employees, expected \(s.rows)")
    for row in rows {
        let dept = 1 + row.id % depts
        try check(row.name == "e\(row.id)" && row.dept == dept && row.deptName == "d\(dept)",
                  "\(who) prefetch: employee \(row.id) is \(row.name) in \(row.dept.map(String.init) ?? "nil") \(row.deptName ?? "nil")")
    }
}

/// Raw's prefetch and Strata's, each on a fresh connection with fresh tables (milliseconds).
func runPrefetch(_ s: Settings) throws -> (raw: Double, strata: Double) {
    try freshPrefetchTables(s)
    let connection = try RawConnection(s.url)
    let raw = try timeFetch(s, "raw", { () throws -> [PlainEmp] in
        let emps = try Raw.prefetch(connection)
        var length = 0
        for emp in emps { length &+= emp.dept?.name.utf8.count ?? 0 }
        try check(length > 0, "raw prefetch: no department names")
        return emps
    }, label: "prefetch") { emps in
        try verifyPrefetched(s, "raw", emps.map { ($0.id, $0.name, $0.dept?.id, $0.dept?.name) })
    }
    let db = try openStrata(s)
    defer { try? db.close() }
    _ = try db.count(PGBenchEmp.self); _ = try db.count(PGBenchDept.self)   // first use, untimed
    let strata = try timeFetch(s, "strata", { () throws -> [PGBenchEmp] in
        let emps = try db.objects(PGBenchEmp.self, prefetching: ["dept"])
        var length = 0
        for emp in emps { length &+= emp.dept?.name.utf8.count ?? 0 }
        try check(length > 0, "Strata prefetch: no department names")
        return emps
    }, label: "prefetch") { emps in
        try verifyPrefetched(s, "Strata", emps.map { ($0.id, $0.name, $0.dept?.id, $0.dept?.name) })
    }
    return (raw, strata)
}

struct Times { var insert: [Double] = [], fetch: [Double] = [], update: [Double] = [], prefetch: [Double] = [] }
var raw = Times(), strata = Times()
var rawClassesFetch: [Double] = []

/// Raw's insert, fetch and update, then raw-classes' fetch of the same rows (milliseconds).
func runRaw(_ s: Settings) throws -> (Double, Double, Double, Double) {
    try freshTable(s)
    let connection = try RawConnection(s.url)
    let insert = try time(s, "raw", "insert") { try Raw.insert(connection, rows: s.rows) }
    try verifyTable(s, "raw insert", updated: false)
    let fetch = try timeFetch(s, "raw", { try Raw.fetch(connection) }) { items in
        try verifyFetched(s, "raw", items.map { ($0.id, [$0.i0, $0.i1, $0.i2, $0.i3, $0.i4, $0.i5, $0.i6, $0.i7, $0.i8, $0.i9]) })
    }
    let classes = try timeFetch(s, "raw-classes", { try Raw.fetchClasses(connection) }) { items in
        try verifyFetched(s, "raw-classes", items.map { ($0.id, [$0.i0, $0.i1, $0.i2, $0.i3, $0.i4, $0.i5, $0.i6, $0.i7, $0.i8, $0.i9]) })
    }
    let connection2 = try RawConnection(s.url)
    var toUpdate = try Raw.fetch(connection2)
    let update = try time(s, "raw", "update") { try Raw.update(connection2, &toUpdate) }
    try verifyTable(s, "raw update", updated: true)
    return (insert, fetch, update, classes)
}

/// Strata's first use of the model on a handle (the catalog read that checks the table against the model,
/// one round trip or two), kept out of the timed parts: a long-lived handle pays it once. Milliseconds.
nonisolated(unsafe) var firstUse: [Double] = []

func runStrata(_ s: Settings) throws -> (Double, Double, Double) {
    try freshTable(s)
    var insert = 0.0, fetch = 0.0, update = 0.0
    do {
        let db = try openStrata(s)
        defer { try? db.close() }
        firstUse.append(try time(s, "", "") { _ = try db.count(PGBenchItem.self) })   // the handle's first use, untimed
        insert = try time(s, "strata", "insert") {
            var objects: [PGBenchItem] = []
            objects.reserveCapacity(s.rows)
            for r in 1...s.rows {
                let o = PGBenchItem(), r = Int64(r)
                o.i0 = 10 * r; o.i1 = 10 * r + 1; o.i2 = 10 * r + 2; o.i3 = 10 * r + 3; o.i4 = 10 * r + 4
                o.i5 = 10 * r + 5; o.i6 = 10 * r + 6; o.i7 = 10 * r + 7; o.i8 = 10 * r + 8; o.i9 = 10 * r + 9
                objects.append(o)
            }
            try db.transaction { for o in objects { try db.save(o) } }
        }
    }
    try verifyTable(s, "Strata insert", updated: false)
    do {
        let db = try openStrata(s)
        defer { try? db.close() }
        firstUse.append(try time(s, "", "") { _ = try db.count(PGBenchItem.self) })   // the handle's first use, untimed
        fetch = try timeFetch(s, "strata", { try db.objects(PGBenchItem.self) }) { objects in
            try verifyFetched(s, "Strata", objects.map { ($0.id, [$0.i0, $0.i1, $0.i2, $0.i3, $0.i4, $0.i5, $0.i6, $0.i7, $0.i8, $0.i9]) })
        }
    }
    do {
        let db = try openStrata(s)
        defer { try? db.close() }
        firstUse.append(try time(s, "", "") { _ = try db.count(PGBenchItem.self) })   // the handle's first use, untimed
        let objects = try db.objects(PGBenchItem.self)
        update = try time(s, "strata", "update") {
            for o in objects { o.i5 += 1 }
            try db.transaction { for o in objects { try db.save(o) } }
        }
    }
    try verifyTable(s, "Strata update", updated: true)
    return (insert, fetch, update)
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

// MARK: - Instruction counts (--callgrind)

/// The client's instructions in each timed part, per contender (`--callgrind`): this executable runs once
/// per contender under `valgrind --tool=callgrind --collect-atstart=no` (`--counting C`, a warm-up and one
/// round of `rows` rows); collection is on exactly inside C's timed parts of the counted round, dumped per
/// workload. The server's work is not counted (another process): with the same statements it is the same
/// for both contenders. Returns instructions by contender and workload.
func countInstructions(_ s: Settings, rows: Int) throws -> [String: [String: Double]] {
    var counts: [String: [String: Double]] = [:]
    for contender in ["raw", "raw-classes", "strata"] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-callgrind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
                             "--callgrind-out-file=\(directory.appendingPathComponent("out").path)",
                             CommandLine.arguments[0], "--postgres", s.url, "--rows", String(rows), "--rounds", "1",
                             "--counting", contender]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try check(process.terminationStatus == 0, "callgrind run of \(contender) exited with \(process.terminationStatus)")
        for part in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let text = try String(contentsOfFile: directory.appendingPathComponent(part).path, encoding: .utf8)
            let lines = text.split(separator: "\n")
            guard let trigger = lines.first(where: { $0.hasPrefix("desc: Trigger: Client Request: ") }),
                  let totals = lines.last(where: { $0.hasPrefix("totals:") || $0.hasPrefix("summary:") }),
                  let value = Double(totals.split(separator: " ").dropFirst().first ?? "") else { continue }
            let label = String(trigger.dropFirst("desc: Trigger: Client Request: ".count))
            counts[contender, default: [:]][label, default: 0] += value
        }
        print("callgrind \(contender): " + (counts[contender] ?? [:]).sorted { $0.key < $1.key }
            .map { String(format: "%@ %.0f instructions/row", $0.key, $0.value / Double(rows)) }.joined(separator: ", "))
    }
    return counts
}

do {
    if settings.counting != nil {
        // A --callgrind child: a warm-up, then the counted round.
        for round in 0...1 {
            countedRound = round == 1
            _ = try runRaw(settings)
            _ = try runStrata(settings)
            _ = try runPrefetch(settings)
        }
        exit(0)
    }
    print("strata-pg-benchmarks: \(rows) rows, 1 warm-up + \(rounds) rounds (each row a round trip: seconds per round)")
    for round in 0...rounds {
        let r = try runRaw(settings)
        let s = try runStrata(settings)
        let p = try runPrefetch(settings)
        let label = round == 0 ? "warm-up" : "round \(round)"
        print(String(format: "%@: raw insert %.0f fetch %.0f update %.0f prefetch %.0f | raw-classes fetch %.0f | Strata insert %.0f fetch %.0f update %.0f prefetch %.0f ms",
                     label, r.0, r.1, r.2, p.raw, r.3, s.0, s.1, s.2, p.strata))
        if round == 0 { continue }
        raw.prefetch.append(p.raw); strata.prefetch.append(p.strata)
        raw.insert.append(r.0); raw.fetch.append(r.1); raw.update.append(r.2); rawClassesFetch.append(r.3)
        strata.insert.append(s.0); strata.fetch.append(s.1); strata.update.append(s.2)
    }
    print(String(format: "Strata's first use of the model per handle (untimed, a catalog read): median %.1f ms", median(firstUse)))
    let countedRows = callgrindRows ?? rows
    let instructions = callgrind ? try countInstructions(settings, rows: countedRows) : [:]
    let workloads: [(String, [Double], [Double], [Double]?, Double)] = [
        ("fetch", raw.fetch, strata.fetch, rawClassesFetch, 1.3), ("insert", raw.insert, strata.insert, nil, 1.2),
        ("update", raw.update, strata.update, nil, 1.2), ("prefetch", raw.prefetch, strata.prefetch, nil, 0),
    ]
    print("\nworkload  raw median (min) ms   raw-classes median (min) ms   Strata median (min) ms   Strata/raw median (min)   Strata/raw-classes   target (on medians)")
    var json: [[String: Any]] = []
    for (name, r, s, classes, target) in workloads {
        let ratio = median(s) / median(r)
        let minRatio = (s.min() ?? 0) / (r.min() ?? 0)
        let classesText = classes.map { String(format: "%9.1f (%7.1f)       ", median($0), $0.min() ?? 0) } ?? String(repeating: " ", count: 26)
        let classesRatio = classes.map { String(format: "%6.2fx", median(s) / median($0)) } ?? "      "
        // (No target for prefetch: issue 35 asks for its figure beside raw libpq's.)
        let verdict = target == 0 ? "no target" : String(format: "<= %.1fx %@", target, ratio <= target ? "met" : "MISSED")
        print(String(format: "%-8@  %9.1f (%7.1f)   %@  %12.1f (%7.1f)   %8.2fx (%5.2fx)      %@             %@", name as NSString,
                     median(r), (r.min() ?? 0), classesText, median(s), (s.min() ?? 0), ratio, minRatio, classesRatio, verdict))
        var entry: [String: Any] = ["workload": name, "rawMs": r, "strataMs": s, "rawMedianMs": median(r), "strataMedianMs": median(s),
                                    "ratio": ratio, "rawMinMs": (r.min() ?? 0), "strataMinMs": (s.min() ?? 0), "minRatio": minRatio]
        if target > 0 { entry["target"] = target }
        if let classes {
            entry["rawClassesMs"] = classes
            entry["rawClassesMedianMs"] = median(classes)
            entry["rawClassesMinMs"] = classes.min() ?? 0
            entry["ratioToRawClasses"] = median(s) / median(classes)
        }
        if callgrind {
            var perRow: [String: Double] = [:]
            for contender in ["raw", "raw-classes", "strata"] {
                if let count = instructions[contender]?[name] { perRow[contender] = count / Double(countedRows) }
            }
            entry["clientInstructionsPerRow"] = perRow
            if let r = perRow["raw"], let st = perRow["strata"] {
                print(String(format: "          client instructions per row: raw %.0f%@, Strata %.0f (%.2fx raw%@)", r,
                             perRow["raw-classes"].map { String(format: ", raw-classes %.0f", $0) } ?? "", st, st / r,
                             perRow["raw-classes"].map { String(format: ", %.2fx raw-classes", st / $0) } ?? ""))
            }
        }
        json.append(entry)
    }
    if let jsonPath {
        var document: [String: Any] = ["rows": rows, "rounds": rounds, "warmUpRounds": 1, "strataFirstUseMedianMs": median(firstUse),
                                       "server": "PostgreSQL on a Unix socket (Scripts/with-postgres.sh: fsync off)",
                                       "workloads": json]
        if callgrind { document["callgrindRows"] = countedRows }
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: jsonPath))
        print("wrote \(jsonPath)")
    }
} catch {
    print("strata-pg-benchmarks: \(error)")
    exit(1)
}
