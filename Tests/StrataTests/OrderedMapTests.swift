import Testing

@testable import Strata

/// The order a context saves in: keys as first inserted, a removed key gone from the order, a
/// re-inserted one last; `OrderedKeys` adds each key once.
@Suite struct OrderedMapTests {
    @Test func keysKeepTheirFirstInsertionOrder() {
        var map = OrderedMap<String, Int>()
        for (key, value) in [("b", 1), ("a", 2), ("c", 3)] { map[key] = value }
        map["a"] = 20
        #expect(map.keys == ["b", "a", "c"], "an update keeps the key's place")
        map["b"] = nil
        map["b"] = 10
        #expect(map.keys == ["a", "c", "b"], "a re-inserted key goes last")
        map.removeAll { $0 == "c" }
        #expect(map.entries.map(\.key) == ["a", "b"] && map.entries.map(\.value) == [20, 10])
        map.removeAll()
        #expect(map.isEmpty && map.keys.isEmpty)
    }

    @Test func orderedKeysHoldEachKeyOnceInOrder() {
        var keys = OrderedKeys<Int>()
        for key in [3, 1, 3, 2, 1] { keys.append(key) }
        #expect(Array(keys) == [3, 1, 2])
        keys.keep { $0 != 1 }
        keys.append(1)
        #expect(Array(keys) == [3, 2, 1])
    }
}
