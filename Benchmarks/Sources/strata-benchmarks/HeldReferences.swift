// The held-references workload (issue 11's memory line): 50,000 objects of a model of 10 `Int64` plus one
// reference, fetched and each reference read (100 distinct targets), beside plain class instances that
// hold the same values and a strong reference to a shared target object. The time is the fetch with the
// reads; the figure that matters is printed under the table: the heap each held object takes, its
// resolved reference included (the targets' share counted too: 100 objects for 50,000 owners). The page
// cache is filled first, as in the release workload.
import CSQLiteBench
import Foundation

enum HeldReferenceTables {
    static let targets: Int64 = 100
    static let createSQL = [
        "CREATE TABLE reftarget(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')",
        """
        CREATE TABLE refitem(id INTEGER PRIMARY KEY, i0 INTEGER NOT NULL, i1 INTEGER NOT NULL, \
        i2 INTEGER NOT NULL, i3 INTEGER NOT NULL, i4 INTEGER NOT NULL, i5 INTEGER NOT NULL, \
        i6 INTEGER NOT NULL, i7 INTEGER NOT NULL, i8 INTEGER NOT NULL, i9 INTEGER NOT NULL, target INTEGER)
        """,
    ]
    static let selectSQL = "SELECT id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, target FROM refitem"
    /// Fills SQLite's page cache before a heap measurement (as the release workload's `warmUpScan`).
    static let warmUpScan = "SELECT sum(i0 + i9 + target) + (SELECT count(name) FROM reftarget) FROM refitem"

    static func target(ofRow id: Int64) -> Int64 { id % targets + 1 }
    static func targetName(_ id: Int64) -> String { "target \(id)" }

