import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// A loaded `@Children` array never shows a child where its row no longer (or now) says: a saved move, a new
// child, a rollback, raw SQL and another connection's commit drop the arrays concerned, which the next
// read loads again (one query each).

private final class CFArtist: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "artist", orderBy: "title") var albums: [CFAlbum]
    required init() {}
}

private final class CFAlbum: Model {
    var id: Int64 = 0
    var title = ""
    @Reference var artist: CFArtist?
    required init() {}
}

/// A parent of children in a WITHOUT ROWID table.
private final class CFSinger: Model {
    static let tableName = "CFArtist"
    var id: Int64 = 0
    var name = ""
    @Children(by: "artist", orderBy: "code") var tracks: [CFTrack]
    required init() {}
}

private final class CFTrack: Model {
    static let primaryKey = "code"
    var code = ""
    @Reference var artist: CFSinger?
    required init() {}
}

/// A parent keyed by text (its former children are found among the live parents, not by key).
private final class CFLabel: Model {
    static let primaryKey = "code"
    var code = ""
    @Children(by: "label", orderBy: "title") var records: [CFRecord]
    required init() {}
}

private final class CFRecord: Model {
    var id: Int64 = 0
    var title = ""
    @Reference var label: CFLabel?
    required init() {}
}

/// Children found by a plain column; the child is all 8-byte numbers (the save's plain-words path).
private final class CFTeam: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "teamID", orderBy: "id") var players: [CFPlayer]
    required init() {}
}

private final class CFPlayer: Model {
    var id: Int64 = 0
    var teamID: Int64 = 0
    var score: Int64 = 0
    required init() {}
}

private func artists(_ db: Database) throws -> (ada: CFArtist, bob: CFArtist, a: CFAlbum, b: CFAlbum) {
    let ada = CFArtist(); ada.name = "Ada"
    let bob = CFArtist(); bob.name = "Bob"
    try db.save([ada, bob])
    let a = CFAlbum(); a.title = "A"; a.artist = ada
    let b = CFAlbum(); b.title = "B"; b.artist = bob
    try db.save([a, b])
    #expect(ada.albums.map(\.title) == ["A"] && bob.albums.map(\.title) == ["B"])
    return (ada, bob, a, b)
}

@Suite struct ChildrenFollowWritesTests {
    @Test func aSavedMoveLeavesTheFormerParentsArrayAndReachesTheNewOne() throws {
        let db = try TestDatabase.make()
        let (ada, bob, a, _) = try artists(db)
        let log = StatementLog(db)
        a.artist = bob
        try db.save(a)
        #expect(!ada.$albums.isLoaded && !bob.$albums.isLoaded)
        let ((former, new), reads) = log.during { (ada.albums.map(\.title), bob.albums.map(\.title)) }
        #expect(former == [] && new == ["A", "B"])
        #expect(reads.count == 2)
        // To no parent at all.
        a.artist = nil
        try db.save(a)
        #expect(bob.albums.map(\.title) == ["B"] && ada.albums.isEmpty)
    }

    @Test func aSavedMoveBetweenTextKeyedParents() throws {
        let db = try TestDatabase.make()
        let x = CFLabel(); x.code = "x"
        let y = CFLabel(); y.code = "y"
        try db.save([x, y])
        let one = CFRecord(); one.title = "one"; one.label = x
        let two = CFRecord(); two.title = "two"; two.label = y
        try db.save([one, two])
        #expect(x.records.map(\.title) == ["one"] && y.records.map(\.title) == ["two"])
        one.label = y
        try db.save(one)
        #expect(x.records.isEmpty && y.records.map(\.title) == ["one", "two"])
    }

