import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Second reading of issue 9 (write integrity): keys, upsert keys, closed handles, NaN and NULL.

private final class SyncedNote: Model {
    static let upsertKeys = ["serverID"]
    static let uniqueIndices = [["serverID"], ["slug"]]
    var id: Int64 = 0
    var serverID: String?
    var slug = ""
    var text = ""
    required init() {}
}

private struct Payload: Codable, Equatable {
    var weight: Double
}

private enum Mood: String, Codable, ColumnValue {
    case calm, busy
}

private final class Measured: Model {
    var id: Int64 = 0
    var reading: Double?
    var payload = Payload(weight: 0)
    var count = 0
    var flag = false
    var stamp = Date(timeIntervalSince1970: 0)
    var token = UUID()
    var label = ""
    var mood = Mood.calm
    required init() {}
}

private final class TextKeyed: Model {
    var id = ""
    var name = ""
    required init() {}
}

@Suite struct AuditWriteTests {
    // MARK: Upsert keys

    /// A new instance that adopts a row by its upsert key, then fails to update it (a UNIQUE violation on
    /// another column): nothing was written, so the instance is what it was — unsaved, with its values.
    @Test func aFailedUpsertLeavesTheInstanceUnsavedWithItsValues() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        let b = SyncedNote(); b.serverID = "s-2"; b.slug = "b"
        try temp.db.save([a, b])
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "b"; incoming.text = "new"
        let error = #expect(throws: ModelError.self) { try db.save(incoming) }
        #expect(error?.kind == .duplicateKey)
        #expect(!incoming.isPersisted)
        #expect(incoming.id == 0)
        #expect(incoming.slug == "b" && incoming.text == "new")
        #expect(try db.object(SyncedNote.self, forKey: 1) !== incoming)
        // Fixed and saved again, it updates the row it matches.
        incoming.slug = "a2"
        try db.save(incoming)
        #expect(incoming.id == 1)
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "new")
    }

    /// The same in a batch: the failing object is another one.
    @Test func aFailedBatchLeavesAnUpsertedInstanceUnsavedWithItsValues() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        try temp.db.save(a)
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "a"; incoming.text = "new"
        let clash = SyncedNote(); clash.serverID = "s-9"; clash.slug = "a"
        #expect(throws: ModelError.self) { try db.save([incoming, clash]) }
        #expect(incoming.text == "new")
        #expect(!incoming.isPersisted && incoming.id == 0)
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "old")
        try db.save(incoming)
        #expect(incoming.id == 1)
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "new")
    }

    /// A savepoint rolled back after an upsert: the instance is unsaved again, its values kept.
    @Test func aRolledBackSavepointUndoesAnUpsertAdoption() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        try temp.db.save(a)
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "a"; incoming.text = "new"
        try db.transaction {
            struct Undo: Error {}
            _ = try? db.transaction {
                try db.save(incoming)
                #expect(incoming.id == 1)
                throw Undo()
            }
            #expect(!incoming.isPersisted && incoming.id == 0 && incoming.text == "new")
        }
        #expect(try db.value(String.self, "SELECT text FROM SyncedNote WHERE id = 1") == "old")
        #expect(try db.object(SyncedNote.self, forKey: 1)?.text == "old")
    }

    /// A NULL upsert key matches nothing (NULL is never equal): two such instances are two rows.
    @Test func aNilUpsertKeyInserts() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.slug = "a"
        let b = SyncedNote(); b.slug = "b"
        try temp.db.save(a)
        try temp.db.save(b)
        #expect(a.id == 1 && b.id == 2)
    }

    // MARK: Keys

    @Test func aCallerChosenTextKeyThatCollidesNamesModelAndKey() throws {
        let temp = try TemporaryDatabase()
        let first = TextKeyed(); first.id = "k"; first.name = "first"
        try temp.db.save(first)
        let db = try temp.reopen()
        let second = TextKeyed(); second.id = "k"; second.name = "second"
        let error = #expect(throws: ModelError.self) { try db.save(second) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.model == "TextKeyed")
        #expect(error?.key == .text("k"))
        #expect(!second.isPersisted)
        #expect(try db.value(String.self, "SELECT name FROM TextKeyed") == "first")
    }

    // MARK: NaN and NULL

    @Test func nanInAnOptionalDoubleIsRefusedNamingTheProperty() throws {
        let temp = try TemporaryDatabase()
        let m = Measured(); m.reading = .nan
        let error = #expect(throws: ValueConversionError.self) { try temp.db.save(m) }
        #expect(error?.property == "reading")
        #expect(!m.isPersisted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM Measured") == 0)
    }

    @Test func nanInACodablePropertyIsRefusedNamingTheProperty() throws {
        let temp = try TemporaryDatabase()
        let m = Measured(); m.payload = Payload(weight: .nan)
        var thrown: (any Error)?
        do { try temp.db.save(m) } catch { thrown = error }
        #expect(thrown != nil)
        #expect("\(thrown.map { "\($0)" } ?? "")".contains("payload"))
        #expect(!m.isPersisted)
        // An update too.
        let saved = Measured()
        try temp.db.save(saved)
        saved.payload = Payload(weight: .nan)
        thrown = nil
        do { try temp.db.save(saved) } catch { thrown = error }
        #expect("\(thrown.map { "\($0)" } ?? "")".contains("payload"))
        #expect(try temp.db.value(String.self, "SELECT payload FROM Measured WHERE id = ?", saved.id)?.contains("0") == true)
    }

    @Test(arguments: ["count", "flag", "stamp", "token", "label", "mood", "payload"])
    func aNullInANonOptionalColumnNamesTableKeyAndColumn(column: String) throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE Measured (id INTEGER PRIMARY KEY, reading REAL, payload TEXT, count INTEGER, flag INTEGER,
                stamp REAL, token TEXT, label TEXT, mood TEXT);
            INSERT INTO Measured VALUES (7, 1.5, '{"weight":1}', 1, 1, 0, '0F8FAD5B-D9CB-469F-A165-70867728950E', 'l', 'calm');
            """)
        try temp.db.execute("UPDATE Measured SET \"\(column)\" = NULL")
        let error = #expect(throws: ValueConversionError.self) { try temp.db.object(Measured.self, forKey: 7) }
        #expect(error?.table == "Measured")
        #expect(error?.key == .integer(7))
        #expect(error?.column == column)
        #expect(error?.found == .null)
    }

    // MARK: Closed handles

    @Test func everyCallOnAClosedHandleThrows() throws {
        let temp = try TemporaryDatabase()
        let dept = Department(); dept.name = "Sales"
        try temp.db.save(dept)
        let ada = Employee(); ada.name = "Ada"; ada.department = dept
        try temp.db.save(ada)
        let db = temp.db
        try db.close()
        #expect(throws: (any Error).self) { try db.object(Employee.self, forKey: ada.employeeId) }
        #expect(throws: (any Error).self) { try db.objects(Employee.self) }
        #expect(throws: (any Error).self) { try db.objects(Employee.self, forKeys: [ada.employeeId]) }
        #expect(throws: (any Error).self) { try db.count(Employee.self) }
        #expect(throws: (any Error).self) { try db.first(Employee.self) }
        #expect(throws: (any Error).self) { try db.prefetch("department", of: [ada]) }
        #expect(throws: (any Error).self) { try ada.$department.load() }
        ada.name = "Ada L."
        #expect(throws: (any Error).self) { try db.save(ada) }
        #expect(throws: (any Error).self) { try db.save([ada]) }
        #expect(throws: (any Error).self) { try db.delete(ada) }
        #expect(throws: (any Error).self) { try db.delete(Employee()) }
        #expect(throws: (any Error).self) { try db.transaction { } }
        #expect(throws: (any Error).self) { try db.retryingOnConflict { } }
        #expect(throws: (any Error).self) { try db.execute("SELECT 1") }
        #expect(throws: (any Error).self) { try db.rows("SELECT 1") }
        #expect(throws: (any Error).self) { try db.deleteAll(Employee.self) }
        #expect(throws: (any Error).self) { try db.schemaPlan(for: Employee.self) }
        #expect(!ada.isDeleted)
    }

    @Test func aClosedPoolThrows() throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try pool.close()
        #expect(throws: (any Error).self) { try pool.write { try $0.execute("CREATE TABLE x (a)") } }
        #expect(throws: (any Error).self) { try pool.read { try $0.rows("SELECT 1").count } }
        #expect(throws: (any Error).self) { try pool.syncSchema(Department.self) }
        #expect(throws: (any Error).self) { try pool.checkpoint() }
    }

    @Test func aClosedPoolThrowsFromAsyncCalls() async throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try await pool.close()
        await #expect(throws: (any Error).self) { try await pool.write { try $0.execute("CREATE TABLE y (a)") } }
        await #expect(throws: (any Error).self) { try await pool.read { try $0.rows("SELECT 1").count } }
        await #expect(throws: (any Error).self) { try await pool.syncSchema(Department.self) }
    }
}
