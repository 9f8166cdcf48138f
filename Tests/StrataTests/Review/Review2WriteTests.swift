import Foundation
import StrataTestSupport
import Testing
@testable import Strata

private final class R2UNote: Model {
    static let upsertKeys = ["serverID"]
    static let uniqueIndices = [["serverID"], ["slug"]]
    var id = UUID()
    var serverID: String?
    var slug = ""
    var text = ""
    required init() {}
}

private final class R2Parent: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "parentID") var kids: [R2Kid]
    required init() {}
}

private final class R2Kid: Model {
    var id: Int64 = 0
    var parentID: Int64 = 0
    var name = ""
    required init() {}
}

@Suite struct Review2WriteTests {
    /// A failed upsert of a UUID-keyed model: the instance should be left "unsaved with its own values",
    /// its own key included.
    @Test func aFailedUpsertOfAUUIDKeyedModelKeepsItsOwnKey() throws {
        let temp = try TemporaryDatabase()
        let a = R2UNote(); a.serverID = "s-1"; a.slug = "a"
        let b = R2UNote(); b.serverID = "s-2"; b.slug = "b"
        try temp.db.save([a, b])
        let db = try temp.reopen()
        let incoming = R2UNote(); incoming.serverID = "s-1"; incoming.slug = "b"; incoming.text = "new"
        let ownKey = incoming.id
        #expect(throws: ModelError.self) { try db.save(incoming) }
        #expect(!incoming.isPersisted)
        #expect(incoming.id == ownKey, "the key is now the adopted row's: \(incoming.id) (a's is \(a.id))")
    }

    /// The same with a caller-chosen integer key.
    @Test func aFailedUpsertWithACallerChosenIntegerKeyKeepsItsOwnKey() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"
        let b = SyncedNote(); b.serverID = "s-2"; b.slug = "b"
        try temp.db.save([a, b])
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.id = 99; incoming.serverID = "s-1"; incoming.slug = "b"
        #expect(throws: ModelError.self) { try db.save(incoming) }
        #expect(!incoming.isPersisted)
        #expect(incoming.id == 99)
    }

    /// @Children over a plain key column: a deleted child leaves the loaded array?
    @Test func aDeletedChildOverAPlainColumnLeavesTheArray() throws {
        let db = try Database()
        let p = R2Parent(); p.name = "p"
        try db.save(p)
        let k1 = R2Kid(); k1.parentID = p.id
        let k2 = R2Kid(); k2.parentID = p.id
        try db.save([k1, k2])
        #expect(p.kids.count == 2)
        try db.delete(k2)
        #expect(p.kids.map(\.id) == [k1.id], "deleted still listed: \(p.kids.map { ($0.id, $0.isDeleted) })")
    }
}

private final class R2Album: Model {
    var id: Int64 = 0
    var title = ""
    @Children(by: "album") var tracks: [R2Track]
    required init() {}
}

private final class R2Track: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var album: R2Album?
    required init() {}
}

@Suite struct Review2RollbackTests {
    /// Raw ROLLBACK TO after an upsert adoption: the instance should be unsaved again with its own values,
    /// as after a rolled-back savepoint of the API.
    @Test func aRawRollbackToUndoesAnUpsertAdoption() throws {
        let temp = try TemporaryDatabase()
        let a = SyncedNote(); a.serverID = "s-1"; a.slug = "a"; a.text = "old"
        try temp.db.save(a)
        let db = try temp.reopen()
        let incoming = SyncedNote(); incoming.serverID = "s-1"; incoming.slug = "a"; incoming.text = "new"
        try db.transaction {
            try db.execute("SAVEPOINT x")
            try db.save(incoming)
            #expect(incoming.id == 1)
            try db.execute("ROLLBACK TO x")
            try db.execute("RELEASE x")
            #expect(!incoming.isPersisted, "still the live instance of row 1")
            #expect(incoming.text == "new", "holds the row's value: \(incoming.text)")
        }
    }

    /// A rollback brings back a deleted child whose reference lost its (weakly held) parent; the parent,
    /// fetched again meanwhile, loaded its children without it.
    @Test func aRollbackThatBringsBackAChildDropsTheArrayOfAParentItNoLongerHolds() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE R2Album (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '');
            CREATE TABLE R2Track (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', album INTEGER);
            INSERT INTO R2Album VALUES (1, 'a');
            INSERT INTO R2Track VALUES (1, 't1', 1), (2, 't2', 1);
            """)
        var t2: R2Track?
        do {
            let album = try #require(try db.object(R2Album.self, forKey: 1))
            #expect(album.tracks.map(\.id) == [1, 2])    // t2's album: weak
            t2 = album.tracks[1]
        }
        let track = try #require(t2)
        var again: R2Album?
        struct Undo: Error {}
        _ = try? db.transaction {
            try db.delete(track)
            again = try db.object(R2Album.self, forKey: 1)
            #expect(again?.tracks.map(\.id) == [1])
            throw Undo()
        }
        #expect(!track.isDeleted)
        #expect(again?.tracks.map(\.id) == [1, 2])
    }
}
