import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 14: bad input never crashes and never loses data: hostile files opened by Database and
// DatabasePool, values a model cannot read, very wide tables, property names that need quoting.

private final class R14Thing: Model {
    static let tableName = "r14_thing"
    var id: Int64 = 0
    var count = 0
    var small: Int32 = 0
    var byte: UInt8 = 0
    var when = Date(timeIntervalSince1970: 0)
    var name = ""
    var ratio = 0.0
    var flag = false
    var big: UInt64 = 0
    required init() {}
}

/// Property names that are raw identifiers: a quote, spaces, a keyword, Unicode.
private final class R14Raw: Model {
    static let tableName = "r14 \"raw\""
    static let indices: [[String]] = [["first name"]]
    static let columnNames = ["x'y": "x y"]
    var id: Int64 = 0
    var `first name` = ""
    var `say "hi"` = 0
    var `order` = 0
    var `naïve ☃` = ""
    var `a]b[c` = ""
    var `x'y` = ""
    @Reference var `the thing`: R14Thing?
    var `class` = 0
    var `self`: String?
    required init() {}
}

private final class R14Wide: Model {
    static let tableName = "r14_wide"
    var id: Int64 = 0
    var c1 = 0
    var c1999: String?
    required init() {}
}

private final class R14WideMore: Model {
    static let tableName = "r14_wide"
    var id: Int64 = 0
    var c1 = 0
    var extra: String?
    required init() {}
}

private final class R14Folder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-r14-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

private func bytes(_ path: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: path)) }

@Suite(.serialized) struct Review14RobustnessTests {
    // MARK: Values a model cannot read

    @Test(arguments: [
        ("count", "x'0102'"), ("count", "1e400"), ("count", "-1e400"), ("count", "9.5"), ("count", "'12abc'"), ("count", "NULL"),
        ("count", "9223372036854775808"), ("count", "-1e19"), ("count", "1e19"),
        ("small", "3000000000"), ("small", "x'00'"), ("byte", "256"), ("byte", "-1"), ("byte", "1e400"),
        ("when", "'hello'"), ("when", "x'00'"), ("when", "NULL"), ("name", "NULL"), ("name", "CAST(x'ff' AS TEXT)"),
        ("ratio", "'abc'"), ("ratio", "NULL"), ("ratio", "x'00'"), ("flag", "2"), ("flag", "x'01'"), ("big", "-1"), ("big", "1e400"),
    ])
    func aValueTheModelCannotReadThrowsNamingTheColumnAndWritesNothing(column: String, value: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        // Another tool's table: loose types, NULL allowed.
        try db.execute("CREATE TABLE r14_thing (id INTEGER PRIMARY KEY, count, small, byte, \"when\", name, ratio, flag, big)")
        let thing = R14Thing(); thing.name = "n"
        try db.save(thing)
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        let held = try #require(try other.object(R14Thing.self, forKey: thing.id))
        try db.execute("UPDATE r14_thing SET \"\(column)\" = \(value)")
        let before = try db.rows("SELECT quote(\"\(column)\"), typeof(\"\(column)\") FROM r14_thing")[0].values
        let fresh = try Database(path: temp.path)
        defer { try? fresh.close() }
        do {
            _ = try fresh.object(R14Thing.self, forKey: thing.id)
            Issue.record("\(column) = \(value) was read")
        } catch let error as ValueConversionError {
            #expect(error.column == column, "\(error)")
            #expect(error.model == "R14Thing", "\(error)")
            #expect("\(error)".contains(column), "\(error)")
        }
        #expect(throws: (any Error).self) { _ = try fresh.objects(R14Thing.self) }
        #expect(throws: (any Error).self) { _ = try other.objects(R14Thing.self) }
        // The instance another handle holds keeps its values and does not write over the row.
        held.name = "changed"
        _ = try? other.save(held)
        #expect(try db.rows("SELECT quote(\"\(column)\"), typeof(\"\(column)\") FROM r14_thing")[0].values == before)
        // Pool readers too.
        let pool = try DatabasePool(path: temp.path)
        #expect(throws: (any Error).self) { _ = try pool.blocking.read { db in try db.objects(R14Thing.self).count } }
        try pool.blocking.close()
    }

