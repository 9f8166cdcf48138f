import Foundation
import StrataTestSupport
import Testing
@testable import Strata

private final class Meter: Model {
    var id: Int64 = 0
    var level = 0
    var reading = 0.0
    required init() {}
}

private final class Label: Model {
    var id: Int64 = 0
    var level = 0
    var caption: String?
    required init() {}
}

/// The bytes an instance takes, which the Benchmarks' heap figures measure: each field Strata adds to a
/// model is sized here, so that growing one is a decision, not an accident.
@Suite struct InstanceLayoutTests {
    @Test func aReferenceIsItsKeyAMarkAndOnePointer() {
        // One pointer for the held object, strong or weak (a weak hold is a box): not a weak and a strong field.
        #expect(MemoryLayout<HeldTarget?>.size == 8)
        // The key (17 bytes), `onDelete` in its padding, the missing mark, the held object.
        #expect(MemoryLayout<ReferenceState>.size == 40)
        #expect(MemoryLayout<Reference<Department>>.size == 40)
        #expect(MemoryLayout<Reference<Department>>.offset(of: \Reference<Department>.state) == 0)
    }

    @Test func theDeclaredOnDeleteIsStillReadFromTheWrapper() throws {
        final class Track: Model {
            var id: Int64 = 0
            @Reference(onDelete: .cascade) var album: Department?
            @Reference var producer: Department?
            required init() {}
        }
        let track = Track()
        let fields = try ModelMetadata.of(Track.self).relationshipFields
        #expect(fields.map { $0.declaredOnDelete(of: track) } == [.cascade, nil])
    }

    @Test func aModelOfPlainNumbersHasNoNullBitsInItsSnapshot() throws {
        let temp = try TestDatabase()
        let db = temp.db
        let meter = Meter(); meter.level = 3; meter.reading = 0.5
        try db.save(meter)
        let label = Label(); label.level = 1
        try db.save(label)
        let meters = try #require(db.models.registries[ObjectIdentifier(Meter.self)])
        let labels = try #require(db.models.registries[ObjectIdentifier(Label.self)])
        // Three words per meter (id, level, reading): never NULL, so no NULL-bit word.
        #expect((meters.snapshots.count, meters.snapshots.stride, meters.snapshots.nullable) == (3, 3, false))
        #expect((labels.snapshots.count, labels.snapshots.stride, labels.snapshots.nullable) == (3, 4, true))
        // Dirty tracking still sees every change, and an unchanged save writes nothing.
        meter.reading = 0.75
        #expect(meter.changedProperties == ["reading"])
        try db.save(meter)
        #expect(!meter.hasChanges)
        #expect(try db.value(Double.self, "SELECT reading FROM \"Meter\" WHERE id = ?", [meter.id]) == 0.75)
        label.caption = "a"
        #expect(label.changedProperties == ["caption"])
    }

    @Test func aNullWordInAStoreWithoutNullBitsIsKeptAside() {
        var store = SnapshotStore(count: 2, nullable: false)
        defer { store.deallocate() }
        let slot = store.allocate()
        store.set(slot, 0, SnapshotWord(integer: 0))
        store.set(slot, 1, .null)
        // NULL is not the integer 0, although both words have bits 0.
        #expect(store.word(slot, 0).matches(SnapshotWord(integer: 0)))
        #expect(!store.word(slot, 1).matches(SnapshotWord(integer: 0)))
        #expect(store.word(slot, 1).isNull)
        store.set(slot, 1, SnapshotWord(integer: 0))
        #expect(store.word(slot, 1).matches(SnapshotWord(integer: 0)))
        store.set(slot, 1, .unknown)
        #expect(!store.word(slot, 1).matches(.unknown))
        // A freed slot given out again starts with no NULL kept for it.
        store.release(slot)
        let again = store.allocate()
        #expect(again == slot)
        store.set(again, 1, SnapshotWord(integer: 1))
        #expect(!store.word(again, 0).isNull && !store.word(again, 1).isNull)
    }

    /// The weak box of each member's team, read in place.
    private func boxes(_ members: [RMember]) throws -> [WeakTarget?] {
        let field = try #require(ModelMetadata.of(RMember.self).relationshipFields.first as? ReferenceIO<RTeam>)
        return members.map { member in
            if case .weak(let box)? = field.state(member).pointee.holder { return box }
            return nil
        }
    }

    @Test func childrenThatHoldTheirParentWeaklyShareOneBox() throws {
        let temp = try TestDatabase()
        let db = temp.db
        let teamIDs: [Int64] = try {
            let teams = (1...2).map { n in let t = RTeam(); t.name = "team \(n)"; return t }
            try db.save(teams)
            for n in 1...6 {
                let m = RMember(); m.name = "m\(n)"; m.team = teams[n % 2]
                try db.save(m)
            }
            return teams.map(\.id)
        }()
        let fetched = try db.objects(RTeam.self, where: "ORDER BY id")
        try db.prefetch("members", of: fetched)
        // Each team's array holds its members; they hold the team weakly (no cycle), through one box per team.
        for team in fetched {
            let members = team.members
            #expect(members.count == 3 && members.allSatisfy { $0.team === team })
            let boxes = try boxes(members)
            #expect(boxes.allSatisfy { $0 != nil && $0 === boxes[0] })
        }
        #expect(try boxes(fetched[0].members)[0] !== boxes(fetched[1].members)[0])
        #expect(fetched.map(\.id) == teamIDs)
        // The weak holds let the teams go: nothing else holds them.
        weak let first = fetched.first
        let members = fetched[0].members
        _ = consume fetched
        #expect(first == nil)
        #expect(members.allSatisfy { $0.$team.key == .integer(teamIDs[0]) })
    }
}