    /// Row r (1-based) has column c = 10 r + c and refers to target (r mod 100) + 1.
    static func create(at path: String, rows: Int) throws {
        try SQLiteC.withDatabase(path) { db in
            try SQLiteC.exec(db, "BEGIN")
            for sql in createSQL { try SQLiteC.exec(db, sql) }
            let insertTarget = try SQLiteC.prepare(db, "INSERT INTO reftarget(id, name) VALUES (?, ?)")
            defer { sqlite3_finalize(insertTarget) }
            for id in 1...targets {
                sqlite3_bind_int64(insertTarget, 1, id)
                sqlite3_bind_text(insertTarget, 2, targetName(id), -1, sqliteTransient)
                let rc = sqlite3_step(insertTarget)
                guard rc == SQLITE_DONE else { throw SQLiteC.error(db, rc, "template insert (reftarget)") }
                sqlite3_reset(insertTarget)
            }
            let insert = try SQLiteC.prepare(db, """
                INSERT INTO refitem(id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, target) \
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            defer { sqlite3_finalize(insert) }
            for id in 1...Int64(rows) {
                sqlite3_bind_int64(insert, 1, id)
                for column in 0..<10 { sqlite3_bind_int64(insert, Int32(column + 2), 10 * id + Int64(column)) }
                sqlite3_bind_int64(insert, 12, target(ofRow: id))
                let rc = sqlite3_step(insert)
                guard rc == SQLITE_DONE else { throw SQLiteC.error(db, rc, "template insert (refitem)") }
                sqlite3_reset(insert)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
    }

    /// Every row once, with its values and its target's name.
    static func verify(_ rows: [(id: Int64, i9: Int64, targetName: String?)], count: Int, _ what: String) throws {
        try Verification.check(rows.count == count, "\(what): \(rows.count) objects, expected \(count)")
        var seen = [Bool](repeating: false, count: count + 1)
        for row in rows {
            try Verification.check(row.id >= 1 && row.id <= Int64(count) && !seen[Int(row.id)], "\(what): id \(row.id)")
            seen[Int(row.id)] = true
            try Verification.check(row.i9 == 10 * row.id + 9 && row.targetName == targetName(target(ofRow: row.id)),
                                   "\(what): row \(row.id) read \(row.i9), \(row.targetName ?? "nil")")
        }
    }

    static var memoryNotes: [String] {
        MemoryFigures.shared.notes(for: "held-references", baseline: "plain class", order: ["Strata"],
                                   what: "10 Int64 + one reference, resolved")
    }
}

/// The referenced object of the plain classes.
final class PlainTarget {
    let id: Int64
    let name: String
    init(id: Int64, name: String) { self.id = id; self.name = name }
}

/// A plain class of 10 `Int64` and a strong reference, as hand-written code would hold a row and its target.
final class PlainRefItem {
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    var target: PlainTarget?
}

enum HeldReferences {
    static func raw(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try SQLiteC.exec(db, HeldReferenceTables.warmUpScan)
        let before = MemoryFigures.heapInUse()
        var (duration, objects) = try measure { () throws -> [PlainRefItem] in
            var targets: [Int64: PlainTarget] = [:]
            let selectTargets = try SQLiteC.prepare(db, "SELECT id, name FROM reftarget")
            defer { sqlite3_finalize(selectTargets) }
            while sqlite3_step(selectTargets) == SQLITE_ROW {
                let id = sqlite3_column_int64(selectTargets, 0)
                targets[id] = PlainTarget(id: id, name: String(cString: sqlite3_column_text(selectTargets, 1)))
            }
            let select = try SQLiteC.prepare(db, HeldReferenceTables.selectSQL)
            defer { sqlite3_finalize(select) }
            var objects: [PlainRefItem] = []
            while sqlite3_step(select) == SQLITE_ROW {
                let object = PlainRefItem()
                object.id = sqlite3_column_int64(select, 0)
                object.i0 = sqlite3_column_int64(select, 1); object.i1 = sqlite3_column_int64(select, 2)
                object.i2 = sqlite3_column_int64(select, 3); object.i3 = sqlite3_column_int64(select, 4)
                object.i4 = sqlite3_column_int64(select, 5); object.i5 = sqlite3_column_int64(select, 6)
                object.i6 = sqlite3_column_int64(select, 7); object.i7 = sqlite3_column_int64(select, 8)
                object.i8 = sqlite3_column_int64(select, 9); object.i9 = sqlite3_column_int64(select, 10)
                if sqlite3_column_type(select, 11) != SQLITE_NULL {
                    object.target = targets[sqlite3_column_int64(select, 11)]
                }
                objects.append(object)
            }
            return objects
        }
        MemoryFigures.shared.record("plain class", in: "held-references", before: before, count: objects.count)
        if let first = objects.first { MemoryFigures.shared.recordChunk(of: first, "plain class", in: "held-references") }
        try HeldReferenceTables.verify(objects.map { ($0.id, $0.i9, $0.target?.name) }, count: job.rows, "raw held references")
        let (release, _) = measure { objects = [] }
        duration += release
        withExtendedLifetime(objects) {}
        return duration
    }
}

#if STRATA_MODELS
import Strata

final class StrataRefTarget: Model {
    static let tableName = "reftarget"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class StrataRefItem: Model {
    static let tableName = "refitem"
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    @Reference var target: StrataRefTarget?
    required init() {}
}

extension HeldReferences {
    /// Fetch every object and read its reference (the first read of each target is a fault; later reads
    /// find it held), as a user would.
    static func strata(_ job: Job) throws -> Duration {
        let db = try StrataContender.open(job)
        defer { try? db.close() }
        try db.syncSchema(StrataRefItem.self)   // first use before the heap is measured
        try db.syncSchema(StrataRefTarget.self)
        _ = try db.value(Int64.self, HeldReferenceTables.warmUpScan)
        let before = MemoryFigures.heapInUse()
        var (duration, objects) = try measure { () throws -> [StrataRefItem] in
            let objects = try db.objects(StrataRefItem.self)
            for object in objects { _ = object.target?.name }
            return objects
        }
        MemoryFigures.shared.record("Strata", in: "held-references", before: before, count: objects.count)
        if let first = objects.first { MemoryFigures.shared.recordChunk(of: first, "Strata", in: "held-references") }
        try HeldReferenceTables.verify(objects.map { ($0.id, $0.i9, $0.target?.name) }, count: job.rows, "Strata held references")
        let (release, _) = measure { objects = [] }
        duration += release
        withExtendedLifetime(objects) {}
        return duration
    }
}
#endif
