import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 15 (raw SQL that changes the schema): live instances after a rebuild, a rename, a drop made
// through `db.execute`, in autocommit, in a transaction, on a pool's writer.

final class R15RawPerson: Model {
    static let tableName = "r15raw_person"
    var id: Int64 = 0
    var name = ""
    var score = 0
    required init() {}
}

@Suite struct Review15RawSchemaTests {
    static let rebuild = """
        CREATE TABLE r15raw_new(extra TEXT DEFAULT 'e', score INTEGER NOT NULL DEFAULT 0, id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
        INSERT INTO r15raw_new(id, name, score) SELECT id, name, score * 2 FROM r15raw_person WHERE name <> 'Bob';
        DROP TABLE r15raw_person;
        ALTER TABLE r15raw_new RENAME TO r15raw_person
        """

    func adaAndBob(_ db: Database) throws -> (R15RawPerson, R15RawPerson) {
        let ada = R15RawPerson(); ada.name = "Ada"; ada.score = 3
        let bob = R15RawPerson(); bob.name = "Bob"; bob.score = 1
        try db.save(ada); try db.save(bob)
        return (ada, bob)
    }

    @Test func aRawRebuildInAutocommitIsFollowedByLiveInstances() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        try temp.db.execute(Self.rebuild)
        #expect(ada.score == 6)
        #expect(!ada.hasChanges)
        #expect(bob.isDeleted, "its row was not copied")
        #expect(try temp.db.objects(R15RawPerson.self).map { "\($0.name):\($0.score)" } == ["Ada:6"])
    }

    @Test func anUnsavedEditOverARawRebuildIsAConflict() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        ada.score = 10
        try temp.db.execute(Self.rebuild)
        #expect(throws: (any Error).self) { try temp.db.save(ada) }
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15raw_person") == 6)
    }

    @Test func aRawRebuildInATransactionIsFollowedAtCommit() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        ada.name = "Ada L"   // unsaved, unrelated column: kept
        try temp.db.transaction { try temp.db.execute(Self.rebuild) }
        #expect(ada.score == 6)
        #expect(ada.name == "Ada L")
        #expect(bob.isDeleted)
        try temp.db.save(ada)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score || ':' || extra FROM r15raw_person") == ["Ada L:6:e"])
    }

    @Test func aRawRebuildBetweenRawBeginAndCommitIsFollowedAtCommit() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        try temp.db.execute("BEGIN")
        for statement in Self.rebuild.split(separator: ";") { try temp.db.execute(String(statement)) }
        try temp.db.execute("COMMIT")
        #expect(ada.score == 6)
        #expect(bob.isDeleted)
        ada.score += 1
        try temp.db.save(ada)
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15raw_person") == 7)
    }

    @Test func aRawRebuildStatementByStatementInAutocommitStillWorks() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        // Each statement commits alone: after the DROP the rows are gone (the instances are marked deleted),
        // and the table is not made again before the caller's RENAME (which would then fail).
        for statement in Self.rebuild.split(separator: ";") { try temp.db.execute(String(statement)) }
        #expect(ada.isDeleted && bob.isDeleted)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score || ':' || extra FROM r15raw_person") == ["Ada:6:e"])
        #expect(try temp.db.objects(R15RawPerson.self).map { "\($0.name):\($0.score)" } == ["Ada:6"])
    }

    @Test func aRolledBackRawRebuildLeavesEverythingAsBefore() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        ada.name = "Ada L"
        struct Stop: Error {}
        #expect(throws: Stop.self) { try temp.db.transaction { try temp.db.execute(Self.rebuild); throw Stop() } }
        #expect(ada.score == 3 && ada.name == "Ada L")
        #expect(!bob.isDeleted)
        try temp.db.execute("BEGIN")
        try temp.db.execute(Self.rebuild)
        try temp.db.execute("ROLLBACK")
        #expect(ada.score == 3 && ada.name == "Ada L")
        #expect(!bob.isDeleted)
        try temp.db.save(ada)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score FROM r15raw_person ORDER BY id") == ["Ada L:3", "Bob:1"])
    }

    @Test func aRawDropTableMarksLiveInstancesDeleted() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        try temp.db.execute("DROP TABLE r15raw_person")
        #expect(ada.isDeleted && bob.isDeleted)
        #expect(try temp.db.objects(R15RawPerson.self).isEmpty)
    }

    @Test func aRawDropTableInATransactionMarksLiveInstancesDeletedAtCommit() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        try temp.db.transaction { try temp.db.execute("DROP TABLE r15raw_person") }
        #expect(ada.isDeleted && bob.isDeleted)
        #expect(try temp.db.objects(R15RawPerson.self).isEmpty)
    }

    @Test func aRawRenameColumnIsFollowed() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        try temp.db.execute("ALTER TABLE r15raw_person RENAME COLUMN score TO points")
        // The model's `score` has no column any more: sync adds it again (default 0).
        _ = try temp.db.objects(R15RawPerson.self)
        #expect(ada.score == 0)
        ada.name = "Ada L"
        try temp.db.save(ada)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || points || ':' || score FROM r15raw_person ORDER BY id") == ["Ada L:3:0", "Bob:1:0"])
    }

    @Test func aRawDropColumnIsFollowed() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        try temp.db.execute("ALTER TABLE r15raw_person DROP COLUMN score")
        _ = try temp.db.objects(R15RawPerson.self)
        #expect(ada.score == 0)
        ada.name = "Ada L"
        try temp.db.save(ada)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score FROM r15raw_person ORDER BY id") == ["Ada L:0", "Bob:0"])
    }

    @Test func aRawRebuildOnAPoolWriterIsFollowedByReadersAndTheWriter() async throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        try await pool.write { db in _ = try self.adaAndBob(db) }
        let before = try await pool.read { db in try db.objects(R15RawPerson.self).map { "\($0.name):\($0.score)" } }
        #expect(before == ["Ada:3", "Bob:1"])
        try await pool.write { db in try db.execute(Self.rebuild) }
        #expect(try await pool.read { db in try db.objects(R15RawPerson.self).map { "\($0.name):\($0.score)" } } == ["Ada:6"])
        try await pool.close()
    }

    /// The writer's own live instances (held across `write` blocks) follow the rebuild it committed.
    @Test func aPoolWritersLiveInstancesFollowARawRebuild() throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: 1)
        defer { try? pool.blocking.close() }
        final class Box: @unchecked Sendable { var ada: R15RawPerson?; var bob: R15RawPerson? }
        let box = Box()
        try pool.blocking.write { db in (box.ada, box.bob) = try self.adaAndBob(db) }
        try pool.blocking.write { db in
            box.ada?.score = 10   // unsaved
            try db.execute(Self.rebuild)
        }
        #expect(box.bob?.isDeleted == true)
        #expect(throws: (any Error).self, "a conflict, not 10 over the rebuilt 6") { try pool.blocking.write { db in try db.save(box.ada!) } }
        #expect(try pool.blocking.read { db in try db.value(Int.self, "SELECT score FROM r15raw_person") } == 6)
    }

    /// A model used inside the transaction after the rebuild (its table already renamed into place) and
    /// the commit afterwards: the instances follow.
    @Test func aModelUsedAfterARawRebuildInsideTheTransactionStillFollowsAtCommit() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        try temp.db.transaction {
            try temp.db.execute(Self.rebuild)
            #expect(try temp.db.count(R15RawPerson.self) == 1)
        }
        #expect(ada.score == 6)
        #expect(bob.isDeleted)
    }
}

