import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Write integrity (issue 9): a save writes exactly what changed, in the column's own format, and no write
// is lost, overwritten or resurrected.

private final class Counter: Model {
    var id: Int64 = 0
    var name = ""
    var count = 0
    var note = ""
    required init() {}
}

/// Django's `inventory_product`, reduced to the columns whose formats a save used to rewrite.
private final class DjangoProduct: Model {
    static let tableName = "inventory_product"
    var id: Int64 = 0
    var name = ""
    var in_stock: Bool?
    var released_on: Date?
    var created_at = Date(timeIntervalSince1970: 0)
    var uid = UUID()
    var price = 0.0
    required init() {}
}

private let djangoDDL = """
    CREATE TABLE "inventory_product" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(100) NOT NULL,
        "in_stock" bool NULL, "released_on" date NULL, "created_at" datetime NOT NULL, "uid" char(32) NOT NULL UNIQUE,
        "price" decimal NOT NULL);
    INSERT INTO inventory_product VALUES (1, 'Widget', 1, '1999-12-31', '2001-02-03 04:05:06.789000', '0f8fad5bd9cb469fa16570867728950e', 19.99);
    INSERT INTO inventory_product VALUES (2, 'Gadget', 0, NULL, '2010-06-07 08:09:10', '7c9e6679742540de944be07fc1f90ae7', 100);
    """

/// Each column of a row as `typeof()` and its SQL literal: what another tool reads back.
private func rawRow(_ db: Database, _ table: String, id: Int64) throws -> [String] {
    try db.column(String.self, "SELECT name FROM pragma_table_info(?)", table).map { column in
        let t = try db.value(String.self, "SELECT typeof(\"\(column)\") FROM \"\(table)\" WHERE id = ?", id) ?? "?"
        let v = try db.value(String.self, "SELECT quote(\"\(column)\") FROM \"\(table)\" WHERE id = ?", id) ?? "?"
        return "\(column)=\(t)/\(v)"
    }
}

/// A database with one `Counter` row (key 1, name "c", note "x") and two more handles on its file.
private func twoHandles() throws -> (TemporaryDatabase, Database, Database) {
    let temp = try TemporaryDatabase()
    let seed = Counter(); seed.name = "c"; seed.note = "x"
    try temp.db.save(seed)
    return (temp, try Database(path: temp.path), try Database(path: temp.path))
}

/// One increment made outside a transaction; a conflict (another handle committed first) is retried.
private func increment(_ counter: Counter, on db: Database, conflicts: inout Int) throws {
    counter.count += 1
    do {
        try db.save(counter)
    } catch let error as ModelError where error.kind == .conflict {
        conflicts += 1
        try db.retryingOnConflict { counter.count += 1; try db.save(counter) }
    }
}

@Suite struct WriteIntegrityTests {
    // MARK: 1. Dirty tracking and stored formats

