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

// MARK: Keys that change, deferred keys, other handles

private final class R7Code: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    @Children(by: "code") var uses: [R7Use]
    required init() {}
}

private final class R7Use: Model {
    var id: Int64 = 0
    @Reference var code: R7Code?
    required init() {}
}

private final class R7WUse: Model {
    static let primaryKey = "tag"
    var tag = ""
    @Reference var code: R7Code?
    required init() {}
}

private final class R7Artist: Model {
    static let tableName = "music_artist"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R7PlainAlbum: Model {
    static let tableName = "music_album"
    var id: Int64 = 0
    var title = ""
    var artist_id: Int64 = 0
    required init() {}
}

private func django(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE "music_artist" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(100) NOT NULL);
        CREATE TABLE "music_album" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL,
            "artist_id" integer NOT NULL REFERENCES "music_artist" ("id") DEFERRABLE INITIALLY DEFERRED);
        INSERT INTO music_artist VALUES (1, 'Ada'); INSERT INTO music_album VALUES (1, 'A', 1);
        """)
}

private final class R7SNArtist: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R7SNAlbum: Model {
    static let tableName = "R7SNAlbum"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    @Reference(onDelete: .setNull) var artist: R7SNArtist?
    required init() {}
}

extension Review7ForeignKeyTests {
    /// Guard: ON UPDATE CASCADE by raw SQL reaches the children's live instances, in a rowid table and in
    /// a WITHOUT ROWID one; the re-keyed parent's old instance is deleted and the references resolve anew.
    @Test func onUpdateCascadeByRawSQLReachesChildrenOfBothKinds() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE R7Code (code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE R7Use (id INTEGER PRIMARY KEY, code TEXT REFERENCES R7Code (code) ON UPDATE CASCADE ON DELETE CASCADE);
            CREATE TABLE R7WUse (tag TEXT PRIMARY KEY NOT NULL, code TEXT REFERENCES R7Code (code) ON UPDATE CASCADE ON DELETE SET NULL) WITHOUT ROWID;
            INSERT INTO R7Code VALUES ('A', 'a'); INSERT INTO R7Use VALUES (1, 'A'); INSERT INTO R7WUse VALUES ('w', 'A');
            """)
        let use = try #require(try db.object(R7Use.self, forKey: 1))
        let wuse = try #require(try db.object(R7WUse.self, forKey: "w"))
        let a = try #require(use.code)
        #expect(wuse.code === a && a.uses.map(\.id) == [1])
        try db.execute("UPDATE R7Code SET code = 'B' WHERE code = 'A'")
        #expect(a.isDeleted)
        #expect(use.$code.key == .text("B") && wuse.$code.key == .text("B"))
        let b = try #require(use.code)
        #expect(b !== a && b.code == "B" && b.name == "a" && wuse.code === b && b.uses.first === use)
        #expect(try db.delete(b))
        #expect(use.isDeleted && !wuse.isDeleted && wuse.code == nil && wuse.$code.key == .null)
        #expect(try db.rows("SELECT tag, code FROM R7WUse").map(\.values) == [[.text("w"), .null]])
    }

    /// Guard: a Django deferred foreign key violated by one object of a `save([...])` batch fails the
    /// COMMIT; the new objects are unsaved again, the changed one keeps its unsaved change, no row is left.
    @Test func aDeferredViolationFailsASaveBatchAndLeavesNothingBehind() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try django(db)
        let existing = try #require(try db.object(R7PlainAlbum.self, forKey: 1))
        existing.title = "A2"
        let good = R7PlainAlbum(); good.title = "good"; good.artist_id = 1
        let bad = R7PlainAlbum(); bad.title = "bad"; bad.artist_id = 99
        let error = try #require(throws: DatabaseError.self) { try db.save([existing, good, bad]) }
        #expect(error.code == .constraintForeignKey && error.sql == "COMMIT TRANSACTION")
        #expect(!db.isInTransaction)
        #expect(good.id == 0 && !good.isPersisted && bad.id == 0 && !bad.isPersisted)
        #expect(existing.title == "A2" && existing.isPersisted)
        #expect(try db.column(String.self, "SELECT title FROM music_album") == ["A"])
        let fetched = try db.objects(R7PlainAlbum.self)
        #expect(fetched.count == 1 && fetched[0] === existing)
        bad.artist_id = 1
        try db.save([existing, good, bad])
        #expect(try db.column(String.self, "SELECT title FROM music_album ORDER BY id") == ["A2", "good", "bad"])
    }

    /// Guard: a transaction that cascades through a tree, inserts, updates, and then breaks a deferred
    /// foreign key fails at COMMIT; every instance and loaded array is back as the rows are.
    @Test func aDeferredViolationUndoesACascadeInTheSameTransaction() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try django(db)
        let root = R7Node(); root.name = "root"
        try db.save(root)
        let a = R7Node(); a.name = "a"; a.parent = root
        let b = R7Node(); b.name = "b"; b.parent = root
        try db.save([a, b])
        let a1 = R7Node(); a1.name = "a1"; a1.parent = a
        try db.save(a1)
        #expect(root.children.map(\.name) == ["a", "b"])
        #expect(a.children.map(\.name) == ["a1"])
        let ada = try #require(try db.object(R7Artist.self, forKey: 1))
        let c = R7Node(); c.name = "c"; c.parent = root
        #expect(throws: DatabaseError.self) {
            try db.transaction {
                try db.delete(a)
                try db.save(c)
                b.name = "b2"
                try db.save(b)
                try db.delete(ada)
                #expect(root.children.map(\.name) == ["b2", "c"])
            }
        }
        #expect(!a.isDeleted && !a1.isDeleted && !ada.isDeleted)
        #expect(c.id == 0 && !c.isPersisted)
        #expect(b.name == "b")   // the rolled-back save's value gives way to the row's
        #expect(root.children.map(\.name) == ["a", "b"] && root.children.first === a)
        #expect(a.children.map(\.name) == ["a1"] && a.children.first === a1)
        #expect(try db.count(R7Artist.self) == 1)
        #expect(try db.count(R7Node.self) == 4)
    }

    /// The opt-in rebuild adding ON DELETE SET NULL to a NOT NULL column kept the NOT NULL: every later
    /// delete of a referenced parent failed ("NOT NULL constraint failed"). The plan now drops it.
    @Test func aRebuildAddingSetNullToANotNullColumnMakesItNullable() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE R7SNArtist (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE R7SNAlbum (id INTEGER PRIMARY KEY, artist INTEGER NOT NULL);
            CREATE INDEX R7SNAlbum_artist ON R7SNAlbum (artist);
            INSERT INTO R7SNArtist VALUES (1, 'Ada'), (2, 'Bob'); INSERT INTO R7SNAlbum VALUES (1, 1), (2, 2);
            """)
        let plan = try db.schemaPlan(for: R7SNAlbum.self)
        let create = try #require(plan.steps.first { $0.sql.hasPrefix("CREATE TABLE") }?.sql)
        #expect(create == #"CREATE TABLE "strata_new_R7SNAlbum" (id INTEGER PRIMARY KEY, artist INTEGER REFERENCES "R7SNArtist" ("id") ON DELETE SET NULL)"#)
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'R7SNAlbum'")?.contains("NOT NULL") == true)  // a plan runs nothing
        try db.syncSchema(R7SNAlbum.self)
        #expect(try db.syncSchema(R7SNAlbum.self).isEmpty)
        #expect(try db.value(Int64.self, "PRAGMA foreign_keys") == 1)
        #expect(try db.column(String.self, "SELECT name FROM sqlite_master WHERE tbl_name = 'R7SNAlbum' AND type = 'index'") == ["R7SNAlbum_artist"])
        let album = try #require(try db.object(R7SNAlbum.self, forKey: 1))
        let ada = try #require(album.artist)
        #expect(try db.delete(ada))
        #expect(!album.isDeleted && album.artist == nil && album.$artist.key == .null)
        #expect(try db.rows("SELECT id, artist FROM R7SNAlbum ORDER BY id").map(\.values) == [[.integer(1), .null], [.integer(2), .integer(2)]])
    }

    /// Guard: another handle's live instances and loaded arrays (rowid and WITHOUT ROWID trees) follow a
    /// cascade committed elsewhere, at its next fetch.
    @Test func anotherHandlesInstancesFollowACommittedCascade() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let root = R7Node(); root.name = "root"
        try db.save(root)
        let a = R7Node(); a.name = "a"; a.parent = root
        try db.save(a)
        let a1 = R7Node(); a1.name = "a1"; a1.parent = a
        try db.save(a1)
        try folders(db)
        let other = try Database(path: temp.path)
        let root2 = try #require(try other.object(R7Node.self, forKey: root.id))
        #expect(root2.children.count == 1)
        let a12 = try #require(try other.object(R7Node.self, forKey: a1.id))
        let fa1 = try #require(try other.object(R7Folder.self, forKey: "a1"))
        let froot = try #require(try other.object(R7Folder.self, forKey: "root"))
        #expect(froot.children.count == 2)
        try db.delete(a)
        try db.execute("DELETE FROM R7Folder WHERE code = 'a'")
        _ = try other.objects(R7Node.self)
        #expect(a12.isDeleted && root2.children.isEmpty)
        #expect(fa1.isDeleted && froot.children.map(\.code) == ["b"])
        try other.close()
    }

    /// Guard: the WITHOUT ROWID tree cascade through a pool's writer, by the async API.
    @Test func aPoolsAsyncWriteFollowsAWithoutRowIDTreeCascade() async throws {
        let temp = try TemporaryDatabase()
        try folders(temp.db)
        let path = temp.path
        try temp.db.close()
        let pool = try DatabasePool(path: path, readers: 1)
        let ok = try await pool.write { db -> [Bool] in
            let a1 = try #require(try db.object(R7Folder.self, forKey: "a1"))
            let root = try #require(try db.object(R7Folder.self, forKey: "root"))
            try db.delete(root)
            return [a1.isDeleted, root.isDeleted]
        }
        #expect(ok == [true, true])
        #expect(try await pool.read { db in try db.column(String.self, "SELECT code FROM R7Folder") } == ["z"])
        try await pool.close()
    }
}

// MARK: UUID and composite keys, a rebuild others point at

private final class R7UParent: Model {
    var id = UUID()
    var name = ""
    @Children(by: "parent") var kids: [R7UKid]
    required init() {}
}

private final class R7UKid: Model {
    var id = UUID()
    @Reference(onDelete: .cascade) var parent: R7UParent?
    @Reference(onDelete: .setNull) var other: R7UParent?
    required init() {}
}

private final class R7DjShelf: Model {
    static let tableName = "lib_shelf"
    var id = UUID()
    var name = ""
    required init() {}
}

private final class R7DjBook: Model {
    static let tableName = "lib_book"
    var id: Int64 = 0
    @Reference var shelf: R7DjShelf?
    required init() {}
}

private final class R7CParent: Model {
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b = ""
    var name = ""
    required init() {}
}

private final class R7CChild: Model {
    static let primaryKey = "code"
    var code = ""
    var pa: Int64?
    var pb: String?
    required init() {}
}

private final class R7RebuiltBook: Model {
    static let tableName = "shop_book"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var author: R7Author?
    required init() {}
}

private final class R7Author: Model {
    static let tableName = "shop_author"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

extension Review7ForeignKeyTests {
    /// Guard: UUID keys in tables Strata creates: CASCADE and SET NULL reach live instances and arrays.
    @Test func uuidKeysCascadeAndSetNull() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let p = R7UParent(); p.name = "p"
        let q = R7UParent(); q.name = "q"
        try db.save([p, q])
        let k = R7UKid(); k.parent = p; k.other = q
        let k2 = R7UKid(); k2.parent = q; k2.other = p
        try db.save([k, k2])
        #expect(p.kids.first === k && q.kids.first === k2)
        #expect(try db.delete(p))
        #expect(k.isDeleted && !k2.isDeleted && k2.other == nil && k2.$other.key == .null && k2.parent === q)
        #expect(q.kids.first === k2)
        #expect(try db.rows("SELECT parent, other FROM R7UKid").map(\.values) == [[.text(q.id.uuidString.lowercased()), .null]])
    }

    /// Guard: a new parent keyed by a UUID in Django's char(32) column, referenced in the same
    /// transaction: the key is written in the column's format, so the deferred check passes at COMMIT.
    @Test func aDjangoUUIDParentAndItsChildPassTheDeferredCheck() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "lib_shelf" ("id" char(32) NOT NULL PRIMARY KEY, "name" varchar(10) NOT NULL);
            CREATE TABLE "lib_book" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
                "shelf_id" char(32) NOT NULL REFERENCES "lib_shelf" ("id") DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO lib_shelf VALUES ('0f8fad5bd9cb469fa16570867728950e', 'old');
            """)
        let s = R7DjShelf(); s.name = "new"
        let book = R7DjBook()
        try db.transaction {
            try db.save(s)
            book.shelf = s
            try db.save(book)
        }
        let hex = s.id.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        #expect(try db.rows("SELECT shelf_id FROM lib_book").map(\.values) == [[.text(hex)]])
        let old = try #require(try db.object(R7DjShelf.self, forKey: UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!))
        let b2 = R7DjBook(); b2.shelf = old
        try db.save(b2)
        #expect(try db.count(R7DjBook.self) == 2)
    }

    /// Guard: a composite foreign key with SET NULL into a WITHOUT ROWID child, by db.delete.
    @Test func aCompositeKeySetNullReachesAWithoutRowIDChild() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE R7CParent (a INTEGER NOT NULL, b TEXT NOT NULL, name TEXT NOT NULL DEFAULT '', PRIMARY KEY (a, b));
            CREATE TABLE R7CChild (code TEXT PRIMARY KEY NOT NULL, pa INTEGER, pb TEXT,
                FOREIGN KEY (pa, pb) REFERENCES R7CParent (a, b) ON DELETE SET NULL) WITHOUT ROWID;
            INSERT INTO R7CParent VALUES (1, 'x', 'p'); INSERT INTO R7CChild VALUES ('c', 1, 'x');
            """)
        let c = try #require(try db.object(R7CChild.self, forKey: "c"))
        let p = try #require(try db.objects(R7CParent.self).first)
        #expect(try db.delete(p))
        #expect(c.pa == nil && c.pb == nil && !c.isDeleted)
    }

    /// Guard: the rebuild adding a foreign key to a table others point at: existing rows that violate it
    /// stop it with nothing changed; once fixed, the rebuild keeps rows, index, view, trigger and the
    /// other table's foreign key, with foreign keys on again after.
    @Test func aRebuildOfAReferencedTableAddingAForeignKey() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE shop_author (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE shop_book (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', author INTEGER);
            CREATE TABLE shop_review (id INTEGER PRIMARY KEY, book INTEGER REFERENCES shop_book (id) ON DELETE CASCADE);
            CREATE INDEX shop_book_title ON shop_book (title);
            CREATE VIEW shop_titles AS SELECT b.title, a.name FROM shop_book b LEFT JOIN shop_author a ON a.id = b.author;
            CREATE TRIGGER shop_book_log AFTER DELETE ON shop_book BEGIN INSERT INTO shop_log VALUES (old.id); END;
            CREATE TABLE shop_log (book INTEGER);
            INSERT INTO shop_author VALUES (1, 'Ada');
            INSERT INTO shop_book VALUES (1, 'T1', 1), (2, 'T2', 7);
            INSERT INTO shop_review VALUES (1, 1), (2, 2);
            """)
        let review = try db.rows("SELECT * FROM shop_review").map(\.values)
        let error = try #require(throws: SchemaError.self) { try db.syncSchema(R7RebuiltBook.self) }
        #expect(error.found.contains("(shop_book, 2, shop_author, author)") && error.remedy.contains("nothing changed"))
        #expect(try db.rows("SELECT * FROM shop_review").map(\.values) == review)
        #expect(try db.rows("PRAGMA foreign_key_list(shop_book)").isEmpty)
        #expect(try db.value(Int64.self, "PRAGMA foreign_keys") == 1)
        try db.execute("UPDATE shop_book SET author = NULL WHERE id = 2")
        try db.syncSchema(R7RebuiltBook.self)
        #expect(try db.value(Int64.self, "PRAGMA foreign_keys") == 1)
        #expect(try db.rows("PRAGMA foreign_key_list(shop_review)").first?["table"] == .text("shop_book"))
        #expect(try db.rows("SELECT * FROM shop_titles").map(\.values) == [[.text("T1"), .text("Ada")], [.text("T2"), .null]])
        #expect(try db.column(String.self, "SELECT name FROM sqlite_master ORDER BY name")
                == ["shop_author", "shop_book", "shop_book_log", "shop_book_title", "shop_log", "shop_review", "shop_titles"])
        #expect(try db.rows("SELECT id, book FROM shop_review ORDER BY id").map(\.values) == [[.integer(1), .integer(1)], [.integer(2), .integer(2)]])
        let book = try #require(try db.object(R7RebuiltBook.self, forKey: 1))
        let author = try #require(book.author)
        #expect(try db.delete(author))
        #expect(book.isDeleted)
        #expect(try db.rows("SELECT id, book FROM shop_review").map(\.values) == [[.integer(2), .integer(2)]])
        #expect(try db.column(Int64.self, "SELECT book FROM shop_log") == [1])
    }
}