// A table whose columns take all three names of the rowid (`rowid`, `oid`, `_rowid_`) has no name left to
// copy its rowids under: a rebuild renumbered them silently (a child that points at a rowid, an FTS index
// with content_rowid, another tool's bookmarks all lost their rows). The plan refuses it instead.
private final class R15RawAllRowIDNames: Model {
    static let tableName = "r15raw_names"
    static let primaryKey = "code"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    var code = ""
    var n = 0
    required init() {}
}

extension Review15RawSchemaTests {
    @Test func aRebuildOfATableWhoseColumnsTakeEveryRowIDNameIsRefused() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("""
            CREATE TABLE r15raw_names (code TEXT PRIMARY KEY, rowid TEXT, oid TEXT, _rowid_ TEXT, n TEXT);
            INSERT INTO r15raw_names (code, rowid, oid, _rowid_, n) VALUES ('a', 'r', 'o', 'u', '5');
            """)
        try temp.db.execute("INSERT INTO r15raw_names (code, rowid, oid, _rowid_, n) VALUES ('b', 'r2', 'o2', 'u2', '6')")
        let before = try temp.db.column(String.self, "SELECT name || coalesce(sql, '') FROM sqlite_master ORDER BY name")
        let planError = #expect(throws: SchemaError.self) { try temp.db.schemaPlan(for: R15RawAllRowIDNames.self) }
        #expect(planError?.table == "r15raw_names")
        #expect(planError.map { "\($0)" }?.contains("rowid") == true, "\(String(describing: planError))")
        let syncError = #expect(throws: SchemaError.self) { try temp.db.syncSchema(R15RawAllRowIDNames.self) }
        #expect(syncError?.table == "r15raw_names")
        #expect(try temp.db.column(String.self, "SELECT name || coalesce(sql, '') FROM sqlite_master ORDER BY name") == before)
        #expect(try temp.db.column(String.self, "SELECT code || n FROM r15raw_names ORDER BY code") == ["a5", "b6"])
    }
}