    @Test func aSavedMoveByAPlainColumnInAndOutOfATransaction() throws {
        let db = try TestDatabase.make()
        let red = CFTeam(); red.name = "red"
        let blue = CFTeam(); blue.name = "blue"
        try db.save([red, blue])
        let p = CFPlayer(); p.teamID = red.id
        let q = CFPlayer(); q.teamID = blue.id
        try db.save([p, q])
        #expect(red.players.map(\.id) == [p.id] && blue.players.map(\.id) == [q.id])
        p.teamID = blue.id
        try db.save(p)
        #expect(red.players.isEmpty && blue.players.map(\.id) == [p.id, q.id])
        try db.transaction {
            q.teamID = red.id
            try db.save(q)   // the plain-numbers save inside a transaction
            #expect(red.players.map(\.id) == [q.id] && blue.players.map(\.id) == [p.id])
        }
        // A save that changes no parent key leaves the arrays loaded.
        q.score = 10
        try db.save(q)
        #expect(red.$players.isLoaded && blue.$players.isLoaded)
    }

    @Test func aNewChildReachesTheLoadedArrayAndARolledBackOneLeavesIt() throws {
        let db = try TestDatabase.make()
        let (ada, _, _, _) = try artists(db)
        let c = CFAlbum(); c.title = "C"; c.artist = ada
        try db.save(c)
        #expect(ada.albums.map(\.title) == ["A", "C"])
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                let d = CFAlbum(); d.title = "D"; d.artist = ada
                try db.save(d)
                #expect(ada.albums.map(\.title) == ["A", "C", "D"])
                throw Undo()
            }
        }
        #expect(ada.albums.map(\.title) == ["A", "C"])
        #expect(try ada.$albums.reload().map(\.title) == ["A", "C"])
    }

    @Test func aRolledBackMoveLeavesTheArraysMatchingTheRows() throws {
        let db = try TestDatabase.make()
        let (ada, bob, a, _) = try artists(db)
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                a.artist = bob
                try db.save(a)
                #expect(ada.albums.isEmpty && bob.albums.map(\.title) == ["A", "B"])
                throw Undo()
            }
        }
        #expect(a.artist === ada)
        #expect(ada.albums.map(\.title) == ["A"] && bob.albums.map(\.title) == ["B"])
        // A savepoint rolled back inside a transaction that commits.
        try db.transaction {
            #expect(throws: Undo.self) {
                try db.transaction {
                    a.artist = bob
                    try db.save(a)
                    #expect(bob.albums.map(\.title) == ["A", "B"])
                    throw Undo()
                }
            }
            #expect(ada.albums.map(\.title) == ["A"] && bob.albums.map(\.title) == ["B"])
        }
    }

    /// Raw SQL inserting a row under a parent, and moving it to another: the loaded arrays show it where it
    /// is, on both engines (PostgreSQL, which does not say which rows a statement wrote, loads them again).
    @Test func rawSQLInsertsAndMovesOfRowsWithNoLiveInstanceReachLoadedArrays() throws {
        let db = try TestDatabase.make()
        let (ada, bob, _, _) = try artists(db)
        try db.execute("INSERT INTO \"CFAlbum\" (id, title, artist) VALUES (10, 'Z', ?)", arguments: [ada.id])
        #expect(ada.albums.map(\.title) == ["A", "Z"])
        _ = bob.albums
        try db.execute("UPDATE \"CFAlbum\" SET artist = ? WHERE id = 10", arguments: [bob.id])
        #expect(ada.albums.map(\.title) == ["A"])
        #expect(bob.albums.map(\.title) == ["B", "Z"])
        try db.execute("DELETE FROM \"CFAlbum\" WHERE id = 10")
        #expect(bob.albums.map(\.title) == ["B"])
    }

    // PostgreSQL: a raw UPDATE reaches a live instance at its next lookup by key, not at once (no update hook)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: raw SQL reaches a live instance at its next lookup or fetch (by design), not at once")) func rawSQLInsertsAndMovesReachLoadedArrays() throws {
        let db = try TestDatabase.make()
        let (ada, bob, a, _) = try artists(db)
        // A row no live instance stands for, inserted, then moved.
        try db.execute("INSERT INTO \"CFAlbum\" (id, title, artist) VALUES (10, 'Z', ?)", arguments: [ada.id])
        #expect(ada.albums.map(\.title) == ["A", "Z"])
        _ = bob.albums
        try db.execute("UPDATE \"CFAlbum\" SET artist = ? WHERE id = 10", arguments: [bob.id])
        #expect(ada.albums.map(\.title) == ["A"])
        #expect(bob.albums.map(\.title) == ["B", "Z"])
        // A live child, moved: its refresh drops both arrays.
        try db.execute("UPDATE \"CFAlbum\" SET artist = ? WHERE id = ?", arguments: [bob.id, a.id])
        #expect(a.artist === bob)
        #expect(ada.albums.isEmpty && bob.albums.map(\.title) == ["A", "B", "Z"])
        // A raw write of another column keeps the arrays loaded.
        try db.execute("UPDATE \"CFAlbum\" SET title = 'AA' WHERE id = ?", arguments: [a.id])
        #expect(bob.$albums.isLoaded && bob.albums.first === a)
    }

    /// SQLite's update hook says nothing of WITHOUT ROWID tables.
    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func rawSQLIntoAWithoutRowIDChildTableReachesLoadedArrays() throws {
        let db = try TestDatabase.make()
        try db.execute("""
            CREATE TABLE CFArtist (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE CFTrack (code TEXT PRIMARY KEY, artist INTEGER REFERENCES CFArtist (id)) WITHOUT ROWID;
            INSERT INTO CFArtist VALUES (1, 'Ada'), (2, 'Bob');
            INSERT INTO CFTrack VALUES ('a', 1);
            """)
        let ada = try #require(try db.object(CFSinger.self, forKey: 1))
        let bob = try #require(try db.object(CFSinger.self, forKey: 2))
        #expect(ada.tracks.map(\.code) == ["a"] && bob.tracks.isEmpty)
        try db.execute("INSERT INTO CFTrack VALUES ('b', 1)")
        #expect(ada.tracks.map(\.code) == ["a", "b"])
        try db.execute("UPDATE CFTrack SET artist = 2 WHERE code = 'b'")
        #expect(ada.tracks.map(\.code) == ["a"] && bob.tracks.map(\.code) == ["b"])
    }

    // PostgreSQL: no commit counter (SQLite's data_version) tells a handle that another connection committed;
    // installChangeNotifications(for:) is the way there
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: another connection's commit is not noticed without change notifications")) func anotherConnectionsInsertAndMoveReachLoadedArraysAtTheNextCall() throws {
        let temp = try TestDatabase()
        let db = temp.db
        let (ada, bob, a, _) = try artists(db)
        let other = try temp.openAnother()
        try other.execute("INSERT INTO \"CFAlbum\" (title, artist) VALUES ('N', ?)", arguments: [ada.id])
        try other.execute("UPDATE \"CFAlbum\" SET artist = ? WHERE id = ?", arguments: [ada.id, try #require(bob.albums.first).id])
        // The handle looks at the next call that reads or writes (here a fetch).
        _ = try db.object(CFArtist.self, forKey: ada.id)
        #expect(ada.albums.map(\.title) == ["A", "B", "N"] && bob.albums.isEmpty)
        #expect(a.artist === ada)
        try other.close()
    }

    /// Children that held their parent before it loaded them sit in its array weakly; a move still leaves it.
    @Test func aMovedChildHeldWeaklyLeavesTheFormerParentsArray() throws {
        let db = try TestDatabase.make()
        let (ada, bob, _, _) = try artists(db)
        let albums = try db.objects(CFAlbum.self, orderBy: .ascending(\.title))
        let first = try #require(albums.first)
        #expect(first.artist?.albums.map(\.title) == ["A"])   // album -> artist -> albums: held weakly
        first.artist = bob
        try db.save(first)
        #expect(ada.albums.isEmpty && bob.albums.map(\.title) == ["A", "B"])
    }
}
