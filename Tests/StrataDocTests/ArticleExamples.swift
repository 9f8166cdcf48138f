// Every Swift example of the DocC articles, verbatim (inside functions, beside the types they assume):
// this file must compile, ArticleExamplesTests runs those that need no file or server, and checks that
// each article block still appears here (so an edited article fails until this file follows).
import Foundation
import Strata

// GettingStarted
final class Note: Model {
    var id: Int64 = 0          // the key: 0 means "let SQLite assign it"
    var title = ""
    var body = ""
    var pinned = false
    var createdAt = Date()
    required init() {}
}

// ModelsAndSchemaEvolution
final class Employee: Model {
    static let tableName = "employees"                     // default: the type's name
    static let primaryKey = "employeeId"                   // default: "id"
    static let indices = [["lastName", "firstName"]]
    static let uniqueIndices = [["email"]]
    static let columnNames = ["firstName": "first_name"]   // a column of another name
    var employeeId: Int64 = 0
    var firstName = ""
    var lastName = ""
    var email: String?                                     // optional: a nullable column
    var salary = 0.0
    required init() {}
}

// RawSQLAndLiveObjects (its model)
final class Person: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

enum ArticleExamples {
    static func gettingStarted() throws {
        let db = try Database()                 // in memory here; Database(path: "notes.sqlite") for a file
        let note = Note()
        note.title = "Groceries"
        try db.save(note)                       // CREATE TABLE on first use, then INSERT; note.id is set

        note.pinned = true
        try db.save(note)                       // UPDATE "pinned" only: the one property that changed

        let pinned = try db.objects(Note.self, where: \.pinned == true, orderBy: .descending(\.createdAt))
        let same = try db.object(Note.self, forKey: note.id)   // the same instance: one per row
        let count = try db.count(Note.self, where: "title LIKE ?", "Gro%")
        try db.transaction {
            try db.delete(note)
        }
        print(pinned.count, same === note, count, note.isDeleted)   // 1 true 1 true
    }

    static func modelsAndSchemaEvolution() throws {
        let db = try Database()
        let plan = try db.schemaPlan(for: Employee.self)     // a dry run: what sync would do
        print(plan)                                          // CREATE TABLE "employees" (…), CREATE INDEX …
        try db.syncSchema(Employee.self)                     // optional: first use syncs by itself
        let again = try db.schemaPlan(for: Employee.self)
        print(again.isEmpty)                                 // true
    }

    static func rawSQL() throws {
        let db = try Database()
        let ada = Person()
        ada.name = "Ada"
        try db.save(ada)

        try db.execute("UPDATE $T SET name = ? WHERE $PK = ?", for: Person.self, "Ada Lovelace", ada.id)
        print(ada.name)                                      // "Ada Lovelace": the live instance follows

        let rows = try db.rows("SELECT id, name FROM Person WHERE id IN (?)", [ada.id])
        let name = try rows[0].decode("name", as: String.self)
        try db.execute("DELETE FROM Person")
        print(name, ada.isDeleted)                           // Ada Lovelace true
    }

    static func observing(_ db: Database) throws {
        let observation = db.observeChanges { changes in
            for change in changes { print(change.table, change.insertedRowIDs) }
        }
        try db.execute("INSERT INTO Person(name) VALUES ('Grace')")   // prints: Person [2]
        observation.cancel()
    }

    static func limitations() throws {
        let db = try Database()
        var migrator = Migrator()
        migrator.registerUserVersion(1) { db in
            try db.execute("CREATE TABLE legacy(id INTEGER PRIMARY KEY, value TEXT)")
        }
        try migrator.migrate(db)
        print(try db.value(Int.self, "PRAGMA user_version") ?? 0)   // 1
    }
}

// MappingAnExistingDatabase: each example inside a function, with the types it assumes.
enum MappingExamples {
    final class Supplier: Model {
        static let tableName = "shop_supplier"
        var id: Int64 = 0
        required init() {}
    }

