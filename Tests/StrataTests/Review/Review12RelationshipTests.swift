import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 12: relationships — join-table formats of other tools, failed loads, cascades reaching live
// instances, deep and cyclic prefetches, faults after close().

// MARK: Models

/// Django: a product keyed by a UUIDField (char(32), 32 lowercase hex digits), tags through the auto table.
private final class R12Product: Model {
    static let tableName = "shop_product"
    var id = UUID()
    var name = ""
    @Siblings(through: "shop_product_tags", from: "product_id", to: "tag_id") var tags: [R12Tag]
    required init() {}
}

private final class R12Tag: Model {
    static let tableName = "shop_tag"
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "shop_product_tags", from: "tag_id", to: "product_id") var products: [R12Product]
    required init() {}
}


private func peeweeGadgets(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE "gadget" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
        CREATE TABLE "part" ("id" INTEGER NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
        CREATE TABLE "gadget_part_through" ("id" INTEGER NOT NULL PRIMARY KEY,
            "gadget_id" TEXT NOT NULL, "part_id" INTEGER NOT NULL,
            FOREIGN KEY ("gadget_id") REFERENCES "gadget" ("id"), FOREIGN KEY ("part_id") REFERENCES "part" ("id"));
        CREATE UNIQUE INDEX "gadgetpartthrough_gadget_id_part_id" ON "gadget_part_through" ("gadget_id", "part_id");
        CREATE TABLE "widget" ("id" INTEGER NOT NULL PRIMARY KEY, "gadget_id" TEXT,
            FOREIGN KEY ("gadget_id") REFERENCES "gadget" ("id"));
        INSERT INTO gadget VALUES ('0f8fad5bd9cb469fa16570867728950e', 'g1'), ('7c9e6679742540de944be07fc1f90ae7', 'g2');
        INSERT INTO part VALUES (1, 'bolt'), (2, 'nut');
        """)
}

/// peewee's through model, mapped by a model with a plain UUID property.
private final class R12GadgetPart: Model {
    static let tableName = "gadget_part_through"
    var id: Int64 = 0
    var gadget_id = UUID()
    var part_id: Int64 = 0
    required init() {}
}

private let g1 = UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!

// Cascades

private final class R12Country: Model {
    static let tableName = "country"
    static let primaryKey = "code"
    var code = ""
    @Children(by: "country") var cities: [R12City]
    required init() {}
}

private final class R12City: Model {
    static let tableName = "city"
    var id: Int64 = 0
    var name = ""
    @Reference var country: R12Country?
    @Children(by: "city") var streets: [R12Street]
    required init() {}
}

private final class R12Street: Model {
    static let tableName = "street"
    var id: Int64 = 0
    @Reference var city: R12City?
    @Reference var mayorCountry: R12Country?
    required init() {}
}

private func geography(_ db: Database, collate: String = " COLLATE NOCASE") throws {
    try db.execute("""
        CREATE TABLE country(code TEXT PRIMARY KEY\(collate));
        CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
                          country TEXT REFERENCES country(code) ON DELETE CASCADE);
        CREATE TABLE street(id INTEGER PRIMARY KEY, city INTEGER REFERENCES city(id) ON DELETE CASCADE,
                            mayorCountry TEXT REFERENCES country(code) ON DELETE SET NULL);
        INSERT INTO country VALUES ('FR'), ('DE');
        INSERT INTO city VALUES (1, 'Paris', 'fr'), (2, 'Lyon', 'FR'), (3, 'Berlin', 'DE');
        INSERT INTO street VALUES (10, 1, 'Fr'), (11, 2, 'DE'), (12, 3, 'fr'), (13, NULL, 'FR');
        """)
}

/// UUID keys stored as Django's 32 hex digits, with a DEFERRABLE INITIALLY DEFERRED key.
private final class R12Owner: Model {
    static let tableName = "app_owner"
    var id = UUID()
    required init() {}
}

private final class R12Pet: Model {
    static let tableName = "app_pet"
    var id: Int64 = 0
    @Reference var owner: R12Owner?
    required init() {}
}

/// A composite-key parent (its children store the parts in their own columns, and cascade).
private final class R12Line: Model {
    static let tableName = "line"
    static let compositeKey = ["orderId", "lineNo"]
    var orderId: Int64 = 0
    var lineNo: Int64 = 0
    required init() {}
}

private final class R12LineNote: Model {
    static let tableName = "line_note"
    var id: Int64 = 0
    var orderId: Int64 = 0
    var lineNo: Int64 = 0
    required init() {}
}

// Prefetch

private final class R12Employee: Model {
    static let tableName = "employee"
    var id: Int64 = 0
    var name = ""
    @Reference var department: R12Department?
    @Reference var mentor: R12Employee?
    required init() {}
}

private final class R12Department: Model {
    static let tableName = "department"
    var id: Int64 = 0
    @Reference var manager: R12Employee?
    @Children(by: "department") var staff: [R12Employee]
    required init() {}
}

private final class R12Word: Model {
    static let tableName = "word"
    static let primaryKey = "text"
    var text = ""
    @Reference var next: R12Word?
    @Children(by: "word") var uses: [R12Use]
    required init() {}
}

private final class R12Use: Model {
    static let tableName = "use"
    var id: Int64 = 0
    @Reference var word: R12Word?
    required init() {}
}

private func company(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE department(id INTEGER PRIMARY KEY, manager INTEGER);
        CREATE TABLE employee(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', department INTEGER, mentor INTEGER);
        INSERT INTO department VALUES (1, 10), (2, 20);
        INSERT INTO employee VALUES (10, 'a', 1, NULL), (11, 'b', 1, 10), (20, 'c', 2, 11), (21, 'd', 2, 21);
        """)
}

/// A database with ``company(_:)``'s rows, both models already synced (their first use out of the way).
private func syncedCompany() throws -> TemporaryDatabase {
    let temp = try TemporaryDatabase()
    try company(temp.db)
    _ = try temp.db.objects(R12Department.self, where: "WHERE 0")
    _ = try temp.db.objects(R12Employee.self, where: "WHERE 0")
    return temp
}

