import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// One live instance per row, weakly held; writes through the handle reach live instances; rollbacks
// restore them; change notifications after commit (issue 3, "Persistence and queries").

private let liveDeinits = Locked(0)

private final class LiveItem: Model {
    var id: Int64 = 0
    var name = ""
    var qty = 0
    var note: String?
    required init() {}
    deinit { liveDeinits.withLock { $0 += 1 } }
}

private final class LiveTag: Model {
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

private final class LiveOther: Model {
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private struct Abort: Error {}

private func makeItems(_ db: Database, _ names: [String]) throws -> [LiveItem] {
    let items = names.map { name in let item = LiveItem(); item.name = name; return item }
    try db.save(items)
    return items
}

@Suite struct LiveInstanceTests {
    @Test func sameKeyFetchedTwiceIsTheSameObject() throws {
        let temp = try TemporaryDatabase()
        _ = try makeItems(temp.db, ["a", "b", "c"])
        let db = try temp.reopen()
        let first = try #require(try db.object(LiveItem.self, forKey: 2))
        let second = try #require(try db.object(LiveItem.self, forKey: 2))
        #expect(first === second)
        let all = try db.objects(LiveItem.self, where: "ORDER BY id")
        #expect(all[1] === first)
        #expect(try db.first(LiveItem.self, where: "WHERE name = ?", "b") === first)
        #expect(try db.objects(LiveItem.self, forKeys: [2]).first === first)
        #expect(try db.objects(LiveItem.self, matching: ["name": "b"]).first === first)
        // A live instance keeps its unsaved changes when fetched again.
        first.name = "unsaved"
        #expect(try db.object(LiveItem.self, forKey: 2)?.name == "unsaved")
        #expect(try db.objects(LiveItem.self, where: "WHERE id = 2").first?.name == "unsaved")
        // Another handle has its own identity map.
        let other = try Database(path: temp.path)
        let elsewhere = try #require(try other.object(LiveItem.self, forKey: 2))
        #expect(elsewhere !== first)
        #expect(elsewhere.name == "b")
        try other.close()
    }

    @Test func liveInstancesAreWeaklyHeld() throws {
        let db = try Database()
        _ = try makeItems(db, ["a"])
        let registry = try db.registry(for: LiveItem.self)
        weak var weakItem: LiveItem?
        let deinitsBefore = liveDeinits.withLock { $0 }
        do {
            let item = try #require(try db.object(LiveItem.self, forKey: 1))
            item.name = "changed but never saved"
            weakItem = item
            #expect(registry.instance(rowID: 1) === item)
        }
        #expect(weakItem == nil)
        #expect(liveDeinits.withLock { $0 } > deinitsBefore)
        #expect(registry.instance(rowID: 1) == nil)
        #expect(registry.liveInstances.isEmpty)
        // Fetched again: a new object, read from the row.
        let again = try #require(try db.object(LiveItem.self, forKey: 1))
        #expect(again.name == "a")
    }

    @Test func manyFetchedObjectsAreAllFreed() throws {
        let db = try Database()
        _ = try makeItems(db, (0..<200).map { "n\($0)" })
        let registry = try db.registry(for: LiveItem.self)
        do {
            let all = try db.objects(LiveItem.self)
            #expect(all.count == 200)
            #expect(registry.liveInstances.count == 200)
        }
        #expect(registry.liveInstances.isEmpty)
    }

    @Test func saveInsertsThenUpdates() throws {
        let db = try Database()
        let item = LiveItem(); item.name = "first"
        #expect(!item.isPersisted)
        try db.save(item)
        #expect(item.isPersisted && !item.isDeleted)
        item.name = "second"; item.qty = 3; item.note = "n"
        try db.save(item)
        #expect(try db.count(LiveItem.self) == 1)
        let row = try #require(try db.rows("SELECT * FROM $T", for: LiveItem.self).first)
        #expect(row["name"] == .text("second") && row["qty"] == .integer(3) && row["note"] == .text("n"))
        item.note = nil
        try db.save(item)
        #expect(try db.rows("SELECT note FROM LiveItem").first?["note"] == .null)
    }

    @Test func deleteMarksTheInstance() throws {
        let db = try Database()
        let items = try makeItems(db, ["a", "b"])
        try db.delete(items[0])
        #expect(items[0].isDeleted)
        #expect(!items[0].isPersisted)
        #expect(try db.object(LiveItem.self, forKey: 1) == nil)
        #expect(try db.count(LiveItem.self) == 1)
        #expect(try db.delete(items[0]) == false)   // deleted already: nothing to do
        let resave = try #require(throws: ModelError.self) { try db.save(items[0]) }
        #expect(resave.kind == .deleted)
        #expect(try db.delete(LiveItem()) == false)  // never saved: nothing to do
    }

