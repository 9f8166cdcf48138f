import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 19 (issue 36, point 1): a mis-declared relationship is a thrown ModelError from the first fetch or
// save of its owner, naming the model, the property and the fix; before, the declaration was only checked
// when the array was read, and the read logged "could not be loaded; they read as []".

private final class R19DAlbum: Model {
    static let tableName = "r19d_album"
    var id: Int64 = 0
    var title = ""
    var year = 0
    @Reference var artist: R19DArtist?
    required init() {}
}

/// `by:` names no property of the album.
private final class R19DArtist: Model {
    static let tableName = "r19d_artist"
    var id: Int64 = 0
    var name = ""
    @Children(by: "writer") var albums: [R19DAlbum]
    required init() {}
}

/// Another model over the artist table, and an album whose reference points at it.
private final class R19DArtistRow: Model {
    static let tableName = "r19d_artist"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R19DSingle: Model {
    static let tableName = "r19d_single"
    var id: Int64 = 0
    var title = ""
    @Reference var artist: R19DArtistRow?
    required init() {}
}

/// `by:` names a reference to R19DArtistRow, not to this model (both over "r19d_artist").
private final class R19DSameTableArtist: Model {
    static let tableName = "r19d_artist"
    var id: Int64 = 0
    var name = ""
    @Children(by: "artist") var singles: [R19DSingle]
    required init() {}
}

/// `orderBy` names no property of the child.
private final class R19DOrderedArtist: Model {
    static let tableName = "r19d_ordered_artist"
    var id: Int64 = 0
    @Children(by: "artist", orderBy: "yeer DESC") var albums: [R19DOrderedAlbum]
    required init() {}
}

private final class R19DOrderedAlbum: Model {
    static let tableName = "r19d_ordered_album"
    var id: Int64 = 0
    var year = 0
    @Reference var artist: R19DOrderedArtist?
    required init() {}
}

/// A target with a composite key, which `@Siblings` cannot load.
private final class R19DPair: Model {
    static let tableName = "r19d_pair"
    static let compositeKey = ["a", "b"]
    var a: Int64 = 0
    var b: Int64 = 0
    required init() {}
}

private final class R19DPost: Model {
    static let tableName = "r19d_post"
    var id: Int64 = 0
    @Siblings(through: "r19d_post_pair", from: "post_id", to: "pair_id") var pairs: [R19DPair]
    required init() {}
}

/// A correct declaration: the check lets it through, and the getter loads.
private final class R19DGoodArtist: Model {
    static let tableName = "r19d_good_artist"
    var id: Int64 = 0
    @Children(by: "artist", orderBy: "year DESC") var albums: [R19DGoodAlbum]
    required init() {}
}

private final class R19DGoodAlbum: Model {
    static let tableName = "r19d_good_album"
    var id: Int64 = 0
    var year = 0
    @Reference var artist: R19DGoodArtist?
    required init() {}
}

@Suite struct Review19DeclarationTests {
    /// The error a call throws, as a ModelError.
    private func modelError(_ body: () throws -> Void) -> ModelError? {
        do { try body() } catch let error as ModelError { return error } catch { return nil }
        return nil
    }

    @Test func childrenNamingNoPropertyThrowsAtTheOwnersFirstSaveAndFetch() throws {
        let temp = try TemporaryDatabase()
        let artist = R19DArtist()
        artist.name = "Nina"
        let saved = try #require(modelError { try temp.db.save(artist) })
        #expect(saved.kind == .unknownProperty)
        #expect(saved.property == "writer")
        let text = "\(saved)"
        #expect(text.contains("@Children(by: \"writer\") var albums in R19DArtist"))
        #expect(text.contains("not a persistent property of R19DAlbum (it has id, title, year, artist)"))
        #expect(text.contains("@Children(by: \\R19DAlbum.$artist)"))
        #expect(!artist.isPersisted)
        // A fetch is a first use too: the same error, before any row is read.
        let fetched = try #require(modelError { _ = try temp.db.objects(R19DArtist.self) })
        #expect(fetched.kind == .unknownProperty && fetched.property == "writer")
    }

    @Test func childrenByAReferenceToAnotherModelOverTheSameTableThrows() throws {
        let temp = try TemporaryDatabase()
        let error = try #require(modelError { try temp.db.save(R19DSameTableArtist()) })
        #expect(error.kind == .unknownProperty)
        #expect(error.model == "R19DSingle" && error.property == "artist")
        let text = "\(error)"
        #expect(text.contains("R19DSingle.artist refers to R19DArtistRow (another model over the same table \"r19d_artist\"), not R19DSameTableArtist"))
        #expect(text.contains("declare `@Reference var r19DSameTableArtist: R19DSameTableArtist?` in R19DSingle"))
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'r19d_artist'") == 0)
    }

    @Test func childrenOrderedByNoPropertyThrowsAtTheFirstSave() throws {
        let temp = try TemporaryDatabase()
        let error = try #require(modelError { try temp.db.save(R19DOrderedArtist()) })
        #expect(error.kind == .unknownProperty && error.property == "yeer")
        #expect("\(error)".contains("orders by \"yeer DESC\"; write persistent properties of R19DOrderedAlbum"))
    }

    @Test func siblingsOfACompositeKeyModelThrowAtTheFirstSave() throws {
        let temp = try TemporaryDatabase()
        let error = try #require(modelError { try temp.db.save(R19DPost()) })
        #expect(error.kind == .unsupportedType && error.model == "R19DPair" && error.property == "pairs")
        #expect("\(error)".contains("@Siblings(through: \"r19d_post_pair\", from: \"post_id\", to: \"pair_id\") var pairs in R19DPost needs a single-column key on R19DPair"))
    }

    @Test func aCorrectDeclarationPassesTheCheckAndLoads() throws {
        let temp = try TemporaryDatabase()
        let artist = R19DGoodArtist()
        try temp.db.save(artist)
        for year in [1999, 2005] {
            let album = R19DGoodAlbum()
            album.year = year
            album.artist = artist
            try temp.db.save(album)
        }
        artist.$albums.invalidate()
        #expect(artist.albums.map(\.year) == [2005, 1999])
    }
}
