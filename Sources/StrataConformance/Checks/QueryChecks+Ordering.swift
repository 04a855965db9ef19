import Foundation
import Strata

/// Sorting (nil placement, several keys, ties by ID), limits, offsets and pages.
extension QueryChecks {
    static let ordering: [ConformanceCheck] = [
        ConformanceCheck(.queries, "sortAscendingPutsNilFirst") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await tripNames(store, Query.all.sorted(by: \.budget)),
                ["Açores Hike", "lisbon winter", "Porto Wine", "Lisbon Spring", "São Paulo Business"])
        },
        ConformanceCheck(.queries, "sortDescendingPutsNilLast") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await tripNames(store, Query.all.sorted(by: \.budget, .descending)),
                ["São Paulo Business", "Lisbon Spring", "Porto Wine", "lisbon winter", "Açores Hike"])
        },
        ConformanceCheck(.queries, "sortedPagesOverAnIndexedAttributeWithNulls") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).insert(Trip(name: "Tie A", start: TravelDomain.day(2), budget: 800))
            try await store.repository(Trip.self).insert(Trip(name: "No budget", start: TravelDomain.day(3)))
            let all = try await tripNames(store, Query.all.sorted(by: \.budget))
            try expectEqual(Array(all.prefix(2)).sorted(), ["Açores Hike", "No budget"], "nulls first ascending")
            try expectEqual(try await tripNames(store, Query.all.sorted(by: \.budget).limit(3)), Array(all.prefix(3)))
            try expectEqual(
                try await tripNames(store, Query.all.sorted(by: \.budget).offset(2).limit(3)), Array(all[2..<5]))
            let descending = try await tripNames(store, Query.all.sorted(by: \.budget, .descending))
            try expectEqual(
                try await tripNames(store, Query.all.sorted(by: \.budget, .descending).limit(4)),
                Array(descending.prefix(4)))
            try expectEqual(
                Array(descending.suffix(2)).sorted(), ["Açores Hike", "No budget"], "nulls last descending")
            // With a filter: the favourites (Lisbon Spring, Açores Hike) are skipped; São Paulo
            // (2500) leads, then the two 800 budgets in ID order.
            let nonFavourites = descending.filter { $0 != data.lisbonSpring.name && $0 != data.azoresHike.name }
            try expectEqual(
                try await tripNames(
                    store, Query.where(\.isFavorite == false).sorted(by: \.budget, .descending).limit(3)),
                Array(nonFavourites.prefix(3)))
            try expectEqual(nonFavourites.first, "São Paulo Business")
        },
        ConformanceCheck(.queries, "multiKeySort") { c in
            let (store, _) = try await c.seeded()
            let names = try await store.repository(Person.self).fetch(
                Query.all.sorted(by: \.rating, .descending).sorted(by: \.name)
            ).map(\.name)
            try expectEqual(names, ["Ana", "Dário", "Clara", "Bruno"])
            let byCity = try await store.repository(Person.self).fetch(
                Query.all.sorted(by: \.address.city).sorted(by: \.age, .descending)
            ).map(\.name)
            try expectEqual(byCity, ["Dário", "Ana", "Bruno", "Clara"])
        },
        ConformanceCheck(.queries, "tiesAreOrderedByIDAndStable") { c in
            let (store, data) = try await c.seeded()
            let query = Query<Person>.where(\.rating == 4.5).sorted(by: \.rating)
            let expected = [data.ana, data.dario].sorted { $0.id.recordID < $1.id.recordID }.map(\.name)
            for _ in 0..<3 {
                try expectEqual(try await store.repository(Person.self).fetch(query).map(\.name), expected)
            }
        },
        ConformanceCheck(.queries, "sortByStringAndDate") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await tripNames(store, Query.all.sorted(by: \.start, .descending)),
                ["lisbon winter", "São Paulo Business", "Açores Hike", "Porto Wine", "Lisbon Spring"])
            // Unicode scalar order: uppercase before lowercase, "Á"-like letters after ASCII.
            try expectEqual(
                try await tripNames(store, Query.all.sorted(by: \.name)),
                ["Açores Hike", "Lisbon Spring", "Porto Wine", "São Paulo Business", "lisbon winter"])
        },
        ConformanceCheck(.queries, "limitAndOffset") { c in
            let (store, _) = try await c.seeded()
            let byStart = Query<Trip>.all.sorted(by: \.start)
            try expectEqual(try await tripNames(store, byStart.limit(2)), ["Lisbon Spring", "Porto Wine"])
            try expectEqual(try await tripNames(store, byStart.offset(3)), ["São Paulo Business", "lisbon winter"])
            try expectEqual(try await tripNames(store, byStart.offset(1).limit(1)), ["Porto Wine"])
        },
        ConformanceCheck(.queries, "limitAndOffsetEdges") { c in
            let (store, _) = try await c.seeded()
            let byStart = Query<Trip>.all.sorted(by: \.start)
            try expectEqual(try await tripNames(store, byStart.limit(0)), [])
            try expectEqual(try await tripNames(store, byStart.offset(5)), [])
            try expectEqual(try await tripNames(store, byStart.offset(50).limit(3)), [])
            try expectEqual(try await tripNames(store, byStart.limit(50)).count, 5)
        },
        ConformanceCheck(.queries, "pagesCoverEveryRecordOnce") { c in
            let store = try await c.store()
            let people = (0..<37).map { Person(name: "P\($0 % 7)", age: $0 % 5) }
            try await store.repository(Person.self).insert(contentsOf: people)
            var seen: [UUID] = []
            let query = Query<Person>.all.sorted(by: \.age).sorted(by: \.name, .descending)
            for page in 0..<8 {
                seen += try await store.repository(Person.self).fetch(query.offset(page * 5).limit(5)).map(\.id)
            }
            try expectEqual(seen.count, 37)
            try expectEqual(Set(seen), Set(people.map(\.id)))
            try expectEqual(seen, try await store.repository(Person.self).fetch(query).map(\.id))
        },
        ConformanceCheck(.queries, "unsortedPagesFollowIDOrder") { c in
            let (store, data) = try await c.seeded()
            let all = try await store.repository(Trip.self).fetch().map(\.id)
            try expectEqual(all, data.trips.map(\.id).sorted { $0.recordID < $1.recordID })
            try expectEqual(
                try await store.repository(Trip.self).fetch(Query.all.offset(1).limit(2)).map(\.id), Array(all[1...2]))
        },
        ConformanceCheck(.queries, "countWithPredicateAndPage") { c in
            let (store, _) = try await c.seeded()
            let trips = store.repository(Trip.self)
            try expectEqual(try await trips.count(), 5)
            try expectEqual(try await trips.count(where: \.isFavorite == true), 2)
            try expectEqual(try await trips.count(Query.all.limit(2)), 2)
            try expectEqual(try await trips.count(Query.all.offset(4)), 1)
            try expectEqual(try await trips.count(where: .any(Trip.stops)), 3)
        },
        ConformanceCheck(.queries, "firstFollowsSort") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await store.repository(Trip.self).first(Query.all.sorted(by: \.start, .descending))?.name,
                "lisbon winter")
            try expectEqual(try await store.repository(Trip.self).first(.where(\.budget > 10_000)), nil)
        },
    ]
}
