import Foundation
import Strata

/// A to-many observed from its owner, in its stored order: reorders are moves, edits of a member
/// are modifications, new members arrive where the relationship puts them, and the owner's
/// deletion ends the stream with `notFound`.
extension ObservationChecks {
    static let ordered: [ConformanceCheck] = [
        ConformanceCheck(.observation, "aToManyIsObservedInItsStoredOrderWithMovesAndEdits") { c in
            let (store, data) = try await c.seeded()
            let trip = data.lisbonSpring.id
            let stops = store.repository(Stop.self)
            var values = store.observe(Trip.stops, of: trip).makeAsyncIterator()
            let stored = try await store.repository(Trip.self).related(Trip.stops, of: trip)
            let first = try expectNotNil(try await values.next(), "the initial members")
            try expectEqual(first.models.map(\.id), stored.map(\.id), "the stored order")
            try expectEqual(first.diff.inserted.count, stored.count)

            let reversed = Array(stored.map(\.id).reversed())
            try await store.repository(Trip.self).setRelated(Trip.stops, of: trip, to: reversed)
            let moved = try expectNotNil(try await values.next(), "the reorder")
            try expectEqual(moved.models.map(\.id), reversed, "the new order")
            try expect(reversed.count >= 2, "the fixture's trip has several stops")
            try expect(
                !moved.diff.moved.isEmpty && Set(moved.diff.moved.map(\.from)) == Set(moved.diff.removed)
                    && Set(moved.diff.moved.map(\.to)) == Set(moved.diff.inserted) && moved.diff.modified.isEmpty,
                "a reorder is only moves: \(moved.diff)")

            var edited = try expectNotNil(stored.first)
            edited.nights += 1
            try await stops.update(edited)
            let modified = try expectNotNil(try await values.next(), "the edit")
            let position = try expectNotNil(modified.models.firstIndex { $0.id == edited.id })
            try expectEqual(Array(modified.diff.modified), [position], "an edited member is modified")

            let added = Stop(name: "Belém", city: "Lisbon", nights: 1, trip: trip)
            try await stops.insert(added)
            let joined = try expectNotNil(try await values.next(), "the new member")
            try expectEqual(joined.models.map(\.id), reversed + [added.id], "a new member joins at the end")

            try await store.repository(Trip.self).delete(trip)
            do {
                while try await values.next() != nil {}
                throw ConformanceFailure(
                    "the stream ended without an error", fileID: #fileID, filePath: #filePath, line: #line)
            } catch let error as StrataError {
                try expectEqual(error.code, .notFound, "\(error)")
            }
        }
    ]
}
