import Foundation
@testable import Strata
import StrataPostgres
import Testing

// The PostgreSQL fetch and update paths of the benchmark (issue 35, third run): an UPDATE of integer
// columns returns nothing and tells a held guard from a conflict by the count of rows written; a model of
// 8-byte numbers reads each row in one call to the driver; each live instance keeps its row in one map.

private final class PSPNum: Model {
    static let tableName = "psp_num"
    var id: Int64 = 0
    var a: Int64 = 0
    var b = 0
    var x = 0.0
    required init() {}
}

private final class PSPMixed: Model {
    static let tableName = "psp_mixed"
    var id: Int64 = 0
    var a: Int64 = 0
    var label = ""
    required init() {}
}

/// A second handle on `db`'s schema (another writer).
private func otherWriter(_ db: Database) throws -> Database {
    let other = try Database(postgresURL: postgresURL ?? "")
    try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
    return other
}

@Suite("PostgreSQL fetch and update speed paths", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresSpeedPathTests {
    @Test func anIntegerUpdateReturnsNothingYetItsGuardStillStopsALostWrite() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PSPNum.self)
            _ = try db.syncSchema(PSPMixed.self)
            try db.execute("INSERT INTO psp_num (id, a, b, x) VALUES (1, 10, 20, 0.5), (2, 11, 21, 1.5), (3, 12, 22, 2.5)")
            try db.execute("INSERT INTO psp_mixed (id, a, label) VALUES (1, 1, 'one')")
            let objects = try db.objects(PSPNum.self, where: "ORDER BY id")
            var statements: [String] = []
            let trace = db.traceStatements { statements.append($0) }
            try db.transaction { for o in objects { o.a += 100; try db.save(o) } }
            trace.cancel()
            // As many statements as a raw loop: BEGIN, one UPDATE a row (the guard, no RETURNING), COMMIT.
            let update = #"UPDATE "psp_num" SET "a" = $1 WHERE "id" = $2 AND "a" IS NOT DISTINCT FROM $3"#
            #expect(statements == ["BEGIN", update, update, update, "COMMIT"])
            #expect(try db.column(Int.self, "SELECT a FROM psp_num ORDER BY id") == [110, 111, 112])

            // Another writer changes `a` after this instance read it: the save is a conflict, nothing is
            // written, and the instance holds the committed row.
            let other = try otherWriter(db)
            defer { try? other.close() }
            try other.execute("UPDATE psp_num SET a = 500 WHERE id = 1")
            objects[0].a = 999
            let error = modelError { try db.save(objects[0]) }
            #expect(error?.kind == .conflict && error?.properties == ["a"])
            #expect(objects[0].a == 500 && !objects[0].hasChanges)
            #expect(try db.value(Int.self, "SELECT a FROM psp_num WHERE id = 1") == 500)
            // Applying the change again now works (the guard binds 500).
            objects[0].a = 999
            try db.save(objects[0])
            #expect(try db.value(Int.self, "SELECT a FROM psp_num WHERE id = 1") == 999)

            // Another writer's change to another column is no conflict: both changes stay.
            try other.execute("UPDATE psp_num SET b = 77 WHERE id = 2")
            objects[1].a = 1_000
            try db.save(objects[1])
            #expect(try db.rows("SELECT a, b FROM psp_num WHERE id = 2")[0].values == [.integer(1_000), .integer(77)])
            // A row gone: the save says so, as before.
            try other.execute("DELETE FROM psp_num WHERE id = 3")
            objects[2].a = 5
            #expect(modelError { try db.save(objects[2]) }?.kind == .notFound)

            // A text column's text is kept from what the engine returns: that UPDATE still returns it.
            let mixed = try #require(try db.object(PSPMixed.self, forKey: 1))
            var mixedStatements: [String] = []
            let mixedTrace = db.traceStatements { mixedStatements.append($0) }
            mixed.label = "uno"
            try db.save(mixed)
            mixedTrace.cancel()
            #expect(mixedStatements == [#"UPDATE "psp_mixed" SET "label" = $1 WHERE "id" = $2 AND "label" IS NOT DISTINCT FROM $3 RETURNING "label""#])
            try other.execute("UPDATE psp_mixed SET label = 'eins' WHERE id = 1")
            mixed.label = "un"
            #expect(modelError { try db.save(mixed) }?.properties == ["label"])
            #expect(mixed.label == "eins")
        }
    }

    @Test func aLargeFetchKeepsOneRowPerInstanceInOneMapAndReadsEveryNumberExactly() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PSPNum.self)
            try db.execute("INSERT INTO psp_num (id, a, b, x) SELECT g, 10 * g, -g, g / 4.0 FROM generate_series(1, 5000) g")
            let special: [Double] = [-0.0, .leastNormalMagnitude / 1_000, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity,
                                     0.1, 1.0 / 3.0, .leastNonzeroMagnitude]
            for (n, value) in special.enumerated() {
                try db.execute("UPDATE psp_num SET x = ?, a = ? WHERE id = ?", value, Int64.min + Int64(n), n + 1)
            }
            try db.execute("UPDATE psp_num SET x = 'NaN' WHERE id = 4999")
            try db.execute("UPDATE psp_num SET a = \(Int64.max) WHERE id = 5000")
            var many: [PSPNum]? = try db.objects(PSPNum.self, where: "ORDER BY id")
            let registry = try db.remoteRegistry(for: PSPNum.self)
            if let fetched = many {
                #expect(fetched.count == 5_000)
                #expect(registry.liveCount == 5_000)
                // One entry per instance in the one map: the text of the double only (the integers' are
                // spelled from the snapshot), read now.
                #expect(db.models.remoteRows.count == 5_000)
                #expect(fetched.allSatisfy { db.models.remoteRows[ObjectIdentifier($0)].map { $0.texts.count == 1 && $0.readAt == db.models.remoteRawWrites } == true })
                #expect(db.models.remoteRows[ObjectIdentifier(fetched[100])]?.texts == ["25.25"])
                for (n, value) in special.enumerated() {
                    #expect(fetched[n].x.bitPattern == value.bitPattern && fetched[n].a == Int64.min + Int64(n))
                }
                #expect(fetched[4_998].x.isNaN && fetched[4_999].a == Int64.max)
                #expect(fetched[100].id == 101 && fetched[100].a == 1_010 && fetched[100].b == -101 && fetched[100].x == 25.25)
                #expect(fetched.allSatisfy { !$0.hasChanges })
            }
            many = nil
            #expect(registry.liveCount == 0)

            // A fetch of 20 after the 5,000 are gone: one live instance per row, and each still guards.
            let few = try db.objects(PSPNum.self, where: "id BETWEEN 11 AND 30 ORDER BY id")
            #expect(few.map(\.id) == Array(11...30))
            #expect(registry.liveCount == 20)
            let again = try db.objects(PSPNum.self, where: "id BETWEEN 11 AND 30 ORDER BY id")
            #expect(zip(few, again).allSatisfy { $0 === $1 })
            let other = try otherWriter(db)
            defer { try? other.close() }
            try other.execute("UPDATE psp_num SET a = -1 WHERE id = 11")
            few[0].a = 42
            #expect(modelError { try db.save(few[0]) }?.kind == .conflict)
            #expect(few[0].a == -1)
            few[1].b = 7
            try db.save(few[1])
            #expect(try db.rows("SELECT a, b FROM psp_num WHERE id = 12")[0].values == [.integer(120), .integer(7)])
        }
    }

    // Fourth run: parameters written into one buffer per statement, the command tag and count read from
    // libpq's bytes, a fetch reserving its identity map from the result's row count.

    @Test func parametersOfEveryKindBindAgainAndAgainThroughTheStatementsOneBuffer() throws {
        try withSchema { connection in
            let statement = try connection.prepare("SELECT $1::int8, $2::int8, $3::int8 IS NULL, octet_length($4::bytea), $5::text, $6::float8, $7::int8")
            // Int64's extremes, NULL, an empty blob (an address, not NULL), text, a real, zero.
            try statement.bind(values: [.integer(.min), .integer(.max), .null, .blob(Data()), .text("é€"), .real(-0.5), .integer(0)])
            #expect(try statement.step())
            #expect((0..<7).map { statement.value(at: Int32($0)) }
                == [.integer(.min), .integer(.max), .integer(1), .integer(0), .text("é€"), .real(-0.5), .integer(0)])
            // Bound again: longer text than the buffer first held (it grows), then short values again.
            let long = String(repeating: "abc", count: 5_000)
            try statement.bind(values: [.integer(-1), .null, .integer(7), .blob(Data([0, 255, 0])), .text(long), .real(.infinity), .integer(-9)])
            #expect(try statement.step())
            #expect((0..<7).map { statement.value(at: Int32($0)) }
                == [.integer(-1), .null, .integer(0), .integer(3), .text(long), .real(.infinity), .integer(-9)])
            try statement.bind(values: [.integer(42), .integer(-42), .null, .null, .text(""), .null, .integer(1_000_000_007)])
            #expect(try statement.step())
            #expect((0..<7).map { statement.value(at: Int32($0)) }
                == [.integer(42), .integer(-42), .integer(1), .null, .text(""), .null, .integer(1_000_000_007)])
            // One parameter bound on its own, the others kept.
            statement.bind(int64: .min, at: 7)
            #expect(try statement.step())
            #expect(statement.value(at: 6) == .integer(.min) && statement.value(at: 0) == .integer(42))
            #expect(try statement.step() == false)
        }
    }

    @Test func changesCountTheRowsEachCommandWroteFromItsTag() throws {
        try withSchema { connection in
            try connection.execute("CREATE TABLE psp_count(id int8 PRIMARY KEY, v int8)")
            try connection.execute("INSERT INTO psp_count SELECT g, g FROM generate_series(1, 12) g")
            #expect(connection.changes == 12)
            let update = try connection.prepare("UPDATE psp_count SET v = v + 1 WHERE id <= $1")
            try update.bind(values: [.integer(10)])
            _ = try update.step()
            #expect(connection.changes == 10)
            // An UPDATE that writes nothing counts 0 (what tells a conflict or a row gone).
            try update.bind(values: [.integer(0)])
            _ = try update.step()
            #expect(connection.changes == 0)
            // A SELECT leaves the count as it was; a DELETE and a MERGE count theirs.
            try connection.execute("SELECT 1")
            #expect(connection.changes == 0)
            try connection.execute("DELETE FROM psp_count WHERE id > 9")
            #expect(connection.changes == 3)
            try connection.execute("MERGE INTO psp_count t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 0")
            #expect(connection.changes == 1)
            #expect(connection.totalChanges == 12 + 10 + 0 + 3 + 1)
            let insert = try connection.prepare("INSERT INTO psp_count VALUES ($1, $2) RETURNING id")
            try insert.bind(values: [.integer(.max), .integer(.min)])
            _ = try insert.step()
            #expect(connection.changes == 1 && connection.lastInsertedRowID == .max)
        }
    }

    @Test func int64ExtremeKeysSaveUpdateConflictAndGoAsAnyOther() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PSPNum.self)
            for key in [Int64.min, Int64.max, -1] {
                let object = PSPNum()
                object.id = key
                object.a = 1
                try db.save(object)
                object.a = 2
                try db.save(object)
                #expect(try db.value(Int64.self, "SELECT a FROM psp_num WHERE id = ?", key) == 2)
                #expect(try db.object(PSPNum.self, forKey: key) === object)
                // Another writer's change: a conflict; the row gone: not found.
                let other = try otherWriter(db)
                defer { try? other.close() }
                try other.execute("UPDATE psp_num SET a = 9 WHERE id = ?", key)
                object.a = 3
                #expect(modelError { try db.save(object) }?.kind == .conflict)
                #expect(object.a == 9)
                try other.execute("DELETE FROM psp_num WHERE id = ?", key)
                object.a = 4
                #expect(modelError { try db.save(object) }?.kind == .notFound)
            }
        }
    }

    @Test func aFetchReservesItsIdentityMapOnceAndEveryRowIsFoundAgain() throws {
        try withDatabase { db in
            _ = try db.syncSchema(PSPNum.self)
            try db.execute("INSERT INTO psp_num (id, a, b, x) SELECT g, g, g, 0 FROM generate_series(1, 3000) g")
            let registry = try db.remoteRegistry(for: PSPNum.self)
            // `first` stops after one of the 3,000 rows: one object, the map holds it alone.
            let first = try #require(try db.first(PSPNum.self, where: "ORDER BY id"))
            #expect(first.id == 1 && registry.liveCount == 1)
            let all = try db.objects(PSPNum.self, where: "ORDER BY id")
            #expect(all.count == 3_000 && registry.liveCount == 3_000)
            #expect(all[0] === first && all.map(\.id) == Array(1...3_000))
            // Every row found again by key, the same instances, after the map was reserved and filled.
            let again = try db.objects(PSPNum.self, where: "ORDER BY id DESC")
            #expect(again.count == 3_000 && zip(again.reversed(), all).allSatisfy { $0 === $1 })
            #expect(try db.object(PSPNum.self, forKey: 2_999) === all[2_998])
            #expect(db.models.remoteRows.count == 3_000)
            // The map itself: a reservation keeps what it holds and finds every key inserted after it.
            var map = KeyMap()
            let objects = (0..<100).map { _ in PSPNum() as ModelObject }
            for (n, object) in objects.prefix(10).enumerated() {
                _ = map.insert(Unmanaged.passUnretained(object), for: IdentityKey(text: "k\(n)"), hash: KeyMap.hash(IdentityKey(text: "k\(n)")))
            }
            map.reserveCapacity(100)
            for (n, object) in objects.enumerated().dropFirst(10) {
                _ = map.insert(Unmanaged.passUnretained(object), for: IdentityKey(text: "k\(n)"), hash: KeyMap.hash(IdentityKey(text: "k\(n)")))
            }
            #expect(map.count == 100)
            #expect((0..<100).allSatisfy { n in
                map.find(IdentityKey(text: "k\(n)"), hash: KeyMap.hash(IdentityKey(text: "k\(n)")))?.takeUnretainedValue() === objects[n]
            })
        }
    }
}