// MARK: Tests

@Suite struct Review12RelationshipTests {
    // MARK: 1. Join-table formats

    @Test func djangoUUIDJoinTableAddWritesHexAndRemoveFindsDjangosRow() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "shop_product" ("id" char(32) NOT NULL PRIMARY KEY, "name" varchar(40) NOT NULL);
            CREATE TABLE "shop_tag" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(40) NOT NULL);
            CREATE TABLE "shop_product_tags" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
                "product_id" char(32) NOT NULL REFERENCES "shop_product" ("id") DEFERRABLE INITIALLY DEFERRED,
                "tag_id" integer NOT NULL REFERENCES "shop_tag" ("id") DEFERRABLE INITIALLY DEFERRED);
            CREATE UNIQUE INDEX "shop_product_tags_product_id_tag_id_uniq" ON "shop_product_tags" ("product_id", "tag_id");
            INSERT INTO shop_product VALUES ('0f8fad5bd9cb469fa16570867728950e', 'lamp');
            INSERT INTO shop_tag VALUES (1, 'red'), (2, 'blue');
            INSERT INTO shop_product_tags (product_id, tag_id) VALUES ('0f8fad5bd9cb469fa16570867728950e', 1);
            """)
        let lamp = try #require(try db.object(R12Product.self, forKey: g1))
        #expect(lamp.tags.map(\.name) == ["red"])
        let blue = try #require(try db.object(R12Tag.self, forKey: 2))
        let red = try #require(try db.object(R12Tag.self, forKey: 1))
        try lamp.$tags.add(blue)
        #expect(try db.value(String.self, "SELECT group_concat(product_id || ':' || tag_id, ' ') FROM shop_product_tags ORDER BY id")
                == "0f8fad5bd9cb469fa16570867728950e:1 0f8fad5bd9cb469fa16570867728950e:2")
        #expect(blue.products.map(\.name) == ["lamp"])
        try lamp.$tags.remove(red)
        #expect(try db.value(Int.self, "SELECT count(*) FROM shop_product_tags WHERE tag_id = 1") == 0)
        #expect(try lamp.$tags.reload().map(\.name) == ["blue"])
        // A new product, saved by Strata: its key, its link, both in Django's format.
        let desk = R12Product(); desk.name = "desk"
        try db.save(desk)
        try desk.$tags.add(red)
        let hex = desk.id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        #expect(try db.value(Int.self, "SELECT count(*) FROM shop_product_tags WHERE product_id = ? AND tag_id = 1", hex) == 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM shop_product WHERE id = ?", hex) == 1)
        #expect(try db.value(Int.self, "PRAGMA foreign_key_check") == nil)
    }

    @Test func peeweeUUIDThroughTableEmptyAtFirstAddTakesTheKeyColumnsHexFormat() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try peeweeGadgets(db)
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        let bolt = try #require(try db.object(PeeweePart.self, forKey: 1))
        try gadget.$parts.add(bolt)
        // peewee writes uuid.hex and looks links up by it; its foreign key points at the hex key.
        #expect(try db.value(String.self, "SELECT gadget_id FROM gadget_part_through") == "0f8fad5bd9cb469fa16570867728950e")
        #expect(try db.value(Int.self, "SELECT count(*) FROM gadget_part_through JOIN gadget ON gadget.id = gadget_id") == 1)
        #expect(try gadget.$parts.reload().map(\.name) == ["bolt"])
    }

    @Test func emptyColumnWithAForeignKeyTakesTheReferencedColumnsFormat() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try peeweeGadgets(db)
        // The through table mapped by a model of its own (a plain UUID property, no @Reference)...
        let link = R12GadgetPart(); link.gadget_id = g1; link.part_id = 2
        try db.save(link)
        #expect(try db.value(String.self, "SELECT gadget_id FROM gadget_part_through") == "0f8fad5bd9cb469fa16570867728950e")
        // ...and @Siblings over it, which takes the mapped model's format.
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        let bolt = try #require(try db.object(PeeweePart.self, forKey: 1))
        try gadget.$parts.add(bolt)
        #expect(try db.value(Int.self, "SELECT count(*) FROM gadget_part_through WHERE gadget_id = '0f8fad5bd9cb469fa16570867728950e'") == 2)
        #expect(try gadget.$parts.reload().map(\.name) == ["bolt", "nut"])
    }

    @Test func peeweeForeignKeyToAUUIDKeyEmptyColumnTakesTheKeyColumnsHexFormat() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try peeweeGadgets(db)
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        let widget = PeeweeWidget(); widget.gadget = gadget
        try db.save(widget)
        #expect(try db.value(String.self, "SELECT gadget_id FROM widget") == "0f8fad5bd9cb469fa16570867728950e")
        #expect(try db.value(Int.self, "SELECT count(*) FROM widget JOIN gadget ON gadget.id = gadget_id") == 1)
        #expect(try gadget.$parts.load().isEmpty)
    }

    // MARK: 2. Failed loads

    @Test func loadsOverADroppedTableThrowAndGettersReadEmpty() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let street = try #require(try db.object(R12Street.self, forKey: 10))
        // A load that fails (a read-only connection, where the sync of a dropped table cannot create it).
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.execute("DROP TABLE city")
        try db.execute("PRAGMA query_only = ON")
        #expect(throws: (any Error).self) { try france.$cities.load() }
        #expect(france.cities.isEmpty)
        #expect(throws: (any Error).self) { try street.$city.load() }
        #expect(street.city == nil)
        #expect(street.$city.key == .integer(1))
    }

    // MARK: 3. Cascades reaching live instances

    @Test func noCaseTextCascadeReachesGrandchildrenAndSetNull() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let cities = try db.objects(R12City.self, where: "ORDER BY id")
        let streets = try db.objects(R12Street.self, where: "ORDER BY id")
        #expect(france.cities.map(\.id) == [1, 2])
        #expect(streets.map { $0.mayorCountry?.code } == ["FR", "DE", "FR", "FR"])
        try db.delete(france)
        #expect(cities.map(\.isDeleted) == [true, true, false])
        #expect(streets.map(\.isDeleted) == [true, true, false, false])
        #expect(streets[2].mayorCountry == nil)
        #expect(streets[2].$mayorCountry.key == .null)
        #expect(streets[3].$mayorCountry.key == .null)
        #expect(try db.value(Int.self, "SELECT count(*) FROM street WHERE mayorCountry IS NOT NULL") == 0)
        #expect(try cities[2].$streets.load().map(\.id) == [12])
    }

    @Test func cascadeRolledBackLeavesInstancesAsBefore() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let cities = try db.objects(R12City.self, where: "ORDER BY id")
        let streets = try db.objects(R12Street.self, where: "ORDER BY id")
        #expect(france.cities.count == 2)
        _ = streets.map(\.mayorCountry)
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(france)
                #expect(cities[0].isDeleted && streets[1].isDeleted)
                #expect(streets[2].$mayorCountry.key == .null)
                throw Undo()
            }
        }
        #expect(!france.isDeleted)
        #expect(cities.map(\.isDeleted) == [false, false, false])
        #expect(streets.map(\.isDeleted) == [false, false, false, false])
        #expect(streets.map { $0.mayorCountry?.code } == ["FR", "DE", "FR", "FR"])
        #expect(streets[2].mayorCountry === france)
        #expect(france.cities.map(\.id) == [1, 2])
        #expect(cities[1].streets.map(\.id) == [11])
        #expect(try db.object(R12City.self, forKey: 1) === cities[0])
    }

    @Test func cascadeInASavepointRolledBackLeavesInstancesAsBefore() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let streets = try db.objects(R12Street.self, where: "ORDER BY id")
        _ = streets.map(\.mayorCountry)
        struct Undo: Error {}
        try db.transaction {
            try? db.transaction {
                try db.delete(france)
                throw Undo()
            }
            #expect(!france.isDeleted)
            #expect(streets.map(\.isDeleted) == [false, false, false, false])
            #expect(streets[2].mayorCountry === france)
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM street") == 4)
    }

    @Test func cascadeByAnotherConnectionReachesThisHandlesInstances() throws {
        let temp = try TemporaryDatabase()
        try geography(temp.db)
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        let db = temp.db
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let cities = try db.objects(R12City.self, where: "ORDER BY id")
        let streets = try db.objects(R12Street.self, where: "ORDER BY id")
        _ = streets.map(\.mayorCountry)
        #expect(france.cities.count == 2)
        let theirs = try #require(try other.object(R12Country.self, forKey: "fr"))
        try other.delete(theirs)
        _ = try db.objects(R12Country.self)   // the next call sees the commit
        #expect(france.isDeleted)
        #expect(cities.map(\.isDeleted) == [true, true, false])
        #expect(streets.map(\.isDeleted) == [true, true, false, false])
        #expect(streets[2].mayorCountry == nil)
        #expect(streets[2].$mayorCountry.key == .null)
    }

    @Test func uuidHexCascadeAndDeferredViolationRollsEverythingBack() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "app_owner" ("id" char(32) NOT NULL PRIMARY KEY);
            CREATE TABLE "app_pet" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
                "owner_id" char(32) NULL REFERENCES "app_owner" ("id") DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO app_owner VALUES ('0f8fad5bd9cb469fa16570867728950e');
            INSERT INTO app_pet (owner_id) VALUES ('0f8fad5bd9cb469fa16570867728950e');
            """)
        let owner = try #require(try db.object(R12Owner.self, forKey: g1))
        let pet = try #require(try db.object(R12Pet.self, forKey: 1))
        #expect(pet.owner === owner)
        let added = R12Pet(); added.owner = owner
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.save(added)
                try db.delete(owner)   // deferred: the violation shows at commit
            }
        }
        #expect(!owner.isDeleted && !pet.isDeleted)
        #expect(!added.isPersisted)
        #expect(pet.owner === owner)
        #expect(try db.value(Int.self, "SELECT count(*) FROM app_pet") == 1)
        #expect(try db.value(Int.self, "SELECT count(*) FROM app_owner") == 1)
        // And the save afterwards works, in hex.
        try db.save(added)
        #expect(try db.value(Int.self, "SELECT count(*) FROM app_pet WHERE owner_id = '0f8fad5bd9cb469fa16570867728950e'") == 2)
    }

    @Test func compositeKeyCascadeMarksChildrenDeleted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE line(orderId INTEGER NOT NULL, lineNo INTEGER NOT NULL, PRIMARY KEY (orderId, lineNo));
            CREATE TABLE line_note(id INTEGER PRIMARY KEY, orderId INTEGER NOT NULL, lineNo INTEGER NOT NULL,
                FOREIGN KEY (orderId, lineNo) REFERENCES line(orderId, lineNo) ON DELETE CASCADE);
            INSERT INTO line VALUES (1, 1), (1, 2);
            INSERT INTO line_note VALUES (1, 1, 1), (2, 1, 2), (3, 1, 2);
            """)
        let lines = try db.objects(R12Line.self, where: "ORDER BY lineNo")
        let notes = try db.objects(R12LineNote.self, where: "ORDER BY id")
        try db.delete(lines[1])
        #expect(notes.map(\.isDeleted) == [false, true, true])
        #expect(try db.value(Int.self, "SELECT count(*) FROM line_note") == 1)
    }

    // MARK: 4. Prefetch

    @Test func threeLevelsWithACycleRunOneStatementPerLevelAndAreFreed() throws {
        let temp = try syncedCompany()
        let db = temp.db
        weak var weakEmployee: R12Employee?
        weak var weakDepartment: R12Department?
        do {
            var seen: [String] = []
            let trace = db.traceStatements { seen.append($0) }
            let staff = try db.objects(R12Employee.self, where: "ORDER BY id",
                                       prefetching: ["department.manager.department", "mentor.mentor"])
            trace.cancel()
            #expect(seen.count <= 4)
            seen.removeAll()
            let trace2 = db.traceStatements { seen.append($0) }
            #expect(staff.map { $0.department?.manager?.department?.id } == [1, 1, 2, 2])
            #expect(staff.map { $0.mentor?.mentor?.id } == [nil, nil, 10, 21])
            #expect(staff[3].mentor === staff[3])
            trace2.cancel()
            #expect(seen.isEmpty)
            weakEmployee = staff[0]
            weakDepartment = staff[0].department
        }
        #expect(weakEmployee == nil)
        #expect(weakDepartment == nil)
    }

    @Test func prefetchOwnersWithDuplicatesAndDeletedInstances() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try company(db)
        let staff = try db.objects(R12Employee.self, where: "ORDER BY id")
        let departments = try db.objects(R12Department.self, where: "ORDER BY id")
        try db.delete(staff[1])
        try db.prefetch("department", of: staff + staff)
        try db.prefetch("staff", of: departments + departments.reversed())
        #expect(departments.map { $0.staff.map(\.id) } == [[10], [20, 21]])
        #expect(staff[0].department === departments[0])
        try db.delete(departments[1])
        try db.prefetch("staff", of: departments + departments)
        try db.prefetch("manager", of: departments)
        #expect(departments[0].staff.map(\.id) == [10])
        #expect(departments[0].manager === staff[0])
    }

    @Test func prefetchPastTheVariableLimitWithTextKeys() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE word(text TEXT PRIMARY KEY, next TEXT);
            CREATE TABLE use(id INTEGER PRIMARY KEY, word TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO word SELECT 'w' || i, 'w' || ((i % 40000) + 1) FROM n;
            INSERT INTO use (word) SELECT text FROM word WHERE rowid % 3 = 0;
            """)
        let words = try db.objects(R12Word.self)
        #expect(words.count == 40_000)
        var count = 0
        let trace = db.traceStatements { _ in count += 1 }
        try db.prefetch("next", of: words)
        try db.prefetch("uses", of: words)
        trace.cancel()
        #expect(count < 40)
        count = 0
        let trace2 = db.traceStatements { _ in count += 1 }
        #expect(words.filter { $0.next != nil }.count == 40_000)
        #expect(words.reduce(0) { $0 + $1.uses.count } == 13_333)
        trace2.cancel()
        #expect(count == 0)
    }

    @Test func selfReferencePrefetchInOneStatement() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE word(text TEXT PRIMARY KEY, next TEXT);
            CREATE TABLE use(id INTEGER PRIMARY KEY, word TEXT);
            INSERT INTO word VALUES ('a', 'b'), ('b', 'a'), ('c', 'c'), ('d', 'zz');
            """)
        weak var weakA: R12Word?
        do {
            let words = try db.objects(R12Word.self, where: "ORDER BY text", prefetching: ["next.next"])
            #expect(words.map { $0.next?.text } == ["b", "a", "c", nil])
            #expect(words[0].next?.next === words[0])
            #expect(words[2].next === words[2])
            #expect(words[3].$next.key == .text("zz"))
            weakA = words[0]
        }
        #expect(weakA == nil)
    }

    // MARK: 5. Faults after close()

    @Test func faultsAfterCloseThrowAndReadAsEmpty() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let street = try #require(try db.object(R12Street.self, forKey: 10))
        let lamp = R12Product()
        _ = lamp
        try db.close()
        #expect(street.city == nil)
        #expect(street.$city.key == .integer(1))
        #expect(throws: (any Error).self) { try street.$city.load() }
        #expect(throws: (any Error).self) { try street.$city.require() }
        #expect(france.cities.isEmpty)
        #expect(throws: (any Error).self) { try france.$cities.load() }
        #expect(throws: (any Error).self) { try db.prefetch("cities", of: [france]) }
    }
}

private final class R12LogRecord: @unchecked Sendable {
    // (Guarded by `lock`: the handler may log from any thread.)
    private let lock = NSLock()
    private var stored: [String] = []
    var messages: [String] { lock.withLock { stored } }
    func append(_ message: String) { lock.withLock { stored.append(message) } }
}

import Logging

private struct R12LogHandler: LogHandler {
    let record: R12LogRecord
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { record.append("\(event.level): \(event.message)") }
}

extension Review12RelationshipTests {
    @Test func undecodableStoredKeyReadsNilAndLoadThrows() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "app_owner" ("id" char(32) NOT NULL PRIMARY KEY);
            CREATE TABLE "app_pet" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
                "owner_id" char(32) NULL REFERENCES "app_owner" ("id") DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO app_owner VALUES ('0f8fad5bd9cb469fa16570867728950e');
            PRAGMA foreign_keys = OFF;
            INSERT INTO app_pet (owner_id) VALUES ('not a uuid');
            PRAGMA foreign_keys = ON;
            """)
        let pets = try db.objects(R12Pet.self)
        #expect(pets.count == 1)
        #expect(pets[0].$owner.key == .text("not a uuid"))
        #expect(pets[0].owner == nil)
        #expect(throws: (any Error).self) { try pets[0].$owner.load() }
    }

    @Test func aReferenceFaultThatFailsIsLoggedAndThrownByItsHandle() throws {
        let record = R12LogRecord()
        var configuration = Database.Configuration()
        configuration.logger = Logger(label: "test") { _ in R12LogHandler(record: record) }
        let temp = try TemporaryDatabase(configuration: configuration)
        let db = temp.db
        try geography(db)
        let street = try #require(try db.object(R12Street.self, forKey: 10))
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.execute("DROP TABLE city")
        try db.execute("PRAGMA query_only = ON")
        #expect(street.city == nil)
        #expect(record.messages.contains { $0.hasPrefix("error:") && $0.contains("R12City") })
        #expect(throws: (any Error).self) { try street.$city.load() }
        // A key with no row is no failure: nil, and no error logged.
        let before = record.messages.count
        try db.execute("PRAGMA query_only = OFF")
        let other = try #require(try db.object(R12Street.self, forKey: 12))
        try db.execute("UPDATE street SET mayorCountry = 'XX' WHERE id = 12")
        #expect(other.mayorCountry == nil)
        #expect(record.messages.count == before)
    }
}

