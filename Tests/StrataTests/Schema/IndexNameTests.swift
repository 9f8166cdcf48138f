import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Owned index names are unambiguous for any table and column names, and an index of another definition
// that has the name is an error, never replaced: a UNIQUE constraint is never lost (issue 9, point 6).

private final class Joined: Model {
    static let tableName = "t"
    static let indices = [["a_b"], ["a", "b"]]
    var id: Int64 = 0
    var a = 0, b = 0, a_b = 0
    required init() {}
}

private final class UniqueAndPlain: Model {
    static let tableName = "u"
    static let uniqueIndices = [["x"]]
    static let indices = [["x"]]
    var id: Int64 = 0
    var x = 0
    required init() {}
}

/// Table `a_b` with an index on `c`, and table `a` with one on (`b`, `c`): the old names were both
/// `strata_a_b_c`; a unique one on `a` too.
private final class TableAB: Model {
    static let tableName = "a_b"
    static let uniqueIndices = [["c"]]
    var id: Int64 = 0
    var c = 0
    required init() {}
}

private final class TableA: Model {
    static let tableName = "a"
    static let indices = [["b", "c"]]
    var id: Int64 = 0
    var b = 0, c = 0
    required init() {}
}

private final class Odd: Model {
    static let tableName = "Straße \"quoted\""
    static let indices = [["größe"], [String(repeating: "w", count: 300)], ["größe", String(repeating: "w", count: 300)]]
    var id: Int64 = 0
    var größe = 0
    var wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww = 0
    required init() {}
}

/// Each index of a table: name, whether unique, and its columns.
private func indices(_ table: String, _ db: Database) throws -> [String: (unique: Bool, columns: [String])] {
    var result: [String: (unique: Bool, columns: [String])] = [:]
    for row in try db.rows("SELECT name, \"unique\" FROM pragma_index_list(?)", table) {
        guard case .text(let name)? = row["name"], case .integer(let unique)? = row["unique"] else { continue }
        result[name] = (unique == 1, try db.column(String.self, "SELECT name FROM pragma_index_info(?) ORDER BY seqno", name))
    }
    return result
}

@Suite struct IndexNameTests {
    @Test func columnsJoinedByUnderscoresGetTwoIndices() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(Joined.self)
        let found = try indices("t", temp.db)
        #expect(found.count == 2)
        #expect(Set(found.values.map(\.columns)) == [["a_b"], ["a", "b"]])
        #expect(try temp.db.syncSchema(Joined.self).isEmpty)
    }

    @Test func aUniqueIndexIsNeverLostBesideAPlainOneOnTheSameColumns() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(UniqueAndPlain.self)
        let found = try indices("u", temp.db)
        #expect(found.values.filter(\.unique).map(\.columns) == [["x"]])
        #expect(found.values.filter { !$0.unique }.map(\.columns) == [["x"]])
        try temp.db.execute("INSERT INTO u (x) VALUES (1)")
        #expect(throws: DatabaseError.self) { try temp.db.execute("INSERT INTO u (x) VALUES (1)") }
        #expect(try temp.reopen().syncSchema(UniqueAndPlain.self).isEmpty)
    }

    @Test(arguments: [true, false])
    func aUniqueIndexIsNeverLostAcrossTablesWhoseOldNamesCollide(abFirst: Bool) throws {
        let temp = try TemporaryDatabase()
        if abFirst {
            try temp.db.syncSchema(TableAB.self); try temp.db.syncSchema(TableA.self)
        } else {
            try temp.db.syncSchema(TableA.self); try temp.db.syncSchema(TableAB.self)
        }
        #expect(try indices("a_b", temp.db).values.map { "\($0.unique) \($0.columns)" } == [#"true ["c"]"#])
        #expect(try indices("a", temp.db).values.map { "\($0.unique) \($0.columns)" } == [#"false ["b", "c"]"#])
        try temp.db.execute("INSERT INTO a_b (c) VALUES (1)")
        #expect(throws: DatabaseError.self) { try temp.db.execute("INSERT INTO a_b (c) VALUES (1)") }
        let db = try temp.reopen()
        #expect(try db.syncSchema(TableA.self).isEmpty && db.syncSchema(TableAB.self).isEmpty)
    }

    @Test func unicodeQuotesAndVeryLongNamesGiveValidDistinctStableNames() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(Odd.self)
        let found = try indices("Straße \"quoted\"", temp.db)
        #expect(found.count == 3)
        #expect(found.keys.allSatisfy { $0.hasPrefix("strata_") && $0.count < 80 })
        #expect(try temp.reopen().syncSchema(Odd.self).isEmpty)
    }

    /// On the model's own table, an index under the name Strata gives a declaration but of another
    /// definition is stale (SQLite carries an index through RENAME COLUMN): it is made again on the declared
    /// columns (issue 39; it was a SchemaError before).
    @Test func anotherDefinitionUnderTheNameOnTheTableIsMadeAgain() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL DEFAULT 0, b INTEGER NOT NULL DEFAULT 0, a_b INTEGER NOT NULL DEFAULT 0, other TEXT)")
        let name = SchemaPlanner(metadata: try ModelMetadata.of(Joined.self), dialect: SQLiteDialect()).indexName(IndexDeclaration(columns: ["a_b"], unique: false))
        try temp.db.execute("CREATE INDEX \"\(name)\" ON t (other)")
        let plan = try temp.db.syncSchema(Joined.self)
        #expect(plan.steps.map(\.sql).contains("DROP INDEX \"\(name)\""))
        #expect(try temp.db.column(String.self, "SELECT name FROM pragma_index_info(?)", name) == ["a_b"])
    }

    /// Another table's index holding the name is still a SchemaError, and is kept.
    @Test func anotherTablesIndexWithTheNameIsAnErrorAndIsKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL DEFAULT 0, b INTEGER NOT NULL DEFAULT 0, a_b INTEGER NOT NULL DEFAULT 0, other TEXT)")
        try temp.db.execute("CREATE TABLE t_other (other TEXT)")
        let name = SchemaPlanner(metadata: try ModelMetadata.of(Joined.self), dialect: SQLiteDialect()).indexName(IndexDeclaration(columns: ["a_b"], unique: false))
        try temp.db.execute("CREATE INDEX \"\(name)\" ON t_other (other)")
        let error = #expect(throws: SchemaError.self) { try temp.db.syncSchema(Joined.self) }
        #expect(error.map { "\($0)".contains(name) } == true)
        #expect(try temp.db.column(String.self, "SELECT name FROM pragma_index_info(?)", name) == ["other"])
    }

    @Test func anIndexNamedByTheOldSchemeThatServesTheDeclarationIsKept() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE u (id INTEGER PRIMARY KEY, x INTEGER NOT NULL DEFAULT 0);
            CREATE UNIQUE INDEX strata_unique_u_x ON u (x);
            CREATE INDEX strata_u_x ON u (x);
            """)
        #expect(try temp.db.schemaPlan(for: UniqueAndPlain.self).isEmpty)
        try temp.db.syncSchema(UniqueAndPlain.self)
        #expect(Set(try indices("u", temp.db).keys) == ["strata_unique_u_x", "strata_u_x"])
    }
}