    static func product(_ db: Database) throws {
        final class Product: Model {
            static let tableName = "shop_product"
            static let columnNames = ["createdAt": "created_at"]
            var id: Int64 = 0
            var title = ""
            var price = Decimal(0)
            var createdAt = Date(timeIntervalSince1970: 0)
            @Reference var supplier: Supplier?       // Django's `supplier_id` foreign key
            required init() {}
        }

        let plan = try db.schemaPlan(for: Product.self)
        precondition(plan.isEmpty)                   // nothing to add: the table is used as it is
        print(plan.columns["supplier"] ?? "")        // "supplier_id"
        let product = Product()
        let supplier = try product.$supplier.require()
        _ = supplier
    }

    final class Album: Model {
        var id: Int64 = 0
        required init() {}
    }

    final class Track: Model {
        static let columnNames = ["album": "album_ref"]   // the remedy the error suggests
        var id: Int64 = 0
        @Reference var album: Album?
        required init() {}
    }

    final class OrderTotal: Model {
        static let tableName = "order_totals"    // a view
        var id: Int64 = 0
        var total = 0.0
        required init() {}
    }

    final class Note: Model {
        var id: Int64 = 0
        required init() {}
    }

    final class Label: Model {
        var id = ""
        required init() {}
    }

    static func compositeKey(_ db: Database) throws {
        final class NoteLabel: Model {
            static let tableName = "notelabel"
            static let compositeKey = ["note", "label"]
            @Reference var note: Note?
            @Reference var label: Label?
            required init() {}
        }
        let link = try db.object(NoteLabel.self, forKey: CompositeKey(1, "urgent"))
        _ = link
    }

    final class Reading: Model {
        static let primaryKey = "rowid"
        var rowid: Int64 = 0
        var value = 0.0
        required init() {}
    }

    final class Post: Model {
        var id: Int64 = 0
        var title = ""
        var status = "published"
        required init() {}
    }

    static func schemaDefaults(_ db: Database) throws {
        // status TEXT NOT NULL DEFAULT 'draft'
        let post = Post()
        post.title = "Hello"
        try db.save(post)
        print(post.status)   // "draft"
    }
}

// Relationships
enum RelationshipExamples {
    final class Department: Model {
        var id: Int64 = 0
        var name = ""
        @Children(by: "department", orderBy: "name") var employees: [Employee]
        required init() {}
    }

    final class Employee: Model {
        var id: Int64 = 0
        var name = ""
        @Reference(onDelete: .cascade) var department: Department?
        @Reference var manager: Employee?
        required init() {}
    }

    static func faults(_ db: Database, staff: [Employee], employee: Employee) throws {
        for employee in staff { print(employee.department?.name ?? "-") }   // one batched query, at the first fault
        let department = try employee.$department.require()                // throws instead of reading nil
        _ = department
    }

    static func moves(_ db: Database, sales: Department, support: Department) throws {
        if let employee = sales.employees.first {
            employee.department = support
            try db.save(employee)                          // drops both loaded arrays
            print(sales.employees.count, support.employees.count)   // each read again: one query each
        }
    }

    static func prefetch(_ db: Database) throws {
        let departments = try db.objects(Department.self, prefetching: ["employees", "employees.manager"])
        // 3 statements: departments, their employees, those employees' managers
        _ = departments
    }

    final class Tag: Model {
        var id: Int64 = 0
        required init() {}
    }

    static func siblings(_ db: Database, swift: Tag, orm: Tag) throws {
        final class Post: Model {
            var id: Int64 = 0
            @Siblings(through: "blog_post_tags", from: "post_id", to: "tag_id") var tags: [Tag]
            required init() {}
        }
        if let post = try db.object(Post.self, forKey: 1) {
            try post.$tags.add(swift)      // INSERT into the join table (nothing if the pair is there)
            try post.$tags.remove(orm)
        }
    }
}

