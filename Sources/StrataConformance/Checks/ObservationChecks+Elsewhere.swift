import Foundation
import Strata

/// Commits the observer's store did not make: through a second handle onto the same data in this
/// process, and by another process. Each needs its feature; backends without it skip with the reason.
extension ObservationChecks {
    static let elsewhere: [ConformanceCheck] = [
        ConformanceCheck(.observation, "aCommitThroughASecondHandleArrives", requires: [.secondHandle]) { c in
            let (store, _) = try await c.seeded()
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            let second = try await c.secondHandle(store)
            try await second.repository(Tag.self).insert(Tag(id: "zz", label: "Zoo"))
            var values = try await probe.wait(for: 2, "after a commit through the second handle")
            try expectEqual(values[1].models.map(\.id), ["beach", "city", "food", "zz"])
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 3))
            // And the other way round.
            let reverse = ObservationProbe(second.observe(byLabel))
            _ = try await reverse.wait(for: 1)
            try await store.repository(Tag.self).delete("city")
            let reversed = try await reverse.wait(for: 2, "the second handle sees the first's commit")
            try expectEqual(reversed[1].diff.removed, IndexSet(integer: 1))
            values = try await probe.wait(for: 3)
            try expectEqual(values[2].models.map(\.id), ["beach", "food", "zz"])
            try expectReplays(values)
            try expectReplays(reversed)
        },
        ConformanceCheck(.observation, "aRecordObservedByIDSeesASecondHandlesUpdate", requires: [.secondHandle]) { c in
            let (store, _) = try await c.seeded()
            var iterator = store.observe(Tag.self, id: "food").makeAsyncIterator()
            try expectEqual(try await iterator.next(), .some(Tag(id: "food", label: "Food")))
            let second = try await c.secondHandle(store)
            try await second.repository(Tag.self).update(Tag(id: "food", label: "Cuisine"))
            try expectEqual(try await iterator.next(), .some(Tag(id: "food", label: "Cuisine")))
        },
        ConformanceCheck(.observation, "aCommitByAnotherProcessArrives", requires: [.otherProcesses]) { c in
            let (store, _) = try await c.seeded()
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            try await c.runInOtherProcess(store, ["insert-tag", "zz", "Zoo"])
            var values = try await probe.wait(for: 2, "after the other process's insert")
            try expectEqual(values[1].models.map(\.id), ["beach", "city", "food", "zz"])
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 3))
            try await c.runInOtherProcess(store, ["relabel-tag", "zz", "Zebra"])
            values = try await probe.wait(for: 3, "after the other process's update")
            try expectEqual(values[2].models.last, Tag(id: "zz", label: "Zebra"))
            try expectEqual(values[2].diff.modified, IndexSet(integer: 3))
            try expect(values[2].diff.inserted.isEmpty && values[2].diff.removed.isEmpty, "modified in place")
            try expectEqual(values[2].models, try await store.repository(Tag.self).fetch(byLabel))
            try expectReplays(values)
        },
        ConformanceCheck(
            .observation, "anotherProcessesCommitsReachTheChangeStreamOnceInOrder", requires: [.otherProcesses]
        ) { c in
            let store = try await c.store()
            let stream = store.changes(entities: ["Tag"])
            try await eventually("the change stream is registered") { store.observerCount > 0 }
            try await c.runInOtherProcess(store, ["insert-tag", "p1", "P1"])
            try await store.repository(Tag.self).insert(Tag(id: "l1", label: "L1"))
            try await c.runInOtherProcess(store, ["insert-tag", "p2", "P2"])
            var received: [HistoryTransaction] = []
            for try await transaction in stream {
                received.append(transaction)
                if received.count == 3 { break }
            }
            try expectEqual(received.flatMap { $0.changes.map(\.id) }, [.string("p1"), .string("l1"), .string("p2")])
            try expect(zip(received, received.dropFirst()).allSatisfy { $0.token < $1.token }, "in token order")
        },
    ]
}
