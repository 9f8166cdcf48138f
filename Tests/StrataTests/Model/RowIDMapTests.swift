import Testing
@testable import Strata

@Suite struct RowIDMapTests {
    /// Inserts, looks up and removes keys against a Dictionary model, through growth and backward-shift
    /// deletion, with keys chosen to collide (multiples of a large power of two) and sequential ones.
    @Test(arguments: [1, 1 << 40, 7])
    func behavesLikeADictionary(stride: Int64) throws {
        var map = RowIDMap()
        var model: [Int64: Unmanaged<ModelObject>] = [:]
        let objects = (0..<64).map { _ in ModelObject() }
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let key = Int64.random(in: 0..<2_000, using: &generator) * stride
            let value = Unmanaged.passUnretained(objects[step % objects.count])
            if Bool.random(using: &generator) {
                map.insert(value, for: key)
                model[key] = value
            } else {
                map.remove(key)
                model[key] = nil
            }
            if step % 97 == 0 {
                #expect(map.count == model.count)
                for probe in 0..<2_000 {
                    let k = Int64(probe) * stride
                    #expect(map[k]?.toOpaque() == model[k]?.toOpaque())
                }
            }
        }
        #expect(map.allValues.count == model.count)
        withExtendedLifetime(objects) {}
    }
}
