import Foundation
import Strata

// Every Swift block of README.md, verbatim, beside the types and values its fragments assume (the package
// manifest aside: Scripts/check-package-snippet.sh builds it). ReadmeExamplesTests checks that each
// paragraph of each block appears here in order, that the imports above are exactly those of the README's
// complete programs, and runs the examples that need no file of their own.

// Getting started (a complete program: its imports are this file's; its top-level code is `gettingStarted()`)
enum ReadmeGettingStarted {
    final class Note: Model {
        var id: Int64 = 0                    // the key: 0 until SQLite assigns one
        var title = ""
        var createdAt = Date()
        required init() {}
    }

    static func gettingStarted() throws -> (Database, Note, [Note]) {
        let db = try Database()                  // in memory; Database(path: "notes.sqlite") for a file
        let note = Note()
        note.title = "Hello"
        try db.save(note)                        // first use: CREATE TABLE "Note", then INSERT; note.id is set
        let found = try db.objects(Note.self, where: "title = ?", "Hello")
        print(found.count, found[0] === note)    // 1 true: one live instance per row
        return (db, note, found)
    }
}

// Models and schema evolution
enum ReadmeExamples {
    final class Department: Model {
        var id: Int64 = 0                   // the key: "id" by default; 0 means "let SQLite assign it"
        var name = ""
        required init() {}
    }

    final class Employee: Model {
        static let primaryKey = "employeeId"
        static let persistentProperties = ["employeeId", "name", "dateOfBirth", "age", "email", "department"]  // default: all
        static let indices = [["dateOfBirth"], ["department", "name"]]
        var employeeId: Int64 = 0
        var name = ""
        var dateOfBirth: Date?
        var age = 0
        var email: String?
        @Reference var department: Department?   // stored as Department's key, loaded when read
        var scratch = 0                           // not listed: never stored
        required init() {}
    }

    static func models(_ db: Database) throws -> Employee {
        let sales = Department(); sales.name = "Sales"
        try db.save(sales)                                  // first use: CREATE TABLE "Department"
        let ada = Employee(); ada.name = "Ada"; ada.department = sales
        try db.save(ada)                                    // ada.employeeId now holds the assigned key
        print(try db.schemaPlan(for: Employee.self).isEmpty)   // true: in sync (a plan is a dry run, with its SQL)
        return ada
    }

    // Schema sync: the opt-in model
    final class Person: Model {
        static let tableName = "people"
        static let previousTableNames = ["Person"]           // ALTER TABLE "Person" RENAME TO "people"
        static let renamedColumns = ["fullName": "name"]     // RENAME COLUMN "name" TO "fullName", data kept
        static let schemaRebuild = SchemaRebuild.whenNeeded  // type changes by SQLite's 12-step rebuild
        var id: Int64 = 0
        var fullName = ""
        var age = 0
        required init() {}
    }

    // Queries, raw SQL and live instances
    static func queries(_ db: Database, ada: Employee) throws
        -> (adults: [Employee], picked: [Employee], some: [Employee], message: String, count: Int?) {
        let adults = try db.objects(Employee.self, where: "age >= ? ORDER BY name", 18)        // any SQL after FROM
        let picked = try db.objects(Employee.self, where: "employeeId IN (?)", [3, 5, 8])       // IN (?, ?, ?)
        let some = try db.objects(Employee.self, where: \.age >= 18 && \.email != nil, orderBy: .ascending(\.name))
        try db.execute("UPDATE $T SET name = ? WHERE name = ?", for: Employee.self, "Ada L.", "Ada")
        print(ada.name)                                     // Ada L.: live instances see raw writes
        try db.execute("CREATE TABLE IF NOT EXISTS log(id INTEGER PRIMARY KEY, message TEXT, at REAL)")
        try db.execute("INSERT INTO log(message, at) VALUES (?, ?)", "started", Date())
        let rows = try db.rows("SELECT * FROM log WHERE id > ?", 0)        // [Row], column name -> SQLValue
        let message: String = try rows[0].decode("message")
        let count = try db.value(Int.self, "SELECT count(*) FROM log")      // Int?
        return (adults, picked, some, message, count)
    }

