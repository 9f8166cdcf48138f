import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 7 of issue 11's foreign keys: cascades at depth and into other key kinds, rollbacks of them,
// deferred violations, and the rebuild that adds a foreign key.

/// A self-referencing tree Strata creates: deleting a node cascades through its subtree.
private final class R7Node: Model {
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .cascade) var parent: R7Node?
    @Children(by: "parent", orderBy: "name") var children: [R7Node]
    required init() {}
}

/// The same tree in a WITHOUT ROWID table keyed by text (the update hook reports none of its rows).
private final class R7Folder: Model {
    static let primaryKey = "code"
    var code = ""
    @Reference var parent: R7Folder?
    @Children(by: "parent", orderBy: "code") var children: [R7Folder]
    required init() {}
}

private func folders(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE R7Folder (code TEXT PRIMARY KEY NOT NULL,
            parent TEXT REFERENCES R7Folder (code) ON DELETE CASCADE) WITHOUT ROWID;
        INSERT INTO R7Folder VALUES ('root', NULL), ('a', 'root'), ('b', 'root'), ('a1', 'a'), ('z', NULL);
        """)
}

@Suite struct Review7ForeignKeyTests {
    /// db.delete of a node of a WITHOUT ROWID tree: the cascade back into its own table (unreported by the
    /// update hook) reached no live instance of that type; the subtree stayed live over rows that were gone.
    @Test func deletingTheRootOfAWithoutRowIDTreeMarksItsSubtreeDeleted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try folders(db)
        let root = try #require(try db.object(R7Folder.self, forKey: "root"))
        let z = try #require(try db.object(R7Folder.self, forKey: "z"))
        #expect(root.children.map(\.code) == ["a", "b"])
        let a = root.children[0], b = root.children[1]
        #expect(a.children.map(\.code) == ["a1"])
        let a1 = a.children[0]
        #expect(z.children.isEmpty)
        #expect(try db.delete(root))
        #expect(try db.column(String.self, "SELECT code FROM R7Folder") == ["z"])
        #expect(root.isDeleted && a.isDeleted && b.isDeleted && a1.isDeleted)
        #expect(!z.isDeleted && z.children.isEmpty)
        #expect(try db.objects(R7Folder.self).map(\.code) == ["z"])
    }

    /// Guard: the same cascade by deleteAll (raw SQL path).
    @Test func deleteAllOfAWithoutRowIDRootMarksItsSubtreeDeleted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try folders(db)
        let a1 = try #require(try db.object(R7Folder.self, forKey: "a1"))
        #expect(try db.deleteAll(R7Folder.self, where: "code = ?", "root") == 1)
        #expect(a1.isDeleted)
        #expect(try db.column(String.self, "SELECT code FROM R7Folder") == ["z"])
    }

    /// Guard: a cascade through a self-referencing tree undone by a savepoint rollback brings back every
    /// instance and every loaded @Children array as the rows are.
    @Test func aRolledBackSavepointCascadeThroughATreeRestoresItsArrays() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let root = R7Node(); root.name = "root"
        try db.save(root)
        let a = R7Node(); a.name = "a"; a.parent = root
        let b = R7Node(); b.name = "b"; b.parent = root
        try db.save([a, b])
        let a1 = R7Node(); a1.name = "a1"; a1.parent = a
        try db.save(a1)
        #expect(root.children.map(\.name) == ["a", "b"])
        #expect(a.children.map(\.name) == ["a1"])
        struct Undo: Error {}
        try db.transaction {
            try? db.transaction {
                try db.delete(a)
                #expect(a1.isDeleted)
                #expect(root.children.map(\.name) == ["b"])
                throw Undo()
            }
            #expect(!a.isDeleted && !a1.isDeleted)
            #expect(root.children.map(\.name) == ["a", "b"])
            #expect(a.children.map(\.name) == ["a1"])
        }
        #expect(root.children.map(\.name) == ["a", "b"])
        #expect(a.children.map(\.name) == ["a1"])
        #expect(a.children.first === a1)
    }
}
