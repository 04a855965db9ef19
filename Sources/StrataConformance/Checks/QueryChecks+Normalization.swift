import Foundation
import Strata

/// Text is stored in NFC, and a constant that is not is compared as its NFC form: `==` and `<`
/// with `"e\u{301}"` match what `"é"` matches, as lists, ranges and text needles already do.
extension QueryChecks {
    static let normalization: [ConformanceCheck] = [
        ConformanceCheck(.queries, "equalityWithADecomposedConstantMatchesTheStoredNFCText") { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Person.self).insert(Person(name: "Caf\u{E9}"))
            try expectEqual(try await people(store, \.name == "Cafe\u{301}"), ["Caf\u{E9}"])
            try expectEqual(
                try await store.repository(Person.self).count(where: \.name != "Cafe\u{301}"),
                try await store.repository(Person.self).count(where: \.name != "Caf\u{E9}"))
        },
        ConformanceCheck(.queries, "orderingWithADecomposedConstantIsTheNFCOrdering") { c in
            let (store, _) = try await c.seeded()
            for name in ["Cafa", "Caf\u{E9}", "Cafz", "Cag"] {
                try await store.repository(Person.self).insert(Person(name: name))
            }
            let below = try await people(store, \.name < "Cafe\u{301}")
            try expectEqual(below, try await people(store, \.name < "Caf\u{E9}"))
            try expect(below.contains("Cafa") && !below.contains("Caf\u{E9}"), "Cafa sorts below Café: \(below)")
            try expectEqual(
                try await people(store, \.name >= "Cafe\u{301}"), try await people(store, \.name >= "Caf\u{E9}"))
        },
    ]
}