    // Typed queries (compiled, not run)
    static func typedQueries(_ db: Database, sales: Department) throws {
        let inSales = try db.objects(Employee.self, where: .through(\.department, \.name == "Sales"))  // a subquery
        let ads = try db.objects(Employee.self, where: .hasPrefix(\.name, "Ad") && \.department == sales,
                                 orderBy: .ascending(\.name), limit: 20, offset: 0)    // LIKE 'Ad%' ESCAPE '\'
        let oldest = try db.maximum(\Employee.age, where: \.email != nil)             // Int?, and sum, average, ...
        _ = (inSales, ads, oldest)
    }

    // Writes and transactions
    static func writes(_ db: Database, ada: Employee) throws {
        ada.email = "ada@example.com"
        print(ada.changedProperties)     // ["email"]
        try db.save(ada)                 // UPDATE "Employee" SET "email" = ? WHERE "employeeId" = ?
        try db.save(ada)                 // nothing changed: no SQL
        try db.transaction {             // IMMEDIATE: takes the write lock, then merges others' commits
            ada.age += 1                 // so this increments the committed value
            try db.save(ada)
        }
        try db.retryingOnConflict {      // outside a transaction a change can meet another one: retry it
            ada.age += 1
            try db.save(ada)
        }
    }

    // Concurrency (compiled, not run: the pool opens app.sqlite in the working directory)
    static func pool() async throws {
        let pool = try DatabasePool(path: "app.sqlite", readers: 4)

        let id = try await pool.write { db in            // IMMEDIATE transaction on the writer's queue
            let sales = Department(); sales.name = "Sales"
            try db.save(sales)
            return sales.id
        }
        let names = try await pool.read { db in          // DEFERRED transaction on the least busy reader
            try db.objects(Department.self).map(\.name)
        }
        _ = (id, names)
    }

    // Upsert, writes outside a transaction, blocking calls (compiled, not run)
    static func poolMore(_ db: Database, _ pool: DatabasePool, _ fromServer: Employee) async throws {
        let live = try db.upsert(fromServer)            // the row with its key updated, or inserted
        print(live === fromServer)                      // false when another instance was live: use `live`
        try await pool.writeWithoutTransaction { db in  // VACUUM and the like, which refuse a transaction
            try db.execute("VACUUM")
        }
        func rename(_ id: Int64, to name: String) throws {   // a synchronous function: the blocking forms
            try pool.blocking.write { db in try db.execute("UPDATE Department SET name = ? WHERE id = ?", name, id) }
        }
        _ = rename
    }

    // Change streams (compiled, not run: they wait for commits forever)
    static func streams(_ pool: DatabasePool) async throws {
        for await change in pool.changes(of: Employee.self) {       // one element per commit that touched it
            print(change.insertedRowIDs, change.updatedRowIDs, change.deletedRowIDs)
            print(change.updatedProperties)                         // [4: ["salary"]] for the library's saves
        }

        for try await count in pool.observe({ db in try db.count(Employee.self) }) {
            print("employees:", count)                              // now, then after each relevant commit
        }
    }

    @MainActor final class EmployeeList {
        let names: LiveQuery<[String]>
        init(pool: DatabasePool) {
            names = LiveQuery(pool) { db in try db.objects(Employee.self).map(\.name) }
        }
    }

    // Migrations
    static func migrate(_ db: Database, migrationsFolder: URL) throws {
        var migrator = Migrator()                                   // Migrator(namespace: "plugin") for a plugin
        migrator.register("0001_create", sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
        migrator.register("0002_split_name") { db in               // Swift: raw SQL for the past, models for now
            try db.execute("ALTER TABLE person ADD COLUMN lastName TEXT")
            try db.execute("UPDATE person SET lastName = substr(name, instr(name, ' ') + 1)")
        }
        try migrator.registerSQLFiles(in: migrationsFolder)        // 0003_index.sql, ... by name
        migrator.registerUserVersion(3) { db in                     // FCModel's PRAGMA user_version steps
            try db.execute("CREATE INDEX IF NOT EXISTS person_lastName ON person(lastName)")
        }
        print(try migrator.plan(for: db))                           // a dry run: what would run, with its SQL
        try migrator.migrate(db)                                    // or: try await migrator.migrate(pool)
    }
}

// Mapping an existing database
enum ReadmeMapping {
    final class Supplier: Model {
        static let tableName = "shop_supplier"
        var id: Int64 = 0
        required init() {}
    }

