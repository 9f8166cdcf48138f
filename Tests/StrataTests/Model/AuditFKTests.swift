import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Second reader's audit of issue 11: foreign keys, many-to-many, prefetch, failing loads.

private final class AXArtist: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "artist", orderBy: "title") var albums: [AXAlbum]
    required init() {}
}

private final class AXAlbum: Model {
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var artist: AXArtist?
    @Children(by: "album") var tracks: [AXTrack]
    required init() {}
}

private final class AXTrack: Model {
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .cascade) var album: AXAlbum?
    @Reference(onDelete: .setNull) var featured: AXArtist?
    required init() {}
}

private final class AXNote: Model {
    var id: Int64 = 0
    @Reference(onDelete: .restrict) var track: AXTrack?
    required init() {}
}

private func library(_ db: Database) throws -> (AXArtist, AXArtist, AXAlbum, AXTrack) {
    let ada = AXArtist(); ada.name = "Ada"
    let bob = AXArtist(); bob.name = "Bob"
    try db.save([ada, bob])
    let album = AXAlbum(); album.title = "A"; album.artist = ada
    try db.save(album)
    let track = AXTrack(); track.name = "t"; track.album = album; track.featured = bob
    try db.save(track)
    try db.syncSchema(AXNote.self)
    return (ada, bob, album, track)
}

@Suite struct AuditFKTests {
    @Test func aTwoLevelCascadeReachesLiveInstances() throws {
        let db = try Database()
        let (ada, _, album, track) = try library(db)
        #expect(try db.delete(ada))
        #expect(album.isDeleted && track.isDeleted)
        #expect(try db.count(AXTrack.self) == 0)
    }

    @Test func aTwoLevelCascadeByRawSQLReachesLiveInstances() throws {
        let db = try Database()
        let (ada, _, album, track) = try library(db)
        try db.execute("DELETE FROM AXArtist WHERE id = ?", ada.id)
        #expect(ada.isDeleted && album.isDeleted && track.isDeleted)
    }

    @Test func aRolledBackCascadeRestoresLiveInstances() throws {
        let db = try Database()
        let (ada, bob, album, track) = try library(db)
        #expect(track.featured === bob)
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(ada)
                try db.delete(bob)
                #expect(album.isDeleted && track.isDeleted)
                throw Undo()
            }
        }
        #expect(!ada.isDeleted && !bob.isDeleted && !album.isDeleted && !track.isDeleted)
        #expect(track.album === album && album.artist === ada && track.featured === bob)
        #expect(try db.count(AXTrack.self) == 1)
    }

    @Test func aRolledBackSavepointCascadeRestoresLiveInstances() throws {
        let db = try Database()
        let (ada, bob, album, track) = try library(db)
        struct Undo: Error {}
        try db.transaction {
            try? db.transaction {
                try db.delete(ada)
                try db.delete(bob)
                throw Undo()
            }
            #expect(!ada.isDeleted && !album.isDeleted && !track.isDeleted)
            #expect(track.featured === bob && track.$featured.key == .integer(bob.id))
        }
        #expect(!ada.isDeleted && !album.isDeleted && !track.isDeleted && track.featured === bob)
    }

    @Test func setNullOnAResolvedTarget() throws {
        let db = try Database()
        _ = try library(db)
        let track = try #require(try db.object(AXTrack.self, forKey: 1))
        let bob = try #require(track.featured)          // resolved by a fault
        try db.delete(bob)
        #expect(track.featured == nil && track.$featured.key == .null && !track.isDeleted)
        #expect(try db.value(Int64.self, "SELECT count(*) FROM AXTrack WHERE featured IS NULL") == 1)
    }

    @Test func restrictTwoLevelsDownChangesNothing() throws {
        let db = try Database()
        let (ada, _, album, track) = try library(db)
        let note = AXNote(); note.track = track
        try db.save(note)
        let error = try #require(throws: DatabaseError.self) { try db.delete(ada) }
        #expect(error.code.primary == .constraint)
        #expect(!ada.isDeleted && !album.isDeleted && !track.isDeleted && !note.isDeleted)
        #expect(note.track === track && track.album === album && album.artist === ada)
        #expect(try db.count(AXAlbum.self) == 1 && db.count(AXTrack.self) == 1)
        // The same inside a transaction that goes on.
        try db.transaction {
            #expect(throws: DatabaseError.self) { try db.delete(ada) }
            #expect(!ada.isDeleted && !album.isDeleted && !track.isDeleted)
        }
        #expect(!ada.isDeleted && !album.isDeleted && !track.isDeleted)
        // Raw SQL too.
        #expect(throws: DatabaseError.self) { try db.execute("DELETE FROM AXArtist") }
        #expect(!ada.isDeleted && !album.isDeleted && !track.isDeleted)
    }

    @Test func aPoolFollowsCascades() throws {
        let temp = try TemporaryDatabase()
        let path = temp.path
        try temp.db.close()
        let pool = try DatabasePool(path: path, readers: 2)
        try pool.write { db in _ = try library(db) }
        let ok = try pool.write { db -> Bool in
            let track = try #require(try db.object(AXTrack.self, forKey: 1))
            let album = try #require(track.album)
            let ada = try #require(album.artist)
            try db.delete(ada)
            return album.isDeleted && track.isDeleted
        }
        #expect(ok)
        #expect(try pool.read { db in try db.count(AXTrack.self) } == 0)
        #expect(try pool.read { db in try db.value(Int64.self, "PRAGMA foreign_keys") } == 1)
    }
}