private final class R12Album: Model {
    static let tableName = "album"
    var id = UUID()
    var title = ""
    @Children(by: "album") var tracks: [R12Track]
    required init() {}
}

private final class R12Track: Model {
    static let tableName = "track"
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var album: R12Album?
    @Reference(onDelete: .setNull) var featured: R12Album?
    required init() {}
}

extension Review12RelationshipTests {
    @Test func uuidKeyedCascadeAndSetNullInStrataTablesReachLiveInstances() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let a = R12Album(), b = R12Album()
        try db.save([a, b])
        let t1 = R12Track(), t2 = R12Track(), t3 = R12Track()
        t1.album = a; t2.album = b; t2.featured = a; t3.album = b
        try db.save([t1, t2, t3])
        #expect(a.tracks.map(\.id) == [t1.id])
        try db.delete(a)
        #expect(t1.isDeleted && !t2.isDeleted)
        #expect(t2.featured == nil && t2.$featured.key == .null)
        #expect(b.tracks.map(\.id) == [t2.id, t3.id])
        #expect(try db.value(Int.self, "SELECT count(*) FROM track") == 2)
    }

    @Test func setNullOnAChildThatChangedTheColumnIsAConflictToRetry() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let germany = try #require(try db.object(R12Country.self, forKey: "DE"))
        let streets = try db.objects(R12Street.self, where: "ORDER BY id")
        // Street 12: a pending change of its mayor's country; street 13: of nothing it cascades.
        streets[2].mayorCountry = germany
        try db.delete(france)
        #expect(streets[2].mayorCountry === germany)
        // The cascade changed the column this instance changed too: a conflict, retried with the change.
        #expect(throws: (any Error).self) { try db.save(streets[2]) }
        #expect(streets[2].mayorCountry == nil)
        streets[2].mayorCountry = germany
        try db.save(streets[2])
        #expect(try db.value(String.self, "SELECT mayorCountry FROM street WHERE id = 12") == "DE")
        #expect(streets[3].mayorCountry == nil)
        try db.save(streets[3])   // nothing to write
        #expect(try db.value(String.self, "SELECT mayorCountry FROM street WHERE id = 13") == nil)
    }

    @Test func savingAChildACascadeDeletedThrowsAndWritesNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let paris = try #require(try db.object(R12City.self, forKey: 1))
        paris.name = "Lutetia"
        try db.delete(france)
        #expect(paris.isDeleted)
        #expect(throws: (any Error).self) { try db.save(paris) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM city WHERE id = 1") == 0)
    }

    @Test func prefetchPathBackToItsStartReusesTheOwners() throws {
        let temp = try syncedCompany()
        let db = temp.db
        var count = 0
        let trace = db.traceStatements { _ in count += 1 }
        let departments = try db.objects(R12Department.self, where: "ORDER BY id", prefetching: ["staff.department.staff", "manager.mentor"])
        trace.cancel()
        #expect(count <= 4)
        count = 0
        let trace2 = db.traceStatements { _ in count += 1 }
        #expect(departments.map { $0.staff.map(\.id) } == [[10, 11], [20, 21]])
        #expect(departments[1].staff[0].department === departments[1])
        #expect(departments[1].manager?.mentor?.id == 11)
        trace2.cancel()
        #expect(count == 0)
    }

    @Test func siblingsPrefetchPastTheVariableLimitWithTextKeys() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE owner(name TEXT PRIMARY KEY);
            CREATE TABLE toy(code TEXT PRIMARY KEY);
            CREATE TABLE owner_toy(owner TEXT, toy TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO owner SELECT 'o' || i FROM n;
            INSERT INTO toy VALUES ('ball'), ('kite');
            INSERT INTO owner_toy SELECT name, 'ball' FROM owner;
            INSERT INTO owner_toy SELECT name, 'kite' FROM owner WHERE rowid % 2 = 0;
            """)
        let owners = try db.objects(R12ToyOwner.self)
        var count = 0
        let trace = db.traceStatements { _ in count += 1 }
        try db.prefetch("toys", of: owners + owners)
        trace.cancel()
        #expect(count < 20)
        #expect(owners.reduce(0) { $0 + $1.toys.count } == 60_000)
        #expect(owners.first { $0.name == "o2" }?.toys.map(\.code) == ["ball", "kite"])
    }
}

private final class R12ToyOwner: Model {
    static let tableName = "owner"
    static let primaryKey = "name"
    var name = ""
    @Siblings(through: "owner_toy", from: "owner", to: "toy") var toys: [R12Toy]
    required init() {}
}

private final class R12Toy: Model {
    static let tableName = "toy"
    static let primaryKey = "code"
    var code = ""
    required init() {}
}

private func djangoOwners(_ db: Database) throws {
    try db.execute("""
        CREATE TABLE "app_owner" ("id" char(32) NOT NULL PRIMARY KEY);
        CREATE TABLE "app_pet" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
            "owner_id" char(32) NULL REFERENCES "app_owner" ("id") DEFERRABLE INITIALLY DEFERRED);
        INSERT INTO app_owner VALUES ('0f8fad5bd9cb469fa16570867728950e'), ('7c9e6679742540de944be07fc1f90ae7');
        INSERT INTO app_pet (owner_id) VALUES ('0f8fad5bd9cb469fa16570867728950e');
        """)
}

extension Review12RelationshipTests {
    @Test func deferredViolationOfADeleteOutsideATransactionDeletesNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try djangoOwners(db)
        let owner = try #require(try db.object(R12Owner.self, forKey: g1))
        let pet = try #require(try db.object(R12Pet.self, forKey: 1))
        #expect(throws: (any Error).self) { try db.delete(owner) }
        #expect(!owner.isDeleted)
        #expect(pet.owner === owner)
        #expect(try db.value(Int.self, "SELECT count(*) FROM app_owner") == 2)
        #expect(!db.isInTransaction)
        // Raw SQL the same way, in a transaction: the commit fails, and nothing stays.
        #expect(throws: (any Error).self) {
            try db.transaction { try db.execute("DELETE FROM $T WHERE id = ?", for: R12Owner.self, "0f8fad5bd9cb469fa16570867728950e") }
        }
        #expect(!owner.isDeleted)
        #expect(!db.isInTransaction)
        #expect(try db.value(Int.self, "SELECT count(*) FROM app_owner") == 2)
        #expect(try db.object(R12Owner.self, forKey: g1) === owner)
    }

    @Test func deferredViolationInASavepointFailsTheOuterCommit() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try djangoOwners(db)
        let owner = try #require(try db.object(R12Owner.self, forKey: g1))
        let other = try #require(try db.object(R12Owner.self, forKey: UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7")!))
        let pet = try #require(try db.object(R12Pet.self, forKey: 1))
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.delete(other)
                try db.transaction { try db.delete(owner) }   // released: deferred keys are checked at COMMIT
                #expect(owner.isDeleted)
            }
        }
        #expect(!owner.isDeleted && !other.isDeleted && !pet.isDeleted)
        #expect(pet.owner === owner)
        #expect(try db.value(Int.self, "SELECT count(*) FROM app_owner") == 2)
    }

    @Test func rawSQLDeleteCascadesToLiveInstancesAtEveryLevel() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let cities = try db.objects(R12City.self, where: "ORDER BY id")
        let streets = try db.objects(R12Street.self, where: "ORDER BY id")
        _ = streets.map(\.mayorCountry)
        #expect(france.cities.count == 2)
        try db.execute("DELETE FROM country WHERE code = 'fr'")
        #expect(france.isDeleted)
        #expect(cities.map(\.isDeleted) == [true, true, false])
        #expect(streets.map(\.isDeleted) == [true, true, false, false])
        #expect(streets[2].mayorCountry == nil && streets[3].$mayorCountry.key == .null)
    }

    @Test func siblingsAfterCloseThrowAndReadAsEmpty() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try peeweeGadgets(db)
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        let bolt = try #require(try db.object(PeeweePart.self, forKey: 1))
        try db.close()
        #expect(gadget.parts.isEmpty)
        #expect(throws: (any Error).self) { try gadget.$parts.load() }
        #expect(throws: (any Error).self) { try gadget.$parts.add(bolt) }
        #expect(throws: (any Error).self) { try gadget.$parts.remove(bolt) }
        #expect(throws: (any Error).self) { try db.prefetch("parts", of: [gadget]) }
    }
}

extension Review12RelationshipTests {
    @Test func faultsAfterTheHandleIsReleasedThrowAndReadAsEmpty() throws {
        let temp = try TemporaryDatabase()
        try geography(temp.db)
        try temp.db.close()
        var street: R12Street?, france: R12Country?
        weak var released: Database?
        do {
            let db = try Database(path: temp.path)
            street = try db.object(R12Street.self, forKey: 10)
            france = try db.object(R12Country.self, forKey: "FR")
            released = db
        }
        #expect(released == nil)
        let s = try #require(street), f = try #require(france)
        #expect(s.city == nil)
        #expect(s.$city.key == .integer(1))
        #expect(throws: (any Error).self) { try s.$city.load() }
        #expect(f.cities.isEmpty)
        #expect(throws: (any Error).self) { try f.$cities.load() }
    }
}

private final class R12Song: Model {
    static let tableName = "song"
    var id: Int64 = 0
    @Siblings(through: "song_genre", from: "song", to: "genre") var genres: [R12Genre]
    required init() {}
}

private final class R12Genre: Model {
    static let tableName = "genre"
    var id = UUID()
    var name = ""
    @Siblings(through: "song_genre", from: "genre", to: "song") var songs: [R12Song]
    required init() {}
}

extension Review12RelationshipTests {
    @Test func uuidTargetsThroughHexJoinColumnsFromTheOtherSide() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE song(id INTEGER PRIMARY KEY);
            CREATE TABLE genre(id char(32) NOT NULL PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE song_genre(id INTEGER PRIMARY KEY AUTOINCREMENT,
                song INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                genre char(32) NOT NULL REFERENCES genre(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                UNIQUE (song, genre));
            INSERT INTO song VALUES (1), (2);
            INSERT INTO genre VALUES ('0f8fad5bd9cb469fa16570867728950e', 'jazz'), ('7c9e6679742540de944be07fc1f90ae7', 'rock');
            INSERT INTO song_genre (song, genre) VALUES (1, '0f8fad5bd9cb469fa16570867728950e'), (2, '0f8fad5bd9cb469fa16570867728950e'),
                                                        (1, '7c9e6679742540de944be07fc1f90ae7');
            """)
        let jazz = try #require(try db.object(R12Genre.self, forKey: g1))
        let songs = try db.objects(R12Song.self, where: "ORDER BY id")
        try db.prefetch("genres", of: songs)
        #expect(songs.map { $0.genres.map(\.name).sorted() } == [["jazz", "rock"], ["jazz"]])
        try jazz.$songs.remove(songs[0])
        #expect(try db.value(Int.self, "SELECT count(*) FROM song_genre WHERE genre = '0f8fad5bd9cb469fa16570867728950e'") == 1)
        #expect(songs[0].genres.map(\.name) == ["rock"])
        try jazz.$songs.add(songs[0])
        #expect(try db.value(Int.self, "SELECT count(*) FROM song_genre WHERE genre = '0f8fad5bd9cb469fa16570867728950e'") == 2)
        // A cascade through the join table, rolled back: the arrays read as the file says.
        struct Undo: Error {}
        #expect(jazz.songs.count == 2)
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(songs[1])
                #expect(jazz.songs.map(\.id) == [1])
                throw Undo()
            }
        }
        #expect(!songs[1].isDeleted)
        #expect(jazz.songs.map(\.id) == [1, 2])
        #expect(songs[1].genres.map(\.name) == ["jazz"])
    }
}

