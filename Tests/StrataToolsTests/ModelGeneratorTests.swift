import Foundation
import Testing
import Strata
@testable import StrataTools

@Suite struct ModelGeneratorTests {
    let generator = ModelGenerator()

    func source(_ table: TableSchema) -> String { generator.model(for: table).source }

    @Test func typesFollowAffinityAndDeclaredType() {
        let table = TableSchema(name: "Item", columns: [
            ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1),
            ColumnSchema(name: "count", declaredType: "bigint"),
            ColumnSchema(name: "price", declaredType: "double precision"),
            ColumnSchema(name: "title", declaredType: "varchar(40)"),
            ColumnSchema(name: "photo", declaredType: "BLOB"),
            ColumnSchema(name: "created", declaredType: "datetime"),
            ColumnSchema(name: "day", declaredType: "DATE"),
            ColumnSchema(name: "seen", declaredType: "TIMESTAMP"),
            ColumnSchema(name: "done", declaredType: "boolean"),
            ColumnSchema(name: "amount", declaredType: "decimal(10,2)"),
            ColumnSchema(name: "kind", declaredType: "STRING"),
            ColumnSchema(name: "anything", declaredType: ""),
        ])
        #expect(source(table) == """
            final class Item: Model {
                var id: Int64 = 0
                var count: Int64?
                var price: Double?
                var title: String?
                var photo: Data?
                var created: Date?
                var day: Date?
                var seen: Date?
                var done: Bool?
                var amount: Decimal?
                var kind: SQLValue = .null
                var anything: SQLValue = .null
                required init() {}
            }
            """)
    }

    @Test func notNullColumnsGetDefaults() {
        let table = TableSchema(name: "item", columns: [
            ColumnSchema(name: "code", declaredType: "TEXT", notNull: true, primaryKeyPosition: 1),
            ColumnSchema(name: "count", declaredType: "INTEGER", notNull: true),
            ColumnSchema(name: "price", declaredType: "REAL", notNull: true),
            ColumnSchema(name: "title", declaredType: "TEXT", notNull: true),
            ColumnSchema(name: "photo", declaredType: "BLOB", notNull: true),
            ColumnSchema(name: "created", declaredType: "DATETIME", notNull: true),
            ColumnSchema(name: "done", declaredType: "BOOL", notNull: true),
            // SQLValue can hold NULL, so Strata refuses it for NOT NULL columns.
            ColumnSchema(name: "amount", declaredType: "NUMERIC", notNull: true),
            ColumnSchema(name: "anything", declaredType: "", notNull: true),
        ])
        #expect(source(table) == """
            final class Item: Model {
                static let tableName = "item"
                static let primaryKey = "code"
                var code: String = ""
                var count: Int64 = 0
                var price: Double = 0
                var title: String = ""
                var photo: Data = Data()
                var created: Date = Date(timeIntervalSince1970: 0)
                var done: Bool = false
                var amount: Double = 0
                var anything: String = ""
                required init() {}
            }
            """)
    }

    @Test func literalDefaultsBecomeInitialValues() {
        let table = TableSchema(name: "Setting", columns: [
            ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1),
            ColumnSchema(name: "level", declaredType: "INTEGER", defaultSQL: "1"),
            ColumnSchema(name: "retries", declaredType: "INTEGER", notNull: true, defaultSQL: "'3'"),
            ColumnSchema(name: "offset", declaredType: "INTEGER", notNull: true, defaultSQL: "(-2)"),
            ColumnSchema(name: "ratio", declaredType: "REAL", notNull: true, defaultSQL: "0.5"),
            ColumnSchema(name: "label", declaredType: "TEXT", defaultSQL: "'it''s \"x\"'"),
            ColumnSchema(name: "nullText", declaredType: "TEXT", defaultSQL: "'NULL'"),
            ColumnSchema(name: "noDefault", declaredType: "TEXT", defaultSQL: "NULL"),
            ColumnSchema(name: "state", declaredType: "TEXT", notNull: true, defaultSQL: "archived"),
            ColumnSchema(name: "enabled", declaredType: "BOOLEAN", notNull: true, defaultSQL: "TRUE"),
            ColumnSchema(name: "stamp", declaredType: "DATETIME", notNull: true, defaultSQL: "CURRENT_TIMESTAMP"),
            ColumnSchema(name: "raw", declaredType: "NUMERIC", defaultSQL: "7"),
            ColumnSchema(name: "computed", declaredType: "INTEGER", notNull: true, defaultSQL: "(abs(-1) + 1)"),
        ])
        #expect(source(table) == #"""
            final class Setting: Model {
                var id: Int64 = 0
                var level: Int64? = 1
                var retries: Int64 = 3
                var offset: Int64 = -2
                var ratio: Double = 0.5
                var label: String? = "it's \"x\""
                var nullText: String? = "NULL"
                var noDefault: String?
                var state: String = "archived"
                var enabled: Bool = true
                var stamp: Date = Date()
                var raw: SQLValue = .integer(7)
                var computed: Int64 = 0
                required init() {}
            }
            """#)
    }

    @Test func keysIndicesAndGeneratedColumns() {
        let table = TableSchema(name: "blog_posts", columns: [
            ColumnSchema(name: "post_id", declaredType: "INTEGER", notNull: true, primaryKeyPosition: 1),
            ColumnSchema(name: "author", declaredType: "INTEGER", notNull: true),
            ColumnSchema(name: "title", declaredType: "TEXT", notNull: true),
            ColumnSchema(name: "slug", declaredType: "TEXT"),
            ColumnSchema(name: "length", declaredType: "INTEGER", hidden: 2),
        ], indices: [
            IndexSchema(name: "by_author", columns: ["author"]),
            IndexSchema(name: "by_author_title", columns: ["author", "title"], unique: true),
            IndexSchema(name: "by_author_again", columns: ["author"]),           // same columns: declared once
            IndexSchema(name: "by_length", columns: ["length"]),                 // a generated column
            IndexSchema(name: "by_title_desc", columns: ["title"], descending: [true]),
            IndexSchema(name: "by_lower_title", columns: [nil]),                 // an expression
            IndexSchema(name: "recent", columns: ["slug"], partial: true),
            IndexSchema(name: "sqlite_autoindex_blog_posts_1", columns: ["slug"], unique: true, origin: "u"),
        ])
        #expect(source(table) == """
            final class BlogPosts: Model {
                static let tableName = "blog_posts"
                static let primaryKey = "post_id"
                static let indices = [["author"], ["length"]]
                static let uniqueIndices = [["author", "title"]]
                var post_id: Int64 = 0
                var author: Int64 = 0
                var title: String = ""
                var slug: String?
                var length: Int64?  // generated column: read, never written
                required init() {}
            }
            """)
    }

    @Test func keywordColumnsAreEscaped() {
        let table = TableSchema(name: "Thing", columns: [
            ColumnSchema(name: "id", declaredType: "TEXT", primaryKeyPosition: 1),
            ColumnSchema(name: "class", declaredType: "TEXT"),
            ColumnSchema(name: "default", declaredType: "INTEGER"),
        ])
        #expect(source(table) == """
            final class Thing: Model {
                var id: String = ""
                var `class`: String?
                var `default`: Int64?
                required init() {}
            }
            """)
    }

    @Test func tablesStrataCannotMapAreSkipped() {
        let cases: [(TableSchema, String)] = [
            (TableSchema(name: "items", columns: [ColumnSchema(name: "rowid", declaredType: "INT"), ColumnSchema(name: "oid", declaredType: "INT"),
                                                   ColumnSchema(name: "_rowid_", declaredType: "INT")]),
             #"// skipped: "items": no PRIMARY KEY, and its rowid has no free name; a Strata model needs a key"#),
            (TableSchema(name: "measures", columns: [ColumnSchema(name: "at", declaredType: "REAL", primaryKeyPosition: 1)]),
             #"// skipped: "measures": primary key "at" has REAL affinity; a Strata key is an integer or a string"#),
            (TableSchema(name: "search", columns: [], isVirtual: true),
             #"// skipped: "search": a virtual table; Strata models map ordinary tables"#),
        ]
        for (table, expected) in cases {
            #expect(source(table) == expected)
            if case .skipped(let name, _) = generator.model(for: table) { #expect(name == table.name) } else { Issue.record("\(table.name) was not skipped") }
        }
    }

    @Test func wholeFileNamesClassesUniquely() {
        let id = ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1)
        let schema = DatabaseSchema(tables: [
            TableSchema(name: "data", columns: [id]),
            TableSchema(name: "user_tag", columns: [id]),
            TableSchema(name: "userTag", columns: [id]),
            TableSchema(name: "2fa", columns: [id]),
            TableSchema(name: "log", columns: []),
        ])
        #expect(generator.source(for: schema, origin: "app.sqlite") == """
            // Strata models for the tables of app.sqlite, written by `strata generate`.
            // Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

