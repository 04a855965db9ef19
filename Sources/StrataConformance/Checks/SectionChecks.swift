import Foundation
import Strata

/// Sectioned fetches: sections in key order (the keyless first, or last when the query's first
/// key descends), rows in the query's order, keys from an attribute, a day and a first letter,
/// through a store and through a context with pending changes.
enum SectionChecks {
    static var all: [ConformanceCheck] { fetched + observed }

    static let fetched: [ConformanceCheck] = [
        ConformanceCheck(.sections, "aSectionedFetchGroupsByKeyWithRowsInTheQuerysOrder") { c in
            let (store, data) = try await c.seeded()
            let stops = store.repository(Stop.self)
            let byCity = try await stops.fetch(
                Query<Stop>.all.sorted(by: \.city).sorted(by: \.name), sectionedBy: .attribute(\.city))
            try expectEqual(byCity.sections.map(\.key), ["Lisbon", "Ponta Delgada", "Porto", "Sintra"], "key order")
            try expectEqual(
                byCity.sections[0].models.map(\.id), [data.alfama.id, data.belem.id], "rows in query order")
            try expectEqual(byCity.sections.map(\.count), [2, 1, 1, 1])
            let descending = try await stops.fetch(
                Query<Stop>.all.sorted(by: \.city, .descending), sectionedBy: .attribute(\.city))
            try expectEqual(
                descending.sections.map(\.key), ["Sintra", "Porto", "Ponta Delgada", "Lisbon"], "descending")

            let people = store.repository(Person.self)
            let byAge = try await people.fetch(Query<Person>.all.sorted(by: \.name), sectionedBy: .attribute(\.age))
            try expectEqual(byAge.sections.map(\.key), [nil, 28, 34, 45], "the keyless section first")
            try expectEqual(byAge.sections[0].models.map(\.id), [data.clara.id])
            let byLetter = try await people.fetch(Query<Person>.all, sectionedBy: .firstLetter(\.name))
            try expectEqual(byLetter.sections.map(\.key), ["A", "B", "C", "D"], "first letters, Dário under D")

            let trips = store.repository(Trip.self)
            let byDay = try await trips.fetch(Query<Trip>.all.sorted(by: \.start), sectionedBy: .day(\.start))
            let days = try await trips.fetch(Query<Trip>.all.sorted(by: \.start)).map {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = .gmt
                return calendar.startOfDay(for: $0.start)
            }
            try expectEqual(byDay.sections.compactMap(\.key), days, "a section per day, keyed by its start")
            try expectEqual(byDay.models.count, data.trips.count, "every model once")
        },
        ConformanceCheck(.sections, "aContextsSectionsIncludeItsPendingChanges") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            try await context.insert(Stop(name: "Cais", city: "Porto", nights: 1, trip: data.portoWine.id))
            try await context.delete(Stop.self, id: data.sintra.id)
            let sections = try await context.repository(Stop.self).fetch(
                Query<Stop>.all.sorted(by: \.name), sectionedBy: .attribute(\.city))
            try expectEqual(
                sections.sections.map(\.key), ["Lisbon", "Ponta Delgada", "Porto"], "Sintra's only stop gone")
            try expectEqual(sections.sections[2].models.map(\.name), ["Cais", "Ribeira"], "the insert in its section")
        },
    ]
}