// Probes around the follow: renames, rollbacks with the model used half way, another connection.
extension Review15RawSchemaTests {
    @Test func aRawTableRenameMarksLiveInstancesDeletedAndKeepsTheRenamedTable() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        try temp.db.execute("ALTER TABLE r15raw_person RENAME TO r15raw_archive")
        #expect(ada.isDeleted && bob.isDeleted)
        #expect(try temp.db.objects(R15RawPerson.self).isEmpty)
        #expect(try temp.db.column(String.self, "SELECT name FROM r15raw_archive ORDER BY id") == ["Ada", "Bob"])
    }

    @Test func aRolledBackRebuildWithTheModelUsedHalfWayLeavesEverythingAsBefore() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try temp.db.transaction {
                try temp.db.execute(Self.rebuild)
                #expect(try temp.db.count(R15RawPerson.self) == 1)
                throw Stop()
            }
        }
        // A savepoint's rollback inside a transaction that commits.
        try temp.db.transaction {
            try? temp.db.transaction { try temp.db.execute("DROP TABLE r15raw_person"); throw Stop() }
        }
        #expect(ada.score == 3 && !ada.isDeleted && !bob.isDeleted)
        ada.score += 1
        try temp.db.save(ada)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score FROM r15raw_person ORDER BY id") == ["Ada:4", "Bob:1"])
    }

    @Test func anotherConnectionsRawRebuildIsFollowedAndAnUnsavedEditConflicts() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        let other = try Database(path: temp.path)
        defer { try? other.close() }
        ada.score = 10
        try other.execute(Self.rebuild)
        #expect(throws: (any Error).self) { try temp.db.save(ada) }
        #expect(bob.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15raw_person") == 6)
    }
}

// Bare statements (`db.statement(...).run()`): their schema change is followed at the next model call.
extension Review15RawSchemaTests {
    @Test func aRebuildThroughBareStatementsIsFollowedAtTheNextModelCall() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        ada.score = 10   // unsaved
        for statement in Self.rebuild.split(separator: ";") { try temp.db.statement(String(statement)).run() }
        #expect(throws: (any Error).self, "a conflict, not 10 over the rebuilt 6") { try temp.db.save(ada) }
        #expect(bob.isDeleted)
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15raw_person") == 6)
    }

    @Test func aDropThroughABareStatementMarksInstancesDeletedAtTheNextModelCall() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        try temp.db.statement("DROP TABLE r15raw_person").run()
        #expect(try temp.db.objects(R15RawPerson.self).isEmpty)
        #expect(ada.isDeleted)
    }
}

// The follow reads again only the models over the tables dropped or altered: a scratch table made and
// dropped costs the live instances of other tables nothing.
extension Review15RawSchemaTests {
    @Test func droppingAnUnrelatedTableReadsNoLiveInstanceAgain() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        ada.score = 10   // unsaved: stays, with no conflict
        var seen: [String] = []
        let trace = temp.db.traceStatements { seen.append($0) }
        try temp.db.execute("CREATE TABLE r15raw_scratch(x); INSERT INTO r15raw_scratch VALUES (1); DROP TABLE r15raw_scratch")
        _ = trace
        #expect(!seen.contains { $0.contains("r15raw_person") }, "\(seen)")
        try temp.db.save(ada)
        #expect(try temp.db.value(Int.self, "SELECT score FROM r15raw_person WHERE name = 'Ada'") == 10)
    }
}

