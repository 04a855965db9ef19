import Foundation
import Strata
import StrataSync

/// One client's local writes in a run, each against what its store holds now; `last` names the
/// write being tried, so a refusal can be traced.
struct SimulationEdit {
    let store: Store
    let pools: SimulationPools
    let name: String
    /// The address a person this client creates gets (`nil` unless the run shares).
    let email: @Sendable (Int) -> String?
    private(set) var last = ""

    init(store: Store, pools: SimulationPools, name: String, email: @escaping @Sendable (Int) -> String? = { _ in nil })
    {
        self.store = store
        self.pools = pools
        self.name = name
        self.email = email
    }

    mutating func trying(_ line: String) -> String {
        last = "\(name) \(line)"
        return last
    }

    func present<M: PersistentModel>(_ type: M.Type) async throws -> [M] {
        try await store.repository(type).fetch()
    }

    func pick<T>(_ values: [T], _ random: inout SeededRandom) -> T? {
        values.isEmpty ? nil : values[random.below(values.count)]
    }

    mutating func createTrip(_ random: inout SeededRandom) async throws -> String {
        let slot = random.below(pools.trips.count)
        let id = pools.trips[slot]
        if try await store.repository(Trip.self).fetch(id) != nil { return "\(name) already has t\(slot)" }
        let traveller = random.chance(0.5) ? pick(try await present(Person.self), &random)?.id : nil
        let trip = Trip(
            id: id, name: "t\(slot) by \(name)", start: TravelDomain.day(Double(slot)), traveller: traveller)
        let line = trying("creates t\(slot)" + (traveller.map { " for \(pools.name($0))" } ?? ""))
        try await store.repository(Trip.self).insert(trip)
        return line
    }

    mutating func renameTrip(_ random: inout SeededRandom) async throws -> String {
        guard var trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip to rename" }
        trip.name = "\(pools.name(trip.id)) named \(random.below(1000)) by \(name)"
        let line = trying("renames \(pools.name(trip.id)) to \(trip.name)")
        try await store.repository(Trip.self).update(trip)
        return line
    }

    mutating func budgetTrip(_ random: inout SeededRandom) async throws -> String {
        guard var trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip to budget" }
        trip.budget = random.chance(0.2) ? nil : Double(random.below(5000))
        let line = trying("budgets \(pools.name(trip.id)) at \(trip.budget.map { "\($0)" } ?? "none")")
        try await store.repository(Trip.self).update(trip)
        return line
    }

    mutating func createStop(_ random: inout SeededRandom) async throws -> String {
        let slot = random.below(pools.stops.count)
        if try await store.repository(Stop.self).fetch(pools.stops[slot]) != nil {
            return "\(name) already has s\(slot)"
        }
        guard let trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip for a stop" }
        let stop = Stop(
            id: pools.stops[slot], name: "s\(slot)", city: random.pick(["Lisbon", "Porto", "Faro"]),
            nights: random.below(10), trip: trip.id)
        let line = trying("creates s\(slot) under \(pools.name(trip.id))")
        try await store.repository(Stop.self).insert(stop)
        return line
    }

    mutating func moveStop(_ random: inout SeededRandom) async throws -> String {
        guard var stop = pick(try await present(Stop.self), &random),
            let trip = pick(try await present(Trip.self), &random)
        else { return "\(name) has nothing to move" }
        let line = trying("moves \(pools.name(stop.id)) to \(pools.name(trip.id))")
        stop.trip = trip.id
        try await store.repository(Stop.self).update(stop)
        return line
    }

    mutating func editStop(_ random: inout SeededRandom) async throws -> String {
        guard var stop = pick(try await present(Stop.self), &random) else { return "\(name) has no stop to edit" }
        stop.nights = random.below(30)
        let line = trying("sets \(pools.name(stop.id)) to \(stop.nights) nights")
        try await store.repository(Stop.self).update(stop)
        return line
    }

    mutating func deleteTrip(_ random: inout SeededRandom) async throws -> String {
        guard let trip = pick(try await present(Trip.self), &random) else { return "\(name) has no trip to delete" }
        let line = trying("deletes \(pools.name(trip.id)) (its stops cascade)")
        try await store.repository(Trip.self).delete(trip.id)
        return line
    }

    mutating func deleteStop(_ random: inout SeededRandom) async throws -> String {
        guard let stop = pick(try await present(Stop.self), &random) else { return "\(name) has no stop to delete" }
        let line = trying("deletes \(pools.name(stop.id))")
        try await store.repository(Stop.self).delete(stop.id)
        return line
    }
}
