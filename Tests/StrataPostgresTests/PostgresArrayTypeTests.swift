import Foundation
import Strata
import StrataPostgres
import Testing

// Columns another tool declared, mapped as they are (issue 35, point 2): `text[]` and `varchar(n)[]` as a
// Swift `[String]` (PostgreSQL's array text both ways), and `citext` as `String`.

/// A table a DBA made, with arrays of text.
private final class R35aDoc: Model {
    static let tableName = "r35a_doc"
    var id: Int64 = 0
    var tags: [String] = []
    var labels: [String]?
    required init() {}
}

/// The same table, its elements optional (NULL elements read as nil).
private final class R35aLooseDoc: Model {
    static let tableName = "r35a_doc"
    var id: Int64 = 0
    var tags: [String?] = []
    var labels: [String]?
    required init() {}
}

/// A table Strata creates: a `[String]` is JSONB there, as before.
private final class R35aFresh: Model {
    static let tableName = "r35a_fresh"
    var id: Int64 = 0
    var tags: [String] = []
    required init() {}
}

private final class R35aUser: Model {
    static let tableName = "r35a_user"
    var id: Int64 = 0
    var email = ""
    required init() {}
}

private let docDDL = """
    CREATE TABLE r35a_doc(id bigserial PRIMARY KEY, tags text[] NOT NULL, labels varchar(12)[]);
    """