// A migration outside a transaction that rebuilds statement by statement: each statement commits alone,
// but the migration's end, not the DROP's, is when its live instances follow (they read the rebuilt rows).
extension Review15RawSchemaTests {
    @Test func aMigrationOutsideATransactionRebuildingStepByStepLeavesInstancesWithTheRebuiltRows() throws {
        let temp = try TemporaryDatabase()
        let (ada, bob) = try adaAndBob(temp.db)
        var migrator = Migrator()
        migrator.register("0001_rebuild", inTransaction: false) { db in
            for statement in Self.rebuild.split(separator: ";") { try db.execute(String(statement)) }
        }
        try migrator.migrate(temp.db)
        #expect(!ada.isDeleted && ada.score == 6)
        #expect(bob.isDeleted)
    }
}

// A table keyed by text: a raw rebuild that does not copy the rowids renumbers the rows; the follow
// re-registers each instance under its row's new rowid, so a later raw UPDATE reaches the right one.
private final class R15RawTag: Model {
    static let tableName = "r15raw_tag"
    static let primaryKey = "code"
    var code = ""
    var n = 0
    required init() {}
}

extension Review15RawSchemaTests {
    @Test func aRawRebuildThatRenumbersRowIDsOfATextKeyedTableKeepsRawUpdatesOnTheRightInstance() throws {
        let temp = try TemporaryDatabase()
        let a = R15RawTag(); a.code = "a"; a.n = 1
        let b = R15RawTag(); b.code = "b"; b.n = 2
        try temp.db.save(a); try temp.db.save(b)
        try temp.db.execute("""
            CREATE TABLE r15raw_tag_new(code TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0);
            INSERT INTO r15raw_tag_new(code, n) SELECT code, n FROM r15raw_tag ORDER BY code DESC;
            DROP TABLE r15raw_tag;
            ALTER TABLE r15raw_tag_new RENAME TO r15raw_tag
            """)
        #expect(try temp.db.value(Int.self, "SELECT rowid FROM r15raw_tag WHERE code = 'b'") == 1)
        try temp.db.execute("UPDATE r15raw_tag SET n = 20 WHERE code = 'b'")
        #expect(b.n == 20)
        #expect(a.n == 1 && !a.hasChanges)
        try temp.db.execute("DELETE FROM r15raw_tag WHERE code = 'a'")
        #expect(a.isDeleted && !b.isDeleted)
    }
}

private final class R15RawNote: Model {
    static let tableName = "r15raw_note"
    var id: Int64 = 0
    var text = ""
    required init() {}
}

extension Review15RawSchemaTests {
    /// Another model saved half way through a raw rebuild (its table dropped, the new one not yet renamed
    /// into place): the rebuilt model's table must not be made again under the rebuild.
    @Test func anotherModelSavedHalfWayThroughARawRebuildDoesNotRecreateTheDroppedTable() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        try temp.db.save(R15RawNote())
        let steps = Self.rebuild.split(separator: ";").map(String.init)
        try temp.db.transaction {
            for step in steps.prefix(3) { try temp.db.execute(step) }
            let note = R15RawNote(); note.text = "half way"
            try temp.db.save(note)
            try temp.db.execute(steps[3])
        }
        #expect(ada.score == 6)
        #expect(try temp.db.count(R15RawNote.self) == 2)
        #expect(try temp.db.column(String.self, "SELECT name || ':' || score || ':' || extra FROM r15raw_person") == ["Ada:6:e"])
    }
}

extension Review15RawSchemaTests {
    /// Another connection dropped the table; this handle's next transaction saves another model: the
    /// table is not made again inside it, and on the model's next use it is, and the instances are deleted.
    @Test func anotherConnectionsDropSeenInATransactionMarksTheInstancesDeleted() throws {
        let temp = try TemporaryDatabase()
        let (ada, _) = try adaAndBob(temp.db)
        try temp.db.save(R15RawNote())
        let other = try Database(path: temp.path)
        try other.execute("DROP TABLE r15raw_person")
        try other.close()
        try temp.db.transaction { try temp.db.save(R15RawNote()) }
        #expect(try temp.db.objects(R15RawPerson.self).isEmpty)
        #expect(ada.isDeleted)
        #expect(try temp.db.count(R15RawNote.self) == 2)
    }
}
