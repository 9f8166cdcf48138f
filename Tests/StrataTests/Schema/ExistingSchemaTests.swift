import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Mapping tables as other tools made them: column names, references by their foreign-key column, partial
// and read-only models, views, schema defaults, indices of other definitions, another tool's rebuild.

/// Django's DDL for two models of ../shared/fixtures/django (inventory 0001), as `sqlmigrate` prints it.
private let djangoInventory = """
    CREATE TABLE "inventory_supplier" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(100) NOT NULL UNIQUE, "email" varchar(254) NOT NULL, "active" bool NOT NULL, "rating" real NULL, "website_ip" char(39) NULL);
    CREATE TABLE "inventory_product" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "sku" varchar(40) NOT NULL, "title" varchar(100) NOT NULL, "price" decimal NOT NULL, "in_stock" bool NULL, "weight_kg" real NOT NULL, "quantity" integer unsigned NOT NULL CHECK ("quantity" >= 0), "big_counter" bigint NOT NULL, "shelf_life" bigint NULL, "released_on" date NULL, "created_at" datetime NOT NULL, "restock_time" time NULL, "uid" char(32) NOT NULL UNIQUE, "thumbnail" BLOB NULL, "attributes" text NOT NULL CHECK ((JSON_VALID("attributes") OR "attributes" IS NULL)), "notes" text NOT NULL, "supplier_id" integer NOT NULL REFERENCES "inventory_supplier" ("id") DEFERRABLE INITIALLY DEFERRED, CONSTRAINT "price_non_negative" CHECK ("price" >= '0'));
    CREATE INDEX "inventory_product_supplier_id_0824ffff" ON "inventory_product" ("supplier_id");
    INSERT INTO inventory_supplier VALUES (1, 'Acme', 'a@acme.test', 1, 4.5, NULL);
    INSERT INTO inventory_product VALUES (1, 'A1', 'Anvil', '19.99', 1, 50.0, 3, 9007199254740993, NULL, '2024-01-02', '2024-01-02 03:04:05.123456', NULL, '0123456789abcdef0123456789abcdef', NULL, '{}', '', 1);
    """

private final class InvSupplier: Model {
    static let tableName = "inventory_supplier"
    var id: Int64 = 0
    var name = ""
    var email = ""
    var active = false
    var rating: Double?
    @Children(by: "supplier", orderBy: "sku") var products: [InvProduct]
    required init() {}
}

/// A partial model: it leaves out the nullable columns, maps `createdAt` and `label` to Django's names, and
/// `supplier` to `supplier_id` by convention (no entry needed).
private final class InvProduct: Model {
    static let tableName = "inventory_product"
    static let columnNames = ["createdAt": "created_at", "label": "title"]
    var id: Int64 = 0
    var sku = ""
    var label = ""
    var price = Decimal(0)
    var in_stock: Bool?
    var weight_kg = 0.0
    var quantity = 0
    var big_counter: Int64 = 0
    var createdAt = Date(timeIntervalSince1970: 0)
    var uid = UUID()
    var attributes = "{}"
    var notes = ""
    @Reference var supplier: InvSupplier?
    required init() {}
}

private final class Album: Model {
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class TrackGuessing: Model {
    static let tableName = "track"
    var id: Int64 = 0
    @Reference var album: Album?
    required init() {}
}

private final class TrackMapped: Model {
    static let tableName = "track"
    static let columnNames = ["album": "album_ref"]
    var id: Int64 = 0
    @Reference var album: Album?
    required init() {}
}

private final class TrackWithNewColumn: Model {
    static let tableName = "track"
    static let columnNames = ["album": "album"]
    var id: Int64 = 0
    @Reference var album: Album?
    required init() {}
}

private final class ProductName: Model {
    static let tableName = "product_names"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class ProductNameWithPrice: Model {
    static let tableName = "product_names"
    var id: Int64 = 0
    var title = ""
    var price = 0.0
    required init() {}
}

private final class Ledger: Model {
    static let isReadOnly = true
    static let indices = [["amount"]]
    var id: Int64 = 0
    var amount = 0
    required init() {}
}

private final class Post: Model {
    var id: Int64 = 0
    var title = ""
    var status = ""
    var created = Date(timeIntervalSince1970: 0)
    var views = 0
    var score: Double?
    required init() {}
}

private final class Setting: Model {
    static let primaryKey = "key"
    var key = ""
    var value = ""
    var scope = ""
    required init() {}
}

private final class Person: Model {
    static let indices = [["name"], ["code"], ["email"]]
    var id: Int64 = 0
    var name = ""
    var code: String?
    var email = ""
    required init() {}
}

private final class Account: Model {
    static let uniqueIndices = [["email"]]
    static let indices = [["name", "email"]]
    var id: Int64 = 0
    var name = ""
    var email = ""
    var balance = 0
    required init() {}
}

/// A read-mostly summary of `Account`: some columns, no indices.
private final class AccountSummary: Model {
    static let tableName = "Account"
    var id: Int64 = 0
    var name = ""
    var email = ""
    required init() {}
}

/// Every column of `Account`, no indices.
private final class AccountAllColumns: Model {
    static let tableName = "Account"
    var id: Int64 = 0
    var name = ""
    var email = ""
    var balance = 0
    required init() {}
}

private final class Gadget: Model {
    var id: Int64 = 0
    var name = ""
    var added = 0
    required init() {}
}

private final class Flags: Model {
    var id: Int64 = 0
    var yes = false
    var upper = false
    var tf: Bool?
    required init() {}
}

private final class Amount: Model {
    var id: Int64 = 0
    var value = Decimal(0)
    var optional: Decimal?
    required init() {}
}

@Suite struct ExistingSchemaTests {
    @Test func djangoTablesMapByColumnNameAndForeignKeyAndStayUntouched() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(djangoInventory)
        let before = try schemaSnapshot(db)

