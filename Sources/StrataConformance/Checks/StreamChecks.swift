import Foundation
import Strata

/// Streamed reads: the same results as one fetch, in batches no larger than asked, with a
/// to-many prefetched per batch, through a store and a context; and what a stream sees while
/// another task writes — one snapshot where the backend holds one, batch-consistent otherwise.
enum StreamChecks {
    static let all: [ConformanceCheck] = [
        ConformanceCheck(.streams, "aStreamDeliversWhatOneFetchWouldInBatches") { c in
            let (store, data) = try await c.seeded()
            let people = store.repository(Person.self)
            try await people.insert(contentsOf: crowd(120))
            let trip = data.lisbonSpring.id
            let queries: [Query<Person>] = [
                .all, Query<Person>.where(\.isVerified == true).sorted(by: \.age, .descending).sorted(by: \.name),
                Query<Person>.all.sorted(by: \.name).offset(5).limit(37), Query<Person>.all.limit(0),
            ]
            for (index, query) in queries.enumerated() {
                let expected = try await people.fetch(query).map(\.id)
                for size in [1, 7, 1_000] {
                    var streamed: [UUID] = []
                    for try await batch in people.stream(query, batchSize: size).batches {
                        try expect(!batch.isEmpty && batch.count <= size, "query \(index): a batch of \(batch.count)")
                        streamed += batch.map(\.id)
                    }
                    try expectEqual(streamed, expected, "query \(index), batches of \(size)")
                }
            }
            let ordered = Query<Stop>.all.sorted(byPositionIn: Trip.stops, of: trip, .descending)
            let stops = store.repository(Stop.self)
            var streamedStops: [UUID] = []
            for try await stop in stops.stream(ordered, batchSize: 2) { streamedStops.append(stop.id) }
            try expectEqual(streamedStops, try await stops.fetch(ordered).map(\.id), "a position sort, offset batches")

            let trips = store.repository(Trip.self)
            let prefetched = try await trips.fetch(Query<Trip>.all, including: Trip.stops)
            var streamedTrips: [(UUID, [UUID])] = []
            for try await item in trips.stream(Query<Trip>.all, batchSize: 2, including: Trip.stops) {
                streamedTrips.append((item.model.id, item.related.map(\.id)))
            }
            try expect(
                streamedTrips.elementsEqual(prefetched.map { ($0.model.id, $0.related.map(\.id)) }, by: { $0 == $1 }),
                "a to-many prefetched per batch")
        },
        ConformanceCheck(.streams, "aContextsStreamIncludesItsPendingChanges") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Person.self).insert(contentsOf: crowd(30))
            let context = store.makeContext()
            let people = context.repository(Person.self)
            try await people.insert(Person(name: "Pending", isVerified: true))
            try await people.delete(data.bruno.id)
            var renamed = data.ana
            renamed.name = "Ana Renamed"
            try await people.update(renamed)
            let query = Query<Person>.all.sorted(by: \.name)
            var streamed: [Person] = []
            for try await person in people.stream(query, batchSize: 4) { streamed.append(person) }
            try expectEqual(streamed, try await people.fetch(query), "the context's view, in batches")
            var withTrips: [(UUID, Int)] = []
            for try await item in people.stream(query, batchSize: 3, including: Person.trips) {
                withTrips.append((item.model.id, item.related.count))
            }
            try expectEqual(withTrips.map(\.0), streamed.map(\.id), "prefetching keeps the order")
            try expectEqual(withTrips.first { $0.0 == data.ana.id }?.1, 2, "Ana's trips, read per batch")
        },
        ConformanceCheck(.streams, "aStreamReadWhileAnotherTaskWritesSeesWhatTheBackendPromises") { c in
            let store = try await c.store()
            let people = store.repository(Person.self)
            let original = crowd(300)
            try await people.insert(contentsOf: original)
            let holdsSnapshot = try await store.backend.openSnapshot().map { $0.close() } != nil
            let sorted = original.map(\.id).sorted { RecordID.uuid($0) < RecordID.uuid($1) }
            var iterator = people.stream(Query<Person>.all, batchSize: 20).makeAsyncIterator()
            var seen: [Person] = []
            for _ in 0..<20 { seen.append(try expectNotNil(try await iterator.next(), "the first batch")) }
            let deleted = Set(sorted[100..<120])
            let updated = Set(sorted[120..<140])
            let inserted = crowd(30, prefix: "New")
            try await Task {
                try await store.transaction { tx in
                    for id in deleted { try tx.delete(Person.self, id: id) }
                    for var person in original where updated.contains(person.id) {
                        person.name = "Changed"
                        try tx.update(person)
                    }
                    try tx.insert(contentsOf: inserted)
                }
            }.value
            while let person = try await iterator.next() { seen.append(person) }
            let ids = seen.map(\.id)
            try expectEqual(Set(ids).count, ids.count, "no record twice")
            try expect(
                ids.map(RecordID.uuid).elementsEqual(ids.map(RecordID.uuid).sorted()), "in the query's order (ID)")
            if holdsSnapshot {
                try expectEqual(ids, sorted, "a snapshot: the store as it was when the stream began")
                try expect(!seen.contains { $0.name == "Changed" }, "a snapshot: no later update")
            } else {
                let unchanged = Set(sorted).subtracting(deleted)
                try expect(unchanged.isSubset(of: Set(ids)), "batch-consistent: every record that stayed, once")
                try expect(deleted.isDisjoint(with: Set(ids)), "batch-consistent: deleted before its batch")
                try expect(
                    seen.filter { updated.contains($0.id) }.allSatisfy { $0.name == "Changed" },
                    "batch-consistent: updated before its batch")
            }
            var abandoned = people.stream(Query<Person>.all, batchSize: 10).makeAsyncIterator()
            _ = try await abandoned.next()
            try await people.insert(Person(name: "After", isVerified: false))
            try expectEqual(try await people.count(), 311, "writes go on beside an abandoned stream")
        },
        ConformanceCheck(.streams, "aStreamRefusesABadBatchSizeOrQuery") { c in
            let store = try await c.store()
            let people = store.repository(Person.self)
            try await expectError(.invalidQuery, entity: "Person") {
                for try await _ in people.stream(Query<Person>.all, batchSize: 0) {}
            }
            try await expectError(.invalidQuery, entity: "Trip", property: "tags") {
                for try await _ in store.repository(Tag.self).stream(
                    Query<Tag>.all.sorted(byPositionIn: Trip.tags, of: UUID()), batchSize: 5)
                {}
            }
        },
    ]

    /// `count` people with names `prefix0`…, half verified, ages cycling.
    static func crowd(_ count: Int, prefix: String = "P") -> [Person] {
        (0..<count).map { Person(name: "\(prefix)\($0)", age: $0 % 90, isVerified: $0 % 2 == 0) }
    }
}