    @Test func saveWritesOnlyTheChangedColumnInItsOwnFormat() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(djangoDDL)
        let before = try rawRow(temp.db, "inventory_product", id: 1)
        let widget = try #require(try temp.db.object(DjangoProduct.self, forKey: 1))
        #expect(!widget.hasChanges)
        widget.name = "Widget 2"
        #expect(widget.changedProperties == ["name"])
        var sql: [String] = []
        let trace = temp.db.traceStatements { sql.append($0) }
        try temp.db.save(widget)
        trace.cancel()
        #expect(sql.filter { $0.hasPrefix("UPDATE") } == [#"UPDATE "inventory_product" SET "name" = ? WHERE "id" = ?"#])
        let after = try rawRow(temp.db, "inventory_product", id: 1)
        #expect(after.filter { !$0.hasPrefix("name=") } == before.filter { !$0.hasPrefix("name=") })
        #expect(after.contains("name=text/'Widget 2'"))
        #expect(!widget.hasChanges)
    }

    @Test func unchangedSaveRunsNoSQLAndNotifiesNobody() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(djangoDDL)
        let gadget = try #require(try temp.db.object(DjangoProduct.self, forKey: 2))
        var sql: [String] = []
        var notified = 0
        let trace = temp.db.traceStatements { sql.append($0) }
        let observation = temp.db.observeChanges { _ in notified += 1 }
        try temp.db.save(gadget)
        trace.cancel()
        observation.cancel()
        #expect(sql.isEmpty)
        #expect(notified == 0)
    }

    /// A batch save of instances that changed nothing runs no SQL either: no BEGIN IMMEDIATE (which would
    /// take the write lock, and wait for it under contention) and no COMMIT. One change, one new object
    /// or an empty batch behave as they should.
    @Test func anUnchangedBatchSaveRunsNoSQLNotEvenATransaction() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(djangoDDL)
        let products = try temp.db.objects(DjangoProduct.self)
        #expect(products.count == 2)
        var sql: [String] = []
        let trace = temp.db.traceStatements { sql.append($0) }
        try temp.db.save(products)
        try temp.db.save([DjangoProduct]())
        #expect(sql.isEmpty)

        products[1].name = "Gadget 2"
        try temp.db.save(products)
        #expect(sql.map { $0.components(separatedBy: " ").first ?? "" } == ["BEGIN", "UPDATE", "COMMIT"])

        sql = []
        let fresh = DjangoProduct(); fresh.name = "New"
        try temp.db.save(products + [fresh])
        trace.cancel()
        #expect(sql.first?.hasPrefix("BEGIN") == true && sql.last?.hasPrefix("COMMIT") == true, "\(sql)")
        #expect(sql.contains { $0.hasPrefix("INSERT") })
        #expect(try temp.db.rows("SELECT name FROM inventory_product ORDER BY id").map { $0[0] }
                == [.text("Widget"), .text("Gadget 2"), .text("New")])
    }

    @Test func changedDatesAndUUIDsAreWrittenInTheColumnsFormat() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(djangoDDL)
        let widget = try #require(try temp.db.object(DjangoProduct.self, forKey: 1))
        widget.created_at = Date(timeIntervalSince1970: 1_714_979_289.123456)
        widget.released_on = Date(timeIntervalSince1970: 1_714_953_600)   // 2024-05-06
        widget.uid = UUID(uuidString: "12345678-1234-5678-1234-567812345678")!
        widget.in_stock = false
        try temp.db.save(widget)
        let row = try temp.db.rows("SELECT created_at, released_on, uid, in_stock, typeof(in_stock) AS t FROM inventory_product WHERE id = 1")[0]
        #expect(row["created_at"] == .text("2024-05-06 07:08:09.123456"))
        #expect(row["released_on"] == .text("2024-05-06"))
        #expect(row["uid"] == .text("12345678123456781234567812345678"))
        #expect(row["in_stock"] == .integer(0))
        // A new row too: every declared column, each in its column's format.
        let fresh = DjangoProduct()
        fresh.name = "New"
        fresh.created_at = Date(timeIntervalSince1970: 1_276_000_150)
        fresh.uid = UUID(uuidString: "16FD2706-8BAF-433B-82EB-8C7F5044235D")!
        try temp.db.save(fresh)
        let inserted = try temp.db.rows("SELECT created_at, uid FROM inventory_product WHERE id = ?", fresh.id)[0]
        // The column holds Python's layout (row 1 has 6 digits, row 2 none): a whole second has no fraction.
        #expect(inserted["created_at"] == .text("2010-06-08 12:29:10"))
        #expect(inserted["uid"] == .text("16fd27068baf433b82eb8c7f5044235d"))
        // The lookup another tool makes by the hex text finds it.
        #expect(try temp.db.value(Int64.self, "SELECT id FROM inventory_product WHERE uid = ?", "16fd27068baf433b82eb8c7f5044235d") == fresh.id)
    }

    @Test func roundTripsOfDatesAndDoublesAreNotChanges() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(djangoDDL)
        try temp.db.execute("UPDATE inventory_product SET price = 0.1 WHERE id = 1")
        let widget = try #require(try temp.db.object(DjangoProduct.self, forKey: 1))
        #expect(widget.changedProperties.isEmpty)
        let same = widget.created_at
        widget.created_at = same
        #expect(!widget.hasChanges)
    }

    // MARK: 2. One truth across connections

    @Test func incrementsFromTwoHandlesInTransactionsAreNotLost() throws {
        let (temp, a, b) = try twoHandles()
        let onA = try #require(try a.object(Counter.self, forKey: 1))
        let onB = try #require(try b.object(Counter.self, forKey: 1))
        for _ in 0..<50 {
            try a.transaction { onA.count += 1; try a.save(onA) }
            try b.transaction { onB.count += 1; try b.save(onB) }
        }
        #expect(try temp.db.value(Int.self, "SELECT count FROM Counter") == 100)
        #expect(onA.count == 99 && onB.count == 100)
    }

    @Test func incrementsOutsideTransactionsAreConflictsTheRetryHelperResolves() throws {
        let (temp, a, b) = try twoHandles()
        let onA = try #require(try a.object(Counter.self, forKey: 1))
        let onB = try #require(try b.object(Counter.self, forKey: 1))
        // Both change the same column without seeing each other's commit: the second save is a conflict.
        onA.count += 1
        onB.count += 1
        try a.save(onA)
        let conflict = #expect(throws: ModelError.self) { try b.save(onB) }
        #expect(conflict?.kind == .conflict)
        #expect(conflict?.properties == ["count"])
        #expect(onB.count == 1)                 // the committed value: the change can be applied again
        var conflicts = 0
        try b.retryingOnConflict { onB.count += 1; try b.save(onB) }
        for _ in 0..<49 {
            try increment(onA, on: a, conflicts: &conflicts)
            try increment(onB, on: b, conflicts: &conflicts)
        }
        #expect(try temp.db.value(Int.self, "SELECT count FROM Counter") == 100)
        #expect(conflicts == 98)
    }

    @Test func twoHandlesChangingDifferentColumnsBothPersist() throws {
        let (temp, a, b) = try twoHandles()
        let onA = try #require(try a.object(Counter.self, forKey: 1))
        let onB = try #require(try b.object(Counter.self, forKey: 1))
        onA.name = "from A"
        onB.note = "from B"
        try a.save(onA)
        try b.save(onB)
        let row = try temp.db.rows("SELECT name, note FROM Counter")[0]
        #expect(row["name"] == .text("from A"))
        #expect(row["note"] == .text("from B"))
        #expect(onB.name == "from A")
    }

    @Test func fetchAfterAnotherHandlesCommitSeesTheCommittedValues() throws {
        let temp = try TemporaryDatabase()
        let seed = Counter(); seed.name = "old"
        try temp.db.save(seed)
        let other = try Database(path: temp.path)
        try other.execute("UPDATE Counter SET name = 'new', count = 5")
        #expect(try temp.db.object(Counter.self, forKey: seed.id) === seed)
        #expect(seed.name == "new" && seed.count == 5)
        try other.execute("DELETE FROM Counter")
        #expect(try temp.db.objects(Counter.self).isEmpty)
        #expect(seed.isDeleted)
    }

    @Test func aPoolsWriterAndAHandleDoNotOverwriteEachOther() throws {
        let temp = try TemporaryDatabase()
        let seed = Counter(); seed.name = "n"
        try temp.db.save(seed)
        let pool = try DatabasePool(path: temp.path)
        let key = seed.id
        for _ in 0..<20 {
            try pool.blocking.write { db in
                let c = try #require(try db.object(Counter.self, forKey: key))
                c.count += 1
                try db.save(c)
            }
            try temp.db.transaction { seed.count += 1; try temp.db.save(seed) }
        }
        #expect(try temp.db.value(Int.self, "SELECT count FROM Counter") == 40)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func anotherProcessesCommitIsMerged() throws {
        let temp = try TemporaryDatabase()
        let seed = Counter(); seed.name = "n"; seed.note = "mine"
        try temp.db.save(seed)
        let live = try #require(try temp.db.object(Counter.self, forKey: seed.id))
        live.note = "unsaved here"
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE Counter SET count = count + 7, name = ?', ('py',)); c.commit()", temp.path]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        try temp.db.transaction {
            #expect(live.count == 7 && live.name == "py" && live.note == "unsaved here")
            live.count += 1
            try temp.db.save(live)
        }
        let row = try temp.db.rows("SELECT name, count, note FROM Counter")[0]
        #expect(row["count"] == .integer(8))
        #expect(row["name"] == .text("py"))
        #expect(row["note"] == .text("unsaved here"))
    }

    // MARK: 4. No resurrection

    @Test func aRawKeyChangeReachesTheLiveInstanceAndASaveNeverRecreatesTheRow() throws {
        let temp = try TemporaryDatabase()
        let item = Counter(); item.name = "a"
        try temp.db.save(item)
        try temp.db.execute("UPDATE $T SET id = 5 WHERE id = ?", for: Counter.self, item.id)
        #expect(item.isDeleted)
        item.name = "changed"
        #expect(throws: ModelError.self) { try temp.db.save(item) }
        #expect(try temp.db.column(Int64.self, "SELECT id FROM Counter") == [5])
        #expect(try temp.db.value(String.self, "SELECT name FROM Counter") == "a")
    }

    @Test func aReplaceThroughAUniqueIndexReachesTheLiveInstance() throws {
        final class Account: Model {
            static let uniqueIndices = [["email"]]
            var id: Int64 = 0
            var email = ""
            var name = ""
            required init() {}
        }
        let temp = try TemporaryDatabase()
        let ada = Account(); ada.email = "ada@x"; ada.name = "Ada"
        let bob = Account(); bob.email = "bob@x"; bob.name = "Bob"
        try temp.db.save([ada, bob])
        try temp.db.execute("INSERT OR REPLACE INTO $T (id, email, name) VALUES (9, 'ada@x', 'Replacer')", for: Account.self)
        #expect(ada.isDeleted)
        #expect(!bob.isDeleted)
        ada.name = "again"
        #expect(throws: ModelError.self) { try temp.db.save(ada) }
        #expect(try temp.db.column(String.self, "SELECT name FROM Account ORDER BY id") == ["Bob", "Replacer"])
    }

    @Test func anUpdateThatFindsNoRowMarksTheInstanceDeletedAndThrows() throws {
        final class Account: Model {
            static let uniqueIndices = [["email"]]
            var id: Int64 = 0
            var email = ""
            required init() {}
        }
        let temp = try TemporaryDatabase()
        let ada = Account(); ada.email = "ada@x"
        try temp.db.save(ada)
        // A bare statement that replaces the row through the UNIQUE index: SQLite reports only the insert.
        try temp.db.statement("INSERT OR REPLACE INTO Account (id, email) VALUES (9, 'ada@x')").run()
        ada.email = "new@x"
        let error = #expect(throws: ModelError.self) { try temp.db.save(ada) }
        #expect(error?.kind == .notFound)
        #expect(error?.key == .integer(1))
        #expect(ada.isDeleted)
        #expect(try temp.db.column(Int64.self, "SELECT id FROM Account") == [9])
    }

    @Test func aSaveAfterAnotherConnectionDeletedTheRowThrows() throws {
        let temp = try TemporaryDatabase()
        let item = Counter(); item.name = "a"
        try temp.db.save(item)
        let other = try Database(path: temp.path)
        try other.execute("DELETE FROM Counter")
        item.name = "b"
        #expect(throws: ModelError.self) { try temp.db.save(item) }
        #expect(item.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM Counter") == 0)
    }

    // MARK: 5. All-or-nothing refresh

    @Test func aRefreshThatCannotDecodeLeavesTheInstanceWholeAndStale() throws {
        let temp = try TemporaryDatabase()
        let item = Counter(); item.name = "a"; item.count = 1
        try temp.db.save(item)
        try temp.db.execute("UPDATE Counter SET name = 'raw', count = 'not a number'")
        #expect(item.name == "a" && item.count == 1)
        item.note = "x"
        let error = #expect(throws: ModelError.self) { try temp.db.save(item) }
        #expect(error?.kind == .stale)
        #expect(error?.property == "count")
        #expect(try temp.db.value(String.self, "SELECT count FROM Counter") == "not a number")
        #expect(try temp.db.value(String.self, "SELECT name FROM Counter") == "raw")
    }

    @Test func aFetchThatMeetsAStaleInstanceThrowsUntilTheRowIsFixed() throws {
        let temp = try TemporaryDatabase()
        let item = Counter(); item.name = "a"; item.count = 1
        try temp.db.save(item)
        try temp.db.execute("UPDATE Counter SET count = 'not a number'")
        let byKey = #expect(throws: ModelError.self) { try temp.db.object(Counter.self, forKey: item.id) }
        #expect(byKey?.kind == .stale && byKey?.property == "count" && byKey?.key == .integer(item.id))
        #expect(throws: ModelError.self) { try temp.db.objects(Counter.self) }
        // Another connection fixes the row: the next fetch reads it, whole.
        let other = try Database(path: temp.path)
        try other.execute("UPDATE Counter SET count = 7, name = 'fixed'")
        #expect(try temp.db.object(Counter.self, forKey: item.id) === item)
        #expect(item.count == 7 && item.name == "fixed" && !item.hasChanges)
        #expect(try temp.db.objects(Counter.self).first === item)
    }

    // MARK: 7. Rollback

    @Test func aFailedScriptRolledBackLeavesInstancesMatchingTheRows() throws {
        let temp = try TemporaryDatabase()
        let item = Counter(); item.name = "a"
        try temp.db.save(item)
        struct Abort: Error {}
        var scriptFailed = false
        #expect(throws: Abort.self) {
            try temp.db.transaction {
                do { try temp.db.execute("DELETE FROM Counter; INSERT INTO nope VALUES (1)") } catch { scriptFailed = true }
                throw Abort()
            }
        }
        #expect(scriptFailed)
        #expect(!item.isDeleted)
        #expect(try temp.db.object(Counter.self, forKey: item.id) === item)
    }

    // MARK: 8. Closed handles

    @Test func aClosedHandleThrowsFromEveryCall() throws {
        let temp = try TemporaryDatabase()
        let item = Counter(); item.name = "a"
        try temp.db.save(item)
        try temp.db.close()
        #expect(throws: DatabaseError.self) { try temp.db.object(Counter.self, forKey: item.id) }
        #expect(throws: DatabaseError.self) { try temp.db.objects(Counter.self) }
        #expect(throws: DatabaseError.self) { try temp.db.save(item) }
        #expect(throws: DatabaseError.self) { try temp.db.transaction {} }
    }

    // MARK: 9. Transactions begin IMMEDIATE

    @Test func transactionsBeginImmediateByDefault() throws {
        let temp = try TemporaryDatabase()
        var sql: [String] = []
        let trace = temp.db.traceStatements { sql.append($0) }
        try temp.db.transaction {}
        try temp.db.transaction(.deferred) {}
        trace.cancel()
        #expect(sql.contains("BEGIN IMMEDIATE TRANSACTION"))
        #expect(sql.contains("BEGIN DEFERRED TRANSACTION"))
    }

    @Test func readThenWriteBlocksUnderContentionWaitForTheLock() throws {
        let temp = try TemporaryDatabase()
        let seed = Counter(); seed.name = "n"
        try temp.db.save(seed)
        let path = temp.path, key = seed.id
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let db = try Database(path: path)
                for _ in 0..<50 {
                    try db.transaction {
                        let n = try db.value(Int.self, "SELECT count FROM Counter WHERE id = ?", key) ?? 0
                        try db.execute("UPDATE Counter SET count = ? WHERE id = ?", n + 1, key)
                    }
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try temp.db.value(Int.self, "SELECT count FROM Counter") == 100)
    }

    // MARK: 10. NaN, NULLs, unsaved deletes

    @Test func nanIsRefusedNamingTheProperty() throws {
        final class Reading: Model {
            var id: Int64 = 0
            var value = 0.0
            var maybe: Double?
            required init() {}
        }
        let temp = try TemporaryDatabase()
        // A nullable column made by another tool: SQLite would have stored NaN as NULL, silently.
        try temp.db.execute("CREATE TABLE Reading (id INTEGER PRIMARY KEY, value REAL, maybe REAL)")
        let reading = Reading(); reading.value = .nan
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(reading) }
        #expect(error?.property == "value")
        reading.value = 1; reading.maybe = .nan
        #expect(throws: ValueConversionError.self) { try temp.db.save(reading) }
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM Reading") == 0)
    }

    @Test func aNullInANonOptionalColumnNamesTableKeyAndColumn() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Counter (id INTEGER PRIMARY KEY, name TEXT, count INTEGER, note TEXT); INSERT INTO Counter VALUES (7, 'a', NULL, 'n')")
        let error = #expect(throws: ValueConversionError.self) { try temp.db.objects(Counter.self) }
        #expect(error?.table == "Counter")
        #expect(error?.key == .integer(7))
        #expect(error?.column == "count")
        #expect(error.map { "\($0)".contains("optional") } == true)
    }

    @Test func deletingANeverSavedObjectIsANoOp() throws {
        let temp = try TemporaryDatabase()
        #expect(try temp.db.delete(Counter()) == false)
        let item = Counter()
        try temp.db.save(item)
        #expect(try temp.db.delete(item) == true)
        #expect(try temp.db.delete(item) == false)
    }
}

