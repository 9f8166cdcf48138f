import Dispatch
import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 9: "one truth across connections" between two OS processes. The second process is this test
// binary launched again, running only `Review9ProcessTests/child()` with the role its environment names
// (`R9Child`); the two processes meet through the child's stdin/stdout (a line each), never by sleeping.

// MARK: Models

private final class R9Item: Model {
    static let tableName = "r9_item"
    var id: Int64 = 0
    var name = ""
    var owner = ""
    required init() {}
}

private final class R9Code: Model {
    static let tableName = "r9_code"
    static let primaryKey = "code"
    var code = ""
    var owner = ""
    required init() {}
}

private final class R9Token: Model {
    static let tableName = "r9_token"
    var id = UUID()
    var owner = ""
    required init() {}
}

private final class R9Pair: Model {
    static let tableName = "r9_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b = ""
    var owner = ""
    required init() {}
}

private final class R9Note: Model {
    static let tableName = "r9_note"
    static let upsertKeys = ["serverID"]
    static let uniqueIndices = [["serverID"]]
    var id: Int64 = 0
    var serverID = ""
    var text = ""
    required init() {}
}

private final class R9Counter: Model {
    static let tableName = "r9_counter"
    var id: Int64 = 0
    var count = 0
    var name = ""
    var note = ""
    required init() {}
}

