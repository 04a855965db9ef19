import Foundation
import Strata

/// Text under the value rules: stored as NFC, equal and unique when canonically equivalent, sorted
/// by Unicode scalars on indexed and plain attributes, folded alike whichever form it came in.
extension ValueChecks {
    static let text: [ConformanceCheck] = [
        ConformanceCheck(.values, "canonicallyEquivalentTextIsStoredAsNFC") { c in
            let store = try await c.store()
            // Through the repository with the decomposed form, through a context with the composed form.
            try await store.repository(Sample.self).insert(Sample(id: "d", key: decomposed, text: decomposed))
            let context = store.makeContext()
            try await context.insert(Sample(id: "c", key: "other", text: "x" + composed))
            try await context.save()
            let fetched = try expectNotNil(try await store.repository(Sample.self).fetch("d"))
            try expectEqual(scalars(fetched.key), scalars(composed), "indexed text is stored in NFC")
            try expectEqual(scalars(fetched.text), scalars(composed), "plain text is stored in NFC")
            let record = try await store.read { try $0.record("Sample", id: .string("c")) }
            try expectEqual(scalars(record?["text"].stringValue), scalars("x" + composed))
        },
        ConformanceCheck(.values, "equalityAndInMatchCanonicallyEquivalentText") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await samples.insert(Sample(id: "1", key: composed, text: composed))
            try await samples.insert(Sample(id: "2", key: decomposed + "s", text: decomposed + "s"))
            for property in ["key", "text"] {  // indexed and plain
                for (constant, expected) in [(decomposed, ["1"]), (composed, ["1"]), (composed + "s", ["2"])] {
                    let equal = try await store.read {
                        try $0.fetch(
                            FetchPlan(entity: "Sample", predicate: .compare(property, .equal, .string(constant), [])))
                    }
                    try expectEqual(equal.map(\.id.description), expected, "\(property) == \(scalars(constant))")
                    let listed = try await store.read {
                        try $0.fetch(
                            FetchPlan(entity: "Sample", predicate: .inList(property, [.string(constant), "zzz"], [])))
                    }
                    try expectEqual(listed.map(\.id.description), expected, "\(property) in [\(scalars(constant))]")
                    let notEqual = try await store.read {
                        try $0.count(
                            FetchPlan(entity: "Sample", predicate: .compare(property, .notEqual, .string(constant), []))
                        )
                    }
                    try expectEqual(notEqual, 1, "\(property) != \(scalars(constant))")
                }
            }
            try expectEqual(
                try await samples.count(where: \Sample.key == decomposed), 1, "typed == on an indexed attribute")
            try expectEqual(
                try await samples.count(where: \Sample.text == decomposed), 1, "typed == on a plain attribute")
            try expectEqual(try await samples.count(where: .in(\Sample.key, [decomposed])), 1, "typed in")
            try expectEqual(
                try await samples.count(where: .hasPrefix(\Sample.text, "E\u{0301}")), 2, "a decomposed prefix")
        },
        ConformanceCheck(.values, "uniqueConstraintsAndIDsTreatEquivalentTextAsEqual") { c in
            let store = try await c.store()
            try await store.repository(Sample.self).insert(Sample(id: composed, code: composed))
            try await expectRejected(store, .uniqueViolation, entity: "Sample", property: "code") {
                try await store.repository(Sample.self).insert(Sample(id: "other", code: decomposed))
            }
            try await expectRejected(store, .duplicateID, entity: "Sample") {
                try await store.repository(Sample.self).insert(Sample(id: decomposed))
            }
            try expectNotNil(
                try await store.repository(Sample.self).fetch(decomposed), "looked up by the decomposed ID")
            let untyped = try await store.read { try $0.record("Sample", id: .string(decomposed)) }
            try expectEqual(untyped?.id, .string(composed), "an untyped lookup normalises too")
            // A link to a decomposed string ID finds the composed record.
            let trip = Trip(name: "T", start: TravelDomain.day(1))
            try await store.repository(Tag.self).insert(Tag(id: composed, label: "L"))
            try await store.repository(Trip.self).insert(trip)
            try await store.repository(Trip.self).link(Trip.tags, from: trip.id, to: decomposed)
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.tags, of: trip.id).map { scalars($0.id) },
                [scalars(composed)])
        },
        ConformanceCheck(.values, "textSortsByUnicodeScalarsOnIndexedAndPlainAttributes") { c in
            let store = try await c.store()
            try await store.transaction { tx in
                for (index, text) in mixedText.enumerated() {
                    try tx.insert(Sample(id: String(format: "s%02d", index), key: text, text: text))
                }
            }
            let expected = mixedText.sorted(by: scalarOrder).map { scalars($0.precomposedStringWithCanonicalMapping) }
            for property in ["key", "text"] {
                for ascending in [true, false] {
                    let want = ascending ? expected : expected.reversed()
                    let all = try await store.read {
                        try $0.fetch(FetchPlan(entity: "Sample", sort: [SortKey(property, ascending: ascending)]))
                    }
                    try expectEqual(
                        all.map { scalars($0[property].stringValue) }, want,
                        "\(property) \(ascending ? "ascending" : "descending")")
                    // Paging walks the same order: pages of 5 put together give the whole order.
                    var paged: [[UInt32]] = []
                    for offset in stride(from: 0, to: mixedText.count, by: 5) {
                        let page = try await store.read {
                            try $0.fetch(
                                FetchPlan(
                                    entity: "Sample", sort: [SortKey(property, ascending: ascending)], limit: 5,
                                    offset: offset))
                        }
                        paged += page.map { scalars($0[property].stringValue) }
                    }
                    try expectEqual(paged, want, "\(property) paged")
                }
                // A range follows the same order.
                let below = try await store.read {
                    try $0.count(FetchPlan(entity: "Sample", predicate: .compare(property, .less, "f", [])))
                }
                try expectEqual(below, mixedText.filter { scalarOrder($0, "f") }.count, "\(property) < \"f\"")
            }
            let ids = try await store.read {
                try $0.fetch(
                    FetchPlan(
                        entity: "Sample", predicate: .compare("id", .greaterOrEqual, "s10", []), sort: [SortKey("id")]))
            }
            try expectEqual(ids.map(\.id.description), (10..<mixedText.count).map { String(format: "s%02d", $0) })
        },
        ConformanceCheck(.values, "foldingOptionsAgreeForComposedAndDecomposedText") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await samples.insert(Sample(id: "1", key: "São Paulo", text: "ÉCOLE"))
            try await samples.insert(Sample(id: "2", key: "Sao Paulo", text: "école"))
            try expectEqual(
                try await samples.count(
                    where: .equals(\Sample.key, "Sa\u{0303}o Paulo", options: .diacriticInsensitive)), 2)
            try expectEqual(
                try await samples.count(where: .equals(\Sample.key, "sa\u{0303}o paulo", options: .caseInsensitive)), 1)
            try expectEqual(
                try await samples.count(where: .equals(\Sample.text, "e\u{0301}cole", options: .caseInsensitive)), 2)
            try expectEqual(
                try await samples.count(where: .contains(\Sample.text, "E\u{0301}C", options: [.caseInsensitive])), 2)
            try expectEqual(
                try await samples.count(
                    where: .hasPrefix(\Sample.text, "ec", options: [.caseInsensitive, .diacriticInsensitive])), 2)
        },
    ]
}