// MARK: 3. Keys chosen under the write lock

private final class RaceItem: Model {
    static var tableName: String { "race" }
    var id: Int64 = 0
    var name = ""
    required init() {}
}

@Suite struct KeyRaceTests {
    /// Two writers (two handles, or a handle and a pool's writer) each saving 1,000 new objects at the same
    /// time into a table whose key is declared as `layout`.
    private func race(_ layout: String, pool: Bool) throws -> [Int64] {
        let temp = try TemporaryDatabase()
        try temp.db.execute(layout)
        let path = temp.path
        let failures = Locked<[String]>([])
        // Opened first: switching the file to WAL needs it to itself (issue 12 covers opening under load).
        let writerPool = pool ? try DatabasePool(path: path, configuration: .patient) : nil
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            do {
                if let pool = writerPool, writer == 1 {
                    for i in 0..<1000 {
                        try pool.blocking.write { db in let item = RaceItem(); item.name = "p\(i)"; try db.save(item) }
                    }
                } else {
                    let db = try Database(path: path, configuration: .patient)
                    for i in 0..<1000 { let item = RaceItem(); item.name = "w\(writer)-\(i)"; try db.save(item) }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        return try temp.db.column(Int64.self, "SELECT id FROM race ORDER BY id")
    }

    @Test(arguments: [
        "CREATE TABLE race (id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE race (id INT PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE race (id bigint NOT NULL PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE race (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID",
    ])
    func twoWritersInsertingAtOnceLoseNoRow(layout: String) throws {
        let ids = try race(layout, pool: false)
        #expect(ids.count == 2000)
        #expect(Set(ids).count == 2000)
    }

    @Test func aHandleAndAPoolInsertingAtOnceLoseNoRow() throws {
        let ids = try race("CREATE TABLE race (id INT PRIMARY KEY, name TEXT NOT NULL)", pool: true)
        #expect(ids.count == 2000)
    }

    @Test func aKeyConflictNamesTheKey() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE race (id INT PRIMARY KEY, name TEXT NOT NULL); INSERT INTO race VALUES (3, 'taken')")
        let item = RaceItem(); item.id = 3; item.name = "mine"
        let error = #expect(throws: ModelError.self) { try temp.db.save(item) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.key == .integer(3))
        #expect(error?.properties == ["id"])
        #expect(!item.isPersisted)
        #expect(try temp.db.value(String.self, "SELECT name FROM race WHERE id = 3") == "taken")
    }
}

@Suite struct UpsertKeyTests {
    final class Note: Model {
        static let upsertKeys = ["serverID"]
        static let uniqueIndices = [["serverID"]]
        var id: Int64 = 0
        var serverID = ""
        var text = ""
        var pinned = false
        required init() {}
    }

