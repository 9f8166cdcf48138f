import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Issue 37, insert round 3: a new instance of a model of 8-byte numbers whose key SQLite assigns, saved
// inside a transaction, takes a path of its own (Database+PlainInsert.swift). These tests hold it to what
// the general insert does: the bytes stored, the live instance, all or nothing, observers and live arrays.

private final class I3Word: Model {
    static let tableName = "i3_word"
    var id: Int64 = 0
    var a: Int64 = 0
    var b = 0.0
    var c = 0
    required init() {}
}

private final class I3Checked: Model {
    static let tableName = "i3_checked"
    var id: Int64 = 0
    var a: Int64 = 0
    var b: Int64 = 0
    required init() {}
}

private final class I3Team: Model {
    static let tableName = "i3_team"
    var id: Int64 = 0
    var name = ""
    @Children(by: "team") var members: [I3Member]
    required init() {}
}

private final class I3Member: Model {
    static let tableName = "i3_member"
    var id: Int64 = 0
    var team: Int64 = 0
    var score: Int64 = 0
    required init() {}
}

/// Each column of a row as `typeof()` and its SQL literal: what another tool reads back.
private func storedRow(_ db: Database, _ table: String, id: Int64) throws -> [String] {
    try db.column(String.self, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table).map { column in
        let t = try db.value(String.self, "SELECT typeof(\"\(column)\") FROM \"\(table)\" WHERE id = ?", id) ?? "?"
        let v = try db.value(String.self, "SELECT quote(\"\(column)\") FROM \"\(table)\" WHERE id = ?", id) ?? "?"
        return "\(column)=\(t)/\(v)"
    }
}

private func word(_ a: Int64, _ b: Double, _ c: Int) -> I3Word {
    let word = I3Word()
    word.a = a; word.b = b; word.c = c
    return word
}