// MARK: A refused delete names what holds the row

private final class R7Label: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R7Record: Model {
    var id: Int64 = 0
    @Reference(onDelete: .cascade) var label: R7Label?
    required init() {}
}

private final class R7Side: Model {
    var id: Int64 = 0
    @Reference(onDelete: .cascade) var record: R7Record?
    required init() {}
}

private final class R7Loan: Model {
    var id: Int64 = 0
    @Reference(onDelete: .restrict) var side: R7Side?
    required init() {}
}

extension Review7ForeignKeyTests {
    /// Two labels; the first held by a loan two cascades down (label <- record <- side, CASCADE; side <- loan, RESTRICT).
    private func heldLabel(_ db: Database) throws -> (label: R7Label, other: R7Label, record: R7Record, side: R7Side, loan: R7Loan) {
        let label = R7Label(); label.name = "L"
        let other = R7Label(); other.name = "O"
        try db.save([label, other])
        let record = R7Record(); record.label = label
        try db.save(record)
        let side = R7Side(); side.record = record
        try db.save(side)
        let loan = R7Loan(); loan.side = side
        try db.save(loan)
        return (label, other, record, side, loan)
    }

    /// A delete refused by RESTRICT two cascades down threw only SQLite's "FOREIGN KEY constraint failed":
    /// neither the key nor what held it. Now the message names the model, key and the holding rows; nothing
    /// changes, in or out of a transaction.
    @Test func aRefusedDeleteNamesTheModelKeyAndTheRowsThatHoldIt() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let (label, other, record, side, loan) = try heldLabel(db)
        let error = try #require(throws: DatabaseError.self) { try db.delete(label) }
        #expect(error.code.primary == .constraint)
        #expect(error.message == #"FOREIGN KEY constraint failed: deleting R7Label (key integer 1), still referenced by 1 row(s) of "R7Loan" through (side) ON DELETE RESTRICT (below rows of "R7Side" the delete would cascade to). Delete or repoint those rows first, or declare the reference with onDelete: .cascade or .setNull"#)
        #expect(error.sql == #"DELETE FROM "R7Label" WHERE "id" = ?"#)
        #expect(!label.isDeleted && !record.isDeleted && !side.isDeleted && !loan.isDeleted)
        #expect(try db.count(R7Side.self) == 1 && db.count(R7Record.self) == 1)
        try db.transaction {
            #expect(try db.delete(other))
            let again = try #require(throws: DatabaseError.self) { try db.delete(side) }
            #expect(again.message.hasPrefix(#"FOREIGN KEY constraint failed: deleting R7Side (key integer 1), still referenced by 1 row(s) of "R7Loan" through (side) ON DELETE RESTRICT."#))
            #expect(!side.isDeleted && other.isDeleted)
        }
        #expect(try db.column(String.self, "SELECT name FROM R7Label") == ["L"])
        #expect(try db.delete(loan) && db.delete(label))
        #expect(record.isDeleted && side.isDeleted)
    }

    /// `deleteAll` refused by the same RESTRICT kept SQLite's bare "FOREIGN KEY constraint failed". It now
    /// names the rows it was deleting (its clause) and what holds them, whether the clause is text with
    /// arguments (a list spread), a key-path condition or absent; nothing is deleted.
    @Test func aRefusedDeleteAllNamesItsClauseAndTheRowsThatHoldThem() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let (label, other, record, side, _) = try heldLabel(db)
        let holder = #"still referenced by 1 row(s) of "R7Loan" through (side) ON DELETE RESTRICT (below rows of "R7Side" the delete would cascade to)."#

        let text = try #require(throws: DatabaseError.self) { try db.deleteAll(R7Label.self, where: "name IN (?)", arguments: [["L", "O"]]) }
        #expect(text.code.primary == .constraint)
        #expect(text.message.hasPrefix("FOREIGN KEY constraint failed: deleting rows of R7Label (WHERE name IN (?, ?)), " + holder))
        #expect(text.sql == #"DELETE FROM "R7Label" WHERE name IN (?, ?)"#)
        let keyPath = try #require(throws: DatabaseError.self) { try db.deleteAll(R7Label.self, where: \.name == "L") }
        #expect(keyPath.message.contains("deleting rows of R7Label (WHERE"))
        #expect(keyPath.message.contains(holder))
        let all = try #require(throws: DatabaseError.self) { try db.deleteAll(R7Label.self) }
        #expect(all.message.hasPrefix("FOREIGN KEY constraint failed: deleting rows of R7Label, " + holder))
        #expect(try db.count(R7Label.self) == 2 && db.count(R7Side.self) == 1)
        #expect(!label.isDeleted && !other.isDeleted && !record.isDeleted && !side.isDeleted)

        // A clause over rows nothing holds deletes them; the error is only for what is held.
        #expect(try db.deleteAll(R7Label.self, where: "name = ?", "O") == 1)
        #expect(other.isDeleted && !label.isDeleted)
    }

    /// The same for another tool's deferred key: the delete's own COMMIT fails, and says why.
    @Test func aDeleteRefusedByADeferredKeyAtItsCommitNamesTheRows() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try django(db)
        let ada = try #require(try db.object(R7Artist.self, forKey: 1))
        let error = try #require(throws: DatabaseError.self) { try db.delete(ada) }
        #expect(error.code == .constraintForeignKey)
        #expect(error.message.hasPrefix(#"FOREIGN KEY constraint failed: deleting R7Artist (key integer 1), still referenced by 1 row(s) of "music_album" through (artist_id) ON DELETE NO ACTION."#))
        #expect(!ada.isDeleted && !db.isInTransaction)
        #expect(try db.count(R7Artist.self) == 1)
    }
}

