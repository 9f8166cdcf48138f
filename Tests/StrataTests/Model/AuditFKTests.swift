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
        try pool.blocking.write { db in _ = try library(db) }
        let ok = try pool.blocking.write { db -> Bool in
            let track = try #require(try db.object(AXTrack.self, forKey: 1))
            let album = try #require(track.album)
            let ada = try #require(album.artist)
            try db.delete(ada)
            return album.isDeleted && track.isDeleted
        }
        #expect(ok)
        #expect(try pool.blocking.read { db in try db.count(AXTrack.self) } == 0)
        #expect(try pool.blocking.read { db in try db.value(Int64.self, "PRAGMA foreign_keys") } == 1)
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
            try pool.blocking.write { db in
                let album = try #require(try db.object(AXDjAlbum.self, forKey: 1))
                try db.delete(try #require(album.artist))
            }
        }
        #expect(try pool.blocking.read { db in try db.count(AXDjArtist.self) } == 1)
        let fine = try pool.blocking.write { db -> Bool in
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
    try db.execute(djangoBlogSQL)
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

// MARK: Prefetch probes

extension AuditFKTests {
    @Test func prefetchMixedDepthIsOneQueryPerLevel() throws {
        let db = try Database()
        let (ada, bob, album, track) = try library(db)
        _ = (ada, bob, album, track)
        let lonely = AXArtist(); lonely.name = "Lonely"
        try db.save(lonely)
        let db2 = try Database()   // unused
        _ = db2
        let fresh = try Database()
        _ = fresh
        // read in a new handle of the same memory? use a file instead
        let temp = try TemporaryDatabase()
        _ = try library(temp.db)
        let l2 = AXArtist(); l2.name = "Lonely"; try temp.db.save(l2)
        let db3 = try temp.reopen()
        let log = StatementLog(db3)
        let artists = try db3.objects(AXArtist.self, where: "ORDER BY id", prefetching: ["albums", "albums.tracks", "albums.tracks.featured", "albums.artist"])
        let n = log.count
        #expect(artists.map { $0.albums.count } == [1, 0, 0])
        #expect(artists[0].albums[0].tracks.first?.featured?.name == "Bob")
        #expect(artists[0].albums[0].artist === artists[0])
        #expect(log.count == n)
    }

    @Test func prefetchOfMoreTextKeysThanTheVariableLimit() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE RCountry (code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE RCity (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', country TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO RCountry SELECT 'c' || i, 'n' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO RCity SELECT i, 'x', CASE WHEN i % 10 = 0 THEN 'none' || i ELSE 'c' || i END FROM n;
            """)
        let log = StatementLog(db)
        let cities = try db.objects(RCity.self, where: "ORDER BY id", prefetching: ["country"])
        let n = log.count
        #expect(cities.filter { $0.country != nil }.count == 36000)
        #expect(cities[0].country?.name == "n1")
        #expect(log.count == n)
    }

}

private final class APArtist: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "artist", orderBy: "title") var albums: [APAlbum]
    required init() {}
}

private final class APAlbum: Model {
    var id: Int64 = 0
    var title = ""
    @Reference var artist: APArtist?
    @Children(by: "album") var tracks: [APTrack]
    required init() {}
}

private final class APTrack: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var album: APAlbum?
    @Reference var featured: APArtist?
    required init() {}
}

private func plainMusic(_ db: Database, titles: String = "TEXT NOT NULL DEFAULT ''") throws {
    try db.execute("""
        CREATE TABLE APArtist (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
        CREATE TABLE APAlbum (id INTEGER PRIMARY KEY, title \(titles), artist INTEGER);
        CREATE TABLE APTrack (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', album INTEGER, featured INTEGER);
        INSERT INTO APArtist VALUES (1, 'Ada'), (2, 'Bob');
        INSERT INTO APAlbum VALUES (1, 'A', 99), (2, 'B', 1);
        INSERT INTO APTrack VALUES (1, 't', 1, 77), (2, 'u', 5, NULL), (3, 'v', 2, 2);
        """)
}

extension AuditFKTests {
    @Test func prefetchOfEmptyResultsAndKeysWithNoRow() throws {
        let db = try Database()
        try plainMusic(db)
        let none = try db.objects(APArtist.self, where: "WHERE id > 5", prefetching: ["albums.tracks.featured"])
        #expect(none.isEmpty)
        let log = StatementLog(db)
        let tracks = try db.objects(APTrack.self, where: "ORDER BY id", prefetching: ["album.artist", "featured"])
        let n = log.count
        #expect(tracks[0].album?.title == "A" && tracks[0].album?.artist == nil && tracks[0].featured == nil)
        #expect(tracks[1].album == nil)
        #expect(tracks[2].album?.artist?.name == "Ada" && tracks[2].featured?.name == "Bob")
        #expect(log.count == n)
        #expect(throws: ModelError.self) { try tracks[0].$featured.load() }
    }

    @Test func relationshipLoadsOfAWrongTypeThrow() throws {
        let db = try Database()
        try plainMusic(db, titles: "TEXT")
        try db.execute("UPDATE APAlbum SET title = NULL WHERE id = 2")
        let artist = try #require(try db.object(APArtist.self, forKey: 1))
        #expect(throws: (any Error).self) { try artist.$albums.load() }
        #expect(throws: (any Error).self) { try db.prefetch("albums", of: [artist]) }
        let track = try #require(try db.object(APTrack.self, forKey: 3))
        #expect(throws: (any Error).self) { try track.$album.load() }
        #expect(throws: (any Error).self) { try db.prefetch("album", of: [track]) }
        let tracks = try db.objects(APTrack.self)
        #expect(throws: (any Error).self) { try db.prefetch("album", of: tracks) }
    }

    @Test func relationshipLoadsOfARecreatedTableOrAClosedHandleThrow() throws {
        let db = try Database()
        try plainMusic(db)
        let tracks = try db.objects(APTrack.self)
        let artists = try db.objects(APArtist.self)
        try db.execute("DROP TABLE APAlbum; CREATE TABLE APAlbum (id INTEGER PRIMARY KEY, title BLOB, artist REAL); INSERT INTO APAlbum VALUES (1, x'00', 1.5)")
        #expect(throws: (any Error).self) { try db.prefetch("album", of: tracks) }
        #expect(throws: (any Error).self) { try tracks[2].$album.load() }
        #expect(throws: (any Error).self) { try db.prefetch("albums", of: artists) }
        #expect(throws: (any Error).self) { try artists[0].$albums.load() }
        try db.close()
        #expect(throws: (any Error).self) { try db.prefetch("featured", of: tracks) }
        #expect(throws: (any Error).self) { try artists[0].$albums.load() }
        #expect(throws: (any Error).self) { try db.prefetch("albums", of: artists) }
    }
}


// MARK: Deleted objects in loaded to-many arrays

private final class AXLinkPost: Model {
    static let tableName = "post"
    var id: Int64 = 0
    @Siblings(through: "post_tag", from: "post_id", to: "tag_id") var tags: [AXLinkTag]
    required init() {}
}

private final class AXLinkTag: Model {
    static let tableName = "tag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

extension AuditFKTests {
    @Test func aCascadedChildLeavesItsParentsLoadedArray() throws {
        let db = try Database()
        let (ada, _, album, track) = try library(db)
        #expect(ada.albums.map(\.title) == ["A"] && album.tracks.map(\.name) == ["t"])
        try db.delete(ada)
        #expect(album.isDeleted && track.isDeleted)
        #expect(ada.albums.isEmpty && album.tracks.isEmpty)
    }

    @Test func aDeletedChildLeavesItsParentsLoadedArrayAndARollbackBringsItBack() throws {
        let db = try Database()
        let (ada, _, album, _) = try library(db)
        let second = AXAlbum(); second.title = "B"; second.artist = ada
        try db.save(second)
        #expect(try ada.$albums.reload().map(\.title) == ["A", "B"])
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(album)
                #expect(ada.albums.map(\.title) == ["B"])
                throw Undo()
            }
        }
        #expect(ada.albums.map(\.title) == ["A", "B"] && ada.albums.first === album)
        try db.execute("DELETE FROM AXAlbum WHERE title = 'B'")
        #expect(ada.albums.map(\.title) == ["A"])
    }

    @Test func aDeletedTargetLeavesALoadedSiblingsArray() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE post (id INTEGER PRIMARY KEY);
            CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE post_tag (post_id INTEGER NOT NULL REFERENCES post (id) ON DELETE CASCADE,
                tag_id INTEGER NOT NULL REFERENCES tag (id) ON DELETE CASCADE, PRIMARY KEY (post_id, tag_id));
            INSERT INTO post VALUES (1); INSERT INTO tag VALUES (1, 'swift'), (2, 'orm');
            INSERT INTO post_tag VALUES (1, 1), (1, 2);
            """)
        let post = try #require(try db.object(AXLinkPost.self, forKey: 1))
        #expect(post.tags.map(\.name) == ["swift", "orm"])
        let orm = post.tags[1]
        try db.delete(orm)
        #expect(post.tags.map(\.name) == ["swift"])
        // Linking a deleted object says so (not "save it first").
        let error = #expect(throws: ModelError.self) { try post.$tags.add(orm) }
        #expect(error?.kind == .deleted)
        #expect(try db.value(Int.self, "SELECT count(*) FROM post_tag") == 1)
        try db.execute("DELETE FROM tag WHERE id = 1")
        #expect(post.tags.isEmpty)
        #expect(try post.$tags.reload().isEmpty)
    }
}