/// Each key layout the fixtures show, as (model, CREATE TABLE).
private let keyLayouts: [(model: String, sql: String)] = [
    ("item", "CREATE TABLE r9_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, owner TEXT NOT NULL)"),
    ("item", "CREATE TABLE r9_item (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, owner TEXT NOT NULL)"),
    ("item", "CREATE TABLE r9_item (id INT PRIMARY KEY, name TEXT NOT NULL, owner TEXT NOT NULL)"),
    ("item", "CREATE TABLE r9_item (id bigint NOT NULL PRIMARY KEY, name TEXT NOT NULL, owner TEXT NOT NULL)"),
    ("item", "CREATE TABLE r9_item (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, owner TEXT NOT NULL) WITHOUT ROWID"),
    ("code", "CREATE TABLE r9_code (code varchar(16) NOT NULL PRIMARY KEY, owner TEXT NOT NULL)"),
    ("code", "CREATE TABLE r9_code (code TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL) WITHOUT ROWID"),
    ("token", #"CREATE TABLE r9_token ("id" char(32) NOT NULL PRIMARY KEY, "owner" varchar(20) NOT NULL)"#),
    ("token", "CREATE TABLE r9_token (id varchar(36) NOT NULL PRIMARY KEY, owner TEXT NOT NULL)"),
    ("token", "CREATE TABLE r9_token (id BLOB NOT NULL PRIMARY KEY, owner TEXT NOT NULL)"),
    ("token", "CREATE TABLE r9_token (id char(32) NOT NULL PRIMARY KEY, owner TEXT NOT NULL) WITHOUT ROWID"),
    ("pair", "CREATE TABLE r9_pair (a INTEGER NOT NULL, b TEXT NOT NULL, owner TEXT NOT NULL, PRIMARY KEY (a, b))"),
    ("pair", "CREATE TABLE r9_pair (a INTEGER NOT NULL, b TEXT NOT NULL, owner TEXT NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID"),
]

/// Inserts 1,000 new objects of `model` tagged `owner` in batches of 20 (one transaction each); keys
/// chosen by the caller are unique per owner. `beforeBatch` runs before each batch: the two processes meet
/// there, so that their batches run at the same time and their commits interleave (SQLite's busy handler
/// backs off in milliseconds, so without it one process would do all its work while the other sleeps).
private func insertThousand(_ model: String, owner: String, into db: Database, beforeBatch: () throws -> Void = {}) throws {
    for batch in 0..<50 {
        try beforeBatch()
        let range = batch * 20..<(batch + 1) * 20
        switch model {
        case "item": try db.save(range.map { i -> R9Item in let o = R9Item(); o.name = "\(owner)-\(i)"; o.owner = owner; return o })
        case "code": try db.save(range.map { i -> R9Code in let o = R9Code(); o.code = "\(owner)-\(i)"; o.owner = owner; return o })
        case "token": try db.save(range.map { _ -> R9Token in let o = R9Token(); o.owner = owner; return o })
        case "pair": try db.save(range.map { i -> R9Pair in let o = R9Pair(); o.a = Int64(i % 7); o.b = "\(owner)-\(i)"; o.owner = owner; return o })
        default: throw ToolFailure("unknown model \(model)")
        }
    }
}

/// How many times the owner changes along the rowid: that the processes' commits interleaved.
private func ownerSwitches(_ db: Database, table: String) throws -> Int {
    let owners = try db.column(String.self, "SELECT owner FROM \(table) ORDER BY rowid")
    return zip(owners, owners.dropFirst()).filter { $0 != $1 }.count
}

private struct ToolFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Three migrations: a table, a row, and a data change that must run once (x becomes 11, never 21).
private func r9Migrator() -> Migrator {
    var migrator = Migrator()
    migrator.register("0001_create", sql: "CREATE TABLE r9_m (x INTEGER NOT NULL)")
    migrator.register("0002_seed", sql: "INSERT INTO r9_m VALUES (1)")
    migrator.register("0003_bump", sql: "UPDATE r9_m SET x = x + 10")
    migrator.registerUserVersion(1) { db in try db.execute("UPDATE r9_m SET x = x * 2") }
    return migrator
}

// MARK: The second process

/// The role this process plays when it is the child (nil in an ordinary test run).
private enum R9Child {
    static let environment = ProcessInfo.processInfo.environment
    static var role: String? { environment["STRATA_R9_ROLE"] }
    static let readyMarker = "STRATA-R9-READY"
    static let doneMarker = "STRATA-R9-DONE"

    /// The test binary, when it can be launched again (SwiftPM on Linux runs it directly).
    static let executable: URL? = {
        let path = CommandLine.arguments[0]
        guard path.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return URL(fileURLWithPath: path)
    }()
    static var available: Bool { executable != nil }

    /// Tells the parent a step is reached, then waits for its next line (nil at end of input).
    @discardableResult
    static func ready(_ marker: String = readyMarker) -> String? {
        FileHandle.standardOutput.write(Data((marker + "\n").utf8))
        return readLine()
    }
}

/// A running child process and the pipes to meet it.
/// (`send(_:)` may be called from another thread: it only writes to a pipe.)
private final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer = ""
    let resultFile: URL

    /// Launches the test binary as the child playing `role` on the database at `path`.
    init(role: String, path: String, argument: String = "", busyMilliseconds: Int = 5000) throws {
        guard let executable = R9Child.executable else { throw ToolFailure("cannot launch the test binary") }
        resultFile = URL(fileURLWithPath: path + ".child-\(UUID().uuidString).txt")
        process.executableURL = executable
        process.arguments = ["--testing-library", "swift-testing", "--filter", "Review9ProcessTests/child"]
        var environment = ProcessInfo.processInfo.environment
        environment["STRATA_R9_ROLE"] = role
        environment["STRATA_R9_PATH"] = path
        environment["STRATA_R9_ARG"] = argument
        environment["STRATA_R9_OUT"] = resultFile.path
        environment["STRATA_R9_BUSY_MS"] = "\(busyMilliseconds)"
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Waits until the child printed `marker` (throws if it ends first).
    func wait(for marker: String = R9Child.readyMarker) throws {
        let handle = output.fileHandleForReading
        while true {
            if let range = buffer.range(of: marker + "\n") {
                buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                return
            }
            let data = handle.availableData
            if data.isEmpty { throw ToolFailure("the child ended before \(marker): \(buffer)") }
            buffer += String(decoding: data, as: UTF8.self)
        }
    }

    /// Sends the child one line.
    func send(_ line: String = "go") {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes the child's input, waits for it to end, and returns what it wrote to its result file;
    /// throws when it failed.
    func finish() throws -> String {
        try? input.fileHandleForWriting.close()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        buffer += String(decoding: rest, as: UTF8.self)
        process.waitUntilExit()
        let result = (try? String(contentsOf: resultFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: resultFile)
        guard process.terminationStatus == 0 else {
            throw ToolFailure("the child failed (\(process.terminationStatus)): \(result)\n\(buffer.suffix(3000))")
        }
        return result
    }
}

/// What the child does, by role; what it reports goes to its result file.
private func runChild(role: String) throws {
    let env = R9Child.environment
    let path = env["STRATA_R9_PATH"] ?? ""
    let argument = env["STRATA_R9_ARG"] ?? ""
    var configuration = Database.Configuration()
    configuration.busyTimeout = .milliseconds(Int(env["STRATA_R9_BUSY_MS"] ?? "") ?? 5000)
    if role == "fresh" {
        // Opens the file (which may not exist yet) only when told, then inserts 1,000 of `argument`.
        R9Child.ready()
        let db = try Database(path: path, configuration: configuration)
        defer { try? db.close() }
        try insertThousand(argument, owner: "child", into: db) { R9Child.ready() }
        return
    }
    let db = try Database(path: path, configuration: configuration)
    defer { try? db.close() }
    var report = ""
    defer { try? report.write(toFile: env["STRATA_R9_OUT"] ?? "/dev/null", atomically: true, encoding: .utf8) }
    switch role {
    case "insert":
        // argument: the model; inserts 1,000, a batch on each "go".
        try insertThousand(argument, owner: "child", into: db) { R9Child.ready() }
    case "increment":
        // 50 increments of row 1 through one live instance; argument "helper" (retryingOnConflict) or
        // "outside" (saves outside a transaction, a conflict applied again).
        let live = try #require(try db.object(R9Counter.self, forKey: 1))
        var conflicts = 0
        for _ in 0..<50 {
            R9Child.ready()
            if argument == "helper" {
                try db.retryingOnConflict { live.count += 1; try db.save(live) }
            } else {
                while true {
                    live.count += 1
                    do { try db.save(live); break } catch let error as ModelError where error.kind == .conflict { conflicts += 1 }
                }
            }
        }
        report = "\(conflicts)"
    case "sql":
        // Runs `argument` (a script) when told, then reports done.
        R9Child.ready()
        try db.execute(argument)
        R9Child.ready(R9Child.doneMarker)
    case "hold", "holdExclusive":
        // Opens a write transaction running `argument`, reports ready, commits on the next line.
        try db.execute(role == "hold" ? "BEGIN IMMEDIATE" : "BEGIN EXCLUSIVE")
        try db.execute(argument)
        R9Child.ready()
        try db.execute("COMMIT")
        R9Child.ready(R9Child.doneMarker)
    case "claim":
        // 40 rounds: each claims the code k<i> (the parent claims it at the same time); reports the rounds
        // lost, with the key the error named.
        var lost: [String] = []
        for i in 0..<40 {
            R9Child.ready()
            let claim = R9Code(); claim.code = "k\(i)"; claim.owner = "child"
            do { try db.save(claim) } catch let error as ModelError where error.kind == .duplicateKey {
                lost.append("\(i)=\(error.key == .text("k\(i)") ? "named" : "\(String(describing: error.key))")")
            }
        }
        report = lost.joined(separator: ",")
    case "upsert":
        // 40 rounds: each saves a new note with server id s<i> (the parent does too).
        for i in 0..<40 {
            R9Child.ready()
            let note = R9Note(); note.serverID = "s\(i)"; note.text = "child"
            try db.save(note)
        }
    case "migrate":
        // Runs r9Migrator() when told; reports the migrations it ran.
        R9Child.ready()
        report = try r9Migrator().migrate(db).joined(separator: ",")
        R9Child.ready(R9Child.doneMarker)
    case "column":
        // Changes one column (argument) of a live instance read before "go".
        let live = try #require(try db.object(R9Counter.self, forKey: 1))
        R9Child.ready()
        if argument == "name" { live.name = "from child" } else { live.note = "from child" }
        try db.save(live)
    default:
        throw ToolFailure("unknown role \(role)")
    }
}

// MARK: Tests

@Suite(.serialized) struct Review9ProcessTests {
    /// The child's entry point: runs only when this binary was launched as the second process.
    @Test(.enabled(if: R9Child.role != nil)) func child() throws {
        try runChild(role: R9Child.role ?? "")
    }

    // MARK: Keys

    @Test(.enabled(if: R9Child.available), arguments: keyLayouts.indices)
    func twoProcessesInsertingAThousandEachLoseNoRow(layout: Int) throws {
        let (model, sql) = keyLayouts[layout]
        let temp = try TemporaryDatabase()
        try temp.db.execute(sql)
        let child = try ChildProcess(role: "insert", path: temp.path, argument: model)
        try insertThousand(model, owner: "parent", into: temp.db) { try child.wait(); child.send() }
        _ = try child.finish()
        let table = "r9_\(model)"
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM \(table)") == 2000, "\(sql)")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM \(table) WHERE owner = 'child'") == 1000, "\(sql)")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM \(table) WHERE owner = 'parent'") == 1000, "\(sql)")
        if !sql.hasSuffix("WITHOUT ROWID") { #expect(try ownerSwitches(temp.db, table: table) > 1) }
        switch model {
        case "item":
            #expect(try temp.db.value(Int.self, "SELECT count(DISTINCT id) FROM r9_item") == 2000)
            #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r9_item WHERE name NOT LIKE owner || '-%'") == 0)
        case "token":
            // Every key in the one format the column uses.
            let forms = try temp.db.column(String.self, "SELECT DISTINCT typeof(id) || length(id) FROM r9_token")
            #expect(forms.count == 1, "\(sql): \(forms)")
        default: break
        }
    }

    // MARK: Read-modify-write

    /// A file with one R9Counter row (id 1), in `mode`.
    private func counterFile(_ mode: Database.JournalMode = .wal) throws -> TemporaryDatabase {
        var configuration = Database.Configuration()
        configuration.journalMode = mode
        let temp = try TemporaryDatabase(configuration: configuration)
        let seed = R9Counter(); seed.name = "n"; seed.note = "o"
        try temp.db.save(seed)
        return temp
    }

    @Test(.enabled(if: R9Child.available), arguments: [Database.JournalMode.wal, .delete], ["helper", "outside"])
    func fiftyIncrementsInEachProcessEndAtAHundred(mode: Database.JournalMode, style: String) throws {
        let temp = try counterFile(mode)
        let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
        let child = try ChildProcess(role: "increment", path: temp.path, argument: style)
        var conflicts = 0
        for _ in 0..<50 {
            try child.wait()
            child.send()
            if style == "helper" {
                try temp.db.retryingOnConflict { live.count += 1; try temp.db.save(live) }
            } else {
                while true {
                    live.count += 1
                    do { try temp.db.save(live); break } catch let error as ModelError where error.kind == .conflict { conflicts += 1 }
                }
            }
        }
        let childConflicts = Int(try child.finish()) ?? -1
        #expect(try temp.db.value(Int.self, "SELECT count FROM r9_counter WHERE id = 1") == 100)
        #expect(try temp.db.value(String.self, "PRAGMA journal_mode") == mode.rawValue)
        // The live instance holds the committed total after the next look.
        #expect(try temp.db.object(R9Counter.self, forKey: 1) === live)
        #expect(live.count == 100)
        if style == "helper" { #expect(conflicts == 0 && childConflicts == 0) }
    }

    @Test(.enabled(if: R9Child.available))
    func aPoolsWriterAndAnotherProcessIncrementingEndAtAHundred() throws {
        let temp = try counterFile()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        let child = try ChildProcess(role: "increment", path: temp.path, argument: "helper")
        for _ in 0..<50 {
            try child.wait()
            child.send()
            try pool.blocking.write { db in
                let live = try #require(try db.object(R9Counter.self, forKey: 1))
                try db.transaction { live.count += 1; try db.save(live) }
            }
        }
        _ = try child.finish()
        #expect(try pool.blocking.read { db in try db.value(Int.self, "SELECT count FROM r9_counter") } == 100)
        #expect(try pool.blocking.read { db in try #require(try db.object(R9Counter.self, forKey: 1)).count } == 100)
        try pool.blocking.close()
    }

    @Test(.enabled(if: R9Child.available), arguments: [Database.JournalMode.wal, .delete])
    func twoProcessesChangingDifferentColumnsBothPersist(mode: Database.JournalMode) throws {
        let temp = try counterFile(mode)
        let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
        let child = try ChildProcess(role: "column", path: temp.path, argument: "note")
        try child.wait()
        live.name = "from parent"
        child.send()
        _ = try child.finish()
        try temp.db.save(live)
        let row = try temp.db.rows("SELECT name, note FROM r9_counter WHERE id = 1")[0]
        #expect(row["name"] == .text("from parent"))
        #expect(row["note"] == .text("from child"))
        #expect(live.note == "from child" && live.name == "from parent")
        #expect(!live.hasChanges)
    }

    // MARK: Another process deletes, re-keys, vacuums

    @Test(.enabled(if: R9Child.available), arguments: [Database.JournalMode.wal, .delete])
    func anotherProcessesDeleteMarksTheInstanceDeletedAndASaveNeverRecreatesIt(mode: Database.JournalMode) throws {
        let temp = try counterFile(mode)
        let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
        let child = try ChildProcess(role: "sql", path: temp.path, argument: "DELETE FROM r9_counter WHERE id = 1")
        try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker); _ = try child.finish()
        live.name = "changed"
        // The save's transaction merged the other process's commit first: `.deleted`, as the README says
        // (`.notFound` is for an UPDATE that itself found no row).
        let error = #expect(throws: ModelError.self) { try temp.db.save(live) }
        #expect(error?.kind == .deleted)
        #expect(live.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r9_counter") == 0)
        #expect(try temp.db.object(R9Counter.self, forKey: 1) == nil)
    }

    /// (model, CREATE TABLE with its rows, the re-keying SQL, the old key)
    private static let rekeyLayouts: [(String, String, String, String)] = [
        ("counter", "", "UPDATE r9_counter SET id = 50 WHERE id = 1", "1"),
        ("code", "CREATE TABLE r9_code (code varchar(16) NOT NULL PRIMARY KEY, owner TEXT NOT NULL); INSERT INTO r9_code VALUES ('a', 'x'), ('b', 'y')",
         "UPDATE r9_code SET code = 'z' WHERE code = 'a'", "a"),
        ("code", "CREATE TABLE r9_code (code varchar(16) NOT NULL PRIMARY KEY, owner TEXT NOT NULL) WITHOUT ROWID; INSERT INTO r9_code VALUES ('a', 'x'), ('b', 'y')",
         "UPDATE r9_code SET code = 'z' WHERE code = 'a'", "a"),
        // A swap: the key 'a' now names the other row.
        ("code", "CREATE TABLE r9_code (code varchar(16) NOT NULL PRIMARY KEY, owner TEXT NOT NULL); INSERT INTO r9_code VALUES ('a', 'x'), ('b', 'y')",
         "UPDATE r9_code SET code = 'tmp' WHERE code = 'a'; UPDATE r9_code SET code = 'a' WHERE code = 'b'; UPDATE r9_code SET code = 'b' WHERE code = 'tmp'", "a"),
    ]

    @Test(.enabled(if: R9Child.available), arguments: rekeyLayouts.indices)
    func anotherProcessesKeyChangeReachesTheLiveInstance(layout: Int) throws {
        let (model, create, rekey, oldKey) = Self.rekeyLayouts[layout]
        let temp = try counterFile()
        if !create.isEmpty { try temp.db.execute(create) }
        let child = try ChildProcess(role: "sql", path: temp.path, argument: rekey)
        if model == "counter" {
            let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
            try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker); _ = try child.finish()
            live.name = "changed"
            #expect(throws: ModelError.self) { try temp.db.save(live) }
            #expect(live.isDeleted)
            #expect(try temp.db.column(Int64.self, "SELECT id FROM r9_counter") == [50])
            #expect(try temp.db.value(String.self, "SELECT name FROM r9_counter") == "n")
        } else {
            let live = try #require(try temp.db.object(R9Code.self, forKey: oldKey))
            #expect(live.owner == "x")
            try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker); _ = try child.finish()
            let swapped = rekey.contains("tmp")
            let again = try temp.db.object(R9Code.self, forKey: oldKey)
            if swapped {
                // The key names the other row now: the instance of key 'a' shows that row's values.
                #expect(again === live)
                #expect(live.owner == "y")
            } else {
                #expect(again == nil)
                #expect(live.isDeleted)
                live.owner = "changed"
                #expect(throws: ModelError.self) { try temp.db.save(live) }
            }
            // ('a', 'y') and ('b', 'x') after the swap; ('b', 'y') and ('z', 'x') after the change.
            #expect(try temp.db.column(String.self, "SELECT owner FROM r9_code ORDER BY code") == ["y", "x"])
        }
    }

    @Test(.enabled(if: R9Child.available))
    func anotherProcessesVacuumAndCheckpointLeaveLiveInstancesOnTheirRows() throws {
        let temp = try counterFile()
        try temp.db.execute("""
            CREATE TABLE r9_code (code varchar(16) NOT NULL PRIMARY KEY, owner TEXT NOT NULL);
            INSERT INTO r9_code VALUES ('a', 'a0'), ('b', 'b0'), ('c', 'c0'), ('d', 'd0');
            DELETE FROM r9_code WHERE code IN ('a', 'b');
            """)
        let c = try #require(try temp.db.object(R9Code.self, forKey: "c"))
        let d = try #require(try temp.db.object(R9Code.self, forKey: "d"))
        let child = try ChildProcess(role: "sql", path: temp.path,
                                     argument: "UPDATE r9_code SET owner = 'd1' WHERE code = 'd'; VACUUM; PRAGMA wal_checkpoint(TRUNCATE); UPDATE r9_code SET rowid = rowid + 100")
        try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker); _ = try child.finish()
        c.owner = "c2"
        try temp.db.save(c)
        #expect(d.owner == "d1")
        d.owner = "d2"
        try temp.db.save(d)
        #expect(try temp.db.column(String.self, "SELECT owner FROM r9_code ORDER BY code") == ["c2", "d2"])
        try temp.db.execute("DELETE FROM r9_code WHERE code = 'c'")
        #expect(c.isDeleted && !d.isDeleted)
    }

    // MARK: Busy

    @Test(.enabled(if: R9Child.available), arguments: [Database.JournalMode.wal, .delete])
    func aSaveWaitsForAnotherProcessesWriteTransaction(mode: Database.JournalMode) throws {
        let temp = try counterFile(mode)
        let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
        let child = try ChildProcess(role: "hold", path: temp.path, argument: "UPDATE r9_counter SET note = 'held', count = count + 1")
        try child.wait()
        // The other process commits a moment later, while this save waits for the lock (5 s timeout).
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { child.send() }
        live.name = "waited"
        try temp.db.save(live)
        try child.wait(for: R9Child.doneMarker)
        _ = try child.finish()
        let row = try temp.db.rows("SELECT name, note, count FROM r9_counter WHERE id = 1")[0]
        #expect(row["name"] == .text("waited"))
        #expect(row["note"] == .text("held"))
        #expect(row["count"] == .integer(1))
    }

    @Test(.enabled(if: R9Child.available), arguments: [Database.JournalMode.wal, .delete])
    func aSaveThatOutwaitsTheTimeoutThrowsBusyNamingTheSQLAndKeepsItsChange(mode: Database.JournalMode) throws {
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let temp = try counterFile(mode)
        let db = try Database(path: temp.path, configuration: configuration)
        let live = try #require(try db.object(R9Counter.self, forKey: 1))
        let child = try ChildProcess(role: "hold", path: temp.path, argument: "UPDATE r9_counter SET note = 'held'")
        try child.wait()
        live.name = "mine"
        let error = #expect(throws: DatabaseError.self) { try db.save(live) }
        #expect(error?.code.primary == .busy)
        #expect(error?.code.rawValue == 5)
        #expect(error?.sql == "BEGIN IMMEDIATE TRANSACTION")
        #expect("\(error.map { "\($0)" } ?? "")".contains("BEGIN IMMEDIATE"))
        #expect(live.name == "mine" && live.hasChanges)
        child.send()
        try child.wait(for: R9Child.doneMarker)
        _ = try child.finish()
        try db.save(live)
        let row = try temp.db.rows("SELECT name, note FROM r9_counter WHERE id = 1")[0]
        #expect(row["name"] == .text("mine"))
        #expect(row["note"] == .text("held"))
        try db.close()
    }

    @Test(.enabled(if: R9Child.available))
    func aFetchLockedOutByAnotherProcessThrowsBusyAndTheNextOneMerges() throws {
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let temp = try counterFile(.delete)
        let db = try Database(path: temp.path, configuration: configuration)
        let live = try #require(try db.object(R9Counter.self, forKey: 1))
        // In a rollback journal, an EXCLUSIVE lock keeps readers out.
        let child = try ChildProcess(role: "holdExclusive", path: temp.path, argument: "UPDATE r9_counter SET note = 'held'")
        try child.wait()
        let error = #expect(throws: DatabaseError.self) { try db.object(R9Counter.self, forKey: 1) }
        #expect(error?.code.primary == .busy)
        // The wait was the merge's, before the fetch ran: the error says so rather than naming its pragma.
        #expect(error?.message.contains("other connections' commits") == true)
        child.send()
        try child.wait(for: R9Child.doneMarker)
        _ = try child.finish()
        #expect(try db.object(R9Counter.self, forKey: 1) === live)
        #expect(live.note == "held")
        live.name = "after"
        try db.save(live)
        #expect(try temp.db.value(String.self, "SELECT name || note FROM r9_counter") == "afterheld")
        try db.close()
    }

    @Test(.enabled(if: R9Child.available))
    func aPoolCannotSwitchAFileAnotherProcessHoldsToWALAndSaysSo() throws {
        var rollback = Database.Configuration()
        rollback.journalMode = .delete
        let temp = try TemporaryDatabase(configuration: rollback)
        try temp.db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try temp.db.close()
        let child = try ChildProcess(role: "hold", path: temp.path, argument: "INSERT INTO t VALUES (2)")
        try child.wait()
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let error = #expect(throws: DatabaseError.self) { try DatabasePool(path: temp.path, readers: 1, configuration: configuration) }
        #expect(error?.code.primary == .busy)
        #expect(error?.sql?.contains("journal_mode") == true)
        child.send()
        try child.wait(for: R9Child.doneMarker)
        _ = try child.finish()
        let db = try temp.reopen()
        #expect(try db.value(String.self, "PRAGMA journal_mode") == "delete")
        #expect(try db.column(Int.self, "SELECT x FROM t") == [1, 2])
    }

    @Test(.enabled(if: R9Child.available))
    func aDeferredTransactionThatMustUpgradeAfterAnotherProcessCommitted() throws {
        let temp = try counterFile()
        let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
        let child = try ChildProcess(role: "sql", path: temp.path, argument: "UPDATE r9_counter SET note = 'child'")
        var thrown: (any Error)?
        do {
            try temp.db.transaction(.deferred) {
                _ = try temp.db.value(Int.self, "SELECT count FROM r9_counter")   // the read snapshot starts
                try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker)
                live.count += 1
                try temp.db.save(live)
            }
        } catch {
            thrown = error
        }
        _ = try child.finish()
        let error = try #require(thrown as? DatabaseError)
        #expect(error.code == .busySnapshot)
        // Nothing of the block was kept; the instance holds the database's values after the rollback.
        #expect(try temp.db.value(Int.self, "SELECT count FROM r9_counter") == 0)
        #expect(try temp.db.object(R9Counter.self, forKey: 1) === live)
        #expect(live.note == "child")
        #expect(!temp.db.isInTransaction)
    }

    // MARK: Genuine key conflicts, upsert keys, schema changes

    @Test(.enabled(if: R9Child.available))
    func twoProcessesClaimingTheSameKeysGetOneRowEachAndTheLoserANamedDuplicateKey() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r9_code (code varchar(16) NOT NULL PRIMARY KEY, owner TEXT NOT NULL)")
        let child = try ChildProcess(role: "claim", path: temp.path)
        var lost: [String] = []
        var won: [R9Code] = []
        for i in 0..<40 {
            try child.wait()
            child.send()
            let claim = R9Code(); claim.code = "k\(i)"; claim.owner = "parent"
            do {
                try temp.db.save(claim)
                won.append(claim)
            } catch let error as ModelError where error.kind == .duplicateKey {
                lost.append("\(i)=\(error.key == .text("k\(i)") ? "named" : "\(String(describing: error.key))")")
                #expect(!claim.isPersisted)
                #expect(error.properties == ["code"])
            }
        }
        let childLost = try child.finish().split(separator: ",").map(String.init)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r9_code") == 40)
        // Every round has one winner, and each loser's error names the key it lost.
        #expect(lost.count + childLost.count == 40)
        for entry in lost + childLost {
            let round = entry.split(separator: "=")[0]
            #expect(entry == "\(round)=named")
        }
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r9_code WHERE owner = 'parent'") == won.count)
        #expect(won.allSatisfy { $0.isPersisted })
    }

    @Test(.enabled(if: R9Child.available))
    func twoProcessesSavingNewObjectsWithTheSameUpsertKeysShareOneRowEach() throws {
        let temp = try TemporaryDatabase()
        _ = try temp.db.objects(R9Note.self)   // creates the table and its unique index
        let child = try ChildProcess(role: "upsert", path: temp.path)
        var notes: [R9Note] = []
        for i in 0..<40 {
            try child.wait()
            child.send()
            let note = R9Note(); note.serverID = "s\(i)"; note.text = "parent"
            try temp.db.save(note)
            notes.append(note)
        }
        _ = try child.finish()
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r9_note") == 40)
        #expect(try temp.db.value(Int.self, "SELECT count(DISTINCT serverID) FROM r9_note") == 40)
        // Each parent instance stands for the one row of its server id, and shows what was committed last.
        let rows = try temp.db.objects(R9Note.self)
        for note in notes {
            #expect(note.isPersisted)
            #expect(rows.contains { $0 === note })
        }
    }

    @Test(.enabled(if: R9Child.available))
    func anotherProcessesTableRebuildReachesLiveInstances() throws {
        let temp = try counterFile()
        let live = try #require(try temp.db.object(R9Counter.self, forKey: 1))
        live.name = "unsaved"
        // Another tool rebuilds the table with its columns in another order and a column more, and changes note.
        let child = try ChildProcess(role: "sql", path: temp.path, argument: """
            BEGIN;
            CREATE TABLE r9_new (note TEXT NOT NULL DEFAULT '', extra TEXT, id INTEGER PRIMARY KEY AUTOINCREMENT, count INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL DEFAULT '');
            INSERT INTO r9_new (id, name, count, note, extra) SELECT id, name, count, 'rebuilt', 'x' FROM r9_counter;
            DROP TABLE r9_counter;
            ALTER TABLE r9_new RENAME TO r9_counter;
            COMMIT;
            """)
        try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker); _ = try child.finish()
        try temp.db.save(live)
        #expect(live.note == "rebuilt")
        let row = try temp.db.rows("SELECT name, note, extra, count FROM r9_counter WHERE id = 1")[0]
        #expect(row["name"] == .text("unsaved"))
        #expect(row["note"] == .text("rebuilt"))
        #expect(row["extra"] == .text("x"))
        #expect(row["count"] == .integer(0))
        live.count = 3
        try temp.db.save(live)
        #expect(try temp.db.value(Int.self, "SELECT count FROM r9_counter WHERE id = 1") == 3)
    }

    // MARK: Migrations

    @Test(.enabled(if: R9Child.available))
    func twoProcessesMigratingAtOnceApplyEachMigrationOnce() throws {
        let temp = try TemporaryDatabase()
        let child = try ChildProcess(role: "migrate", path: temp.path)
        try child.wait()
        // Both processes planned the same pending migrations; the other process runs them all while this
        // one is about to run its first.
        let ran = try r9Migrator().migrate(temp.db) { progress in
            guard case .started(_, 1, _) = progress else { return }
            child.send()
            try? child.wait(for: R9Child.doneMarker)
        }
        let childRan = try child.finish()
        #expect(childRan == "0001_create,0002_seed,0003_bump,user_version 1")
        #expect(ran == [])
        #expect(try temp.db.column(Int.self, "SELECT x FROM r9_m") == [22])
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM strata_migrations") == 3)
        #expect(try temp.db.value(Int.self, "PRAGMA user_version") == 1)
    }

    @Test func twoHandlesMigratingAtOnceApplyEachMigrationOnce() throws {
        let temp = try TemporaryDatabase()
        let other = try Database(path: temp.path)
        var otherRan: [String] = []
        let ran = try r9Migrator().migrate(temp.db) { progress in
            guard case .started(_, 2, _) = progress, otherRan.isEmpty else { return }
            otherRan = (try? r9Migrator().migrate(other)) ?? ["failed"]
        }
        #expect(ran == ["0001_create"])
        #expect(otherRan == ["0002_seed", "0003_bump", "user_version 1"])
        #expect(try temp.db.column(Int.self, "SELECT x FROM r9_m") == [22])
        #expect(try temp.db.value(Int.self, "PRAGMA user_version") == 1)
        try other.close()
    }

    // MARK: Formats decided on an empty table

    @Test(.enabled(if: R9Child.available))
    func anotherProcessesFirstRowsDecideTheFormatOfColumnsThatWereEmpty() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r9_token (id TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL)")
        #expect(try temp.db.objects(R9Token.self).isEmpty)   // the model's formats are decided on an empty table
        // Another tool (sModel: `UUID().uuidString`) inserts the first rows, in uppercase.
        let theirs = UUID()
        let child = try ChildProcess(role: "sql", path: temp.path,
                                     argument: "INSERT INTO r9_token VALUES ('\(theirs.uuidString)', 'tool')")
        try child.wait(); child.send(); try child.wait(for: R9Child.doneMarker); _ = try child.finish()
        let found = try #require(try temp.db.object(R9Token.self, forKey: theirs))
        #expect(found.owner == "tool")
        found.owner = "strata"
        try temp.db.save(found)
        let mine = R9Token(); mine.owner = "new"
        try temp.db.save(mine)
        // One format in the column: the one its rows already use.
        #expect(try temp.db.column(String.self, "SELECT id FROM r9_token ORDER BY owner") == [mine.id.uuidString, theirs.uuidString])
        #expect(try temp.db.value(String.self, "SELECT owner FROM r9_token WHERE id = ?", theirs.uuidString) == "strata")
    }

    // MARK: First use

    @Test(.enabled(if: R9Child.available))
    func twoProcessesCreatingTheSameModelsTableAtOnceBothInsert() throws {
        let temp = try TemporaryDatabase()
        let child = try ChildProcess(role: "insert", path: temp.path, argument: "item")
        try insertThousand("item", owner: "parent", into: temp.db) { try child.wait(); child.send() }
        _ = try child.finish()
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM r9_item") == 2000)
        #expect(try temp.db.value(Int.self, "SELECT count(DISTINCT owner) FROM r9_item") == 2)
    }

    @Test(.enabled(if: R9Child.available), arguments: ["item", "code"])
    func twoProcessesOpeningANewFileAtOnceBothWriteToIt(model: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("new.sqlite").path
        let child = try ChildProcess(role: "fresh", path: path, argument: model)
        try child.wait()
        child.send()   // both open the missing file, make it WAL and create the table at once
        let db = try Database(path: path)
        defer { try? db.close() }
        try insertThousand(model, owner: "parent", into: db) { try child.wait(); child.send() }
        _ = try child.finish()
        #expect(try db.value(Int.self, "SELECT count(*) FROM r9_\(model)") == 2000)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r9_\(model) WHERE owner = 'child'") == 1000)
        #expect(try db.value(String.self, "PRAGMA journal_mode") == "wal")
        #expect(try ownerSwitches(db, table: "r9_\(model)") > 1)
    }
}
