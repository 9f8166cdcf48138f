import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// A save refused by a UNIQUE index names the row it would duplicate, looked for as the index compares:
// with the index's own collating sequence, and over the index's expressions (Django's
// `UniqueConstraint(Lower("email"), name=...)`), for which SQLite names only the index.

private final class UFUser: Model {
    static let tableName = "accounts_user"
    var id: Int64 = 0
    var email = ""
    var first = ""
    var last = ""
    required init() {}
}

@Suite struct UniqueFailureTests {
    private func database(_ indices: String) throws -> TestDatabase {
        let temp = try TestDatabase()
        // (PostgreSQL: a case-insensitive ICU collation stands for SQLite's NOCASE.)
        let indices = TestEngine.isPostgreSQL ? indices.replacingOccurrences(of: "COLLATE NOCASE", with: "COLLATE ci") : indices
        try temp.db.execute("""
            \(TestEngine.isPostgreSQL ? "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);" : "")
            CREATE TABLE accounts_user (id \(TestEngine.isPostgreSQL ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"), email varchar(254) NOT NULL,
                first varchar(30) NOT NULL, last varchar(30) NOT NULL);
            \(indices);
            INSERT INTO accounts_user (id, email, first, last) VALUES (7, 'Ada@Example.com', 'Ada', 'Lovelace'), (8, 'grace@example.com', 'Grace', 'Hopper');
            """)
        return temp
    }

    /// An index with its own COLLATE NOCASE: before, the row was looked for with the column's BINARY
    /// comparison, found nothing, and the error had no key.
    @Test func aDuplicateUnderAnIndexCollationNamesTheRow() throws {
        let temp = try database("CREATE UNIQUE INDEX accounts_user_email_ci ON accounts_user (email COLLATE NOCASE)")
        let db = temp.db
        let twin = UFUser(); twin.email = "ADA@example.COM"; twin.first = "A"; twin.last = "L"
        let error = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(error.kind == .duplicateKey && error.model == "UFUser" && error.properties == ["email"])
        #expect(error.key == .integer(7))
        #expect(error.message.contains("(key integer 7)"))
        // An update into the same value of another row: the same.
        let grace = try #require(try db.object(UFUser.self, forKey: 8))
        grace.email = "ada@EXAMPLE.com"
        let update = try #require(throws: ModelError.self) { try db.save(grace) }
        #expect(update.kind == .duplicateKey && update.key == .integer(7))
        #expect(try db.value(Int.self, "SELECT count(*) FROM accounts_user") == 2)
    }

    /// An index over expressions: SQLite says "UNIQUE constraint failed: index 'name'". Before, the error
    /// had no key and no columns; now the index's expressions are evaluated over the object's values.
    @Test func aDuplicateUnderAnExpressionIndexNamesTheRowAndColumns() throws {
        let temp = try database("""
            CREATE UNIQUE INDEX user_email_lower ON accounts_user (lower(email));
            CREATE UNIQUE INDEX user_name_lower ON accounts_user (lower(first) DESC, "last" COLLATE NOCASE) WHERE last <> ''
            """)
        let db = temp.db
        let twin = UFUser(); twin.email = "ada@example.com"; twin.first = "A"; twin.last = "L"
        let error = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(error.kind == .duplicateKey && error.properties == ["email"])
        #expect(error.key == .integer(7))
        #expect(error.message.contains("a row with the same email exists already (key integer 7)"))

        let namesake = UFUser(); namesake.email = "g2@example.com"; namesake.first = "GRACE"; namesake.last = "hopper"
        let byName = try #require(throws: ModelError.self) { try db.save(namesake) }
        #expect(byName.kind == .duplicateKey && byName.properties == ["first", "last"])
        #expect(byName.key == .integer(8))
        #expect(try db.value(Int.self, "SELECT count(*) FROM accounts_user") == 2)
        // The partial index does not cover an empty last name: that save goes through.
        namesake.last = ""
        try db.save(namesake)
        #expect(namesake.isPersisted)
    }
}
