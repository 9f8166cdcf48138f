import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Relationships over key columns in other tools' formats: a UUID key stored as 32 hex digits (Django's
// `UUIDField(primary_key=True)` -> char(32), SQLAlchemy's Uuid, peewee), as 16 bytes or as uppercase
// dashed text, and integer keys stored as TEXT or REAL in an untyped reference column. Each column keeps
// its format; keys meet the identity map, groupings and comparisons in their canonical Swift form.

private final class KOwner: Model {
    static let tableName = "k_owner"
    var id = UUID()
    var name = ""
    @Children(by: "owner", orderBy: "name") var pets: [KPet]
    required init() {}
}

private final class KPet: Model {
    static let tableName = "k_pet"
    var id: Int64 = 0
    var name = ""
    @Reference var owner: KOwner?
    required init() {}
}

private final class KClub: Model {
    static let tableName = "k_club"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

/// A composite key whose first part is a reference to the UUID-keyed owner.
private final class KMembership: Model {
    static let tableName = "k_membership"
    static let compositeKey = ["owner", "club"]
    @Reference var owner: KOwner?
    @Reference var club: KClub?
    var role = ""
    required init() {}
}

private final class KTag: Model {
    static let tableName = "k_tag"
    var id = UUID()
    var name = ""
    @Siblings(through: "k_post_tags", from: "tag_id", to: "post_id", orderBy: "title") var posts: [KPost]
    required init() {}
}

private final class KPost: Model {
    static let tableName = "k_post"
    var id = UUID()
    var title = ""
    @Siblings(through: "k_post_tags", from: "post_id", to: "tag_id", orderBy: "name") var tags: [KTag]
    required init() {}
}

/// A reference whose column format is declared: uppercase hex in a column Strata creates.
private final class KDeclaredPet: Model {
    static let tableName = "k_declared_pet"
    static let columnFormats: [String: ColumnFormat] = ["owner": .uuidHex(uppercase: true)]
    var id: Int64 = 0
    @Reference var owner: KOwner?
    required init() {}
}

/// The same without a declaration: a column Strata creates keeps Strata's own format.
private final class KPlainPet: Model {
    static let tableName = "k_plain_pet"
    var id: Int64 = 0
    @Reference var owner: KOwner?
    required init() {}
}

private final class KCodablePet: Model, Codable {
    static let tableName = "k_pet"
    var id: Int64 = 0
    var name = ""
    @Reference var owner: KOwner?
    required init() {}
}

private final class KCodableHolder: Model, Codable {
    static let tableName = "KIHolder"
    var id: Int64 = 0
    @Reference var target: KITarget?
    required init() {}
}

private final class KSParent: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

private final class KSChild: Model {
    var id: Int64 = 0
    @Reference var parent: KSParent?
    required init() {}
}

private final class KITarget: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class KIHolder: Model {
    var id: Int64 = 0
    @Reference var target: KITarget?
    required init() {}
}

/// How a UUID key column stores its values.
enum StoredUUIDForm: String, CaseIterable, Sendable, CustomStringConvertible {
    case hexLowercase, hexUppercase, blob, dashedUppercase

    var description: String { rawValue }

    /// The declared type other tools give such a column.
    var declaredType: String {
        switch self {
        case .hexLowercase, .hexUppercase: "char(32)"
        case .blob: "blob"
        case .dashedUppercase: "char(36)"
        }
    }

