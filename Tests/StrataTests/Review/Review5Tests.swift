import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Second reader's tests of 33cd6ad: `save(_:)` takes its registry unretained (`unretainedRegistry`,
// `ModelContext.lastRegistry`) and `updatePlainWords` its UPDATE statement (`TableMapping.lastUpdate`).
// Each test replaces registries, mappings or the connection around or inside a save; run under ASan.

/// Plain words (8-byte numbers, rowid key): saves take `updatePlainWords`.
private final class R5Counter: Model {
    var id: Int64 = 0
    var a: Int64 = 0
    var b: Double = 0
    required init() {}
}

private final class R5Other: Model {
    var id: Int64 = 0
    var n: Int64 = 0
    required init() {}
}

private final class R5Late: Model {
    var id: Int64 = 0
    var n: Int64 = 0
    required init() {}
}

private final class R5Holder { var db: Database? }

/// A trace observer that, against its documented contract, syncs `R5Counter` while SQLite runs each UPDATE.
private func syncingDuringEachUpdate(_ db: Database) -> StatementTrace {
    var inside = false
    return db.traceStatements { sql in
        guard sql.hasPrefix("UPDATE"), !inside else { return }
        inside = true
        defer { inside = false }
        _ = try? db.syncSchema(R5Counter.self)
    }
}

private func stored(_ db: Database, _ counter: R5Counter) throws -> (Int64?, Double?) {
    (try db.value(Int64.self, "SELECT a FROM R5Counter WHERE id = ?", arguments: [counter.id]),
     try db.value(Double.self, "SELECT b FROM R5Counter WHERE id = ?", arguments: [counter.id]))
}

@Suite struct Review5Tests {
    /// Inside one transaction: saves on the hot path, with raw ALTERs (resync: the registry's mapping
    /// replaced, the old one and its `updates` freed), `syncSchema` of the same type (mapping replaced
    /// again) and of types new to the handle (`registries` grows: `lastRegistry` cleared) in between.
    @Test func hotPathAcrossMappingReplacementsInOneTransaction() throws {
        let db = try Database()
        let counter = R5Counter()
        try db.save(counter)
        try db.transaction {
            for i in 0..<60 {
                if i % 2 == 0 { counter.a = Int64(i) } else { counter.b = Double(i) }
                if i % 3 == 0 { counter.a += 1000; counter.b += 0.5 }
                try db.save(counter)
                switch i % 10 {
                case 3: try db.execute("ALTER TABLE R5Counter ADD COLUMN extra\(i) INTEGER")
                case 5: try db.syncSchema(R5Counter.self)
                case 7 where i == 7: try db.syncSchema(R5Other.self)
                case 8 where i == 18: try db.save(R5Late())
                default: break
                }
                #expect(try stored(db, counter) == (counter.a, counter.b))
            }
        }
        #expect(try stored(db, counter) == (counter.a, counter.b))
    }

    /// Observers run after each save's commit, inside `save(_:)` (under `_withUnsafeGuaranteedRef`): they
    /// replace the mapping, register new types and ALTER the table; the saves keep writing correctly.
    @Test func observerReplacesMappingsAndRegistriesDuringSaves() throws {
        let db = try Database()
        let counter = R5Counter()
        try db.save(counter)
        var round = 0
        let observation = db.observeChanges { _ in
            round += 1
            _ = try? db.syncSchema(R5Counter.self)
            if round == 2 { _ = try? db.syncSchema(R5Other.self) }
            if round == 3 { try? db.save(R5Late()) }
            if round % 4 == 0 { try? db.execute("ALTER TABLE R5Counter ADD COLUMN obs\(round) INTEGER") }
        }
        defer { observation.cancel() }
        for i in 0..<20 {
            counter.a = Int64(i)
            if i % 2 == 1 { counter.b = Double(i) }
            try db.save(counter)
            #expect(try stored(db, counter) == (counter.a, counter.b))
        }
        let more = (0..<3).map { _ in R5Counter() }
        try db.save(more)
        for (i, c) in more.enumerated() { c.a = Int64(i + 7) }
        try db.save(more)
        for c in more { #expect(try stored(db, c).0 == c.a) }
    }

    /// An observer closes the handle inside a save: the save ends, later calls throw, nothing dangles.
    @Test func observerClosesHandleDuringSave() throws {
        let db = try Database()
        let counter = R5Counter()
        try db.save(counter)
        try db.transaction { counter.a = 1; try db.save(counter) }   // `lastRegistry`, `lastUpdate` set
        let observation = db.observeChanges { _ in try? db.close() }
        defer { observation.cancel() }
        counter.a = 2
        _ = try? db.save(counter)
        counter.a = 3
        #expect(throws: (any Error).self) { try db.save(counter) }
        #expect(throws: (any Error).self) { try db.save([counter]) }
    }

    /// An observer releases the last outside reference to the handle inside a save.
    @Test func observerReleasesHandleDuringSave() throws {
        let holder = R5Holder()
        holder.db = try Database()
        let counter = R5Counter()
        try holder.db!.save(counter)
        let observation = holder.db!.observeChanges { [unowned holder] _ in holder.db = nil }
        counter.a = 5
        try holder.db!.save(counter)
        #expect(holder.db == nil)
        observation.cancel()
    }

    /// A trace observer (documented: must not use the database) replaces the mapping while SQLite finishes
    /// the UPDATE the hot path took unretained: the connection's statement cache still holds it.
    @Test func traceObserverReplacesMappingDuringUpdateStep() throws {
        let db = try Database()
        let counter = R5Counter()
        try db.save(counter)
        let trace = syncingDuringEachUpdate(db)
        defer { trace.cancel() }
        try db.transaction {
            for i in 0..<10 {
                counter.a = Int64(i)
                try db.save(counter)
            }
        }
        #expect(try stored(db, counter).0 == 9)
    }

    /// As above while statements are prepared fresh (`recordingReads`, a pool observation's fetch): the
    /// mapping's `updates` is then the only holder of the UPDATE statement, and the mapping replaced during
    /// the step frees it: a release build with ASan reports a heap-use-after-free in `statement.reset()`
    /// (updatePlainWords' defer). Reachable only against the documented contract (a trace observer that
    /// uses the database, and a save inside a read-only observation fetch); the registry now keeps the
    /// mapping it replaced last, so one sync during a step frees nothing (a release build with ASan shows it).
    @Test func traceObserverReplacesMappingDuringUpdateStepPreparingFresh() throws {
        let db = try Database()
        let counter = R5Counter()
        try db.save(counter)
        let trace = syncingDuringEachUpdate(db)
        defer { trace.cancel() }
        let registry = try db.registry(for: R5Counter.self)
        #expect(registry.updatesPlainWords)
        var replaced = 0
        _ = try db.recordingReads {
            try db.transaction {
                for i in 0..<10 {
                    counter.a = Int64(i)
                    let before = ObjectIdentifier(registry.table)
                    try db.save(counter)
                    if ObjectIdentifier(registry.table) != before { replaced += 1 }
                }
            }
        }
        #expect(replaced == 9)   // each save but the first (a = 0 already) synced during its UPDATE
        #expect(try stored(db, counter).0 == 9)
    }
}
