import CSQLite
import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Fetching, counting and deleting models; raw SQL with $T / $PK (issue 3, "Persistence and queries").

private final class QueryCity: Model {
    static let tableName = "cities"
    static let primaryKey = "cityId"
    var cityId: Int64 = 0
    var name = ""
    var country = ""
    var population = 0
    var founded: Date?
    required init() {}
}

private final class QueryStrict: Model {
    static let tableName = "strict_names"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class QueryLoose: Model {
    static let tableName = "loose_names"
    var id: Int64 = 0
    var name = ""
    var count = 0
    required init() {}
}

private func seedCities(_ db: Database) throws {
    let data: [(String, String, Int)] = [
        ("Paris", "FR", 2_100_000), ("Lyon", "FR", 520_000), ("Berlin", "DE", 3_600_000),
        ("Hamburg", "DE", 1_800_000), ("Rome", "IT", 2_800_000), ("Turin", "IT", 850_000),
    ]
    let cities: [QueryCity] = data.map { name, country, population in
        let city = QueryCity(); city.name = name; city.country = country; city.population = population
        return city
    }
    try db.save(cities)
}

@Suite struct ModelQueryTests {
    @Test func objectsWithAnyClauseAndArguments() throws {
        let db = try TestDatabase.make()
        try seedCities(db)
        let french = try db.objects(QueryCity.self, where: "WHERE country = ? ORDER BY population DESC", "FR")
        #expect(french.map(\.name) == ["Paris", "Lyon"])
        let big = try db.objects(QueryCity.self, where: "WHERE population > ? ORDER BY name LIMIT 2", 2_000_000)
        #expect(big.map(\.name) == ["Berlin", "Paris"])
        // A subquery and the $T / $PK shortcuts.
        let largest = try db.objects(QueryCity.self, where: """
            WHERE population = (SELECT max(population) FROM $T AS c WHERE c.country = $T.country) ORDER BY $PK
            """)
        #expect(largest.map(\.name) == ["Paris", "Berlin", "Rome"])
        #expect(try db.objects(QueryCity.self).count == 6)
        #expect(try db.objects(QueryCity.self, where: "WHERE name = ?", "Nowhere").isEmpty)
        let args: [any ColumnValue] = ["DE", 2_000_000]
        #expect(try db.objects(QueryCity.self, where: "WHERE country = ? AND population < ?", arguments: args).map(\.name) == ["Hamburg"])
    }

    // PostgreSQL: LIKE is case-sensitive
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: LIKE is case-sensitive")) func firstAndCount() throws {
        let db = try TestDatabase.make()
        #expect(try db.first(QueryCity.self) == nil)
        #expect(try db.count(QueryCity.self) == 0)
        try seedCities(db)
        #expect(try db.first(QueryCity.self, where: "ORDER BY population")?.name == "Lyon")
        #expect(try db.first(QueryCity.self, where: "WHERE country = ? ORDER BY name DESC", "IT")?.name == "Turin")
        #expect(try db.first(QueryCity.self, where: "WHERE country = 'XX'") == nil)
        #expect(try db.count(QueryCity.self) == 6)
        #expect(try db.count(QueryCity.self, where: "WHERE country = ?", "DE") == 2)
        #expect(try db.count(QueryCity.self, where: "WHERE name LIKE ?", "%r%") == 5)  // Paris, Berlin, Hamburg, Turin, Rome (LIKE ignores ASCII case)
    }

    @Test func objectForKey() throws {
        let db = try TestDatabase.make()
        try seedCities(db)
        let berlin = try #require(try db.object(QueryCity.self, forKey: 3))
        #expect(berlin.name == "Berlin" && berlin.cityId == 3)
        #expect(try db.object(QueryCity.self, forKey: 99) == nil)
        #expect(try db.object(QueryCity.self, forKey: Int64(3)) === berlin)
    }