// MARK: Rollbacks of WITHOUT ROWID cascades, SET NULL into a non-optional property, cycles

private final class R7CycleA: Model {
    static let primaryKey = "code"
    var code = ""
    @Reference var b: R7CycleB?
    required init() {}
}

private final class R7CycleB: Model {
    var id: Int64 = 0
    @Reference var a: R7CycleA?
    required init() {}
}

private final class R7Plain: Model {
    static let tableName = "R7Plain"
    var id: Int64 = 0
    var owner: Int64 = 0
    required init() {}
}

extension Review7ForeignKeyTests {
    /// Guard for the fix above: the WITHOUT ROWID tree's cascade undone by a savepoint rollback and by a
    /// whole-transaction rollback brings back the subtree and its loaded arrays.
    @Test func aRolledBackWithoutRowIDTreeCascadeRestoresTheSubtree() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try folders(db)
        let root = try #require(try db.object(R7Folder.self, forKey: "root"))
        #expect(root.children.map(\.code) == ["a", "b"])
        let a = root.children[0]
        #expect(a.children.map(\.code) == ["a1"])
        let a1 = a.children[0]
        struct Undo: Error {}
        try db.transaction {
            try? db.transaction {
                try db.delete(a)
                #expect(a1.isDeleted && root.children.map(\.code) == ["b"])
                throw Undo()
            }
            #expect(!a.isDeleted && !a1.isDeleted)
            #expect(root.children.map(\.code) == ["a", "b"] && root.children.first === a)
            #expect(a.children.first === a1)
        }
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(root)
                #expect(a.isDeleted && a1.isDeleted)
                throw Undo()
            }
        }
        #expect(!root.isDeleted && !a.isDeleted && !a1.isDeleted && a.children.first === a1)
        #expect(try db.count(R7Folder.self) == 5)
    }

    /// Guard: SET NULL into a column a non-optional property maps: the live instance keeps its value and
    /// is stale (a save or a fetch of it throws, naming the property), never silently 0.
    @Test func setNullIntoANonOptionalPropertyMakesTheInstanceStale() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE R7Owner (id INTEGER PRIMARY KEY);
            CREATE TABLE R7Plain (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES R7Owner (id) ON DELETE SET NULL);
            INSERT INTO R7Owner VALUES (1); INSERT INTO R7Plain VALUES (1, 1);
            """)
        let plain = try #require(try db.object(R7Plain.self, forKey: 1))
        try db.execute("DELETE FROM R7Owner")
        #expect(plain.owner == 1 && !plain.isDeleted)
        plain.owner = 5
        let error = try #require(throws: ModelError.self) { try db.save(plain) }
        #expect(error.kind == .stale && error.property == "owner")
        #expect(throws: ModelError.self) { try db.object(R7Plain.self, forKey: 1) }
        #expect(try db.rows("SELECT owner FROM R7Plain").map(\.values) == [[.null]])
    }

    /// Guard for the fix above: a cascade that comes back into the writer's WITHOUT ROWID table through a
    /// rowid table (A -> B -> A) reaches the A instances it deleted.
    @Test func aCascadeCycleBackIntoAWithoutRowIDTableReachesItsInstances() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE R7CycleA (code TEXT PRIMARY KEY NOT NULL, b INTEGER REFERENCES R7CycleB (id) ON DELETE CASCADE) WITHOUT ROWID;
            CREATE TABLE R7CycleB (id INTEGER PRIMARY KEY, a TEXT REFERENCES R7CycleA (code) ON DELETE CASCADE);
            INSERT INTO R7CycleA VALUES ('x', NULL); INSERT INTO R7CycleB VALUES (1, 'x');
            INSERT INTO R7CycleA VALUES ('y', 1), ('z', NULL);
            """)
        let x = try #require(try db.object(R7CycleA.self, forKey: "x"))
        let y = try #require(try db.object(R7CycleA.self, forKey: "y"))
        let z = try #require(try db.object(R7CycleA.self, forKey: "z"))
        let b = try #require(try db.object(R7CycleB.self, forKey: 1))
        #expect(try db.delete(x))
        #expect(b.isDeleted && y.isDeleted && !z.isDeleted)
        #expect(try db.column(String.self, "SELECT code FROM R7CycleA") == ["z"])
    }
}
