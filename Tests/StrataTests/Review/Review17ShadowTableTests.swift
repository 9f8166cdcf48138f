import Foundation
import Testing
import Strata
import StrataTestSupport

// The shadow tables of full-text and R*Tree tables hold their index: read, never written (issue 33, point 4).

/// FTS5 `notes`'s content table, as `strata generate` used to map it.
private final class R17NotesContent: Model {
    static let tableName = "notes_content"
    var id: Int64 = 0
    var c0: String?
    var c1: String?
    required init() {}
}

/// The same table with a property it has no column for: sync would add one.
private final class R17NotesContentPlus: Model {
    static let tableName = "notes_content"
    var id: Int64 = 0
    var c0: String?
    var extra = ""
    required init() {}
}

/// FTS4 `docs`'s content table.
private final class R17DocsContent: Model {
    static let tableName = "docs_content"
    static let primaryKey = "docid"
    var docid: Int64 = 0
    var c0title: String?
    required init() {}
}

/// R*Tree `geo`'s node table.
private final class R17GeoNode: Model {
    static let tableName = "geo_node"
    static let primaryKey = "nodeno"
    var nodeno: Int64 = 0
    var data: Data?
    required init() {}
}

/// An ordinary table merely named like a shadow table, beside an ordinary `archive`.
private final class R17ArchiveContent: Model {
    static let tableName = "archive_content"
    var id: Int64 = 0
    var c0 = ""
    required init() {}
}

private func ftsDatabase() throws -> TemporaryDatabase {
    let temp = try TemporaryDatabase()
    try temp.db.execute("""
        CREATE VIRTUAL TABLE notes USING fts5(title, body);
        INSERT INTO notes(title, body) VALUES ('one', 'alpha beta'), ('two', 'gamma');
        CREATE VIRTUAL TABLE docs USING fts4(title, body);
        INSERT INTO docs(title, body) VALUES ('d', 'delta');
        CREATE VIRTUAL TABLE geo USING rtree(id, minx, maxx);
        INSERT INTO geo VALUES (1, 0.0, 1.0);
        CREATE TABLE archive(id INTEGER PRIMARY KEY, c0 TEXT);
        CREATE TABLE archive_content(id INTEGER PRIMARY KEY, c0 TEXT);
        INSERT INTO archive_content VALUES (1, 'kept');
        """)
    return temp
}

@Suite struct Review17ShadowTableTests {
    @Test func anFTS5ContentTableReadsButRefusesWrites() throws {
        let temp = try ftsDatabase()
        let db = temp.db
        let rows = try db.objects(R17NotesContent.self, where: "ORDER BY id")
        #expect(rows.map(\.c0) == ["one", "two"])
        rows[0].c0 = "changed"
        let error = #expect(throws: ModelError.self) { try db.save(rows[0]) }
        #expect(error?.kind == .readOnly)
        #expect(error?.message.contains("shadow table of the FTS5 table \"notes\"") == true)
        #expect(throws: ModelError.self) { try db.delete(rows[1]) }
        let new = R17NotesContent()
        new.c0 = "three"
        #expect(throws: ModelError.self) { try db.save(new) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM notes_content") == 2)
        #expect(try db.value(String.self, "SELECT c0 FROM notes_content WHERE id = 1") == "one")
        // The index is whole: SQLite's own check passes, and a search finds what it should.
        try db.execute("INSERT INTO notes(notes) VALUES ('integrity-check')")
        #expect(try db.value(String.self, "SELECT title FROM notes WHERE notes MATCH 'gamma'") == "two")
    }

    @Test func syncAddsNothingToAShadowTable() throws {
        let temp = try ftsDatabase()
        let db = temp.db
        let before = try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'notes_content'")
        let error = #expect(throws: SchemaError.self) { try db.objects(R17NotesContentPlus.self) }
        #expect(error.map { "\($0)" }?.contains("shadow table of the FTS5 table \"notes\"") == true)
        #expect(error.map { "\($0)" }?.contains("ADD COLUMN") == true)
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'notes_content'") == before)
        #expect(try db.schemaPlan(for: R17NotesContent.self).isEmpty)
    }

    @Test func fts4AndRTreeShadowTablesAreReadOnlyToo() throws {
        let temp = try ftsDatabase()
        let db = temp.db
        let doc = try #require(try db.first(R17DocsContent.self))
        #expect(doc.c0title == "d")
        doc.c0title = "x"
        let docError = #expect(throws: ModelError.self) { try db.save(doc) }
        #expect(docError?.message.contains("FTS4 table \"docs\"") == true)
        let node = try #require(try db.first(R17GeoNode.self))
        node.data = Data([0])
        let nodeError = #expect(throws: ModelError.self) { try db.save(node) }
        #expect(nodeError?.message.contains("RTREE table \"geo\"") == true)
        try db.execute("INSERT INTO docs(docs) VALUES ('integrity-check')")
        #expect(try db.value(Int.self, "SELECT count(*) FROM geo WHERE minx >= 0") == 1)
    }

    @Test func aTableOnlyNamedLikeAShadowTableIsOrdinary() throws {
        let temp = try ftsDatabase()
        let db = temp.db
        let row = try #require(try db.first(R17ArchiveContent.self))
        row.c0 = "edited"
        try db.save(row)
        #expect(try db.value(String.self, "SELECT c0 FROM archive_content WHERE id = 1") == "edited")
    }
}
