import Foundation
import StrataTestSupport
import Testing
@testable import Strata

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
}
