import Foundation
import Strata

/// Query and save shapes: an empty start, one value per transaction, batch deletes, observers side
/// by side, in-place modifications, descending sorts with ties, and long random runs over a query
/// without a window (the incremental path).
extension ObservationChecks {
    static let shapes: [ConformanceCheck] = [
        ConformanceCheck(.observation, "anObservationOfAnEmptyStoreSeesTheFirstSave") { c in
            let store = try await c.store()
            let probe = ObservationProbe(store.observe(byLabel))
            let first = try await probe.wait(for: 1)[0]
            try expect(first.models.isEmpty && first.diff.isEmpty && first.token == nil, "empty, with no token")
            try await store.repository(Tag.self).insert(Tag(id: "a", label: "A"))
            let values = try await probe.wait(for: 2)
            try expectEqual(values[1].models, [Tag(id: "a", label: "A")])
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 0))
            try expectEqual(values[1].token, try await store.currentHistoryToken())
        },
        ConformanceCheck(.observation, "oneTransactionDeliversOneValue") { c in
            let (store, _) = try await c.seeded()
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            try await store.transaction { tx in
                try tx.insert(Tag(id: "a", label: "Art"))
                try tx.insert(Tag(id: "z", label: "Zen"))
                try tx.delete(Tag.self, id: "food")
            }
            let values = try await probe.wait(for: 2)
            try expectEqual(values[1].models.map(\.id), ["a", "beach", "city", "z"])
            try expectEqual(values[1].diff.removed, IndexSet(integer: 2))
            try expectEqual(values[1].diff.inserted, IndexSet([0, 3]))
            try await probe.expectNoMore(than: 2, "one transaction, one value")
        },
        ConformanceCheck(.observation, "aBatchDeleteDeliversEveryRemovalInOneValue") { c in
            let (store, _) = try await c.seeded()
            let query = Query<Stop>.all.sorted(by: \.name)
            let probe = ObservationProbe(store.observe(query))
            let first = try await probe.wait(for: 1)[0]
            let removed = try await store.repository(Stop.self).delete(where: \Stop.nights >= 2)
            let values = try await probe.wait(for: 2)
            try expectEqual(values[1].diff.removed.count, removed)
            try expectEqual(
                values[1].diff.removed, IndexSet(first.models.indices.filter { first.models[$0].nights >= 2 }))
            try expectEqual(values[1].models, try await store.repository(Stop.self).fetch(query))
            try await probe.expectNoMore(than: 2, "one batch delete, one value")
        },
        ConformanceCheck(.observation, "observersOfDifferentQueriesEachGetOnlyTheirOwnChanges") { c in
            let (store, data) = try await c.seeded()
            let tags = ObservationProbe(store.observe(byLabel))
            let stops = ObservationProbe(store.observe(Query<Stop>.where(\.nights >= 1).sorted(by: \.city)))
            _ = try await tags.wait(for: 1)
            _ = try await stops.wait(for: 1)
            try await store.repository(Tag.self).insert(Tag(id: "a", label: "Art"))
            _ = try await tags.wait(for: 2)
            var sintra = data.sintra
            sintra.city = "Aveiro"
            try await store.repository(Stop.self).update(sintra)
            let stopValues = try await stops.wait(for: 2)
            try expectEqual(stopValues[1].models.first?.id, sintra.id, "the new city sorts first")
            try await tags.expectNoMore(than: 2, "a stop's change is not the tags' business")
            try await stops.expectNoMore(than: 2, "a tag's insert is not the stops' business")
            try expectReplays(stopValues)
        },
        ConformanceCheck(.observation, "aModificationInPlaceIsModifiedOnly") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Stop>.all.sorted(by: \.nights).sorted(by: \.name)
            let probe = ObservationProbe(store.observe(query))
            let first = try await probe.wait(for: 1)[0]
            var ribeira = data.ribeira
            ribeira.city = "Gaia"  // not a sort key: stays where it is
            try await store.repository(Stop.self).update(ribeira)
            let values = try await probe.wait(for: 2)
            let offset = try expectNotNil(first.models.firstIndex { $0.id == ribeira.id })
            try expectEqual(values[1].diff.modified, IndexSet(integer: offset))
            try expect(
                values[1].diff.moved.isEmpty && values[1].diff.removed.isEmpty && values[1].diff.inserted.isEmpty,
                "in place")
            try expectEqual(values[1].models[offset].city, "Gaia")
        },
        ConformanceCheck(.observation, "aDescendingSortWithTiesKeepsIDOrder") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Stop>.all.sorted(by: \.nights, .descending)
            let probe = ObservationProbe(store.observe(query))
            _ = try await probe.wait(for: 1)
            for (index, stop) in data.stops.enumerated() {
                var tied = stop
                tied.nights = index % 2 == 0 ? 4 : 1  // ties, broken by ID ascending
                try await store.repository(Stop.self).update(tied)
            }
            let expected = try await store.repository(Stop.self).fetch(query)
            try await eventually("the last value equals a fresh fetch") { probe.values.last?.models == expected }
            try expectReplays(probe.values)
        },
        ConformanceCheck(.observation, "randomSavesReplayOnAQueryWithoutAWindow") { c in
            let (store, data) = try await c.seeded()
            let seed: UInt64 = 0x1_4C4E
            var random = SeededRandom(seed: seed)
            let query = Query<Stop>.where(\.nights >= 1 && \.city != "Sintra").sorted(by: \.nights, .descending).sorted(
                by: \.name)
            let probe = ObservationProbe(store.observe(query))
            _ = try await probe.wait(for: 1)
            let trips = data.trips.map(\.id)
            var stops = data.stops
            for step in 0..<200 {
                let repository = store.repository(Stop.self)
                switch random.next() % 5 {
                case let pick where pick == 0 || (pick == 1 && stops.count < 4):
                    let stop = Stop(
                        name: "S\(random.next() % 7)", city: random.next() % 4 == 0 ? "Sintra" : "C",
                        nights: Int(random.next() % 4),
                        trip: trips[Int(random.next() % UInt64(trips.count))])
                    try await repository.insert(stop)
                    stops.append(stop)
                case 1:
                    let index = Int(random.next() % UInt64(stops.count))
                    try await repository.delete(stops[index].id)
                    stops.remove(at: index)
                case 2:
                    // Several changes in one save.
                    let picked = Set((0..<3).map { _ in Int(random.next() % UInt64(stops.count)) })
                    for index in picked { stops[index].nights = Int(random.next() % 4) }
                    let changed = picked.map { stops[$0] }
                    try await store.transaction { tx in for stop in changed { try tx.update(stop) } }
                default:
                    let index = Int(random.next() % UInt64(stops.count))
                    switch random.next() % 3 {
                    case 0: stops[index].nights = Int(random.next() % 4)
                    case 1: stops[index].city = random.next() % 2 == 0 ? "Sintra" : "C\(step)"
                    default: stops[index].name = "R\(random.next() % 9)"
                    }
                    try await repository.update(stops[index])
                }
            }
            let expected = try await store.repository(Stop.self).fetch(query)
            try await eventually("the last value equals a fresh fetch (seed \(seed))") {
                probe.values.last?.models == expected
            }
            try expectReplays(probe.values)
        },
    ]
}