// Concurrency (compiled; the pool examples use a file, so they are not run)
enum ConcurrencyExamples {
    final class Note: Model {
        var id: Int64 = 0
        var title = ""
        required init() {}
    }

    static func pool() async throws {
        let pool = try DatabasePool(path: "app.sqlite", readers: 4)

        let id = try await pool.write { db in
            let note = Note()
            note.title = "Groceries"
            try db.save(note)
            return note.id
        }
        let titles = try await pool.read { db in
            try db.objects(Note.self, where: "ORDER BY id").map(\.title)
        }
        _ = (id, titles)

        struct NoteSummary: Sendable { let id: Int64; let title: String }
        let summaries = try await pool.read { db in
            try db.objects(Note.self).map { NoteSummary(id: $0.id, title: $0.title) }
        }
        _ = summaries

        try pool.checkpoint(.truncate)                 // copy the WAL into the file and empty it
        try pool.backup(to: "/backups/app.sqlite")     // SQLite's online backup, from a reader
        try await pool.close()                         // waits for queued work, then refuses new calls
    }

    static func streams(_ pool: DatabasePool) async throws {
        for await change in pool.changes(of: Note.self) {
            for (row, properties) in change.updatedProperties {
                print("note \(row) changed \(properties.sorted())")
            }
        }
        var badge = 0
        for try await count in pool.observe({ db in try db.count(Note.self) }) {
            badge = count
        }
        _ = badge
    }
}

#if canImport(Observation)
import Observation

@available(macOS 14, iOS 17, *)
enum ObservationExamples {
    @Observable final class Note: Model, ObservableModel {
        static var observedKeyPaths: [PartialKeyPath<Note>] { [\.title, \.body] }
        var id: Int64 = 0
        var title = ""
        var body = ""
        required init() {}
    }
}
#endif

// RunningMigrations
enum MigrationExamples {
    static func migrate(_ db: Database) throws {
        var migrator = Migrator()
        migrator.register("0001_create", sql: """
            CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL)
            """)
        migrator.register("0002_split_name") { db in
            try db.execute("ALTER TABLE person ADD COLUMN lastName TEXT")
            try db.execute("UPDATE person SET lastName = substr(name, instr(name, ' ') + 1)")
        }
        try migrator.migrate(db)

        let plugin = Migrator(namespace: "search-plugin")   // its own rows in strata_migrations
        print(try migrator.plan(for: db))                    // what would run, with its SQL
        migrator.eraseDatabaseOnSchemaChange = true          // development only: start over when one changed
        try migrator.migrate(db) { progress in print(progress) }
        _ = plugin
    }
}

// CommandLineTool: what `strata generate` writes for the article's library.sqlite
enum GeneratedExamples {
    final class Author: Model {
        static let tableName = "author"
        var id: Int64 = 0
        var name: String = ""
        required init() {}
    }

    final class Book: Model {
        static let tableName = "book"
        static let indices = [["title"]]
        var id: Int64 = 0
        var title: String?
        @Reference var author: Author?  // NOT NULL: saving without one throws
        required init() {}
    }

    // skipped: "strata_migrations": Strata's own table (strata generate --include-internal writes it)
}

// ValuesAndFormats
enum FormatsExamples {
    enum Tier: String, ColumnValue { case free, pro }

    final class Invoice: Model {
        static let columnFormats: [String: ColumnFormat] = ["issuedAt": .unixMilliseconds]
        var id: Int64 = 0
        var amount = Decimal(0)          // TEXT, every digit: '19.99'
        var issuedAt = Date()            // milliseconds since 1970, as columnFormats says
        var tier = Tier.free             // TEXT: its raw value
        var tags: [String] = []          // TEXT: JSON
        var rating: Double?              // REAL, nullable
        required init() {}
    }
}

// WritingSafely
enum WritingSafelyExamples {
    final class Employee: Model {
        static let primaryKey = "employeeId"
        var employeeId: Int64 = 0
        var name = ""
        required init() {}
    }

