import Foundation
import Strata
import StrataSync

/// Links and the records around trips: tags (many-to-many, at most 5 per trip), travellers
/// (cascading to their trips), agencies (denying a delete while they hold bookings).
extension SimulationEdit {
    mutating func tagTrip(_ random: inout SeededRandom) async throws -> String {
        guard let trip = pick(try await present(Trip.self), &random),
            let tag = pick(try await present(Tag.self), &random)
        else { return "\(name) has nothing to tag" }
        let line = trying("tags \(pools.name(trip.id)) with \(tag.id)")
        try await store.repository(Trip.self).link(Trip.tags, from: trip.id, to: tag.id)
        return line
    }

    mutating func untagTrip(_ random: inout SeededRandom) async throws -> String {
        guard let trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip to untag" }
        let tags = try await store.repository(Trip.self).related(Trip.tags, of: trip.id)
        guard let tag = pick(tags, &random) else { return "\(name)'s \(pools.name(trip.id)) has no tag" }
        let line = trying("untags \(pools.name(trip.id)) from \(tag.id)")
        try await store.repository(Trip.self).unlink(Trip.tags, from: trip.id, to: tag.id)
        return line
    }

    mutating func createTag(_ random: inout SeededRandom) async throws -> String {
        let id = random.pick(pools.tags)
        if try await store.repository(Tag.self).fetch(id) != nil { return "\(name) already has \(id)" }
        let line = trying("creates \(id)")
        try await store.repository(Tag.self).insert(Tag(id: id, label: "label of \(id)"))
        return line
    }

    mutating func deleteTag(_ random: inout SeededRandom) async throws -> String {
        guard let tag = pick(try await present(Tag.self), &random) else { return "\(name) has no tag to delete" }
        let line = trying("deletes \(tag.id)")
        try await store.repository(Tag.self).delete(tag.id)
        return line
    }

    mutating func createPerson(_ random: inout SeededRandom) async throws -> String {
        let slot = random.below(pools.people.count)
        if try await store.repository(Person.self).fetch(pools.people[slot]) != nil {
            return "\(name) already has p\(slot)"
        }
        let line = trying("creates p\(slot)")
        try await store.repository(Person.self).insert(
            Person(id: pools.people[slot], name: "p\(slot) by \(name)", email: email(slot)))
        return line
    }

    mutating func assignTraveller(_ random: inout SeededRandom) async throws -> String {
        guard var trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip to assign" }
        let person = random.chance(0.2) ? nil : pick(try await present(Person.self), &random)
        trip.traveller = person?.id
        let line = trying("sends \(person.map { pools.name($0.id) } ?? "nobody") on \(pools.name(trip.id))")
        try await store.repository(Trip.self).update(trip)
        return line
    }

    mutating func deletePerson(_ random: inout SeededRandom) async throws -> String {
        guard let person = pick(try await present(Person.self), &random) else {
            return "\(name) has nobody to delete"
        }
        let line = trying("deletes \(pools.name(person.id)) (their trips cascade)")
        try await store.repository(Person.self).delete(person.id)
        return line
    }

    mutating func createAgency(_ random: inout SeededRandom) async throws -> String {
        let id = random.pick(pools.agencies)
        if try await store.repository(Agency.self).fetch(id) != nil { return "\(name) already has a\(id)" }
        let line = trying("creates a\(id)")
        try await store.repository(Agency.self).insert(Agency(id: id, name: "agency \(id)"))
        return line
    }

    mutating func book(_ random: inout SeededRandom) async throws -> String {
        guard var trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip to book" }
        let agency = random.chance(0.25) ? nil : pick(try await present(Agency.self), &random)
        trip.agency = agency?.id
        let line = trying("books \(pools.name(trip.id)) with \(agency.map { "a\($0.id)" } ?? "no agency")")
        try await store.repository(Trip.self).update(trip)
        return line
    }

    mutating func deleteAgency(_ random: inout SeededRandom) async throws -> String {
        guard let agency = pick(try await present(Agency.self), &random) else {
            return "\(name) has no agency to delete"
        }
        let line = trying("deletes a\(agency.id) (denied while it has bookings)")
        try await store.repository(Agency.self).delete(agency.id)
        return line
    }
}