    @Test func aNewInstanceMatchingAnUpsertKeyUpdatesThatRowAndTakesItsKey() throws {
        let temp = try TemporaryDatabase()
        let first = Note(); first.serverID = "s-1"; first.text = "v1"; first.pinned = true
        try temp.db.save(first)
        let firstID = first.id
        let db = try temp.reopen()
        let incoming = Note(); incoming.serverID = "s-1"; incoming.text = "v2"; incoming.pinned = true
        var sql: [String] = []
        let trace = db.traceStatements { sql.append($0) }
        try db.save(incoming)
        trace.cancel()
        #expect(incoming.id == firstID)
        #expect(sql.contains(#"UPDATE "Note" SET "text" = ? WHERE "id" = ?"#))   // only what differs
        #expect(try db.rows("SELECT id, text FROM Note").map { "\($0["id"]!):\($0["text"]!)" } == ["integer 1:text 'v2'"])
        #expect(try db.object(Note.self, forKey: firstID) === incoming)
        // No match: an INSERT.
        let other = Note(); other.serverID = "s-2"
        try db.save(other)
        #expect(other.id == 2)
        // A match that has a live instance already is refused (one live instance per row).
        let twin = Note(); twin.serverID = "s-1"
        #expect(throws: ModelError.self) { try db.save(twin) }
    }
}

@Suite struct StoredFormatModelTests {
    final class Legacy: Model {
        static let tableName = "legacy"
        var id: Int64 = 0
        var flag = false
        var stamp = Date(timeIntervalSince1970: 0)
        var token = UUID()
        var raw = UUID()
        var note = ""
        required init() {}
    }

