import Foundation
import Strata
import StrataTestSupport
import Testing
@testable import StrataTools

// Review 18 (issue 38, point 5): `strata generate` leaves out Strata's and SQLite's own tables unless
// asked, keeps column names that are Swift identifiers (any script's letters), and `strata inspect` shows
// CHECK constraints and the table of each trigger. (The sync log levels: StrataTests' Review18SyncLogTests.)

/// What `strata generate` writes for `r18_personne` (below), and the same class compiled here: saving it
/// proves that each property reaches its column.
private let r18PersonneSource = """
    final class R18Personne: Model {
        static let tableName = "r18_personne"
        static let columnNames = ["first_name": "first name", "_2fa": "2fa"]
        var id: Int64 = 0
        var prénom: String = ""
        var 名前: String?
        var straße: String?
        var first_name: String?
        var _2fa: Int64?
        var `class`: String?
        required init() {}
    }
    """

private final class R18Personne: Model {
    static let tableName = "r18_personne"
    static let columnNames = ["first_name": "first name", "_2fa": "2fa"]
    var id: Int64 = 0
    var prénom: String = ""
    var 名前: String?
    var straße: String?
    var first_name: String?
    var _2fa: Int64?
    var `class`: String?
    required init() {}
}

@Suite(.serialized) struct Review18CLITests {
    /// A database file in a temporary folder, made by `statements`, closed; its file name.
    private func database(_ temp: TemporaryDatabase, _ statements: [String]) throws -> String {
        for sql in statements { try temp.db.execute(sql) }
        try temp.db.close()
        return URL(fileURLWithPath: temp.path).lastPathComponent
    }

    /// A file with `strata_migrations` (a migration ran), `sqlite_sequence` (AUTOINCREMENT) and
    /// `sqlite_stat1` (ANALYZE): `generate` writes the user's table and a skip line for Strata's table, and
    /// nothing of SQLite's; with `--include-internal` (or the table named with `--table`) it writes them.
    @Test func generateLeavesOutStrataAndSQLiteTablesUnlessAsked() throws {
        let temp = try TemporaryDatabase()
        var migrator = Migrator()
        migrator.register("0001_note", sql: "CREATE TABLE r18_note(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT); CREATE INDEX r18_note_title ON r18_note(title); INSERT INTO r18_note(title) VALUES ('a'), ('b')")
        #expect(try migrator.migrate(temp.db) == ["0001_note"])
        let name = try database(temp, ["ANALYZE"])
        let db = try Database(path: temp.path)
        #expect(try db.column(String.self, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == ["r18_note", "sqlite_sequence", "sqlite_stat1", "strata_migrations"])
        try db.close()

        let plain = try strata(["generate", name], in: temp.folder)
        #expect(plain.status == 0, "\(plain.error)")
        #expect(plain.output.contains("final class R18Note: Model {"))
        #expect(plain.output.contains(#"// skipped: "strata_migrations": Strata's own table (strata generate --include-internal writes it)"#), "\(plain.output)")
        #expect(!plain.output.contains("class StrataMigrations"))
        #expect(!plain.output.contains("sqlite_"), "\(plain.output)")

        let all = try strata(["generate", name, "--include-internal"], in: temp.folder)
        #expect(all.status == 0, "\(all.error)")
        #expect(all.output.contains("final class R18Note: Model {"))
        #expect(all.output.contains("final class StrataMigrations: Model {"), "\(all.output)")
        #expect(all.output.contains(#"static let tableName = "sqlite_sequence""#), "\(all.output)")
        #expect(all.output.contains(#"static let tableName = "sqlite_stat1""#))
        #expect(!all.output.contains("skipped"))

        let named = try strata(["generate", name, "--table", "strata_migrations"], in: temp.folder)
        #expect(named.status == 0, "\(named.error)")
        #expect(named.output.contains("final class StrataMigrations: Model {"), "\(named.output)")
        #expect(!named.output.contains("R18Note"))

        let help = try strata(["generate", "--help"], in: temp.folder)
        #expect(help.output.contains("--include-internal"))
    }

