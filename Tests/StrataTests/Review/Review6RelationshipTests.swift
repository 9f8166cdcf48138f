import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 6 of issue 11's neighbours: key types, join tables, re-creation, errors.

private final class R6Post: Model {
    static let tableName = "blog_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id", orderBy: "id DESC") var tags: [R6Tag]
    required init() {}
}

/// The same posts, their tags in the order they were linked (the join table's `id`).
private final class R6LinkOrderPost: Model {
    static let tableName = "blog_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id", orderBy: "\"blog_post_tags\".id") var tags: [R6Tag]
    required init() {}
}

private final class R6Tag: Model {
    static let tableName = "blog_tag"
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// A self many-to-many (friends) through a composite-key join table.
private final class R6Friend: Model {
    static let tableName = "friend"
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "friend_link", from: "a", to: "b", orderBy: "name") var friends: [R6Friend]
    required init() {}
}

/// `count` friends, each odd one linked to the next (no ring: every array is kept).
private func friendRing(_ db: Database, count: Int) throws {
    try db.execute("""
        CREATE TABLE friend(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
        CREATE TABLE friend_link(a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b));
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
        INSERT INTO friend SELECT i, 'f' || i FROM n;
        INSERT INTO friend_link SELECT id, id + 1 FROM friend WHERE id % 2 = 1 AND id < \(count);
        """)
}

@Suite struct Review6RelationshipTests {
    /// Django's join table has an `id` column as the target does: ordering the targets by `id` names
    /// the target's, never an ambiguous column; a name qualified by the join table still orders by it.
    @Test func siblingsOrderedByAColumnTheJoinTableHasToo() throws {
        let db = try Database()
        try db.execute(djangoBlogSQL)
        let post = try #require(try db.object(R6Post.self, forKey: 1))
        #expect(try post.$tags.load().map(\.name) == ["sqlite", "swift"])
        let log = StatementLog(db)
        let posts = try db.objects(R6Post.self, where: "ORDER BY id", prefetching: ["tags"])
        #expect(posts.map { $0.tags.map(\.name) } == [["sqlite", "swift"], ["orm"], []])
        #expect(log.count == 2)
        // Ordered by the join table's own `id` (the order the pairs were made in), as written.
        try db.execute("DELETE FROM blog_post_tags; INSERT INTO blog_post_tags (post_id, tag_id) VALUES (1, 3), (1, 1), (1, 2)")
        let linked = try #require(try db.object(R6LinkOrderPost.self, forKey: 1))
        #expect(try linked.$tags.load().map(\.name) == ["sqlite", "swift", "orm"])
    }

    /// A many-to-many prefetch is one statement per 32,768 integer keys (one JSON array each), not one per
    /// 500 owners: 3,000 owners cost 1, 40,000 cost 2.
    @Test(arguments: [(3_000, 1), (40_000, 2)])
    func siblingsPrefetchOfManyOwnersIsOneStatementPerChunk(_ owners: Int, _ statements: Int) throws {
        let db = try Database()
        try friendRing(db, count: owners)
        let all = try db.objects(R6Friend.self, where: "ORDER BY id")
        let log = StatementLog(db)
        try db.prefetch("friends", of: all)
        #expect(log.count == statements)
        #expect(all.allSatisfy { $0.friends.count == Int($0.id % 2) })
        #expect(all[0].friends.first === all[1])
        #expect(all[owners - 2].friends.first === all[owners - 1])
        #expect(log.count == statements)
    }
}
