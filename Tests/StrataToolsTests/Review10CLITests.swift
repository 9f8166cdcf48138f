import Foundation
import StrataTestSupport
import Testing
@testable import Strata
@testable import StrataTools

// Review 10: the `strata` tool and the models it generates, on every fixture and on bad files.

/// Every row of `table` as `quote(column)` texts, keyed by rowid (or by the quoted key for WITHOUT ROWID tables).
private func quotedRows(_ db: Database, _ table: String) throws -> [String: [String: String]] {
    let columns = try db.column(String.self, "SELECT name FROM pragma_table_xinfo(?)", table)
    let keys = try db.column(String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", table)
    let withoutRowID = try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = ?", table)?.uppercased().contains("WITHOUT ROWID") == true
    let id = withoutRowID ? keys.map { "quote(\(SQL.quote($0)))" }.joined(separator: " || ',' || ") : "rowid"
    let list = columns.map { "quote(\(SQL.quote($0)))" }.joined(separator: ", ")
    var result: [String: [String: String]] = [:]
    for row in try db.rows("SELECT \(id) AS r10_id, \(list) FROM \(SQL.quote(table))") {
        var values: [String: String] = [:]
        for (index, column) in columns.enumerated() {
            if case .text(let text) = row[index + 1] { values[column] = text }
        }
        result["\(row[0])"] = values
    }
    return result
}

@Suite(.serialized) struct Review10CLITests {
    /// Each generated model of each fixture: fetch every row, change one plain property of one object,
    /// save. Exactly that column of that row changed, in the format the column used; nothing else did.
    @Test(.enabled(if: Fixtures.available), arguments: 0..<GeneratedFixtureModelTests.fixtures.count)
    func generatedModelsSaveOneChangeAndNothingElse(_ index: Int) throws {
        let (file, _, models) = GeneratedFixtureModelTests.fixtures[index]
        let path: String = try #require(Fixtures.path(file))
        let fixture = try TemporaryDatabase(copying: path)
        let db = fixture.db
        var changed = 0, written = 0
        for model in models where !(try ModelMetadata.of(model)).isReadOnly {
            written += 1
            changed += try changeOne(model, in: db, file: file) ? 1 : 0
        }
        // The fixtures of FCModel, sModel and the FamilySearch app hold the schema only (no rows).
        let rows = try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") ?? 0
        if written > 0 && !["fcmodel_test.sqlite3", "smodel_test.sqlite3", "familysearch_app.sqlite3"].contains(file) {
            #expect(changed > 0, "\(file): no model had a row and a plain property to change (\(rows) tables)")
        }
    }

    private func changeOne<T: Model>(_ type: T.Type, in db: Database, file: String) throws -> Bool {
        let metadata = try ModelMetadata.of(T.self)
        let table = metadata.tableName
        let objects = try db.objects(T.self)
        #expect(objects.count == (try db.value(Int.self, "SELECT count(*) FROM \(SQL.quote(table))") ?? -1), "\(file): \(T.self)")
        guard let object = objects.first else { return false }
        let keys = Set(try db.column(String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0", table))
        let generated = Set(try db.column(String.self, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)", table))
        // A plain text, integer or real property: not a key, not a reference, not a generated column.
        guard let property = metadata.properties.dropFirst(metadata.keyCount).first(where: { property in
            property.related == nil && !keys.contains(property.column) && !generated.contains(property.column)
                && property.accessor.fast != nil && property.accessor.fast.map { if case .bool = $0 { false } else { true } } == true
        }) else { return false }
        let before = try quotedRows(db, table)
        let old = try property.accessor.load(object)
        let new: SQLValue
        switch (old, property.columnType) {
        case (.text(let text), _): new = .text(text + "~")
        case (.integer(let integer), _): new = .integer(integer &+ 1)
        case (.real(let real), _): new = .real(real + 0.5)
        case (.null, .text): new = .text("r10")
        case (.null, .integer): new = .integer(7)
        case (.null, .real): new = .real(7.5)
        default: return false
        }
        try property.accessor.store(new, into: object)
        #expect(object.hasChanges, "\(file): \(T.self).\(property.name)")
        try db.save(object)
        #expect(!object.hasChanges, "\(file): \(T.self).\(property.name)")
        let after = try quotedRows(db, table)
        #expect(Set(after.keys) == Set(before.keys), "\(file): \(T.self): rows added or removed")
        let differing = before.keys.filter { before[$0] != after[$0] }
        #expect(differing.count == 1, "\(file): \(T.self).\(property.name): \(differing.count) rows changed")
        if let row = differing.first, let was = before[row], let now = after[row] {
            let columns = was.keys.filter { was[$0] != now[$0] }
            #expect(columns == [property.column], "\(file): \(T.self).\(property.name): columns changed \(columns)")
            let expected: String
            switch new {
            case .text(let text): expected = "'\(text.replacingOccurrences(of: "'", with: "''"))'"
            case .integer(let integer): expected = String(integer)
            case .real(let real): expected = try db.value(String.self, "SELECT quote(?)", real) ?? ""
            default: expected = ""
            }
            #expect(now[property.column] == expected, "\(file): \(T.self).\(property.name): was \(was[property.column] ?? "?")")
        }
        return true
    }

    /// Bad files given to each subcommand: a one-line error naming the file, exit 1, no crash, no file made.
    @Test func badFilesGiveOneLineErrorsAndCreateNothing() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x TEXT); INSERT INTO t(x) VALUES ('a')")
        try temp.db.close()
        let folder = temp.folder
        let good = URL(fileURLWithPath: temp.path).lastPathComponent
        let whole = try Data(contentsOf: URL(fileURLWithPath: temp.path))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.sqlite"), withIntermediateDirectories: false)
        try Data("not a database\n".utf8).write(to: folder.appendingPathComponent("text.sqlite"))
        try whole.prefix(1000).write(to: folder.appendingPathComponent("truncated.sqlite"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("migrations"), withIntermediateDirectories: false)
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()

        let expectations: [(file: String, says: String)] = [
            ("missing.sqlite", "no database at missing.sqlite"),
            ("folder.sqlite", "folder.sqlite is a directory, not a database file"),
            ("text.sqlite", "file is not a database: text.sqlite"),
            ("truncated.sqlite", "database disk image is malformed: truncated.sqlite"),
        ]
        for (file, says) in expectations {
            for arguments in [["inspect", file], ["inspect", file, "--json"], ["inspect", file, "--diagram"], ["generate", file],
                              ["diff", good, file], ["plan", file, "--migrations", "migrations"],
                              ["migrate", file, "--migrations", "migrations"]] {
                let run = try strata(arguments, in: folder)
                #expect(run.status == 1, "\(arguments)")
                #expect(run.output.isEmpty, "\(arguments): \(run.output)")
                #expect(run.error.hasPrefix("Error: ") && run.error.hasSuffix("\n"), "\(arguments): \(run.error)")
                #expect(run.error.split(separator: "\n").count == 1, "\(arguments): \(run.error)")
                #expect(run.error.contains(says), "\(arguments): \(run.error)")
            }
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() == files, "\(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted())")
        #expect(try Data(contentsOf: folder.appendingPathComponent("truncated.sqlite")) == whole.prefix(1000))

        // A table that is not there.
        for arguments in [["inspect", good, "--table", "nosuch"], ["generate", good, "--table", "t", "--table", "nosuch"]] {
            let run = try strata(arguments, in: folder)
            #expect(run.status == 1)
            #expect(run.error == "Error: no table named \"nosuch\"; the tables are: t\n", "\(arguments)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path)) == whole)
    }

    /// A WAL database (what Strata creates): the read-only subcommands leave no -wal or -shm file behind and
    /// the file byte-identical; while another connection has it open, they read it and leave its files alone.
    @Test func inspectingAWALDatabaseLeavesNoSideFiles() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x TEXT); INSERT INTO t(x) VALUES ('a')")
        try temp.db.close()
        let name = URL(fileURLWithPath: temp.path).lastPathComponent
        let before = try Data(contentsOf: URL(fileURLWithPath: temp.path))
        #expect(before[18] == 2 && before[19] == 2, "WAL")
        try FileManager.default.createDirectory(at: temp.folder.appendingPathComponent("migrations"), withIntermediateDirectories: false)
        let runs = [["inspect", name], ["inspect", name, "--json"], ["inspect", name, "--diagram"], ["generate", name],
                    ["diff", name, name], ["plan", name, "--migrations", "migrations"]]
        for arguments in runs {
            let run = try strata(arguments, in: temp.folder)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: temp.folder.path)) ?? []).sorted() == ["migrations", name], "\(arguments)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path)) == before, "\(arguments)")
        }
        // Another connection has it open, with a committed write still in the WAL.
        let other = try temp.reopen()
        try other.execute("INSERT INTO t(x) VALUES ('b')")
        let inspect = try strata(["inspect", name], in: temp.folder)
        #expect(inspect.status == 0)
        #expect(inspect.output.contains("2 rows"), "\(inspect.output)")
        #expect(FileManager.default.fileExists(atPath: temp.path + "-wal") && FileManager.default.fileExists(atPath: temp.path + "-shm"))
        #expect(try other.value(Int.self, "SELECT count(*) FROM t") == 2)
    }
}

