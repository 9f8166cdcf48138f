// Contender 5: Strata, with the model declared the way a user would (no hand-written mapping code).
// Compiled only with STRATA_MODELS (set `strataModels = true` in Package.swift once Strata's model
// layer builds); adjust this file if the model API differs from what it assumes:
//   final class X: Model { static let tableName = "..."; var id: Int64 = 0; ...; required init() {} }
//   db.objects(X.self) -> [X];  db.save(x);  db.transaction { ... };  db.schemaPlan(for: X.self) (a
//   collection of steps, empty when in sync);  db.syncSchema(X.self);  db.sqliteHandle
//
// Every Strata handle here logs at .warning: Strata logs each schema step it applies at .info, which
// would print 100 lines per round (and time stderr writes inside the schema workloads).
#if STRATA_MODELS
import Logging
import Strata

final class StrataItem: Model, CheckableItem {
    static let tableName = "item"
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    required init() {}

    var checkID: Int64 { id }
}

enum StrataContender {
    /// Strata's own view of the benchmark's item table must be "in sync": otherwise its first use would
    /// migrate the table inside the timed part. Checked on a separate handle, so that the timed handle
    /// starts cold.
    static func checkItemTableInSync(_ job: Job) throws {
        let hint = "make ItemTable.createSQL (SQLiteC.swift) match what Strata declares for StrataItem, or Strata's planner accept it"
        let db = try database(job.path)
        defer { try? db.close() }
        let plan: SchemaPlan
        do {
            plan = try db.schemaPlan(for: StrataItem.self)
        } catch {
            throw Verification.failure("Strata rejects the benchmark table item (\(error)); \(hint)")
        }
        try Verification.check(plan.isEmpty, "Strata plans to change the benchmark table item (\(plan)); \(hint)")
    }

    /// Strata's defaults, but for the log level (see the top of the file).
    static let configuration: Database.Configuration = {
        var configuration = Database.Configuration()
        configuration.logger.logLevel = .warning
        return configuration
    }()

    static func database(_ path: String) throws -> Database {
        try Database(path: path, configuration: configuration)
    }

    static func open(_ job: Job) throws -> Database {
        let db = try database(job.path)
        try Verification.noMutex(db.sqliteHandle, "Strata")
        return db
    }

    /// ``open(_:)`` for a workload over the item table, which is first checked to be in sync (except in
    /// a callgrind child, whose count must hold the workload alone).
    static func openItemTable(_ job: Job) throws -> Database {
        if !countingInstructions { try checkItemTableInSync(job) }
        return try open(job)
    }

    /// fetch: a fresh handle (opened untimed); the timed part is the fetch, including Strata's implicit
    /// first-use schema check of StrataItem (a few PRAGMA reads).
    static func fetch(_ job: Job) throws -> Duration {
        let db = try openItemTable(job)
        defer { try? db.close() }
        return try measureFetch({ try db.objects(StrataItem.self) }) {
            try Verification.items($0, count: job.rows, "Strata: fetched objects")
        }
    }

    /// insert: open, make the models, save them in one transaction; the clock stops after COMMIT.
    static func insert(_ job: Job) throws -> Duration {
        if !countingInstructions { try checkItemTableInSync(job) }
        var handle: Database?
        defer { try? handle?.close() }
        let (duration, items) = try measure { () throws -> [StrataItem] in
            let db = try database(job.path)
            handle = db
            var items: [StrataItem] = []
            items.reserveCapacity(job.rows)
            for row in 0..<job.rows {
                let r = Int64(10 * row)
                let item = StrataItem()
                item.i0 = r; item.i1 = r + 1; item.i2 = r + 2; item.i3 = r + 3; item.i4 = r + 4
                item.i5 = r + 5; item.i6 = r + 6; item.i7 = r + 7; item.i8 = r + 8; item.i9 = r + 9
                items.append(item)
            }
            try db.transaction {
                for item in items { try db.save(item) }
            }
            return items
        }
        try Verification.noMutex(handle?.sqliteHandle, "Strata")
        try Verification.items(items, count: job.rows, idsInOrder: true, "Strata: inserted objects")
        try Verification.itemTable(at: job.path, count: job.rows, "Strata")
        return duration
    }

    /// update: fetch (untimed), change i5 on each object, save them all in one transaction (timed).
    static func update(_ job: Job) throws -> Duration {
        let db = try openItemTable(job)
        defer { try? db.close() }
        let items = try db.objects(StrataItem.self)
        try Verification.items(items, count: job.rows, "Strata: objects fetched for update")
        let (duration, _) = try measure {
            try db.transaction {
                for item in items {
                    item.i5 += Expected.updateDelta
                    try db.save(item)
                }
            }
        }
        try Verification.items(items, count: job.rows, updated: true, "Strata: updated objects")
        try Verification.itemTable(at: job.path, count: job.rows, updated: true, "Strata")
        return duration
    }

    // MARK: Schema sync (the 50 generated models of SchemaModels.swift)

    /// Builds the schema workloads' databases with Strata itself, so that "in sync" means in sync by
    /// Strata's own rules: `current` from the 50 current models, else from their old versions (each
    /// lacking the column `extra`).
    static func makeSchemaDatabase(at path: String, current: Bool) throws {
        let db = try database(path)
        defer { try? db.close() }
        if current { try SchemaModels.syncCurrent(db) } else { try SchemaModels.syncOld(db) }
    }

    /// First use of the 50 models on a fresh handle, every table already in sync.
    static func schemaInSync(_ job: Job) throws -> Duration {
        let versionBefore = try SchemaDatabase.schemaVersion(at: job.path)
        let db = try open(job)
        defer { try? db.close() }
        let (duration, _) = try measure { try SchemaModels.syncCurrent(db) }
        try Verification.check(try SchemaDatabase.schemaVersion(at: job.path) == versionBefore,
                               "Strata changed the schema although every table was in sync")
        if !countingInstructions { try verifyNothingPending(job.path) }
        return duration
    }

    /// First use of the 50 models on a fresh handle, each table lacking one column.
    static func schemaAddColumn(_ job: Job) throws -> Duration {
        let db = try open(job)
        defer { try? db.close() }
        let (duration, _) = try measure { try SchemaModels.syncCurrent(db) }
        try RawContender.verifyNewColumn(at: job.path)
        if !countingInstructions { try verifyNothingPending(job.path) }
        return duration
    }

    private static func verifyNothingPending(_ path: String) throws {
        let db = try database(path)
        defer { try? db.close() }
        let pending = try SchemaModels.pendingPlans(db)
        try Verification.check(pending.isEmpty, "after sync, Strata still plans: \(pending.joined(separator: "; "))")
    }
}
#endif