        let plan = try db.schemaPlan(for: InvProduct.self)
        #expect(plan.isEmpty)
        #expect(plan.columns["supplier"] == "supplier_id" && plan.columns["createdAt"] == "created_at" && plan.columns["label"] == "title")
        #expect(plan.description.contains("supplier -> column \"supplier_id\""))

        let anvil = try #require(try db.object(InvProduct.self, forKey: 1))
        #expect(anvil.label == "Anvil" && anvil.price == Decimal(string: "19.99"))
        #expect(anvil.createdAt == Date(timeIntervalSince1970: 1_704_164_645.123456))
        #expect(anvil.supplier?.name == "Acme")
        #expect(try db.objects(InvProduct.self, matching: ["label": "Anvil", "createdAt": anvil.createdAt]).first === anvil)
        #expect(try db.objects(InvProduct.self, where: "ORDER BY $PK", prefetching: ["supplier"]).first?.supplier?.active == true)
        let acme = try #require(anvil.supplier)
        #expect(try acme.$products.load().map(\.sku) == ["A1"])

        // A save writes the changed columns under their own names.
        anvil.label = "Anvil XL"
        anvil.price = Decimal(string: "24.50")!
        try db.save(anvil)
        let row = try #require(try db.rows("SELECT title, price, typeof(price), created_at, supplier_id FROM inventory_product WHERE id = 1").first)
        #expect(row.values == [.text("Anvil XL"), .real(24.5), .text("real"), .text("2024-01-02 03:04:05.123456"), .integer(1)])

        // An insert fills every mapped column; the reference goes to supplier_id.
        let hammer = InvProduct()
        hammer.sku = "H1"; hammer.label = "Hammer"; hammer.price = Decimal(string: "5.10")!
        hammer.createdAt = Date(timeIntervalSince1970: 1_700_000_000); hammer.supplier = acme
        try db.save(hammer)
        #expect(try db.value(Int64.self, "SELECT supplier_id FROM inventory_product WHERE sku = 'H1'") == 1)
        #expect(try acme.$products.reload().map(\.sku) == ["A1", "H1"])

        // The foreign key is NOT NULL: a product without a supplier is refused, naming the property.
        let orphan = InvProduct(); orphan.sku = "O1"
        let missing = try #require(throws: ModelError.self) { try db.save(orphan) }
        #expect(missing.kind == .missingValue && missing.property == "supplier")
        #expect(try #require(throws: ModelError.self) { try orphan.$supplier.require() }.kind == .missingValue)
        #expect(try hammer.$supplier.require() === acme)
        try db.execute("PRAGMA foreign_keys = OFF; UPDATE inventory_product SET supplier_id = 99 WHERE sku = 'H1'")
        #expect(try #require(throws: ModelError.self) { try hammer.$supplier.require() }.kind == .notFound)
        try db.execute("UPDATE inventory_product SET supplier_id = 1 WHERE sku = 'H1'; PRAGMA foreign_keys = ON")
        #expect(try hammer.$supplier.require() === acme)
        #expect(try db.value(Int.self, "SELECT count(*) FROM inventory_product") == 2)

        #expect(try schemaSnapshot(db) == before)
        let fresh = try temp.reopen()
        #expect(try fresh.schemaPlan(for: InvProduct.self).isEmpty && fresh.schemaPlan(for: InvSupplier.self).isEmpty)
        #expect(try fresh.object(InvProduct.self, forKey: 2)?.supplier?.name == "Acme")
    }