// MARK: Django's deferred foreign keys

private final class AXDjArtist: Model {
    static let tableName = "music_artist"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class AXDjAlbum: Model {
    static let tableName = "music_album"
    var id: Int64 = 0
    var title = ""
    @Reference var artist: AXDjArtist?
    required init() {}
}

private func djangoMusic(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE "music_artist" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(100) NOT NULL);
        CREATE TABLE "music_album" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL,
            "artist_id" integer NOT NULL REFERENCES "music_artist" ("id") DEFERRABLE INITIALLY DEFERRED);
        INSERT INTO music_artist VALUES (1, 'Ada'); INSERT INTO music_album VALUES (1, 'A', 1);
        """)
}

extension AuditFKTests {
    @Test func aDeferredViolationOutsideATransactionFailsTheDelete() throws {
        let db = try Database()
        try djangoMusic(db)
        let album = try #require(try db.object(AXDjAlbum.self, forKey: 1))
        let ada = try #require(album.artist)
        #expect(throws: DatabaseError.self) { try db.delete(ada) }
        #expect(!ada.isDeleted && album.artist === ada)
        #expect(try db.count(AXDjArtist.self) == 1)
        #expect(!db.isInTransaction)
    }

    @Test func aDeferredViolationOfAnInsertUndoesTheInsert() throws {
        let db = try Database()
        try djangoMusic(db)
        let ghost = AXDjArtist(); ghost.name = "ghost"
        let album = AXDjAlbum(); album.title = "B"
        #expect(throws: DatabaseError.self) {
            try db.transaction {
                try db.save(ghost)
                album.artist = ghost
                try db.save(album)
                try db.execute("DELETE FROM music_artist WHERE id = ?", ghost.id)
            }
        }
        #expect(!album.isPersisted && album.id == 0 && !ghost.isPersisted && ghost.id == 0)
        #expect(try db.count(AXDjAlbum.self) == 1 && db.count(AXDjArtist.self) == 1)
        // Saved again, both work.
        try db.save(ghost)
        album.artist = ghost
        try db.save(album)
        #expect(try db.count(AXDjAlbum.self) == 2)
    }

    @Test func aDeferredViolationOfARawCommitThenRollback() throws {
        let db = try Database()
        try djangoMusic(db)
        let album = try #require(try db.object(AXDjAlbum.self, forKey: 1))
        let ada = try #require(album.artist)
        #expect(throws: DatabaseError.self) { try db.execute("BEGIN; DELETE FROM music_artist WHERE id = 1; COMMIT") }
        // SQLite keeps the transaction open after a COMMIT that failed on a deferred constraint.
        if db.isInTransaction {
            #expect(ada.isDeleted)
            try db.execute("ROLLBACK")
        }
        #expect(!db.isInTransaction)
        #expect(!ada.isDeleted && album.artist === ada)
    }

    @Test func aDeferredViolationInAPoolWrite() throws {
        let temp = try TemporaryDatabase()
        try djangoMusic(temp.db)
        let path = temp.path
        try temp.db.close()
        let pool = try DatabasePool(path: path, readers: 1)
        #expect(throws: DatabaseError.self) {
            try pool.write { db in
                let album = try #require(try db.object(AXDjAlbum.self, forKey: 1))
                try db.delete(try #require(album.artist))
            }
        }
        #expect(try pool.read { db in try db.count(AXDjArtist.self) } == 1)
        let fine = try pool.write { db -> Bool in
            let album = try #require(try db.object(AXDjAlbum.self, forKey: 1))
            return album.artist?.name == "Ada" && !db.isInTransaction == false
        }
        #expect(fine)
    }
}

// MARK: WITHOUT ROWID leaf two levels down

private final class AXShelf: Model {
    var id: Int64 = 0
    required init() {}
}

private final class AXBox: Model {
    var id: Int64 = 0
    @Reference var shelf: AXShelf?
    required init() {}
}

private final class AXItem: Model {
    static let primaryKey = "code"
    var code = ""
    @Reference var box: AXBox?
    required init() {}
}

extension AuditFKTests {
    @Test func aCascadeIntoAWithoutRowIDTableTwoLevelsDown() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE AXShelf (id INTEGER PRIMARY KEY);
            CREATE TABLE AXBox (id INTEGER PRIMARY KEY, shelf INTEGER REFERENCES AXShelf (id) ON DELETE CASCADE);
            CREATE TABLE AXItem (code TEXT PRIMARY KEY NOT NULL, box INTEGER REFERENCES AXBox (id) ON DELETE CASCADE) WITHOUT ROWID;
            INSERT INTO AXShelf VALUES (1); INSERT INTO AXBox VALUES (1, 1); INSERT INTO AXItem VALUES ('a', 1);
            """)
        let item = try #require(try db.object(AXItem.self, forKey: "a"))
        let box = try #require(item.box)
        let shelf = try #require(box.shelf)
        #expect(try db.delete(shelf))
        #expect(box.isDeleted)
        #expect(try db.count(AXItem.self) == 0)
        #expect(item.isDeleted)
    }
}