extension Review10CLITests {
    /// A full-size file with damaged table pages: `inspect` cannot count the rows and says so, naming the
    /// file, with exit 1, instead of printing the table without a count as if all were well.
    @Test(.enabled(if: Fixtures.available)) func inspectingADamagedTableFailsNamingTheFile() throws {
        let path: String = try #require(Fixtures.path("grdb_ProfilingDatabase.sqlite"))
        let temp = try TemporaryDatabase(copying: path)
        try temp.db.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: temp.path))
        for page in stride(from: 2, to: data.count / 4096, by: 50) {
            data.replaceSubrange(page * 4096 ..< page * 4096 + 64, with: Data(repeating: 0xFF, count: 64))
        }
        try data.write(to: URL(fileURLWithPath: temp.path))
        let name = URL(fileURLWithPath: temp.path).lastPathComponent
        for arguments in [["inspect", name], ["inspect", name, "--json"]] {
            let run = try strata(arguments, in: temp.folder)
            #expect(run.status == 1, "\(arguments): \(run.output)")
            #expect(run.output.isEmpty)
            // (The library's error names the file itself: "... malformed (/tmp/.../grdb_ProfilingDatabase.sqlite)".)
            #expect(run.error.hasPrefix("Error: SQLite error 11: database disk image is malformed ("), "\(run.error)")
            #expect(run.error.contains("/\(name))"), "\(run.error)")
            #expect(run.error.split(separator: "\n").count == 1)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path)) == data)
    }
}