    @Test func aReferenceBesideAForeignKeyOfAnotherNameIsAnExplicitChoice() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE Album(id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '');
            CREATE TABLE track(id INTEGER PRIMARY KEY, album_ref INTEGER REFERENCES Album(id));
            INSERT INTO Album VALUES (1, 'Blue'); INSERT INTO track VALUES (1, 1);
            """)
        let before = try schemaSnapshot(db)
        let error = try #require(throws: SchemaError.self) { try db.objects(TrackGuessing.self) }
        #expect(error.column == "album" && error.found.contains("album_ref"))
        #expect(error.remedy.contains(#"static let columnNames = ["album": "album_ref"]"#))
        #expect(try schemaSnapshot(db) == before)

        // The remedy it suggests works.
        #expect(try db.object(TrackMapped.self, forKey: 1)?.album?.title == "Blue")
        #expect(try schemaSnapshot(db) == before)

        // Naming the property's own column adds it beside the foreign key, as asked.
        let other = try Database()
        try other.execute("CREATE TABLE Album(id INTEGER PRIMARY KEY); CREATE TABLE track(id INTEGER PRIMARY KEY, album_ref INTEGER REFERENCES Album(id))")
        #expect(try other.syncSchema(TrackWithNewColumn.self).steps.map(\.sql) == [#"ALTER TABLE "track" ADD COLUMN "album" INTEGER"#])
    }

    @Test func columnNamesAreCheckedAtFirstUse() throws {
        final class Clash: Model {
            static let columnNames = ["a": "x", "b": "X"]
            var id: Int64 = 0
            var a = 0
            var b = 0
            required init() {}
        }
        final class Unknown: Model {
            static let columnNames = ["nosuch": "x"]
            var id: Int64 = 0
            required init() {}
        }
        let clash = try #require(throws: ModelError.self) { try Database().syncSchema(Clash.self) }
        #expect(clash.message.contains("column \"X\""))
        let unknown = try #require(throws: ModelError.self) { try Database().syncSchema(Unknown.self) }
        #expect(unknown.property == "nosuch")
    }

    @Test func aNewTableUsesTheMappedColumnNames() throws {
        final class Renamed: Model {
            static let columnNames = ["fullName": "full_name"]
            static let indices = [["fullName"]]
            var id: Int64 = 0
            var fullName = ""
            required init() {}
        }
        let db = try Database()
        let ada = Renamed(); ada.fullName = "Ada"
        try db.save(ada)
        #expect(try columnsOf("Renamed", in: db).map(\.name) == ["id", "full_name"])
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE type = 'index'")?.hasSuffix(#"("full_name")"#) == true)
        ada.fullName = "Ada L."
        try db.save(ada)
        try db.execute("UPDATE $T SET full_name = 'Ada K.' WHERE $PK = ?", for: Renamed.self, ada.id)
        #expect(ada.fullName == "Ada K.")
        #expect(try db.syncSchema(Renamed.self).isEmpty)
    }

    @Test func aModelOverAViewReadsAndNeverWrites() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE product(id INTEGER PRIMARY KEY, title TEXT NOT NULL, price REAL NOT NULL);
            INSERT INTO product VALUES (1, 'Anvil', 19.5), (2, 'Hammer', 5);
            CREATE VIEW product_names AS SELECT id, title FROM product;
            """)
        let before = try schemaSnapshot(db)
        #expect(try db.schemaPlan(for: ProductName.self).isEmpty)
        let names = try db.objects(ProductName.self, where: "ORDER BY id")
        #expect(names.map(\.title) == ["Anvil", "Hammer"])
        names[0].title = "Changed"
        let save = try #require(throws: ModelError.self) { try db.save(names[0]) }
        #expect(save.kind == .readOnly && save.message.contains("view"))
        #expect(try #require(throws: ModelError.self) { try db.delete(names[1]) }.kind == .readOnly)
        #expect(try #require(throws: ModelError.self) { try db.save(ProductName()) }.kind == .readOnly)
        // A property the view lacks is an error: sync never adds a column to a view, nor a table beside it.
        let missing = try #require(throws: SchemaError.self) { try db.objects(ProductNameWithPrice.self) }
        #expect(missing.column == "price" && missing.found.contains("view"))
        #expect(try schemaSnapshot(db) == before)
        #expect(try db.value(String.self, "SELECT title FROM product WHERE id = 1") == "Anvil")
    }

    @Test func aViewWithInsteadOfTriggersIsWritable() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE product(id INTEGER PRIMARY KEY, title TEXT NOT NULL, price REAL NOT NULL DEFAULT 0);
            INSERT INTO product VALUES (1, 'Anvil', 19.5);
            CREATE VIEW product_names AS SELECT id, title FROM product;
            CREATE TRIGGER product_names_update INSTEAD OF UPDATE ON product_names
                BEGIN UPDATE product SET title = new.title WHERE id = old.id; END;
            """)
        let anvil = try #require(try db.object(ProductName.self, forKey: 1))
        anvil.title = "Anvil XL"
        try db.save(anvil)
        #expect(try db.value(String.self, "SELECT title FROM product WHERE id = 1") == "Anvil XL")
    }

    @Test func aReadOnlyModelReadsAndNeverChangesTheSchema() throws {
        let db = try Database()
        #expect(try #require(throws: SchemaError.self) { try db.objects(Ledger.self) }.found.contains("no table"))
        try db.execute("CREATE TABLE Ledger(id INTEGER PRIMARY KEY, amount INTEGER NOT NULL, memo TEXT NOT NULL); INSERT INTO Ledger VALUES (1, 10, 'x')")
        let before = try schemaSnapshot(db)
        let entry = try #require(try db.object(Ledger.self, forKey: 1))
        #expect(entry.amount == 10)
        entry.amount = 11
        #expect(try #require(throws: ModelError.self) { try db.save(entry) }.kind == .readOnly)
        #expect(try #require(throws: ModelError.self) { try db.delete(entry) }.kind == .readOnly)
        // Inside a transaction too (a saved instance's save there takes a shorter path).
        #expect(try #require(throws: ModelError.self) { try db.transaction { try db.save(entry) } }.kind == .readOnly)
        #expect(try schemaSnapshot(db) == before)   // its declared index was not created
        #expect(try db.value(Int.self, "SELECT amount FROM Ledger") == 10)
    }

    @Test func schemaDefaultsApplyToPropertiesStillHoldingTheirInitialValues() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE Post(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'draft',
                              created TEXT NOT NULL DEFAULT (CURRENT_TIMESTAMP), views INTEGER NOT NULL DEFAULT (7),
                              score REAL DEFAULT 0.5)
            """)
        let draft = Post(); draft.title = "Hello"
        try db.syncSchema(Post.self)
        let log = StatementLog(db)
        let (_, ran) = try log.during { try db.save(draft) }
        // One INSERT ... RETURNING: no second read.
        #expect(ran.filter { $0.contains("\"Post\"") }.map { $0.hasPrefix("INSERT") && $0.contains("RETURNING") } == [true])
        #expect(draft.status == "draft" && draft.views == 7 && draft.score == 0.5)
        #expect(abs(draft.created.timeIntervalSinceNow) < 120)
        #expect(!draft.hasChanges)
        let row = try #require(try db.rows("SELECT status, views, score, created FROM Post WHERE id = ?", arguments: [draft.id]).first)
        #expect(row.values[0...2] == [.text("draft"), .integer(7), .real(0.5)])
        guard case .text(let created) = row.values[3] else { Issue.record("created is not text"); return }
        #expect(created.count == 19)   // SQLite's own CURRENT_TIMESTAMP, untouched

        // Values the user set are written, whatever the defaults.
        let published = Post(); published.title = "Out"; published.status = "published"; published.views = 1; published.score = 2
        try db.save(published)
        #expect(try db.rows("SELECT status, views, score FROM Post WHERE id = ?", arguments: [published.id]).first?.values
            == [.text("published"), .integer(1), .real(2)])

        // Columns Strata creates carry init()'s values as DEFAULTs: the plain INSERT, nothing read back.
        let own = try Database()
        let plain = Post(); plain.title = "x"
        try own.syncSchema(Post.self)
        let ownLog = StatementLog(own)
        let (_, ownRan) = try ownLog.during { try own.save(plain) }
        #expect(ownRan.filter { $0.contains("\"Post\"") }.map { $0.contains("RETURNING") } == [false])
    }

    @Test func schemaDefaultsApplyWithATextKey() throws {
        let db = try Database()
        try db.execute("CREATE TABLE Setting(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL DEFAULT 'on', scope TEXT NOT NULL DEFAULT 'user') WITHOUT ROWID")
        let theme = Setting(); theme.key = "theme"; theme.scope = "app"
        try db.save(theme)
        #expect(theme.value == "on" && theme.scope == "app")
        #expect(try db.object(Setting.self, forKey: "theme") === theme)
        theme.value = "off"
        try db.save(theme)
        #expect(try db.value(String.self, "SELECT value FROM Setting") == "off")
    }

    @Test func indicesOfAnotherDefinitionDoNotSatisfyADeclaration() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE Person(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', code TEXT, email TEXT NOT NULL DEFAULT '');
            CREATE INDEX by_name_nocase ON Person(name COLLATE NOCASE);
            CREATE INDEX by_code_partial ON Person(code) WHERE code IS NOT NULL;
            CREATE INDEX by_email_lower ON Person(lower(email));
            """)
        let plan = try db.syncSchema(Person.self)
        #expect(plan.steps.map(\.kind).filter { if case .createIndex = $0 { true } else { false } }.count == 3)
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'by_%'") == 3)
        #expect(try db.syncSchema(Person.self).isEmpty)
    }

    @Test func twoModelsOverOneTableKeepEachOthersIndices() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(Account.self)
        let indices = try temp.db.rows("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").map(\.values)
        #expect(indices.count == 2)
        // The summary maps some columns: it never drops an index, in this handle or a fresh one.
        #expect(try temp.db.syncSchema(AccountSummary.self).isEmpty)
        let fresh = try temp.reopen()
        #expect(try fresh.syncSchema(AccountSummary.self).isEmpty)
        // A model of every column that declares none keeps those another model of the handle declares...
        #expect(try fresh.syncSchema(Account.self).isEmpty)
        #expect(try fresh.syncSchema(AccountAllColumns.self).isEmpty)
        #expect(try fresh.rows("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").map(\.values) == indices)
        // ...and alone, it drops the plain index it does not declare (the owner may have changed its
        // declaration), but never the UNIQUE one: another model over the table may declare it.
        let alone = try temp.reopen()
        let unique = try alone.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE%'").map(\.values)
        #expect(unique.count == 1)
        let dropped = try alone.syncSchema(AccountAllColumns.self).steps.map(\.kind)
        #expect(dropped.count == 1 && dropped.allSatisfy { if case .dropIndex = $0 { true } else { false } })
        #expect(try alone.rows("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").map(\.values) == unique)
        // The plain index is back as soon as the model that declares it is used again.
        #expect(try alone.syncSchema(Account.self).steps.count == 1)
        #expect(try alone.rows("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").map(\.values) == indices)
    }

    @Test func anotherToolsRebuildIsPlannedAgainOnNextUse() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Gadget(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT ''); INSERT INTO Gadget VALUES (1, 'a')")
        let db = try temp.reopen()
        #expect(try db.syncSchema(Gadget.self).steps.map(\.kind) == [.addColumn("added")])
        let gadget = try #require(try db.object(Gadget.self, forKey: 1))
        gadget.added = 5
        try db.save(gadget)

        // Another connection rebuilds the table as Django does, without the column Strata added.
        let other = try Database(path: temp.path)
        try other.execute("""
            CREATE TABLE "new__Gadget" (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', extra TEXT);
            INSERT INTO "new__Gadget" (id, name) SELECT id, name FROM Gadget;
            DROP TABLE Gadget;
            ALTER TABLE "new__Gadget" RENAME TO Gadget;
            INSERT INTO Gadget (id, name) VALUES (2, 'b');
            """)
        try other.close()

        // The next use plans again: the column is back (empty), nothing else is touched, rows read.
        let all = try db.objects(Gadget.self, where: "ORDER BY id")
        #expect(all.map(\.name) == ["a", "b"])
        #expect(all.map(\.added) == [0, 0])
        #expect(try columnsOf("Gadget", in: db).map(\.name) == ["id", "name", "extra", "added"])
        #expect(try db.syncSchema(Gadget.self).isEmpty)
    }

    @Test func booleansReadEveryTextFormAndKeepTheColumnsFormat() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE Flags(id INTEGER PRIMARY KEY, yes TEXT NOT NULL, upper TEXT NOT NULL, tf TEXT);
            INSERT INTO Flags VALUES (1, 'yes', 'Y', 't'), (2, 'no', 'N', 'F'), (3, 'YES', 'y', 'TRUE'), (4, 'No', 'n', NULL);
            """)
        let flags = try db.objects(Flags.self, where: "ORDER BY id")
        #expect(flags.map(\.yes) == [true, false, true, false])
        #expect(flags.map(\.upper) == [true, false, true, false])
        #expect(flags.map(\.tf) == [true, false, true, nil])
        flags[1].yes = true; flags[1].upper = true; flags[1].tf = true
        try db.save(flags[1])
        #expect(try db.rows("SELECT yes, upper, tf FROM Flags WHERE id = 2").first?.values == [.text("yes"), .text("Y"), .text("t")])
        #expect(throws: ValueConversionError.self) { try Bool(sqlValue: .text("maybe")) }
    }

    @Test func decimalsRoundTripExactly() throws {
        let db = try Database()
        let big = try #require(Decimal(string: "12345678901234567890.123456789"))
        let amount = Amount(); amount.value = big; amount.optional = Decimal(string: "0.1")
        try db.save(amount)
        #expect(try columnsOf("Amount", in: db).map(\.type) == ["INTEGER", "TEXT", "TEXT"])
        #expect(try db.value(String.self, "SELECT value FROM Amount") == "12345678901234567890.123456789")
        let fresh = try Database(path: ":memory:")
        try fresh.execute("CREATE TABLE Amount(id INTEGER PRIMARY KEY, value NUMERIC NOT NULL, optional REAL); INSERT INTO Amount VALUES (1, 42, 0.1), (2, '7.25', NULL)")
        let read = try fresh.objects(Amount.self, where: "ORDER BY id")
        #expect(read.map(\.value) == [Decimal(42), Decimal(string: "7.25")!])
        #expect(read[0].optional == Decimal(string: "0.1"))   // the double's shortest spelling, not its binary digits
        read[1].value = Decimal(string: "8.5")!
        try fresh.save(read[1])
        #expect(try fresh.rows("SELECT value, typeof(value) FROM Amount WHERE id = 2").first?.values == [.real(8.5), .text("real")])
        #expect(throws: ValueConversionError.self) { try Decimal(sqlValue: .text("12abc")) }
        #expect(throws: ValueConversionError.self) { try Decimal(sqlValue: .blob(Data([1]))) }
        #expect(try Decimal(sqlValue: .text("-1.5e3")) == Decimal(-1500))
    }
}

