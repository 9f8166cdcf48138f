import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Second reader's tests of loaded @Children / @Siblings arrays following writes (fb903f9..16ad1f2).

private final class R3Artist: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "artist", orderBy: "title") var albums: [R3Album]
    required init() {}
}

private final class R3Album: Model {
    var id: Int64 = 0
    var title = ""
    @Reference var artist: R3Artist?
    required init() {}
}

/// A child adopted by upsert key.
private final class R3Shelf: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "shelf", orderBy: "serial") var books: [R3Book]
    required init() {}
}

private final class R3Book: Model {
    static let upsertKeys = ["serial"]
    var id: Int64 = 0
    var serial = ""
    @Reference var shelf: R3Shelf?
    required init() {}
}

/// Many-to-many over a join table that a model with a composite key maps too.
private final class R3Post: Model {
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "R3PostTag", from: "post", to: "tag", orderBy: "name") var tags: [R3Tag]
    required init() {}
}

private final class R3Tag: Model {
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "R3PostTag", from: "tag", to: "post", orderBy: "title") var posts: [R3Post]
    required init() {}
}

private final class R3PostTag: Model {
    static let compositeKey = ["post", "tag"]
    var post: Int64 = 0
    var tag: Int64 = 0
    required init() {}
}

private struct Undo: Error {}

private func artists(_ db: Database) throws -> (ada: R3Artist, bob: R3Artist) {
    let ada = R3Artist(); ada.name = "Ada"
    let bob = R3Artist(); bob.name = "Bob"
    try db.save([ada, bob])
    return (ada, bob)
}