    /// 1e400 is +inf in a REAL column: a Double property reads it, and an unchanged save writes nothing.
    @Test func anInfiniteRealReadsIntoADoubleAndStays() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let thing = R14Thing()
        try db.save(thing)
        try db.execute("UPDATE r14_thing SET ratio = 1e400")
        let fresh = try Database(path: temp.path)
        defer { try? fresh.close() }
        let read = try #require(try fresh.object(R14Thing.self, forKey: thing.id))
        #expect(read.ratio == .infinity)
        #expect(read.changedProperties == [])
        read.name = "x"
        try fresh.save(read)
        #expect(try db.value(String.self, "SELECT quote(ratio) FROM r14_thing") == "Inf")
    }

    // MARK: Names that need quoting

    @Test func rawIdentifierPropertyNamesAreQuotedEverywhere() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let raw = R14Raw()
        raw.`first name` = "Ada"; raw.`say "hi"` = 3; raw.`order` = 2; raw.`naïve ☃` = "snow"; raw.`a]b[c` = "]"; raw.`x'y` = "'"
        try db.save(raw)
        let columns = try db.rows("SELECT name FROM pragma_table_info('r14 \"raw\"') ORDER BY cid").map { $0.values[0] }
        #expect(columns == [.text("id"), .text("first name"), .text("say \"hi\""), .text("order"), .text("naïve ☃"), .text("a]b[c"), .text("x y"), .text("the thing"), .text("class"), .text("self")])
        #expect(try db.value(Int.self, "SELECT count(*) FROM pragma_index_list('r14 \"raw\"')") == 1)
        let thing = R14Thing(); try db.save(thing)
        raw.`the thing` = thing
        raw.`say "hi"` = 4
        try db.save(raw)
        let fresh = try Database(path: temp.path)
        defer { try? fresh.close() }
        let read = try #require(try fresh.object(R14Raw.self, forKey: raw.id))
        #expect(read.`first name` == "Ada" && read.`say "hi"` == 4 && read.`order` == 2 && read.`naïve ☃` == "snow" && read.`a]b[c` == "]" && read.`x'y` == "'" && read.`the thing`?.id == thing.id)
        #expect(try fresh.objects(R14Raw.self, matching: ["say \"hi\"": 4]).count == 1)
        #expect(try fresh.objects(R14Raw.self, where: \.`x'y` == "'").count == 1)
        #expect(try fresh.delete(read))
        #expect(try db.value(Int.self, "SELECT count(*) FROM \"r14 \"\"raw\"\"\"") == 0)
    }

    // MARK: Wide tables

    @Test func aTableOf2000ColumnsIsReadAndWrittenAndAColumnTooManyThrows() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        let columns = (1...1999).map { "c\($0)" + ($0 == 1 ? " INTEGER NOT NULL DEFAULT 0" : "") }.joined(separator: ", ")
        try db.execute("CREATE TABLE r14_wide (id INTEGER PRIMARY KEY, \(columns))")
        try db.execute("INSERT INTO r14_wide (id, c1, c500, c1999) VALUES (1, 5, 'keep', 'last')")
        let row = try #require(try db.object(R14Wide.self, forKey: 1))
        #expect(row.c1 == 5 && row.c1999 == "last")
        row.c1 = 6
        try db.save(row)
        let added = R14Wide(); added.c1999 = "new"
        try db.save(added)
        #expect(try db.value(String.self, "SELECT c500 FROM r14_wide WHERE id = 1") == "keep")
        #expect(try db.value(Int.self, "SELECT c1 FROM r14_wide WHERE id = 1") == 6)
        #expect(try db.value(String.self, "SELECT c1999 FROM r14_wide WHERE id = \(added.id)") == "new")
        // A model that needs a 2001st column: the sync throws naming SQLite's reason; nothing changes.
        do {
            _ = try db.objects(R14WideMore.self)
            Issue.record("a 2001st column was added")
        } catch {
            #expect("\(error)".contains("too many columns"), "\(error)")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM pragma_table_info('r14_wide')") == 2000)
    }

    // MARK: Hostile files

    @Test func aZeroByteFileIsAnEmptyDatabase() throws {
        let folder = try R14Folder()
        for pool in [false, true] {
            let path = folder.path("empty-\(pool).sqlite")
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            if pool {
                let p = try DatabasePool(path: path)
                try p.blocking.write { db in let thing = R14Thing(); thing.name = "first"; try db.save(thing) }
                #expect(try p.blocking.read { db in try db.objects(R14Thing.self).map(\.name) } == ["first"])
                try p.blocking.close()
            } else {
                let db = try Database(path: path)
                let thing = R14Thing(); thing.name = "first"
                try db.save(thing)
                #expect(try db.objects(R14Thing.self).map(\.name) == ["first"])
                try db.close()
            }
        }
    }

    @Test(arguments: ["header100", "firstPage", "corruptHeader", "text", "folder"])
    func aHostileFileThrowsFromDatabaseAndPoolAndIsNotWritten(kind: String) throws {
        let folder = try R14Folder()
        // A database in rollback mode, with two pages of rows.
        let source = folder.path("source.sqlite")
        var configuration = Database.Configuration(); configuration.journalMode = .delete
        do {
            let db = try Database(path: source, configuration: configuration)
            try db.transaction { for i in 0..<200 { let t = R14Thing(); t.name = "row \(i) " + String(repeating: "x", count: 50); try db.save(t) } }
            try db.close()
        }
        let whole = try #require(bytes(source))
        let path = folder.path("\(kind).sqlite")
        switch kind {
        case "header100": try whole.prefix(100).write(to: URL(fileURLWithPath: path))
        case "firstPage": try whole.prefix(4096).write(to: URL(fileURLWithPath: path))
        case "corruptHeader":
            var data = whole; data.replaceSubrange(16..<24, with: Data(repeating: 0xEE, count: 8))
            try data.write(to: URL(fileURLWithPath: path))
        case "text": try Data("id,name\n1,a\n".utf8).write(to: URL(fileURLWithPath: path))
        default: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let original = bytes(path)
        for journal in [Database.JournalMode.delete, .wal] {
            var configuration = Database.Configuration(); configuration.journalMode = journal
            do {
                let db = try Database(path: path, configuration: configuration)
                defer { try? db.close() }
                let thing = R14Thing(); thing.name = "new"
                #expect(throws: (any Error).self) { _ = try db.objects(R14Thing.self) }
                #expect(throws: (any Error).self) { try db.save(thing) }
            } catch {
                #expect(!"\(error)".isEmpty)
            }
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                defer { try? pool.blocking.close() }
                #expect(throws: (any Error).self) { _ = try pool.blocking.read { db in try db.objects(R14Thing.self).count } }
                #expect(throws: (any Error).self) { try pool.blocking.write { db in let t = R14Thing(); try db.save(t) } }
            } catch {
                #expect(!"\(error)".isEmpty)
            }
        }
        #expect(bytes(path) == original, "\(kind) was written")
    }

    /// A WAL database with frames not yet checkpointed, opened read-only: reads see the WAL's rows,
    /// writes throw SQLITE_READONLY, and neither file changes.
    @Test func aReadOnlyOpenOfAWALWithFramesReadsThemAndRefusesWrites() throws {
        let folder = try R14Folder()
        let path = folder.path("wal.sqlite")
        let writer = try Database(path: path)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        for i in 0..<3 { let t = R14Thing(); t.name = "w\(i)"; try writer.save(t) }
        let copy = folder.path("copy.sqlite")
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
        try writer.close()
        let db0 = bytes(copy), wal0 = bytes(copy + "-wal")
        var readOnly = Database.Configuration(); readOnly.readOnly = true
        let db = try Database(path: copy, configuration: readOnly)
        #expect(try db.objects(R14Thing.self).map(\.name).sorted() == ["w0", "w1", "w2"])
        let t = R14Thing()
        do { try db.save(t); Issue.record("saved") } catch let error as DatabaseError {
            #expect(error.code.primary == .readOnly, "\(error)")
        }
        try db.close()
        let pool = try DatabasePool(path: copy, configuration: readOnly)
        #expect(try pool.blocking.read { db in try db.objects(R14Thing.self).count } == 3)
        try pool.blocking.close()
        #expect(bytes(copy) == db0 && bytes(copy + "-wal") == wal0)
    }
}

