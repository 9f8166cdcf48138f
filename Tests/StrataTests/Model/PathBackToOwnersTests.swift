import Foundation
import Testing
import Strata
import StrataTestSupport

// A relationship path that comes back to its owners: tracks with their album and the album's tracks.
// The tracks hold their album; the album's @Children array then holds those tracks weakly (and any
// other track strongly), so no cycle forms, the album lives as long as its tracks, and no read after
// the prefetch (or after the first lazy load of each album's tracks) runs a query: never N+1.

private final class PBAlbum: Model {
    var id: Int64 = 0
    var title = ""
    @Children(by: "album") var tracks: [PBTrack]
    required init() {}
}

private final class PBTrack: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var album: PBAlbum?
    required init() {}
}

/// 20 albums of 2 tracks each (tracks 2a - 1 and 2a on album a).
private func music(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE "PBAlbum" (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '');
        CREATE TABLE "PBTrack" (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', album INTEGER);
        """)
    try db.transaction {
        for album in 1...20 {
            try db.execute("INSERT INTO \"PBAlbum\" VALUES (?, ?)", album, "album \(album)")
            for track in [2 * album - 1, 2 * album] {
                try db.execute("INSERT INTO \"PBTrack\" VALUES (?, ?, ?)", track, "track \(track)", album)
            }
        }
    }
}

@Suite struct PathBackToOwnersTests {
    @Test func aPrefetchThatComesBackToItsOwnersLeavesNothingToQuery() throws {
        let db = try TestDatabase.make()
        try music(db)
        let log = StatementLog(db)
        let tracks = try db.objects(PBTrack.self, where: "ORDER BY id", prefetching: ["album.tracks"])
        let afterPrefetch = log.count
        for _ in 0..<2 {
            for track in tracks {
                let album = try #require(track.album)
                #expect(album.title == "album \((track.id + 1) / 2)")
                #expect(album.tracks.map(\.id) == [2 * album.id - 1, 2 * album.id])
                #expect(album.tracks.contains { $0 === track })
            }
        }
        #expect(log.count == afterPrefetch, "\(log.statements.suffix(log.count - afterPrefetch))")
    }

    @Test func lazyReadsThatComeBackToTheirOwnersQueryEachAlbumOnce() throws {
        let db = try TestDatabase.make()
        try music(db)
        let tracks = try db.objects(PBTrack.self, where: "ORDER BY id")
        try db.syncSchema(PBAlbum.self)   // its first use (schema reads) out of the count
        let log = StatementLog(db)
        for track in tracks { #expect(track.album?.tracks.count == 2) }
        // One batched query of the albums, then one query of each album's tracks.
        #expect(log.count == 1 + 20, "\(log.statements)")
        for track in tracks { #expect(track.album?.tracks.contains { $0 === track } == true) }
        #expect(log.count == 1 + 20)
    }

    @Test func ownersThatAreSomeOfTheChildrenKeepTheOthersTooAndEverythingIsFreed() throws {
        weak var firstAlbum: PBAlbum?
        weak var otherTrack: PBTrack?
        weak var firstTrack: PBTrack?
        let db = try TestDatabase.make()
        try music(db)
        do {
            // Only the odd tracks are owners; each album also holds its even track (strongly).
            var tracks = try db.objects(PBTrack.self, where: "WHERE id % 2 = 1 ORDER BY id", prefetching: ["album.tracks"])
            let log = StatementLog(db)
            let expected: [[Int64]] = (1...20).map { (album: Int64) -> [Int64] in [2 * album - 1, 2 * album] }
            let read: [[Int64]] = tracks.map { (track: PBTrack) -> [Int64] in track.album?.tracks.map(\.id) ?? [] }
            #expect(read == expected)
            #expect(log.count == 0)
            firstTrack = tracks[0]
            firstAlbum = tracks[0].album
            otherTrack = tracks[0].album?.tracks[1]
            #expect(firstAlbum != nil && otherTrack != nil)
            tracks = []
        }
        // No cycle: letting go of the tracks frees them, their albums and the albums' other tracks.
        #expect(firstTrack == nil)
        #expect(firstAlbum == nil)
        #expect(otherTrack == nil)
    }

    @Test func aDeletedOrFreedChildMakesTheNextReadQueryAgain() throws {
        let db = try TestDatabase.make()
        try music(db)
        var tracks = try db.objects(PBTrack.self, where: "WHERE album = 1 ORDER BY id", prefetching: ["album.tracks"])
        let album = try #require(tracks[0].album)
        #expect(album.tracks.map(\.id) == [1, 2])
        try db.delete(tracks[1])
        let log = StatementLog(db)
        #expect(album.tracks.map(\.id) == [1])
        #expect(log.count == 1)
        // The owners let go: the album (held here) reads its tracks again, in one query.
        tracks = []
        #expect(album.tracks.map(\.id) == [1])
        #expect(log.count == 2)
    }
}