    @Test func textBoolsMillisecondDatesAndOtherUUIDFormsAreKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE legacy (id INTEGER PRIMARY KEY, flag TEXT, stamp INTEGER, token TEXT, raw BLOB, note TEXT);
            INSERT INTO legacy VALUES (1, 't', 1577934245123, '0F8FAD5B-D9CB-469F-A165-70867728950E', x'0f8fad5bd9cb469fa16570867728950e', 'n');
            """)
        let row = try #require(try temp.db.object(Legacy.self, forKey: 1))
        #expect(row.flag && row.stamp == Date(timeIntervalSince1970: 1_577_934_245.123))
        row.flag = false
        row.stamp = Date(timeIntervalSince1970: 1_600_000_000.5)
        row.token = try #require(UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7"))
        row.raw = row.token
        try temp.db.save(row)
        let stored = try temp.db.rows("SELECT flag, stamp, token, raw FROM legacy")[0]
        #expect(stored["flag"] == .text("f"))
        #expect(stored["stamp"] == .integer(1_600_000_000_500))
        #expect(stored["token"] == .text("7C9E6679-7425-40DE-944B-E07FC1F90AE7"))
        #expect(stored["raw"] == .blob(Data([0x7c, 0x9e, 0x66, 0x79, 0x74, 0x25, 0x40, 0xde, 0x94, 0x4b, 0xe0, 0x7f, 0xc1, 0xf9, 0x0a, 0xe7])))
        // Read back by a new handle: the same values.
        let again = try #require(try temp.reopen().object(Legacy.self, forKey: 1))
        #expect(!again.flag && again.stamp == row.stamp && again.token == row.token && again.raw == row.token)
    }

    /// Django's `datetime`/`date` columns.
    final class Event: Model {
        static let tableName = "event"
        static let columnNames = ["createdAt": "created_at"]
        var id: Int64 = 0
        var createdAt = Date(timeIntervalSince1970: 0)
        var day: Date?
        var note = ""
        required init() {}
    }
    static let djangoEvents = """
        CREATE TABLE "event" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "created_at" datetime NOT NULL,
            "day" date NULL, "note" text NOT NULL);
        INSERT INTO event VALUES (1, '2024-01-02 03:04:05.123456', '2024-01-02', 'first');
        INSERT INTO event VALUES (2, '2024-01-03 03:04:05', NULL, 'second');
        """

    @Test func wholeSecondsInAPythonStyleColumnHaveNoFractionAndEqualityFindsThem() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(Self.djangoEvents)
        let db = try temp.reopen()
        let whole = Date(timeIntervalSince1970: 1_704_251_045)   // 2024-01-03 03:04:05, row 2 as Django stored it
        #expect(try db.objects(Event.self, where: \.createdAt == whole).map(\.id) == [2])
        #expect(try db.objects(Event.self, where: \.createdAt < whole).map(\.id) == [1])
        #expect(try db.objects(Event.self, where: \.createdAt <= whole).map(\.id) == [1, 2])
        #expect(try db.objects(Event.self, matching: ["createdAt": whole]).map(\.id) == [2])
        let e = Event(); e.createdAt = Date(timeIntervalSince1970: 1_704_337_445); e.note = "strata"
        try db.save(e)
        let f = Event(); f.createdAt = Date(timeIntervalSince1970: 1_704_337_445.5); f.note = "half"
        try db.save(f)
        #expect(try db.column(String.self, "SELECT created_at FROM event WHERE id > 2 ORDER BY id")
            == ["2024-01-04 03:04:05", "2024-01-04 03:04:05.500000"])
        // The lookup Django makes, filter(created_at=datetime(2024, 1, 4, 3, 4, 5)), binds Python's text.
        #expect(try db.value(Int64.self, "SELECT id FROM event WHERE created_at = '2024-01-04 03:04:05'") == e.id)
    }

    @Test func anEmptyDatetimeColumnTakesPythonsLayout() throws {
        let temp = try TemporaryDatabase()
        // peewee's DateTimeField and Django's DateTimeField, no rows yet.
        try temp.db.execute(#"CREATE TABLE "event" ("id" INTEGER NOT NULL PRIMARY KEY, "created_at" DATETIME NOT NULL, "day" DATE, "note" TEXT NOT NULL)"#)
        let db = try temp.reopen()
        let e = Event(); e.createdAt = Date(timeIntervalSince1970: 1_704_164_645); e.day = e.createdAt
        try db.save(e)
        let g = Event(); g.createdAt = Date(timeIntervalSince1970: 1_704_164_645.25)
        try db.save(g)
        #expect(try db.column(String.self, "SELECT created_at FROM event ORDER BY id") == ["2024-01-02 03:04:05", "2024-01-02 03:04:05.250000"])
        #expect(try db.value(String.self, "SELECT day FROM event WHERE id = ?", e.id) == "2024-01-02")
        // The format found on the first use holds: a new handle finds the same layout in the rows.
        let again = try temp.reopen()
        let h = Event(); h.createdAt = Date(timeIntervalSince1970: 1_704_164_646)
        try again.save(h)
        #expect(try again.value(String.self, "SELECT created_at FROM event WHERE id = ?", h.id) == "2024-01-02 03:04:06")
    }

    final class Stamp: Model {
        static let tableName = "ts"
        static let columnNames = ["atUs": "at_us"]
        var id: Int64 = 0
        var atUs = Date(timeIntervalSince1970: 0)
        required init() {}
    }

    @Test func microsecondTimestampsAreReadAndWrittenAsMicroseconds() throws {
        let temp = try TemporaryDatabase()
        // peewee TimestampField(resolution=10**6): 2024-01-02 03:04:05.25 UTC
        try temp.db.execute("CREATE TABLE ts(id INTEGER NOT NULL PRIMARY KEY, at_us INTEGER NOT NULL); INSERT INTO ts VALUES (1, 1704164645250000)")
        let db = try temp.reopen()
        let row = try #require(try db.object(Stamp.self, forKey: 1))
        #expect(row.atUs.timeIntervalSince1970 == 1_704_164_645.25)
        let n = Stamp(); n.atUs = Date(timeIntervalSince1970: 1_704_250_000.5)
        try db.save(n)
        #expect(try db.value(Int64.self, "SELECT at_us FROM ts WHERE id = ?", n.id) == 1_704_250_000_500_000)
        #expect(try db.objects(Stamp.self, where: \.atUs == n.atUs).map(\.id) == [n.id])
    }

    @Test func datesDateTextCannotHoldThrowNamingThePropertyAndDjangosNeverIsKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(Self.djangoEvents)
        try temp.db.execute("UPDATE event SET created_at = '9999-12-31 23:59:59.999999' WHERE id = 1")   // datetime.max
        try temp.db.execute("INSERT INTO event VALUES (3, '10000000000000', NULL, 'another tool')")      // seconds, year ~318857
        let db = try temp.reopen()
        let never = try #require(try db.object(Event.self, forKey: 1))
        let copy = Event(); copy.createdAt = never.createdAt; copy.note = "copy"
        try db.save(copy)
        #expect(try db.value(String.self, "SELECT created_at FROM event WHERE id = ?", copy.id) == "9999-12-31 23:59:59.999999")
        #expect(try db.objects(Event.self, where: \.createdAt == never.createdAt).map(\.id) == [1, copy.id])
        // Year 11476, and a date read from the other tool's row (it trapped converting to microseconds).
        let far = try #require(try db.object(Event.self, forKey: 3))
        for seconds in [far.createdAt.timeIntervalSince1970, 300_000_000_000, -62_135_596_801] {
            let e = try #require(try db.object(Event.self, forKey: 2))
            e.createdAt = Date(timeIntervalSince1970: seconds)
            let error = try #require(throws: ValueConversionError.self) { try db.save(e) }
            #expect(error.property == "createdAt" && error.model == "Event" && error.found == .real(seconds))
            let inserted = Event(); inserted.createdAt = e.createdAt
            #expect(throws: ValueConversionError.self) { try db.save(inserted) }
            let query = try #require(throws: ValueConversionError.self) { try db.objects(Event.self, where: \.createdAt == e.createdAt) }
            #expect(query.property == "createdAt")
            let matching = try #require(throws: ValueConversionError.self) { try db.objects(Event.self, matching: ["createdAt": e.createdAt]) }
            #expect(matching.property == "createdAt")
            e.createdAt = Date(timeIntervalSince1970: 1_704_251_045)
        }
        #expect(try db.value(String.self, "SELECT created_at FROM event WHERE id = 2") == "2024-01-03 03:04:05")
        #expect(try db.count(Event.self) == 4)
    }

    final class Rounded: Model {
        static let tableName = "rounded"
        var id: Int64 = 0
        var at = Date(timeIntervalSince1970: 0)
        var day: Date?
        var iso = Date(timeIntervalSince1970: 0)
        var amount = Decimal(0)
        var ratio = 0.0
        var native = Date(timeIntervalSince1970: 0)
        var note = ""
        required init() {}
    }

    final class PlainRatio: Model {
        static let tableName = "rounded"
        static let columnNames = ["other": "id2"]
        var id: Int64 = 0
        var ratio = 0.0
        var other: Int64 = 0
        required init() {}
    }

    /// Integer seconds, a date-only column, 3 fraction digits, a Django `decimal`, a REAL holding -0.0 and
    /// Strata's own REAL dates: each keeps less than the Swift value.
    static let roundingColumns = """
        CREATE TABLE rounded (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, day date, iso TEXT NOT NULL,
            amount decimal NOT NULL, ratio REAL NOT NULL, native REAL NOT NULL, note TEXT NOT NULL, id2 INTEGER NOT NULL DEFAULT 0);
        INSERT INTO rounded VALUES (1, 1700000000, '2024-01-02', '2024-01-02T03:04:05.123Z', 1.5, 1.0, 1.0, 'x', 0);
        """

    @Test func aRoundedWriteIsNoChangeAndAnotherConnectionsCommitIsNoConflict() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(Self.roundingColumns)
        let db = try Database(path: temp.path), other = try Database(path: temp.path)
        let row = try #require(try db.object(Rounded.self, forKey: 1))
        #expect(row.changedProperties == [])
        let at = Date(timeIntervalSince1970: 1_700_000_100.25), day = Date(timeIntervalSince1970: 1_704_337_445)
        let iso = Date(timeIntervalSince1970: 1_704_164_645.123_456), amount = try #require(Decimal(string: "12345678901234567890.123456789"))
        row.at = at; row.day = day; row.iso = iso; row.amount = amount; row.ratio = -0.0; row.native = Date(timeIntervalSince1970: -0.0)
        try db.save(row)
        #expect(try db.rows("SELECT at, day, iso, amount FROM rounded")[0].values
            == [.integer(1_700_000_100), .text("2024-01-04"), .text("2024-01-02T03:04:05.123Z"), .real(12_345_678_901_234_567_890.123456789)])
        // A REAL column stores -0.0 as the integer 0: it reads back as 0.0.
        #expect(try db.value(Double.self, "SELECT ratio FROM rounded")?.sign == .plus)
        #expect(try db.value(Double.self, "SELECT native FROM rounded")?.sign == .plus)
        // The fields keep what the user set; the save wrote what the columns hold, and that is no change.
        #expect(row.at == at && row.day == day && row.iso == iso && row.amount == amount && row.ratio.sign == .minus)
        #expect(row.changedProperties == [])
        // Another connection changes only `note`; this one changes every rounded property again.
        try other.execute("UPDATE rounded SET note = 'y' WHERE id = 1")
        row.at = Date(timeIntervalSince1970: 1_700_000_200); row.day = Date(timeIntervalSince1970: 1_704_423_845)
        row.iso = Date(timeIntervalSince1970: 1_704_164_646.5); row.amount = 7; row.ratio = 2; row.native = Date(timeIntervalSince1970: 3)
        try db.save(row)   // was ModelError(.conflict) naming every rounded property
        #expect(try db.rows("SELECT at, day, iso, amount, ratio, native, note FROM rounded")[0].values
            == [.integer(1_700_000_200), .text("2024-01-05"), .text("2024-01-02T03:04:06.500Z"), .integer(7), .real(2), .real(3), .text("y")])
        // Another tool writes seven fraction digits and another zone: the column's layout (3 digits, Z) keeps
        // less, and the value read is still no change.
        try other.execute("UPDATE rounded SET iso = '2024-01-02T04:04:05.1234567+01:00' WHERE id = 1")
        _ = try db.object(Rounded.self, forKey: 1)
        #expect(row.iso == Date(timeIntervalSince1970: 1_704_164_645.123_456_7) && row.changedProperties == [])
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.save(row)
        trace.cancel()
        #expect(statements.isEmpty)
    }

    @Test func aPlainNumberModelsSavedNegativeZeroIsNoConflict() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute(Self.roundingColumns)
        let db = try Database(path: temp.path), other = try Database(path: temp.path)
        let row = try #require(try db.object(PlainRatio.self, forKey: 1))
        row.ratio = -0.0
        try db.save(row)
        #expect(try db.value(Double.self, "SELECT ratio FROM rounded")?.sign == .plus)   // stored as the integer 0
        #expect(!row.hasChanges)
        try other.execute("UPDATE rounded SET id2 = 5 WHERE id = 1")
        row.ratio = 2
        try db.save(row)
        #expect(try db.rows("SELECT ratio, id2 FROM rounded")[0].values == [.real(2), .integer(5)])
        #expect(row.other == 5)
    }

    @Test func columnsStrataCreatesKeepItsFormats() throws {
        let temp = try TemporaryDatabase()
        let row = Legacy(); row.flag = true; row.stamp = Date(timeIntervalSince1970: 1.5)
        row.token = try #require(UUID(uuidString: "7C9E6679-7425-40DE-944B-E07FC1F90AE7"))
        try temp.db.save(row)
        let stored = try temp.db.rows("SELECT flag, stamp, token FROM legacy")[0]
        #expect(stored["flag"] == .integer(1) && stored["stamp"] == .real(1.5))
        #expect(stored["token"] == .text("7c9e6679-7425-40de-944b-e07fc1f90ae7"))
    }
}


/// More than 64 properties: the change set and the NULL bits use more than one word.
private final class Wide: Model {
    var id: Int64 = 0
    var p1 = 0
    var p2 = 0
    var p3 = 0
    var p4 = 0
    var p5 = 0
    var p6 = 0
    var p7 = 0
    var p8 = 0
    var p9 = 0
    var p10 = 0
    var p11 = 0
    var p12 = 0
    var p13 = 0
    var p14 = 0
    var p15 = 0
    var p16 = 0
    var p17 = 0
    var p18 = 0
    var p19 = 0
    var p20 = 0
    var p21 = 0
    var p22 = 0
    var p23 = 0
    var p24 = 0
    var p25 = 0
    var p26 = 0
    var p27 = 0
    var p28 = 0
    var p29 = 0
    var p30 = 0
    var p31 = 0
    var p32 = 0
    var p33 = 0
    var p34 = 0
    var p35 = 0
    var p36 = 0
    var p37 = 0
    var p38 = 0
    var p39 = 0
    var p40 = 0
    var p41 = 0
    var p42 = 0
    var p43 = 0
    var p44 = 0
    var p45 = 0
    var p46 = 0
    var p47 = 0
    var p48 = 0
    var p49 = 0
    var p50 = 0
    var p51 = 0
    var p52 = 0
    var p53 = 0
    var p54 = 0
    var p55 = 0
    var p56 = 0
    var p57 = 0
    var p58 = 0
    var p59 = 0
    var p60 = 0
    var p61 = 0
    var p62 = 0
    var p63 = 0
    var p64 = 0
    var p65 = 0
    var p66 = 0
    var p67 = 0
    var p68 = 0
    var p69 = 0
    var late: String?
    required init() {}
}

@Suite struct WideModelTests {
    @Test func changesPastTheSixtyFourthPropertyAreTrackedExactly() throws {
        let temp = try TemporaryDatabase()
        let wide = Wide()
        try temp.db.save(wide)
        let db = try temp.reopen()
        let row = try #require(try db.object(Wide.self, forKey: wide.id))
        #expect(!row.hasChanges)
        row.p66 = 7
        row.late = "x"
        #expect(row.changedProperties == ["p66", "late"])
        var sql: [String] = []
        let trace = db.traceStatements { sql.append($0) }
        try db.save(row)
        row.late = nil
        try db.save(row)
        trace.cancel()
        #expect(sql.filter { $0.hasPrefix("UPDATE") } == [#"UPDATE "Wide" SET "p66" = ?, "late" = ? WHERE "id" = ?"#, #"UPDATE "Wide" SET "late" = ? WHERE "id" = ?"#])
        #expect(!row.hasChanges)
        let again = try #require(try temp.reopen().object(Wide.self, forKey: wide.id))
        #expect(again.p66 == 7 && again.late == nil && again.p1 == 0)
    }
}

@Suite struct ReadOnlyHandleTests {
    @Test func aReadOnlyHandlesTransactionsAreDeferredAndStillSeeOtherCommits() throws {
        let temp = try TemporaryDatabase()
        let seed = Counter(); seed.name = "a"
        try temp.db.save(seed)
        var configuration = Database.Configuration()
        configuration.readOnly = true
        let reader = try Database(path: temp.path, configuration: configuration)
        let live = try #require(try reader.object(Counter.self, forKey: seed.id))
        seed.name = "b"
        try temp.db.save(seed)
        let name = try reader.transaction { live.name }
        #expect(name == "b")
    }
}

@Suite struct FormattedKeyTests {
    /// Django's `UUIDField(primary_key=True)`: the key column stores 32 hex digits.
    final class Token: Model {
        static let tableName = "auth_token"
        var id = UUID()
        var label = ""
        required init() {}
    }

    @Test func aUUIDKeyStoredAsHexIsFoundUpdatedAndDeletedInItsFormat() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE "auth_token" ("id" char(32) NOT NULL PRIMARY KEY, "label" varchar(20) NOT NULL);
            INSERT INTO auth_token VALUES ('0f8fad5bd9cb469fa16570867728950e', 'a'), ('7c9e6679742540de944be07fc1f90ae7', 'b');
            """)
        let a = try #require(UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e"))
        let b = try #require(UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7"))
        let first = try #require(try temp.db.object(Token.self, forKey: a))
        #expect(try temp.db.objects(Token.self, forKeys: [b, a]).map(\.label) == ["b", "a"])
        first.label = "renamed"
        try temp.db.save(first)
        try temp.db.execute("UPDATE auth_token SET label = 'raw' WHERE id = '7c9e6679742540de944be07fc1f90ae7'")
        let second = try #require(try temp.db.object(Token.self, forKey: b))
        #expect(second.label == "raw" && !second.isDeleted)
        #expect(try temp.db.delete(second))
        let fresh = Token(); fresh.label = "new"
        fresh.id = try #require(UUID(uuidString: "16FD2706-8BAF-433B-82EB-8C7F5044235D"))
        try temp.db.save(fresh)
        #expect(try temp.db.rows("SELECT id, label FROM auth_token ORDER BY label").map { "\($0["id"]!) \($0["label"]!)" }
                == ["text '16fd27068baf433b82eb8c7f5044235d' text 'new'", "text '0f8fad5bd9cb469fa16570867728950e' text 'renamed'"])
    }
}