@Suite struct Review3Tests {
    /// A child moved by a save in a transaction, then freed; the former parent's array is loaded without it;
    /// the rollback puts the row back under that parent, but no live instance is left to drop the array.
    @Test func aRolledBackSavedMoveOfAFreedChildReachesTheArrayLoadedMeanwhile() throws {
        let db = try Database()
        let (ada, bob) = try artists(db)
        _ = try db.objects(R3Album.self)   // creates the table
        try db.execute("INSERT INTO R3Album (id, title, artist) VALUES (1, 'A', ?)", arguments: [ada.id])
        #expect(throws: Undo.self) {
            try db.transaction {
                do {
                    let a = try #require(try db.object(R3Album.self, forKey: 1))
                    a.artist = bob
                    try db.save(a)
                }
                #expect(ada.albums.isEmpty)
                throw Undo()
            }
        }
        #expect(try ada.$albums.reload().map(\.title) == ["A"])   // the row
        ada.$albums.invalidate()
        // The same, but the array is not reloaded by hand.
        #expect(throws: Undo.self) {
            try db.transaction {
                do {
                    let a = try #require(try db.object(R3Album.self, forKey: 1))
                    a.artist = bob
                    try db.save(a)
                }
                #expect(ada.albums.isEmpty)
                throw Undo()
            }
        }
        #expect(ada.albums.map(\.title) == ["A"])
    }

    /// Raw SQL moves a row no live instance stands for, inside a transaction that is rolled back (whole, or
    /// by a raw `ROLLBACK TO`).
    @Test func aRolledBackRawMoveReachesTheArrayLoadedMeanwhile() throws {
        let db = try Database()
        let (ada, bob) = try artists(db)
        _ = try db.objects(R3Album.self)   // creates the table
        try db.execute("INSERT INTO R3Album (id, title, artist) VALUES (1, 'A', ?)", arguments: [ada.id])
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.execute("UPDATE R3Album SET artist = ? WHERE id = 1", arguments: [bob.id])
                #expect(ada.albums.isEmpty)
                throw Undo()
            }
        }
        #expect(ada.albums.map(\.title) == ["A"])
        ada.$albums.invalidate()
        try db.transaction {
            try db.execute("SAVEPOINT r3")
            try db.execute("UPDATE R3Album SET artist = ? WHERE id = 1", arguments: [bob.id])
            #expect(ada.albums.isEmpty)
            try db.execute("ROLLBACK TO r3")
            try db.execute("RELEASE r3")
            #expect(ada.albums.map(\.title) == ["A"])
        }
    }

    /// A new object adopts the row of its upsert key, moving it to another parent; the rollback undoes the
    /// adoption (the object is unsaved again) and the row is the former parent's again.
    @Test func aRolledBackUpsertAdoptionReachesTheFormerParentsArray() throws {
        let db = try Database()
        let left = R3Shelf(); left.name = "left"
        let right = R3Shelf(); right.name = "right"
        try db.save([left, right])
        _ = try db.objects(R3Book.self)
        try db.execute("INSERT INTO R3Book (serial, shelf) VALUES ('s1', ?)", arguments: [left.id])
        #expect(throws: Undo.self) {
            try db.transaction {
                let book = R3Book(); book.serial = "s1"; book.shelf = right
                try db.save(book)                       // adopts the row
                #expect(right.books.map(\.serial) == ["s1"])
                #expect(left.books.isEmpty)
                throw Undo()
            }
        }
        #expect(right.books.isEmpty)
        #expect(left.books.map(\.serial) == ["s1"])
    }

    /// Raw SQL moves a child that has an unsaved change to its reference: the refresh records a conflict and
    /// keeps the local value, but the arrays must follow the row.
    @Test func aRawMoveOfAChildWithAnUnsavedReferenceReachesLoadedArrays() throws {
        let db = try Database()
        let (ada, bob) = try artists(db)
        let cat = R3Artist(); cat.name = "Cat"
        try db.save(cat)
        let a = R3Album(); a.title = "A"; a.artist = ada
        try db.save(a)
        #expect(ada.albums.map(\.title) == ["A"] && bob.albums.isEmpty)
        a.artist = cat   // not saved
        try db.execute("UPDATE R3Album SET artist = ? WHERE id = ?", arguments: [bob.id, a.id])
        #expect(a.artist === cat)   // kept: a conflict
        // What the rows say:
        let adaRows = try db.objects(R3Album.self, where: "WHERE artist = ?", ada.id).map(\.title)
        let bobRows = try db.objects(R3Album.self, where: "WHERE artist = ?", bob.id).map(\.title)
        #expect(adaRows.isEmpty && bobRows == ["A"])
        #expect(ada.albums.map(\.title) == adaRows)
        #expect(bob.albums.map(\.title) == bobRows)
    }

    /// The owner's own add after another connection linked a target: the array set from the one loaded
    /// before the call misses the other connection's link.
    @Test func anAddAfterAnotherConnectionsLinkKeepsThatLink() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let post = R3Post(); post.title = "p"
        let (a, b, c) = (R3Tag(), R3Tag(), R3Tag())
        a.name = "a"; b.name = "b"; c.name = "c"
        try db.save(post)
        try db.save([a, b, c])
        _ = R3PostTag.self
        try db.execute("CREATE TABLE IF NOT EXISTS R3PostTag (post INTEGER, tag INTEGER, PRIMARY KEY (post, tag))")
        try post.$tags.add(a)
        #expect(post.tags.map(\.name) == ["a"])
        let other = try Database(path: temp.path)
        try other.execute("INSERT INTO R3PostTag (post, tag) VALUES (?, ?)", arguments: [post.id, c.id])
        try post.$tags.remove(b)   // not linked: changes nothing
        #expect(post.tags.map(\.name) == ["a", "c"])
        try other.execute("DELETE FROM R3PostTag WHERE tag = ?", arguments: [c.id])
        try post.$tags.add(b)
        #expect(post.tags.map(\.name) == ["a", "b"])
        try other.close()
    }

    /// A model over the join table saved or deleted through the handle is a write to the join table that
    /// is no add or remove of the arrays over it.
    @Test func aJoinTableModelsSaveAndDeleteReachLoadedSiblings() throws {
        let db = try Database()
        let post = R3Post(); post.title = "p"
        let tag = R3Tag(); tag.name = "t"
        try db.save(post)
        try db.save(tag)
        _ = try db.objects(R3PostTag.self)   // creates the join table
        #expect(post.tags.isEmpty && tag.posts.isEmpty)
        let link = R3PostTag(); link.post = post.id; link.tag = tag.id
        try db.save(link)
        #expect(post.tags.map(\.name) == ["t"])
        #expect(tag.posts.map(\.title) == ["p"])
        _ = try db.delete(link)
        #expect(post.tags.isEmpty)
        #expect(tag.posts.isEmpty)
    }

    /// SQLite's update hook says nothing of a WITHOUT ROWID join table (one no model maps).
    @Test func rawSQLOnAWithoutRowIDJoinTableReachesLoadedSiblings() throws {
        let db = try Database()
        let post = R3Post(); post.title = "p"
        let tag = R3Tag(); tag.name = "t"
        try db.save(post)
        try db.save(tag)
        try db.execute("CREATE TABLE R3PostTag (post INTEGER, tag INTEGER, PRIMARY KEY (post, tag)) WITHOUT ROWID")
        #expect(post.tags.isEmpty && tag.posts.isEmpty)
        try db.execute("INSERT INTO R3PostTag (post, tag) VALUES (?, ?)", arguments: [post.id, tag.id])
        #expect(post.tags.map(\.name) == ["t"])
        #expect(tag.posts.map(\.title) == ["p"])
    }
}
