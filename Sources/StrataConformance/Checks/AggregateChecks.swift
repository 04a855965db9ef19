import Foundation
import Strata

/// Aggregates: count, sum, average, min and max, alone or per group of an attribute or a to-one,
/// under a filter — the same numbers and types whether the backend answers them (SQL's
/// `GROUP BY`) or the engine does over the records it fetches.
enum AggregateChecks {
    static var all: [ConformanceCheck] { basics + owners }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.aggregates, "countSumAverageMinMaxOverAFilter") { c in
            let (store, data) = try await c.seeded()
            let people = store.repository(Person.self)
            let (count, ages, averageAge, youngest, oldest) = try await people.aggregate(
                .count, .sum(\.age), .average(\.age), .min(\.age), .max(\.age))
            try expectEqual(count, 4)
            try expectEqual(ages, 107, "34 + 28 + 45; Clara has no age")
            try expectEqual(averageAge, 107.0 / 3.0, "the average of the three ages, not of four records")
            try expectEqual(youngest, 28)
            try expectEqual(oldest, 45)
            let (rated, ratings, low, high) = try await people.aggregate(
                .count, .sum(\.rating), .min(\.rating), .max(\.rating), where: \.address.city == "Lisbon")
            try expectEqual(rated, 2, "Ana and Dário live in Lisbon")
            try expectEqual(ratings, 9.0)
            try expectEqual(low, 4.5)
            try expectEqual(high, 4.5)
            let trips = store.repository(Trip.self)
            try expectEqual(try await trips.min(\.start), data.lisbonSpring.start, "dates compare as dates")
            try expectEqual(try await trips.max(\.start), data.lisbonWinter.start)
            try expectEqual(try await trips.sum(\.budget, where: \.traveller == data.ana.id), 2000.0)
            try expectEqual(
                try await trips.average(\.budget, where: \.isFavorite == true), 1200.0,
                "Bruno's favourite has no budget")
            try expectEqual(try await people.min(\.name), "Ana")
            try expectEqual(
                try await people.max(\.name), "Dário", "text by UTF-8 bytes: á sorts after every ASCII letter")
        },
        ConformanceCheck(.aggregates, "nullsAreSkippedAndNothingGivesZeroSumsAndNilExtremes") { c in
            let (store, _) = try await c.seeded()
            let trips = store.repository(Trip.self)
            let (count, budget, average, least) = try await trips.aggregate(
                .count, .sum(\.budget), .average(\.budget), .min(\.budget), where: \.name == "No such trip")
            try expectEqual(count, 0)
            try expectEqual(budget, 0.0, "a sum over nothing is 0, as Core Data's @sum")
            try expectEqual(average, nil)
            try expectEqual(least, nil)
            let (hikes, hikeBudget, hikeAverage, hikeMax) = try await trips.aggregate(
                .count, .sum(\.budget), .average(\.budget), .max(\.budget), where: \.name == "Açores Hike")
            try expectEqual(hikes, 1, "count counts records, null values included")
            try expectEqual(hikeBudget, 0.0, "the only value is null")
            try expectEqual(hikeAverage, nil)
            try expectEqual(hikeMax, nil)
            let nights = try await store.repository(Stop.self).sum(\.nights, where: \.city == "Nowhere")
            try expectEqual(nights, 0, "an integer sum over nothing is the integer 0")
            let grouped = try await trips.aggregate(.count, groupedBy: \.traveller, where: \.name == "No such trip")
            try expect(grouped.isEmpty, "grouped over no records: no groups, got \(grouped.count)")
        },
        ConformanceCheck(.aggregates, "resultsAreIntegersOrDoublesByTheAttributesType") { c in
            let (store, _) = try await c.seeded()
            let rows = try await store.read {
                try $0.aggregate(
                    AggregatePlan(
                        entity: "Person",
                        functions: [
                            .count, .sum("age"), .sum("rating"), .average("age"), .min("age"), .max("rating"),
                            .min("birthDate"),
                        ]))
            }
            try expectEqual(rows.count, 1, "one row without grouping")
            try expectEqual(rows.first?.group, .null)
            try expectEqual(
                rows.first?.values,
                [
                    .int(4), .int(107), .double(12.0), .double(107.0 / 3.0), .int(28), .double(4.5),
                    .date(TravelDomain.day(-13_149)),
                ], "an integer attribute sums to .int, a double one to .double even when whole; averages are .double")
            let empty = try await store.read {
                try $0.aggregate(
                    AggregatePlan(
                        entity: "Stop", predicate: .compare("city", .equal, .string("Nowhere"), []),
                        functions: [.count, .sum("nights"), .average("nights"), .max("nights"), .min("name")]))
            }
            try expectEqual(empty, [AggregateRow(group: .null, values: [.int(0), .int(0), .null, .null, .null])])
        },
        ConformanceCheck(.aggregates, "integerSumsAreExactAndOverflowIsATypedError") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await samples.insert(contentsOf: [
                Sample(id: "a", count: Int.max), Sample(id: "b", count: 5), Sample(id: "c", count: -10),
                Sample(id: "d", count: nil),
            ])
            try expectEqual(try await samples.sum(\.count), Int.max - 5, "exact whatever the order of addition")
            try expectEqual(try await samples.average(\.count), Double(Int128(Int.max) - 5) / 3.0)
            try await samples.insert(Sample(id: "e", count: Int.max))
            try await expectError(.invalidQuery, entity: "Sample", property: "count") {
                _ = try await samples.sum(\.count)
            }
            try expectEqual(
                try await samples.average(\.count), Double(Int128(Int.max) * 2 - 5) / 4.0, "an average has no overflow")
            try expectEqual(try await samples.sum(\.count, where: \.count < 100), -5)
        },
        ConformanceCheck(.aggregates, "groupsByAnAttributeInTheContractsOrderNullsFirst") { c in
            let (store, _) = try await c.seeded()
            let stops = try await store.repository(Stop.self).aggregate(
                .count, .sum(\.nights), .max(\.name), groupedBy: \.city)
            try expectEqual(stops.map(\.0), ["Lisbon", "Ponta Delgada", "Porto", "Sintra"])
            try expectEqual(stops.map(\.1), [2, 1, 1, 1])
            try expectEqual(stops.map(\.2), [3, 4, 3, 1])
            try expectEqual(stops.map(\.3), ["Belém", "Ponta Delgada", "Ribeira", "Sintra"])
            let samples = store.repository(Sample.self)
            try await samples.insert(contentsOf: [
                Sample(id: "1", key: "b", number: 1.5), Sample(id: "2", number: 2), Sample(id: "3", key: "a"),
                Sample(id: "4", key: "b", number: 0.25), Sample(id: "5", number: -1),
            ])
            let byKey = try await samples.aggregate(.count, .sum(\.number), .average(\.number), groupedBy: \.key)
            try expectEqual(byKey.map(\.0), [nil, "a", "b"], "the null group first")
            try expectEqual(byKey.map(\.1), [2, 1, 2])
            try expectEqual(byKey.map(\.2), [1.0, 0.0, 1.75])
            try expectEqual(byKey.map(\.3), [0.5, nil, 0.875], "a group whose values are all null averages to nil")
            let filtered = try await samples.aggregate(.count, groupedBy: \.key, where: \.number > 0.0)
            try expectEqual(filtered.map(\.0), [nil, "b"], "a group the filter empties does not appear")
            try expectEqual(filtered.map(\.1), [1, 2])
        },
        ConformanceCheck(.aggregates, "groupsByAToOneKeyedByTheDestinationsID") { c in
            let (store, data) = try await c.seeded()
            let groups = try await store.repository(Trip.self).aggregate(
                .count, .sum(\.budget), .average(\.budget), groupedBy: \.traveller)
            let travellers = [data.ana.id, data.bruno.id, data.clara.id].sorted {
                Value.sortOrder(.uuid($0), .uuid($1)) == .ascending
            }
            try expectEqual(groups.map(\.0), [nil] + travellers, "trips without a traveller first, then by ID order")
            let expected: [UUID: (Int, Double, Double?)] = [
                data.ana.id: (2, 2000, 1000), data.bruno.id: (1, 0, nil), data.clara.id: (1, 300, 300),
            ]
            for (traveller, count, sum, average) in groups {
                let (wantedCount, wantedSum, wantedAverage) = traveller.flatMap { expected[$0] } ?? (1, 2500, 2500)
                try expectEqual(count, wantedCount, "\(traveller?.uuidString ?? "no traveller")")
                try expectEqual(sum, wantedSum, "\(traveller?.uuidString ?? "no traveller")")
                try expectEqual(average, wantedAverage, "\(traveller?.uuidString ?? "no traveller")")
            }
            let agencies = try await store.repository(Trip.self).aggregate(.count, groupedBy: \.agency)
            try expectEqual(agencies.map(\.0), [nil, data.sol.id], "an Int64-keyed to-one")
            try expectEqual(agencies.map(\.1), [3, 2])
        },
        ConformanceCheck(.aggregates, "aFilterTheBackendCannotEvaluateGivesTheSameAnswer") { c in
            let (store, _) = try await c.seeded()
            let stops = store.repository(Stop.self)
            let folded = try await stops.aggregate(
                .count, .sum(\.nights), where: .equals(\.city, "LISBON", options: .caseInsensitive))
            try expectEqual(folded.0, 2)
            try expectEqual(folded.1, 3)
            let related = try await stops.aggregate(
                .count, .sum(\.nights), groupedBy: \.city,
                where: .related(\.trip, to: Trip.self, where: \.isFavorite == true))
            try expectEqual(related.map(\.0), ["Lisbon", "Ponta Delgada", "Sintra"])
            try expectEqual(related.map(\.2), [3, 4, 1])
        },
        ConformanceCheck(.aggregates, "aContextsAggregatesIncludeItsPendingChanges") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            let stops = context.repository(Stop.self)
            try await stops.insert(Stop(name: "Chiado", city: "Lisbon", nights: 5, trip: data.lisbonSpring.id))
            try await stops.delete(data.ribeira.id)
            let pending = try await stops.aggregate(.count, .sum(\.nights), groupedBy: \.city)
            try expectEqual(
                pending.map(\.0), ["Lisbon", "Ponta Delgada", "Sintra"], "Porto's only stop is deleted in the context")
            try expectEqual(pending.map(\.2), [8, 4, 1])
            try expectEqual(
                try await store.repository(Stop.self).sum(\.nights), 11, "the store is unchanged before the save")
            try await context.save()
            try expectEqual(try await store.repository(Stop.self).sum(\.nights), 13)
        },
        ConformanceCheck(.aggregates, "aPlanTheSchemaCannotAnswerIsATypedErrorNamingTheProperty") { c in
            let (store, _) = try await c.seeded()
            func rows(_ plan: AggregatePlan) async throws { _ = try await store.read { try $0.aggregate(plan) } }
            try await expectError(.typeMismatch, entity: "Person", property: "name") {
                try await rows(AggregatePlan(entity: "Person", functions: [.sum("name")]))
            }
            try await expectError(.typeMismatch, entity: "Person", property: "avatar") {
                try await rows(AggregatePlan(entity: "Person", functions: [.max("avatar")]))
            }
            try await expectError(.typeMismatch, entity: "Person", property: "isVerified") {
                try await rows(AggregatePlan(entity: "Person", functions: [.average("isVerified")]))
            }
            try await expectError(.unknownProperty, entity: "Person", property: "salary") {
                try await rows(AggregatePlan(entity: "Person", functions: [.sum("salary")]))
            }
            try await expectError(.unknownProperty, entity: "Person", property: "trips") {
                try await rows(AggregatePlan(entity: "Person", groupBy: "trips", functions: [.count]))
            }
            try await expectError(.unknownProperty, entity: "Trip", property: "traveller") {
                try await rows(AggregatePlan(entity: "Trip", functions: [.min("traveller")]))
            }
            try await expectError(.invalidQuery, entity: "Person") {
                try await rows(AggregatePlan(entity: "Person", functions: []))
            }
            try await expectError(.typeMismatch, entity: "Person", property: "age") {
                try await rows(
                    AggregatePlan(
                        entity: "Person", predicate: .compare("age", .equal, .string("old"), []), functions: [.count]))
            }
            try await expectError(.unknownEntity) {
                try await rows(AggregatePlan(entity: "Planet", functions: [.count]))
            }
        },
        ConformanceCheck(.aggregates, "randomDataAgreesWithAggregatesComputedInSwift") { c in
            let seed = UInt64(20_261_124)
            var random = SeededRandom(seed: seed)
            var samples: [Sample] = []
            for index in 0..<300 {
                let key = ["a", "b", "c", "é", nil].randomElement(using: &random) ?? nil
                let count: Int? = Bool.random(using: &random) ? Int.random(in: -1_000...1_000, using: &random) : nil
                let number: Double? =
                    Bool.random(using: &random) ? Double(Int.random(in: -400...400, using: &random)) / 4 : nil
                samples.append(
                    Sample(id: "s\(index)", key: key, number: number, amount: number.map { -$0 }, count: count))
            }
            var store = try await c.store()
            try await store.repository(Sample.self).insert(contentsOf: samples)
            let plans: [(String, Int?, (Sample) -> Bool)] = [
                ("all", nil, { _ in true }), ("count > 100", 100, { ($0.count ?? Int.min) > 100 }),
            ]
            func check(_ when: String) async throws {
                for (name, bound, matches) in plans {
                    let predicate: FilterExpression? = bound.map { .compare("count", .greater, .int(Int64($0)), []) }
                    let rows = try await store.read {
                        try $0.aggregate(
                            AggregatePlan(
                                entity: "Sample", predicate: predicate, groupBy: "key",
                                functions: [
                                    .count, .sum("count"), .sum("number"), .average("count"), .average("amount"),
                                    .min("number"), .max("count"),
                                ]))
                    }
                    let groups = Dictionary(grouping: samples.filter(matches), by: \.key)
                    // Nulls first, then text by UTF-8 bytes.
                    let keys = groups.keys.sorted { (a: String?, b: String?) -> Bool in
                        guard let b else { return false }
                        guard let a else { return true }
                        return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
                    }
                    var expected: [AggregateRow] = []
                    for key in keys {
                        let members: [Sample] = groups[key] ?? []
                        let counts: [Int] = members.compactMap { $0.count }
                        let numbers: [Double] = members.compactMap { $0.number }
                        let amounts: [Double] = members.compactMap { $0.amount }
                        let countSum = counts.reduce(0, +)
                        let countAverage: Value =
                            counts.isEmpty ? .null : .double(Double(countSum) / Double(counts.count))
                        let amountAverage: Value =
                            amounts.isEmpty ? .null : .double(amounts.reduce(0, +) / Double(amounts.count))
                        let least: Value = numbers.min().map { Value.double($0) } ?? .null
                        let most: Value = counts.max().map { Value.int(Int64($0)) } ?? .null
                        let group: Value = key.map { Value.string($0) } ?? .null
                        let values: [Value] = [
                            .int(Int64(members.count)), .int(Int64(countSum)), .double(numbers.reduce(0, +)),
                            countAverage, amountAverage, least, most,
                        ]
                        expected.append(AggregateRow(group: group, values: values))
                    }
                    try expectEqual(rows, expected, "seed \(seed), \(name), \(when)")
                }
            }
            try await check("as written")
            if c.backend.features.contains(.reopen) {
                store = try await c.reopen(store)
                try await check("after reopening")
            }
        },
    ]
}