/// A context's view: its pending changes are in the results before they are saved.
extension ObservationChecks {
    static let contexts: [ConformanceCheck] = [
        ConformanceCheck(.observation, "aContextObservationIncludesPendingChanges") { c in
            let (store, _) = try await c.seeded()
            let context = store.makeContext(name: "editor")
            let probe = ObservationProbe(context.observe(byLabel))
            let first = try await probe.wait(for: 1)[0]
            try expectEqual(first.models.map(\.id), ["beach", "city", "food"])
            try await context.insert(Tag(id: "p", label: "Pier"))
            var values = try await probe.wait(for: 2, "after a pending insert")
            try expectEqual(values[1].models.map(\.id), ["beach", "city", "food", "p"])
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 3))
            try expectEqual(try await store.repository(Tag.self).count(), 3, "nothing saved yet")
            try await context.update(Tag(id: "food", label: "Aardvark"))
            values = try await probe.wait(for: 3, "after a pending update that moves it")
            try expectEqual(values[2].models.map(\.id), ["food", "beach", "city", "p"])
            try expectEqual(values[2].diff.moved, [ResultsDiff.Move(from: 2, to: 0)])
            try await context.delete(Tag.self, id: "city")
            values = try await probe.wait(for: 4, "after a pending delete")
            try expectEqual(values[3].diff.removed, IndexSet(integer: 2))
            await context.rollback()
            values = try await probe.wait(for: 5, "after a rollback")
            try expectEqual(values[4].models, first.models)
            // A commit by someone else arrives too.
            try await store.repository(Tag.self).insert(Tag(id: "z", label: "Zen"))
            values = try await probe.wait(for: 6, "after another writer's commit")
            try expectEqual(values[5].models.map(\.id), ["beach", "city", "food", "z"])
            try expectReplays(values)
            probe.cancel()
            try await eventually("the observation is released") { store.observerCount == 0 }
        }
    ]
}
