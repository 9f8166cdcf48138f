import CSQLite
import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// A file database with `teams` teams ("T0", ...) and `members` members spread over them round-robin
/// ("M000", ...), reopened so that no instance is live, with both registries synced (so schema sync
/// does not show up in the statement counts).
private func teamsAndMembers(teams: Int = 2, members: Int = 6) throws -> TestDatabase {
    let file = try TestDatabase()
    do {
        let db = file.db
        let made = (0..<teams).map { i in let t = RTeam(); t.name = "T\(i)"; return t }
        try db.save(made)
        let people = (0..<members).map { i in
            let m = RMember(); m.name = String(format: "M%03d", members - i); m.team = made[i % teams]; return m
        }
        try db.save(people)
    }
    let db = try file.reopen()
    _ = try db.count(RTeam.self)
    _ = try db.count(RMember.self)
    return file
}

private func mentions(_ statements: [String], _ table: String) -> Int {
    statements.filter { $0.contains("\"\(table)\"") || $0.contains(" \(table) ") }.count
}

@Suite struct RelationshipTests {
    // MARK: Faults

    @Test func faultCostsOneQueryOnFirstReadAndNoneAfter() throws {
        let file = try teamsAndMembers()
        let db = file.db
        let log = StatementLog(db)
        let (members, fetch) = try log.during { try db.objects(RMember.self, where: "ORDER BY id") }
        #expect(members.count == 6)
        #expect(fetch.count == 1)
        #expect(mentions(fetch, "RTeam") == 0)

        let (team, first) = log.during { members[0].team }
        #expect(team?.name == "T0")
        #expect(first.count == 1)
        #expect(mentions(first, "RTeam") == 1)

        let (again, second) = log.during { (members[0].team, members[2].team) }
        #expect(again.0 === team && again.1 === team)   // the same row: the live instance, no query
        #expect(second.isEmpty)
        withExtendedLifetime(team) {}
    }

    @Test func twoOwnersShareTheRelatedInstance() throws {
        let file = try teamsAndMembers()
        let db = file.db
        let a = try #require(try db.object(RMember.self, forKey: 1))
        let b = try #require(try db.object(RMember.self, forKey: 3))
        let log = StatementLog(db)
        let teamOfA = a.team
        let teamOfB = b.team
        #expect(teamOfA != nil)
        #expect(teamOfA === teamOfB)
        #expect(log.count == 1)
        #expect(try db.object(RTeam.self, forKey: 1) === teamOfA)
    }

    @Test func readsInsideATransactionUseTheSameConnection() throws {
        let file = try teamsAndMembers()
        let db = file.db
        let member = try #require(try db.object(RMember.self, forKey: 2))
        let name = try db.transaction {
            let fresh = RTeam(); fresh.name = "Fresh"
            try db.save(fresh)
            let other = RMember(); other.name = "New"; other.team = fresh
            try db.save(other)
            return (member.team?.name, other.team === fresh, fresh.members.map(\.name))
        }
        #expect(name.0 == "T1")
        #expect(name.1)
        #expect(name.2 == ["New"])
    }

    @Test func unattachedOwnerReadsBackWhatWasAssigned() throws {
        let unsavedTeam = RTeam(); unsavedTeam.name = "Draft"
        let member = RMember()
        member.team = unsavedTeam
        #expect(member.team === unsavedTeam)
        #expect(member.$team.key == .null)
        #expect(try member.$team.load() === unsavedTeam)

        let db = try TestDatabase.make()
        let saved = RTeam(); saved.name = "Saved"
        try db.save(saved)
        member.team = saved
        #expect(member.team === saved)
        #expect(member.$team.key == .integer(saved.id))
        member.team = nil
        #expect(member.team == nil)
        #expect(member.$team.key == .null)
        #expect(unsavedTeam.members.isEmpty)   // not attached: no children, and no query to find out
    }

    @Test func unsavedRelatedObjectIsAnErrorNotANull() throws {
        let db = try TestDatabase.make()
        let draft = RTeam(); draft.name = "Draft"
        let member = RMember(); member.name = "Ada"; member.team = draft
        let error = try #require(throws: ModelError.self) { try db.save(member) }
        #expect(error.kind == .unsavedRelated)
        #expect(error.model == "RMember" && error.property == "team", "\(error)")   // the model saved, the property
        #expect(error.message.contains("RTeam"))                         // and the related type
        #expect(try db.count(RMember.self) == 0)
        #expect(!member.isPersisted)

        try db.save(draft)                  // save the related object first, then the owner
        try db.save(member)
        #expect(member.$team.key == .integer(draft.id))
        #expect(try db.value(Int64.self, "SELECT team FROM \"RMember\" WHERE id = ?", member.id) == draft.id)
    }

