import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Shares in a run (`STRATA_SIMULATION_SHARES=1`, servers in this process): the server scopes
/// trips by their traveller — a trip with none is everyone's, one with a traveller is the trip of
/// the client whose e-mail domain the traveller's address has (`p3@c1.example` is c1's) — and stops
/// with their trips; an owner shares a trip of its own, with its stops, with another client to
/// read or to write, and revokes it later. The judge then compares each client with an observer
/// signed in as the same identity.
extension SimulationWorld {
    /// Whether steps share and revoke trips (`STRATA_SIMULATION_SHARES=1`).
    static var sharesRequested: Bool { ProcessInfo.processInfo.environment["STRATA_SIMULATION_SHARES"] == "1" }

    /// What each client may read and write when a run shares (everyone everything otherwise).
    static func access(shares: Bool) -> SyncAccess {
        guard shares else { return SyncAccess() }
        var access = SyncAccess()
        access.scope(Trip.self) { identity in trips(of: identity) }
        access.scope(Stop.self) { identity in .related(\Stop.trip, where: trips(of: identity)) }
        access.shareable(Trip.self, ownedBy: { identity in owned(by: identity) }, including: ["stops"])
        return access
    }

    /// The trips `identity` reads without a share: those without a traveller, and its own.
    private static func trips(of identity: SyncIdentity) -> Filter<Trip> {
        .any([.isNil(\Trip.traveller), owned(by: identity)])
    }

    /// The trips `identity` owns: their traveller's address is in its domain.
    private static func owned(by identity: SyncIdentity) -> Filter<Trip> {
        .related(\Trip.traveller, where: .hasSuffix(\Person.email, "@\(identity.id).example"))
    }

    /// The address a person client `index` creates gets when the run shares.
    static func email(slot: Int, client index: Int) -> String { "p\(slot)@c\(index).example" }

    /// Client `index` shares a trip of its own with another client, or revokes a share it made.
    mutating func shareChange(_ index: Int) async throws -> String {
        let client = clients[index]
        let name = client.name
        do {
            if random.below(3) < 2 {
                let people = try await client.store.repository(Person.self).fetch().filter {
                    $0.email?.hasSuffix("@\(name).example") == true
                }.map(\.id)
                let trips = try await client.store.repository(Trip.self).fetch().filter {
                    $0.traveller.map { people.contains($0) } == true
                }.sorted { $0.id.uuidString < $1.id.uuidString }
                guard !trips.isEmpty, clients.count > 1 else { return "\(name) has no trip of its own to share" }
                let trip = trips[random.below(trips.count)]
                let others = clients.indices.filter { $0 != index }
                let participant = "c\(others[random.below(others.count)])"
                let role: SyncShare.Role = random.chance(0.5) ? .readWrite : .read
                try await client.store.repository(SyncShare.self).insert(
                    SyncShare(Trip.self, trip.id, id: random.uuid(), owner: name, with: participant, role: role))
                return "\(name) shares \(pools.name(trip.id)) with \(participant) (\(role))"
            }
            let shares = try await client.store.repository(SyncShare.self).fetch().filter { $0.owner == name }
                .sorted { $0.id.uuidString < $1.id.uuidString }
            guard !shares.isEmpty else { return "\(name) has no share to revoke" }
            let share = shares[random.below(shares.count)]
            try await client.store.repository(SyncShare.self).delete(share.id)
            return "\(name) revokes its share of \(share.sharedID) with \(share.participant)"
        } catch let error as StrataError {
            return "\(name)'s share change: refused (\(error.code.rawValue))"
        }
    }
}

extension SyncSimulation {
    /// The schema of a run's stores: the travel domain, and the shares a run with shares writes.
    public static func schema() throws -> Schema {
        try Schema(models: TravelDomain.models + [SyncShare.self])
    }
}