// MARK: Model declarations that cannot work

private final class R14SameColumn: Model {
    static let tableName = "r14_same"
    static let columnNames = ["a": "v", "b": "v"]
    var id: Int64 = 0
    var a = 0
    var b = 0
    required init() {}
}

private final class R14CaseTwins: Model {
    static let tableName = "r14_case"
    var id: Int64 = 0
    var name = ""
    var Name = ""
    required init() {}
}

private final class R14EmptyTable: Model {
    static let tableName = ""
    var id: Int64 = 0
    required init() {}
}

private final class R14ReservedTable: Model {
    static let tableName = "sqlite_r14"
    var id: Int64 = 0
    required init() {}
}

private final class R14EmptyColumn: Model {
    static let tableName = "r14_emptycol"
    static let columnNames = ["a": ""]
    var id: Int64 = 0
    var a = 0
    required init() {}
}

private final class R14BadKey: Model {
    static let tableName = "r14_badkey"
    static let primaryKey = "nosuch"
    var id: Int64 = 0
    required init() {}
}

private final class R14RowIDProperty: Model {
    static let tableName = "r14_rowidprop"
    var id: Int64 = 0
    var rowid: Int64 = 0
    var oid = ""
    required init() {}
}

private final class R14BadIndex: Model {
    static let tableName = "r14_badindex"
    static let indices: [[String]] = [[], ["nosuch"]]
    var id: Int64 = 0
    required init() {}
}