    @Test func rawUpdateReachesLiveInstances() throws {
        let db = try Database()
        let items = try makeItems(db, ["a", "b", "c"])
        try db.execute("UPDATE $T SET qty = qty + 5, note = 'bulk' WHERE $PK >= ?", for: LiveItem.self, 2)
        #expect(items.map(\.qty) == [0, 5, 5])
        #expect(items.map(\.note) == [nil, "bulk", "bulk"])
        // Plain execute (no $T) through the handle is seen as well.
        try db.execute("UPDATE LiveItem SET name = upper(name)")
        #expect(items.map(\.name) == ["A", "B", "C"])
        // Unsaved changes of a row that the raw UPDATE touched are kept where the UPDATE left the column
        // alone; a column both changed is a conflict that the next save reports.
        items[0].name = "local"
        try db.execute("UPDATE $T SET qty = 1 WHERE $PK = ?", for: LiveItem.self, items[0].id)
        #expect(items[0].name == "local" && items[0].qty == 1)
        try db.execute("UPDATE $T SET name = 'raw' WHERE $PK = ?", for: LiveItem.self, items[0].id)
        #expect(items[0].name == "local")
        let conflict = try #require(throws: ModelError.self) { try db.save(items[0]) }
        #expect(conflict.kind == .conflict && conflict.properties == ["name"])
        #expect(items[0].name == "raw")
    }

    @Test func rawDeleteReachesLiveInstances() throws {
        let db = try Database()
        let items = try makeItems(db, ["a", "b", "c", "d"])
        try db.execute("DELETE FROM $T WHERE $PK = ?", for: LiveItem.self, items[1].id)
        #expect(items.map(\.isDeleted) == [false, true, false, false])
        #expect(try db.deleteAll(LiveItem.self, where: "WHERE name IN (?, ?)", "c", "zzz") == 1)
        #expect(items.map(\.isDeleted) == [false, true, true, false])
        // DELETE without WHERE (SQLite's truncate optimization) is seen too.
        try db.execute("DELETE FROM $T", for: LiveItem.self)
        #expect(items.allSatisfy { $0.isDeleted })
        #expect(try db.count(LiveItem.self) == 0)
    }

    @Test func dropTableThroughTheHandleWorks() throws {
        let db = try Database()
        _ = try makeItems(db, ["a"])
        try db.execute("DROP TABLE LiveItem")
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'LiveItem'") == 0)
        try db.execute("CREATE VIEW v AS SELECT 1; DROP VIEW v")
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'v'") == 0)
    }

    @Test func duplicateLiveInstanceForTheSameKeyIsAnError() throws {
        let db = try Database()
        let first = LiveItem(); first.id = 7; first.name = "first"
        try db.save(first)
        let impostor = LiveItem(); impostor.id = 7; impostor.name = "impostor"
        let error = try #require(throws: ModelError.self) { try db.save(impostor) }
        #expect(error.kind == .duplicateInstance)
        #expect(error.property == "id")
        #expect(!impostor.isPersisted)
        #expect(try db.value(String.self, "SELECT name FROM LiveItem WHERE id = 7") == "first")

        let tag = LiveTag(); tag.code = "x"
        try db.save(tag)
        let twin = LiveTag(); twin.code = "x"
        let twinError = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(twinError.kind == .duplicateInstance)
    }

    @Test func savingANewInstanceOverAnExistingRowIsADuplicateKeyNeverAnUpsert() throws {
        let db = try Database()
        try db.execute("CREATE TABLE LiveTag(code TEXT PRIMARY KEY NOT NULL, label TEXT NOT NULL DEFAULT '')")
        try db.execute("INSERT INTO LiveTag VALUES ('k', 'by another tool')")
        let tag = LiveTag(); tag.code = "k"; tag.label = "mine"
        let error = try #require(throws: ModelError.self) { try db.save(tag) }
        #expect(error.kind == .duplicateKey)
        #expect(error.key == .text("k"))
        #expect(try db.column(String.self, "SELECT label FROM LiveTag") == ["by another tool"])
        #expect(!tag.isPersisted)
        #expect(try db.object(LiveTag.self, forKey: "k")?.label == "by another tool")
    }

    @Test func instanceOfAnotherHandleIsRejected() throws {
        let one = try Database(), two = try Database()
        let item = LiveItem()
        try one.save(item)
        let foreign = try #require(throws: ModelError.self) { try two.save(item) }
        #expect(foreign.kind == .foreignInstance)
    }

    // MARK: Transactions

    @Test func rollbackRestoresLiveInstances() throws {
        let db = try Database()
        let items = try makeItems(db, ["keep", "update", "delete"])
        let (keep, updated, deleted) = (items[0], items[1], items[2])
        let inserted = LiveItem(); inserted.name = "new"
        #expect(throws: Abort.self) {
            try db.transaction {
                updated.name = "updated"; updated.qty = 9
                try db.save(updated)
                try db.save(inserted)
                #expect(inserted.id == 4 && inserted.isPersisted)
                try db.delete(deleted)
                #expect(deleted.isDeleted)
                try db.execute("UPDATE $T SET note = 'raw' WHERE $PK = ?", for: LiveItem.self, keep.id)
                #expect(keep.note == "raw")
                throw Abort()
            }
        }
        // Updated values revert, the inserted instance is unsaved again, the deleted one is back.
        #expect(updated.name == "update" && updated.qty == 0)
        #expect(keep.note == nil)
        #expect(!inserted.isPersisted && !inserted.isDeleted)
        #expect(inserted.id == 0)
        #expect(!deleted.isDeleted && deleted.isPersisted)
        #expect(try db.object(LiveItem.self, forKey: 3) === deleted)
        #expect(try db.count(LiveItem.self) == 3)
        // The unsaved one can be saved again, as a new row.
        try db.save(inserted)
        #expect(inserted.isPersisted && inserted.id == 4)
        #expect(try db.object(LiveItem.self, forKey: 4) === inserted)
    }

