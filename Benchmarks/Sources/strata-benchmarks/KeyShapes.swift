// The key-shape workloads (issue 37): the fetch workload's rows (row r: i0...i9 = 10 r + c) in tables
// whose key is not the rowid, fetched into objects, their release included. The reference is the fetch
// workload's rowid model over the same values (`fetch`); the notes give each key shape's Strata fetch as
// a ratio of the rowid model's Strata fetch in the same run (the target: <= 1.3x).
//   fetch-composite       kscomposite(a, b, i0...i9), PRIMARY KEY (a, b), two INTEGER parts, a rowid table
//   fetch-composite-refs  ksrefs: the same, its key parts `@Reference`s to ksparenta and ksparentb
//   fetch-text-key        kstext(code TEXT PRIMARY KEY, i0...i9) WITHOUT ROWID
// Row r (0-based) has a = r / 1000 + 1, b = r mod 1000 + 1 and code "item-(r+1)"; each contender's
// object gives back r + 1 as its `checkID`, so the harness verifies every value as for the item table.
import CSQLiteBench

enum KeyShape: String, CaseIterable {
    case composite = "fetch-composite", compositeRefs = "fetch-composite-refs", textKey = "fetch-text-key"

    /// The values per key part b (and the rows of ksparentb).
    static let partB: Int64 = 1_000

    var table: String {
        switch self {
        case .composite: "kscomposite"
        case .compositeRefs: "ksrefs"
        case .textKey: "kstext"
        }
    }

    var title: String {
        switch self {
        case .composite: "composite key (a, b), two INTEGER parts"
        case .compositeRefs: "composite key (a, b), two @Reference parts"
        case .textKey: "WITHOUT ROWID table, TEXT primary key"
        }
    }

    var keyColumns: [String] { self == .textKey ? ["code"] : ["a", "b"] }

    static let valueColumns = (0..<10).map { "i\($0)" }

    var createSQL: [String] {
        let values = Self.valueColumns.map { "\($0) INTEGER" }.joined(separator: ", ")
        switch self {
        case .composite, .compositeRefs:
            var sql = ["CREATE TABLE \(table)(a INTEGER NOT NULL, b INTEGER NOT NULL, \(values), PRIMARY KEY (a, b))"]
            if self == .compositeRefs {
                sql += ["CREATE TABLE ksparenta(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
                        "CREATE TABLE ksparentb(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')"]
            }
            return sql
        case .textKey:
            return ["CREATE TABLE kstext(code TEXT PRIMARY KEY NOT NULL, \(values)) WITHOUT ROWID"]
        }
    }

    var selectSQL: String { "SELECT \((keyColumns + Self.valueColumns).joined(separator: ", ")) FROM \(table)" }

    static func a(ofRow r: Int) -> Int64 { Int64(r) / partB + 1 }
    static func b(ofRow r: Int) -> Int64 { Int64(r) % partB + 1 }
    static func code(ofRow r: Int) -> String { "item-\(r + 1)" }
    /// The row's number + 1 (the item table's id) from its key.
    static func id(a: Int64, b: Int64) -> Int64 { (a - 1) * partB + b }
    static func id(code: String) -> Int64 { Int64(code.dropFirst(5)) ?? -1 }