    @Test func deleteAllWithAndWithoutClause() throws {
        let db = try TestDatabase.make()
        try seedCities(db)
        let live = try db.objects(QueryCity.self, where: #"ORDER BY "cityId""#)
        #expect(try db.deleteAll(QueryCity.self, where: "WHERE country = ?", "IT") == 2)
        #expect(live.map(\.isDeleted) == [false, false, false, false, true, true])
        #expect(try db.count(QueryCity.self) == 4)
        #expect(try db.deleteAll(QueryCity.self, where: "WHERE $PK > ?", 100) == 0)
        #expect(try db.deleteAll(QueryCity.self) == 4)
        #expect(live.allSatisfy { $0.isDeleted })
        #expect(try db.count(QueryCity.self) == 0)
    }

    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: unquoted mixed-case column in the test's SQL, `?` spelled `$n`")) func executeAndRowsExpandTableAndKey() throws {
        let db = try TestDatabase.make()
        try seedCities(db)
        var seen: [String] = []
        let trace = db.traceStatements { seen.append($0) }
        try db.execute("UPDATE $T SET population = population + ? WHERE $PK = ?", for: QueryCity.self, 1, 1)
        #expect(seen.contains(#"UPDATE "cities" SET population = population + ? WHERE "cityId" = ?"#))
        trace.cancel()
        let rows = try db.rows("SELECT $PK, name FROM $T WHERE $PK <= ? ORDER BY $PK", for: QueryCity.self, 2)
        #expect(rows.map { $0["cityId"] } == [.integer(1), .integer(2)])
        #expect(rows[0]["name"] == .text("Paris"))
        #expect(try db.value(Int.self, "SELECT population FROM cities WHERE cityId = 1") == 2_100_001)
        // Inside string literals, $T is left alone.
        let literal = try db.rows("SELECT '$T' AS t, $PK FROM $T LIMIT 1", for: QueryCity.self)
        #expect(literal.first?["t"] == .text("$T"))
    }

    /// A `cities` table (the QueryCity model's) with rows 1...count named "city <id>".
    static func insertCities(_ count: Int, into db: Database) throws {
        try db.execute("""
            CREATE TABLE cities("cityId" INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', country TEXT NOT NULL DEFAULT '',
                                population INTEGER NOT NULL DEFAULT 0, founded REAL);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(count))
            INSERT INTO cities("cityId", name) SELECT x, 'city ' || x FROM n;
            """)
    }

    @Test func fetchManyByKeysInRequestedOrder() throws {
        let db = try TestDatabase.make()
        try Self.insertCities(500, into: db)
        var keys = Array(Int64(1)...Int64(500)).shuffled()
        keys.insert(10_000, at: 17)   // missing keys are skipped
        keys.append(-5)
        let cities = try db.objects(QueryCity.self, forKeys: keys)
        #expect(cities.count == 500)
        #expect(cities.map(\.cityId) == keys.filter { $0 >= 1 && $0 <= 500 })
        #expect(cities.allSatisfy { $0.name == "city \($0.cityId)" })
        // Fetched again: the same live objects.
        let again = try db.objects(QueryCity.self, forKeys: keys.reversed())
        #expect(again.first === cities.last)
        let unordered = try db.objects(QueryCity.self, forKeys: [5, 3, 4], ordered: false)
        #expect(Set(unordered.map(\.cityId)) == [3, 4, 5])
        #expect(try db.objects(QueryCity.self, forKeys: [Int64]()).isEmpty)
    }