    // MARK: Dangling keys

    @Test func danglingKeyReadsNilKeepsKeyAndLoadThrows() throws {
        let file = try teamsAndMembers()
        try file.db.execute("UPDATE \"RMember\" SET team = 999 WHERE id = 1")
        let db = try file.reopen()
        let member = try #require(try db.object(RMember.self, forKey: 1))
        #expect(member.team == nil)
        #expect(member.$team.key == .integer(999))
        let error = try #require(throws: ModelError.self) { try member.$team.load() }
        #expect(error.kind == .notFound)
        #expect(error.model == "RTeam")
        #expect(error.message.contains("999"))
    }

    @Test func relatedRowDeletedThroughTheHandleReadsNil() throws {
        let db = try TestDatabase.make()
        let team = RTeam(); team.name = "Gone"
        try db.save(team)
        let member = RMember(); member.team = team
        try db.save(member)
        #expect(member.team === team)
        try db.delete(team)
        #expect(member.team == nil)
        #expect(member.$team.key == .integer(team.id))
        #expect(throws: ModelError.self) { try member.$team.load() }
    }

    // MARK: Prefetch

    @Test func prefetchListsNOwnersWithTheirRelatedObjectsInTwoStatements() throws {
        let file = try teamsAndMembers(teams: 5, members: 200)
        try file.db.execute("UPDATE \"RMember\" SET team = 999 WHERE id = 7")
        try file.db.execute("UPDATE \"RMember\" SET team = NULL WHERE id = 8")
        let db = try file.reopen()
        _ = try db.count(RTeam.self); _ = try db.count(RMember.self)
        let log = StatementLog(db)
        let members = try db.objects(RMember.self, where: "ORDER BY id", prefetching: ["team"])
        #expect(log.count == 2)
        #expect(log.statements.last?.contains(TestEngine.isPostgreSQL ? "= ANY($1)" : "json_each(") == true)   // the keys as one array

        let teams = members.map(\.team)
        #expect(log.count == 2)                              // every read: no query
        #expect(teams.compactMap { $0 }.count == 198)
        #expect(Set(teams.compactMap { $0.map(ObjectIdentifier.init) }).count == 5)
        #expect(teams[0] === teams[5] && teams[0]?.name == "T0")
        #expect(teams[6] == nil && members[6].$team.key == .integer(999))
        #expect(teams[7] == nil && members[7].$team.key == .null)
        #expect(throws: ModelError.self) { try members[6].$team.load() }
        #expect(log.count == 2)                              // the dangling key is known missing
    }

    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's variable limit; PostgreSQL binds one array")) func prefetchChunksUnderTheVariableLimit() throws {
        let file = try teamsAndMembers(teams: 7, members: 21)
        let db = file.db
        sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 3)   // chunks of 2 keys (a power of two)
        db.connection.hasJSONEach = false   // the IN-list path (keys that are not all integers, or no JSON functions)
        let members = try db.objects(RMember.self)
        let log = StatementLog(db)
        try db.prefetch("team", of: members)
        #expect(log.count == 4)                              // 7 keys: 2 + 2 + 2 + 1
        #expect(members.allSatisfy { $0.team?.name == "T\(($0.id - 1) % 7)" })
        #expect(log.count == 4)
    }

    /// Distinct rowid keys are looked up one by one in a join with their JSON array (no temporary index
    /// of the keys), whatever the names: a target table named like the join's alias, with columns named
    /// like json_each's own (`id`, `key`, `value`, `type`), and a key list with gaps and missing keys.
    // PostgreSQL: SQLite's statement (a join with json_each) and its strata_keys table
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's statement (json_each) and strata_keys")) func prefetchOfRowIDKeysJoinsTheirArrayWhateverTheNames() throws {
        let file = try TestDatabase()
        let db = file.db
        let targets = (1...5).map { i in let t = JoinTarget(); t.key = "k\(i)"; t.value = Double(i); t.type = i * 10; return t }
        try db.save(targets)
        try db.execute("DELETE FROM strata_keys WHERE id = 3")
        try db.syncSchema(JoinOwner.self)
        for key in [1, 2, 3, 5, 5, 99] as [Int64] {
            try db.execute("INSERT INTO JoinOwner(target) VALUES (?)", key)
        }
        let reopened = try file.reopen()
        let owners = try reopened.objects(JoinOwner.self, where: "ORDER BY id")
        _ = try reopened.count(JoinTarget.self)              // first use (schema reads) before the log
        let log = StatementLog(reopened)
        try reopened.prefetch("target", of: owners)
        #expect(log.count == 1)
        #expect(log.statements.first?.contains("CROSS JOIN") == true, "\(log.statements)")
        #expect(owners.map { $0.target?.key } == ["k1", "k2", nil, "k5", "k5", nil])
        #expect(owners.map { $0.target?.type } == [10, 20, nil, 50, 50, nil])
        #expect(owners[3].target === owners[4].target)
        #expect(log.count == 1)
        let plan = try reopened.rows("EXPLAIN QUERY PLAN " + (log.statements.first ?? ""), "[1,2]").map { $0["detail"] }
        #expect(plan.contains(.text("SEARCH strata_keys USING INTEGER PRIMARY KEY (rowid=?)")), "\(plan)")
    }

    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: the statement is SQLite's (json_each); PostgresRelationshipLoadingTests checks = ANY")) func prefetchOfIntegerKeysIsOneStatementWhateverTheVariableLimit() throws {
        let file = try teamsAndMembers(teams: 7, members: 21)
        let db = file.db
        sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 3)
        let members = try db.objects(RMember.self)
        let log = StatementLog(db)
        try db.prefetch("team", of: members)
        #expect(log.count == 1)                              // 7 keys in one JSON array
        #expect(log.statements.last?.contains("json_each(") == true)
        #expect(members.allSatisfy { $0.team?.name == "T\(($0.id - 1) % 7)" })
        #expect(log.count == 1)
    }

    @Test func prefetchUsesLiveInstancesAndSkipsResolvedOwners() throws {
        let file = try teamsAndMembers()
        let db = file.db
        let members = try db.objects(RMember.self)
        let live = try db.objects(RTeam.self)
        let log = StatementLog(db)
        try db.prefetch("team", of: members)
        #expect(log.count == 0)
        #expect(members.allSatisfy { member in live.contains { $0 === member.team } })
        try db.prefetch("team", of: members)
        #expect(log.count == 0)
        try db.prefetch("team", of: [RMember()])            // unattached owners are left alone
        #expect(log.count == 0)
    }

    @Test func prefetchNamesAnUnknownOrPlainProperty() throws {
        let db = try TestDatabase.make()
        let unknown = try #require(throws: ModelError.self) { try db.prefetch("tema", of: [RMember]()) }
        #expect(unknown.kind == .unknownProperty)
        #expect(unknown.property == "tema")
        #expect(unknown.message.contains("team"))
        let plain = try #require(throws: ModelError.self) {
            try db.objects(RMember.self, prefetching: ["name"])
        }
        #expect(plain.property == "name")
        #expect(plain.message.contains("not a relationship"))
        try db.prefetch("members", of: [RTeam]())   // @Children prefetch too (FaultHoldTests)
        let path = try #require(throws: ModelError.self) { try db.prefetch("members.nosuch", of: [RTeam()]) }
        #expect(path.property == "nosuch")
    }

    @Test func prefetchRejectsOwnersOfAnotherHandle() throws {
        let first = try TestDatabase.make(), second = try TestDatabase.make()
        let team = RTeam(); try first.save(team)
        let member = RMember(); member.team = team
        try first.save(member)
        _ = try second.count(RMember.self)
        let error = try #require(throws: ModelError.self) { try second.prefetch("team", of: [member]) }
        #expect(error.kind == .foreignInstance)
    }

    // MARK: To-many

    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's statement text (`?`, not `$1`)")) func childrenLoadWithOneOrderedQueryAndAreCached() throws {
        let file = try teamsAndMembers(teams: 2, members: 6)
        let db = file.db
        let team = try #require(try db.object(RTeam.self, forKey: 1))
        let log = StatementLog(db)
        #expect(!team.$members.isLoaded)
        let (members, first) = log.during { team.members }
        #expect(first.count == 1)
        #expect(first.first?.contains("WHERE \"team\" = ? ORDER BY \"name\" ASC") == true)
        #expect(members.map(\.name) == ["M002", "M004", "M006"])
        #expect(team.$members.isLoaded)

        let (_, second) = log.during { (team.members, members.map { $0.team }) }
        #expect(second.isEmpty)                              // cached; and each child's team is the parent
        #expect(members.allSatisfy { $0.team === team })

        let newcomer = RMember(); newcomer.name = "M000"; newcomer.team = team
        try db.save(newcomer)
        #expect(!team.$members.isLoaded)                     // a new child drops the loaded array
        let (reloaded, third) = log.during { team.members }
        #expect(third.count == 1)
        #expect(reloaded.first === newcomer && reloaded.count == 4)
        _ = try team.$members.reload()
        team.$members.invalidate()
        let (_, fourth) = log.during { team.members }
        #expect(fourth.count == 1)
    }

    @Test func childrenOrderDescendingAndBadDeclarationsThrow() throws {
        let db = try TestDatabase.make()
        let parent = LParent(); parent.name = "P"
        try db.save(parent)
        for name in ["b", "c", "a"] { let kid = LChild(); kid.name = name; kid.parent = parent; try db.save(kid) }
        #expect(parent.kids.map(\.name) == ["c", "b", "a"])

        final class BadOrder: Model {
            var id: Int64 = 0
            var name = ""   // a model with only a key cannot be inserted yet (INSERT ... () VALUES ())
            @Children(by: "name", orderBy: "nmae") var kids: [LChild]
            required init() {}
        }
        final class BadColumn: Model {
            var id: Int64 = 0
            var name = ""   // a model with only a key cannot be inserted yet (INSERT ... () VALUES ())
            @Children(by: "owner") var kids: [LChild]
            required init() {}
        }
        final class WrongParent: Model {
            var id: Int64 = 0
            var name = ""   // a model with only a key cannot be inserted yet (INSERT ... () VALUES ())
            @Children(by: "parent") var kids: [LChild]
            required init() {}
        }
        // (Issue 36: the owner's first save throws, so no attached owner has an array that reads as [].)
        let badOrder = BadOrder()
        let orderError = try #require(throws: ModelError.self) { try db.save(badOrder) }
        #expect(orderError.property == "nmae")
        #expect(!badOrder.isPersisted && badOrder.kids.isEmpty)
        #expect(try #require(throws: ModelError.self) { try db.save(BadColumn()) }.property == "owner")
        #expect(try #require(throws: ModelError.self) { try db.save(WrongParent()) }.message.contains("LParent"))
    }

    // MARK: Memory

    @Test func parentAndChildrenAreFreedWhenDropped() throws {
        let db = try TestDatabase.make()
        let counter = DeinitCounter()
        do {
            let parent = LParent(); parent.name = "P"; parent.counter = counter
            let kid = LChild(); kid.name = "K"; kid.counter = counter
            kid.parent = parent                              // assigned before either is saved: held strongly
            try db.save(parent)
            try db.save(kid)
            #expect(kid.parent === parent)
            #expect(parent.kids.first === kid)               // parent -> kid strongly, kid -> parent weakly
        }
        #expect(counter.count == 2)
        #expect(try db.count(LChild.self) == 1)
    }

    @Test func prefetchPlusChildrenFormNoCycle() throws {
        let db = try TestDatabase.make()
        let counter = DeinitCounter()
        do {
            let parent = LParent(); parent.name = "P"
            try db.save(parent)
            for name in ["x", "y"] { let kid = LChild(); kid.name = name; kid.parent = parent; try db.save(kid) }
        }
        do {
            let kids = try db.objects(LChild.self, prefetching: ["parent"])   // kids hold the parent strongly
            kids.forEach { $0.counter = counter }
            let parent = try #require(kids.first?.parent)
            parent.counter = counter
            #expect(parent.kids.count == 2)                  // the load turns that hold into a weak one
            try db.prefetch("parent", of: parent.kids)       // already resolved: stays weak
        }
        #expect(counter.count == 3)
        do {
            let parent = try #require(try db.first(LParent.self))
            parent.counter = counter
            let kids = parent.kids                           // parent -> kids first
            kids.forEach { $0.counter = counter }
            try db.prefetch("parent", of: kids)
            #expect(kids.allSatisfy { $0.parent === parent })
        }
        #expect(counter.count == 6)
    }

    @Test func objectsReferringToEachOtherAreFreed() throws {
        let db = try TestDatabase.make()
        let counter = DeinitCounter()
        var keys: [Int64] = []
        do {
            let a = LPerson(); a.name = "A"; a.counter = counter
            let b = LPerson(); b.name = "B"; b.counter = counter
            a.partner = b; b.partner = a                    // A -> B -> A, neither saved yet
            a.partner = nil
            try db.save(a)
            try db.save(b)
            a.partner = b
            try db.save(a)
            #expect(a.partner === b && b.partner === a)
            keys = [a.id, b.id]
        }
        #expect(counter.count == 2)
        do {
            let a = try #require(try db.object(LPerson.self, forKey: keys[0]))
            a.counter = counter
            let b = try #require(a.partner)
            b.counter = counter
            #expect(b.partner === a)
        }
        #expect(counter.count == 4)
    }

    @Test func theIdentityMapKeepsNothingAlive() throws {
        let db = try TestDatabase.make()
        let counter = DeinitCounter()
        do {
            let parent = LParent(); parent.name = "P"
            try db.save(parent)
            let kid = LChild(); kid.name = "K"; kid.parent = parent
            try db.save(kid)
        }
        do {
            let kid = try #require(try db.first(LChild.self))
            kid.counter = counter
            let parent = try #require(kid.parent)             // registered in the identity map, resolved
            parent.counter = counter
        }
        #expect(counter.count == 2)                          // neither the map nor the fault kept them
        let log = StatementLog(db)
        weak var parent: LParent?
        do {
            let kid = try #require(try db.first(LChild.self))
            parent = kid.parent                              // loaded, then held by the kid for as long as it lives
            #expect(parent != nil)
            #expect(log.count == 2)
            #expect(kid.parent?.name == "P")                 // so the next read costs no query
            #expect(log.count == 2)
        }
        #expect(parent == nil)                               // and nothing else keeps it
    }

    // MARK: Schema

    // PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's catalog (sqlite_master, pragma_table_info, sqlite_version())")) func relationshipIsAColumnTypedLikeTheRelatedKey() throws {
        let db = try TestDatabase.make()
        _ = try db.count(RMember.self)
        _ = try db.count(RCity.self)
        _ = try db.count(RTeam.self)
        func columns(_ table: String) throws -> [String: String] {
            var result: [String: String] = [:]
            for row in try db.rows("SELECT name, type FROM pragma_table_info(?)", table) {
                result[try row.decode("name")] = try row.decode("type")
            }
            return result
        }
        #expect(try columns("RMember")["team"] == "INTEGER")
        #expect(try columns("RCity")["country"] == "TEXT")
        #expect(try columns("RTeam").keys.sorted() == ["id", "name"])       // @Children is no column
        #expect(try ModelMetadata.of(RTeam.self).properties.map(\.name) == ["id", "name"])

        let indexed = try db.rows("""
            SELECT il.name AS name, group_concat(ii.name, ',') AS columns
            FROM pragma_index_list('RMember') AS il, pragma_index_info(il.name) AS ii GROUP BY il.name
            """)
        #expect(try indexed.map { try $0.decode("columns", as: String.self) }.contains("team,name"))

        let france = RCountry(); france.code = "FR"; france.name = "France"
        try db.save(france)
        let paris = RCity(); paris.name = "Paris"; paris.country = france
        try db.save(paris)
        #expect(try db.value(String.self, "SELECT country FROM RCity") == "FR")
        #expect(paris.$country.key == .text("FR"))
    }

    @Test func textKeysResolveAndPrefetch() throws {
        let file = try TestDatabase()
        do {
            let db = file.db
            for (code, name) in [("FR", "France"), ("IT", "Italy")] {
                let country = RCountry(); country.code = code; country.name = name
                try db.save(country)
                let city = RCity(); city.name = name + " city"; city.country = country
                try db.save(city)
            }
        }
        let db = try file.reopen()
        let cities = try db.objects(RCity.self, where: "ORDER BY name", prefetching: ["country"])
        let log = StatementLog(db)
        #expect(cities.map { $0.country?.name } == ["France", "Italy"])
        #expect(log.count == 0)
    }

    // MARK: Fixture

    @Test(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"),
          .tags(.sqliteOnly), .sqliteOnly("a copy of a SQLite fixture file"))
    func gyDataCenterEmployeeDepartmentResolves() throws {
        let path = try #require(Fixtures.path("GYDataCenterTests.db"))
        let copy = try TemporaryDatabase(copying: path)
        #expect(copy.path != path)
        let db = copy.db
        _ = try db.count(RelGYDepartment.self)
        _ = try db.count(RelGYEmployee.self)
        let log = StatementLog(db)
        let employees = try db.objects(RelGYEmployee.self, where: "ORDER BY employeeId")
        #expect(employees.map(\.name) == ["Emp1", "Emp2", "Emp3"])
        #expect(employees.map(\.$department.key) == [.integer(1), .integer(1), .integer(1)])
        let department = try #require(employees[0].department)
        #expect(department.departmentId == 1)
        #expect(department.stringProperty == "abc")
        #expect(department.intProperty == -1)
        #expect(employees.allSatisfy { $0.department === department })
        #expect(log.count == 2)
        #expect(department.employees.map(\.employeeId) == [1, 2, 3])
        #expect(department.employees[0] === employees[0])
        #expect(log.count == 3)
    }
}

