import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

// `strata plan`, `migrate` and `diff` on postgresql:// URLs (issue 35, point 8).

/// The test server's URL with the handle's current schema as its search_path.
private func url(for db: Database) throws -> String {
    (postgresURL ?? "") + "&options=-csearch_path%3D" + (try db.value(String.self, "SELECT current_schema()") ?? "")
}

@Suite("PostgreSQL in strata plan, migrate and diff", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresCLIPlanTests {
    @Test func planReadsWithoutWritingAndMigrateAppliesEachFileOnce() throws {
        try withDatabase { db throws in
            try withMigrationFolder([
                "0001_create.sql": "CREATE TABLE r35c_tag(id bigint PRIMARY KEY, name text NOT NULL);",
                "0002_seed.sql": "INSERT INTO r35c_tag VALUES (1, 'red'), (2, 'blue');",
            ]) { folder throws in
                let target = try url(for: db)
                let plan = try strata(["plan", target, "--migrations", folder.path])
                #expect(plan.status == 0, "\(plan.error)")
                #expect(plan.output == "-- 0001_create\nCREATE TABLE r35c_tag(id bigint PRIMARY KEY, name text NOT NULL);\n-- 0002_seed\nINSERT INTO r35c_tag VALUES (1, 'red'), (2, 'blue');\n")
                #expect(try db.value(Bool.self, "SELECT to_regclass('strata_migrations') IS NULL") == true)   // plan wrote nothing

                let run = try strata(["migrate", target, "--migrations", folder.path])
                #expect(run.status == 0, "\(run.error)")
                #expect(run.output == "applied 0001_create\napplied 0002_seed\n")
                #expect(try db.column(String.self, "SELECT name FROM r35c_tag ORDER BY id") == ["red", "blue"])
                var migrator = Migrator()
                try migrator.registerSQLFiles(in: folder)
                #expect(try db.rows("SELECT id, checksum FROM strata_migrations ORDER BY seq").map { [$0["id"], $0["checksum"]] }
                        == migrator.migrations.map { [.text($0.id), .text($0.checksum ?? "")] })

                #expect(try strata(["migrate", target, "--migrations", folder.path]).output == "no pending migrations\n")
                let json = try strata(["plan", target, "--migrations", folder.path, "--json"])
                let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
                #expect(object?["applied"] as? [String] == ["0001_create", "0002_seed"])
                #expect((object?["pending"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test func aFailingFileStopsMigrateWithItsSQLStateAndPlanSchemaOnAURLSaysWhatToDo() throws {
        try withDatabase { db throws in
            try withMigrationFolder([
                "1_ok.sql": "CREATE TABLE r35c_a(id bigint);",
                "2_bad.sql": "CREATE TABLE r35c_b(id bigint);\nINSERT INTO r35c_nowhere VALUES (1);",
            ]) { folder throws in
                let target = try url(for: db)
                let run = try strata(["migrate", target, "--migrations", folder.path])
                #expect(run.status == 1)
                #expect(run.output == "applied 1_ok\n")
                #expect(run.error.contains("migration 2_bad: failed and was rolled back (PostgreSQL error 42P01: relation \"r35c_nowhere\" does not exist"))
                #expect(run.error.split(separator: "\n").count == 1)
                #expect(try db.value(Bool.self, "SELECT to_regclass('r35c_b') IS NULL") == true)
                #expect(try db.column(String.self, "SELECT id FROM strata_migrations") == ["1_ok"])

                let schema = try strata(["plan", target, "--schema", folder.appendingPathComponent("1_ok.sql").path])
                #expect(schema.status == 1)
                #expect(schema.error.contains("plan --schema runs the schema file on SQLite and compares SQLite files only; for PostgreSQL, load the file into a scratch database and run `strata diff` on the two URLs, or plan --migrations"))
                let unreachable = try strata(["migrate", "postgresql://app:s3cret@localhost:1/nowhere?connect_timeout=1", "--migrations", folder.path])
                #expect(unreachable.status == 1)
                #expect(unreachable.error.contains("cannot connect to postgresql://app:***@localhost:1/nowhere"))
                #expect(!unreachable.error.contains("s3cret"))
            }
        }
    }

    @Test func diffOfTwoURLsPrintsPostgresSQL() throws {
        try withDatabase { old throws in
            try withDatabase { new throws in
                try old.execute("CREATE TABLE r35c_note(id bigserial PRIMARY KEY, body text NOT NULL)")
                try new.execute("""
                    CREATE TABLE r35c_note(id bigserial PRIMARY KEY, body text NOT NULL, pinned boolean NOT NULL DEFAULT false);
                    CREATE TABLE r35c_tag(id bigserial PRIMARY KEY, note_id bigint REFERENCES r35c_note(id), name varchar(40) NOT NULL);
                    CREATE INDEX r35c_tag_name ON r35c_tag (name DESC);
                    """)
                let diff = try strata(["diff", try url(for: old), try url(for: new)])
                #expect(diff.status == 0, "\(diff.error)")
                #expect(diff.output == """
                    ALTER TABLE "r35c_note" ADD COLUMN "pinned" boolean NOT NULL DEFAULT false;
                    CREATE TABLE "r35c_tag" ("id" bigserial NOT NULL, "note_id" bigint REFERENCES "r35c_note"("id"), "name" character varying(40) NOT NULL, PRIMARY KEY ("id"));
                    CREATE INDEX "r35c_tag_name" ON "r35c_tag" ("name" DESC);

                    """)
                // The statements run, and bring the first schema to the second.
                try old.execute(diff.output)
                let same = try strata(["diff", try url(for: old), try url(for: new)])
                #expect(same.output == "-- the schemas are the same\n")
            }
        }
    }

    @Test func diffBetweenASQLiteFileAndAURLWritesTheFirstDatabasesTypes() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE r35c_item(id INTEGER PRIMARY KEY, title TEXT NOT NULL, price REAL, added DATETIME)")
        try temp.db.close()
        try withDatabase { db throws in
            try db.execute("CREATE TABLE r35c_item(id bigint PRIMARY KEY, title text NOT NULL, done boolean DEFAULT false)")
            let toURL = try strata(["diff", temp.path, try url(for: db)])
            #expect(toURL.status == 0, "\(toURL.error)")
            #expect(toURL.output == """
                ALTER TABLE "r35c_item" ADD COLUMN "done" INTEGER DEFAULT false;
                -- column r35c_item.price is only in the first database (dropping is not additive)
                -- column r35c_item.added is only in the first database (dropping is not additive)

                """)
            try db.execute("DROP TABLE r35c_item")
            let fromURL = try strata(["diff", try url(for: db), temp.path])
            #expect(fromURL.status == 0, "\(fromURL.error)")
            #expect(fromURL.output == """
                CREATE TABLE "r35c_item" ("id" bigint, "title" text NOT NULL, "price" double precision, "added" timestamp with time zone, PRIMARY KEY ("id"));

                """)
            try db.execute(fromURL.output)
            #expect(try strata(["diff", try url(for: db), temp.path]).output == "-- the schemas are the same\n")
        }
    }
}