    /// The table (and for the references, both parent tables) with `rows` rows.
    func create(at path: String, rows: Int) throws {
        try SQLiteC.withDatabase(path) { db in
            try SQLiteC.exec(db, "BEGIN")
            for sql in createSQL { try SQLiteC.exec(db, sql) }
            if self == .compositeRefs {
                for (table, count) in [("ksparenta", Self.a(ofRow: max(rows - 1, 0))), ("ksparentb", Self.partB)] {
                    try SQLiteC.exec(db, """
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) \
                        INSERT INTO \(table)(id, name) SELECT i, 'parent ' || i FROM n
                        """)
                }
            }
            let placeholders = Array(repeating: "?", count: keyColumns.count + 10).joined(separator: ", ")
            let insert = try SQLiteC.prepare(db, "INSERT INTO \(table)(\((keyColumns + Self.valueColumns).joined(separator: ", "))) VALUES (\(placeholders))")
            defer { sqlite3_finalize(insert) }
            for row in 0..<rows {
                if self == .textKey {
                    sqlite3_bind_text(insert, 1, Self.code(ofRow: row), -1, sqliteTransient)
                } else {
                    sqlite3_bind_int64(insert, 1, Self.a(ofRow: row))
                    sqlite3_bind_int64(insert, 2, Self.b(ofRow: row))
                }
                for column in 0..<10 {
                    sqlite3_bind_int64(insert, Int32(keyColumns.count + column + 1), Expected.value(row: row, column: column))
                }
                let rc = sqlite3_step(insert)
                guard rc == SQLITE_DONE else { throw SQLiteC.error(db, rc, "template insert (\(table))") }
                sqlite3_reset(insert)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
    }
}

/// The raw contender's struct for the composite tables.
struct PlainPairItem: CheckableItem {
    var a: Int64, b: Int64
    var i0: Int64, i1: Int64, i2: Int64, i3: Int64, i4: Int64, i5: Int64, i6: Int64, i7: Int64, i8: Int64, i9: Int64
    var checkID: Int64 { KeyShape.id(a: a, b: b) }
}

/// The raw contender's struct for the text-keyed table (its key read into a String, as a mapper must).
struct PlainTextItem: CheckableItem {
    var code: String
    var i0: Int64, i1: Int64, i2: Int64, i3: Int64, i4: Int64, i5: Int64, i6: Int64, i7: Int64, i8: Int64, i9: Int64
    var checkID: Int64 { KeyShape.id(code: code) }
}

enum KeyShapeRaw {
    static func fetch(_ shape: KeyShape) -> (Job) throws -> Duration {
        { job in
            let db = try SQLiteC.open(job.path)
            defer { SQLiteC.close(db) }
            try Verification.noMutex(db, "raw")
            if shape == .textKey {
                return try measureFetch({ try readText(db, shape.selectSQL) }) {
                    try Verification.items($0, count: job.rows, "raw \(shape.rawValue)")
                }
            }
            return try measureFetch({ try readPairs(db, shape.selectSQL) }) {
                try Verification.items($0, count: job.rows, "raw \(shape.rawValue)")
            }
        }
    }

    static func readPairs(_ db: OpaquePointer, _ sql: String) throws -> [PlainPairItem] {
        let s = try SQLiteC.prepare(db, sql)
        defer { sqlite3_finalize(s) }
        var items: [PlainPairItem] = []
        while true {
            let rc = sqlite3_step(s)
            guard rc == SQLITE_ROW else {
                if rc == SQLITE_DONE { break }
                throw SQLiteC.error(db, rc, "fetch")
            }
            items.append(PlainPairItem(
                a: sqlite3_column_int64(s, 0), b: sqlite3_column_int64(s, 1),
                i0: sqlite3_column_int64(s, 2), i1: sqlite3_column_int64(s, 3), i2: sqlite3_column_int64(s, 4),
                i3: sqlite3_column_int64(s, 5), i4: sqlite3_column_int64(s, 6), i5: sqlite3_column_int64(s, 7),
                i6: sqlite3_column_int64(s, 8), i7: sqlite3_column_int64(s, 9), i8: sqlite3_column_int64(s, 10),
                i9: sqlite3_column_int64(s, 11)))
        }
        return items
    }

    static func readText(_ db: OpaquePointer, _ sql: String) throws -> [PlainTextItem] {
        let s = try SQLiteC.prepare(db, sql)
        defer { sqlite3_finalize(s) }
        var items: [PlainTextItem] = []
        while true {
            let rc = sqlite3_step(s)
            guard rc == SQLITE_ROW else {
                if rc == SQLITE_DONE { break }
                throw SQLiteC.error(db, rc, "fetch")
            }
            let code = sqlite3_column_text(s, 0).map { String(cString: $0) } ?? ""
            items.append(PlainTextItem(
                code: code,
                i0: sqlite3_column_int64(s, 1), i1: sqlite3_column_int64(s, 2), i2: sqlite3_column_int64(s, 3),
                i3: sqlite3_column_int64(s, 4), i4: sqlite3_column_int64(s, 5), i5: sqlite3_column_int64(s, 6),
                i6: sqlite3_column_int64(s, 7), i7: sqlite3_column_int64(s, 8), i8: sqlite3_column_int64(s, 9),
                i9: sqlite3_column_int64(s, 10)))
        }
        return items
    }
}

/// Each key-shape workload's Strata fetch over the fetch workload's (the rowid model, same values, same
/// run): the medians' ratio, and with `--callgrind` the instructions' ratios (whole process and timed
/// parts), in the JSON (`...ToRowidFetch`) and as a note under the workload's table.
func addRowidFetchRatios(_ reports: [WorkloadReport]) -> [WorkloadReport] {
    guard let anchor = reports.first(where: { $0.workload == "fetch" })?.results
        .first(where: { $0.contender == ContenderID.strata.rawValue }) else { return reports }
    return reports.map { report in
        guard KeyShape(rawValue: report.workload) != nil,
              let index = report.results.firstIndex(where: { $0.contender == ContenderID.strata.rawValue }) else { return report }
        var report = report
        var result = report.results[index]
        result.medianRatioToRowidFetch = result.medianMs / anchor.medianMs
        if let mine = result.instructions, let rowid = anchor.instructions { result.instructionsRatioToRowidFetch = mine / rowid }
        if let mine = result.timedInstructions, let rowid = anchor.timedInstructions {
            result.timedInstructionsRatioToRowidFetch = mine / rowid
        }
        report.results[index] = result
        var note = String(format: "Strata over Strata's rowid-model fetch (workload fetch, same rows and values): median %.2f / %.2f ms = %.2fx",
                          result.medianMs, anchor.medianMs, result.medianMs / anchor.medianMs)
        if let ratio = result.instructionsRatioToRowidFetch, let mine = result.instructions, let rowid = anchor.instructions {
            note += String(format: "; instructions %.1fM / %.1fM = %.2fx", mine / 1e6, rowid / 1e6, ratio)
        }
        if let ratio = result.timedInstructionsRatioToRowidFetch { note += String(format: ", timed parts %.2fx", ratio) }
        report.notes.append(note + " (target <= 1.30x)")
        return report
    }
}

#if STRATA_MODELS
import Strata

final class StrataPairItem: Model, CheckableItem {
    static let tableName = "kscomposite"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    required init() {}

    var checkID: Int64 { KeyShape.id(a: a, b: b) }
}

final class KSParentA: Model {
    static let tableName = "ksparenta"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class KSParentB: Model {
    static let tableName = "ksparentb"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class StrataRefPairItem: Model, CheckableItem {
    static let tableName = "ksrefs"
    static let compositeKey = ["a", "b"]
    @Reference var a: KSParentA?
    @Reference var b: KSParentB?
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    required init() {}

    /// From the stored keys, without loading the parents.
    var checkID: Int64 {
        guard case .integer(let a) = $a.key, case .integer(let b) = $b.key else { return -1 }
        return KeyShape.id(a: a, b: b)
    }
}

final class StrataTextItem: Model, CheckableItem {
    static let tableName = "kstext"
    static let primaryKey = "code"
    var code = ""
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    required init() {}

    var checkID: Int64 { KeyShape.id(code: code) }
}

enum KeyShapeStrata {
    static func fetch(_ shape: KeyShape) -> (Job) throws -> Duration {
        switch shape {
        case .composite: fetch(StrataPairItem.self, shape)
        case .compositeRefs: fetch(StrataRefPairItem.self, shape, parents: [{ try $0.schemaPlan(for: KSParentA.self) },
                                                                           { try $0.schemaPlan(for: KSParentB.self) }])
        case .textKey: fetch(StrataTextItem.self, shape)
        }
    }

    /// As the fetch workload's Strata contender: a fresh handle opened untimed (the table first checked to
    /// be in sync on another handle, except in a callgrind child), the timed fetch includes the first-use
    /// schema check and the release.
    static func fetch<T: Model & CheckableItem>(_ type: T.Type, _ shape: KeyShape,
                                                parents: [(Database) throws -> SchemaPlan] = []) -> (Job) throws -> Duration {
        { job in
            if !countingInstructions {
                let db = try StrataContender.database(job.path)
                defer { try? db.close() }
                for plan in try [db.schemaPlan(for: T.self)] + parents.map({ try $0(db) }) {
                    try Verification.check(plan.isEmpty, "Strata plans to change the \(shape.rawValue) tables (\(plan)); make KeyShape.createSQL match")
                }
            }
            let db = try StrataContender.open(job)
            defer { try? db.close() }
            return try measureFetch({ try db.objects(T.self) }) {
                try Verification.items($0, count: job.rows, "Strata \(shape.rawValue)")
            }
        }
    }
}
#endif