    /// The value as SQLite's `quote()` spells it.
    func literal(_ uuid: UUID) -> String {
        let hex = uuid.uuidString.replacingOccurrences(of: "-", with: "")
        switch self {
        case .hexLowercase: return "'\(hex.lowercased())'"
        case .hexUppercase: return "'\(hex.uppercased())'"
        case .blob: return "X'\(hex.uppercased())'"
        case .dashedUppercase: return "'\(uuid.uuidString.uppercased())'"
        }
    }
}

private let annID = UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!
private let bobID = UUID(uuidString: "7c9e6679-7425-40de-944b-e07fc1f90ae7")!
private let catID = UUID(uuidString: "16fd2706-8baf-433b-82eb-8c7fada847da")!

/// Owners ann, bob, cat and pets rex (ann), tom (bob), fido (ann), as Django makes them (deferred foreign
/// keys), keys in `form`; a club and a membership of ann's; posts and tags paired through a join table.
private func petsDatabase(_ form: StoredUUIDForm) throws -> TemporaryDatabase {
    let temp = try TemporaryDatabase()
    let type = form.declaredType
    let (ann, bob, cat) = (form.literal(annID), form.literal(bobID), form.literal(catID))
    try temp.db.execute("""
        CREATE TABLE "k_owner" ("id" \(type) NOT NULL PRIMARY KEY, "name" varchar(50) NOT NULL);
        CREATE TABLE "k_pet" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(50) NOT NULL,
            "owner_id" \(type) NULL REFERENCES "k_owner" ("id") DEFERRABLE INITIALLY DEFERRED);
        CREATE TABLE "k_club" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(50) NOT NULL);
        CREATE TABLE "k_membership" ("owner_id" \(type) NOT NULL REFERENCES "k_owner" ("id") DEFERRABLE INITIALLY DEFERRED,
            "club_id" integer NOT NULL REFERENCES "k_club" ("id") DEFERRABLE INITIALLY DEFERRED,
            "role" varchar(20) NOT NULL, PRIMARY KEY ("owner_id", "club_id"));
        CREATE TABLE "k_post" ("id" \(type) NOT NULL PRIMARY KEY, "title" varchar(50) NOT NULL);
        CREATE TABLE "k_tag" ("id" \(type) NOT NULL PRIMARY KEY, "name" varchar(50) NOT NULL);
        CREATE TABLE "k_post_tags" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
            "post_id" \(type) NOT NULL REFERENCES "k_post" ("id") DEFERRABLE INITIALLY DEFERRED,
            "tag_id" \(type) NOT NULL REFERENCES "k_tag" ("id") DEFERRABLE INITIALLY DEFERRED);
        CREATE UNIQUE INDEX "k_post_tags_uniq" ON "k_post_tags" ("post_id", "tag_id");
        INSERT INTO k_owner VALUES (\(ann), 'ann'), (\(bob), 'bob'), (\(cat), 'cat');
        INSERT INTO k_pet (name, owner_id) VALUES ('rex', \(ann)), ('tom', \(bob)), ('fido', \(ann));
        INSERT INTO k_club VALUES (1, 'chess');
        INSERT INTO k_membership VALUES (\(ann), 1, 'member');
        INSERT INTO k_post VALUES (\(ann), 'first'), (\(bob), 'second');
        INSERT INTO k_tag VALUES (\(cat), 'a'), (\(bob), 'b');
        INSERT INTO k_post_tags (post_id, tag_id) VALUES (\(ann), \(cat));
        """)
    return temp
}

/// A fresh handle on the file, with `types` synced, so that statement counts show no schema reads.
private func freshHandle(_ temp: TemporaryDatabase, syncing types: [any Model.Type]) throws -> Database {
    let db = try Database(path: temp.path)
    for type in types { _ = try db.registry(for: type) }
    return db
}

private func stored(_ db: Database, _ sql: String) throws -> String? {
    try db.value(String.self, sql)
}

@Suite struct ReferenceKeyFormatTests {
    // MARK: UUID keys in other tools' formats

    @Test(arguments: StoredUUIDForm.allCases)
    func readingAReferenceLeavesItsOwnerUnchanged(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)
        let db = temp.db
        let pet = try #require(try db.object(KPet.self, forKey: 1))
        #expect(pet.$owner.key == annID.sqlValue)    // the canonical key, whatever the column holds
        #expect(pet.owner?.name == "ann")
        #expect(pet.changedProperties == [])
        let log = StatementLog(db)
        try db.save(pet)
        #expect(log.statements.isEmpty)               // an unchanged save writes nothing
        #expect(try stored(db, "SELECT quote(owner_id) FROM k_pet WHERE id = 1") == form.literal(annID))

        // A raw write refreshes the live pet: the reference keeps its object while its key is the same row's.
        let owner = try #require(pet.owner)
        try db.execute("UPDATE k_pet SET name = 'rex2' WHERE id = 1")
        #expect(pet.name == "rex2")
        #expect(pet.owner === owner)
        #expect(pet.changedProperties == [])
        try db.execute("UPDATE k_pet SET owner_id = \(form.literal(bobID)) WHERE id = 1")
        #expect(pet.owner?.name == "bob")
        #expect(pet.changedProperties == [])
    }

    @Test(arguments: StoredUUIDForm.allCases)
    func newAndChangedReferencesAreWrittenInTheColumnsFormat(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)
        let db = temp.db   // foreign keys on: Django's deferred keys are checked at COMMIT
        let bob = try #require(try db.object(KOwner.self, forKey: bobID))
        let kit = KPet(); kit.name = "kit"; kit.owner = bob
        try db.save(kit)
        #expect(try stored(db, "SELECT quote(owner_id) FROM k_pet WHERE name = 'kit'") == form.literal(bobID))

