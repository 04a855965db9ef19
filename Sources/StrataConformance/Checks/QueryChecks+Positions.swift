import Foundation
import Strata

/// A query sorted by a position in an ordered to-many: the owner's order (reversed descending),
/// non-members after, pages and totals over it, a context's pending reorder, a live query that
/// follows reorders, and the errors (a missing owner, an unordered relationship, a keyset page).
extension QueryChecks {
    static let positions: [ConformanceCheck] = [
        ConformanceCheck(.queries, "aQueryIsSortedByItsPositionInAnOrderedToMany") { c in
            let (store, data) = try await c.seeded()
            let trip = data.lisbonSpring.id
            let order = [data.sintra.id, data.alfama.id, data.belem.id]
            try await store.repository(Trip.self).setRelated(Trip.stops, of: trip, to: order)
            let stops = store.repository(Stop.self)
            let members = Query<Stop>.where(\.trip == trip).sorted(byPositionIn: Trip.stops, of: trip)
            try expectEqual(try await stops.fetch(members).map(\.id), order, "the owner's order")
            let descending = Query<Stop>.where(\.trip == trip).sorted(byPositionIn: Trip.stops, of: trip, .descending)
            try expectEqual(try await stops.fetch(descending).map(\.id), order.reversed(), "descending")
            try expectEqual(try await stops.fetch(members.offset(1).limit(1)).map(\.id), [data.alfama.id], "a window")
            let oneNight = members.where(\.nights == 1)
            try expectEqual(try await stops.fetch(oneNight).map(\.id), [data.sintra.id, data.belem.id], "filtered")
            let page = try await stops.fetch(members, page: PageRequest(number: 2, size: 2), withTotal: true)
            try expectEqual(page.models.map(\.id), [data.belem.id], "the second page")
            try expectEqual(page.total, 3, "the page's total")

            let everyone = Query<Stop>.all.sorted(byPositionIn: Trip.stops, of: trip).sorted(by: \.name)
            try expectEqual(
                try await stops.fetch(everyone).map(\.id), order + [data.pontaDelgada.id, data.ribeira.id],
                "members first, then the rest by the next key")
            try expectEqual(
                try await stops.fetch(Query<Stop>.all.sorted(by: \.city).sorted(byPositionIn: Trip.stops, of: trip))
                    .map(\.id), [data.alfama.id, data.belem.id, data.pontaDelgada.id, data.ribeira.id, data.sintra.id],
                "a position after another key breaks its ties")

            let context = store.makeContext()
            try await context.setRelated(Trip.stops, of: trip, to: order.reversed())
            try expectEqual(try await context.fetch(members).map(\.id), order.reversed(), "a context's pending order")
            try expectEqual(try await stops.fetch(members).map(\.id), order, "the store keeps its order until the save")
        },
        ConformanceCheck(.queries, "aLiveQuerySortedByPositionFollowsReorders") { c in
            let (store, data) = try await c.seeded()
            let trip = data.lisbonSpring.id
            let query = Query<Stop>.where(\.trip == trip).sorted(byPositionIn: Trip.stops, of: trip)
            var values = store.observe(query).makeAsyncIterator()
            let stored = try await store.repository(Trip.self).related(Trip.stops, of: trip).map(\.id)
            let first = try expectNotNil(try await values.next(), "the initial value")
            try expectEqual(first.models.map(\.id), stored, "the stored order")
            let reversed = Array(stored.reversed())
            try await store.repository(Trip.self).setRelated(Trip.stops, of: trip, to: reversed)
            let moved = try expectNotNil(try await values.next(), "the reorder")
            try expectEqual(moved.models.map(\.id), reversed, "the new order")
            try expect(!moved.diff.moved.isEmpty && moved.diff.modified.isEmpty, "a reorder is moves: \(moved.diff)")
            let added = Stop(name: "Cascais", city: "Cascais", nights: 1, trip: trip)
            try await store.repository(Stop.self).insert(added)
            let joined = try expectNotNil(try await values.next(), "the new member")
            try expectEqual(joined.models.map(\.id), reversed + [added.id], "a new member joins at the end")
        },
        ConformanceCheck(.queries, "aPositionSortIsRefusedWhereItCannotBeAnswered") { c in
            let (store, data) = try await c.seeded()
            let stops = store.repository(Stop.self)
            let missing = Trip(name: "Nowhere", start: TravelDomain.day(1))
            try await expectError(.notFound, entity: "Trip") {
                _ = try await stops.fetch(Query<Stop>.all.sorted(byPositionIn: Trip.stops, of: missing.id))
            }
            try await expectError(.invalidQuery, entity: "Trip", property: "tags") {
                _ = try await store.repository(Tag.self).fetch(
                    Query<Tag>.all.sorted(byPositionIn: Trip.tags, of: data.lisbonSpring.id))
            }
            let members = Query<Stop>.all.sorted(byPositionIn: Trip.stops, of: data.lisbonSpring.id)
            try await expectError(.invalidQuery, property: "stops") {
                _ = try await stops.fetch(members.limit(2), after: nil)
            }
        },
    ]
}