            import Foundation
            import Strata

            final class DataRecord: Model {
                static let tableName = "data"
                var id: Int64 = 0
                required init() {}
            }

            final class UserTag: Model {
                static let tableName = "user_tag"
                var id: Int64 = 0
                required init() {}
            }

            final class UserTag2: Model {
                static let tableName = "userTag"
                var id: Int64 = 0
                required init() {}
            }

            final class Table2fa: Model {
                static let tableName = "2fa"
                var id: Int64 = 0
                required init() {}
            }

            final class Log: Model {
                static let tableName = "log"
                static let primaryKey = "rowid"
                static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
                var rowid: Int64 = 0
                required init() {}
            }

            """)
    }

    @Test func readsTablesFromADatabase() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', body TEXT, stars INT NOT NULL DEFAULT 0,
                               created DATETIME, lower_title TEXT GENERATED ALWAYS AS (lower(title)) STORED)
            """)
        try db.execute("CREATE INDEX note_created ON note (created)")
        try db.execute("CREATE UNIQUE INDEX note_title ON note (title)")
        try db.execute("CREATE INDEX note_lower ON note (lower(title))")
        let schema = try DatabaseSchema(reading: db)
        #expect(generator.model(for: schema.tables[0]).source == """
            final class Note: Model {
                static let tableName = "note"
                static let indices = [["created"]]
                static let uniqueIndices = [["title"]]
                var id: Int64 = 0
                var title: String = ""
                var body: String?
                var stars: Int64 = 0
                var created: Date?
                var lower_title: String?  // generated column: read, never written
                required init() {}
            }
            """)
    }

    @Test func columnsThatCannotNamePropertiesAreMapped() {
        let id = ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1)
        let table = TableSchema(name: "people", columns: [
            id, ColumnSchema(name: "first name", declaredType: "TEXT"), ColumnSchema(name: "isDeleted", declaredType: "INTEGER"),
            ColumnSchema(name: "2nd", declaredType: "TEXT"), ColumnSchema(name: "first_name", declaredType: "TEXT"),
        ])
        #expect(source(table) == """
            final class People: Model {
                static let tableName = "people"
                static let columnNames = ["first_name_": "first name", "isDeletedColumn": "isDeleted", "_2nd": "2nd"]
                var id: Int64 = 0
                var first_name_: String?
                var isDeletedColumn: Int64?
                var _2nd: String?
                var first_name: String?
                required init() {}
            }
            """)
    }

    @Test func foreignKeysBecomeReferencesAndViewsReadOnlyModels() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE tag (code TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE post (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES author(id),
                               editorId INTEGER REFERENCES author, reviewer INTEGER REFERENCES author(id),
                               tag TEXT REFERENCES tag(code), price NUMERIC(10, 2) NOT NULL DEFAULT 0);
            CREATE VIEW post_titles AS SELECT id, author_id FROM post;
            """)
        let source = generator.source(for: try DatabaseSchema(reading: db))
        #expect(source.contains("""
            final class Post: Model {
                static let tableName = "post"
                var id: Int64 = 0
                @Reference var author: Author?  // NOT NULL: saving without one throws
                @Reference var editor: Author?
                @Reference var reviewer: Author?
                @Reference var tag: Tag?
                var price: Decimal = 0
                required init() {}
            }
            """))
        #expect(source.contains("""
            final class PostTitles: Model {
                static let tableName = "post_titles"
                static let isReadOnly = true   // a view
                var id: Int64 = 0
                var author_id: Int64?
                required init() {}
            }
            """))
    }

    @Test func aTableWithoutAPrimaryKeyIsKeyedByItsRowID() throws {
        let db = try Database()
        try db.execute("CREATE TABLE items (i0 INTEGER, oid TEXT); INSERT INTO items VALUES (1, 'a'), (2, 'b')")
        let source = generator.model(for: try DatabaseSchema(reading: db).tables[0]).source
        #expect(source == """
            final class Items: Model {
                static let tableName = "items"
                static let primaryKey = "rowid"
                static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
                var rowid: Int64 = 0
                var i0: Int64?
                var oid: String?
                required init() {}
            }
            """)
    }

    @Test func compositeKeys() {
        let table = TableSchema(name: "link", columns: [ColumnSchema(name: "a", declaredType: "INTEGER", notNull: true, primaryKeyPosition: 2),
                                                        ColumnSchema(name: "b", declaredType: "TEXT", notNull: true, primaryKeyPosition: 1),
                                                        ColumnSchema(name: "n", declaredType: "INTEGER")])
        #expect(source(table) == """
            final class Link: Model {
                static let tableName = "link"
                static let compositeKey = ["b", "a"]
                var a: Int64 = 0
                var b: String = ""
                var n: Int64?
                required init() {}
            }
            """)
    }

    /// Django's `UUIDField(primary_key=True)` is a `char(32)` key holding 32 hex digits: the generated
    /// model keys it by `UUID` (as a non-key `char(32)` column already was), and a reference to it is a
    /// `@Reference`. The model below is the generated one, word for word; it reads and writes Django's rows.
    @Test func aDjangoUUIDKeyBecomesAUUIDKey() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE "shop_order" ("id" char(32) NOT NULL PRIMARY KEY, "note" varchar(20) NOT NULL);
            CREATE TABLE "shop_line" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
                "order_id" char(32) NOT NULL REFERENCES "shop_order" ("id") DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO shop_order VALUES ('0a1b2c3d4e5f40718293a4b5c6d7e8f9', 'first');
            INSERT INTO shop_line (order_id) VALUES ('0a1b2c3d4e5f40718293a4b5c6d7e8f9');
            """)
        let source = generator.source(for: try DatabaseSchema(reading: db))
        #expect(source.contains("""
            final class ShopOrder: Model {
                static let tableName = "shop_order"
                var id: UUID = UUID()
                var note: String = ""
                required init() {}
            }
            """))
        #expect(source.contains("""
            final class ShopLine: Model {
                static let tableName = "shop_line"
                var id: Int64 = 0
                @Reference var order: ShopOrder?  // NOT NULL: saving without one throws
                required init() {}
            }
            """))

        let key = try #require(UUID(uuidString: "0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9"))
        let line = try #require(try db.objects(GeneratedShopLine.self).first)
        #expect(line.order?.id == key)
        #expect(line.order?.note == "first")
        let order = GeneratedShopOrder(); order.note = "second"
        try db.save(order)   // a new key of its own (as Django's uuid4 default gives), saved before the line refers to it
        let another = GeneratedShopLine(); another.order = order
        try db.save(another)
        #expect(try db.object(GeneratedShopOrder.self, forKey: order.id)?.note == "second")
        // Stored as Django stores it: 32 lowercase hex digits, in both tables.
        let hex = order.id.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        #expect(try db.rows("SELECT id FROM shop_order ORDER BY note").map { $0[0] } == [.text("0a1b2c3d4e5f40718293a4b5c6d7e8f9"), .text(hex)])
        #expect(try db.rows("SELECT order_id FROM shop_line ORDER BY id").map { $0[0] } == [.text("0a1b2c3d4e5f40718293a4b5c6d7e8f9"), .text(hex)])
    }

    @Test func selectingTables() throws {
        let id = ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1)
        let schema = DatabaseSchema(tables: [TableSchema(name: "a", columns: [id]), TableSchema(name: "B", columns: [id])])
        #expect(try schema.selecting(["b"]).tables.map(\.name) == ["B"])
        #expect(try schema.selecting([]).tables.count == 2)
        #expect(throws: ToolError.self) { try schema.selecting(["c"]) }
    }
}

/// What `strata generate` writes for the tables of ``ModelGeneratorTests/aDjangoUUIDKeyBecomesAUUIDKey()``.
final class GeneratedShopOrder: Model {
    static let tableName = "shop_order"
    var id: UUID = UUID()
    var note: String = ""
    required init() {}
}

final class GeneratedShopLine: Model {
    static let tableName = "shop_line"
    var id: Int64 = 0
    @Reference var order: GeneratedShopOrder?  // NOT NULL: saving without one throws
    required init() {}
}