// MARK: Many-to-many

private final class AXPost: Model {
    static let tableName = "blog_post"
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id") var tags: [AXTag]
    required init() {}
}

private final class AXTag: Model {
    static let tableName = "blog_tag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private func blog(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE "blog_post" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL);
        CREATE TABLE "blog_tag" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(30) NOT NULL);
        CREATE TABLE "blog_post_tags" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
            "post_id" integer NOT NULL REFERENCES "blog_post" ("id") DEFERRABLE INITIALLY DEFERRED,
            "tag_id" integer NOT NULL REFERENCES "blog_tag" ("id") DEFERRABLE INITIALLY DEFERRED);
        CREATE UNIQUE INDEX "blog_post_tags_post_id_tag_id_uniq" ON "blog_post_tags" ("post_id", "tag_id");
        INSERT INTO blog_post (title) VALUES ('one'), ('two'), ('three');
        INSERT INTO blog_tag (name) VALUES ('swift'), ('orm'), ('sqlite');
        INSERT INTO blog_post_tags (post_id, tag_id) VALUES (1, 1), (1, 3), (2, 2);
        """)
}

extension AuditFKTests {
    @Test func anAddRolledBackLeavesNoTargetInTheLoadedArray() throws {
        let db = try Database()
        try blog(db)
        let post = try #require(try db.object(AXPost.self, forKey: 1))
        let orm = try #require(try db.object(AXTag.self, forKey: 2))
        let swift = try #require(try db.object(AXTag.self, forKey: 1))
        #expect(post.tags.map(\.name) == ["swift", "sqlite"])
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try post.$tags.add(orm)
                try post.$tags.remove(swift)
                throw Undo()
            }
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM blog_post_tags WHERE post_id = 1") == 2)
        #expect(post.tags.map(\.name) == ["swift", "sqlite"])
        // A savepoint rolled back inside a transaction that commits.
        try db.transaction {
            try? db.transaction {
                try post.$tags.add(orm)
                #expect(post.tags.map(\.name) == ["swift", "orm", "sqlite"])
                throw Undo()
            }
            #expect(post.tags.map(\.name) == ["swift", "sqlite"])
            try post.$tags.remove(swift)
        }
        #expect(post.tags.map(\.name) == ["sqlite"])
        #expect(try post.$tags.reload().map(\.name) == ["sqlite"])
    }

    @Test func removingATargetNotLinkedChangesNothing() throws {
        let db = try Database()
        try blog(db)
        let post = try #require(try db.object(AXPost.self, forKey: 1))
        let orm = try #require(try db.object(AXTag.self, forKey: 2))
        try post.$tags.remove(orm)
        #expect(post.tags.map(\.name) == ["swift", "sqlite"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM blog_post_tags") == 3)
    }

    @Test func aSiblingsLoadThatFailsThrows() throws {
        let db = try Database()
        try blog(db)
        let post = try #require(try db.object(AXPost.self, forKey: 1))
        try db.execute("DROP TABLE blog_post_tags")
        #expect(throws: (any Error).self) { try post.$tags.load() }
        try db.close()
        #expect(throws: (any Error).self) { try post.$tags.reload() }
    }

    @Test func aReferenceLoadThatFailsThrows() throws {
        let db = try Database()
        let (_, _, _, _) = try library(db)
        let track = try #require(try db.object(AXTrack.self, forKey: 1))
        try db.execute("ALTER TABLE AXArtist RENAME TO gone")
        #expect(throws: (any Error).self) { try track.$featured.load() }
        #expect(throws: (any Error).self) { try track.$album.load()?.$artist.load() }
    }

    @Test func aReferenceLoadOnAClosedHandleThrows() throws {
        let db = try Database()
        _ = try library(db)
        let track = try #require(try db.object(AXTrack.self, forKey: 1))
        try db.close()
        #expect(throws: (any Error).self) { try track.$featured.load() }
        #expect(throws: (any Error).self) { try track.$album.load() }
        #expect(throws: (any Error).self) { try db.prefetch("album", of: [track]) }
    }

    @Test func aReferenceToAColumnOfTheWrongTypeThrows() throws {
        let db = try Database()
        _ = try library(db)
        try db.execute("UPDATE AXArtist SET name = x'00ff' WHERE id = 2")  // a blob where text is expected
        let track = try #require(try db.object(AXTrack.self, forKey: 1))
        #expect(throws: (any Error).self) { try track.$featured.load() }
        #expect(throws: (any Error).self) { try db.prefetch("featured", of: [track]) }
    }
}
