import Foundation
import Testing
import Strata
import StrataTestSupport

// Views whose key may repeat, and the shadow tables of full-text and R*Tree tables (issue 33, points 1 and 4).

/// Sakila's `film_list`, keyed as `strata generate` keyed it: by a column that repeats once per actor.
private final class R17FilmList: Model {
    static let tableName = "film_list"
    static let primaryKey = "FID"
    var FID: Int64 = 0
    var title = ""
    var actors = ""
    required init() {}
}

/// The film table itself.
private final class R17Film: Model {
    static let tableName = "film"
    static let primaryKey = "film_id"
    var film_id: Int64 = 0
    var title = ""
    required init() {}
}

/// A join view keyed by actor, with its film as a reference.
private final class R17ActorFilm: Model {
    static let tableName = "actor_films"
    static let primaryKey = "actor"
    var actor = ""
    @Reference var film: R17Film?
    required init() {}
}

/// A table whose rows refer to rows of a join view (keyed by actor, which the view does not show unique).
private final class R17Award: Model {
    static let tableName = "r17_award"
    var id: Int64 = 0
    @Reference var winner: R17ActorFilm?
    required init() {}
}

/// A view over one table, keyed by that table's primary key under another name.
private final class R17FilmTitle: Model {
    static let tableName = "film_titles"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

/// `SELECT *` over one table, filtered: keyed by the table's key.
private final class R17LongFilm: Model {
    static let tableName = "long_films"
    static let primaryKey = "film_id"
    var film_id: Int64 = 0
    var title = ""
    required init() {}
}

/// A view over film_actor keyed by its (film_id, actor) primary key.
private final class R17Casting: Model {
    static let tableName = "castings"
    static let compositeKey = ["film_id", "actor"]
    var film_id: Int64 = 0
    var actor = ""
    required init() {}
}

/// The same view keyed by film_id alone, which repeats.
private final class R17CastingByFilm: Model {
    static let tableName = "castings"
    static let primaryKey = "film_id"
    var film_id: Int64 = 0
    var actor = ""
    required init() {}
}

/// A view keyed by a UNIQUE column of its table.
private final class R17Contact: Model {
    static let tableName = "contacts"
    static let primaryKey = "email"
    var email = ""
    var name = ""
    required init() {}
}

/// A view keyed by the rowid of a table without a primary key.
private final class R17CastingRow: Model {
    static let tableName = "casting_rows"
    var id: Int64 = 0
    var actor = ""
    required init() {}
}

/// Northwind's "Customer and Suppliers by City": a UNION, whose first column holds NULLs.
private final class R17CityContact: Model {
    static let tableName = "city_contacts"
    static let primaryKey = "City"
    var City: String?
    var CompanyName = ""
    required init() {}
}

/// Northwind's "Summary of Sales by Quarter": grouped, keyed by a date.
private final class R17FilmsPerTitle: Model {
    static let tableName = "films_per_title"
    static let primaryKey = "title"
    var title = ""
    var n: Int64 = 0
    required init() {}
}

private func filmDatabase() throws -> TemporaryDatabase {
    let temp = try TemporaryDatabase()
    try temp.db.execute("""
        CREATE TABLE film(film_id INTEGER PRIMARY KEY, title TEXT);
        CREATE TABLE film_actor(film_id INTEGER, actor TEXT, PRIMARY KEY (film_id, actor));
        CREATE TABLE person(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL, name TEXT);
        CREATE TABLE supplier(City TEXT, CompanyName TEXT);
        INSERT INTO film VALUES (2, 'ACE GOLDFINGER'), (3, 'ADAPTATION HOLES'), (4, 'ACE GOLDFINGER');
        INSERT INTO film_actor VALUES (2, 'ED CHASE'), (2, 'JENNIFER DAVIS'), (3, 'NICK WAHLBERG');
        INSERT INTO person VALUES (1, 'ada@example.com', 'Ada'), (2, 'bob@example.com', 'Bob');
        INSERT INTO supplier VALUES (NULL, 'Exotic Liquids'), (NULL, 'Tokyo Traders'), ('Berlin', 'Alfreds');
        CREATE VIEW film_list AS SELECT film.film_id AS FID, film.title AS title, film_actor.actor AS actors
          FROM film JOIN film_actor USING (film_id);
        CREATE VIEW film_titles AS SELECT film_id AS id, title FROM film;
        CREATE VIEW long_films AS SELECT * FROM main.film AS f WHERE f.film_id > 1 ORDER BY title;
        CREATE VIEW castings AS SELECT fa.film_id, fa.actor FROM film_actor fa;
        CREATE VIEW contacts AS SELECT DISTINCT email, name FROM person;
        CREATE VIEW casting_rows AS SELECT rowid AS id, actor FROM film_actor;
        CREATE VIEW city_contacts AS SELECT City, CompanyName FROM supplier UNION SELECT 'Paris', 'Spécialités';
        CREATE VIEW actor_films AS SELECT film_actor.actor AS actor, film.film_id AS film FROM film JOIN film_actor USING (film_id);
        CREATE VIEW films_per_title AS SELECT title, count(*) AS n FROM film GROUP BY title;
        """)
    return temp
}

@Suite struct Review17ViewTests {
    @Test func aViewOverAJoinNeverMergesTwoRowsIntoOneInstance() throws {
        let temp = try filmDatabase()
        let db = temp.db
        let films = try db.objects(R17FilmList.self, where: "ORDER BY actors")
        #expect(films.map(\.actors) == ["ED CHASE", "JENNIFER DAVIS", "NICK WAHLBERG"])
        #expect(films.map(\.FID) == [2, 2, 3])
        #expect(films[0] !== films[1])
        // Fetched on its own, the second row is itself, not the first one's object.
        let jennifer = try #require(try db.first(R17FilmList.self, where: "actors = ?", "JENNIFER DAVIS"))
        #expect(jennifer.actors == "JENNIFER DAVIS")
        #expect(jennifer !== films[1])   // fresh objects: no identity to share
        // A lookup by a key two rows share picks neither.
        let error = #expect(throws: ModelError.self) { try db.object(R17FilmList.self, forKey: 2) }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.message.contains("film_list") == true)
        #expect(error?.message.contains("SELECT") == true)
        // So does a lookup of several keys, in order; unordered, every row comes back.
        let many = #expect(throws: ModelError.self) { try db.objects(R17FilmList.self, forKeys: [3, 2]) }
        #expect(many?.kind == .duplicateKey)
        #expect(try db.objects(R17FilmList.self, forKeys: [3, 2], ordered: false).map(\.actors).sorted()
                == ["ED CHASE", "JENNIFER DAVIS", "NICK WAHLBERG"])
        #expect(try db.objects(R17FilmList.self, forKeys: [3]).map(\.actors) == ["NICK WAHLBERG"])
        // A key one row has finds it.
        #expect(try db.object(R17FilmList.self, forKey: 3)?.actors == "NICK WAHLBERG")
        #expect(try db.object(R17FilmList.self, forKey: 9) == nil)
    }