@Suite struct PlainNumberModelTests {
    /// Every property an 8-byte number: change detection compares the fields' bits with the snapshot.
    final class Sample: Model {
        var id: Int64 = 0
        var count = 0
        var level: Int64 = 0
        var ratio = 0.0
        required init() {}
    }

    @Test func onlyChangedNumbersAreWrittenAndTheKeyStaysGuarded() throws {
        #expect(try ModelMetadata.of(Sample.self).plainWordOffsets?.count == 4)
        #expect(try ModelMetadata.of(Sample.self).plainWordsStart != nil)
        let temp = try TemporaryDatabase()
        let sample = Sample(); sample.count = 1; sample.ratio = 0.5
        try temp.db.save(sample)
        var sql: [String] = []
        let trace = temp.db.traceStatements { if $0.hasPrefix("UPDATE") { sql.append($0) } }
        try temp.db.save(sample)                       // unchanged
        sample.ratio = 0.25
        try temp.db.save(sample)
        sample.level = -1; sample.count = 2
        try temp.db.save(sample)
        trace.cancel()
        #expect(sql == [#"UPDATE "Sample" SET "ratio" = ? WHERE "id" = ?"#,
                        #"UPDATE "Sample" SET "count" = ?, "level" = ? WHERE "id" = ?"#])
        #expect(sample.changedProperties.isEmpty)
        sample.id = 99
        #expect(sample.changedProperties == ["id"])
        let error = #expect(throws: ModelError.self) { try temp.db.save(sample) }
        #expect(error?.kind == .invalidPrimaryKey)
        #expect(try temp.db.rows("SELECT id, count, level, ratio FROM Sample").map { "\($0["id"]!) \($0["count"]!) \($0["level"]!) \($0["ratio"]!)" }
                == ["integer 1 integer 2 integer -1 real 0.25"])
        // Fetched by a new handle (the snapshot copied from the fields as the row is decoded).
        let db = try temp.reopen()
        let fetched = try #require(try db.objects(Sample.self).first)
        #expect(!fetched.hasChanges)
        fetched.level = 5
        #expect(fetched.changedProperties == ["level"])
        try db.save(fetched)
        #expect(!fetched.hasChanges)
        #expect(try db.value(Int.self, "SELECT level FROM Sample") == 5)
    }

    /// The fetch reads such a model column by column straight into its fields; a stored value of another
    /// kind (an integer under a Double, a real with no fraction under an Int) goes through conversion
    /// in the middle of the row, and the columns after it still land in their fields and the snapshot.
    @Test func storedValuesOfAnotherKindConvertMidRowAndStayUnchanged() throws {
        let temp = try TemporaryDatabase()
        // "level" has no affinity, so a real stays real; NUMERIC stores 3.0 as the integer 3.
        try temp.db.execute(#"CREATE TABLE "Sample" (id INTEGER PRIMARY KEY, count INTEGER, level, ratio NUMERIC)"#)
        try temp.db.execute(#"INSERT INTO "Sample" VALUES (1, 7, 2.0, 3.0), (2, 8, 4, 0.5)"#)
        #expect(try temp.db.rows(#"SELECT typeof(level), typeof(ratio) FROM "Sample" ORDER BY id"#).map { "\($0[0]) \($0[1])" }
                == ["text 'real' text 'integer'", "text 'integer' text 'real'"])
        let samples = try temp.db.objects(Sample.self, where: "1 ORDER BY id")
        #expect(samples.map { "\($0.id) \($0.count) \($0.level) \($0.ratio)" } == ["1 7 2 3.0", "2 8 4 0.5"])
        #expect(samples.allSatisfy { !$0.hasChanges })
        samples[0].ratio = 3.5
        #expect(samples[0].changedProperties == ["ratio"])

        // A stored value that fits no property is an error naming the column, and leaves no instance behind.
        try temp.db.execute(#"INSERT INTO "Sample" VALUES (3, 9, 'many', 1.0)"#)
        let error = try #require(throws: ValueConversionError.self) { try temp.db.objects(Sample.self, where: "id = 3") }
        #expect(error.column == "level")
        #expect(error.found == .text("many"))
        #expect(try temp.db.registry(for: Sample.self).instance(rowID: 3) == nil)
        try temp.db.execute(#"UPDATE "Sample" SET level = 6 WHERE id = 3"#)
        let third = try #require(try temp.db.objects(Sample.self, where: "id = 3").first)
        #expect("\(third.id) \(third.count) \(third.level) \(third.ratio)" == "3 9 6 1.0")
        #expect(!third.hasChanges)
    }
}

/// Found by the second reader of the stored-formats change.
@Suite struct SentinelDateTests {
    private final class Stamp: Model {
        static let tableName = "sentinel_stamp"
        static let columnFormats: [String: ColumnFormat] = ["at": .unixMilliseconds]
        var id: Int64 = 0
        var name = ""
        var at = Date()
        required init() {}
    }

    private final class Event: Model {
        static let tableName = "sentinel_event"
        var id: Int64 = 0
        var name = ""
        var at = Date()
        required init() {}
    }

    @Test func anUnchangedDateTheColumnCannotHoldAgainIsNoChange() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE sentinel_stamp(id INTEGER PRIMARY KEY, name TEXT NOT NULL, at INTEGER NOT NULL)")
        try db.execute("INSERT INTO sentinel_stamp VALUES (1, 'a', 1700000000000), (2, 'b', 9223372036854775807)")
        let stamp = try #require(try db.object(Stamp.self, forKey: 2))
        #expect(!stamp.hasChanges)
        stamp.name = "c"
        try db.save(stamp)
        #expect(try db.rows("SELECT name, at FROM sentinel_stamp WHERE id = 2").first?["at"] == .integer(Int64.max))
        #expect(try db.value(String.self, "SELECT name FROM sentinel_stamp WHERE id = 2") == "c")
    }

    @Test func aSecondsColumnWithAYear9999SentinelStaysSeconds() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE sentinel_event(id INTEGER PRIMARY KEY, name TEXT NOT NULL, at INTEGER NOT NULL)")
        try db.execute("INSERT INTO sentinel_event VALUES (1, 'a', 1700000000), (2, 'never', 253402300799)")
        let event = try #require(try db.object(Event.self, forKey: 1))
        #expect(event.at == Date(timeIntervalSince1970: 1_700_000_000))
    }
}