    /// `prénom`, `名前` and `straße` are Swift identifiers: the properties keep those names (no
    /// `columnNames` entry); `first name` and `2fa` are not, and are mapped; `class` takes backticks. The
    /// class written is the one above, whose save stores each value in its column.
    @Test func columnNamesThatAreSwiftIdentifiersStayAsTheyAre() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(#"CREATE TABLE r18_personne(id INTEGER PRIMARY KEY, prénom TEXT NOT NULL DEFAULT '', "名前" TEXT, straße TEXT, "first name" TEXT, "2fa" INTEGER, "class" TEXT)"#)
        let schema = try DatabaseSchema(reading: db)
        let table = try #require(schema.table(named: "r18_personne"))
        #expect(ModelGenerator().model(for: table).source == r18PersonneSource)
        #expect(ModelGenerator().source(for: schema).contains(r18PersonneSource))

        let person = R18Personne()
        person.prénom = "Zoé"
        person.名前 = "花子"
        person.straße = "Hauptstraße 1"
        person.first_name = "Ana"
        person._2fa = 7
        person.class = "B"
        try db.save(person)
        let stored = try db.rows(#"SELECT quote(prénom), quote("名前"), quote(straße), quote("first name"), typeof("2fa"), quote("2fa"), quote("class") FROM r18_personne"#)
        #expect(stored.count == 1)
        #expect(stored.first?.values == [.text("'Zoé'"), .text("'花子'"), .text("'Hauptstraße 1'"), .text("'Ana'"), .text("integer"), .text("7"), .text("'B'")])
        #expect(try db.syncSchema(R18Personne.self).steps.isEmpty)
    }

    /// `SwiftSource`'s identifier rules: letters of any script (and digits, combining marks after the
    /// first), never spaces, punctuation, a leading digit or a leading combining mark.
    @Test func swiftIdentifiersAreThoseOfTheLanguage() {
        for name in ["prénom", "名前", "straße", "Ωmega", "_x", "x1", "e\u{301}cole", "naïve_count"] {
            #expect(SwiftSource.isSwiftIdentifier(name), "\(name)")
        }
        for name in ["first name", "2fa", "a-b", "x.y", "", "\u{301}e", "price%", "a$b", "soft\u{AD}hyphen"] {
            #expect(!SwiftSource.isSwiftIdentifier(name), "\(name)")
        }
        #expect(SwiftSource.propertyName("prénom de famille") == "prénom_de_famille")
        #expect(SwiftSource.propertyName("2ème") == "_2ème")
        #expect(SwiftSource.propertyName("\u{301}x") == "_\u{301}x")
    }

    /// `inspect` lists each CHECK constraint (column and table ones, named or not, as written) under its
    /// table, and each trigger with its table; `--json` has a table's checks (none: no key) and the
    /// trigger's table. A table without checks prints as before.
    @Test func inspectShowsCheckConstraintsAndTheTableOfEachTrigger() throws {
        let temp = try TemporaryDatabase()
        let name = try database(temp, [
            "CREATE TABLE r18_item(id INTEGER PRIMARY KEY, price REAL CHECK (price > 0), qty DECIMAL(10, 2) CONSTRAINT positive_qty CHECK(qty >= 0), CHECK (price * qty < 1000))",
            "CREATE TABLE r18_log(item INTEGER)",
            "CREATE TRIGGER r18_item_logged AFTER INSERT ON r18_item BEGIN INSERT INTO r18_log VALUES (new.id); END",
        ])
        let inspect = try strata(["inspect", name], in: temp.folder)
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect(inspect.output.contains("""
            table r18_item: 0 rows
              column  type            affinity  not null  default  pk  kind
              id      INTEGER         INTEGER                      1
              price   REAL            REAL
              qty     DECIMAL(10, 2)  NUMERIC
              indices: none
              check (price > 0) on column price
              check (qty >= 0) on column qty named positive_qty
              check (price * qty < 1000)

            table r18_log: 0 rows
              column  type     affinity  not null  default  pk  kind
              item    INTEGER  INTEGER
              indices: none

            user_version: 0
            triggers: r18_item_logged on r18_item
            migrations: none recorded

            """), "\(inspect.output)")

        let json = try strata(["inspect", name, "--json"], in: temp.folder)
        #expect(json.status == 0, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let tables = try #require((object["schema"] as? [String: Any])?["tables"] as? [[String: Any]])
        let checks = try #require(tables.first { $0["name"] as? String == "r18_item" }?["checks"] as? [[String: String]])
        #expect(checks == [["expression": "price > 0", "column": "price"],
                           ["expression": "qty >= 0", "column": "qty", "name": "positive_qty"],
                           ["expression": "price * qty < 1000"]])
        #expect(tables.first { $0["name"] as? String == "r18_log" }.map { $0.keys.contains("checks") } == false)
        let triggers = try #require((object["details"] as? [String: Any])?["triggers"] as? [[String: String]])
        #expect(triggers.map { $0["table"] } == ["r18_item"])
    }
}