// MARK: Remedies: what a SchemaError suggests works

private final class EventAsString: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var at = ""
    required init() {}
}

private final class EventAsDate: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

private final class EventAsSQLValue: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var at = SQLValue.null
    required init() {}
}

private final class EventOptionalCount: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var count: Int?
    required init() {}
}

private final class EventCount: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var count = 0
    required init() {}
}

private final class EventByCode: Model {
    static let tableName = "event"
    static let primaryKey = "code"
    var code = ""
    required init() {}
}

private final class EventByID: Model {
    static let tableName = "event"
    var id: Int64 = 0
    var code = ""
    required init() {}
}

extension ExistingSchemaTests {
    private func eventDatabase() throws -> Database {
        let db = try Database()
        try db.execute("""
            CREATE TABLE event(id INTEGER PRIMARY KEY, at datetime NOT NULL, count INTEGER NOT NULL DEFAULT 0, code TEXT NOT NULL DEFAULT '');
            INSERT INTO event VALUES (1, '2024-01-02 03:04:05', 3, 'a');
            """)
        return db
    }

    @Test func theTypeARemedyNamesReadsTheColumn() throws {
        let db = try eventDatabase()
        let error = try #require(throws: SchemaError.self) { try db.objects(EventAsString.self) }
        #expect(error.column == "at" && error.remedy.contains("Declare the property as Date") && error.remedy.contains("SQLValue"))
        // Both suggestions read and write the column.
        let event = try #require(try db.object(EventAsDate.self, forKey: 1))
        #expect(event.at == Date(timeIntervalSince1970: 1_704_164_645))
        event.at = Date(timeIntervalSince1970: 1_704_164_646)
        try db.save(event)
        #expect(try db.value(String.self, "SELECT at FROM event") == "2024-01-02 03:04:06")
        let raw = try #require(try eventDatabase().object(EventAsSQLValue.self, forKey: 1))
        #expect(raw.at == .text("2024-01-02 03:04:05"))
    }