    final class Event: Model {
        static let columnFormats: [String: ColumnFormat] = ["startsAt": .unixMilliseconds]
        var id: Int64 = 0
        var startsAt = Date()
        required init() {}
    }

    final class Counter: Model {
        var id: Int64 = 0
        var value = 0
        required init() {}
    }

    static func run() throws {
        let db = try Database()
        let first = Employee(); first.name = "Ada"
        try db.save(first)
        if let ada = try db.object(Employee.self, forKey: 1) {
            print(ada.hasChanges)            // false
            ada.name = "Ada L."
            print(ada.changedProperties)     // ["name"]
            try db.save(ada)                 // UPDATE "Employee" SET "name" = ? WHERE "employeeId" = ?
        }
        try db.save(Event())
        let counter = Counter()
        try db.save(counter)
        try db.retryingOnConflict {
            counter.value += 1
            try db.save(counter)
        }
        try db.transaction {
            counter.value += 1
            try db.save(counter)
        }
        precondition(counter.value == 2 && first.name == "Ada L.")
        try failedSave()
        try failedBlock(db, counter)
    }

    static func failedBlock(_ db: Database, _ counter: Counter) throws {
        try db.execute("CREATE TRIGGER cap BEFORE UPDATE ON Counter WHEN NEW.value > 2 BEGIN SELECT RAISE(ABORT, 'capped'); END")
        do {
            try db.transaction {
                counter.value += 1
                try db.save(counter)     // fails: a constraint, SQLITE_BUSY in a .deferred block, ...
            }
        } catch {
            // counter.value is the stored value again: retrying the block adds 1, once
        }
        precondition(counter.value == 2 && !counter.hasChanges)
    }

    final class Item: Model {
        var id: Int64 = 0
        var name = ""
        var count = 0
        required init() {}
    }

    /// A batch save that meets another connection's commit keeps the other instance's change.
    static func failedSave() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("items.sqlite").path
        let db = try Database(path: path), other = try Database(path: path)
        try db.save([Item(), Item()])
        guard let x = try db.object(Item.self, forKey: 1), let y = try db.object(Item.self, forKey: 2),
              let theirs = try other.object(Item.self, forKey: 2) else { return }
        theirs.count = 10
        try other.save(theirs)
        x.name = "edited"
        y.count += 1
        do {
            try db.save([x, y])          // y conflicts with another connection's commit
        } catch let error as ModelError where error.kind == .conflict {
            y.count += 1                 // apply y's change to the committed value
            try db.save([x, y])          // x's edit is still there, and is saved now
        }
        let name = try db.value(String.self, "SELECT name FROM Item WHERE id = 1")
        let count = try db.value(Int.self, "SELECT count FROM Item WHERE id = 2")
        precondition(name == "edited" && count == 11)
    }
}

// LiveQueriesAndSwiftUI (the view compiles where SwiftUI exists; the rest on Linux too)
#if canImport(Observation)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
enum LiveQueryExamples {
    final class Member: Model {
        var id: Int64 = 0
        var name = ""
        required init() {}
    }

    struct MemberRow: Sendable, Equatable, Identifiable {
        let id: Int64
        let name: String
    }

    @MainActor @Observable final class Team {
        let rows: LiveQuery<[MemberRow]>
        init(pool: DatabasePool) {
            rows = LiveQuery(pool) { db in
                try db.objects(Member.self, matching: [:], orderBy: "name").map { MemberRow(id: $0.id, name: $0.name) }
            }
        }
    }

    final class Owner: Model {
        var id: Int64 = 0
        required init() {}
    }

    @Observable final class Pet: Model {
        var id: Int64 = 0
        var name = ""
        @ObservationIgnored @Reference var owner: Owner?
        required init() {}
    }
}
#endif