extension Review10CLITests {
    /// `plan --schema` with SQL that does not run, and `plan --migrations` with a file that is not text:
    /// errors naming the file, exit 1.
    @Test func planNamesABadSchemaOrMigrationFile() throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let name = URL(fileURLWithPath: temp.path).lastPathComponent
        try "CREATE TABLE oops(".write(to: temp.folder.appendingPathComponent("schema.sql"), atomically: true, encoding: .utf8)
        let schema = try strata(["plan", name, "--schema", "schema.sql"], in: temp.folder)
        #expect(schema.status == 1)
        #expect(schema.error.hasPrefix("Error: schema file schema.sql: SQLite error 1: incomplete input"), "\(schema.error)")
        let migrations = temp.folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        try Data([0xFF, 0xFE, 0x80]).write(to: migrations.appendingPathComponent("0001_binary.sql"))
        for command in ["plan", "migrate"] {
            let run = try strata([command, name, "--migrations", "migrations"], in: temp.folder)
            #expect(run.status == 1)
            #expect(run.error == "Error: migration 0001_binary: cannot read \(migrations.path)/0001_binary.sql: it is not UTF-8 text\n", "\(run.error)")
        }
    }
}

extension Review10CLITests {
    /// Every writable property of the first object of each generated model, one at a time (dates, decimals,
    /// UUIDs and data included, where a changed value of the same kind decodes): the save changes that
    /// column of that row only, and keeps the column's storage class.
    @Test(.enabled(if: Fixtures.available), arguments: 0..<GeneratedFixtureModelTests.fixtures.count)
    func everyPropertySavedAloneChangesOnlyItsColumnAndKeepsItsStorageClass(_ index: Int) throws {
        let (file, _, models) = GeneratedFixtureModelTests.fixtures[index]
        let path: String = try #require(Fixtures.path(file))
        let fixture = try TemporaryDatabase(copying: path)
        var saved = 0
        for model in models where !(try ModelMetadata.of(model)).isReadOnly {
            saved += try changeEach(model, in: fixture.db, file: file)
        }
        if ["GYDataCenterTests.db", "peewee_notes.sqlite3", "sqlalchemy_blog.sqlite3"].contains(file) {
            #expect(saved >= 10, "\(file): \(saved) properties saved")
        }
    }

