import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 19 (issue 36, point 2): key-path spellings beside the strings, checked by the compiler: indices
// (`[Index<Self>]`, unique too), `@Children(by: \Album.$artist)` and its order, prefetch paths. Each
// becomes what the string form does (the same index, the same query); the string forms stay.

private final class R19KCompany: Model {
    static let tableName = "r19k_company"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// Indices by key path (a reference's among them).
private final class R19KPerson: Model {
    static let tableName = "r19k_person"
    static let indices: [Index<R19KPerson>] = [[\.lastName, \.firstName], [\.$employer]]
    static let uniqueIndices: [Index<R19KPerson>] = [[\.email]]
    var id: Int64 = 0
    var firstName = ""
    var lastName = ""
    var email = ""
    @Reference var employer: R19KCompany?
    required init() {}
}

/// The same indices by name, over another table.
private final class R19KPersonByName: Model {
    static let tableName = "r19k_person_by_name"
    static let indices = [["lastName", "firstName"], ["employer"]]
    static let uniqueIndices = [["email"]]
    var id: Int64 = 0
    var firstName = ""
    var lastName = ""
    var email = ""
    @Reference var employer: R19KCompany?
    required init() {}
}

/// An index over a computed property, which has no column.
private final class R19KBadIndex: Model {
    static let tableName = "r19k_bad_index"
    static let indices: [Index<R19KBadIndex>] = [[\.shout]]
    var id: Int64 = 0
    var name = ""
    var shout: String { name.uppercased() }
    required init() {}
}

private final class R19KArtist: Model {
    static let tableName = "r19k_artist"
    var id: Int64 = 0
    var name = ""
    @Children(by: \R19KAlbum.$artist, orderBy: .descending(\R19KAlbum.year).then(.ascending(\R19KAlbum.title))) var albums: [R19KAlbum]
    @Children(by: \R19KAlbum.$artist) var unordered: [R19KAlbum]
    required init() {}
}

private final class R19KAlbum: Model {
    static let tableName = "r19k_album"
    var id: Int64 = 0
    var title = ""
    var year = 0
    @Reference var artist: R19KArtist?
    @Reference var producer: R19KProducer?
    required init() {}
}

private final class R19KProducer: Model {
    static let tableName = "r19k_producer"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// `by:` a key path to a reference to another model: the first save throws, as for the string form.
private final class R19KWrongArtist: Model {
    static let tableName = "r19k_wrong_artist"
    var id: Int64 = 0
    var name = ""
    @Children(by: \R19KAlbum.$producer) var albums: [R19KAlbum]
    required init() {}
}

@Suite struct Review19KeyPathTests {
    /// Each index of `table`: its columns in order and whether it is unique.
    private func indices(_ db: Database, _ table: String) throws -> [String] {
        let names = try db.rows("SELECT name, \"unique\" FROM pragma_index_list(?) ORDER BY name", table)
        return try names.map { row in
            let name: String = try row.decode("name")
            let unique: Int = try row.decode("unique")
            let columns = try db.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", name).map { try $0.decode("name") as String }
            return columns.joined(separator: ",") + (unique == 1 ? " unique" : "")
        }.sorted()
    }

    @Test func keyPathIndicesMakeTheSameIndicesAsNames() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(R19KPerson.self)
        try temp.db.syncSchema(R19KPersonByName.self)
        let typed = try indices(temp.db, "r19k_person")
        #expect(typed == ["email unique", "employer", "lastName,firstName"])
        #expect(typed == (try indices(temp.db, "r19k_person_by_name")))
        // The unique one is enforced.
        let a = R19KPerson(), b = R19KPerson()
        a.email = "x@example.com"; b.email = "x@example.com"
        try temp.db.save(a)
        #expect(throws: (any Error).self) { try temp.db.save(b) }
    }

    @Test func anIndexOverAComputedPropertyThrowsAtFirstUse() throws {
        let temp = try TemporaryDatabase()
        let error = try #require(throws: ModelError.self) { try temp.db.save(R19KBadIndex()) }
        #expect(error.kind == .unknownProperty && error.model == "R19KBadIndex")
        #expect(error.message.hasPrefix("indices[0][0] (\\R19KBadIndex.<computed "))
        #expect(error.message.contains("names no persistent property of R19KBadIndex (a computed property"))
        #expect(error.message.contains("its persistent properties are id, name"))
    }

    @Test func childrenByKeyPathLoadInTheKeyPathOrder() throws {
        let temp = try TemporaryDatabase()
        let artist = R19KArtist()
        try temp.db.save(artist)
        for (title, year) in [("b", 2001), ("a", 2001), ("c", 1999)] {
            let album = R19KAlbum()
            album.title = title; album.year = year; album.artist = artist
            try temp.db.save(album)
        }
        artist.$albums.invalidate()
        artist.$unordered.invalidate()
        var statements: [String] = []
        let trace = temp.db.traceStatements { statements.append($0) }
        #expect(artist.albums.map(\.title) == ["a", "b", "c"])
        #expect(artist.unordered.map(\.title) == ["b", "a", "c"])
        _ = trace
        #expect(statements.contains { $0.contains("WHERE \"artist\" = ? ORDER BY \"year\" DESC, \"title\" ASC, \"id\"") })
    }

    @Test func childrenByAKeyPathToAnotherModelsReferenceThrowsAtFirstSave() throws {
        let temp = try TemporaryDatabase()
        let error = try #require(throws: ModelError.self) { try temp.db.save(R19KWrongArtist()) }
        #expect(error.property == "producer")
        #expect(error.message.contains("@Children(by: \\R19KAlbum.$producer) var albums in R19KWrongArtist"))
        #expect(error.message.contains("refers to R19KProducer, not R19KWrongArtist"))
    }

    @Test func prefetchingByKeyPathLoadsWhatTheStringsLoad() throws {
        let temp = try TemporaryDatabase()
        let producer = R19KProducer()
        producer.name = "P"
        try temp.db.save(producer)
        let artist = R19KArtist()
        try temp.db.save(artist)
        for title in ["x", "y"] {
            let album = R19KAlbum()
            album.title = title; album.artist = artist; album.producer = producer
            try temp.db.save(album)
        }
        let other = try Database(path: temp.path)
        var statements: [String] = []
        let trace = other.traceStatements { statements.append($0) }
        let artists = try other.objects(R19KArtist.self, prefetching: [.to(\.$unordered, then: .to(\.$producer))])
        let loaded = statements.count
        #expect(artists.first?.unordered.map { $0.producer?.name } == ["P", "P"])
        #expect(statements.count == loaded)   // nothing more was read
        let albums = try other.objects(R19KAlbum.self, where: "ORDER BY title", prefetching: [\.$artist])
        let afterAlbums = statements.count
        #expect(albums.map { $0.artist === artists.first } == [true, true])
        #expect(statements.count == afterAlbums)
        _ = trace
    }

    @Test func prefetchingAKeyPathThatIsNoRelationshipThrowsBeforeTheQuery() throws {
        let temp = try TemporaryDatabase()
        var statements: [String] = []
        let trace = temp.db.traceStatements { statements.append($0) }
        let error = try #require(throws: ModelError.self) { _ = try temp.db.objects(R19KAlbum.self, prefetching: [\.title]) }
        _ = trace
        #expect(error.model == "R19KAlbum" && error.property == "\\R19KAlbum.title")
        #expect(error.message.contains("it names no relationship of R19KAlbum; its relationships are artist, producer"))
        #expect(!statements.contains { $0.hasPrefix("SELECT") && $0.contains("r19k_album") })
    }
}