#if canImport(SwiftUI)
import SwiftUI

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension LiveQueryExamples {
    struct TeamView: View {
        let team: Team
        var body: some View {
            List(team.rows.value ?? []) { row in
                Text(row.name)
            }
            .overlay {
                if let error = team.rows.error { Text("Stopped: \(error.localizedDescription)") }
            }
        }
    }
}
#endif

// TypedQueries
enum TypedQueryExamples {
    final class Site: Model {
        var id: Int64 = 0
        var city = ""
        required init() {}
    }

    final class Team: Model {
        var id: Int64 = 0
        var name = ""
        @Reference var site: Site?
        @Children(by: \Player.$team, orderBy: .ascending(\Player.name)) var players: [Player]
        required init() {}
    }

    final class Player: Model {
        static let indices: [Index<Player>] = [[\.$team, \.name]]
        static let uniqueIndices: [Index<Player>] = [[\.email]]
        var id: Int64 = 0
        var name = ""
        var email: String?
        var goals = 0
        @Reference var team: Team?
        required init() {}
    }

    static func conditions(_ db: Database, reds: Team, blues: Team) throws -> Int {
        let ofTeam = try db.objects(Player.self, where: \.team == reds)                   // "team" = ?: its key
        let free = try db.objects(Player.self, where: \.team == nil)                      // "team" IS NULL
        let either = try db.objects(Player.self, where: .in(\.team, [reds, blues]))       // "team" IN (?, ?)
        let inParis = try db.objects(Player.self, where: .through(\.team, .through(\.site, \.city == "Paris")))
        let scoring = try db.objects(Team.self, where: .any(\.$players, \.goals > 10))    // EXISTS (SELECT 1 ...)
        let ads = try db.objects(Player.self, where: .hasPrefix(\.name, "Ad") && \.email != nil)
        let pages = try db.objects(Player.self, where: \.goals >= 0,
                                   orderBy: .ascending(\.email, nulls: .last).then(.descending(\.goals)), limit: 20, offset: 40)
        return ofTeam.count + free.count + either.count + inParis.count + scoring.count + ads.count + pages.count
    }

    static func aggregates(_ db: Database, reds: Team) throws -> Bool {
        let total = try db.sum(\Player.goals, where: \.team == reds)        // Int?
        let best = try db.maximum(\Player.goals)                            // Int?
        let mean = try db.average(\Player.goals, where: \.email != nil)     // Double?
        let count = try db.count(Player.self, where: .through(\.team, \.name == "Reds"))
        let any = try db.exists(Player.self, where: \.name == "Ada")
        return total == 5 && best == 3 && mean == 2.5 && count == 2 && !any
    }

    static func prefetching(_ db: Database) throws -> Int {
        let players = try db.objects(Player.self, prefetching: [\.$team])
        let teams = try db.objects(Team.self, prefetching: [.to(\.$players, then: .to(\.$team))])
        return players.count + teams.count
    }
}

// RunningOnPostgreSQL (compiled, not run: it needs a server; Tests/StrataPostgresTests run the same calls)
import StrataPostgres

enum RunningOnPostgreSQLExample {
    static func run() async throws {
        // import StrataPostgres
        let db = try Database(postgresURL: "postgresql:///app?host=/run/postgresql")
        try db.syncSchema(Note.self)           // or let first use do it
        let note = Note()
        note.title = "Hello"
        try db.save(note)                      // INSERT … RETURNING: note.id holds the identity column's key
        let same = try db.object(Note.self, forKey: note.id)          // the same live instance
        let pinned = try db.objects(Note.self, where: \.pinned == true)
        let pool = try DatabasePool(postgresURL: "postgresql:///app?host=/run/postgresql", readers: 4)
        let count = try await pool.read { db in try db.count(Note.self) }
        _ = (same, pinned, count)
    }

    static func observation(pool: DatabasePool) async throws {
        try await pool.installChangeNotifications(for: [Note.self])
        for await change in pool.changes(of: Note.self) {
            print(change.insertedRows, change.updatedRows, change.deletedRows)
        }
    }
}