// MARK: Rollbacks

private struct Undo: Error {}

extension RelationshipTests {
    @Test func aTargetWhoseInsertARawRollbackToUndidIsLetGo() throws {
        let db = try TestDatabase.make()
        try db.syncSchema(RTeam.self)
        try db.syncSchema(RMember.self)
        try db.execute("INSERT INTO \"RMember\" (name, team) VALUES ('Ada', 1)")
        let member = try #require(try db.first(RMember.self))
        #expect(member.team == nil)
        try db.transaction {
            try db.execute("SAVEPOINT raw")
            let team = RTeam(); team.name = "Gone"
            try db.save(team)
            #expect(member.team === team)
            try db.execute("ROLLBACK TO raw")
            try db.execute("RELEASE raw")
            #expect(team.id == 0 && !team.isPersisted)
        }
        #expect(member.team == nil)
        member.name = "Ada L."
        try db.save(member)
        #expect(try db.value(String.self, "SELECT name FROM \"RMember\"") == "Ada L.")
    }

    @Test func aTargetWhoseInsertIsRolledBackIsLetGoAndLookedUpAgain() throws {
        let db = try TestDatabase.make()
        try db.syncSchema(RTeam.self)
        try db.syncSchema(RMember.self)
        try db.execute("INSERT INTO \"RMember\" (name, team) VALUES ('Ada', 1)")   // no team 1 yet
        let member = try #require(try db.first(RMember.self))
        #expect(member.team == nil)
        #expect(throws: Undo.self) {
            try db.transaction {
                let team = RTeam(); team.name = "Gone"
                try db.save(team)                                            // takes key 1
                #expect(member.team === team)
                throw Undo()
            }
        }
        #expect(member.team == nil)                                          // not the unsaved instance
        #expect(member.$team.key == .integer(1))
        let error = try #require(throws: ModelError.self) { try member.$team.load() }
        #expect(error.kind == .notFound)
        member.name = "Ada L."
        try db.save(member)
        let again = RTeam(); again.name = "Again"
        if TestEngine.isPostgreSQL { again.id = 1 }   // (PostgreSQL's sequence does not go back with a rollback)
        try db.save(again)
        #expect(again.id == 1 && member.team === again)
    }

    @Test func anAssignedTargetWhoseInsertIsRolledBackIsUnsavedAgain() throws {
        let db = try TestDatabase.make()
        let member = RMember(); member.name = "Ada"
        let saved = RMember(); saved.name = "Grace"
        try db.save([member, saved])
        let team = RTeam(), other = RTeam()
        #expect(throws: Undo.self) {
            try db.transaction {
                try db.save([team, other])
                member.team = team                                           // not saved
                saved.team = other
                try db.save(saved)                                           // saved, then undone
                throw Undo()
            }
        }
        #expect(saved.team == nil && saved.$team.key == .null)
        #expect(member.team === team)                                        // still assigned, as a new object
        #expect(member.$team.key == .null)
        let error = try #require(throws: ModelError.self) { try db.save(member) }
        #expect(error.kind == .unsavedRelated)
        try db.save(team)
        try db.save(member)
        #expect(try db.value(Int64.self, "SELECT team FROM \"RMember\" WHERE id = ?", member.id) == team.id)
    }

    @Test func aLoadedArrayHoldingAnObjectWhoseInsertIsRolledBackIsReadAgain() throws {
        let db = try TestDatabase.make()
        let team = RTeam(); team.name = "T"
        try db.save(team)
        #expect(team.members.isEmpty)
        #expect(throws: Undo.self) {
            try db.transaction {
                let member = RMember(); member.team = team
                try db.save(member)
                #expect(try team.$members.reload().count == 1)
                throw Undo()
            }
        }
        #expect(!team.$members.isLoaded)
        #expect(team.members.isEmpty)
    }
}
