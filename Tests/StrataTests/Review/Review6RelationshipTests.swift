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
}