    // PostgreSQL: SQLite's variable limit and json_each
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's variable limit and json_each")) func fetchManyByKeysIsChunkedUnderTheVariableLimit() throws {
        let db = try TestDatabase.make()
        try Self.insertCities(1000, into: db)
        _ = try db.count(QueryCity.self)  // sync first, so only the fetch is traced
        sqlite3_limit(db.sqliteHandle, SQLITE_LIMIT_VARIABLE_NUMBER, 100)
        #expect(db.maximumArguments == 100)
        db.connection.hasJSONEach = false   // the IN-list path (keys that are not all integers, or no JSON functions)
        var selects: [String] = []
        let trace = db.traceStatements { sql in if sql.contains(" IN (") { selects.append(sql) } }
        let keys = Array(Int64(1)...Int64(1000)).reversed().map { $0 }
        let cities = try db.objects(QueryCity.self, forKeys: keys)
        trace.cancel()
        #expect(cities.map(\.cityId) == keys)
        #expect(selects.count >= 10)
        #expect(selects.allSatisfy { $0.filter { $0 == "?" }.count <= 100 })
    }

    /// Integer keys are bound as one JSON array: one statement, one parameter, whatever the variable limit.
    // PostgreSQL: SQLite's variable limit and json_each
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's variable limit and json_each")) func fetchManyIntegerKeysBindsThemAsOneJSONArray() throws {
        let db = try TestDatabase.make()
        try Self.insertCities(1000, into: db)
        _ = try db.count(QueryCity.self)
        sqlite3_limit(db.sqliteHandle, SQLITE_LIMIT_VARIABLE_NUMBER, 100)
        #expect(db.connection.hasJSONEach)
        var selects: [String] = []
        let trace = db.traceStatements { sql in if sql.contains(" IN (") { selects.append(sql) } }
        // Unordered, with a duplicate, a missing key and the extremes of Int64.
        let keys: [Int64] = Array(Int64(1)...Int64(1000)).reversed() + [7, 5_000, .max, .min]
        let cities = try db.objects(QueryCity.self, forKeys: keys)
        let again = try db.objects(QueryCity.self, forKeys: [3, 1, 2])
        trace.cancel()
        #expect(cities.map(\.cityId) == Array(Int64(1)...Int64(1000)).reversed() + [7])
        #expect(cities[993] === cities[1000])   // key 7: one live instance, listed twice
        #expect(again.map(\.name) == ["city 3", "city 1", "city 2"])
        #expect(selects.count == 2)
        #expect(selects.allSatisfy { $0.contains("json_each(") && $0.filter { $0 == "?" }.count == 1 })
    }

    @Test func fetchManyByKeysBeyondTheDefaultLimit() throws {
        let db = try TestDatabase.make()
        let total = db.maximumArguments + 234
        try Self.insertCities(total, into: db)
        let keys = Array(Int64(1)...Int64(total)).reversed().map { $0 }
        let cities = try db.objects(QueryCity.self, forKeys: keys)
        #expect(cities.count == total)
        #expect(cities.first?.cityId == Int64(total) && cities.last?.cityId == 1)
    }

    @Test func matchingDictionaryWithArrayBecomesIn() throws {
        let db = try TestDatabase.make()
        try seedCities(db)
        var seen: [String] = []
        let trace = db.traceStatements { seen.append(TestEngine.questionMarks($0)) }
        let found = try db.objects(QueryCity.self, matching: ["country": "FR", "cityId": [1, 2, 3]], orderBy: #""cityId""#)
        trace.cancel()
        #expect(found.map(\.name) == ["Paris", "Lyon"])
        #expect(seen.contains { $0.contains(#""cityId" IN (?, ?, ?)"#) && $0.contains(#""country" = ?"#) })
        #expect(try db.objects(QueryCity.self, matching: ["name": ["Rome", "Turin", "Oslo"]]).count == 2)
        #expect(try db.objects(QueryCity.self, matching: ["name": [String]()]).isEmpty)
        #expect(try db.objects(QueryCity.self, matching: [:]).count == 6)
        #expect(try db.objects(QueryCity.self, matching: ["founded": Date?.none]).count == 6)
        let error = try #require(throws: ModelError.self) {
            try db.objects(QueryCity.self, matching: ["nmae": "Paris"])
        }
        #expect(error.kind == .unknownProperty)
        #expect(error.property == "nmae")
        #expect(error.message.contains("population"))
    }

    @Test func nullInANonOptionalColumnIsAValueConversionError() throws {
        let db = try TestDatabase.make()
        try db.execute("""
            CREATE TABLE strict_names(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO strict_names VALUES (1, 'fine'), (2, NULL);
            """)
        #expect(try db.object(QueryStrict.self, forKey: 1)?.name == "fine")
        let error = try #require(throws: ValueConversionError.self) { try db.objects(QueryStrict.self) }
        #expect(error.column == "name")
        #expect(error.property == "name")
        #expect(error.model == "QueryStrict")
        #expect(error.found == .null)
        #expect(error.description.contains("name"))
        #expect(throws: ValueConversionError.self) { try db.object(QueryStrict.self, forKey: 2) }
    }

    // PostgreSQL: the test relies on SQLite's type affinity (text or real values in INTEGER columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's type affinity")) func textInAnIntegerPropertyIsAValueConversionError() throws {
        let db = try TestDatabase.make()
        try db.execute("""
            CREATE TABLE loose_names(id INTEGER PRIMARY KEY, name TEXT NOT NULL, count INTEGER NOT NULL);
            INSERT INTO loose_names VALUES (1, 'a', 'many');
            """)
        let error = try #require(throws: ValueConversionError.self) { try db.objects(QueryLoose.self) }
        #expect(error.column == "count")
        #expect(error.found == .text("many"))
    }
}
