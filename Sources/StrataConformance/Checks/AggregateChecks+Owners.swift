import Foundation
import Strata

/// Aggregates of a to-many from the owner's side: every owner the filter matches, those with no
/// members included as zero — for a to-many stored through its inverse to-one and for an ordered
/// link list, committed and with a context's pending changes.
extension AggregateChecks {
    static let owners: [ConformanceCheck] = [
        ConformanceCheck(.aggregates, "aToManyIsAggregatedFromTheOwnersSideWithEmptyOwnersAsZero") { c in
            let (store, data) = try await c.seeded()
            let people = store.repository(Person.self)
            let perPerson = try await people.countRelated(Person.trips)
            try expectEqual(perPerson.count, 4, "every person, those without trips included")
            for person in try await people.fetch() {
                try expectEqual(
                    perPerson[person.id], try await people.related(Person.trips, of: person.id).count, person.name)
            }
            try expect(perPerson.values.contains(0), "someone has no trips: \(perPerson)")

            let trips = store.repository(Trip.self)
            let rows = try await trips.aggregate(.count, .sum(\.nights), .max(\.nights), over: Trip.stops)
            try expectEqual(rows.map(\.0), try await trips.fetch().map(\.id), "every trip, in ID order")
            for (trip, count, nights, most) in rows {
                let stops = try await trips.related(Trip.stops, of: trip)
                try expectEqual(count, stops.count)
                try expectEqual(nights, stops.reduce(0) { $0 + $1.nights }, "a trip without stops sums to 0")
                try expectEqual(most, stops.map(\.nights).max())
            }
            try expect(rows.contains { $0.1 == 0 }, "a trip without stops is a row of zeros")
            let lisbon = try await trips.aggregate(.count, over: Trip.stops, where: \.id == data.lisbonSpring.id)
            try expectEqual(lisbon.map(\.0), [data.lisbonSpring.id], "the filter chooses the owners")

            let context = store.makeContext()
            try await context.insert(Stop(name: "Extra", city: "Lisbon", nights: 2, trip: data.lisbonSpring.id))
            let pending = try await context.repository(Trip.self).countRelated(Trip.stops)
            let committed = try await trips.countRelated(Trip.stops)
            try expectEqual(pending[data.lisbonSpring.id], (committed[data.lisbonSpring.id] ?? 0) + 1, "pending")
        }
    ]
}