private final class R14ColumnIsKey: Model {
    static let tableName = "r14_colkey"
    static let columnNames = ["a": "id"]
    var id: Int64 = 0
    var a = 0
    required init() {}
}

extension Review14RobustnessTests {
    /// Each declaration throws a ModelError or DatabaseError naming the model, from sync, fetch and save;
    /// none crashes, and the database keeps no half-made table.
    @Test(arguments: ["same", "case", "emptyTable", "reserved", "emptyColumn", "badKey", "rowid", "badIndex", "columnIsKey"])
    func aDeclarationThatCannotWorkThrowsNamingTheModel(kind: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        func attempt<T: Model>(_ type: T.Type) -> [String] {
            var errors: [String] = []
            do { _ = try db.syncSchema(type) } catch { errors.append("sync: \(error)") }
            do { _ = try db.objects(type) } catch { errors.append("fetch: \(error)") }
            do { try db.save(T()) } catch { errors.append("save: \(error)") }
            do { _ = try db.objects(type) } catch { errors.append("fetch: \(error)") }
            return errors
        }
        let errors: [String]
        switch kind {
        case "same": errors = attempt(R14SameColumn.self)
        case "case": errors = attempt(R14CaseTwins.self)
        case "emptyTable": errors = attempt(R14EmptyTable.self)
        case "reserved": errors = attempt(R14ReservedTable.self)
        case "emptyColumn": errors = attempt(R14EmptyColumn.self)
        case "badKey": errors = attempt(R14BadKey.self)
        case "rowid": errors = attempt(R14RowIDProperty.self)
        case "badIndex": errors = attempt(R14BadIndex.self)
        default: errors = attempt(R14ColumnIsKey.self)
        }
        switch kind {
        case "emptyTable", "emptyColumn", "rowid":
            // Names SQLite accepts: the model works.
            #expect(errors.isEmpty, "\(errors)")
            #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") == 1)
        case "reserved":
            #expect(errors.count == 4 && errors.allSatisfy { $0.contains("reserved for internal use") && $0.contains("sqlite_r14") }, "\(errors)")
        default:
            #expect(errors.count == 4 && errors.allSatisfy { $0.contains("Model R14") }, "\(errors)")
            #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") == 0)
        }
    }
}