    private func changeEach<T: Model>(_ type: T.Type, in db: Database, file: String) throws -> Int {
        var saved = 0
        let metadata = try ModelMetadata.of(T.self)
        let table = metadata.tableName
        guard let object = try db.objects(T.self).first else { return 0 }
        let keys = Set(try db.column(String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0", table))
        let generated = Set(try db.column(String.self, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)", table))
        for property in metadata.properties.dropFirst(metadata.keyCount)
        where property.related == nil && !keys.contains(property.column) && !generated.contains(property.column) {
            let old = try property.accessor.load(object)
            let new: SQLValue
            switch old {
            case .text(let text): new = .text(text + "~")
            case .integer(let integer): new = .integer(integer == 0 ? 1 : 0)
            case .real(let real): new = .real(real + 0.5)
            case .blob(let data): new = .blob(data + Data([0x7E]))
            default: continue
            }
            guard (try? property.accessor.store(new, into: object)) != nil else { continue }
            guard object.hasChanges else { continue }   // the same value after decoding (a Bool's 2, say)
            let before = try quotedRows(db, table)
            let classBefore = try db.column(String.self, "SELECT typeof(\(SQL.quote(property.column))) FROM \(SQL.quote(table))")
            do {
                try db.save(object)
            } catch let error as DatabaseError where error.code == .constraintCheck {
                // The table's CHECK refuses the value: nothing was written, the change stays on the instance.
                #expect(try quotedRows(db, table) == before)
                #expect(object.hasChanges)
                try property.accessor.store(old, into: object)
                continue
            }
            saved += 1
            let after = try quotedRows(db, table)
            let differing = before.keys.filter { before[$0] != after[$0] }
            #expect(differing.count == 1, "\(file): \(T.self).\(property.name): \(differing.count) rows changed")
            if let row = differing.first, let was = before[row], let now = after[row] {
                let columns = was.keys.filter { was[$0] != now[$0] && !generated.contains($0) }
                #expect(columns == [property.column], "\(file): \(T.self).\(property.name): \(columns) changed")
            }
            let classAfter = try db.column(String.self, "SELECT typeof(\(SQL.quote(property.column))) FROM \(SQL.quote(table))")
            #expect(classAfter == classBefore, "\(file): \(T.self).\(property.name): storage class \(classBefore) -> \(classAfter)")
        }
        return saved
    }
}

extension Review10CLITests {
    /// A named pipe (opening it would wait for a writer forever) and a device: errors, at once.
    @Test func aNamedPipeOrADeviceIsNoDatabase() throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pipe = temp.folder.appendingPathComponent("pipe.sqlite")
        #expect(mkfifo(pipe.path, 0o644) == 0)
        try FileManager.default.createDirectory(at: temp.folder.appendingPathComponent("migrations"), withIntermediateDirectories: true)
        for arguments in [["inspect", "pipe.sqlite"], ["generate", "pipe.sqlite"], ["migrate", "pipe.sqlite", "--migrations", "migrations"]] {
            let run = try strata(arguments, in: temp.folder)
            #expect(run.status == 1)
            #expect(run.error == "Error: pipe.sqlite is a named pipe or another special file, not a database file\n", "\(run.error)")
        }
        let device = try strata(["inspect", "/dev/null"], in: temp.folder)
        #expect(device.status == 1)
        #expect(device.error == "Error: /dev/null is a character device, not a database file\n", "\(device.error)")
    }
}
