// Contenders 2-4: GRDB 7.10.0, written the way its own performance tests write them
// (Tests/Performance/GRDBPerformance: FetchRecordClass, FetchRecordDecodable, FetchRecordOptimized,
// InsertRecordClass, InsertRecordOptimized). Every contender gets its rowids back on insert, as Strata does.
import GRDB

// MARK: - Models

/// Contender 2: a `Record` subclass (change tracking), columns by name.
final class GRDBRecordItem: Record, CheckableItem {
    var id: Int64?
    var i0: Int64, i1: Int64, i2: Int64, i3: Int64, i4: Int64
    var i5: Int64, i6: Int64, i7: Int64, i8: Int64, i9: Int64

    override class var databaseTableName: String { "item" }

    init(row r: Int64) {
        i0 = r; i1 = r + 1; i2 = r + 2; i3 = r + 3; i4 = r + 4
        i5 = r + 5; i6 = r + 6; i7 = r + 7; i8 = r + 8; i9 = r + 9
        super.init()
    }

    required init(row: Row) throws {
        id = row["id"]
        i0 = row["i0"]; i1 = row["i1"]; i2 = row["i2"]; i3 = row["i3"]; i4 = row["i4"]
        i5 = row["i5"]; i6 = row["i6"]; i7 = row["i7"]; i8 = row["i8"]; i9 = row["i9"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["i0"] = i0; container["i1"] = i1; container["i2"] = i2; container["i3"] = i3
        container["i4"] = i4; container["i5"] = i5; container["i6"] = i6; container["i7"] = i7
        container["i8"] = i8; container["i9"] = i9
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        id = inserted.rowID
    }

    var checkID: Int64 { id ?? -1 }
}

/// Contender 3: a Codable struct; GRDB derives the mapping from Codable. (Mutable persistence so that
/// `didInsert` can store the new rowid, as the other contenders do.)
struct GRDBCodableItem: Codable, FetchableRecord, MutablePersistableRecord, CheckableItem {
    static let databaseTableName = "item"
    var id: Int64?
    var i0: Int64, i1: Int64, i2: Int64, i3: Int64, i4: Int64
    var i5: Int64, i6: Int64, i7: Int64, i8: Int64, i9: Int64

    init(row r: Int64) {
        i0 = r; i1 = r + 1; i2 = r + 2; i3 = r + 3; i4 = r + 4
        i5 = r + 5; i6 = r + 6; i7 = r + 7; i8 = r + 8; i9 = r + 9
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var checkID: Int64 { id ?? -1 }
}

/// Contender 4: what an expert writes by hand: positional `init(row:)`, cached statements with
/// explicit columns, unchecked arguments.
struct GRDBOptimizedItem: FetchableRecord, CheckableItem {
    var id: Int64 = 0
    var i0: Int64, i1: Int64, i2: Int64, i3: Int64, i4: Int64
    var i5: Int64, i6: Int64, i7: Int64, i8: Int64, i9: Int64

    init(row r: Int64) {
        i0 = r; i1 = r + 1; i2 = r + 2; i3 = r + 3; i4 = r + 4
        i5 = r + 5; i6 = r + 6; i7 = r + 7; i8 = r + 8; i9 = r + 9
    }

    init(row: Row) {
        id = row[0]
        i0 = row[1]; i1 = row[2]; i2 = row[3]; i3 = row[4]; i4 = row[5]
        i5 = row[6]; i6 = row[7]; i7 = row[8]; i8 = row[9]; i9 = row[10]
    }

    static func fetchAll(_ db: Database) throws -> [GRDBOptimizedItem] {
        try fetchAll(db.cachedStatement(sql: ItemTable.selectSQL))
    }

    func insert(with statement: Statement) throws {
        statement.setUncheckedArguments([i0, i1, i2, i3, i4, i5, i6, i7, i8, i9])
        try statement.execute()
    }

    func update(with statement: Statement) throws {
        statement.setUncheckedArguments([i5, id])
        try statement.execute()
    }

    var checkID: Int64 { id }
}

// MARK: - Workloads

enum GRDBContenders {
    /// Opens a DatabaseQueue on the job's file with GRDB's defaults (GRDB opens it NOMUTEX itself).
    private static func open(_ job: Job) throws -> DatabaseQueue {
        try DatabaseQueue(path: job.path)
    }

    private static func checkNoMutex(_ queue: DatabaseQueue, _ what: String) throws {
        try Verification.noMutex(queue.inDatabase { $0.sqliteConnection }, what)
    }

    /// fetch: all rows into an array, outside any transaction (as GRDB's performance tests do).
    private static func fetch<T: CheckableItem>(_ job: Job, _ what: String,
                                                _ fetchAll: (Database) throws -> [T]) throws -> Duration {
        let queue = try open(job)
        defer { try? queue.close() }
        try checkNoMutex(queue, what)
        return try measureFetch({ try queue.inDatabase { try fetchAll($0) } }) {
            try Verification.items($0, count: job.rows, "\(what): fetched objects")
        }
    }

    static func fetchRecord(_ job: Job) throws -> Duration {
        try fetch(job, "GRDB Record") { try GRDBRecordItem.fetchAll($0) }
    }

    static func fetchCodable(_ job: Job) throws -> Duration {
        try fetch(job, "GRDB Codable") { try GRDBCodableItem.fetchAll($0) }
    }

    static func fetchOptimized(_ job: Job) throws -> Duration {
        try fetch(job, "GRDB optimized") { try GRDBOptimizedItem.fetchAll($0) }
    }