/// Another tool's table keyed by text, with a column of its own named `rowid`.
private final class R14Shadow: Model {
    static let tableName = "r14_shadow"
    static let primaryKey = "code"
    var code = ""
    var rowid: Int64 = 0
    var name = ""
    required init() {}
}

private final class R14Post: Model {
    static let tableName = "r14_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "r14_post_tag", from: "post_id", to: "tag_id", orderBy: "name") var tags: [R14Tag]
    required init() {}
}

private final class R14Tag: Model {
    static let tableName = "r14_tag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// A table whose columns take all three names of the rowid.
private final class R14ShadowAll: Model {
    static let tableName = "r14_shadow_all"
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

extension Review14RobustnessTests {
    /// A column named rowid hides the row's rowid from `rowid` in SQL: Strata must not take one for the other.
    @Test func aColumnNamedRowIDIsNotTakenForTheRowsRowID() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE r14_shadow (code TEXT PRIMARY KEY, rowid INTEGER, name TEXT NOT NULL)")
        try db.execute("INSERT INTO r14_shadow VALUES ('A', 2, 'a'), ('B', 1, 'b')")
        let a = try #require(try db.object(R14Shadow.self, forKey: "A"))
        let b = try #require(try db.object(R14Shadow.self, forKey: "B"))
        #expect(a.rowid == 2 && b.rowid == 1)
        try db.execute("UPDATE r14_shadow SET name = 'a2' WHERE code = 'A'")
        #expect(a.name == "a2" && b.name == "b")
        let other = try Database(path: temp.path)
        try other.execute("UPDATE r14_shadow SET name = 'b3' WHERE code = 'B'")
        try other.close()
        _ = try db.objects(R14Shadow.self)
        #expect(a.name == "a2" && b.name == "b3")
        b.name = "b4"
        try db.save(b)
        let c = R14Shadow(); c.code = "C"; c.rowid = 1; c.name = "c"
        try db.save(c)
        #expect(try db.rows("SELECT code, rowid, name FROM r14_shadow ORDER BY code").map(\.values) ==
                [[.text("A"), .integer(2), .text("a2")], [.text("B"), .integer(1), .text("b4")], [.text("C"), .integer(1), .text("c")]])
        try db.execute("DELETE FROM r14_shadow WHERE code = 'C'")
        #expect(c.isDeleted && !b.isDeleted)
        #expect(try db.objects(R14Shadow.self).map(\.code).sorted() == ["A", "B"])
    }

    @Test func aTableWhoseColumnsHideEveryRowIDNameIsReadAndFollowed() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE r14_shadow_all (code TEXT PRIMARY KEY, rowid INTEGER, _rowid_ INTEGER, oid INTEGER, name TEXT NOT NULL)")
        try db.execute("INSERT INTO r14_shadow_all VALUES ('A', 2, 2, 2, 'a'), ('B', 1, 1, 1, 'b')")
        let a = try #require(try db.object(R14ShadowAll.self, forKey: "A"))
        let b = try #require(try db.object(R14ShadowAll.self, forKey: "B"))
        try db.execute("UPDATE r14_shadow_all SET name = 'a2' WHERE code = 'A'")
        #expect(a.name == "a2" && b.name == "b")
        let c = R14ShadowAll(); c.code = "C"; c.name = "c"
        try db.save(c)
        b.name = "b2"
        try db.save(b)
        try db.execute("DELETE FROM r14_shadow_all WHERE code = 'C'")
        #expect(c.isDeleted && !b.isDeleted)
        #expect(try db.rows("SELECT code, name FROM r14_shadow_all ORDER BY code").map(\.values) ==
                [[.text("A"), .text("a2")], [.text("B"), .text("b2")]])
    }
}

private enum R14Mood: String, ColumnValue, Codable { case happy, sad }
private enum R14Level: Int, ColumnValue, Codable { case low = 1, high = 2 }
private struct R14Point: JSONColumnValue, Equatable { var x = 0; var y = 0 }

