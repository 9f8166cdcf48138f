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
                let count = map.count
                #expect(count == model.count)
                for probe in 0..<2_000 {
                    let k = Int64(probe) * stride
                    let found = map[k]?.toOpaque()
                    #expect(found == model[k]?.toOpaque())
                }
            }
        }
        let values = map.allValues
        #expect(values.count == model.count)
        // A power-of-two stride clusters under the low-bits placement and switches the map to the
        // scattering hash (random keys may too, by chance).
        let scrambled = map.scrambled
        if stride == 1 << 40 { #expect(scrambled) }
        withExtendedLifetime(objects) {}
    }

    /// Sequential rowids, as a fetch in rowid order registers them, keep the low-bits placement.
    @Test func sequentialRowIDsStayInPlace() {
        var map = RowIDMap()
        let object = ModelObject()
        for key in 1...100_000 as ClosedRange<Int64> {
            let (_, slot) = map.find(key)
            map.insert(Unmanaged.passUnretained(object), for: key, at: slot)
        }
        let (scrambled, count) = (map.scrambled, map.count)
        #expect(!scrambled)
        #expect(count == 100_000)
        // Every entry is home, so each removal stops at the next slot (it used to shift the whole run:
        // quadratic, and this loop never ended).
        for key in 1...100_000 as ClosedRange<Int64> { map.remove(key, ifValue: Unmanaged.passUnretained(object).toOpaque()) }
        let (emptied, stillThere) = (map.count, map[50_000])
        #expect(emptied == 0)
        #expect(stillThere == nil)
        withExtendedLifetime(object) {}
    }

    /// The fetch path (find, then insert at the slot found) switches too, and finds every key after.
    @Test func theFindThenInsertPathScattersClusteredKeys() {
        var map = RowIDMap()
        let object = ModelObject()
        let value = Unmanaged.passUnretained(object)
        let keys = (1...5_000).map { Int64($0) << 20 }
        for key in keys {
            let (found, slot) = map.find(key)
            #expect(found == nil)
            map.insert(value, for: key, at: slot)
        }
        let (scrambled, count) = (map.scrambled, map.count)
        #expect(scrambled)
        #expect(count == keys.count)
        let allFound = keys.allSatisfy { map[$0] != nil }
        #expect(allFound)
        for key in keys { map.remove(key, ifValue: value.toOpaque()) }
        let remaining = map.count
        #expect(remaining == 0)
        withExtendedLifetime(object) {}
    }
}
