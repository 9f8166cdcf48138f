import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// A save inside a transaction of a model whose fields are all 8-byte numbers over a rowid table takes a
// shorter path (`updatePlainWords`): fields bound in place, the statement stepped there. It must behave
// exactly as the general one.

private final class Gauge: Model {
    static let uniqueIndices = [["serial"]]
    var id: Int64 = 0
    var level = 0
    var reading = 0.0
    var serial: Int64 = 0
    required init() {}
}

@Suite struct PlainWordUpdateTests {
    /// A handle with gauges 1...3 (serials 101...103) saved, and them fetched back.
    private func gauges() throws -> (TestDatabase, [Gauge]) {
        let temp = try TestDatabase()
        for n in 1...3 {
            let gauge = Gauge(); gauge.level = n; gauge.reading = Double(n) / 4; gauge.serial = Int64(100 + n)
            try temp.db.save(gauge)
        }
        let gauges = try temp.db.objects(Gauge.self, where: "ORDER BY id")
        #expect(try #require(temp.db.models.registries[ObjectIdentifier(Gauge.self)]).updatesPlainWords)
        return (temp, gauges)
    }

    // PostgreSQL: the plain-word UPDATE fast path is SQLite's
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the plain-word UPDATE fast path is SQLite's")) func onlyTheChangedFieldsAreWrittenInsideATransaction() throws {
        let (temp, gauges) = try gauges()
        let db = temp.db
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.transaction {
            gauges[0].reading = 2.5
            try db.save(gauges[0])
            gauges[1].level = 20; gauges[1].serial = 202
            try db.save(gauges[1])
            try db.save(gauges[2])      // unchanged: no SQL
        }
        trace.cancel()
        #expect(statements.filter { $0.hasPrefix("UPDATE") } == [
            #"UPDATE "Gauge" SET "reading" = ? WHERE "id" = ?"#,
            #"UPDATE "Gauge" SET "level" = ?, "serial" = ? WHERE "id" = ?"#,
        ])
        #expect(try db.rows("SELECT level, reading, serial FROM Gauge ORDER BY id").map { [$0[0], $0[1], $0[2]] } == [
            [.integer(1), .real(2.5), .integer(101)], [.integer(20), .real(0.5), .integer(202)], [.integer(3), .real(0.75), .integer(103)],
        ])
        #expect(gauges.allSatisfy { !$0.hasChanges })
        // A second save writes nothing: the snapshot took the written values.
        let (_, again) = try StatementLog(db).during { try db.transaction { for gauge in gauges { try db.save(gauge) } } }
        #expect(!again.contains { $0.hasPrefix("UPDATE") })
    }

    // PostgreSQL: the plain-word UPDATE fast path is SQLite's
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the plain-word UPDATE fast path is SQLite's")) func nanIsRefusedNamingThePropertyAndNothingIsWritten() throws {
        let (temp, gauges) = try gauges()
        let db = temp.db
        let error = #expect(throws: ValueConversionError.self) {
            try db.transaction { gauges[0].level = 9; gauges[0].reading = .nan; try db.save(gauges[0]) }
        }
        #expect(error?.property == "reading")
        #expect(try db.value(Int.self, "SELECT level FROM Gauge WHERE id = 1") == 1)
        // The block rolled back: the instance it tried to save reads its row again, its edits undone with it.
        #expect(gauges[0].level == 1 && gauges[0].reading == 0.25 && !gauges[0].hasChanges)
        // A save of its own (no block) takes nothing from the caller: the edits stay, to be fixed and saved.
        gauges[0].level = 9; gauges[0].reading = .nan
        #expect(throws: ValueConversionError.self) { try db.save(gauges[0]) }
        #expect(gauges[0].level == 9 && gauges[0].reading.isNaN && gauges[0].hasChanges)
        #expect(try db.value(Int.self, "SELECT level FROM Gauge WHERE id = 1") == 1)
    }

    // PostgreSQL: the plain-word UPDATE fast path is SQLite's
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the plain-word UPDATE fast path is SQLite's")) func aChangedKeyPropertyIsRefusedAndTheRowKept() throws {
        let (temp, gauges) = try gauges()
        let db = temp.db
        #expect(throws: ModelError.self) { try db.transaction { gauges[0].id = 99; gauges[0].level = 5; try db.save(gauges[0]) } }
        #expect(try db.value(Int.self, "SELECT count(*) FROM Gauge WHERE id = 99") == 0)
        #expect(try db.value(Int.self, "SELECT level FROM Gauge WHERE id = 1") == 1)
    }

    // PostgreSQL: the plain-word UPDATE fast path is SQLite's
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the plain-word UPDATE fast path is SQLite's")) func aUniqueViolationNamesTheColumnsAndTheRowItWouldDuplicate() throws {
        let (temp, gauges) = try gauges()
        let db = temp.db
        let error = #expect(throws: ModelError.self) {
            try db.transaction { gauges[1].serial = 101; try db.save(gauges[1]) }
        }
        #expect(error?.kind == .duplicateKey && error?.properties == ["serial"] && error?.key == .integer(1))
        #expect(try db.value(Int.self, "SELECT serial FROM Gauge WHERE id = 2") == 102)
        // The failed statement left the instance as it was; a corrected save goes through.
        try db.transaction { gauges[1].serial = 222; try db.save(gauges[1]) }
        #expect(try db.value(Int.self, "SELECT serial FROM Gauge WHERE id = 2") == 222)
    }

    // PostgreSQL: the plain-word UPDATE fast path is SQLite's
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the plain-word UPDATE fast path is SQLite's")) func observersHearOfTheChangedProperties() throws {
        let (temp, gauges) = try gauges()
        let db = temp.db
        var heard: [DatabaseChange] = []
        let observation = db.observeChanges { heard += $0 }
        try db.transaction { gauges[2].level = 30; try db.save(gauges[2]) }
        observation.cancel()
        #expect(heard.count == 1 && heard.first?.table == "Gauge")
        #expect(heard.first?.updatedProperties[3] == ["level"])
    }

    // PostgreSQL: the plain-word UPDATE fast path is SQLite's
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the plain-word UPDATE fast path is SQLite's")) func aTriggerWritingTheSameRowIsStillAForeignChange() throws {
        let (temp, gauges) = try gauges()
        let db = temp.db
        try db.execute("CREATE TRIGGER gauge_clamp AFTER UPDATE OF level ON Gauge WHEN new.level > 10 BEGIN UPDATE Gauge SET level = 10 WHERE id = new.id; END")
        try db.transaction { gauges[0].level = 50; try db.save(gauges[0]) }
        #expect(gauges[0].level == 10)          // the trigger's write reached the live instance
        #expect(!gauges[0].hasChanges)
    }

    @Test func tableNamesCompareAsSQLiteComparesThem() {
        func same(_ a: String, _ b: String) -> Bool { a.withCString { a in b.withCString { b in sameIdentifier(a, b) } } }
        #expect(same("item", "ITEM") && same("Gauge", "gAUGE") && same("", "") && same("a_1@", "A_1@"))
        #expect(!same("item", "items") && !same("items", "item") && !same("a", "") && !same("", "a"))
        #expect(!same("[", "{") && !same("@", "`"))                 // neighbours of the letters do not fold
        #expect(!same("é", "É") && !same("straße", "STRASSE"))     // nor do non-ASCII letters (SQLite's rule)
        #expect(same("é", "é") && same("Ünïcode", "ünïCODE") == false)
    }

    // PostgreSQL: table names differing in case are different tables there (SQLite folds ASCII case)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: table names that differ in case are different tables")) func aTableNamedInAnotherCaseStillKnowsItsOwnWrites() throws {
        let temp = try TestDatabase()
        try temp.db.execute("CREATE TABLE GAUGE (id INTEGER PRIMARY KEY, level INTEGER NOT NULL DEFAULT 0, reading REAL NOT NULL DEFAULT 0, serial INTEGER NOT NULL DEFAULT 0)")
        try temp.db.execute("INSERT INTO GAUGE VALUES (1, 1, 0.5, 7)")
        let db = try temp.reopen()
        let gauge = try #require(try db.object(Gauge.self, forKey: 1))
        let log = StatementLog(db)
        try db.transaction { gauge.level = 2; try db.save(gauge) }
        // Its own write: the instance is not read back from the row afterwards.
        #expect(log.statements.filter { $0.hasPrefix("SELECT") }.isEmpty, "\(log.statements)")
        #expect(try db.value(Int.self, "SELECT level FROM GAUGE") == 2 && !gauge.hasChanges)
    }
}
