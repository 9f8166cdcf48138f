import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// A transaction block that rolls back after one of its saves failed: the instances it tried to save read
// their rows again, so a retried block applies its changes once (the cause of the flaky
// `AuditWriteTests.deferredTransactionsNeverLoseAnIncrementSilently`: a deferred block's save met another
// handle's write lock, failed at once with SQLITE_BUSY, and the instance kept its increment, which the next
// block incremented again). Edits the block did not try to save, and saves of their own, keep their changes.

@Suite struct RolledBackBlockTests {
    /// A handle with one note whose text is "0", and a second handle on the same file.
    private func noteAndTwoHandles() throws -> (TestDatabase, Database, SyncedNote) {
        let temp = try TestDatabase()
        let seed = SyncedNote(); seed.slug = "c"; seed.text = "0"
        try temp.db.save(seed)
        let other = try temp.openAnother()
        let note = try #require(try temp.db.object(SyncedNote.self, forKey: 1))
        return (temp, other, note)
    }

    // PostgreSQL: the test's SQL is SQLite's dialect (AUTOINCREMENT, WITHOUT ROWID, PRAGMA, BEGIN IMMEDIATE, trigger bodies, untyped columns)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: SQLite's SQL dialect in the test")) func aDeferredBlockWhoseSaveMetTheWriteLockGivesTheInstanceItsRowAgain() throws {
        let (temp, other, note) = try noteAndTwoHandles()
        let db = temp.db
        try other.execute("BEGIN IMMEDIATE")   // another connection holds the write lock
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction(.deferred) {
                _ = try db.objects(SyncedNote.self)   // the block reads first: it keeps that snapshot
                note.text = String((Int(note.text) ?? 0) + 1)
                try db.save(note)                     // SQLITE_BUSY at once (a reader cannot wait for the lock)
            }
        }
        #expect(error?.code.primary == .busy)
        #expect(note.text == "0" && !note.hasChanges)
        try other.execute("ROLLBACK")
        // The retried block increments the stored value once.
        try db.transaction(.deferred) {
            note.text = String((Int(note.text) ?? 0) + 1)
            try db.save(note)
        }
        #expect(try db.value(String.self, "SELECT text FROM \"SyncedNote\" WHERE id = 1") == "1")
        #expect(note.text == "1" && !note.hasChanges)
    }

    @Test func aBlockWhoseSaveBrokeAUniqueIndexUndoesTheEditsOfThatInstanceOnly() throws {
        let (temp, _, note) = try noteAndTwoHandles()
        let db = temp.db
        let second = SyncedNote(); second.slug = "d"; second.text = "9"
        try db.save(second)
        let bystander = try #require(try db.object(SyncedNote.self, forKey: 2))
        bystander.text = "edited before the block"   // unsaved, and the block never saves it
        #expect(throws: ModelError.self) {
            try db.transaction {
                note.text = "1"
                note.slug = "d"                       // the other row's slug: a UNIQUE violation
                try db.save(note)
            }
        }
        #expect(note.text == "0" && note.slug == "c" && !note.hasChanges)
        #expect(bystander.text == "edited before the block" && bystander.changedProperties == ["text"])
        #expect(try db.rows("SELECT slug, text FROM \"SyncedNote\" ORDER BY id").map { [$0[0], $0[1]] }
                == [[.text("c"), .text("0")], [.text("d"), .text("9")]])
    }

    /// A batch of its own that fails after some of its UPDATEs ran keeps every instance's edits (those the
    /// rolled-back transaction had written too), and the next save writes them.
    @Test func aBatchOfItsOwnThatFailsKeepsEveryEditAndTheNextSaveWritesThem() throws {
        let temp = try TestDatabase()
        let db = temp.db
        let a = SyncedNote(); a.slug = "a"; a.text = "0"
        let b = SyncedNote(); b.slug = "b"; b.text = "0"
        try db.save([a, b])
        a.text = "1"   // written first, then rolled back
        b.slug = "a"   // a's slug: a UNIQUE violation
        #expect(throws: ModelError.self) { try db.save([a, b]) }
        #expect(a.text == "1" && a.changedProperties == ["text"])
        #expect(b.slug == "a" && b.changedProperties == ["slug"])
        #expect(try db.rows("SELECT slug, text FROM \"SyncedNote\" ORDER BY id").map { [$0[0], $0[1]] }
                == [[.text("a"), .text("0")], [.text("b"), .text("0")]])
        b.slug = "b2"
        try db.save([a, b])
        #expect(try db.rows("SELECT slug, text FROM \"SyncedNote\" ORDER BY id").map { [$0[0], $0[1]] }
                == [[.text("a"), .text("1")], [.text("b2"), .text("0")]])
        #expect(!a.hasChanges && !b.hasChanges)
    }

    @Test func aSaveOfItsOwnThatFailsKeepsTheEdits() throws {
        let (temp, other, note) = try noteAndTwoHandles()
        let db = temp.db
        let second = SyncedNote(); second.slug = "d"
        try other.save(second)
        note.text = "1"; note.slug = "d"
        #expect(throws: ModelError.self) { try db.save(note) }
        #expect(note.text == "1" && note.slug == "d" && Set(note.changedProperties) == ["slug", "text"])
        note.slug = "c"
        try db.save(note)
        #expect(try db.value(String.self, "SELECT text FROM \"SyncedNote\" WHERE id = 1") == "1")
    }

    @Test func aFailedBatchInABlockUndoesTheEditsOfEveryInstanceInIt() throws {
        let (temp, _, note) = try noteAndTwoHandles()
        let db = temp.db
        let second = SyncedNote(); second.slug = "d"; second.text = "9"
        try db.save(second)
        #expect(throws: ModelError.self) {
            try db.transaction {
                note.text = "1"
                second.text = "10"; second.slug = "c"   // note's slug: the batch fails at the second save
                try db.save([note, second])
            }
        }
        #expect(note.text == "0" && !note.hasChanges)
        #expect(second.text == "9" && second.slug == "d" && !second.hasChanges)
    }

    @Test func aSavepointThatFailedAndWasCaughtIsUndoneByItsOwnBlockNotBySiblings() throws {
        let (temp, _, note) = try noteAndTwoHandles()
        let db = temp.db
        let second = SyncedNote(); second.slug = "d"
        try db.save(second)
        #expect(throws: CancellationError.self) {
            try db.transaction {
                // A savepoint that fails and whose error the outer block swallows: the edit stays unsaved.
                try? db.transaction { note.text = "1"; note.slug = "d"; try db.save(note) }
                #expect(note.text == "0" && note.slug == "c")
                note.text = "2"
                // A sibling savepoint that rolls back leaves the outer block's unsaved edit alone.
                try? db.transaction { second.text = "x"; try db.save(second); throw CancellationError() }
                #expect(note.text == "2" && second.text == "")
                throw CancellationError()
            }
        }
        // The outer block never tried to save note after the savepoint: its edit stays unsaved.
        #expect(note.text == "2" && note.changedProperties == ["text"])
    }

    @Test func aPoolWriteWhoseSaveFailedGivesTheInstanceItsRowAgain() async throws {
        let temp = try TestDatabase()
        let seed = SyncedNote(); seed.slug = "c"; seed.text = "0"
        try temp.db.save(seed)
        let other = SyncedNote(); other.slug = "d"
        try temp.db.save(other)
        let pool = try temp.pool(readers: 1)
        let held = HeldNote()   // keeps the writer's live instance between the two writes
        await #expect(throws: ModelError.self) {
            try await pool.write { db in
                let note = try #require(try db.object(SyncedNote.self, forKey: 1))
                held.note = note
                note.text = "1"; note.slug = "d"
                try db.save(note)
            }
        }
        let seen = try await pool.write { db in
            let note = try #require(try db.object(SyncedNote.self, forKey: 1))
            return [note === held.note ? "same" : "other", note.text, note.slug, note.hasChanges ? "changed" : "clean"]
        }
        #expect(seen == ["same", "0", "c", "clean"])
    }
}

/// Holds a live instance of a pool's writer across writes (only touched inside them, one at a time).
private final class HeldNote: @unchecked Sendable {
    var note: SyncedNote?
}
