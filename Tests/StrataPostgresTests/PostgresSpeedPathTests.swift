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
}