extension Review12RelationshipTests {
    @Test func prefetchOfNoCaseKeysSpelledOtherwisePastTheVariableLimit() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE country(code TEXT PRIMARY KEY COLLATE NOCASE);
            CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', country TEXT REFERENCES country(code));
            CREATE TABLE street(id INTEGER PRIMARY KEY, city INTEGER, mayorCountry TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO country SELECT 'C' || i FROM n;
            INSERT INTO city (country) SELECT lower(code) FROM country;
            INSERT INTO city (country) SELECT code FROM country WHERE rowid % 4 = 0;
            """)
        let cities = try db.objects(R12City.self)
        var count = 0
        let trace = db.traceStatements { _ in count += 1 }
        try db.prefetch("country.cities", of: cities)
        trace.cancel()
        #expect(count < 30)
        count = 0
        let trace2 = db.traceStatements { _ in count += 1 }
        #expect(cities.filter { $0.country == nil }.isEmpty)
        let c4 = try #require(cities.first { $0.country?.code == "C4" }?.country)
        #expect(c4.cities.count == 2)
        #expect(cities.reduce(0) { $0 + ($1.country?.cities.count ?? 0) } == 40_000 + 10_000 * 3)
        trace2.cancel()
        #expect(count == 0)
    }
}

private final class R12Person: Model {
    static let tableName = "person"
    var id: Int64 = 0
    @Reference var partner: R12Person?
    @Siblings(through: "friendship", from: "a", to: "b") var friends: [R12Person]
    @Children(by: "partner") var admirers: [R12Person]
    required init() {}
}

extension Review12RelationshipTests {
    @Test func selfRelationshipsPrefetchedBothWaysAreFreed() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE person(id INTEGER PRIMARY KEY, partner INTEGER REFERENCES person(id));
            CREATE TABLE friendship(a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b));
            INSERT INTO person VALUES (1, 2), (2, 1), (3, 3), (4, NULL);
            INSERT INTO friendship VALUES (1, 2), (2, 1), (2, 3), (3, 3), (4, 1);
            """)
        weak var weakOne: R12Person?
        weak var weakThree: R12Person?
        do {
            let people = try db.objects(R12Person.self, where: "ORDER BY id",
                                        prefetching: ["friends.friends", "partner.admirers", "admirers.friends"])
            #expect(people.map { $0.friends.map(\.id) } == [[2], [1, 3], [3], [1]])
            #expect(people.map { $0.partner?.id } == [2, 1, 3, nil])
            #expect(people.map { $0.admirers.map(\.id) } == [[2], [1], [3], []])
            weakOne = people[0]
            weakThree = people[2]
        }
        #expect(weakOne == nil)
        #expect(weakThree == nil)
    }
}