        let rex = try #require(try db.object(KPet.self, forKey: 1))
        rex.owner = bob
        #expect(rex.changedProperties == ["owner"])
        try db.save(rex)
        #expect(try stored(db, "SELECT quote(owner_id) FROM k_pet WHERE id = 1") == form.literal(bobID))
        #expect(rex.changedProperties == [])
        // Joined as the other tool joins: by the stored value.
        #expect(try db.value(Int.self, "SELECT count(*) FROM k_pet JOIN k_owner ON k_owner.id = k_pet.owner_id WHERE k_owner.name = 'bob'") == 3)

        rex.owner = nil
        try db.save(rex)
        #expect(try stored(db, "SELECT quote(owner_id) FROM k_pet WHERE id = 1") == "NULL")
    }

    @Test(arguments: StoredUUIDForm.allCases)
    func batchedFaultsAndPrefetchFindTheOwners(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)

        // Batched faults, in a handle with no live instance.
        let db = try freshHandle(temp, syncing: [KPet.self, KOwner.self])
        let pets = try db.objects(KPet.self, where: "ORDER BY id")
        let log = StatementLog(db)
        #expect(pets.map { $0.owner?.name } == ["ann", "bob", "ann"])
        #expect(log.count == 1)                        // one batch for every pet
        #expect(try pets[1].$owner.load()?.name == "bob")
        #expect(pets[0].owner === pets[2].owner)
        #expect(pets.allSatisfy { $0.changedProperties.isEmpty })

        // Prefetch, in another fresh handle.
        let other = try freshHandle(temp, syncing: [KPet.self, KOwner.self])
        let otherLog = StatementLog(other)
        let prefetched = try other.objects(KPet.self, where: "ORDER BY id", prefetching: ["owner"])
        #expect(otherLog.count == 2)
        #expect(prefetched.map { $0.owner?.name } == ["ann", "bob", "ann"])
        #expect(otherLog.count == 2)                   // nothing more was read
        #expect(prefetched.allSatisfy { $0.changedProperties.isEmpty })

        // Prefetch beside a live owner: the live instance, found by its canonical key.
        let third = try freshHandle(temp, syncing: [KPet.self, KOwner.self])
        let ann = try #require(try third.object(KOwner.self, forKey: annID))
        let withLive = try third.objects(KPet.self, where: "ORDER BY id", prefetching: ["owner"])
        #expect(withLive[0].owner === ann)
        #expect(withLive[2].owner === ann)
        #expect(withLive[1].owner?.name == "bob")
    }

    @Test(arguments: StoredUUIDForm.allCases)
    func childrenAndMatchingBindTheKeyInTheColumnsFormat(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)
        let db = try freshHandle(temp, syncing: [KPet.self, KOwner.self])
        let ann = try #require(try db.object(KOwner.self, forKey: annID))
        let log = StatementLog(db)
        #expect(ann.pets.map(\.name) == ["fido", "rex"])
        #expect(log.count == 1)
        #expect(ann.pets.allSatisfy { $0.owner === ann })    // resolved to the parent with no query
        #expect(log.count == 1)
        #expect(try db.objects(KPet.self, matching: ["owner": annID], orderBy: "name").map(\.name) == ["fido", "rex"])
        #expect(try db.objects(KPet.self, matching: ["owner": [annID, bobID]]).count == 3)

        let other = try freshHandle(temp, syncing: [KPet.self, KOwner.self])
        let otherLog = StatementLog(other)
        let owners = try other.objects(KOwner.self, where: "ORDER BY name", prefetching: ["pets"])
        #expect(otherLog.count == 2)
        #expect(owners.map { $0.pets.map(\.name) } == [["fido", "rex"], ["tom"], []])
        #expect(owners[0].pets.allSatisfy { $0.owner === owners[0] })
        #expect(otherLog.count == 2)
        #expect(owners.flatMap(\.pets).allSatisfy { $0.changedProperties.isEmpty })
    }

    @Test(arguments: StoredUUIDForm.allCases)
    func siblingsReadAndWriteTheJoinTableInItsFormat(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)
        let db = temp.db
        let first = try #require(try db.object(KPost.self, forKey: annID))
        let second = try #require(try db.object(KPost.self, forKey: bobID))
        let a = try #require(try db.object(KTag.self, forKey: catID))
        let b = try #require(try db.object(KTag.self, forKey: bobID))
        #expect(try first.$tags.load().map(\.name) == ["a"])
        #expect(try a.$posts.load().map(\.title) == ["first"])

        try first.$tags.add(a)     // there already: nothing is written
        #expect(try db.value(Int.self, "SELECT count(*) FROM k_post_tags") == 1)
        try first.$tags.add(b)
        #expect(try stored(db, "SELECT quote(tag_id) FROM k_post_tags WHERE id = 2") == form.literal(bobID))
        #expect(try stored(db, "SELECT quote(post_id) FROM k_post_tags WHERE id = 2") == form.literal(annID))
        try second.$tags.add(b)
        #expect(try first.$tags.reload().map(\.name) == ["a", "b"])

        try first.$tags.remove(a)
        #expect(try db.value(Int.self, "SELECT count(*) FROM k_post_tags WHERE tag_id = \(form.literal(catID))") == 0)
        #expect(try db.value(Int.self, "SELECT count(*) FROM k_post_tags") == 2)

        let other = try freshHandle(temp, syncing: [KPost.self, KTag.self])
        let posts = try other.objects(KPost.self, where: "ORDER BY title", prefetching: ["tags"])
        #expect(posts.map { $0.tags.map(\.name) } == [["b"], ["b"]])
        let tags = try other.objects(KTag.self, where: "ORDER BY name", prefetching: ["posts"])
        #expect(tags.map { $0.posts.map(\.title) } == [[], ["first", "second"]])
        #expect(posts[0].tags[0] === tags[1])
    }

    @Test(arguments: StoredUUIDForm.allCases)
    func aCompositeKeyWithAReferencePartUsesTheColumnsFormat(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)
        let db = temp.db
        let membership = try #require(try db.object(KMembership.self, forKey: CompositeKey(annID, 1)))
        #expect(membership.owner?.name == "ann")
        #expect(membership.club?.name == "chess")
        #expect(membership.changedProperties == [])
        #expect(try db.objects(KMembership.self).first === membership)
        membership.role = "captain"
        try db.save(membership)
        #expect(try stored(db, "SELECT role FROM k_membership") == "captain")
        #expect(try stored(db, "SELECT quote(owner_id) FROM k_membership") == form.literal(annID))

        let reopened = try freshHandle(temp, syncing: [KMembership.self, KOwner.self])
        let all = try reopened.objects(KMembership.self, prefetching: ["owner"])
        #expect(all.map { $0.owner?.name } == ["ann"])
        #expect(try reopened.object(KMembership.self, forKey: CompositeKey(annID, 1)) === all.first)
        #expect(try reopened.delete(try #require(all.first)))
        #expect(try reopened.value(Int.self, "SELECT count(*) FROM k_membership") == 0)
    }

    @Test(arguments: StoredUUIDForm.allCases)
    func aRowReplacedByRawSQLKeepsItsLiveInstance(_ form: StoredUUIDForm) throws {
        let temp = try petsDatabase(form)
        let db = temp.db
        try db.execute("PRAGMA foreign_keys = OFF")
        let ann = try #require(try db.object(KOwner.self, forKey: annID))
        // A new rowid for the same key, with no DELETE reported: the live instance is found by its key
        // as the column stores it, and follows its row.
        try db.execute("INSERT OR REPLACE INTO k_owner (id, name) VALUES (\(form.literal(annID)), 'ann2')")
        #expect(!ann.isDeleted)
        #expect(ann.name == "ann2")
        #expect(try db.object(KOwner.self, forKey: annID) === ann)
    }

    @Test func aDeclaredColumnFormatOnAReferenceWins() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let ann = KOwner(); ann.id = annID; ann.name = "ann"
        try db.save(ann)
        let declared = KDeclaredPet(); declared.owner = ann
        try db.save(declared)
        let plain = KPlainPet(); plain.owner = ann
        try db.save(plain)
        // Columns Strata creates keep its own format unless the model declares another.
        #expect(try stored(db, "SELECT owner FROM k_declared_pet") == "0F8FAD5BD9CB469FA16570867728950E")
        #expect(try stored(db, "SELECT owner FROM k_plain_pet") == "0f8fad5b-d9cb-469f-a165-70867728950e")

        let other = try freshHandle(temp, syncing: [KDeclaredPet.self, KPlainPet.self, KOwner.self])
        let pets = try other.objects(KDeclaredPet.self, prefetching: ["owner"])
        #expect(pets.map { $0.owner?.name } == ["ann"])
        #expect(pets[0].$owner.key == annID.sqlValue)
        #expect(pets[0].changedProperties == [])
        let plains = try other.objects(KPlainPet.self, prefetching: ["owner"])
        #expect(plains[0].owner === pets[0].owner)
    }

    @Test func aDecodedReferenceHoldsTheCanonicalKey() throws {
        let temp = try petsDatabase(.hexUppercase)
        let db = temp.db
        let ann = try #require(try db.object(KOwner.self, forKey: annID))
        let json = #"{"id":0,"name":"kit","owner":"0F8FAD5BD9CB469FA16570867728950E"}"#
        let pet = try JSONDecoder().decode(KCodablePet.self, from: Data(json.utf8))
        #expect(pet.$owner.key == annID.sqlValue)
        try db.save(pet)
        #expect(pet.owner === ann)
        #expect(try stored(db, "SELECT owner_id FROM k_pet WHERE name = 'kit'") == "0F8FAD5BD9CB469FA16570867728950E")

        let holder = try JSONDecoder().decode(KCodableHolder.self, from: Data(#"{"id":0,"target":"2"}"#.utf8))
        #expect(holder.$target.key == .integer(2))
    }

    // MARK: Integer keys stored as TEXT or REAL

    /// Holders 1-5 whose untyped `target` column holds '1' (TEXT), 2.0 (REAL), 2, ' 1e1 ' (TEXT) and 'x'.
    private func integerKeys() throws -> TemporaryDatabase {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            PRAGMA foreign_keys = OFF;
            CREATE TABLE KITarget(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE KIHolder(id INTEGER PRIMARY KEY, target REFERENCES KITarget(id));
            INSERT INTO KITarget VALUES (1, 'one'), (2, 'two'), (10, 'ten');
            INSERT INTO KIHolder VALUES (1, '1'), (2, 2.0), (3, 2), (4, ' 1e1 '), (5, 'x');
            """)
        return temp
    }

    @Test func integerKeysStoredAsTextOrRealFaultInABatch() throws {
        let temp = try integerKeys()
        let db = try freshHandle(temp, syncing: [KIHolder.self, KITarget.self])
        let holders = try db.objects(KIHolder.self, where: "ORDER BY id")
        #expect(holders.map(\.$target.key) == [.integer(1), .integer(2), .integer(2), .integer(10), .text("x")])
        let log = StatementLog(db)
        #expect(holders.map { $0.target?.name } == ["one", "two", "two", "ten", nil])
        #expect(log.count == 1)
        #expect(holders[1].target === holders[2].target)
        #expect(try holders[0].$target.load()?.name == "one")
        #expect(throws: ModelError.self) { try holders[4].$target.load() }
        #expect(holders.allSatisfy { $0.changedProperties.isEmpty })
        try db.save(holders)
        #expect(try db.rows("SELECT typeof(target) FROM KIHolder ORDER BY id").map { $0.values[0] }
                == [.text("text"), .text("real"), .text("integer"), .text("text"), .text("text")])

        holders[0].target = holders[3].target
        try db.save(holders[0])
        #expect(try db.value(Int64.self, "SELECT target FROM KIHolder WHERE id = 1") == 10)
    }

    @Test func aTextKeyStoredAsAnIntegerIsTheTextKey() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE KSParent(code TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE KSChild(id INTEGER PRIMARY KEY, parent REFERENCES KSParent(code));
            INSERT INTO KSParent VALUES ('5', 'five'), ('7', 'seven');
            INSERT INTO KSChild VALUES (1, 5), (2, '7'), (3, 5);
            """)
        let db = try freshHandle(temp, syncing: [KSChild.self, KSParent.self])
        let children = try db.objects(KSChild.self, where: "ORDER BY id", prefetching: ["parent"])
        #expect(children.map(\.$parent.key) == [.text("5"), .text("7"), .text("5")])
        #expect(children.map { $0.parent?.name } == ["five", "seven", "five"])
        #expect(children.allSatisfy { $0.changedProperties.isEmpty })
        let log = StatementLog(db)
        for child in children { try db.save(child) }
        #expect(log.statements.isEmpty)
        #expect(try db.value(String.self, "SELECT typeof(parent) FROM KSChild WHERE id = 1") == "integer")
    }

    @Test func integerKeysStoredAsTextOrRealPrefetch() throws {
        let temp = try integerKeys()
        let db = try freshHandle(temp, syncing: [KIHolder.self, KITarget.self])
        let one = try #require(try db.object(KITarget.self, forKey: 1))
        let log = StatementLog(db)
        let holders = try db.objects(KIHolder.self, where: "ORDER BY id", prefetching: ["target"])
        #expect(log.count == 2)
        #expect(holders.map { $0.target?.name } == ["one", "two", "two", "ten", nil])
        #expect(holders[0].target === one)             // the live instance, by its rowid
        #expect(log.count == 2)
        #expect(throws: Never.self) { try holders[0].$target.load() }
        #expect(holders.allSatisfy { $0.changedProperties.isEmpty })
    }
}