@Suite struct InsertPath3Tests {
    @Test func eachFieldIsStoredInItsColumnNativelyAndTheKeyIsTheRowid() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let words = [word(Int64.min, 2.5, -1), word(Int64.max, -1e300, 0), word(-7, 0.1, Int.max)]
        try db.transaction { for w in words { try db.save(w) } }
        #expect(words.map(\.id) == [1, 2, 3])
        #expect(try storedRow(db, "i3_word", id: 1) == ["id=integer/1", "a=integer/-9223372036854775808", "b=real/2.5", "c=integer/-1"])
        #expect(try storedRow(db, "i3_word", id: 2) == ["id=integer/2", "a=integer/9223372036854775807", "b=real/-1.0e+300", "c=integer/0"])
        #expect(try storedRow(db, "i3_word", id: 3) == ["id=integer/3", "a=integer/-7", "b=real/0.1", "c=integer/9223372036854775807"])
        // The doubles' bits, not only their printed forms.
        #expect(try db.column(Double.self, "SELECT b FROM i3_word ORDER BY id") == [2.5, -1e300, 0.1])
        #expect(try db.value(Int64.self, "SELECT max(rowid) FROM i3_word") == 3)
    }

    @Test func aNaNIsRefusedNamingItsPropertyAndNothingIsWritten() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        _ = try db.syncSchema(I3Word.self)
        let good = word(1, 1.5, 1), bad = word(2, .nan, 2)
        #expect {
            try db.transaction { try db.save(good); try db.save(bad) }
        } throws: { error in
            let error = error as? ValueConversionError
            return error?.writing == true && "\(error!)".contains("\"b\"") && "\(error!)".contains("NaN cannot be stored")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM i3_word") == 0)
        #expect(good.id == 0 && !good.isPersisted && bad.id == 0 && !bad.isPersisted)
    }

    @Test func theInsertedInstanceIsTheLiveInstanceOfItsRowWithItsSnapshot() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let first = word(10, 1.0, 100), second = word(20, 2.0, 200)
        try db.transaction { try db.save(first); try db.save(second) }
        #expect(first.isPersisted && second.isPersisted)
        #expect(try db.object(I3Word.self, forKey: first.id) === first)
        #expect(try db.object(I3Word.self, forKey: second.id) === second)
        let all = try db.objects(I3Word.self, where: "1 ORDER BY id")
        #expect(all.count == 2 && all[0] === first && all[1] === second)
        // Its snapshot is what it wrote: nothing to save, and a change writes that column alone.
        #expect(!first.hasChanges && first.changedProperties.isEmpty)
        var sql: [String] = []
        let trace = db.traceStatements { sql.append($0) }
        try db.save(first)
        #expect(sql.isEmpty)
        first.b = 3.5
        try db.transaction { try db.save(first) }
        trace.cancel()
        #expect(sql.filter { $0.hasPrefix("UPDATE") } == ["UPDATE \"i3_word\" SET \"b\" = ? WHERE \"id\" = ?"])
        #expect(try storedRow(db, "i3_word", id: first.id) == ["id=integer/1", "a=integer/10", "b=real/3.5", "c=integer/100"])
    }

    @Test func aFailedInsertInABlockLeavesNothingAndEveryInstanceUnsaved() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE i3_checked (id INTEGER PRIMARY KEY, a INTEGER NOT NULL DEFAULT 0 CHECK (a >= 0), b INTEGER NOT NULL DEFAULT 0 UNIQUE)")
        func item(_ a: Int64, _ b: Int64) -> I3Checked { let item = I3Checked(); item.a = a; item.b = b; return item }
        let one = item(1, 1), two = item(2, 2), bad = item(-1, 3)
        #expect {
            try db.transaction { for i in [one, two, bad] { try db.save(i) } }
        } throws: { error in
            let error = error as? DatabaseError
            return error?.code.primary == .constraint && error?.message.contains("inserting a new I3Checked") == true
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM i3_checked") == 0)
        #expect([one, two, bad].map(\.id) == [0, 0, 0])
        #expect([one, two, bad].allSatisfy { !$0.isPersisted })
        // A duplicate of a UNIQUE column is a duplicateKey error, and the block leaves nothing either.
        let dup = item(5, 2)
        #expect {
            try db.transaction { try db.save(two); try db.save(dup) }
        } throws: { error in
            (error as? ModelError)?.kind == .duplicateKey
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM i3_checked") == 0)
        #expect(two.id == 0 && dup.id == 0 && !two.isPersisted)
        // Fixed, they all save, each once.
        bad.a = 3; dup.b = 4
        try db.transaction { for i in [one, two, bad, dup] { try db.save(i) } }
        #expect([one, two, bad, dup].map(\.id) == [1, 2, 3, 4])
        #expect(try db.column(String.self, "SELECT quote(a) || ',' || quote(b) FROM i3_checked ORDER BY id") == ["1,1", "2,2", "3,3", "5,4"])
        #expect(try db.object(I3Checked.self, forKey: 3) === bad)
    }

    @Test func aRolledBackSavepointMakesItsInsertsUnsavedAndKeepsTheOthers() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let kept = word(1, 1, 1), undone = word(2, 2, 2)
        try db.transaction {
            try db.save(kept)
            _ = try? db.transaction { () throws -> Void in
                try db.save(undone)
                #expect(undone.id == 2)
                throw CancellationError()
            }
        }
        #expect(kept.id == 1 && kept.isPersisted)
        #expect(undone.id == 0 && !undone.isPersisted)
        #expect(try db.column(Int64.self, "SELECT id FROM i3_word") == [1])
        try db.transaction { try db.save(undone) }
        let live = try db.object(I3Word.self, forKey: 2)
        #expect(undone.id == 2 && live === undone)
    }

    @Test func observersHearOfTheInsertsAndLoadedChildrenIncludeThem() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        var seen: [DatabaseChange] = []
        let observation = db.observeChanges { seen += $0 }
        defer { observation.cancel() }
        try db.transaction { for i in 0..<3 { try db.save(word(Int64(i), 0, 0)) } }
        #expect(seen.map(\.table) == ["i3_word"])
        #expect(seen.first?.insertedRowIDs == [1, 2, 3])
        // A plain number column a parent's @Children names: the parent's loaded array takes the new row.
        let team = I3Team(); team.name = "t"
        try db.save(team)
        #expect(team.members.isEmpty)
        let member = I3Member(); member.team = team.id; member.score = 9
        try db.transaction { try db.save(member) }
        #expect(team.members.map(\.score) == [9])
        #expect(team.members.first === member)
    }

    /// The per-row statements come from the cache `db.statement(_:)` serves: a caller's statement of the same
    /// text, stepped to its end and not reset, is the same statement, halted. The fast path resets it before
    /// binding (it did not: the binds failed unseen, and the step ran the caller's values, 7, 7.0, 7, while
    /// the instance held its own with no changes).
    @Test func aHaltedStatementOfTheSameTextDoesNotChangeWhatTheInsertWrites() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        var sqls: [String] = []
        let trace = db.traceStatements { sqls.append($0) }
        try db.transaction { try db.save(word(1, 1, 1)) }
        trace.cancel()
        let insertSQL = try #require(sqls.first { $0.hasPrefix("INSERT") })
        let user = try db.statement(insertSQL)
        try user.bind([Int64(7), 7.0, 7])
        #expect(try user.step() == false)   // done, and left so
        let w = word(2, 2.5, 2)
        try db.transaction { try db.save(w) }
        #expect(w.id == 3)
        #expect(try storedRow(db, "i3_word", id: w.id) == ["id=integer/3", "a=integer/2", "b=real/2.5", "c=integer/2"])
        #expect(try db.count(I3Word.self) == 3)
        #expect(!w.hasChanges)
    }

    /// A trigger made by raw SQL inside the transaction, after the mapping was read: the insert leaves the
    /// fast path (the mapping is read again) and the instance takes what the trigger wrote.
    @Test func aTriggerMadeInTheTransactionIsSeenByTheInsert() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.transaction { try db.save(word(1, 1, 1)) }
        let w = word(2, 2, 2)
        try db.transaction {
            try db.execute("CREATE TRIGGER i3_t AFTER INSERT ON i3_word BEGIN UPDATE i3_word SET c = 99 WHERE id = NEW.id; END")
            try db.save(w)
        }
        #expect(try storedRow(db, "i3_word", id: 2) == ["id=integer/2", "a=integer/2", "b=real/2.0", "c=integer/99"])
        #expect(w.c == 99)
        #expect(!w.hasChanges)
    }
}