extension Review12RelationshipTests {
    @Test func emptyReferenceColumnFollowsKeysAnotherConnectionWritesFirst() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "gadget" ("id" TEXT NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
            CREATE TABLE "widget" ("id" INTEGER NOT NULL PRIMARY KEY, "gadget_id" TEXT,
                FOREIGN KEY ("gadget_id") REFERENCES "gadget" ("id"));
            """)
        #expect(try db.objects(PeeweeWidget.self).isEmpty)   // mapped while both tables are empty
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        try other.execute("INSERT INTO gadget VALUES ('0f8fad5bd9cb469fa16570867728950e', 'g1')")
        let gadget = try #require(try db.object(PeeweeGadget.self, forKey: g1))
        let widget = PeeweeWidget(); widget.gadget = gadget
        try db.save(widget)
        #expect(try db.value(String.self, "SELECT gadget_id FROM widget") == "0f8fad5bd9cb469fa16570867728950e")
    }
}

private final class R12Orphan: Model {
    static let tableName = "orphan"
    var id: Int64 = 0
    @Reference var gadget: PeeweeGadget?
    required init() {}
}

extension Review12RelationshipTests {
    @Test func anAwaitedKeyTableThatDoesNotExistBreaksNoCall() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE orphan(id INTEGER PRIMARY KEY, gadget TEXT); CREATE TABLE other(x)")
        #expect(try db.objects(R12Orphan.self).isEmpty)   // gadget's table does not exist
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        try other.execute("INSERT INTO other VALUES (1)")
        #expect(try db.objects(R12Orphan.self).isEmpty)
        try other.execute("INSERT INTO orphan VALUES (1, NULL)")
        #expect(try db.objects(R12Orphan.self).count == 1)
    }
}

extension Review12RelationshipTests {
    @Test func prefetchKeepsReferencesAssignedButNotSaved() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try company(db)
        let staff = try db.objects(R12Employee.self, where: "ORDER BY id")
        let departments = try db.objects(R12Department.self, where: "ORDER BY id")
        let fresh = R12Department()
        staff[0].department = fresh
        staff[1].department = departments[1]
        staff[2].department = nil
        try db.prefetch("department", of: staff)
        try db.prefetch("staff", of: departments)
        #expect(staff[0].department === fresh)
        #expect(staff[1].department === departments[1])
        #expect(staff[2].department == nil)
        #expect(staff[3].department === departments[1])
        // The children arrays say what the rows say until the saves.
        #expect(departments.map { $0.staff.map(\.id) } == [[10, 11], [20, 21]])
        try db.save([fresh])
        try db.save(staff)
        #expect(departments.map { $0.staff.map(\.id) } == [[], [11, 21]])
        #expect(fresh.staff.map(\.id) == [10])
    }
}

extension Review12RelationshipTests {
    @Test func cascadeRolledBackKeepsPendingChangesOfTheInstancesItReached() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let lyon = try #require(try db.object(R12City.self, forKey: 2))
        let street = try #require(try db.object(R12Street.self, forKey: 12))
        let germany = try #require(try db.object(R12Country.self, forKey: "DE"))
        lyon.name = "Lugdunum"
        street.city = nil
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(france)
                #expect(lyon.isDeleted)
                throw Undo()
            }
        }
        #expect(!lyon.isDeleted)
        #expect(lyon.name == "Lugdunum")
        #expect(street.city == nil && street.mayorCountry === france)
        try db.save(lyon)
        try db.save(street)
        #expect(try db.value(String.self, "SELECT name FROM city WHERE id = 2") == "Lugdunum")
        #expect(try db.value(Int.self, "SELECT city FROM street WHERE id = 12") == nil)
        #expect(try db.value(String.self, "SELECT mayorCountry FROM street WHERE id = 12") == "fr")
        _ = germany
    }
}

extension Review12RelationshipTests {
    @Test func deletesRolledBackKeepThePendingChangesOfTheirInstances() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let lyon = try #require(try db.object(R12City.self, forKey: 2))
        lyon.name = "Lugdunum"
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(lyon)
                throw Undo()
            }
        }
        #expect(!lyon.isDeleted)
        #expect(lyon.name == "Lugdunum")
        let paris = try #require(try db.object(R12City.self, forKey: 1))
        paris.name = "Lutetia"
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.execute("DELETE FROM city WHERE id = 1")
                throw Undo()
            }
        }
        #expect(!paris.isDeleted)
        #expect(paris.name == "Lutetia")
    }
}

extension Review12RelationshipTests {
    @Test func setNullOverAPendingChangeRolledBackLeavesNoConflict() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let germany = try #require(try db.object(R12Country.self, forKey: "DE"))
        let street = try #require(try db.object(R12Street.self, forKey: 12))
        street.mayorCountry = germany
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(france)
                throw Undo()
            }
        }
        #expect(street.mayorCountry === germany)
        try db.save(street)   // the row is as the instance read it: no conflict
        #expect(try db.value(String.self, "SELECT mayorCountry FROM street WHERE id = 12") == "DE")
    }
}

private final class R12NamedOwner: Model {
    static let tableName = "app_owner"
    var id = UUID()
    var name = ""
    required init() {}
}

extension Review12RelationshipTests {
    /// Django's layout: an owner with a char(32) UUID key, and a pet whose DEFERRABLE INITIALLY DEFERRED
    /// foreign key holds it; the owner's live instance.
    private func ownerWithADeferredPet(_ db: Database) throws -> R12NamedOwner {
        try db.execute("""
            CREATE TABLE "app_owner" ("id" char(32) NOT NULL PRIMARY KEY, "name" varchar(20) NOT NULL DEFAULT '');
            CREATE TABLE "app_pet" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
                "owner_id" char(32) NULL REFERENCES "app_owner" ("id") DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO app_owner VALUES ('0f8fad5bd9cb469fa16570867728950e', 'ann');
            INSERT INTO app_pet (owner_id) VALUES ('0f8fad5bd9cb469fa16570867728950e');
            """)
        return try #require(try db.object(R12NamedOwner.self, forKey: g1))
    }

    @Test func deferredViolationAtCommitKeepsThePendingChangesOfTheDeleted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let owner = try ownerWithADeferredPet(db)
        owner.name = "anne"
        #expect(throws: (any Error).self) {
            try db.transaction { try db.delete(owner) }
        }
        #expect(!owner.isDeleted)
        #expect(owner.name == "anne")
        try db.save(owner)
        #expect(try db.value(String.self, "SELECT name FROM app_owner") == "anne")
    }
}

extension Review12RelationshipTests {
    @Test func deferredViolationOfASingleDeleteKeepsThePendingChanges() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let owner = try ownerWithADeferredPet(db)
        owner.name = "anne"
        #expect(throws: (any Error).self) { try db.delete(owner) }
        #expect(!owner.isDeleted)
        #expect(owner.name == "anne")
        #expect(throws: (any Error).self) {
            try db.execute("DELETE FROM app_owner")
        }
        #expect(!owner.isDeleted)
        #expect(owner.name == "anne")
        try db.save(owner)
        #expect(try db.value(String.self, "SELECT name FROM app_owner") == "anne")
    }
}

extension Review12RelationshipTests {
    @Test func cascadeRolledBackKeepsAChildsPendingMoveAndTheArraysFollowItsSave() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let france = try #require(try db.object(R12Country.self, forKey: "FR"))
        let germany = try #require(try db.object(R12Country.self, forKey: "DE"))
        let lyon = try #require(try db.object(R12City.self, forKey: 2))
        #expect(france.cities.map(\.id) == [1, 2] && germany.cities.map(\.id) == [3])
        lyon.country = germany
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.delete(france)
                #expect(france.cities.isEmpty)
                throw Undo()
            }
        }
        #expect(!lyon.isDeleted && lyon.country === germany)
        #expect(france.cities.map(\.id) == [1, 2])   // the rows say so until the save
        try db.save(lyon)
        #expect(try db.value(String.self, "SELECT country FROM city WHERE id = 2") == "DE")
        #expect(france.cities.map(\.id) == [1])
        #expect(germany.cities.map(\.id) == [2, 3])
    }
}

extension Review12RelationshipTests {
    @Test func referenceToAnInsertRolledBackReadsTheRowsTargetAgain() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try company(db)
        let staff = try db.objects(R12Employee.self, where: "ORDER BY id", prefetching: ["department"])
        let first = try #require(staff[0].department)
        #expect(first.staff.map(\.id) == [10, 11])
        let fresh = R12Department()
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.save(fresh)
                staff[0].department = fresh
                try db.save(staff[0])
                #expect(fresh.staff.map(\.id) == [10])
                throw Undo()
            }
        }
        #expect(!fresh.isPersisted)
        #expect(staff[0].department === first)
        #expect(first.staff.map(\.id) == [10, 11])
        #expect(fresh.staff.isEmpty)
        #expect(try db.value(Int.self, "SELECT department FROM employee WHERE id = 10") == 1)
    }
}

extension Review12RelationshipTests {
    @Test func deleteInASavepointRolledBackKeepsPendingChangesAndACommittedDeleteLetsThemGo() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try geography(db)
        let lyon = try #require(try db.object(R12City.self, forKey: 2))
        let berlin = try #require(try db.object(R12City.self, forKey: 3))
        lyon.name = "Lugdunum"
        berlin.name = "Berolina"
        struct Undo: Error {}
        try db.transaction {
            #expect(throws: Undo.self) {
                try db.transaction {
                    try db.delete(lyon)
                    throw Undo()
                }
            }
            try db.delete(berlin)
        }
        #expect(!lyon.isDeleted && lyon.name == "Lugdunum")
        #expect(lyon.changedProperties == ["name"])
        #expect(berlin.isDeleted && berlin.changedProperties.isEmpty && !berlin.hasChanges)
        try db.save(lyon)
        #expect(try db.value(String.self, "SELECT group_concat(name) FROM city ORDER BY id") == "Paris,Lugdunum")
    }
}