    @Test func theNotNullRemedyWorks() throws {
        let db = try eventDatabase()
        let error = try #require(throws: SchemaError.self) { try db.objects(EventOptionalCount.self) }
        #expect(error.column == "count" && error.remedy.contains("Make the property non-optional"))
        #expect(try db.object(EventCount.self, forKey: 1)?.count == 3)
    }

    @Test func thePrimaryKeyRemedyWorks() throws {
        let db = try eventDatabase()
        let error = try #require(throws: SchemaError.self) { try db.objects(EventByCode.self) }
        #expect(error.remedy.contains("Set the model's primaryKey to the table's single key column"))
        #expect(try db.object(EventByID.self, forKey: 1)?.code == "a")
    }

    @Test func anSQLValuePropertyMapsANotNullColumn() throws {
        let db = try eventDatabase()
        let event = try #require(try db.object(EventAsSQLValue.self, forKey: 1))
        event.at = .text("2025-01-01 00:00:00")
        try db.save(event)
        event.at = .null
        let error = try #require(throws: ModelError.self) { try db.save(event) }
        #expect(error.kind == .missingValue && error.property == "at")
        #expect(try db.value(String.self, "SELECT at FROM event") == "2025-01-01 00:00:00")
    }
}

// MARK: Relationship errors are never silent