private final class R14Other: Model {
    static let tableName = "r14_other"
    var id: Int64 = 0
    var token = UUID()
    var amount = Decimal(0)
    var link = URL(fileURLWithPath: "/")
    var mood = R14Mood.happy
    var level = R14Level.low
    var point = R14Point()
    var tags: [String] = []
    var map: [String: Int] = [:]
    var f: Float = 0
    var tiny: Int8 = 0
    var data = Data()
    var otoken: UUID?
    var omood: R14Mood?
    required init() {}
}

extension Review14RobustnessTests {
    /// The other value types over values they cannot read: each throws naming its column, never crashes,
    /// and the row stays as it was.
    @Test(arguments: [
        ("token", "x'0102'"), ("token", "'not-a-uuid'"), ("token", "42"), ("token", "NULL"),
        ("amount", "'abc'"), ("amount", "x'00'"), ("amount", "1e400"), ("amount", "'1e999999'"), ("amount", "NULL"),
        ("link", "''"), ("link", "42"), ("link", "x'ff'"), ("mood", "'angry'"), ("mood", "1"), ("mood", "NULL"),
        ("level", "3"), ("level", "'high'"), ("level", "1e400"), ("point", "'{'"), ("point", "'[1,2]'"), ("point", "'{\"x\": 1e400}'"),
        ("point", "42"), ("point", "x'7b7d'"), ("tags", "'[1, 2]'"), ("tags", "'nope'"), ("tags", "'[' || replace(hex(zeroblob(3000)), '00', '[')"),
        ("map", "'{\"a\": \"b\"}'"), ("map", "'[]'"), ("f", "'x'"), ("f", "1e300"), ("tiny", "128"), ("tiny", "'1e400'"),
        ("data", "42"), ("data", "NULL"), ("otoken", "'zz'"), ("omood", "'angry'"),
    ])
    func otherValueTypesOverValuesTheyCannotReadThrowNamingTheColumn(column: String, value: String) throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE r14_other (id INTEGER PRIMARY KEY, token, amount, link, mood, level, point, tags, map, f, tiny, data, otoken, omood)
            """)
        let other = R14Other()
        try db.save(other)
        try db.execute("UPDATE r14_other SET \"\(column)\" = \(value)")
        let before = try db.rows("SELECT quote(\"\(column)\") FROM r14_other")[0].values
        let fresh = try Database(path: temp.path)
        defer { try? fresh.close() }
        do {
            let read = try fresh.object(R14Other.self, forKey: other.id)
            Issue.record("\(column) = \(value) was read: \(read.map { "\($0.token) \($0.amount) \($0.link) \($0.f) \($0.point) \($0.tags)" } ?? "nil")")
        } catch {
            #expect("\(error)".contains("\"\(column)\"") || "\(error)".contains(column), "\(error)")
        }
        other.tiny = 1
        _ = try? db.save(other)
        #expect(try db.rows("SELECT quote(\"\(column)\") FROM r14_other")[0].values == before)
    }
}

extension Review14RobustnessTests {
    /// SQL text with a NUL byte: SQLite reads C strings up to the NUL, so the rest would be dropped (an
    /// UPDATE losing its WHERE clause). It throws, and nothing is written.
    @Test func sqlWithANulByteThrowsAndWritesNothing() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER)")
        try db.execute("INSERT INTO t VALUES (1, 0), (2, 0)")
        for run in [{ try db.execute("UPDATE t SET a = 1\u{0} WHERE id = 2") },
                    { try db.execute("UPDATE t SET a = 1\u{0} WHERE id = ?", 2) },
                    { _ = try db.rows("DELETE FROM t\u{0} WHERE id = 2 RETURNING id") }] as [() throws -> Void] {
            do {
                try run()
                Issue.record("SQL with a NUL ran")
            } catch let error as DatabaseError {
                #expect(error.message.contains("NUL"), "\(error)")
            }
        }
        #expect(try db.rows("SELECT id, a FROM t ORDER BY id").map(\.values) == [[.integer(1), .integer(0)], [.integer(2), .integer(0)]])
    }

    /// A path with a NUL byte would open the file named by its first part: it throws and creates nothing.
    @Test func aPathWithANulByteThrowsAndCreatesNothing() throws {
        let folder = try R14Folder()
        let path = folder.url.path + "/a\u{0}b.sqlite"
        #expect(path.utf8.contains(0))
        #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(throws: DatabaseError.self) { _ = try DatabasePool(path: path) }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).isEmpty)
    }
}

private final class R14Lazy: Model {
    static let tableName = "r14_lazy"
    var id: Int64 = 0
    var name = ""
    lazy var cache: String = "computed"
    required init() {}
}

private final class R14Tuple: Model {
    static let tableName = "r14_tuple"
    var id: Int64 = 0
    var pair: (Int, Int) = (0, 0)
    required init() {}
}

private final class R14Closure: Model {
    static let tableName = "r14_closure"
    var id: Int64 = 0
    var action: () -> Void = {}
    required init() {}
}

private final class R14Let: Model {
    static let tableName = "r14_let"
    var id: Int64 = 0
    let fixed = 3
    required init() {}
}

extension Review14RobustnessTests {
    /// A lazy property is no column; a tuple, a closure and a `let` throw naming the property.
    @Test func storedPropertiesOfOtherKinds() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        func attempt<T: Model>(_ type: T.Type) -> String {
            do {
                try db.save(T())
                return "ok " + (try db.rows("SELECT name FROM pragma_table_info('\(T.tableName)')").map { "\($0.values[0])" }).joined(separator: ",")
            } catch { return "error \(error)" }
        }
        #expect(attempt(R14Lazy.self) == "ok text 'id',text 'name'")
        #expect(attempt(R14Tuple.self).hasPrefix("error Model R14Tuple, property pair: Strata cannot store a (Int, Int)"))
        #expect(attempt(R14Closure.self).hasPrefix("error Model R14Closure, property action: Strata cannot store"))
        #expect(attempt(R14Let.self).hasPrefix("error Model R14Let, property fixed:"))
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'r14_%'") == 1)
    }

    /// A raw ROLLBACK TO in a table with a column named rowid: the rows it kept are still reported to
    /// observers, the row it undid is not.
    @Test func aRollbackToASavepointReportsTheKeptRowsOfATableWithAColumnNamedRowID() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("CREATE TABLE r14_shadow (code TEXT PRIMARY KEY, rowid INTEGER, name TEXT NOT NULL)")
        try db.execute("INSERT INTO r14_shadow VALUES ('A', 9, 'a'), ('B', 9, 'b')")
        var reported: [[Int64]] = []
        let observation = db.observeChanges { changes in
            for change in changes where change.table == "r14_shadow" { reported.append(change.insertedRowIDs.sorted()) }
        }
        try db.execute("BEGIN")
        try db.execute("INSERT INTO r14_shadow VALUES ('X', 1, 'x')")      // rowid 3
        try db.execute("SAVEPOINT s")
        try db.execute("INSERT INTO r14_shadow VALUES ('Y', 3, 'y')")      // rowid 4, undone
        try db.execute("ROLLBACK TO s")
        try db.execute("RELEASE s")
        try db.execute("COMMIT")
        #expect(reported == [[3]])
        observation.cancel()
    }

    /// Raw SQL into a WITHOUT ROWID join table that has a column named rowid: the loaded arrays over it
    /// are read again (the update hook says nothing of such a table's rows).
    @Test func rawSQLIntoAWithoutRowIDJoinTableWithAColumnNamedRowIDIsFollowed() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute("""
            CREATE TABLE r14_post (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '');
            CREATE TABLE r14_tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE r14_post_tag (post_id INTEGER NOT NULL, tag_id INTEGER NOT NULL, rowid INTEGER, PRIMARY KEY (post_id, tag_id)) WITHOUT ROWID;
            INSERT INTO r14_post VALUES (1, 'p'); INSERT INTO r14_tag VALUES (1, 'a'), (2, 'b');
            INSERT INTO r14_post_tag VALUES (1, 1, 7);
            """)
        let post = try #require(try db.object(R14Post.self, forKey: 1))
        #expect(post.tags.map(\.name) == ["a"])
        try db.execute("INSERT INTO r14_post_tag VALUES (1, 2, 8)")
        #expect(post.tags.map(\.name) == ["a", "b"])
    }
}
