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

    @Test func anEmptyArrayStaysEmpty() {
        let none: [RTeam] = []
        #expect(none.asModelObjects.isEmpty)
    }
}
