import Dispatch
@testable import Strata
import Testing

/// Models first met by several threads at once (one generic class: each specialization is a type of its own).
private final class R20Fresh<Tag>: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

@Suite struct Review20MetadataCacheTests {
    /// Two threads that meet a type first both build its metadata; before the fix the second stored over the
    /// first, so one caller kept metadata no registry would ever be built from (registries compare metadata
    /// by identity), and `ModelDeclarationTests` saw two objects for one type in a loaded run.
    @Test func aTypeMetByManyThreadsAtOnceHasOneMetadata() throws {
        let types: [any Model.Type] = [R20Fresh<Int>.self, R20Fresh<Int8>.self, R20Fresh<Int16>.self, R20Fresh<Int32>.self,
                                       R20Fresh<UInt>.self, R20Fresh<UInt8>.self, R20Fresh<UInt16>.self, R20Fresh<UInt32>.self,
                                       R20Fresh<Double>.self, R20Fresh<Float>.self, R20Fresh<String>.self, R20Fresh<Bool>.self]
        for type in types {
            let seen = Locked<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                if let metadata = try? ModelMetadata.of(type) { seen.withLock { $0.append(ObjectIdentifier(metadata)) } }
            }
            let ids = seen.withLock { $0 }
            #expect(ids.count == 8)
            #expect(Set(ids).count == 1, "\(type): \(Set(ids).count) metadata objects")
            #expect(try ids.first == ObjectIdentifier(ModelMetadata.of(type)))
        }
    }
}
