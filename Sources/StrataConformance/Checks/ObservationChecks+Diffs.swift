import Foundation
import Strata

/// Incremental diffs the other checks do not pin down: moves towards the end, and a consumer that
/// skipped deliveries.
extension ObservationChecks {
    static let diffs: [ConformanceCheck] = [
        ConformanceCheck(.observation, "aMoveOnePlaceTowardsTheEndIsAMove") { c in
            let store = try await c.store()
            for (id, label) in [("a", "A"), ("b", "B"), ("c", "C")] {
                try await store.repository(Tag.self).insert(Tag(id: id, label: label))
            }
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            try await store.repository(Tag.self).update(Tag(id: "b", label: "Cb"))  // [A, B, C] → [A, C, B]
            let values = try await probe.wait(for: 2, "after B moves one place towards the end")
            try expectEqual(values[1].models.map(\.id), ["a", "c", "b"])
            try expectEqual(values[1].diff.moved, [ResultsDiff.Move(from: 1, to: 2)], "B moved from 1 to 2")
            // A move is also its removal and insertion, and nothing else moves.
            try expectEqual(values[1].diff.removed, IndexSet(integer: 1))
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 2))
            try expect(values[1].diff.modified.contains(2), "the moved record's version changed")
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "aMoveToTheEndPastSeveralIsAMove") { c in
            let store = try await c.store()
            for (id, label) in [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D"), ("e", "E")] {
                try await store.repository(Tag.self).insert(Tag(id: id, label: label))
            }
            let probe = ObservationProbe(store.observe(byLabel))
            _ = try await probe.wait(for: 1)
            try await store.repository(Tag.self).update(Tag(id: "b", label: "Z"))  // [A, B, C, D, E] → [A, C, D, E, B]
            let values = try await probe.wait(for: 2, "after B moves to the end")
            try expectEqual(values[1].models.map(\.id), ["a", "c", "d", "e", "b"])
            try expectEqual(values[1].diff.moved, [ResultsDiff.Move(from: 1, to: 4)], "B moved from 1 to 4")
            try expectEqual(values[1].diff.removed, IndexSet(integer: 1))
            try expectEqual(values[1].diff.inserted, IndexSet(integer: 4))
            try expectReplays(values)
        },
        ConformanceCheck(.observation, "aConsumerThatSkippedDeliveriesGetsADiffFromTheValueItHolds") { c in
            let (store, _) = try await c.seeded()
            var iterator = store.observe(byLabel).makeAsyncIterator()
            var values = [try expectNotNil(try await iterator.next())]
            let held = values[0].models
            try expect(held.count >= 3, "the seed has tags to move and remove")
            // Three commits, each given time to be observed while the consumer reads nothing:
            // an insert, a move to the front, a removal. The consumer then gets one value whose
            // diff is from what it holds, not from a value it never received.
            try await store.repository(Tag.self).insert(Tag(id: "late", label: "Zz late"))
            try await Task.sleep(for: .milliseconds(300))
            var last = held[held.count - 1]
            last.label = "0 first"
            try await store.repository(Tag.self).update(last)
            try await Task.sleep(for: .milliseconds(300))
            try await store.repository(Tag.self).delete(held[0].id)
            try await Task.sleep(for: .milliseconds(300))
            let expected = try await store.repository(Tag.self).fetch(byLabel)
            while values.last?.models != expected {
                values.append(try expectNotNil(try await iterator.next()))
                try expect(values.count <= 4, "at most one value per commit")
            }
            try expectReplays(values)
            try expect(values.count < 4, "the skipped deliveries were coalesced (\(values.count) values)")
        },
    ]
}
