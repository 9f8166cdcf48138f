// Strata on PostgreSQL beside a raw libpq loop (issue 35), in one run:
//   swift run -c release strata-pg-benchmarks --postgres URL [--rows N] [--rounds N] [--json PATH]
//
// Each round, in a fresh table `pgbench_item(id, i0...i9)` (dropped and made again by Strata's syncSchema,
// untimed, for each contender), on fresh connections opened untimed:
//   insert: N rows in one transaction (raw: PQprepare once, PQexecPrepared per row, BEGIN/COMMIT;
//           Strata: db.transaction { for o in objects { try db.save(o) } }), the objects made inside
//   fetch:  every row into plain structs (raw: one SELECT, text results parsed with strtoll) or objects
//           (Strata: db.objects(T.self))
//   update: i5 += 1 on each fetched row/object (fetched untimed), written in one transaction (raw:
//           prepared `UPDATE ... SET i5 = $1 WHERE id = $2` per row; Strata: save of each dirty object)
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

struct RawItem {
    var id: Int64
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64
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
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--postgres": url = arguments.popFirst()
    case "--rows": rows = arguments.popFirst().flatMap { Int($0) } ?? rows
    case "--rounds": rounds = arguments.popFirst().flatMap { Int($0) } ?? rounds
    case "--json": jsonPath = arguments.popFirst()
    default:
        print("usage: strata-pg-benchmarks --postgres URL [--rows N] [--rounds N] [--json PATH]")
        exit(argument == "--help" ? 0 : 2)
    }
}
guard let url else {
    print("strata-pg-benchmarks: --postgres URL is required (e.g. postgresql:///strata?host=/tmp/dir&user=postgres)")
    exit(2)
}

/// The run's server and size, handed to every function (top-level variables are the main actor's).
struct Settings: Sendable {
    let url: String
    let rows: Int
}
let settings = Settings(url: url, rows: rows)

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

func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
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

struct Times { var insert: [Double] = [], fetch: [Double] = [], update: [Double] = [] }
var raw = Times(), strata = Times()

func runRaw(_ s: Settings) throws -> (Double, Double, Double) {
    try freshTable(s)
    let connection = try RawConnection(s.url)
    let insert = try time { try Raw.insert(connection, rows: s.rows) }
    try verifyTable(s, "raw insert", updated: false)
    var items: [RawItem] = []
    let fetch = try time { items = try Raw.fetch(connection) }
    try verifyFetched(s, "raw", items.map { ($0.id, [$0.i0, $0.i1, $0.i2, $0.i3, $0.i4, $0.i5, $0.i6, $0.i7, $0.i8, $0.i9]) })
    items = []
    let connection2 = try RawConnection(s.url)
    var toUpdate = try Raw.fetch(connection2)
    let update = try time { try Raw.update(connection2, &toUpdate) }
    try verifyTable(s, "raw update", updated: true)
    return (insert, fetch, update)
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
        firstUse.append(try time { _ = try db.count(PGBenchItem.self) })   // the handle's first use, untimed
        insert = try time {
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
        firstUse.append(try time { _ = try db.count(PGBenchItem.self) })   // the handle's first use, untimed
        var objects: [PGBenchItem] = []
        fetch = try time { objects = try db.objects(PGBenchItem.self) }
        try verifyFetched(s, "Strata", objects.map { ($0.id, [$0.i0, $0.i1, $0.i2, $0.i3, $0.i4, $0.i5, $0.i6, $0.i7, $0.i8, $0.i9]) })
    }
    do {
        let db = try openStrata(s)
        defer { try? db.close() }
        firstUse.append(try time { _ = try db.count(PGBenchItem.self) })   // the handle's first use, untimed
        let objects = try db.objects(PGBenchItem.self)
        update = try time {
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

do {
    print("strata-pg-benchmarks: \(rows) rows, 1 warm-up + \(rounds) rounds (each row a round trip: seconds per round)")
    for round in 0...rounds {
        let r = try runRaw(settings)
        let s = try runStrata(settings)
        let label = round == 0 ? "warm-up" : "round \(round)"
        print(String(format: "%@: raw insert %.0f fetch %.0f update %.0f | Strata insert %.0f fetch %.0f update %.0f ms",
                     label, r.0, r.1, r.2, s.0, s.1, s.2))
        if round == 0 { continue }
        raw.insert.append(r.0); raw.fetch.append(r.1); raw.update.append(r.2)
        strata.insert.append(s.0); strata.fetch.append(s.1); strata.update.append(s.2)
    }
    print(String(format: "Strata's first use of the model per handle (untimed, a catalog read): median %.1f ms", median(firstUse)))
    let workloads: [(String, [Double], [Double], Double)] = [
        ("fetch", raw.fetch, strata.fetch, 1.3), ("insert", raw.insert, strata.insert, 1.2), ("update", raw.update, strata.update, 1.2),
    ]
    print("\nworkload  raw median (min) ms   Strata median (min) ms   Strata/raw median (min)  target (on medians)")
    var json: [[String: Any]] = []
    for (name, r, s, target) in workloads {
        let ratio = median(s) / median(r)
        let minRatio = (s.min() ?? 0) / (r.min() ?? 0)
        print(String(format: "%-8@  %9.1f (%7.1f)   %12.1f (%7.1f)   %8.2fx (%5.2fx)     <= %.1fx %@", name as NSString,
                     median(r), (r.min() ?? 0), median(s), (s.min() ?? 0), ratio, minRatio, target, ratio <= target ? "met" : "MISSED"))
        json.append(["workload": name, "rawMs": r, "strataMs": s, "rawMedianMs": median(r), "strataMedianMs": median(s),
                     "ratio": ratio, "rawMinMs": (r.min() ?? 0), "strataMinMs": (s.min() ?? 0), "minRatio": minRatio, "target": target])
    }
    if let jsonPath {
        let document: [String: Any] = ["rows": rows, "rounds": rounds, "warmUpRounds": 1, "strataFirstUseMedianMs": median(firstUse),
                                       "server": "PostgreSQL on a Unix socket (Scripts/with-postgres.sh: fsync off)",
                                       "workloads": json]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: jsonPath))
        print("wrote \(jsonPath)")
    }
} catch {
    print("strata-pg-benchmarks: \(error)")
    exit(1)
}