    /// release: letting go of fetched `Record`s (each keeps the row it was fetched from, for its change
    /// tracking); the heap they take is measured first, as for the other contenders of the workload.
    static func releaseRecord(_ job: Job) throws -> Duration {
        let queue = try open(job)
        defer { try? queue.close() }
        _ = try queue.inDatabase { try Int64.fetchOne($0, sql: MemoryFigures.warmUpScan) }
        let before = MemoryFigures.heapInUse()
        var objects = try queue.inDatabase { try GRDBRecordItem.fetchAll($0) }
        MemoryFigures.shared.record("GRDB Record", in: "release", before: before, count: objects.count)
        try Verification.items(objects, count: job.rows, "GRDB Record release: fetched objects")
        let (duration, _) = measure { objects = [] }
        withExtendedLifetime(objects) {}
        return duration
    }

    // insert: open, make the objects, insert them in one transaction; the clock stops after COMMIT.

    static func insertRecord(_ job: Job) throws -> Duration {
        var queue: DatabaseQueue?
        defer { try? queue?.close() }
        let (duration, items) = try measure { () throws -> [GRDBRecordItem] in
            let dbQueue = try open(job)
            queue = dbQueue
            let items = (0..<job.rows).map { GRDBRecordItem(row: Int64(10 * $0)) }
            try dbQueue.write { db in
                for item in items { try item.insert(db) }
            }
            return items
        }
        try checkNoMutex(queue!, "GRDB Record")
        try Verification.items(items, count: job.rows, idsInOrder: true, "GRDB Record: inserted objects")
        try Verification.itemTable(at: job.path, count: job.rows, "GRDB Record")
        return duration
    }

    static func insertCodable(_ job: Job) throws -> Duration {
        var queue: DatabaseQueue?
        defer { try? queue?.close() }
        let (duration, items) = try measure { () throws -> [GRDBCodableItem] in
            let dbQueue = try open(job)
            queue = dbQueue
            var items = (0..<job.rows).map { GRDBCodableItem(row: Int64(10 * $0)) }
            try dbQueue.write { db in
                for index in items.indices { try items[index].insert(db) }
            }
            return items
        }
        try checkNoMutex(queue!, "GRDB Codable")
        try Verification.items(items, count: job.rows, idsInOrder: true, "GRDB Codable: inserted objects")
        try Verification.itemTable(at: job.path, count: job.rows, "GRDB Codable")
        return duration
    }

    static func insertOptimized(_ job: Job) throws -> Duration {
        var queue: DatabaseQueue?
        defer { try? queue?.close() }
        let (duration, items) = try measure { () throws -> [GRDBOptimizedItem] in
            let dbQueue = try open(job)
            queue = dbQueue
            var items = (0..<job.rows).map { GRDBOptimizedItem(row: Int64(10 * $0)) }
            try dbQueue.write { db in
                let statement = try db.cachedStatement(sql: ItemTable.insertSQL)
                for index in items.indices {
                    try items[index].insert(with: statement)
                    items[index].id = db.lastInsertedRowID
                }
            }
            return items
        }
        try checkNoMutex(queue!, "GRDB optimized")
        try Verification.items(items, count: job.rows, idsInOrder: true, "GRDB optimized: inserted objects")
        try Verification.itemTable(at: job.path, count: job.rows, "GRDB optimized")
        return duration
    }

    // update: fetch (untimed), then change i5 on each object and save them all in one transaction.

    static func updateRecord(_ job: Job) throws -> Duration {
        let queue = try open(job)
        defer { try? queue.close() }
        try checkNoMutex(queue, "GRDB Record")
        let items = try queue.inDatabase { try GRDBRecordItem.fetchAll($0) }
        try Verification.items(items, count: job.rows, "GRDB Record: objects fetched for update")
        let (duration, _) = try measure {
            try queue.write { db in
                for item in items {
                    item.i5 += Expected.updateDelta
                    try item.updateChanges(db)      // Record's change tracking: UPDATE item SET i5 = ? WHERE id = ?
                }
            }
        }
        try Verification.items(items, count: job.rows, updated: true, "GRDB Record: updated objects")
        try Verification.itemTable(at: job.path, count: job.rows, updated: true, "GRDB Record")
        return duration
    }

    static func updateCodable(_ job: Job) throws -> Duration {
        let queue = try open(job)
        defer { try? queue.close() }
        try checkNoMutex(queue, "GRDB Codable")
        var items = try queue.inDatabase { try GRDBCodableItem.fetchAll($0) }
        try Verification.items(items, count: job.rows, "GRDB Codable: objects fetched for update")
        let (duration, _) = try measure {
            try queue.write { db in
                for index in items.indices {
                    items[index].i5 += Expected.updateDelta
                    try items[index].update(db)
                }
            }
        }
        try Verification.items(items, count: job.rows, updated: true, "GRDB Codable: updated objects")
        try Verification.itemTable(at: job.path, count: job.rows, updated: true, "GRDB Codable")
        return duration
    }

    static func updateOptimized(_ job: Job) throws -> Duration {
        let queue = try open(job)
        defer { try? queue.close() }
        try checkNoMutex(queue, "GRDB optimized")
        var items = try queue.inDatabase { try GRDBOptimizedItem.fetchAll($0) }
        try Verification.items(items, count: job.rows, "GRDB optimized: objects fetched for update")
        let (duration, _) = try measure {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: ItemTable.updateSQL)
                for index in items.indices {
                    items[index].i5 += Expected.updateDelta
                    try items[index].update(with: statement)
                }
            }
        }
        try Verification.items(items, count: job.rows, updated: true, "GRDB optimized: updated objects")
        try Verification.itemTable(at: job.path, count: job.rows, updated: true, "GRDB optimized")
        return duration
    }
}
