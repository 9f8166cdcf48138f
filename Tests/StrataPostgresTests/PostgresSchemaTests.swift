import Foundation
import Strata
import StrataPostgres
import Testing

// Models synced on PostgreSQL by the planner Strata uses on SQLite, and the catalog read back.

struct Settings: Codable, Equatable {
    var theme = "dark"
}

enum Mood: String, Codable {
    case calm, busy
}

final class PGArtist: Model {
    static let tableName = "artist"
    static let uniqueIndices = [["name"]]
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class PGAlbum: Model {
    static let tableName = "album"
    static let indices = [["year", "title"]]
    var id: Int64 = 0
    var title = ""
    var year = 0
    var rating = 0.0
    var isLive = false
    var releasedAt = Date(timeIntervalSince1970: 0)
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var cover = Data()
    var price = Decimal(0)
    var settings = Settings()
    var mood = Mood.calm
    var note: String?
    @Reference(onDelete: .cascade) var artist: PGArtist?
    required init() {}
}

/// The album table as a later release declares it: one property more, one index more.
final class PGAlbumV2: Model {
    static let tableName = "album"
    static let indices = [["year", "title"], ["subtitle"]]
    var id: Int64 = 0
    var title = ""
    var year = 0
    var rating = 0.0
    var isLive = false
    var releasedAt = Date(timeIntervalSince1970: 0)
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var cover = Data()
    var price = Decimal(0)
    var settings = Settings()
    var mood = Mood.calm
    var note: String?
    var subtitle = "none"
    @Reference(onDelete: .cascade) var artist: PGArtist?
    required init() {}
}

final class PGTag: Model {
    static let tableName = "tag"
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

final class PGTagging: Model {
    static let tableName = "tagging"
    static let compositeKey = ["album", "tag"]
    @Reference var album: PGAlbum?
    @Reference var tag: PGTag?
    var weight = 1
    required init() {}
}

/// A model whose table exists with a column of a type its property cannot hold.
final class PGBadFit: Model {
    static let tableName = "bad_fit"
    var id: Int64 = 0
    var count = 0
    required init() {}
}

/// Rows of a catalog query as `[column: text]`, for assertions about what PostgreSQL holds.
private func rows(_ connection: PostgresConnection, _ sql: String) throws -> [[String]] {
    let statement = try connection.prepare(sql)
    var result: [[String]] = []
    while try statement.step() {
        result.append((0..<statement.columnCount).map { statement.cell(at: $0).string ?? "?" })
    }
    return result
}

@Suite("PostgreSQL schema", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresSchemaTests {
    @Test func theIntrospectorReadsTablesColumnsKeysIndicesForeignKeysViewsAndTriggersInOneStatement() throws {
        try withSchema { connection in
            try connection.execute("""
                CREATE TABLE parent(a int NOT NULL, b text NOT NULL, PRIMARY KEY (a, b));
                CREATE TABLE child(
                    id serial PRIMARY KEY,
                    ident bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
                    name varchar(20) NOT NULL DEFAULT 'x',
                    made timestamp without time zone,
                    at timestamptz,
                    price numeric(10, 2),
                    flag boolean,
                    blob bytea,
                    tags text[],
                    doubled int GENERATED ALWAYS AS (ident * 2) STORED,
                    pa int, pb text,
                    FOREIGN KEY (pa, pb) REFERENCES parent(a, b) ON DELETE SET NULL);
                CREATE INDEX child_lower ON child (lower(name));
                CREATE INDEX child_partial ON child (name DESC) WHERE flag;
                CREATE INDEX child_collated ON child (name COLLATE "C");
                CREATE VIEW child_names AS SELECT id, name FROM child WHERE flag;
                CREATE VIEW child_count AS SELECT count(*) AS n FROM child;
                CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
                CREATE TRIGGER child_touch BEFORE UPDATE ON child FOR EACH ROW EXECUTE FUNCTION touch();
                """)
            let introspector = try PostgresIntrospector(connection)
            #expect(try introspector.tableNames() == ["child", "child_count", "child_names", "parent"])

            let child = try #require(try introspector.table("child"))
            #expect(child.columns.map(\.name) == ["id", "ident", "name", "made", "at", "price", "flag", "blob", "tags", "doubled", "pa", "pb"])
            #expect(child.columns.map(\.declaredType) == ["integer", "bigint", "character varying(20)", "timestamp without time zone",
                                                          "timestamp with time zone", "numeric(10,2)", "boolean", "bytea", "text[]",
                                                          "integer", "integer", "text"])
            #expect(child.columns.map(\.affinity) == [.integer, .integer, .text, .text, .text, .numeric, .integer, .blob, .text,
                                                      .integer, .integer, .text])
            #expect(child.columns.map(\.notNull) == [true, true, true, false, false, false, false, false, false, false, false, false])
            #expect(child.columns.map(\.defaultSQL) == ["nextval('child_id_seq'::regclass)", nil, "'x'::character varying", nil, nil, nil,
                                                        nil, nil, nil, "(ident * 2)", nil, nil])
            #expect(child.columns.map(\.primaryKeyPosition) == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
            #expect(child.columns.map(\.hidden) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0])
            #expect(child.withoutRowID)
            #expect(!child.isView)

            let indices = Dictionary(uniqueKeysWithValues: child.indices.map { ($0.name, $0) })
            #expect(Set(indices.keys) == ["child_pkey", "child_ident_key", "child_lower", "child_partial", "child_collated"])
            #expect(indices["child_pkey"].map { [$0.origin, "\($0.unique)", "\($0.columns)"] } == ["pk", "true", "[Optional(\"id\")]"])
            #expect(indices["child_ident_key"].map { [$0.origin, "\($0.unique)"] } == ["u", "true"])
            #expect(indices["child_lower"].map { $0.columns == [nil] && !$0.unique && $0.origin == "c" } == true)
            #expect(indices["child_partial"].map { $0.partial && $0.descending == [true] && $0.columns == ["name"] } == true)
            #expect(indices["child_collated"].map { $0.hasExplicitCollation && !$0.partial } == true)
            #expect(indices["child_lower"]?.hasExplicitCollation == false)

            #expect(child.foreignKeys.map { [$0.from, $0.table, $0.onDelete, $0.to ?? "-", "\($0.sequence)"] }
                    == [["pa", "parent", "SET NULL", "a", "0"], ["pb", "parent", "SET NULL", "b", "1"]])
            #expect(child.triggerSQL.count == 1)
            #expect(child.triggerSQL.first?.contains("CREATE TRIGGER child_touch BEFORE UPDATE ON") == true)

            let parent = try #require(try introspector.table("parent"))
            #expect(parent.columns.map(\.primaryKeyPosition) == [1, 2])
            #expect(introspector.primaryKeyColumnNames(of: "parent") == ["a", "b"])
            #expect(introspector.foreignKeys(referencing: "parent").map { [$0.child, $0.from.joined(separator: ","), $0.to.joined(separator: ","), $0.onDelete] }
                    == [["child", "pa,pb", "a,b", "SET NULL"]])
            #expect(introspector.uniqueIndices(of: "child").map(\.name).sorted() == ["child_ident_key", "child_pkey"])

            let names = try #require(try introspector.table("child_names"))
            #expect(names.isView && names.isWritableView)
            #expect(names.columns.map(\.name) == ["id", "name"])
            #expect(names.createSQL.hasPrefix("CREATE VIEW \"child_names\" AS SELECT child.id,"))
            let count = try #require(try introspector.table("child_count"))
            #expect(count.isView && !count.isWritableView)

            #expect(try introspector.index(named: "child_partial").map { [$0.table, $0.name] } == ["child", "child_partial"])
            #expect(try introspector.index(named: "child_pkey")?.sql == nil)   // a constraint's index
            #expect(try introspector.index(named: "no_such_index") == nil)
            #expect(try introspector.table("no_such_table") == nil)
            // Exact names first; a case-insensitive match only when it is the only one.
            #expect(try introspector.table("CHILD")?.name == "child")
        }
    }

    @Test func syncCreatesTablesInPostgresTypesWithKeysIndicesAndForeignKeysAndThenHasNothingToDo() throws {
        try withSchema { connection in
            let plans = try connection.syncSchema([PGTagging.self])
            // Referenced models first: a foreign key needs its parent table.
            #expect(plans.map(\.table) == ["artist", "album", "tag", "tagging"])
            let album = try #require(plans.first { $0.table == "album" })
            #expect(album.steps.first?.sql == """
                CREATE TABLE "album" ("id" BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "title" TEXT NOT NULL DEFAULT '', \
                "year" BIGINT NOT NULL DEFAULT 0, "rating" DOUBLE PRECISION NOT NULL DEFAULT 0.0, "isLive" BOOLEAN NOT NULL DEFAULT false, \
                "releasedAt" TIMESTAMPTZ NOT NULL DEFAULT '1970-01-01T00:00:00.000Z'::timestamptz, \
                "token" UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000'::uuid, "cover" BYTEA NOT NULL DEFAULT '\\x'::bytea, \
                "price" NUMERIC NOT NULL DEFAULT '0'::numeric, "settings" JSONB NOT NULL DEFAULT '{"theme":"dark"}'::jsonb, \
                "mood" TEXT NOT NULL DEFAULT 'calm', "note" TEXT, "artist" BIGINT REFERENCES "artist" ("id") ON DELETE CASCADE)
                """)
            #expect(album.steps.count == 2)
            #expect(album.steps.last?.sql.hasPrefix("CREATE INDEX \"strata_album_year_title_") == true)
            #expect(album.steps.last?.sql.hasSuffix("ON \"album\" (\"year\", \"title\")") == true)

            // What PostgreSQL holds, from its own catalog.
            let types = try rows(connection, """
                SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull::text, a.attidentity::text
                FROM pg_attribute a WHERE a.attrelid = 'album'::regclass AND a.attnum > 0 ORDER BY a.attnum
                """)
            #expect(types.map { $0[1] } == ["bigint", "text", "bigint", "double precision", "boolean", "timestamp with time zone",
                                            "uuid", "bytea", "numeric", "jsonb", "text", "text", "bigint"])
            #expect(types[0][3] == "d")
            let keys = try rows(connection, """
                SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'tagging'::regclass ORDER BY conname
                """)
            // Key parts that are references declare no foreign key unless they say onDelete (as on SQLite).
            #expect(keys == [["tagging_pkey", "PRIMARY KEY (album, tag)"]])
            #expect(try rows(connection, "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'album'::regclass AND contype = 'f'")
                    == [["FOREIGN KEY (artist) REFERENCES artist(id) ON DELETE CASCADE"]])
            let unique = try rows(connection, "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'artist' AND indexname LIKE 'strata_%'")
            #expect(unique.map { $0[0].contains("CREATE UNIQUE INDEX") && $0[0].contains("(name)") } == [true])

            // Read back, every model plans nothing: the round trip is exact.
            for type in [PGArtist.self, PGAlbum.self, PGTag.self, PGTagging.self] as [any Model.Type] {
                #expect(try connection.schemaPlan(for: type).steps.isEmpty, "\(type)")
            }
            #expect(try connection.syncSchema([PGAlbum.self, PGTagging.self]).allSatisfy(\.steps.isEmpty))
        }
    }

    @Test func aLaterDeclarationAddsItsColumnAndIndexOnlyAndRowsKeepTheirValues() throws {
        try withSchema { connection in
            try connection.syncSchema([PGAlbum.self])
            try connection.execute("INSERT INTO artist(name) VALUES ('Nina'); INSERT INTO album(title, year, artist) VALUES ('Live', 1965, 1)")
            let plans = try connection.syncSchema([PGAlbumV2.self])
            let album = try #require(plans.last)
            #expect(album.steps.map(\.kind).first == .addColumn("subtitle"))
            #expect(album.steps.first?.sql == "ALTER TABLE \"album\" ADD COLUMN \"subtitle\" TEXT NOT NULL DEFAULT 'none'")
            #expect(album.steps.count == 2)
            #expect(album.steps.last?.sql.hasPrefix("CREATE INDEX \"strata_album_subtitle_") == true)
            #expect(try rows(connection, "SELECT title, year::text, subtitle, \"isLive\"::text FROM album") == [["Live", "1965", "none", "false"]])
            #expect(try connection.schemaPlan(for: PGAlbumV2.self).steps.isEmpty)
            // The first declaration still maps the table: it drops nothing the later one added (a model that
            // maps only some columns drops no index).
            #expect(try connection.schemaPlan(for: PGAlbum.self).steps.isEmpty)
        }
    }

    @Test func aSyncThatFailsPartWayLeavesNothingChanged() throws {
        try withSchema { connection in
            // The first model's table is created, then the second model's plan fails: nothing stays.
            try connection.execute("CREATE TABLE bad_fit(id bigint PRIMARY KEY, count text)")
            #expect(throws: SchemaError.self) { try connection.syncSchema([PGArtist.self, PGBadFit.self]) }
            #expect(try PostgresIntrospector(connection).table("artist") == nil)
            #expect(!connection.isInTransaction)
            // Inside the caller's transaction: a savepoint, rolled back alone.
            try connection.execute("BEGIN; CREATE TABLE kept(id int)")
            #expect(throws: SchemaError.self) { try connection.syncSchema([PGArtist.self, PGBadFit.self]) }
            #expect(connection.isInTransaction)
            try connection.execute("COMMIT")
            let names = try PostgresIntrospector(connection).tableNames()
            #expect(names == ["bad_fit", "kept"])
        }
    }

    @Test func aColumnOfAnotherToolThatDoesNotFitIsASchemaErrorNamingTheColumn() throws {
        try withSchema { connection in
            try connection.execute("CREATE TABLE bad_fit(id bigint PRIMARY KEY, count text)")
            do {
                try connection.syncSchema([PGBadFit.self])
                Issue.record("no error")
            } catch let error as SchemaError {
                #expect(error.column == "count")
                #expect("\(error)".contains("text"))
            }
            // Mapped as they are: VARCHAR(n), TIMESTAMP without time zone, INTEGER, SMALLINT, SERIAL keys, CITEXT-like text.
            try connection.execute("""
                CREATE TABLE mapped(id serial PRIMARY KEY, title varchar(40) NOT NULL DEFAULT '', year smallint NOT NULL DEFAULT 0,
                                    "releasedAt" timestamp NOT NULL DEFAULT now(), rating real NOT NULL DEFAULT 0, "isLive" boolean NOT NULL DEFAULT false)
                """)
            #expect(try connection.schemaPlan(for: PGMapped.self).steps.isEmpty)
        }
    }
}

final class PGMapped: Model {
    static let tableName = "mapped"
    var id: Int64 = 0
    var title = ""
    var year = 0
    var releasedAt = Date()
    var rating = 0.0
    var isLive = false
    required init() {}
}