    @Test func objectsReadWithoutIdentityTrackChangesAndLoadReferences() throws {
        let temp = try filmDatabase()
        let db = temp.db
        let films = try db.objects(R17FilmList.self, where: "ORDER BY actors")
        #expect(films[0].hasChanges == false)
        films[0].title = "X"
        #expect(films[0].hasChanges == true)
        #expect(films[0].changedProperties == ["title"])
        // A reference from a join view's row to its film faults in through the handle.
        let rows = try db.objects(R17ActorFilm.self, where: "ORDER BY actor")
        #expect(rows.map { $0.film?.title } == ["ACE GOLDFINGER", "ACE GOLDFINGER", "ADAPTATION HOLES"])
        #expect(rows[0].film === rows[1].film)   // the table's rows keep identity
        #expect(rows[0].film === (try db.object(R17Film.self, forKey: 2)))
    }

    @Test func referencesToAViewReadWithoutIdentityResolveOneByOne() throws {
        let temp = try filmDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r17_award(id INTEGER PRIMARY KEY, winner TEXT);
            INSERT INTO r17_award(winner) VALUES ('ED CHASE'), ('NICK WAHLBERG'), ('JENNIFER DAVIS'), ('NOBODY');
            """)
        // Batched faults would look the targets up in an identity map the view has not: each resolves alone.
        let awards = try db.objects(R17Award.self, where: "ORDER BY id")
        #expect(awards.map { $0.winner?.actor } == ["ED CHASE", "NICK WAHLBERG", "JENNIFER DAVIS", nil])
        #expect(awards.map { $0.winner?.film?.film_id } == [2, 3, 2, nil])
        let error = #expect(throws: ModelError.self) { try db.objects(R17Award.self, where: "", prefetching: ["winner"]) }
        #expect(error?.message.contains("cannot be prefetched") == true)
    }

    @Test func aViewReadWithoutIdentityIsReadOnlyAndSaysWhy() throws {
        let temp = try filmDatabase()
        let db = temp.db
        // Even with INSTEAD OF triggers: a save by a key that two rows share would write both.
        try db.execute("""
            CREATE TRIGGER film_list_update INSTEAD OF UPDATE ON film_list
            BEGIN UPDATE film SET title = new.title WHERE film_id = old.FID; END;
            """)
        let film = try #require(try db.first(R17FilmList.self, where: "actors = 'ED CHASE'"))
        film.title = "CHANGED"
        let error = #expect(throws: ModelError.self) { try db.save(film) }
        #expect(error?.kind == .readOnly)
        #expect(error?.message.contains("joins tables") == true)
        #expect(error?.message.contains("without identity") == true)
        #expect(try db.value(String.self, "SELECT title FROM film WHERE film_id = 2") == "ACE GOLDFINGER")
        let new = R17FilmList()
        #expect(throws: ModelError.self) { try db.save(new) }
    }

    @Test func viewsOverOneTableKeyedByAUniqueColumnKeepIdentity() throws {
        let temp = try filmDatabase()
        let db = temp.db
        // The table's key renamed.
        let titles = try db.objects(R17FilmTitle.self, where: "ORDER BY id")
        #expect(titles.map(\.id) == [2, 3, 4])
        #expect(try db.object(R17FilmTitle.self, forKey: 3) === titles[1])
        // SELECT * through an alias and a schema name, with WHERE and ORDER BY.
        let long = try db.objects(R17LongFilm.self)
        #expect(try db.object(R17LongFilm.self, forKey: 2) === long.first { $0.film_id == 2 })
        // A composite primary key carried through.
        let castings = try db.objects(R17Casting.self, where: "ORDER BY actor")
        #expect(castings.count == 3)
        #expect(try db.object(R17Casting.self, forKey: try CompositeKey(2, "ED CHASE")) === castings[0])
        // A UNIQUE column, under DISTINCT.
        let contacts = try db.objects(R17Contact.self)
        #expect(try db.object(R17Contact.self, forKey: "bob@example.com") === contacts.first { $0.name == "Bob" })
        // The rowid of a table.
        let rows = try db.objects(R17CastingRow.self, where: "ORDER BY id")
        #expect(Set(rows.map(\.id)).count == 3)
        #expect(try db.object(R17CastingRow.self, forKey: rows[1].id) === rows[1])
    }

    @Test func viewsWhoseKeyMayRepeatAreReadWithoutIdentity() throws {
        let temp = try filmDatabase()
        let db = temp.db
        // One table, but a key column that is only part of its key.
        let byFilm = try db.objects(R17CastingByFilm.self, where: "ORDER BY actor")
        #expect(byFilm.map(\.actor) == ["ED CHASE", "JENNIFER DAVIS", "NICK WAHLBERG"])
        #expect(byFilm[0] !== byFilm[1])
        // GROUP BY.
        let grouped = try db.objects(R17FilmsPerTitle.self, where: "ORDER BY title")
        #expect(grouped.map(\.n) == [2, 1])
        try db.save(grouped[0])   // unchanged: nothing to write
        grouped[0].n = 5
        #expect(throws: ModelError.self) { try db.save(grouped[0]) }
        // A UNION whose key column holds NULLs: every row reads, none merged.
        let cities = try db.objects(R17CityContact.self, where: "ORDER BY CompanyName")
        #expect(cities.map(\.CompanyName) == ["Alfreds", "Exotic Liquids", "Spécialités", "Tokyo Traders"])
        #expect(cities.map(\.City) == ["Berlin", nil, "Paris", nil])
    }

    @Test func aPoolReadsAViewWithoutIdentityToo() throws {
        let temp = try filmDatabase()
        let pool = try DatabasePool(path: temp.path, readers: 2)
        let actors = try pool.blocking.read { db in try db.objects(R17FilmList.self, where: "ORDER BY actors").map(\.actors) }
        #expect(actors == ["ED CHASE", "JENNIFER DAVIS", "NICK WAHLBERG"])
        let written = try pool.blocking.write { db in
            let film = try #require(try db.first(R17FilmList.self))
            film.title = "X"
            do { try db.save(film); return "saved" } catch let error as ModelError { return "\(error.kind)" }
        }
        #expect(written == "readOnly")
        try pool.blocking.close()
    }
}

/// A currency table another tool keyed by a NUMERIC column holding text codes.
private final class R17Currency: Model {
    static let tableName = "r17_currency"
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

@Suite struct Review17NumericTextKeyTests {
    @Test func aTextKeyOverANumericColumnReadsUpdatesAndInsertsWhatStaysText() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE r17_currency(code NUMERIC PRIMARY KEY, name TEXT);
            INSERT INTO r17_currency VALUES ('EUR', 'Euro'), ('USD', 'Dollar');
            """)
        let euro = try #require(try db.object(R17Currency.self, forKey: "EUR"))
        #expect(euro.name == "Euro")
        euro.name = "euro"
        try db.save(euro)
        #expect(try db.value(String.self, "SELECT quote(name) || typeof(code) FROM r17_currency WHERE code = 'EUR'") == "'euro'text")
        let pound = R17Currency()
        pound.code = "GBP"
        pound.name = "Pound"
        try db.save(pound)
        #expect(try db.value(String.self, "SELECT typeof(code) FROM r17_currency WHERE name = 'Pound'") == "text")
        #expect(try db.object(R17Currency.self, forKey: "GBP") === pound)
        // A numeral would be stored as a number: refused, nothing written.
        let numeral = R17Currency()
        numeral.code = " 840 "
        let error = #expect(throws: ModelError.self) { try db.save(numeral) }
        #expect(error?.kind == .invalidPrimaryKey)
        #expect(error?.message.contains("numeric affinity") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17_currency") == 3)
    }
}
