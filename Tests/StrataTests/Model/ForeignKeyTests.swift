import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Foreign keys: declared on references (ON DELETE CASCADE / SET NULL / RESTRICT), and other tools' ones.

private final class FKArtist: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class FKAlbum: Model {
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var artist: FKArtist?
    @Reference(onDelete: .setNull) var producer: FKArtist?
    required init() {}
}

private final class FKTrack: Model {
    var id: Int64 = 0
    @Reference(onDelete: .restrict) var album: FKAlbum?
    required init() {}
}

@Suite struct ForeignKeyTests {
    @Test func aNewTableCarriesTheDeclaredForeignKeys() throws {
        let db = try Database()
        try db.syncSchema(FKAlbum.self)
        let sql = try #require(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'FKAlbum'"))
        #expect(sql.contains(#""artist" INTEGER REFERENCES "FKArtist" ("id") ON DELETE CASCADE"#))
        #expect(sql.contains(#""producer" INTEGER REFERENCES "FKArtist" ("id") ON DELETE SET NULL"#))
        #expect(try db.syncSchema(FKAlbum.self).isEmpty)
        #expect(try db.rows("PRAGMA foreign_key_list(FKAlbum)").count == 2)
    }

    @Test func liveInstancesFollowCascadesAndSetNull() throws {
        let db = try Database()
        let ada = FKArtist(); ada.name = "Ada"
        let bob = FKArtist(); bob.name = "Bob"
        try db.save([ada, bob])
        let album = FKAlbum(); album.title = "A"; album.artist = ada; album.producer = bob
        let other = FKAlbum(); other.title = "B"; other.artist = bob; other.producer = bob
        try db.save([album, other])
        #expect(try db.delete(ada))
        #expect(album.isDeleted)                         // cascaded
        #expect(try db.count(FKAlbum.self) == 1)
        #expect(try db.delete(bob))
        #expect(other.isDeleted)
        let kept = FKAlbum(); kept.title = "C"
        try db.save(kept)
        let carol = FKArtist(); carol.name = "Carol"
        try db.save(carol)
        kept.producer = carol
        try db.save(kept)
        #expect(try db.delete(carol))
        #expect(try db.rows("SELECT producer FROM FKAlbum WHERE id = ?", arguments: [kept.id]).first?.values == [.null])
        #expect(!kept.isDeleted && kept.producer == nil && kept.$producer.key == .null)   // SET NULL reached the instance
    }

    @Test func restrictRefusesTheDeleteAndChangesNothing() throws {
        let db = try Database()
        let album = FKAlbum(); album.title = "A"
        try db.save(album)
        let track = FKTrack(); track.album = album
        try db.save(track)
        let error = try #require(throws: DatabaseError.self) { try db.delete(album) }
        #expect(error.code.primary == .constraint && error.message.contains("FOREIGN KEY constraint failed"))
        #expect(!album.isDeleted && track.album === album)
        #expect(try db.count(FKAlbum.self) == 1)
    }
}

private final class FKAlbumRebuilt: Model {
    static let tableName = "FKAlbum"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var artist: FKArtist?
    required init() {}
}

private final class FKAlbumNoOptIn: Model {
    static let tableName = "FKAlbum"
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var artist: FKArtist?
    required init() {}
}

/// Django's tables: `artist_id` REFERENCES ... DEFERRABLE INITIALLY DEFERRED.
private final class DjArtist: Model {
    static let tableName = "music_artist"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class DjAlbum: Model {
    static let tableName = "music_album"
    var id: Int64 = 0
    var title = ""
    @Reference var artist: DjArtist?
    required init() {}
}

extension ForeignKeyTests {
    @Test func anExistingTableGetsTheForeignKeyOnlyByTheOptInRebuild() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE FKArtist (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE FKAlbum (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', artist INTEGER);
            INSERT INTO FKArtist VALUES (1, 'Ada'); INSERT INTO FKAlbum VALUES (1, 'A', 1), (2, 'B', NULL);
            """)
        let refused = try #require(throws: SchemaError.self) { try db.schemaPlan(for: FKAlbumNoOptIn.self) }
        #expect(refused.column == "artist" && refused.remedy.contains("SchemaRebuild.whenNeeded"))
        let plan = try db.schemaPlan(for: FKAlbumRebuilt.self)
        #expect(plan.rebuildsTable && plan.steps.contains { $0.sql.contains(#"REFERENCES "FKArtist" ("id") ON DELETE CASCADE"#) })
        try db.syncSchema(FKAlbumRebuilt.self)
        #expect(try db.rows("PRAGMA foreign_key_list(FKAlbum)").first?["on_delete"] == .text("CASCADE"))
        #expect(try db.column(String.self, "SELECT title FROM FKAlbum ORDER BY id") == ["A", "B"])
        #expect(try db.syncSchema(FKAlbumRebuilt.self).isEmpty)
        let album = try #require(try db.object(FKAlbumRebuilt.self, forKey: 1))
        try db.execute("DELETE FROM FKArtist WHERE id = 1")
        #expect(album.isDeleted)
    }

    @Test func aDeferredViolationFailsTheCommitAndLeavesNothingBehind() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE "music_artist" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(100) NOT NULL);
            CREATE TABLE "music_album" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL,
                "artist_id" integer NOT NULL REFERENCES "music_artist" ("id") DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO music_artist VALUES (1, 'Ada'); INSERT INTO music_album VALUES (1, 'A', 1);
            """)
        let album = try #require(try db.object(DjAlbum.self, forKey: 1))
        let ada = try #require(album.artist)
        #expect(throws: DatabaseError.self) {
            try db.transaction {
                let deleted = try db.delete(ada)         // allowed for now: the check is deferred to COMMIT
                #expect(deleted && ada.isDeleted)
            }
        }
        // The commit failed: everything rolled back, the live instances match the rows again.
        #expect(!ada.isDeleted && album.artist === ada)
        #expect(try db.count(DjArtist.self) == 1 && db.count(DjAlbum.self) == 1)
        #expect(!db.isInTransaction)
    }
}
