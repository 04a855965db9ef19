import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Delete rules stop at another identity's records: one identity's delete never cascades into,
/// nor is denied by (and so never reveals), a record it may not write. The other record's
/// reference to the deleted one is cleared, as a nullify would, and nothing else of it changes.
extension AdversaryChecks {
    /// Bob's push of one delete, and its result.
    static func bobDeletes(_ entity: String, _ id: RecordID, _ sequence: UInt64, _ world: TransportWorld)
        async throws -> MutationResult
    {
        let mutation = SyncMutation(
            id: MutationID(clientID: "b", sequence: sequence), kind: .delete, entity: entity, recordID: id,
            timestamp: HybridTimestamp(millis: Int64(sequence), node: "b"))
        let remote = world.host.remote(tokens: FixedToken("token-b"))
        let response = try await remote.push(PushRequest(clientID: "b", mutations: [mutation]))
        return try expectNotNil(response.results.first, "one result")
    }

    static let deletes: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aDeleteNeverCascadesIntoNorIsDeniedByAnotherIdentitysRecords") { c in
            var access = SyncAccess()
            let domain: @Sendable (SyncIdentity) -> Filter<Person> = { identity in
                .hasSuffix(\Person.email, "@" + (identity.attributes["domain"] ?? "nowhere.invalid"))
            }
            access.scope(Person.self, domain)
            access.scope(Trip.self) { identity in .hasPrefix(\Trip.name, identity.id + ":") }
            access.scope(Agency.self) { identity in .related(\Agency.owner, where: domain(identity)) }
            let world = try await TransportWorld.make(c, access: access)
            let ana = Person(name: "Ana", email: "ana@a.example")
            let bo = Person(name: "Bo", email: "bo@b.example")
            let agency = Agency(id: 7, name: "Bo's agency", owner: bo.id)
            // References made while they were allowed (a share since revoked, an admin's write).
            let booked = Trip(name: "alice:Lisbon", start: TravelDomain.day(1), traveller: ana.id, agency: agency.id)
            let pointing = Trip(name: "alice:Oslo", start: TravelDomain.day(2), traveller: bo.id)
            let store = world.server.store
            try await store.transaction { tx in
                for person in [ana, bo] { try tx.insert(person) }
                try tx.insert(agency)
                for trip in [booked, pointing] { try tx.insert(trip) }
            }
            // Agency.bookings is deny: Alice's booking does not block Bob, nor tell him it exists.
            let unbooked = try await bobDeletes("Agency", .int(agency.id), 1, world)
            try expectEqual(unbooked.outcome, .applied, "Bob deletes his agency: \(unbooked)")
            try expectEqual(try await store.repository(Agency.self).count(), 0)
            var lisbon = try expectNotNil(try await store.repository(Trip.self).fetch(booked.id), "Alice's trip")
            try expectEqual(lisbon.agency, nil, "its reference to the deleted agency is cleared")
            lisbon.agency = agency.id
            try expectEqual(lisbon, booked, "and nothing else of it changed")
            // Person.trips is cascade: deleting Bob's person does not delete Alice's trip.
            let gone = try await bobDeletes("Person", .uuid(bo.id), 2, world)
            try expectEqual(gone.outcome, .applied, "Bob deletes his person: \(gone)")
            try expectEqual(try await store.repository(Person.self).fetch().map(\.name), ["Ana"])
            let oslo = try expectNotNil(try await store.repository(Trip.self).fetch(pointing.id), "not cascaded")
            try expectEqual(oslo.traveller, nil, "its reference to the deleted person is cleared")
            try expectEqual(oslo.name, pointing.name)
            // Bob's own records still cascade as before.
            let own = Person(name: "Bea", email: "bea@b.example")
            let mine = Trip(name: "bob:Rome", start: TravelDomain.day(3), traveller: own.id)
            try await store.transaction { tx in
                try tx.insert(own)
                try tx.insert(mine)
            }
            try expectEqual(try await bobDeletes("Person", .uuid(own.id), 3, world).outcome, .applied)
            try expectEqual(try await store.repository(Trip.self).fetch(mine.id), nil, "his own trip cascaded")
        }
    ]
}