import Logging
import Foundation

/// Keeps every message logged through it.
private final class LogRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var messages: [String] { lock.withLock { stored } }
    func append(_ message: String) { lock.withLock { stored.append(message) } }
}

private struct RecordingLogHandler: LogHandler {
    let record: LogRecord
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        record.append("\(event.level): \(event.message)")
    }
}

private final class Shelf: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "nosuch") var books: [Book]
    required init() {}
}

private final class Book: Model {
    var id: Int64 = 0
    @Reference var shelf: Shelf?
    @Reference var goodShelf: GoodShelf?
    required init() {}
}

private final class GoodShelf: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "goodShelf") var books: [Book]
    required init() {}
}

extension ExistingSchemaTests {
    @Test func aChildrenQueryThatFailsIsLoggedAndThrownByItsHandle() throws {
        let record = LogRecord()
        var configuration = Database.Configuration()
        configuration.logger = Logger(label: "test") { _ in RecordingLogHandler(record: record) }
        let db = try Database(path: ":memory:", configuration: configuration)
        // A mistake in the declaration is the owner's first save's error (issue 36), never a logged [].
        let shelf = Shelf(); shelf.name = "s"
        #expect(try #require(throws: ModelError.self) { try db.save(shelf) }.property == "nosuch")
        #expect(shelf.books.isEmpty && !record.messages.contains { $0.contains("nosuch") })
        // A query that fails for another reason (a closed handle) is logged and read as [], and thrown by the handle.
        let good = GoodShelf(); good.name = "g"
        try db.save(good)
        try db.close()
        #expect(good.books.isEmpty)
        #expect(record.messages.contains { $0.hasPrefix("error:") && $0.contains("GoodShelf.Book children could not be loaded") })
        #expect(throws: (any Error).self) { try good.$books.load() }
    }
}

