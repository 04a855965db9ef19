import Foundation
import Strata

enum RelationshipChecks {
    static func tripsOf(_ store: Store, _ person: Person.ID) async throws -> [String] {
        try await store.repository(Person.self).related(Person.trips, of: person).map(\.name).sorted()
    }

    static func stopNames(_ store: Store, _ trip: Trip.ID) async throws -> [String] {
        try await store.repository(Trip.self).related(Trip.stops, of: trip).map(\.name)
    }

    static let all: [ConformanceCheck] = toOne + ordered + manyToMany + oneToOne + moves + prefetch

    static let toOne: [ConformanceCheck] = [
        ConformanceCheck(.relationships, "toOneIsVisibleFromTheInverseToMany") { c in
            let (store, data) = try await c.seeded()
            try expectEqual(try await tripsOf(store, data.ana.id), ["Lisbon Spring", "Porto Wine"])
            try expectEqual(try await tripsOf(store, data.dario.id), [])
        },
        ConformanceCheck(.relationships, "repointingMovesBetweenInverseSides") { c in
            let (store, data) = try await c.seeded()
            var trip = data.portoWine
            trip.traveller = data.dario.id
            try await store.repository(Trip.self).update(trip)
            try expectEqual(try await tripsOf(store, data.ana.id), ["Lisbon Spring"])
            try expectEqual(try await tripsOf(store, data.dario.id), ["Porto Wine"])
        },
        ConformanceCheck(.relationships, "clearingToOneRemovesFromInverse") { c in
            let (store, data) = try await c.seeded()
            var trip = data.portoWine
            trip.traveller = nil
            try await store.repository(Trip.self).update(trip)
            try expectEqual(try await tripsOf(store, data.ana.id), ["Lisbon Spring"])
        },
        ConformanceCheck(.relationships, "linkFromToManySideSetsTheToOne") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Person.self).link(
                Person.trips, from: data.dario.id, to: data.saoPauloBusiness.id)
            try expectEqual(
                try await store.repository(Trip.self).fetch(data.saoPauloBusiness.id)?.traveller, data.dario.id)
            try expectEqual(try await tripsOf(store, data.dario.id), ["São Paulo Business"])
        },
        ConformanceCheck(.relationships, "unlinkFromToManySideClearsTheToOne") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Person.self).unlink(Person.trips, from: data.ana.id, to: data.portoWine.id)
            try expectEqual(try await store.repository(Trip.self).fetch(data.portoWine.id)?.traveller, nil)
            try expectEqual(try await tripsOf(store, data.ana.id), ["Lisbon Spring"])
        },
        ConformanceCheck(.relationships, "setRelatedReplacesAToManyMembership") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Person.self).setRelated(
                Person.trips, of: data.ana.id, to: [data.portoWine.id, data.lisbonWinter.id])
            try expectEqual(try await tripsOf(store, data.ana.id), ["Porto Wine", "lisbon winter"])
            try expectEqual(try await tripsOf(store, data.clara.id), [])
            try expectEqual(try await store.repository(Trip.self).fetch(data.lisbonSpring.id)?.traveller, nil)
        },
        ConformanceCheck(.relationships, "relationshipChangesAreVisibleInsideTheTransaction") { c in
            let (store, data) = try await c.seeded()
            let seen = try await store.transaction { tx in
                try tx.link(Person.trips, from: data.bruno.id, to: data.lisbonWinter.id)
                return try tx.related(Person.trips, of: data.bruno.id).map(\.name).sorted()
            }
            try expectEqual(seen, ["Açores Hike", "lisbon winter"])
        },
    ]

    static let ordered: [ConformanceCheck] = [
        ConformanceCheck(.relationships, "orderedToManyKeepsInsertionOrder") { c in
            let (store, data) = try await c.seeded()
            try expectEqual(try await stopNames(store, data.lisbonSpring.id), ["Alfama", "Belém", "Sintra"])
        },
        ConformanceCheck(.relationships, "setRelatedReordersAnOrderedToMany") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).setRelated(
                Trip.stops, of: data.lisbonSpring.id, to: [data.sintra.id, data.alfama.id, data.belem.id])
            try expectEqual(try await stopNames(store, data.lisbonSpring.id), ["Sintra", "Alfama", "Belém"])
        },
        ConformanceCheck(.relationships, "movingAnOrderedMemberAppendsItToItsNewOwner") { c in
            let (store, data) = try await c.seeded()
            var stop = data.belem
            stop.trip = data.portoWine.id
            try await store.repository(Stop.self).update(stop)
            try expectEqual(try await stopNames(store, data.lisbonSpring.id), ["Alfama", "Sintra"])
            try expectEqual(try await stopNames(store, data.portoWine.id), ["Ribeira", "Belém"])
        },
        ConformanceCheck(.relationships, "setRelatedCanMoveMembersBetweenOwners") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).setRelated(
                Trip.stops, of: data.portoWine.id, to: [data.sintra.id, data.ribeira.id])
            try expectEqual(try await stopNames(store, data.portoWine.id), ["Sintra", "Ribeira"])
            try expectEqual(try await stopNames(store, data.lisbonSpring.id), ["Alfama", "Belém"])
            try expectEqual(try await store.repository(Stop.self).fetch(data.sintra.id)?.trip, data.portoWine.id)
        },
        // Found by the sync simulation: a pushed batch carried a stop before its trip's insert, and
        // the trip's list stayed empty, so deleting the trip left the stop naming it.
        ConformanceCheck(.relationships, "childrenSavedBeforeTheirOwnerInOneSaveJoinItsOrderedList") { c in
            let store = try await c.store()
            for path in ["transaction", "context"] {
                let trip = Trip(name: "Later (\(path))", start: TravelDomain.day(1))
                let first = Stop(name: "First", city: "Lisbon", trip: trip.id)
                let second = Stop(name: "Second", city: "Porto", trip: trip.id)
                if path == "transaction" {
                    try await store.transaction { tx in
                        for stop in [first, second] { try tx.insert(stop) }
                        try tx.insert(trip)
                    }
                } else {
                    let context = store.makeContext()
                    for stop in [first, second] { try await context.insert(stop) }
                    try await context.insert(trip)
                    try await context.save()
                }
                // A transaction keeps the order they were saved in; a context's save sets the list
                // from its own pending view (the order among members it inserted is not promised).
                let names = try await stopNames(store, trip.id)
                try expectEqual(
                    path == "transaction" ? names : names.sorted(), ["First", "Second"], "\(path): the list holds them")
                try await store.repository(Trip.self).delete(trip.id)
                for stop in [first, second] {
                    try expectEqual(
                        try await store.repository(Stop.self).fetch(stop.id), nil,
                        "\(path): deleting the trip cascades to \(stop.name)")
                }
            }
        },
        ConformanceCheck(.relationships, "orderSurvivesReopen", requires: [.reopen]) { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).setRelated(
                Trip.stops, of: data.lisbonSpring.id, to: [data.belem.id, data.sintra.id, data.alfama.id])
            let reopened = try await c.reopen(store)
            try expectEqual(try await stopNames(reopened, data.lisbonSpring.id), ["Belém", "Sintra", "Alfama"])
            try expectEqual(
                try await reopened.repository(Tag.self).related(Tag.trips, of: "beach").map(\.name), ["Lisbon Spring"])
        },
        ConformanceCheck(.relationships, "orderedManyToManyKeepsOrder") { c in
            let (store, data) = try await c.seeded()
            let people = store.repository(Person.self)
            try await people.link(Person.interests, from: data.ana.id, to: "food")
            try await people.link(Person.interests, from: data.ana.id, to: "beach")
            try await people.link(Person.interests, from: data.ana.id, to: "city")
            try expectEqual(
                try await people.related(Person.interests, of: data.ana.id).map(\.id), ["food", "beach", "city"])
            try await people.setRelated(Person.interests, of: data.ana.id, to: ["city", "food"])
            try expectEqual(try await people.related(Person.interests, of: data.ana.id).map(\.id), ["city", "food"])
            try expectEqual(try await store.repository(Tag.self).related(Tag.people, of: "beach"), [])
            try expectEqual(try await store.repository(Tag.self).related(Tag.people, of: "city").map(\.name), ["Ana"])
        },
    ]

    static let manyToMany: [ConformanceCheck] = [
        ConformanceCheck(.relationships, "manyToManyIsVisibleFromBothSides") { c in
            let (store, data) = try await c.seeded()
            try expectEqual(
                Set(try await store.repository(Trip.self).related(Trip.tags, of: data.lisbonSpring.id).map(\.id)),
                ["beach", "city"])
            try expectEqual(
                try await store.repository(Tag.self).related(Tag.trips, of: "food").map(\.name), ["Porto Wine"])
        },
        ConformanceCheck(.relationships, "manyToManyLinkFromTheOtherSide") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Tag.self).link(Tag.trips, from: "beach", to: data.azoresHike.id)
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.tags, of: data.azoresHike.id).map(\.id), ["beach"])
            try expectEqual(
                Set(try await store.repository(Tag.self).related(Tag.trips, of: "beach").map(\.name)),
                ["Lisbon Spring", "Açores Hike"])
        },
        ConformanceCheck(.relationships, "manyToManyUnlinkFromEitherSide") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).unlink(Trip.tags, from: data.lisbonSpring.id, to: "beach")
            try await store.repository(Tag.self).unlink(Tag.trips, from: "city", to: data.lisbonSpring.id)
            try expectEqual(try await store.repository(Trip.self).related(Trip.tags, of: data.lisbonSpring.id), [])
            try expectEqual(try await store.repository(Tag.self).related(Tag.trips, of: "beach"), [])
        },
        ConformanceCheck(.relationships, "manyToManyLinkIsIdempotent") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).link(Trip.tags, from: data.portoWine.id, to: "food")
            try await store.repository(Tag.self).link(Tag.trips, from: "food", to: data.portoWine.id)
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.tags, of: data.portoWine.id).map(\.id), ["food"])
        },
        ConformanceCheck(.relationships, "manyToManySetRelated") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Tag.self).setRelated(
                Tag.trips, of: "food", to: [data.azoresHike.id, data.lisbonWinter.id])
            try expectEqual(
                Set(try await store.repository(Tag.self).related(Tag.trips, of: "food").map(\.name)),
                ["Açores Hike", "lisbon winter"])
            try expectEqual(try await store.repository(Trip.self).related(Trip.tags, of: data.portoWine.id), [])
        },
    ]

    static let oneToOne: [ConformanceCheck] = [
        ConformanceCheck(.relationships, "oneToOneSetsBothSides") { c in
            let (store, data) = try await c.seeded()
            let passport = Passport(number: "P-1", owner: data.ana.id)
            try await store.repository(Passport.self).insert(passport)
            try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.passport, passport.id)
            var bruno = data.bruno
            let second = Passport(number: "P-2")
            try await store.repository(Passport.self).insert(second)
            bruno.passport = second.id
            try await store.repository(Person.self).update(bruno)
            try expectEqual(try await store.repository(Passport.self).fetch(second.id)?.owner, bruno.id)
        },
        ConformanceCheck(.relationships, "oneToOneRepointingStealsFromThePreviousPartner") { c in
            let (store, data) = try await c.seeded()
            let first = Passport(number: "P-1", owner: data.ana.id)
            let second = Passport(number: "P-2")
            try await store.transaction { tx in
                try tx.insert(first)
                try tx.insert(second)
            }
            var moved = second
            moved.owner = data.ana.id
            try await store.repository(Passport.self).update(moved)
            try expectEqual(
                try await store.repository(Passport.self).fetch(first.id)?.owner, nil, "the old partner lets go")
            try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.passport, second.id)
            // From the other side: Bruno takes Ana's passport, Ana loses it.
            var bruno = data.bruno
            bruno.passport = second.id
            try await store.repository(Person.self).update(bruno)
            try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.passport, nil)
            try expectEqual(try await store.repository(Passport.self).fetch(second.id)?.owner, data.bruno.id)
        },
        ConformanceCheck(.relationships, "oneToOneInsertedTogetherInEitherOrder") { c in
            let store = try await c.store()
            let passport = Passport(number: "X-1")
            let person = Person(name: "Zoe", passport: passport.id)
            try await store.transaction { tx in
                try tx.insert(person)
                try tx.insert(passport)
            }
            try expectEqual(try await store.repository(Passport.self).fetch(passport.id)?.owner, person.id)
            let otherPassport = Passport(number: "X-2")
            let other = Person(name: "Yan")
            try await store.transaction { tx in
                try tx.insert(Passport(id: otherPassport.id, number: otherPassport.number, owner: other.id))
                try tx.insert(other)
            }
            try expectEqual(try await store.repository(Person.self).fetch(other.id)?.passport, otherPassport.id)
        },
        ConformanceCheck(.relationships, "selfReferentialOneToOneStaysConsistent") { c in
            let store = try await c.store()
            let nodes = store.repository(Node.self)
            try await store.transaction { tx in
                try tx.insert(Node(id: "a"))
                try tx.insert(Node(id: "b"))
                try tx.insert(Node(id: "c"))
            }
            var a = try expectNotNil(try await nodes.fetch("a"))
            a.next = "b"
            try await nodes.update(a)
            try expectEqual(try await nodes.fetch("b")?.previous, "a")
            var c2 = try expectNotNil(try await nodes.fetch("c"))
            c2.next = "b"
            try await nodes.update(c2)
            try expectEqual(try await nodes.fetch("b")?.previous, "c")
            try expectEqual(try await nodes.fetch("a")?.next, nil, "a lost b to c")
        },
    ]

    static let prefetch: [ConformanceCheck] = [
        ConformanceCheck(.relationships, "prefetchEqualsLazyForOrderedToMany") { c in
            let (store, _) = try await c.seeded()
            let trips = store.repository(Trip.self)
            let page = try await trips.fetch(Query.all.sorted(by: \.start), including: Trip.stops)
            try expectEqual(page.count, 5)
            for (trip, stops) in page { try expectEqual(stops, try await trips.related(Trip.stops, of: trip.id)) }
            try expectEqual(page[0].related.map(\.name), ["Alfama", "Belém", "Sintra"])
        },
        ConformanceCheck(.relationships, "prefetchEqualsLazyForDerivedAndManyToMany") { c in
            let (store, _) = try await c.seeded()
            let people = store.repository(Person.self)
            for (person, trips) in try await people.fetch(.all, including: Person.trips) {
                try expectEqual(trips, try await people.related(Person.trips, of: person.id))
            }
            let tags = store.repository(Tag.self)
            for (tag, trips) in try await tags.fetch(.all, including: Tag.trips) {
                try expectEqual(trips, try await tags.related(Tag.trips, of: tag.id))
            }
        },
        ConformanceCheck(.relationships, "toOnePrefetchEqualsLazy") { c in
            let (store, data) = try await c.seeded()
            let trips = try await store.repository(Trip.self).fetch()
            let travellers = try await store.repository(Trip.self).referenced(Person.self, by: \.traveller, of: trips)
            try expectEqual(Set(travellers.keys), [data.ana.id, data.bruno.id, data.clara.id])
            for trip in trips {
                if let id = trip.traveller {
                    try expectEqual(travellers[id], try await store.repository(Person.self).fetch(id))
                }
            }
        },
        ConformanceCheck(.relationships, "prefetchOfALargePageSpansBatches") { c in
            let store = try await c.store()
            let people = (0..<1_100).map { Person(name: "P\($0)") }
            let trips = people.enumerated().map {
                Trip(name: "T\($0.offset)", start: TravelDomain.day(Double($0.offset)), traveller: $0.element.id)
            }
            try await store.repository(Person.self).insert(contentsOf: people)
            try await store.repository(Trip.self).insert(contentsOf: trips)
            let page = try await store.repository(Person.self).fetch(.all, including: Person.trips)
            try expectEqual(page.count, 1_100)
            for (person, related) in page { try expectEqual(related.map(\.traveller), [person.id]) }
            let travellers = try await store.repository(Trip.self).referenced(Person.self, by: \.traveller, of: trips)
            try expectEqual(Set(travellers.keys), Set(people.map(\.id)))
        },
        ConformanceCheck(.relationships, "relatedOfAnUnknownOwnerIsNotFoundAndOfAnOwnerWithoutMembersEmpty") { c in
            let (store, data) = try await c.seeded()
            try await expectError(.notFound, entity: "Trip") {
                _ = try await store.repository(Trip.self).related(Trip.stops, of: UUID())
            }
            try await expectError(.notFound, entity: "Person") {
                _ = try await store.makeContext().repository(Person.self).related(Person.trips, of: UUID())
            }
            let loner = Person(name: "Loner")
            try await store.repository(Person.self).insert(loner)
            try expectEqual(try await store.repository(Person.self).related(Person.trips, of: loner.id), [])
            try expectEqual(try await store.makeContext().related(Person.trips, of: loner.id), [])
            try expect(!(try await store.repository(Person.self).related(Person.trips, of: data.ana.id)).isEmpty)
        },
    ]
}
