import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Delete rules between identities over seeded random graphs: people of two domains, trips of two
/// owners pointing at anyone's people, stops under the trips. Bob pushes deletes of random people
/// and trips, and after every push the store must hold what a reference model says: his own
/// cascades run, Alice's records are never deleted (their references to what he deleted are
/// cleared), and a delete of a record he may not write changes nothing. A failure prints the seed
/// and the step (`STRATA_DELETE_SEED` replays it; the steps before it are the shortest replay).
extension AdversaryChecks {
    /// The model: who owns what and what points where.
    struct DeleteGraph {
        var people: [UUID: Bool] = [:]  // true: Bob's domain
        var trips: [UUID: (bobs: Bool, traveller: UUID?)] = [:]
        var stops: [UUID: UUID] = [:]  // stop → trip

        mutating func bobDeletes(person: UUID) {
            guard people[person] == true else { return }
            people[person] = nil
            for (id, trip) in trips where trip.traveller == person {
                if trip.bobs { bobDeletes(trip: id) } else { trips[id]?.traveller = nil }
            }
        }

        mutating func bobDeletes(trip: UUID) {
            guard trips[trip]?.bobs == true else { return }
            trips[trip] = nil
            stops = stops.filter { $0.value != trip }
        }
    }

    static var deleteScopes: SyncAccess {
        var access = SyncAccess()
        access.scope(Person.self) { identity in
            .hasSuffix(\Person.email, "@" + (identity.attributes["domain"] ?? "nowhere.invalid"))
        }
        access.scope(Trip.self) { identity in .hasPrefix(\Trip.name, identity.id + ":") }
        return access
    }

    static let deleteGraphs: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "seededGraphsOfTwoIdentitiesDeleteAsTheReferenceModelSays") { c in
            let seed = DurabilitySettings.seed("STRATA_DELETE_SEED", default: 0xDE1_E7E5)
            let rounds = DurabilitySettings.count("STRATA_DELETE_GRAPHS", default: 3)
            print("seededGraphsOfTwoIdentities: seed \(seed) (STRATA_DELETE_SEED), \(rounds) graphs")
            var random = SeededRandom(seed: seed)
            var sequence: UInt64 = 0
            for round in 0..<rounds {
                let world = try await TransportWorld.make(c, access: deleteScopes)
                var model = DeleteGraph()
                try await seedGraph(&model, &random, world.server.store)
                for step in 0..<12 {
                    sequence += 1
                    let what: String
                    let people = model.people.keys.sorted { $0.uuidString < $1.uuidString }
                    let trips = model.trips.keys.sorted { $0.uuidString < $1.uuidString }
                    if random.chance(0.6), !people.isEmpty {
                        let person = random.pick(people)
                        what = "person \(person)"
                        _ = try await bobDeletes("Person", .uuid(person), sequence, world)
                        model.bobDeletes(person: person)
                    } else if !trips.isEmpty {
                        let trip = random.pick(trips)
                        what = "trip \(trip)"
                        _ = try await bobDeletes("Trip", .uuid(trip), sequence, world)
                        model.bobDeletes(trip: trip)
                    } else {
                        break
                    }
                    try await expectGraph(
                        model, in: world.server.store,
                        "seed \(seed) (STRATA_DELETE_SEED), graph \(round), step \(step): Bob deleted \(what)")
                }
            }
        }
    ]

    static func seedGraph(_ model: inout DeleteGraph, _ random: inout SeededRandom, _ store: Store) async throws {
        let people = (0..<random.int(3...6)).map { index in
            Person(name: "p\(index)", email: "p\(index)@" + (index % 2 == 0 ? "a" : "b") + ".example")
        }
        for person in people { model.people[person.id] = person.email?.hasSuffix("@b.example") == true }
        var trips: [Trip] = []
        for index in 0..<random.int(4...10) {
            let bobs = random.chance(0.5)
            let traveller = random.chance(0.85) ? random.pick(people).id : nil
            trips.append(
                Trip(
                    name: (bobs ? "bob:" : "alice:") + "t\(index)", start: TravelDomain.day(Double(index + 1)),
                    traveller: traveller))
            model.trips[trips[index].id] = (bobs, traveller)
        }
        var stops: [Stop] = []
        for index in 0..<random.int(0...12) {
            let trip = random.pick(trips).id
            stops.append(Stop(name: "s\(index)", city: "c", trip: trip))
            model.stops[stops[index].id] = trip
        }
        let (allTrips, allStops) = (trips, stops)
        try await store.transaction { tx in
            for person in people { try tx.insert(person) }
            for trip in allTrips { try tx.insert(trip) }
            for stop in allStops { try tx.insert(stop) }
        }
    }

    static func expectGraph(_ model: DeleteGraph, in store: Store, _ where_: String) async throws {
        let people = Set(try await store.repository(Person.self).fetch().map(\.id))
        try expectEqual(people, Set(model.people.keys), "\(where_): the people")
        let trips = try await store.repository(Trip.self).fetch()
        try expectEqual(Set(trips.map(\.id)), Set(model.trips.keys), "\(where_): the trips")
        for trip in trips {
            try expectEqual(trip.traveller, model.trips[trip.id]?.traveller, "\(where_): \(trip.name)'s traveller")
        }
        let stops = try await store.repository(Stop.self).fetch()
        try expectEqual(Set(stops.map(\.id)), Set(model.stops.keys), "\(where_): the stops")
    }
}