    static func product(_ db: Database) throws -> Bool {
        // Django: CREATE TABLE "shop_product" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
        //   "title" varchar(100) NOT NULL, "price" decimal NOT NULL, "created_at" datetime NOT NULL,
        //   "supplier_id" integer NOT NULL REFERENCES "shop_supplier" ("id"), "notes" text NOT NULL, ...)
        final class Product: Model {
            static let tableName = "shop_product"
            static let columnNames = ["createdAt": "created_at"]   // property -> column, where they differ
            var id: Int64 = 0
            var title = ""
            var price = Decimal(0)                                  // every digit; written as Django writes it
            var createdAt = Date(timeIntervalSince1970: 0)          // kept in Django's text layout
            @Reference var supplier: Supplier?                      // the `supplier_id` foreign key, by convention
            required init() {}                                      // "notes" left out: a partial model
        }
        let plan = try db.schemaPlan(for: Product.self)
        print(plan.isEmpty)          // true: nothing to add, nothing to change
        print(plan)                  // Product: in sync, then each column named otherwise: createdAt -> column "created_at", …
        return plan.isEmpty
    }
}

// Relationships
enum ReadmeRelationships {
    final class Employee: Model {
        var id: Int64 = 0
        var name = ""
        @Reference var department: Department?
        required init() {}
    }

    final class Department: Model {
        var id: Int64 = 0
        var name = ""
        @Children(by: "department", orderBy: "name") var employees: [Employee]   // the inverse, never a column
        required init() {}
    }

    static func children(_ db: Database, sales: Department) throws -> [Department] {
        let staff = try db.objects(Employee.self, where: "ORDER BY name", prefetching: ["department"])  // 2 queries
        print(staff.map { $0.department?.name ?? "-" })   // no further query
        print(sales.employees.count)               // one query on first access; `try sales.$employees.reload()`
        let teams = try db.objects(Department.self, prefetching: ["employees"])   // 2 queries, whatever the count
        return teams
    }
}

// Running on PostgreSQL (the README's block says `// import StrataPostgres`: this file's leading imports are
// the getting-started program's, so StrataPostgres is imported here, below them). Compiled, not run: it
// needs a server (Tests/StrataPostgresTests run the same calls against one).
import StrataPostgres

enum ReadmePostgres {
    typealias Employee = ReadmeExamples.Employee

    static func postgres() async throws {
        // import StrataPostgres
        let db = try Database(postgresURL: "postgresql:///app?host=/run/postgresql")
        let ada = Employee()
        ada.name = "Ada"
        try db.save(ada)                       // CREATE TABLE on first use, then INSERT … RETURNING: ada.employeeId is set
        let same = try db.object(Employee.self, forKey: ada.employeeId)   // the same live instance
        let pool = try DatabasePool(postgresURL: "postgresql:///app?host=/run/postgresql", readers: 4)
        let staff = try await pool.read { db in try db.count(Employee.self) }
        _ = (same, staff)
    }

    static func postgresObservation(pool: DatabasePool) async throws {
        try await pool.installChangeNotifications(for: [Employee.self])   // or listenForChangeNotifications()
        for await change in pool.changes(of: Employee.self) {
            print(change.insertedRows, change.updatedRows, change.deletedRows, change.listsEveryRow)
        }
    }

    static func postgresReplica() async throws {
        let replicated = try DatabasePool(postgresURL: "postgresql:///app?host=/run/postgresql",
                                          replicaURL: "postgresql:///app?host=/run/postgresql&port=5433",
                                          readers: 4, replicaWait: .seconds(2))
        try await replicated.write { db in let ada = Employee(); ada.name = "Ada"; try db.save(ada) }
        let count = try await replicated.read { db in try db.count(Employee.self) }   // on the standby, Ada included
        _ = count
    }
}
