// Every Swift example of the DocC articles GettingStarted, ModelsAndSchemaEvolution, RawSQLAndLiveObjects
// and Limitations, verbatim: this file must compile, ArticleExamplesTests runs the statements, and checks
// that each article block still appears here (so an edited article fails until this file follows).
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