private final class Reading: Model {
    static let tableName = "readings"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var sensor = ""
    var value = 0.0
    required init() {}
}

extension ExistingSchemaTests {
    @Test func aTableWithoutAPrimaryKeyMapsByItsRowID() throws {
        let db = try Database()
        try db.execute("CREATE TABLE readings (sensor TEXT NOT NULL, value REAL NOT NULL); INSERT INTO readings VALUES ('a', 1.5), ('b', 2)")
        let before = try schemaSnapshot(db)
        #expect(try db.schemaPlan(for: Reading.self).isEmpty)
        let all = try db.objects(Reading.self, where: "ORDER BY $PK")
        #expect(all.map(\.rowid) == [1, 2] && all.map(\.sensor) == ["a", "b"])
        #expect(try db.object(Reading.self, forKey: 2) === all[1])
        all[0].value = 3
        try db.save(all[0])
        let new = Reading(); new.sensor = "c"; new.value = 4
        try db.save(new)
        #expect(new.rowid == 3)
        try db.execute("UPDATE $T SET value = 9 WHERE $PK = 2", for: Reading.self)
        #expect(all[1].value == 9)
        #expect(try db.delete(all[1]))
        #expect(try db.column(String.self, "SELECT sensor || '=' || value FROM readings ORDER BY rowid") == ["a=3.0", "c=4.0"])
        #expect(try schemaSnapshot(db) == before)
    }
}

