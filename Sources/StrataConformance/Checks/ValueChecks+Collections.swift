import Foundation
import Strata

/// Arrays, sets, dictionaries and documents: exact round trips across a reopen, canonical sets,
/// contains / contains-any / count and document paths with the same answers as the reference,
/// and what has no order or uniqueness refused with typed errors that leave the store as it was.
extension ValueChecks {
    static let collectionSamples: [Sample] = [
        Sample(
            id: "c1", tags: ["swift", "linux", "swift", "Émile"], scores: [0.1, 1e-05, -2.5, .infinity],
            labels: ["b", "a", "e\u{0301}"], counts: ["views": 3, "likes": 0],
            profile: SampleProfile(city: "Lisbon", floor: 2, contact: .init(email: "a@x.pt", verified: true))),
        Sample(
            id: "c2", tags: ["rust"], scores: [], labels: ["é", "z"], counts: [:],
            profile: SampleProfile(city: "Porto", contact: .init(email: "b@x.pt"))),
        Sample(
            id: "c3", tags: [], scores: [3, 0.1], labels: [], counts: ["views": 10],
            profile: SampleProfile(floor: 2)),
        Sample(id: "c4"),
    ]

    static let collections: [ConformanceCheck] = [
        ConformanceCheck(.values, "collectionsAndDocumentsRoundTripAcrossAReopen", requires: [.reopen]) { c in
            var store = try await c.store()
            try await store.repository(Sample.self).insert(contentsOf: collectionSamples)
            store = try await c.reopen(store)
            let stored = try await store.repository(Sample.self).fetch()
            for sample in collectionSamples {
                let read = try expectNotNil(stored.first { $0.id == sample.id }, sample.id)
                try expectEqual(read.tags, sample.tags.map { $0.map(ValueRules.nfc) }, "\(sample.id) tags keep order")
                try expectEqual(read.scores?.map(\.bitPattern), sample.scores?.map(\.bitPattern), "\(sample.id) scores")
                try expectEqual(read.counts, sample.counts, "\(sample.id) counts")
                try expectEqual(read.profile, sample.profile, "\(sample.id) profile")
            }
            let first = try expectNotNil(stored.first { $0.id == "c1" })
            try expectEqual(first.labels, ["a", "b", "é"], "a set is canonical: é composed once, no duplicates")
            try expectEqual(first.tags?.count, 4, "an array keeps its duplicates")
        },
        ConformanceCheck(.values, "collectionQueriesMatchTheReference") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await samples.insert(contentsOf: collectionSamples)
            func ids(_ filter: Filter<Sample>, _ expected: Set<String>, _ what: String) async throws {
                let found = try await samples.fetch(where: filter)
                try expectEqual(Set(found.map(\.id)), expected, what)
                try expectEqual(try await samples.count(where: filter), expected.count, "count of \(what)")
            }
            try await ids(.contains(\.tags, element: "swift"), ["c1"], "indexed tags contain swift")
            try await ids(.contains(\.tags, element: "E\u{0301}mile"), ["c1"], "NFC element")
            try await ids(!.contains(\.tags, element: "swift"), ["c2", "c3", "c4"], "negated: nil tags too")
            try await ids(.containsAny(\.tags, of: ["rust", "linux", "go"]), ["c1", "c2"], "contains any")
            try await ids(.containsAny(\.tags, of: []), [], "contains any of nothing")
            try await ids(.contains(\.scores, element: 0.1), ["c1", "c3"], "doubles compare exactly")
            try await ids(.contains(\.scores, element: 3), ["c3"], "3 is 3.0")
            try await ids(.contains(\.scores, element: .infinity), ["c1"], "infinity is an element")
            try await ids(.contains(\.labels, element: "é"), ["c1", "c2"], "set elements")
            try await ids(.contains(\.counts, element: "views"), ["c1", "c3"], "dictionary keys")
            try await ids(.count(\.tags, .greaterOrEqual, 1), ["c1", "c2"], "count ≥ 1")
            try await ids(.count(\.tags, .equal, 0), ["c3"], "count 0: empty, not nil")
            try await ids(.count(\.counts, .greater, 1), ["c1"], "entries > 1")
            try await ids(\.tags == ["rust"], ["c2"], "whole-array equality")
            try await ids(\.labels == ["z", "é", "z"], ["c2"], "whole-set equality, in any order")
            try await ids(\.profile?.city == "Lisbon", ["c1"], "a document's field")
            try await ids(\.profile?.floor == 2, ["c1", "c3"], "a number field")
            try await ids(\.profile?.contact?.email == "b@x.pt", ["c2"], "a nested field")
            try await ids(\.profile?.contact?.verified == true, ["c1"], "a boolean field")
            try await ids(\.profile?.city == nil, ["c3", "c4"], "a missing field is nil")
            try await ids(\.profile?.city != "Lisbon", ["c2", "c3", "c4"], "!= holds for nil")
            try await ids(.in(\.profile?.city, ["Porto", "Faro"]), ["c2"], "a field in a list")
            try await ids(
                .contains(\.tags, element: "swift") || \.profile?.floor == 2 && .count(\.scores, .less, 3),
                ["c1", "c3"], "combined")
        },
        ConformanceCheck(.values, "collectionsRefuseOrderUniquenessAndBadElements") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await samples.insert(contentsOf: collectionSamples)
            try await expectError(.invalidQuery, entity: "Sample", property: "tags") {
                _ = try await samples.fetch(Query<Sample>.all.sorted(by: \.tags))
            }
            try await expectError(.invalidQuery, entity: "Sample", property: "tags") {
                _ = try await samples.fetch(where: \Sample.tags < ["a"])
            }
            try await expectError(.invalidQuery, entity: "Sample", property: "profile") {
                _ = try await samples.fetch(where: \Sample.profile?.floor > 1)
            }
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "scores") {
                try await samples.insert(Sample(id: "nan", scores: [1, .nan]))
            }
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "tags") {
                try await samples.insert(Sample(id: "nul", tags: ["a\u{0}b"]))
            }
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "profile") {
                try await store.transaction { tx in
                    try tx.insert(Record(entity: "Sample", id: .string("bad"), values: ["profile": .document("{oops")]))
                }
            }
            try await expectRejected(store, .typeMismatch, entity: "Sample", property: "tags") {
                try await store.transaction { tx in
                    try tx.insert(Record(entity: "Sample", id: .string("ints"), values: ["tags": .array([.int(1)])]))
                }
            }
            let unique = EntityDescription(
                name: "U", attributes: [AttributeDescription(name: "tags", type: .array, element: .string)],
                uniqueConstraints: [["tags"]])
            _ = try await expectError(.invalidSchema, entity: "U", property: "tags") {
                _ = try Schema(entities: [unique])
            }
            let untyped = EntityDescription(name: "V", attributes: [AttributeDescription(name: "list", type: .array)])
            _ = try await expectError(.invalidSchema, entity: "V", property: "list") {
                _ = try Schema(entities: [untyped])
            }
            try expectEqual(try await samples.count(), collectionSamples.count, "nothing refused was written")
        },
    ]
}
