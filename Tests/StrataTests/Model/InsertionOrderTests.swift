import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// `save([...])` of new objects that refer to each other (a self-referencing model): each is inserted after
// the new objects it refers to, and a cycle is closed by an UPDATE, all in the batch's one transaction.

private final class IOPerson: Model {
    static let persistentProperties = ["id", "name", "partner", "mentor"]
    var id: Int64 = 0
    var name = ""
    @Reference var partner: IOPerson?
    @Reference var mentor: IOPerson?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }

    convenience init(_ name: String) {
        self.init()
        self.name = name
    }
}

/// The same shape over a table whose `partner` column is NOT NULL: a cycle cannot be inserted.
private final class IOStrict: Model {
    var id: Int64 = 0
    @Reference var partner: IOStrict?
    required init() {}
}

private func stored(_ db: Database, _ column: String, of person: IOPerson) throws -> Int64? {
    try db.value(Int64.self, "SELECT \(column) FROM \"IOPerson\" WHERE id = ?", arguments: [person.id])
}

@Suite struct InsertionOrderTests {
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: statement counts are SQLite's (guards and savepoints differ)")) func twoNewObjectsThatReferToEachOtherSaveInOneCall() throws {
        let db = try TestDatabase.make()
        try db.syncSchema(IOPerson.self)
        let counter = DeinitCounter()
        do {
            let ada = IOPerson("Ada"), bob = IOPerson("Bob")
            ada.counter = counter; bob.counter = counter
            ada.partner = bob
            bob.partner = ada
            let log = StatementLog(db)
            try db.save([ada, bob])
            #expect(log.statements.count == 5)   // BEGIN, 2 INSERT, UPDATE, COMMIT
            #expect(log.statements.filter { $0.hasPrefix("INSERT") }.count == 2)
            #expect(log.statements.filter { $0.hasPrefix("UPDATE") }.count == 1)
            #expect(ada.id != 0 && bob.id != 0)
            #expect(try stored(db, "partner", of: ada) == bob.id && stored(db, "partner", of: bob) == ada.id)
            #expect(ada.partner === bob && bob.partner === ada && !ada.hasChanges && !bob.hasChanges)
            let before = log.count
            try db.save([ada, bob])   // nothing left to write
            #expect(log.count == before)
        }
        #expect(counter.count == 2)   // no cycle of strong references
    }

    /// The reference that held its object strongly still does after the save, in either batch order: the
    /// object the user keeps keeps the other alive, and reading it runs no query.
    @Test func eachReferenceKeepsItsStrengthAfterTheSave() throws {
        for reversed in [false, true] {
            let db = try TestDatabase.make()
            let ada = IOPerson("Ada")
            weak var weakBob: IOPerson?
            do {
                let bob = IOPerson("Bob")
                ada.partner = bob   // strong
                bob.partner = ada   // weak: bob is held by ada
                weakBob = bob
                try db.save(reversed ? [bob, ada] : [ada, bob])
            }
            #expect(weakBob != nil)
            let log = StatementLog(db)
            #expect(ada.partner?.name == "Bob" && ada.partner?.partner === ada)
            #expect(log.count == 0)
        }
    }

    @Test func aChainGivenChildFirstIsInsertedParentFirst() throws {
        let db = try TestDatabase.make()
        let people = (0..<3).map { IOPerson("p\($0)") }
        people[0].mentor = people[1]
        people[1].mentor = people[2]
        let log = StatementLog(db)
        try db.save(people)
        #expect(log.statements.filter { $0.hasPrefix("UPDATE") }.isEmpty)
        #expect(try stored(db, "mentor", of: people[0]) == people[1].id && stored(db, "mentor", of: people[1]) == people[2].id)
        #expect(try stored(db, "mentor", of: people[2]) == nil)
        // Objects that refer to no new object keep the batch's order.
        let loose = [IOPerson("x"), IOPerson("y")]
        try db.save(loose)
        #expect(loose[0].id < loose[1].id)
    }

    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: unquoted mixed-case table and SQLite functions in the test's SQL")) func aLongChainAndACycleOfThree() throws {
        let db = try TestDatabase.make()
        let chain = (0..<5_000).map { IOPerson("c\($0)") }
        for i in 0..<(chain.count - 1) { chain[i].mentor = chain[i + 1] }
        try db.save(chain)
        #expect(try db.value(Int.self, "SELECT count(*) FROM IOPerson a JOIN IOPerson b ON a.mentor = b.id AND b.name = 'c' || (CAST(substr(a.name, 2) AS INTEGER) + 1)") == 4_999)

        let (a, b, c) = (IOPerson("a"), IOPerson("b"), IOPerson("c"))
        a.partner = b; b.partner = c; c.partner = a
        a.mentor = a   // and one that refers to itself
        try db.save([a, b, c])
        #expect(try stored(db, "partner", of: a) == b.id && stored(db, "partner", of: b) == c.id && stored(db, "partner", of: c) == a.id)
        #expect(try stored(db, "mentor", of: a) == a.id)
    }

    @Test func aSavedObjectThatRefersToANewOneOfTheBatch() throws {
        let db = try TestDatabase.make()
        let old = IOPerson("old")
        try db.save(old)
        let new = IOPerson("new")
        old.mentor = new
        try db.save([old, new])
        let mentor = try stored(db, "mentor", of: old)
        #expect(new.id != 0 && mentor == new.id)
    }

    @Test func aCycleOverANotNullColumnFailsAndChangesNothing() throws {
        let db = try TestDatabase.make()
        try db.execute("CREATE TABLE \"IOStrict\" (id BIGINT PRIMARY KEY, partner BIGINT NOT NULL)")
        let (a, b) = (IOStrict(), IOStrict())
        a.partner = b; b.partner = a
        let error = #expect(throws: ModelError.self) { try db.save([a, b]) }
        #expect(error?.kind == .unsavedRelated && error?.property == "partner")
        #expect(error?.message.contains("cycle") == true)
        #expect(a.id == 0 && b.id == 0 && a.partner === b && b.partner === a)
        #expect(try db.value(Int.self, "SELECT count(*) FROM \"IOStrict\"") == 0)
    }
}