    @Test func rolledBackSavepointRestoresOnlyItsChanges() throws {
        let db = try Database()
        let items = try makeItems(db, ["a", "b"])
        let outerNew = LiveItem(); outerNew.name = "outer"
        let innerNew = LiveItem(); innerNew.name = "inner"
        try db.transaction {
            items[0].name = "a2"
            try db.save(items[0])
            try db.save(outerNew)
            try? db.transaction {
                items[1].name = "b2"
                try db.save(items[1])
                try db.save(innerNew)
                try db.delete(items[0])
                throw Abort()
            }
        }
        #expect(items[0].name == "a2" && !items[0].isDeleted)
        #expect(items[1].name == "b")
        #expect(outerNew.isPersisted)
        #expect(!innerNew.isPersisted && innerNew.id == 0)
        #expect(try db.column(String.self, "SELECT name FROM LiveItem ORDER BY id") == ["a2", "b", "outer"])
    }

    @Test func notificationsAreCoalescedPerTransaction() throws {
        let db = try Database()
        let items = try makeItems(db, ["a", "b", "c"])
        var received: [[DatabaseChange]] = []
        let observation = db.observeChanges { received.append($0) }
        try db.transaction {
            items[0].qty = 1; try db.save(items[0])
            items[0].qty = 2; try db.save(items[0])
            try db.delete(items[1])
            try db.save([LiveItem(), LiveItem()])
            try db.execute("UPDATE $T SET note = 'x' WHERE $PK = ?", for: LiveItem.self, items[2].id)
            let other = LiveOther(); other.title = "t"
            try db.save(other)
            #expect(received.isEmpty)  // nothing before commit
        }
        try #require(received.count == 1)
        let changes = received[0]
        #expect(changes.count == 2)
        let item = try #require(changes.first { $0.table == "LiveItem" })
        #expect(item.modelType == LiveItem.self)
        #expect(item.insertedRowIDs == [4, 5])
        #expect(item.updatedRowIDs == [1, 3])
        #expect(item.deletedRowIDs == [2])
        // The engine-neutral spellings name the same rows.
        #expect(item.insertedRows == [.integer(4), .integer(5)])
        #expect(item.updatedRows == [.integer(1), .integer(3)])
        #expect(item.deletedRows == [.integer(2)])
        let other = try #require(changes.first { $0.table == "LiveOther" })
        #expect(other.insertedRowIDs == [1] && other.updatedRowIDs.isEmpty && other.deletedRowIDs.isEmpty)
        _ = observation
    }

    @Test func noNotificationsForRollbackAndOnePerStatementOutsideTransactions() throws {
        let db = try Database()
        let items = try makeItems(db, ["a"])
        var received: [[DatabaseChange]] = []
        let observation = db.observeChanges { received.append($0) }
        try? db.transaction {
            items[0].qty = 5; try db.save(items[0])
            try db.save(LiveItem())
            throw Abort()
        }
        #expect(received.isEmpty)
        try? db.transaction {
            try? db.transaction {
                try db.save(LiveItem())
                throw Abort()
            }
            throw Abort()
        }
        #expect(received.isEmpty)

        try db.save(LiveItem())
        try db.execute("UPDATE $T SET qty = 3", for: LiveItem.self)
        try #require(received.count == 2)
        #expect(received[0].first?.insertedRowIDs == [2])
        #expect(received[1].first?.updatedRowIDs == [1, 2])

        observation.cancel()
        try db.save(LiveItem())
        #expect(received.count == 2)
    }

    @Test func rolledBackSavepointIsNotReported() throws {
        let db = try Database()
        var received: [[DatabaseChange]] = []
        let observation = db.observeChanges { received.append($0) }
        try db.transaction {
            try db.save(LiveItem())
            try? db.transaction {
                try db.save(LiveItem())
                throw Abort()
            }
        }
        try #require(received.count == 1)
        // The inner savepoint's insert (rowid 2) was rolled back: only the outer insert is reported.
        #expect(received[0].first?.insertedRowIDs == [1])
        _ = observation
    }

    @Test func releasedObservationStopsNotifications() throws {
        let db = try Database()
        var count = 0
        do {
            let observation = db.observeChanges { _ in count += 1 }
            try db.save(LiveItem())
            _ = observation
        }
        try db.save(LiveItem())
        #expect(count == 1)
    }
}