@Suite struct SchemaReadTests {
    /// A table's schema read skips the pragmas that cannot find anything: index_list for a table with no
    /// row of type 'index' in sqlite_master (unless WITHOUT ROWID: its primary key index has none), and
    /// foreign_key_list for a table whose SQL never says REFERENCES. What each read still finds is whole.
    @Test func aReadSkipsOnlyThePragmasThatCannotFindAnything() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE plain (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE keyed (code TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID;
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER rEfErEnCeS plain(id) ON DELETE CASCADE);
            CREATE TABLE tagged (id INTEGER PRIMARY KEY, tag TEXT UNIQUE);
            CREATE INDEX child_parent ON child (parent);
            """)
        var sql: [String] = []
        let trace = temp.db.traceStatements { sql.append($0) }
        let plain = try #require(try TableInfo.read("plain", in: temp.db.connection))
        let plainSQL = sql
        sql = []
        let keyed = try #require(try TableInfo.read("KEYED", in: temp.db.connection))
        let keyedSQL = sql
        let child = try #require(try TableInfo.read("child", in: temp.db.connection))
        let tagged = try #require(try TableInfo.read("tagged", in: temp.db.connection))
        trace.cancel()

        #expect(!plainSQL.contains { $0.contains("pragma_index_list") || $0.contains("pragma_foreign_key_list") })
        #expect(plain.columns.map(\.name) == ["id", "name"] && plain.indices.isEmpty && plain.foreignKeys.isEmpty)
        #expect(keyedSQL.contains { $0.contains("pragma_index_list") })
        #expect(keyed.withoutRowID && keyed.indices.map(\.origin) == ["pk"])
        #expect(child.foreignKeys.map { "\($0.from) \($0.table) \($0.onDelete)" } == ["parent plain CASCADE"])
        #expect(child.indices.map(\.name) == ["child_parent"])
        #expect(tagged.indices.map { "\($0.origin) \($0.unique) \($0.columns)" } == [#"u true [Optional("tag")]"#])
    }

    @Test func mentionsMatchesAWordInAnyCase() {
        #expect(SQL.mentions("CREATE TABLE t (p INTEGER REFERENCES x)", "references"))
        #expect(SQL.mentions("create table t (p int references x)", "references"))
        #expect(SQL.mentions("CREATE TABLE t (p ReFeReNcEs x)", "references"))
        #expect(!SQL.mentions("CREATE TABLE t (p INTEGER REFERENCE x)", "references"))
        #expect(!SQL.mentions("REFER", "references"))
        #expect(!SQL.mentions("CREATE TABLE t (p INTEGER @EFERENCES)", "references"))
        // SQLite's affinity rules, in their order.
        let affinities = ["BIGINT", "int", "VARCHAR(32)", "nchar", "CLOB", "text", "BLOB", "", "  ", "REAL", "double precision",
                          "FLOAT", "decimal(10, 2)", "datetime", "POINT", "CHARINT", "bool"].map { Affinity(declaredType: $0) }
        #expect(affinities == [.integer, .integer, .text, .text, .text, .text, .blob, .blob, .blob, .real, .real,
                               .real, .numeric, .numeric, .integer, .integer, .numeric])
    }
}

/// A column SQLAlchemy declares `JSON` (NUMERIC affinity): a JSON property maps onto it (JSON text stays text
/// there; a top-level number becomes one and reads back as the same), and SQLValue reads it as stored.
@Suite struct NumericAffinityRemedyTests {
    private struct Prefs: Codable, Equatable { var theme = "" }

    private final class UserPrefs: Model {
        static let tableName = "users"
        var id: Int64 = 0
        var prefs = Prefs()
        required init() {}
    }

    private final class UserPrefsAsStored: Model {
        static let tableName = "users"
        var id: Int64 = 0
        var prefs: SQLValue = .null
        required init() {}
    }

    @Test func aJSONColumnMapsAJSONPropertyAndSQLValueReadsItAsStored() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE users(id INTEGER PRIMARY KEY, prefs JSON NOT NULL); INSERT INTO users VALUES (1, '{"theme": "dark"}')"#)
        #expect(try db.objects(UserPrefs.self).map(\.prefs) == [Prefs(theme: "dark")])
        #expect(try db.object(UserPrefsAsStored.self, forKey: 1)?.prefs == .text(#"{"theme": "dark"}"#))
    }
}

private final class Ticket: Model {
    static let uniqueIndices = [["code"]]
    var id: Int64 = 0
    var code = ""
    var desk = ""
    required init() {}
}

private final class TicketPerDesk: Model {
    static let tableName = "Ticket"
    static let uniqueIndices = [["code", "desk"]]
    var id: Int64 = 0
    var code = ""
    var desk = ""
    required init() {}
}

extension ExistingSchemaTests {
    /// A UNIQUE index the model stopped declaring (here: widened from `code` to `code, desk`) is kept, as
    /// sync never drops one, and the sync says so in a warning naming it, since it still refuses saves
    /// the new declaration allows.
    @Test func aUniqueIndexNoLongerDeclaredIsKeptWithAWarning() throws {
        let temp = try TemporaryDatabase()
        try temp.db.syncSchema(Ticket.self)
        let record = LogRecord()
        var configuration = Database.Configuration()
        configuration.logger = Logger(label: "test") { _ in RecordingLogHandler(record: record) }
        let db = try temp.reopen(configuration: configuration)
        let plan = try db.syncSchema(TicketPerDesk.self)
        #expect(plan.steps.map(\.kind).filter { if case .dropIndex = $0 { true } else { false } }.isEmpty)
        let unique = try db.column(String.self, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE%' ORDER BY name")
        #expect(unique.count == 2)
        let warnings = record.messages.filter { $0.hasPrefix("warning:") && $0.contains("no longer declared") }
        #expect(warnings.count == 1)
        #expect(unique.contains { name in warnings[0].contains(name) && !name.contains("desk") })
        let first = TicketPerDesk(); first.code = "A"; first.desk = "1"
        try db.save(first)
        let second = TicketPerDesk(); second.code = "A"; second.desk = "2"
        #expect(throws: ModelError.self) { try db.save(second) }   // the old UNIQUE(code) still holds
    }
}
