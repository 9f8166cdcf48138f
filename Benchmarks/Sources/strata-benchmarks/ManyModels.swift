// Workload first-use-models (issue 37, "linear to 1,000"): first use of N model types whose tables are in
// sync, on a fresh handle over a database of those N tables (`--models N`, default 1,000; at most 1,000).
//
// N distinct model types from a few declarations: `ManyModel<A, B, C>` is generic over three digit types
// (ten each), so each of its 1,000 specializations is a type of its own, with its own metadata, its own
// table (`many_model_ABC`) and its own registry in the handle: what a first use of N models does per model,
// including whatever grows with the models a handle already holds. Every table has the same shape (an id
// and five columns of four kinds; one in five with an index), so the instructions per model at 50 models
// and at 1,000 compare like for like; they are not the 50 varied models of `first-use`.
import Foundation

protocol ManyModelDigit: Sendable { static var digit: Int { get } }
enum Digit0: ManyModelDigit { static let digit = 0 }
enum Digit1: ManyModelDigit { static let digit = 1 }
enum Digit2: ManyModelDigit { static let digit = 2 }
enum Digit3: ManyModelDigit { static let digit = 3 }
enum Digit4: ManyModelDigit { static let digit = 4 }
enum Digit5: ManyModelDigit { static let digit = 5 }
enum Digit6: ManyModelDigit { static let digit = 6 }
enum Digit7: ManyModelDigit { static let digit = 7 }
enum Digit8: ManyModelDigit { static let digit = 8 }
enum Digit9: ManyModelDigit { static let digit = 9 }

enum ManyModelTables {
    /// Set from `--models` before the workloads are made.
    nonisolated(unsafe) static var count = 1_000
    static let digits: [any ManyModelDigit.Type] = [Digit0.self, Digit1.self, Digit2.self, Digit3.self, Digit4.self,
                                                    Digit5.self, Digit6.self, Digit7.self, Digit8.self, Digit9.self]

    static func name(_ n: Int) -> String { "many_model_\(n / 100)\(n / 10 % 10)\(n % 10)" }
    static var names: [String] { (0..<count).map(name) }

    /// The DDL Strata makes for each model (used without Strata's models).
    static func createSQL(_ n: Int) -> String {
        let table = name(n)
        var sql = "CREATE TABLE \"\(table)\"(\"id\" INTEGER PRIMARY KEY, \"p0\" INTEGER NOT NULL DEFAULT 0, "
            + "\"p1\" TEXT NOT NULL DEFAULT '', \"p2\" REAL NOT NULL DEFAULT 0, \"p3\" TEXT, \"p4\" INTEGER NOT NULL DEFAULT 0);"
        if n % 5 == 0 { sql += " CREATE INDEX \"\(table)_p0\" ON \"\(table)\"(\"p0\");" }
        return sql
    }

    static func createFromSQL(at path: String) throws {
        try SQLiteC.withDatabase(path) { db in
            try SQLiteC.exec(db, "BEGIN")
            for n in 0..<count { try SQLiteC.exec(db, createSQL(n)) }
            try SQLiteC.exec(db, "COMMIT")
        }
    }

    /// Under `first-use` and `first-use-models` with `--callgrind`: each counted contender's instructions per
    /// model, over the two rounds a callgrind child runs (warm-up and one measured round, each a first use of
    /// every model on a fresh handle): the whole process's (difference method) and the timed parts' alone.
    static func perModelNotes(_ reports: [WorkloadReport]) -> [WorkloadReport] {
        reports.map { report in
            guard report.workload == "first-use" || report.workload == "first-use-models" else { return report }
            var report = report
            for result in report.results {
                guard let total = result.instructions, let timed = result.timedInstructions else { continue }
                let syncs = Double(2 * report.rows)
                report.notes.append(String(format: "%@: %.0fk instructions per model (whole process), %.0fk in the timed parts (%@ models, 2 rounds)",
                                           result.name, total / syncs / 1_000, timed / syncs / 1_000, report.rows.formatted()))
            }
            return report
        }
    }

    /// The raw reference: every table's columns and indices read with reused statements.
    static func raw(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw")
        let names = self.names
        let (duration, missing) = try measure { () throws -> Int in
            let reader = try RawContender.SchemaReader(db)
            var missing = 0
            for table in names where try reader.read(table).columns.count != 6 { missing += 1 }
            return missing
        }
        try Verification.check(missing == 0, "raw: \(missing) of \(names.count) tables missing or not 6 columns")
        return duration
    }
}

#if STRATA_MODELS
import Strata

final class ManyModel<A: ManyModelDigit, B: ManyModelDigit, C: ManyModelDigit>: Model {
    static var tableName: String {
        let hundreds: Int = A.digit * 100, tens: Int = B.digit * 10
        return ManyModelTables.name(hundreds + tens + C.digit)
    }
    static var indices: [[String]] { C.digit % 5 == 0 ? [["p0"]] : [] }
    var id: Int64 = 0
    var p0: Int64 = 0
    var p1 = ""
    var p2: Double = 0
    var p3: String?
    var p4: Int64 = 0
    required init() {}
}

extension ManyModelTables {
    /// First use of the first `count` models (`many_model_000` ...).
    static func syncAll(_ db: Database) throws {
        for n in 0..<count {
            let a: any ManyModelDigit.Type = digits[n / 100], b: any ManyModelDigit.Type = digits[n / 10 % 10]
            let c: any ManyModelDigit.Type = digits[n % 10]
            try sync(a, b, c, db)
        }
    }

    private static func sync<A: ManyModelDigit, B: ManyModelDigit, C: ManyModelDigit>(
        _: A.Type, _: B.Type, _: C.Type, _ db: Database) throws {
        try db.syncSchema(ManyModel<A, B, C>.self)
    }

    /// The template, made by Strata itself (so "in sync" is by Strata's rules).
    static func createWithStrata(at path: String) throws {
        let db = try StrataContender.database(path)
        defer { try? db.close() }
        try syncAll(db)
    }

    static func strata(_ job: Job) throws -> Duration {
        let versionBefore = try SchemaDatabase.schemaVersion(at: job.path)
        let db = try StrataContender.open(job)
        defer { try? db.close() }
        let (duration, _) = try measure { try syncAll(db) }
        try Verification.check(try SchemaDatabase.schemaVersion(at: job.path) == versionBefore,
                               "Strata changed the schema although every table was in sync")
        return duration
    }
}
#endif
