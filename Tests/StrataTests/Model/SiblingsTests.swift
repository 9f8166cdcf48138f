import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Many-to-many through a join table: Django's auto table (id, post_id, tag_id, UNIQUE) and a composite-key one.

private final class MPost: Model {
    static let tableName = "blog_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id", orderBy: "name") var tags: [MTag]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class MTag: Model {
    static let tableName = "blog_tag"
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "blog_post_tags", from: "tag_id", to: "post_id") var posts: [MPost]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// The join table as a model of its own (a composite key), to see that its live instances follow.
private final class MPostTag: Model {
    static let tableName = "blog_post_tags"
    var id: Int64 = 0
    var post_id: Int64 = 0
    var tag_id: Int64 = 0
    required init() {}
}

/// Django's many-to-many schema (`Post.tags`, its `blog_post_tags` join table and unique index) with
/// three posts, three tags and three pairs (also used by AuditFKTests).
let djangoBlogSQL = """
        CREATE TABLE "blog_post" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "title" varchar(100) NOT NULL);
        CREATE TABLE "blog_tag" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(30) NOT NULL);
        CREATE TABLE "blog_post_tags" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
            "post_id" integer NOT NULL REFERENCES "blog_post" ("id") DEFERRABLE INITIALLY DEFERRED,
            "tag_id" integer NOT NULL REFERENCES "blog_tag" ("id") DEFERRABLE INITIALLY DEFERRED);
        CREATE UNIQUE INDEX "blog_post_tags_post_id_tag_id_uniq" ON "blog_post_tags" ("post_id", "tag_id");
        INSERT INTO blog_post (title) VALUES ('one'), ('two'), ('three');
        INSERT INTO blog_tag (name) VALUES ('swift'), ('orm'), ('sqlite');
        INSERT INTO blog_post_tags (post_id, tag_id) VALUES (1, 1), (1, 3), (2, 2);
        """

private func blog() throws -> Database {
    let db = try TestDatabase.make()
    try db.execute(djangoBlogSQL)
    return db
}

@Suite struct SiblingsTests {
    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func readsThroughTheJoinTableOnceAndCaches() throws {
        let db = try blog()
        let post = try #require(try db.object(MPost.self, forKey: 1))
        try db.syncSchema(MTag.self)
        let log = StatementLog(db)
        #expect(post.tags.map(\.name) == ["sqlite", "swift"])
        #expect(post.tags.count == 2)
        #expect(log.count == 1)
        #expect(try db.object(MTag.self, forKey: 1) === post.tags[1])   // live instances, one per row
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func addAndRemoveWriteTheJoinTableAndRespectItsUniqueIndex() throws {
        let db = try blog()
        let post = try #require(try db.object(MPost.self, forKey: 2))
        let swift = try #require(try db.object(MTag.self, forKey: 1))
        let link = try #require(try db.first(MPostTag.self, where: "WHERE post_id = 2"))
        #expect(post.tags.map(\.name) == ["orm"])
        try post.$tags.add(swift)
        try post.$tags.add(swift)                  // there already: nothing, no UNIQUE error
        #expect(post.tags.map(\.name) == ["orm", "swift"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM blog_post_tags WHERE post_id = 2") == 2)
        let orm = try #require(try db.object(MTag.self, forKey: 2))
        try post.$tags.remove(orm)
        #expect(post.tags.map(\.name) == ["swift"])
        #expect(link.isDeleted)                     // the join model's live instance saw the delete
        #expect(try post.$tags.reload().map(\.name) == ["swift"])
        let unsaved = MTag()
        #expect(throws: ModelError.self) { try post.$tags.add(unsaved) }
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func prefetchIsOneQueryForAllOwners() throws {
        let db = try blog()
        try db.syncSchema(MPost.self)
        try db.syncSchema(MTag.self)
        let log = StatementLog(db)
        let posts = try db.objects(MPost.self, where: "ORDER BY id", prefetching: ["tags", "tags.posts"])
        let queries = log.count
        #expect(queries == 3)
        #expect(posts.map { $0.tags.map(\.name) } == [["sqlite", "swift"], ["orm"], []])
        #expect(log.count == queries)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func bothSidesLoadedDoNotKeepEachOtherAlive() throws {
        let db = try blog()
        let counter = DeinitCounter()
        do {
            let post = try #require(try db.object(MPost.self, forKey: 1))
            post.counter = counter
            for tag in post.tags {
                tag.counter = counter
                #expect(tag.posts.contains { $0 === post })   // read, but not cached: it would close a cycle
            }
        }
        #expect(counter.count == 3)
    }
}

/// A post whose tags come in the default order (their key).
private final class MKeyOrderedPost: Model {
    static let tableName = "blog_post"
    static let persistentProperties = ["id", "title"]
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id") var tags: [MTag]
    required init() {}
}

extension SiblingsTests {
    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func anAddedTargetTakesItsPlaceInTheDeclaredOrder() throws {
        let db = try blog()
        let post = try #require(try db.object(MPost.self, forKey: 1))
        #expect(post.tags.map(\.name) == ["sqlite", "swift"])
        let orm = try #require(try db.object(MTag.self, forKey: 2))
        try post.$tags.add(orm)
        let log = StatementLog(db)
        #expect(post.tags.map(\.name) == ["orm", "sqlite", "swift"])     // by name: read again, once
        #expect(post.tags.count == 3)
        #expect(log.statements.filter { $0.contains("JOIN") }.count == 1)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func anAddedTargetIsInsertedByKeyInTheDefaultOrder() throws {
        let db = try blog()
        let post = try #require(try db.object(MKeyOrderedPost.self, forKey: 1))
        #expect(post.tags.map(\.id) == [1, 3])
        let orm = try #require(try db.object(MTag.self, forKey: 2))
        let log = StatementLog(db)
        try post.$tags.add(orm)
        #expect(post.tags.map(\.id) == [1, 2, 3])                        // in place: no query to read it
        #expect(!log.statements.contains { $0.contains("JOIN") })
    }
}