/// Every character the array text quotes or escapes.
private let tricky = ["plain", "b c", "comma,here", #"quo"te"#, #"back\slash"#, "{braces}", "", "NULL", "null", " padded ", "é ✓"]


@Suite("PostgreSQL arrays and citext", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresArrayTypeTests {
    @Test func aTextArrayColumnReadsAndWritesPostgresArrayTextOnlyWhenChanged() throws {
        try withDatabase { db in
            try db.execute(docDDL)
            // Raw INSERT of tricky arrays (bound as an array of text, as another tool would).
            try db.execute("INSERT INTO r35a_doc(tags, labels) VALUES (?::text[], '{}'), ('{}', NULL)",
                           PostgresDialectLiteral.of(tricky))
            #expect(try db.schemaPlan(for: R35aDoc.self).steps.isEmpty)   // mapped as it is
            let doc = try #require(try db.object(R35aDoc.self, forKey: 1))
            #expect(doc.tags == tricky)
            #expect(doc.labels == [])
            let empty = try #require(try db.object(R35aDoc.self, forKey: 2))
            #expect(empty.tags == [] && empty.labels == nil)
            #expect(!doc.hasChanges && !empty.hasChanges)
            // An unchanged save writes nothing (the row version stays).
            let version = try db.value(String.self, "SELECT xmin::text FROM r35a_doc WHERE id = 1")
            try db.save(doc)
            #expect(try db.value(String.self, "SELECT xmin::text FROM r35a_doc WHERE id = 1") == version)
            // Another writer changes labels; a change of one element of tags writes tags only.
            try db.execute("UPDATE r35a_doc SET labels = '{x}' WHERE id = 1")
            doc.tags[1] = #"B, "c"} \"#
            try db.save(doc)
            #expect(try db.rows("SELECT tags::text, array_length(tags, 1), pg_typeof(tags)::text, labels::text FROM r35a_doc WHERE id = 1")[0].values
                    == [.text(#"{plain,"B, \"c\"} \\","comma,here","quo\"te","back\\slash","{braces}","","NULL","null"," padded ","é ✓"}"#),
                        .integer(11), .text("text[]"), .text("{x}")])
            #expect(try db.value(String.self, "SELECT tags[2] FROM r35a_doc WHERE id = 1") == #"B, "c"} \"#)
            // A new row: the array and an empty one; nil is NULL.
            let new = R35aDoc()
            new.tags = ["a\"b", ""]
            new.labels = []
            try db.save(new)
            #expect(try db.rows("SELECT tags::text, labels::text, cardinality(labels) FROM r35a_doc WHERE id = 3")[0].values
                    == [.text(#"{"a\"b",""}"#), .text("{}"), .integer(0)])
            // Another handle reads what was written.
            let other = try Database(postgresURL: postgresURL ?? "")
            defer { try? other.close() }
            try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
            #expect(try other.object(R35aDoc.self, forKey: 1)?.tags == doc.tags)
            #expect(try other.object(R35aDoc.self, forKey: 3)?.tags == ["a\"b", ""])
            // A varchar(12)[] element too long for the column is the engine's error; nothing written.
            new.labels = [String(repeating: "x", count: 13)]
            #expect(throws: DatabaseError.self) { try db.save(new) }
            #expect(try db.value(String.self, "SELECT labels::text FROM r35a_doc WHERE id = 3") == "{}")
        }
    }

    @Test func aModelStrataCreatesKeepsItsStringArrayAsJSONB() throws {
        try withDatabase { db in
            // (Unchanged behaviour: only an existing array column is read as one.)
            let fresh = R35aFresh()
            fresh.tags = ["a", "b c"]
            try db.save(fresh)
            #expect(try db.rows("SELECT pg_typeof(tags)::text, tags::text FROM r35a_fresh")[0].values == [.text("jsonb"), .text(#"["a", "b c"]"#)])
            // Beside it, an existing text[] column of another model reads as an array.
            try db.execute(docDDL + "INSERT INTO r35a_doc(tags) VALUES ('{\"b c\",d}')")
            #expect(try db.object(R35aDoc.self, forKey: 1)?.tags == ["b c", "d"])
            #expect(try db.objects(R35aDoc.self, where: \.tags == ["b c", "d"]).map(\.id) == [1])
            #expect(try db.objects(R35aDoc.self, where: \.tags != ["b c"]).map(\.id) == [1])
            #expect(try db.objects(R35aDoc.self, where: \.labels == nil).map(\.id) == [1])
            #expect(try db.objects(R35aDoc.self, where: (\R35aDoc.tags).in([["x"], ["b c", "d"]])).map(\.id) == [1])
            // A lower bound other than 1 reads its elements in order; a multidimensional array is a named error.
            try db.execute("INSERT INTO r35a_doc(tags) VALUES ('[0:1]={x,y}'), ('{{a,b},{c,d}}')")
            #expect(try db.value(String.self, "SELECT tags::text FROM r35a_doc WHERE id = 2") == "[0:1]={x,y}")
            #expect(try db.object(R35aDoc.self, forKey: 2)?.tags == ["x", "y"])
            do {
                _ = try db.object(R35aDoc.self, forKey: 3)
                Issue.record("no error was thrown")
            } catch let error as ValueConversionError {
                #expect(error.model == "R35aDoc" && error.column == "tags" && error.reason == "not a one-dimensional array's text")
            }
            #expect(try db.object(R35aFresh.self, forKey: 1)?.tags == ["a", "b c"])
        }
    }

    @Test func aNullElementIsANamedErrorForStringAndNilForOptionalElements() throws {
        try withDatabase { db in
            try db.execute(docDDL + "INSERT INTO r35a_doc(tags) VALUES (ARRAY['a', NULL, 'c'])")
            do {
                _ = try db.object(R35aDoc.self, forKey: 1)
                Issue.record("no error was thrown")
            } catch let error as ValueConversionError {
                #expect(error.model == "R35aDoc" && error.property == "tags" && error.column == "tags")
                #expect(error.reason?.contains("NULL element") == true)
                #expect(error.reason?.contains("[String?]") == true)
            }
            let loose = try #require(try db.object(R35aLooseDoc.self, forKey: 1))
            #expect(loose.tags == ["a", nil, "c"])
            loose.tags.append(nil)
            loose.tags[0] = "NULL"
            try db.save(loose)
            #expect(try db.rows("SELECT tags::text, tags[1] IS NULL, tags[2] IS NULL, tags[4] IS NULL FROM r35a_doc")[0].values
                    == [.text(#"{"NULL",NULL,c,NULL}"#), .integer(0), .integer(1), .integer(1)])
        }
    }

    @Test func anArrayChangedByAnotherConnectionIsAConflict() throws {
        try withDatabase { db in
            try db.execute(docDDL + "INSERT INTO r35a_doc(tags) VALUES ('{a,\"b c\"}')")
            let doc = try #require(try db.object(R35aDoc.self, forKey: 1))
            let other = try Database(postgresURL: postgresURL ?? "")
            defer { try? other.close() }
            try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
            try other.execute("UPDATE r35a_doc SET tags = array_append(tags, 'theirs')")
            doc.tags.append("mine")
            let conflict = modelError { try db.save(doc) }
            #expect(conflict?.kind == .conflict)
            #expect(conflict?.properties == ["tags"])
            #expect(doc.tags == ["a", "b c", "theirs"] && !doc.hasChanges)   // the committed array
            #expect(try db.value(String.self, "SELECT tags::text FROM r35a_doc") == #"{a,"b c",theirs}"#)
            // Applied again, the change is written.
            doc.tags.append("mine")
            try db.save(doc)
            #expect(try db.value(String.self, "SELECT tags::text FROM r35a_doc") == #"{a,"b c",theirs,mine}"#)
        }
    }

    @Test func aCitextColumnIsAStringComparedWithoutCaseKeepingItsSpelling() throws {
        try withDatabase { db in
            let schema = try db.value(String.self, "SELECT current_schema()") ?? ""
            // The extension in public (other tests' schemas are dropped), which the path then includes.
            guard try db.value(Int.self, "SELECT count(*) FROM pg_available_extensions WHERE name = 'citext'") == 1 else {
                print("PostgresArrayTypeTests: citext is not available on this server (postgresql-contrib); skipped")
                return
            }
            try db.execute("SET search_path TO \(schema), public")
            do { try db.execute("CREATE EXTENSION IF NOT EXISTS citext SCHEMA public") } catch {
                // (Two runs creating it at once: the other made it.)
                #expect(try db.value(Int.self, "SELECT count(*) FROM pg_extension WHERE extname = 'citext'") == 1)
            }
            try db.execute("""
                CREATE TABLE r35a_user(id bigserial PRIMARY KEY, email citext NOT NULL UNIQUE);
                INSERT INTO r35a_user(email) VALUES ('Ada@Example.com'), ('grace@example.com')
                """)
            #expect(try db.schemaPlan(for: R35aUser.self).steps.isEmpty)
            let ada = try #require(try db.objects(R35aUser.self, where: \.email == "ADA@EXAMPLE.COM").first)
            #expect(ada.email == "Ada@Example.com" && ada.id == 1)   // the spelling stored
            #expect(try db.objects(R35aUser.self, where: \.email == "GRACE@example.COM").map(\.id) == [2])
            #expect(try db.objects(R35aUser.self, where: \.email != "ada@example.com").map(\.id) == [2])
            ada.email = "ADA@example.com"
            try db.save(ada)
            #expect(try db.rows("SELECT email::text, pg_typeof(email)::text FROM r35a_user WHERE id = 1")[0].values
                    == [.text("ADA@example.com"), .text("citext")])
            // Another connection changes only the case; a save over it is a conflict, not an overwrite.
            let other = try Database(postgresURL: postgresURL ?? "")
            defer { try? other.close() }
            try other.execute("SET search_path TO \(schema), public")
            try other.execute("UPDATE r35a_user SET email = 'ada@EXAMPLE.com' WHERE id = 1")
            ada.email = "ada@example.org"
            #expect(modelError { try db.save(ada) }?.kind == .conflict)
            #expect(ada.email == "ada@EXAMPLE.com")
            // The column's uniqueness ignores case too: the engine's error, named.
            let copy = R35aUser()
            copy.email = "GRACE@EXAMPLE.COM"
            #expect(throws: (any Error).self) { try db.save(copy) }
        }
    }
}

/// An array of text as PostgreSQL reads it, written by hand (a test may not use the code under test).
private enum PostgresDialectLiteral {
    static func of(_ strings: [String]) -> String {
        "{" + strings.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}
