import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 17 leftovers (issue 39): an owned index whose columns changed under it (SQLite carries an index
// through RENAME COLUMN), the advice a pool user could not follow, and NaN defaults and saves.

// MARK: Models

/// Version A of one table: column `p` (renamed back from B's `r`), indices (p) and (q, p).
private final class R17lVersionA: Model {
    static let tableName = "r17l_crash_sync"
    static let renamedColumns = ["p": "r"]
    static let indices = [["p"], ["q", "p"]]
    var id: Int64 = 0
    var p = 0
    var q = 0
    required init() {}
}

/// Version B: `p` renamed to `r`, indices (q) and UNIQUE (r, id).
private final class R17lVersionB: Model {
    static let tableName = "r17l_crash_sync"
    static let renamedColumns = ["r": "p"]
    static let indices = [["q"]]
    static let uniqueIndices = [["r", "id"]]
    var id: Int64 = 0
    var r = 0
    var q = 0
    required init() {}
}

private final class R17lShelf: Model {
    static let tableName = "r17l_shelf"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var size = 0
    required init() {}
}

private final class R17lNaNDouble: Model {
    static let tableName = "r17l_nan"
    var id: Int64 = 0
    var name = ""
    var ratio = Double.nan
    required init() {}
}

private final class R17lNaNFloat: Model {
    static let tableName = "r17l_nanf"
    var id: Int64 = 0
    var name = ""
    var ratio = Float.nan
    required init() {}
}

private final class R17lOptional: Model {
    static let tableName = "r17l_opt"
    var id: Int64 = 0
    var name = ""
    var ratio: Double?
    required init() {}
}

private final class R17lMeasure: Model {
    static let tableName = "r17l_measure"
    var id: Int64 = 0
    var value = 0.0
    required init() {}
}

// MARK: Helpers

/// Each index of `table` as `name|unique|key columns in order`, sorted by name.
private func r17lIndices(_ db: Database, _ table: String) throws -> [String] {
    try db.rows("""
        SELECT il.name, il."unique",
               (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_xinfo(il.name) WHERE key = 1 ORDER BY seqno))
        FROM pragma_index_list(?) AS il ORDER BY il.name
        """, table).map { row in
        row.values.map { value -> String in
            switch value {
            case .integer(let integer): String(integer)
            case .text(let text): text
            default: "\(value)"
            }
        }.joined(separator: "|")
    }
}

private func r17lColumns(_ db: Database, _ table: String) throws -> [String] {
    try db.rows("SELECT name || ' ' || type || ' ' || \"notnull\" FROM pragma_table_info(?) ORDER BY cid", table).map {
        if case .text(let text) = $0.values[0] { return text }
        return "?"
    }
}

/// The name Strata gives a declaration (in property names) of `type`.
private func r17lName<T: Model>(_ type: T.Type, _ columns: [String], unique: Bool = false) throws -> String {
    SchemaPlanner(metadata: try ModelMetadata.of(type), dialect: SQLiteDialect()).indexName(IndexDeclaration(columns: columns, unique: unique))
}

/// The schema each version's sync leaves, as `r17lColumns` and `r17lIndices` give it.
private func r17lVersionA(withB: Bool) throws -> (columns: [String], indices: [String]) {
    var indices = [try r17lName(R17lVersionA.self, ["p"]) + "|0|p", try r17lName(R17lVersionA.self, ["q", "p"]) + "|0|q,p"]
    if withB { indices.append(try r17lName(R17lVersionB.self, ["q"]) + "|0|q") }
    return (["id INTEGER 0", "p INTEGER 1", "q INTEGER 1"], indices.sorted())
}

private func r17lVersionB() throws -> (columns: [String], indices: [String]) {
    (["id INTEGER 0", "r INTEGER 1", "q INTEGER 1"],
     [try r17lName(R17lVersionB.self, ["q"]) + "|0|q", try r17lName(R17lVersionB.self, ["r", "id"], unique: true) + "|1|r,id"].sorted())
}

// MARK: The child process (kill -9 check)

private enum R17lChild {
    static let environment = ProcessInfo.processInfo.environment
    static var path: String? { environment["STRATA_R17L_PATH"] }
    static let readyMarker = "STRATA-R17L-READY"
    /// The test binary, when it can be launched again (SwiftPM on Linux runs it directly).
    static let executable: URL? = {
        let path = CommandLine.arguments[0]
        guard path.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return URL(fileURLWithPath: path)
    }()
    static var available: Bool { executable != nil }
}

@Suite struct Review17LeftoverTests {
    // MARK: 1. Owned indices whose columns changed under them

    /// The end state of the crash, built with raw SQL: column `p`, A's indices, and B's
    /// `strata_unique_…_r_id_…` covering (p, id). A handle that knows only A keeps it (its name is no
    /// declaration it knows, and an unknown UNIQUE index is never dropped); once B is known, A's sync drops
    /// it (its name promises (r, id)) and B's makes it again on (r, id).
    @Test func anOwnedIndexWhoseColumnsNoLongerMatchItsNameIsDroppedAndMadeAgain() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let uniqueName = try r17lName(R17lVersionB.self, ["r", "id"], unique: true)
        try db.execute("CREATE TABLE r17l_crash_sync(id INTEGER PRIMARY KEY, p INTEGER NOT NULL DEFAULT 0, q INTEGER NOT NULL DEFAULT 0)")
        try db.execute("CREATE INDEX \(SQL.quote(try r17lName(R17lVersionA.self, ["p"]))) ON r17l_crash_sync(p)")
        try db.execute("CREATE INDEX \(SQL.quote(try r17lName(R17lVersionA.self, ["q", "p"]))) ON r17l_crash_sync(q, p)")
        try db.execute("CREATE UNIQUE INDEX \(SQL.quote(uniqueName)) ON r17l_crash_sync(p, id)")
        try db.execute("INSERT INTO r17l_crash_sync(p, q) VALUES (1, 1), (1, 2)")

        // A alone: B's name is unknown here, so the UNIQUE index stays (the rule for undeclared UNIQUE ones).
        try db.syncSchema(R17lVersionA.self)
        #expect(try r17lIndices(db, "r17l_crash_sync").contains(uniqueName + "|1|p,id"))

        // B: renames p to r (the index follows, and now matches its name), makes (q).
        try db.syncSchema(R17lVersionB.self)
        let b = try r17lVersionB()
        #expect(try r17lColumns(db, "r17l_crash_sync") == b.columns)
        #expect(try r17lIndices(db, "r17l_crash_sync") == b.indices)

        // A again, B known: r renamed back to p carries the UNIQUE index onto (p, id); it is dropped.
        try db.syncSchema(R17lVersionA.self)
        let a = try r17lVersionA(withB: true)
        #expect(try r17lColumns(db, "r17l_crash_sync") == a.columns)
        #expect(try r17lIndices(db, "r17l_crash_sync") == a.indices)

        // B again: made on (r, id) under its name.
        try db.syncSchema(R17lVersionB.self)
        #expect(try r17lColumns(db, "r17l_crash_sync") == b.columns)
        #expect(try r17lIndices(db, "r17l_crash_sync") == b.indices)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17l_crash_sync WHERE r = 1") == 2)
    }

    /// An owned index named for one of the model's own declarations but covering other columns (plain and
    /// UNIQUE) was refused as "an index Strata did not make"; it is now dropped and made on the declared
    /// columns, in the same sync.
    @Test func anOwnedIndexOfTheModelsOwnNameOverOtherColumnsIsMadeAgain() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.syncSchema(R17lVersionB.self)
        let plainName = try r17lName(R17lVersionB.self, ["q"])
        let uniqueName = try r17lName(R17lVersionB.self, ["r", "id"], unique: true)
        try db.execute("DROP INDEX \(SQL.quote(plainName))")
        try db.execute("CREATE INDEX \(SQL.quote(plainName)) ON r17l_crash_sync(r)")
        try db.execute("DROP INDEX \(SQL.quote(uniqueName))")
        try db.execute("CREATE UNIQUE INDEX \(SQL.quote(uniqueName)) ON r17l_crash_sync(q, id)")
        let plan = try db.syncSchema(R17lVersionB.self)
        #expect(plan.steps.map(\.sql).sorted() == [
            "CREATE INDEX \(SQL.quote(plainName)) ON \"r17l_crash_sync\" (\"q\")",
            "CREATE UNIQUE INDEX \(SQL.quote(uniqueName)) ON \"r17l_crash_sync\" (\"r\", \"id\")",
            "DROP INDEX \(SQL.quote(plainName))",
            "DROP INDEX \(SQL.quote(uniqueName))",
        ])
        #expect(try r17lIndices(db, "r17l_crash_sync") == r17lVersionB().indices)
    }

    /// The child: syncs A and B alternately on one handle, forever, until the parent kills it.
    @Test(.enabled(if: R17lChild.path != nil)) func child() throws {
        let db = try Database(path: R17lChild.path ?? "")
        var round = 0
        while true {
            try db.syncSchema(R17lVersionA.self)
            try db.syncSchema(R17lVersionB.self)
            round += 1
            if round == 2 { FileHandle.standardOutput.write(Data((R17lChild.readyMarker + "\n").utf8)) }
        }
    }

    /// Killed at random points while syncing A and B alternately, in both journal modes, the file always
    /// holds exactly one version's schema (timing is never asserted).
    @Test(.enabled(if: R17lChild.available), arguments: [Database.JournalMode.wal, .delete])
    func aProcessKilledWhileSyncingTwoVersionsLeavesOneVersionsSchema(mode: Database.JournalMode) throws {
        let a = try r17lVersionA(withB: true), b = try r17lVersionB()
        for trial in 0..<5 {
            let temp = try TemporaryDatabase(configuration: { var c = Database.Configuration(); c.journalMode = mode; return c }())
            try temp.db.syncSchema(R17lVersionA.self)
            let process = Process(), output = Pipe()
            process.executableURL = R17lChild.executable
            process.arguments = ["--testing-library", "swift-testing", "--filter", "Review17LeftoverTests/child"]
            var environment = ProcessInfo.processInfo.environment
            environment["STRATA_R17L_PATH"] = temp.path
            process.environment = environment
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var seen = ""
            while !seen.contains(R17lChild.readyMarker) {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                seen += String(decoding: data, as: UTF8.self)
            }
            #expect(seen.contains(R17lChild.readyMarker), "the child ended before it was ready: \(seen)")
            usleep(UInt32.random(in: 0...40_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let db = try temp.reopen()
            let columns = try r17lColumns(db, "r17l_crash_sync"), indices = try r17lIndices(db, "r17l_crash_sync")
            #expect((columns == a.columns && indices == a.indices) || (columns == b.columns && indices == b.indices),
                    "trial \(trial) (\(mode)): \(columns) \(indices)")
            #expect(try db.value(String.self, "PRAGMA integrity_check") == "ok")
        }
    }

    // MARK: 2. The rebuild advice on a pool

    /// A model that needs a rebuild, used first inside `pool.write`: the error names `pool.syncSchema`
    /// (the handle's advice, `db.syncSchema` before the transaction, cannot be followed there), and that
    /// call works; on a plain handle the advice stays the handle's.
    @Test func aRebuildFirstNeededInsidePoolWriteNamesPoolSyncSchema() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r17l_shelf(id INTEGER PRIMARY KEY, size TEXT NOT NULL DEFAULT '')")
        try temp.db.execute("INSERT INTO r17l_shelf(size) VALUES ('12')")
        let pool = try DatabasePool(path: temp.path, readers: 1)
        #expect {
            try pool.blocking.write { db in let shelf = R17lShelf(); shelf.size = 3; try db.save(shelf) }
        } throws: { error in
            let text = "\(error)"
            return error is SchemaError && text.contains("try pool.blocking.syncSchema(R17lShelf.self)") && !text.contains("db.syncSchema")
        }
        try pool.blocking.syncSchema(R17lShelf.self)
        try pool.blocking.write { db in let shelf = R17lShelf(); shelf.size = 3; try db.save(shelf) }
        #expect(try pool.blocking.read { db in try db.value(String.self, "SELECT group_concat(typeof(size) || ':' || size, ',') FROM r17l_shelf") } == "integer:12,integer:3")
        try pool.blocking.close()

        // A plain handle inside its own transaction: the handle's advice.
        let other = try TemporaryDatabase()
        try other.db.execute("CREATE TABLE r17l_shelf(id INTEGER PRIMARY KEY, size TEXT NOT NULL DEFAULT '')")
        #expect {
            try other.db.transaction { let shelf = R17lShelf(); try other.db.save(shelf) }
        } throws: { error in
            "\(error)".contains("call `try db.syncSchema(R17lShelf.self)` first") && !"\(error)".contains("pool.")
        }
    }

    /// The same model met first in `pool.read`: the writer syncs it outside any transaction, so the
    /// rebuild runs and the read sees the rebuilt table.
    @Test func aRebuildFirstNeededInsidePoolReadRuns() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r17l_shelf(id INTEGER PRIMARY KEY, size TEXT NOT NULL DEFAULT '')")
        try temp.db.execute("INSERT INTO r17l_shelf(size) VALUES ('12')")
        let pool = try DatabasePool(path: temp.path, readers: 1)
        #expect(try pool.blocking.read { db in try db.objects(R17lShelf.self).map(\.size) } == [12])
        #expect(try pool.blocking.read { db in try db.value(String.self, "SELECT type FROM pragma_table_info('r17l_shelf') WHERE name = 'size'") } == "INTEGER")
        try pool.blocking.close()
    }

    // MARK: 3. NaN

    /// A NaN init() value of a property added to a table with rows is refused at planning, naming the
    /// model, the property and NaN (not SQLite's "Cannot add a NOT NULL column with default value NULL");
    /// the table is unchanged. A Float the same; an optional whose default is nil is added as before.
    @Test func aNaNDefaultIsRefusedAtPlanningNamingTheProperty() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        for table in ["r17l_nan", "r17l_nanf", "r17l_opt"] {
            try db.execute("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '')")
            try db.execute("INSERT INTO \(table)(name) VALUES ('a'), ('b')")
        }
        #expect {
            _ = try db.objects(R17lNaNDouble.self)
        } throws: { error in
            let text = "\(error)"
            return error is SchemaError && text.contains("R17lNaNDouble") && text.contains("\"ratio\"") && text.contains("NaN")
                && !text.contains("Cannot add")
        }
        #expect(try r17lColumns(db, "r17l_nan") == ["id INTEGER 0", "name TEXT 1"])
        #expect {
            _ = try db.objects(R17lNaNFloat.self)
        } throws: { error in
            let text = "\(error)"
            return error is SchemaError && text.contains("R17lNaNFloat") && text.contains("\"ratio\"") && text.contains("NaN")
        }
        #expect(try r17lColumns(db, "r17l_nanf") == ["id INTEGER 0", "name TEXT 1"])
        #expect(try db.objects(R17lOptional.self).map { $0.ratio == nil } == [true, true])
        #expect(try r17lColumns(db, "r17l_opt") == ["id INTEGER 0", "name TEXT 1", "ratio REAL 0"])
    }

    /// A NaN refused on save says it cannot be stored and names the property: a save, a batch save and
    /// a pool write.
    @Test func aNaNSaveSaysItCannotBeStored() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        func isStoreError(_ error: any Error) -> Bool {
            let text = "\(error)"
            return error is ValueConversionError && text.hasPrefix("cannot store real nan as Double")
                && text.contains("(R17lMeasure.value)") && !text.contains("cannot read")
        }
        let measure = R17lMeasure(); measure.value = .nan
        #expect { try db.save(measure) } throws: { isStoreError($0) }
        let good = R17lMeasure(); good.value = 1
        #expect { try db.save([good, measure]) } throws: { isStoreError($0) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17l_measure") == 0)
        let pool = try DatabasePool(path: temp.path, readers: 1)
        #expect {
            try pool.blocking.write { db in let measure = R17lMeasure(); measure.value = .nan; try db.save(measure) }
        } throws: { isStoreError($0) }
        try pool.blocking.close()
    }
}
