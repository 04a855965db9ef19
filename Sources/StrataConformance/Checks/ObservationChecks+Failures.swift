import Foundation
import Strata

/// Observers whose history is gone, whose reads fail, or whose store closes.
extension ObservationChecks {
    /// A store over `base`'s backend whose reads a check can hold or fail.
    static func faulty(_ base: Store) -> (Store, FaultInjectingBackend) {
        let faulty = FaultInjectingBackend(wrapping: base.backend)
        return (Store(backend: faulty, location: base.location), faulty)
    }

    static let failures: [ConformanceCheck] = [
        ConformanceCheck(.observation, "anObserverBehindPurgedHistoryStillGetsACorrectDiff") { c in
            let (base, _) = try await c.seeded()
            let (store, faulty) = faulty(base)
            let probe = ObservationProbe(store.observe(byLabel))
            let first = try await probe.wait(for: 1)[0]
            await faulty.holdReads()  // the observer cannot read the history of what follows…
            try await store.repository(Tag.self).insert(Tag(id: "p1", label: "Pier"))
            try await store.repository(Tag.self).delete("beach")
            try await store.repository(Tag.self).insert(Tag(id: "a1", label: "Arch"))
            // …which is purged, the latest entry included, before it can.
            try await store.purgeHistory(before: HistoryToken(Int64.max))
            faulty.releaseReads()
            let values = try await probe.wait(for: 2, "after the purge")
            try expectEqual(values.last?.models, try await store.repository(Tag.self).fetch(byLabel))
            try expectEqual(values.last?.models.map(\.id), ["a1", "city", "food", "p1"])
            try expectEqual(
                values[1].diff.removed, IndexSet(integer: first.models.firstIndex { $0.id == "beach" } ?? -1))
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "aPartlyPurgedGapIsReadAgainNotSkipped") { c in
            let (base, _) = try await c.seeded()
            let (store, faulty) = faulty(base)
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            await faulty.holdReads()
            try await store.repository(Tag.self).insert(Tag(id: "p1", label: "Pier"))
            try await store.repository(Tag.self).insert(Tag(id: "p2", label: "Port"))
            let last = try await base.currentHistoryToken()  // `base` reads around the hold
            try await store.purgeHistory(before: try expectNotNil(last))  // the last entry stays
            faulty.releaseReads()
            try await eventually("the observer catches up with both inserts") {
                probe.values.last?.models.map(\.id) == ["beach", "city", "food", "p1", "p2"]
            }
            try expectReplays(probe.values)
        },
        ConformanceCheck(.observation, "aChangeStreamBehindPurgedHistoryEndsWithNotFound") { c in
            let (base, _) = try await c.seeded()
            let (store, faulty) = faulty(base)
            let stream = store.changes(entities: nil)
            try await eventually("the change stream is registered") { store.observerCount > 0 }
            await faulty.holdReads()
            try await store.repository(Tag.self).insert(Tag(id: "p1", label: "Pier"))
            try await store.purgeHistory(before: HistoryToken(Int64.max))
            faulty.releaseReads()
            do {
                for try await _ in stream { try expect(false, "no change can be delivered: its history is gone") }
                try expect(false, "the stream should end with an error")
            } catch let error as StrataError {
                try expectEqual(error.code, .notFound)
            }
            try await eventually("the stream released its subscription") { store.observerCount == 0 }
        },
        ConformanceCheck(.observation, "aFailingReadEndsTheObservationWithItsError") { c in
            let (base, _) = try await c.seeded()
            let (store, faulty) = faulty(base)
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            faulty.failReads(true)
            try await store.repository(Tag.self).insert(Tag(id: "p1", label: "Pier"))
            let error = try await probe.waitForFailure("the read failure reaches the observer")
            try expectEqual((error as? StrataError)?.code, .storageFailure)
            try await eventually("the observation released its subscription") { store.observerCount == 0 }
            faulty.failReads(false)
        },
        ConformanceCheck(.observation, "closingTheStoreEndsEveryObservation") { c in
            let (store, _) = try await c.seeded()
            let probe = ObservationProbe(store.observe(byLabel))
            let stream = store.changes(entities: nil)
            _ = try await probe.wait(for: 1)
            try await eventually("both are registered") { store.observerCount == 2 }
            try await store.close()
            let error = try await probe.waitForFailure("closing ends the live query")
            try expectEqual((error as? StrataError)?.code, .storeClosed)
            do {
                for try await _ in stream {}
                try expect(false, "the change stream should end with an error")
            } catch let error as StrataError {
                try expectEqual(error.code, .storeClosed)
            }
            try await eventually("nothing is left registered") { store.observerCount == 0 }
        },
    ]
}
