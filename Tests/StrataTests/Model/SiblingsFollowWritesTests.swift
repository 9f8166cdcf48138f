import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// A loaded `@Siblings` array follows its join table: the other side's `add` and `remove`, raw SQL and
// another connection's commit drop it, and the next read queries once; the owner's own `add` and `remove`
// still update its array in place.

private final class SFPost: Model {
    static let tableName = "blog_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id", orderBy: "name") var tags: [SFTag]
    required init() {}
}

private final class SFTag: Model {
    static let tableName = "blog_tag"
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "blog_post_tags", from: "tag_id", to: "post_id") var posts: [SFPost]
    required init() {}
}

@Suite struct SiblingsFollowWritesTests {
    /// Posts 1 (swift, sqlite), 2 (orm), 3 (none); tags 1 swift, 2 orm, 3 sqlite.
    private func blog(_ db: Database) throws -> (one: SFPost, two: SFPost, swift: SFTag, orm: SFTag) {
        try db.execute(djangoBlogSQL)
        return (try #require(try db.object(SFPost.self, forKey: 1)), try #require(try db.object(SFPost.self, forKey: 2)),
                try #require(try db.object(SFTag.self, forKey: 1)), try #require(try db.object(SFTag.self, forKey: 2)))
    }

    @Test func anAddOrRemoveReachesTheOtherSidesLoadedArray() throws {
        let db = try TestDatabase.make()
        let (one, two, swift, _) = try blog(db)
        #expect(swift.posts.map(\.title) == ["one"])
        try two.$tags.add(swift)
        #expect(swift.posts.map(\.title) == ["one", "two"])
        try one.$tags.remove(swift)
        #expect(swift.posts.map(\.title) == ["two"])
    }

    @Test func theOwnersOwnAddStillUpdatesItsArrayInPlace() throws {
        let db = try TestDatabase.make()
        let (one, _, _, orm) = try blog(db)
        #expect(one.tags.map(\.name) == ["sqlite", "swift"])
        let log = StatementLog(db)
        try one.$tags.remove(orm)   // not linked: nothing changes
        try one.$tags.add(orm)      // with orderBy: dropped, read again in order
        let (names, reads) = log.during { one.tags.map(\.name) }
        #expect(names == ["orm", "sqlite", "swift"] && reads.count == 1)
        try one.$tags.remove(orm)
        let (after, none) = log.during { one.tags.map(\.name) }
        #expect(after == ["sqlite", "swift"] && none.isEmpty)
    }

    @Test func rawSQLOnTheJoinTableDropsLoadedArrays() throws {
        let db = try TestDatabase.make()
        let (one, two, swift, _) = try blog(db)
        #expect(one.tags.map(\.name) == ["sqlite", "swift"] && two.tags.map(\.name) == ["orm"])
        try db.execute("INSERT INTO blog_post_tags (post_id, tag_id) VALUES (2, 1)")
        #expect(two.tags.map(\.name) == ["orm", "swift"])
        try db.execute("DELETE FROM blog_post_tags WHERE post_id = 1 AND tag_id = 1")
        #expect(one.tags.map(\.name) == ["sqlite"] && two.tags.map(\.name) == ["orm", "swift"])
        // A write elsewhere keeps them loaded. (Not on PostgreSQL, which does not say which table a raw
        // statement wrote: every loaded array loads again, and the tag reads its row at its next lookup.)
        guard !TestEngine.isPostgreSQL else { return }
        try db.execute("UPDATE blog_tag SET name = 'Swift' WHERE id = 1")
        let log = StatementLog(db)
        let (last, reads) = log.during { (one.tags.count, two.tags.last) }
        #expect(reads.isEmpty && last.0 == 1 && last.1 === swift && swift.name == "Swift")
    }

    /// Django's join table has no ON DELETE CASCADE: the pair stays, the deleted target leaves the array.
    // PostgreSQL: the test turns SQLite's foreign keys off with PRAGMA
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func aPrefetchPathGoesOnWithoutADeletedTarget() throws {
        let db = try TestDatabase.make()
        let (one, _, swift, _) = try blog(db)
        #expect(one.tags.map(\.name) == ["sqlite", "swift"])
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.delete(swift)
        let log = StatementLog(db)
        try db.prefetch("tags.posts", of: [one])
        #expect(log.statements.count == 1)   // the posts of the one tag left, none for the deleted one
        #expect(log.statements.first?.contains("IN (?)") == true)
        #expect(one.tags.map(\.name) == ["sqlite"])
    }

    /// The passes that drop every array over a join table visit the owners that loaded one, not every live
    /// instance (an `add` among 2,000 live tags stays cheap).
    // PostgreSQL: array owners are indexed by rowid; a table without one (every PostgreSQL table) visits its live instances
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: array owners are indexed by rowid")) func arrayPassesVisitOnlyTheOwnersThatLoadedAnArray() throws {
        let db = try TestDatabase.make()
        let (one, two, swift, _) = try blog(db)
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO blog_tag (name) SELECT 't' || i FROM n
            """)
        let tags = try db.objects(SFTag.self)
        #expect(tags.count == 2_003)
        let tagRegistry = try db.registry(for: SFTag.self), postRegistry = try db.registry(for: SFPost.self)
        #expect(tagRegistry.arrayOwners().isEmpty && postRegistry.arrayOwners().isEmpty)
        _ = one.tags
        _ = swift.posts
        #expect(postRegistry.arrayOwners().map { $0 === one } == [true])
        #expect(tagRegistry.arrayOwners().map { $0 === swift } == [true])
        try two.$tags.add(swift)   // drops swift.posts (two's array was not loaded)
        #expect(swift.posts.map(\.title) == ["one", "two"])
        #expect(tagRegistry.arrayOwners().count == 1)
    }

    // PostgreSQL: no commit counter (SQLite's data_version) tells a handle that another connection committed
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: another connection's commit is not noticed without change notifications")) func anotherConnectionsLinkReachesLoadedArraysAtTheNextCall() throws {
        let temp = try TestDatabase()
        let db = temp.db
        let (_, two, _, _) = try blog(db)
        #expect(two.tags.map(\.name) == ["orm"])
        let other = try temp.openAnother()
        try other.execute("INSERT INTO blog_post_tags (post_id, tag_id) VALUES (2, 3)")
        _ = try db.object(SFPost.self, forKey: 3)
        #expect(two.tags.map(\.name) == ["orm", "sqlite"])
        try other.close()
    }
}
