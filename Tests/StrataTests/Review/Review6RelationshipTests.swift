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

/// A child over a column with no type, where other tools left integer keys as text ('1').
private final class R6Holder: Model {
    var id: Int64 = 0
    @Reference var target: R6Target?
    required init() {}
}

private final class R6Target: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "target") var holders: [R6Holder]
    required init() {}
}

/// Posts and tags through a join table whose columns have no type and hold integer keys as text.
private final class R6LPost: Model {
    static let tableName = "lpost"
    var id: Int64 = 0
    @Siblings(through: "lpost_tag", from: "post_id", to: "tag_id") var tags: [R6LTag]
    required init() {}
}

private final class R6LTag: Model {
    static let tableName = "ltag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R6Author: Model {
    static let persistentProperties = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    @Children(by: "author", orderBy: "title") var books: [R6Book]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class R6Book: Model {
    static let persistentProperties = ["id", "title", "author"]
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var author: R6Author?
    @Siblings(through: "book_label", from: "book_id", to: "label_id", orderBy: "name") var labels: [R6Label]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

private final class R6Label: Model {
    static let persistentProperties = ["id", "name", "curator"]
    var id: Int64 = 0
    var name = ""
    @Reference var curator: R6Author?
    @Siblings(through: "book_label", from: "label_id", to: "book_id") var books: [R6Book]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// Two authors, three books, two labels (each curated by an author), four links.
private func shelf(_ db: Database) throws {
    let ada = R6Author(); ada.name = "Ada"
    let bob = R6Author(); bob.name = "Bob"
    try db.save([ada, bob])
    for (title, author) in [("b", ada), ("a", ada), ("c", bob)] {
        let book = R6Book(); book.title = title; book.author = author
        try db.save(book)
    }
    let red = R6Label(); red.name = "red"; red.curator = bob
    let blue = R6Label(); blue.name = "blue"; blue.curator = ada
    try db.save([red, blue])
    try db.execute("""
        CREATE TABLE book_label (book_id INTEGER NOT NULL REFERENCES R6Book(id) ON DELETE CASCADE,
            label_id INTEGER NOT NULL REFERENCES R6Label(id) ON DELETE CASCADE, PRIMARY KEY (book_id, label_id));
        INSERT INTO book_label VALUES (1, 1), (1, 2), (2, 1), (3, 2);
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

    /// A reference reads the text '1' in a column with no type as row 1; the inverse relationships find
    /// that row too: `@Children` (loaded, prefetched, beside a live child) and `objects(matching:)` by the
    /// reference.
    @Test func childrenOverAnUntypedColumnFindIntegerKeysStoredAsText() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE R6Target(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE R6Holder(id INTEGER PRIMARY KEY, target);
            CREATE INDEX R6Holder_target ON R6Holder(target);
            INSERT INTO R6Target VALUES (1, 'one'), (2, 'two'), (3, 'three');
            INSERT INTO R6Holder VALUES (1, '1'), (2, 1), (3, 1.0), (4, '2'), (5, 'x');
            """)
        let holders = try db.objects(R6Holder.self, where: "ORDER BY id")
        #expect(holders.map { $0.target?.id } == [1, 1, 1, 2, nil])
        let one = try #require(try db.object(R6Target.self, forKey: 1))
        #expect(try one.$holders.load().map(\.id) == [1, 2, 3])
        #expect(one.holders.allSatisfy { $0.target === one })
        #expect(try db.objects(R6Holder.self, matching: ["target": 1]).map(\.id).sorted() == [1, 2, 3])
        #expect(try db.objects(R6Holder.self, matching: ["target": [Int64(1), 2]]).map(\.id).sorted() == [1, 2, 3, 4])

        // Prefetched, with the holders live already and in a fresh handle.
        let targets = try db.objects(R6Target.self, where: "ORDER BY id", prefetching: ["holders"])
        #expect(targets.map { $0.holders.map(\.id) } == [[1, 2, 3], [4], []])
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE R6Target(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE R6Holder(id INTEGER PRIMARY KEY, target);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
            INSERT INTO R6Target SELECT i, 't' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO R6Holder SELECT i, CASE WHEN i % 2 = 0 THEN CAST((i % 100) + 1 AS TEXT) ELSE (i % 100) + 1 END FROM n;
            """)
        let fresh = try temp.reopen()
        _ = try fresh.registry(for: R6Target.self)
        _ = try fresh.registry(for: R6Holder.self)
        let log = StatementLog(fresh)
        let many = try fresh.objects(R6Target.self, where: "ORDER BY id", prefetching: ["holders"])
        #expect(log.count == 2)
        #expect(many.allSatisfy { $0.holders.count == 3 })
        #expect(many[0].holders.map(\.id) == [100, 200, 300])
        #expect(log.count == 2)
    }

    /// A join table whose columns have no type and hold integer keys as text: read, prefetched, and an
    /// `add` of a pair it holds writes nothing, a `remove` deletes it.
    @Test func siblingsThroughAnUntypedJoinTableFindIntegerKeysStoredAsText() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE lpost (id INTEGER PRIMARY KEY);
            CREATE TABLE ltag (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE lpost_tag (post_id, tag_id);
            INSERT INTO lpost VALUES (1), (2);
            INSERT INTO ltag VALUES (1, 'a'), (2, 'b');
            INSERT INTO lpost_tag VALUES ('1', '1'), ('1', 2), (2, '2');
            """)
        let post = try #require(try db.object(R6LPost.self, forKey: 1))
        #expect(try post.$tags.load().map(\.name) == ["a", "b"])
        let posts = try db.objects(R6LPost.self, where: "ORDER BY id")
        let log = StatementLog(db)
        try db.prefetch("tags", of: [posts[1]])
        #expect(posts[1].tags.map(\.name) == ["b"])
        #expect(log.count == 1)
        let a = try #require(try db.object(R6LTag.self, forKey: 1))
        let b = try #require(try db.object(R6LTag.self, forKey: 2))
        try post.$tags.add(a)
        try posts[1].$tags.add(b)
        #expect(try db.value(Int.self, "SELECT count(*) FROM lpost_tag") == 3)
        try post.$tags.remove(a)
        #expect(try db.value(Int.self, "SELECT count(*) FROM lpost_tag") == 2)
        #expect(try post.$tags.reload().map(\.name) == ["b"])
        try posts[1].$tags.add(a)
        #expect(try db.rows("SELECT typeof(post_id), typeof(tag_id) FROM lpost_tag WHERE post_id = 2 AND tag_id = 1").count == 1)
        #expect(try posts[1].$tags.reload().map(\.name) == ["a", "b"])
    }

    /// A path three levels deep through @Children, @Siblings and a to-one reference is one statement per
    /// level; the graph (labels curated by the authors the path started from) is freed when let go.
    @Test func prefetchThroughChildrenSiblingsAndAReferenceIsOneStatementPerLevel() throws {
        let temp = try TemporaryDatabase()
        try shelf(temp.db)
        let db = try temp.reopen()
        for type in [R6Author.self, R6Book.self, R6Label.self] as [any Model.Type] { _ = try db.registry(for: type) }
        let counter = DeinitCounter()
        do {
            let log = StatementLog(db)
            let authors = try db.objects(R6Author.self, where: "ORDER BY name", prefetching: ["books.labels.curator"])
            #expect(log.count == 3)   // authors, books, labels (the curators are the authors, live already)
            for author in authors { author.counter = counter }
            #expect(authors.map { $0.books.map(\.title) } == [["a", "b"], ["c"]])
            #expect(authors[0].books[1].labels.map(\.name) == ["blue", "red"])
            #expect(authors[0].books[1].labels[1].curator === authors[1])
            #expect(authors[1].books[0].labels.map { $0.curator?.name } == ["Ada"])
            #expect(log.count == 3)
            for book in authors.flatMap(\.books) { book.counter = counter }
            for label in authors[0].books[1].labels { label.counter = counter }
        }
        #expect(counter.count == 7)   // 2 authors, 3 books, 2 labels
    }

    /// A key with no row, found by a prefetch, reads nil with no query; after another connection creates
    /// the row, the handle's next fetch sees the commit and the reference finds it.
    @Test func aMissingTargetCreatedByAnotherConnectionIsFound() throws {
        let temp = try TemporaryDatabase()
        try shelf(temp.db)
        try temp.db.execute("PRAGMA foreign_keys = OFF; UPDATE R6Label SET curator = 9 WHERE name = 'red'")
        let db = try temp.reopen()
        let labels = try db.objects(R6Label.self, where: "ORDER BY name", prefetching: ["curator"])
        let log = StatementLog(db)
        #expect(labels.map { $0.curator?.name } == ["Ada", nil])
        #expect(log.count == 0)
        let other = try Database(path: temp.path)
        try other.execute("INSERT INTO R6Author (id, name) VALUES (9, 'Cy')")
        try other.close()
        #expect(labels[1].curator == nil)                       // not seen before the handle's next call
        #expect(try db.objects(R6Author.self).count == 3)       // a fetch: it sees the commit
        #expect(labels[1].curator?.name == "Cy")
        #expect(try labels[1].$curator.load() === labels[1].curator)
    }
}
