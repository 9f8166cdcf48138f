import StrataTestSupport
import Testing
@testable import Strata

/// `asModelObjects` (FieldAccess.swift): an array of models seen as `[ModelObject]` without a copy, as
/// prefetch does. Run with --sanitize=address.
@Suite struct PrefetchUpcastTests {
    @Test func theArrayHoldsTheSameObjectsAndCopiesOnWrite() {
        let teams = (0..<100).map { i in let t = RTeam(); t.name = "T\(i)"; return t }
        var seen = teams.asModelObjects
        #expect(seen.count == 100)
        #expect(zip(seen, teams).allSatisfy { $0 === $1 })
        // A write copies the shared storage: the array of teams never holds anything but teams.
        seen.append(RMember())
        seen[0] = RMember()
        #expect(teams.count == 100)
        #expect(teams.map(\.name) == (0..<100).map { "T\($0)" })
        #expect(seen.count == 101)
        #expect(seen[0] is RMember && seen[100] is RMember && seen[1] === teams[1])
    }

    @Test func elementsLiveAsLongAsEitherArrayHoldsThem() {
        weak var first: RTeam?
        var seen: [ModelObject] = []
        do {
            let teams = (0..<3).map { _ in RTeam() }
            first = teams[0]
            seen = teams.asModelObjects
        }
        #expect(first != nil)
        #expect(seen.count == 3)
        seen = []
        #expect(first == nil)
    }

    /// The way back, for arrays whose elements the caller knows to be of the model type.
    @Test func theDowncastArrayHoldsTheSameObjectsAndCopiesOnWrite() {
        let objects: [ModelObject] = (0..<50).map { i in let t = RTeam(); t.name = "T\(i)"; return t }
        var teams = objects.unsafelyDowncast(to: RTeam.self)
        #expect(teams.map(\.name) == (0..<50).map { "T\($0)" })
        #expect(zip(teams, objects).allSatisfy { $0 === $1 })
        let extra = RTeam(); extra.name = "extra"
        teams.append(extra)
        teams[0] = extra
        #expect(objects.count == 50 && objects[0] !== extra)
        #expect(teams.count == 51 && teams[0] === extra && teams[50] === extra)
        #expect(([] as [ModelObject]).unsafelyDowncast(to: RTeam.self).isEmpty)
    }

    /// Through @Children: every parent's array holds its children as the child type.
    @Test func prefetchedChildrenAreArraysOfTheChildType() throws {
        let file = try TestDatabase()
        let teams = (0..<3).map { i in let t = RTeam(); t.name = "T\(i)"; return t }
        try file.db.save(teams)
        for i in 0..<9 {
            let m = RMember(); m.name = "M\(i)"; m.team = teams[i % 3]
            try file.db.save(m)
        }
        let db = try file.reopen()
        let loaded = try db.objects(RTeam.self, where: "ORDER BY id", prefetching: ["members"])
        #expect(loaded.map { $0.members.map(\.name) } == [["M0", "M3", "M6"], ["M1", "M4", "M7"], ["M2", "M5", "M8"]])
        #expect(loaded.allSatisfy { team in team.members.allSatisfy { $0.team === team } })
    }

    @Test func anEmptyArrayStaysEmpty() {
        let none: [RTeam] = []
        #expect(none.asModelObjects.isEmpty)
    }
}
