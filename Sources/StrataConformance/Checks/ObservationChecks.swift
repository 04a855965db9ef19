import Foundation
import Strata

/// Live queries: every delivered value equals a fresh fetch, its diff turns the previous value into
/// it, and commits that cannot change the results deliver nothing.
enum ObservationChecks {
    /// Every delivered value equals a fresh fetch at the end, and each diff replays.
    static func expectReplays<M: PersistentModel & Equatable>(
        _ values: [QueryResults<M>], fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) throws {
        var previous: [M] = []
        for (index, value) in values.enumerated() {
            let replayed = value.diff.apply(to: previous, new: value.models)
            try expectEqual(
                replayed, value.models, "value \(index): applying its diff to the previous value", fileID: fileID,
                filePath: filePath, line: line)
            if let difference = value.diff.collectionDifference(from: previous, to: value.models) {
                try expectEqual(
                    previous.applying(difference), value.models, "value \(index) as a CollectionDifference",
                    fileID: fileID, filePath: filePath, line: line)
            } else {
                try expect(
                    false, "value \(index): the diff is not a valid CollectionDifference", fileID: fileID,
                    filePath: filePath, line: line)
            }
            previous = value.models
        }
    }

    static let byLabel = Query<Tag>.all.sorted(by: \.label)

    static var all: [ConformanceCheck] { basics + shapes + contexts + elsewhere + failures + diffs + ordered }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.observation, "theInitialValueEqualsAFetch") { c in
            let (store, _) = try await c.seeded()
            let query = Query<Stop>.where(\.nights >= 2).sorted(by: \.nights)
            let probe = ObservationProbe(store.observe(query))
            let first = try await probe.wait(for: 1)[0]
            try expectEqual(first.models, try await store.repository(Stop.self).fetch(query))
            try expectEqual(first.diff.inserted, IndexSet(0..<first.models.count), "the first value is all insertions")
            try expect(first.diff.removed.isEmpty && first.diff.modified.isEmpty, "nothing removed or modified first")
            try expectEqual(first.token, try await store.currentHistoryToken())
        },
        ConformanceCheck(.observation, "anUnrelatedCommitDeliversNothing") { c in
            let (store, data) = try await c.seeded()
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            var ana = data.ana
            ana.age = 99
            try await store.repository(Person.self).update(ana)  // another entity
            try await store.repository(Tag.self).insert(Tag(id: "zz", label: "Zoo"))
            let values = try await probe.wait(for: 2)
            try expectEqual(
                values[1].models.map(\.id), ["beach", "city", "food", "zz"], "the next value is the matching commit")
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 3))
            try await probe.expectNoMore(than: 2, "one matching commit, one value")
        },
        ConformanceCheck(.observation, "anUpdateToPropertiesTheQueryDoesNotReadOfARecordOutsideItDeliversNothing") {
            c in
            let (store, data) = try await c.seeded()
            let probe = ObservationProbe(store.observe(Query<Stop>.where(\.nights >= 3)))
            _ = try await probe.wait(for: 1)
            var alfama = data.alfama  // 2 nights: outside the results
            alfama.name = "Alfama district"
            try await store.repository(Stop.self).update(alfama)
            try await probe.expectNoMore(than: 1, "a name change of a record outside the results")
            var ribeira = data.ribeira  // inside: its value changes
            ribeira.name = "Ribeira quay"
            try await store.repository(Stop.self).update(ribeira)
            let values = try await probe.wait(for: 2)
            try expectEqual(
                values[1].diff.modified, IndexSet(integer: values[1].models.firstIndex { $0.id == ribeira.id } ?? -1))
            try expect(values[1].diff.inserted.isEmpty && values[1].diff.removed.isEmpty, "modified only")
        },
        ConformanceCheck(.observation, "insertIntoTheFilterReportsItsOffset") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Stop>.where(\.nights >= 2).sorted(by: \.nights)
            let probe = ObservationProbe(store.observe(query))
            _ = try await probe.wait(for: 1)
            try await store.repository(Stop.self).insert(
                Stop(name: "Douro", city: "Pinhão", nights: 3, trip: data.portoWine.id))
            try await store.repository(Stop.self).insert(
                Stop(name: "Flores", city: "Flores", nights: 1, trip: data.azoresHike.id))
            let values = try await probe.wait(for: 2)
            try expectEqual(
                values[1].models.map(\.name), try await store.repository(Stop.self).fetch(query).map(\.name))
            let offset = try expectNotNil(values[1].models.firstIndex { $0.name == "Douro" })
            try expectEqual(values[1].diff.inserted, IndexSet(integer: offset))
            try await probe.expectNoMore(than: 2, "a stop outside the filter")
            try expectReplays(probe.values)
        },
        ConformanceCheck(.observation, "deleteReportsTheRemovedOffset") { c in
            let (store, data) = try await c.seeded()
            let probe = ObservationProbe(store.observe(Query<Stop>.all.sorted(by: \.name)))
            let first = try await probe.wait(for: 1)[0]
            let offset = try expectNotNil(first.models.firstIndex { $0.id == data.belem.id })
            try await store.repository(Stop.self).delete(data.belem.id)
            let values = try await probe.wait(for: 2)
            try expectEqual(values[1].diff.removed, IndexSet(integer: offset))
            try expect(values[1].diff.inserted.isEmpty, "nothing inserted")
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "updatesIntoAndOutOfTheFilterInsertAndRemove") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Stop>.where(\.nights >= 2).sorted(by: \.nights)
            let probe = ObservationProbe(store.observe(query))
            _ = try await probe.wait(for: 1)
            var belem = data.belem
            belem.nights = 5  // into the filter, at the end
            try await store.repository(Stop.self).update(belem)
            var values = try await probe.wait(for: 2)
            try expectEqual(values[1].diff.inserted, IndexSet(integer: values[1].models.count - 1))
            var alfama = data.alfama
            alfama.nights = 0  // out of it
            try await store.repository(Stop.self).update(alfama)
            values = try await probe.wait(for: 3)
            try expectEqual(values[2].diff.removed, IndexSet(integer: 0))
            try expectEqual(values[2].models, try await store.repository(Stop.self).fetch(query))
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "aSortKeyChangeIsAMove") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Stop>.all.sorted(by: \.nights)
            let probe = ObservationProbe(store.observe(query))
            let first = try await probe.wait(for: 1)[0]
            let from = try expectNotNil(first.models.firstIndex { $0.id == data.pontaDelgada.id })
            var ponta = data.pontaDelgada
            ponta.nights = 0
            try await store.repository(Stop.self).update(ponta)
            let values = try await probe.wait(for: 2)
            let to = try expectNotNil(values[1].models.firstIndex { $0.id == data.pontaDelgada.id })
            try expectEqual(values[1].diff.moved, [ResultsDiff.Move(from: from, to: to)])
            try expect(values[1].diff.modified.contains(to), "the moved record's version changed")
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "aLimitWindowShiftsWhenARecordSortsIntoIt") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Stop>.all.sorted(by: \.name).limit(3)
            let probe = ObservationProbe(store.observe(query))
            let first = try await probe.wait(for: 1)[0]
            try await store.repository(Stop.self).insert(Stop(name: "Aalto", city: "Aveiro", trip: data.portoWine.id))
            let values = try await probe.wait(for: 2)
            try expectEqual(values[1].models.first?.name, "Aalto")
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 0))
            try expectEqual(
                values[1].diff.removed, IndexSet(integer: first.models.count - 1), "the last falls out of the window")
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "aRelatedFilterFollowsTheRelatedRecord") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Trip>.where(.related(\.traveller, where: \Person.name == "Ana")).sorted(by: \.start)
            let probe = ObservationProbe(store.observe(query))
            let first = try await probe.wait(for: 1)[0]
            try expectEqual(first.models.map(\.id), [data.lisbonSpring.id, data.portoWine.id])
            var ana = data.ana
            ana.name = "Ana Maria"
            try await store.repository(Person.self).update(ana)
            let values = try await probe.wait(for: 2)
            try expect(values[1].models.isEmpty, "renaming the traveller takes her trips out")
            try expectEqual(values[1].diff.removed, IndexSet(0..<2))
        },
        ConformanceCheck(.observation, "aFailedSaveDeliversNothing") { c in
            let (store, _) = try await c.seeded()
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            do {
                try await store.transaction { tx in
                    try tx.insert(Tag(id: "x", label: "X"))
                    try tx.insert(Tag(id: "y", label: "Beach"))  // unique clash: the whole save fails
                }
                try expect(false, "the save should fail")
            } catch is StrataError {}
            try await probe.expectNoMore(than: 1, "a failed save")
            try await store.repository(Tag.self).insert(Tag(id: "ok", label: "Ok"))
            let values = try await probe.wait(for: 2)
            try expectEqual(values[1].models.map(\.id), ["beach", "city", "food", "ok"])
        },
        ConformanceCheck(.observation, "aCascadeDeliversEveryDeletion") { c in
            let (store, data) = try await c.seeded()
            let probe = ObservationProbe(store.observe(Query<Stop>.all.sorted(by: \.name)))
            let first = try await probe.wait(for: 1)[0]
            try await store.repository(Trip.self).delete(data.lisbonSpring.id)  // cascades to its three stops
            let values = try await probe.wait(for: 2)
            let gone = Set([data.alfama.id, data.belem.id, data.sintra.id])
            try expectEqual(
                values[1].diff.removed, IndexSet(first.models.indices.filter { gone.contains(first.models[$0].id) }))
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "cancellingReleasesTheObservation") { c in
            let (store, _) = try await c.seeded()
            let before = store.observerCount
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            try await eventually("the observation is registered") { store.observerCount == before + 1 }
            probe.cancel()
            try await eventually("the observation is released") { store.observerCount == before }
        },
        ConformanceCheck(.observation, "aSlowConsumerGetsCoalescedValuesThatStillReplay") { c in
            let (store, _) = try await c.seeded()
            var iterator = store.observe(byLabel).makeAsyncIterator()
            var values = [try expectNotNil(try await iterator.next())]
            for index in 0..<20 {
                try await store.repository(Tag.self).insert(Tag(id: "s\(index)", label: "Slow \(index)"))
            }
            let expected = try await store.repository(Tag.self).fetch(byLabel)
            while values.last?.models != expected {
                values.append(try expectNotNil(try await iterator.next()))
                try expect(values.count <= 21, "at most one value per commit")
            }
            try expect(values.count < 21, "values were coalesced (\(values.count))")
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "oneRecordIsObservedFromAbsentToDeleted") { c in
            let store = try await c.store()
            var iterator = store.observe(Tag.self, id: "t").makeAsyncIterator()
            let absent = try await iterator.next()
            try expect(absent == .some(nil), "absent first")
            try await store.repository(Tag.self).insert(Tag(id: "t", label: "T"))
            try expectEqual(try await iterator.next(), .some(Tag(id: "t", label: "T")))
            try await store.repository(Tag.self).update(Tag(id: "t", label: "T2"))
            try expectEqual(try await iterator.next(), .some(Tag(id: "t", label: "T2")))
            try await store.repository(Tag.self).delete("t")
            let deleted = try await iterator.next()
            try expect(deleted == .some(nil), "nil after the delete")
        },
        ConformanceCheck(.observation, "changesDeliverEachCommitOnceInOrder") { c in
            let store = try await c.store()
            let stream = store.changes(entities: ["Tag"])
            try await eventually("the change stream is registered") { store.observerCount > 0 }
            for index in 0..<5 {
                try await store.repository(Tag.self).insert(Tag(id: "c\(index)", label: "C\(index)"))
                // Filtered out.
                try await store.repository(Agency.self).insert(Agency(id: Int64(index), name: "A\(index)"))
            }
            var received: [HistoryTransaction] = []
            for try await transaction in stream {
                received.append(transaction)
                if received.count == 5 { break }
            }
            try expectEqual(received.flatMap { $0.changes.map(\.id) }, (0..<5).map { .string("c\($0)") })
            try expect(zip(received, received.dropFirst()).allSatisfy { $0.token < $1.token }, "in token order")
            try expect(
                received.allSatisfy { $0.changes.allSatisfy { $0.entity == "Tag" } }, "only the entities asked for")
        },
        ConformanceCheck(.observation, "randomSavesReplayToAFreshFetch") { c in
            let (store, data) = try await c.seeded()
            let seed: UInt64 = 0x0B5E_57
            var random = SeededRandom(seed: seed)
            let query = Query<Stop>.where(\.nights >= 1).sorted(by: \.nights).sorted(by: \.name, .descending).limit(6)
            let probe = ObservationProbe(store.observe(query))
            _ = try await probe.wait(for: 1)
            let trips = data.trips.map(\.id)
            var stops = data.stops
            for step in 0..<200 {
                let repository = store.repository(Stop.self)
                switch random.next() % 4 {
                case let pick where pick == 0 || (pick == 1 && stops.count < 4):
                    let stop = Stop(
                        name: "S\(step)", city: "C", nights: Int(random.next() % 5),
                        trip: trips[Int(random.next() % UInt64(trips.count))])
                    try await repository.insert(stop)
                    stops.append(stop)
                case 1:
                    let index = Int(random.next() % UInt64(stops.count))
                    try await repository.delete(stops[index].id)
                    stops.remove(at: index)
                default:
                    let index = Int(random.next() % UInt64(stops.count))
                    if random.next() % 2 == 0 {
                        stops[index].nights = Int(random.next() % 5)
                    } else {
                        stops[index].name = "R\(step)"
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
