import Foundation
import Testing
@testable import Strata

final class ReflectionOddities: Model {
    var id: Int64 = 0
    let constant = 7
    weak var friend: ReflectionOddities?
    unowned var owner: ModelObject? = nil
    var text = ""
    required init() {}
}

@Suite struct FieldReflectionTests {
    /// The runtime path is in use here, and the standard library's SPI (the fallback when a toolchain stops
    /// exporting the runtime's names) finds the same fields, at the same offsets, of the same types, for
    /// every value type Strata stores.
    @Test(arguments: [EveryType.self, ReflectionOddities.self, PoolCounter.self, ObservedNote.self, KPPerson.self] as [AnyClass])
    func bothPathsFindTheSameFields(type: AnyClass) {
        #expect(FieldReflection.path == .runtime)
        let runtime = FieldReflection.fields(of: type, using: .runtime)
        let fallback = FieldReflection.fields(of: type, using: .standardLibrary)
        #expect(!runtime.isEmpty)
        #expect(runtime.map(\.name) == fallback.map(\.name))
        #expect(runtime.map(\.offset) == fallback.map(\.offset))
        #expect(runtime.map { ObjectIdentifier($0.type) } == fallback.map { ObjectIdentifier($0.type) })
        #expect(fallback.allSatisfy { $0.isVar && $0.isStrong })
    }

    @Test func onlyTheRuntimePathTellsLetAndWeakApart() {
        let fields = FieldReflection.fields(of: ReflectionOddities.self, using: .runtime)
        let byName = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0) })
        #expect(byName["constant"]?.isVar == false)
        #expect(byName["friend"]?.isStrong == false)
        #expect(byName["owner"]?.isStrong == false)
        #expect(byName["text"]?.isVar == true && byName["text"]?.isStrong == true)
    }
}
