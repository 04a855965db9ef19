import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A pulled tombstone removes what the server removed: the server's own tombstones and updates
/// carry what its delete rules did, so the client's rules do not act again on its copies of synced
/// records (which may differ by changes it has not pushed), and a deny never refuses the server's
/// deletion; only local-only records follow the client's rules.
extension TransportChecks {
    static let tombstones: [ConformanceCheck] = [
        ConformanceCheck(.transport, "aPulledDeletionDoesNotCascadeThroughAClientsUnpushedChange") { c in
            let world = try await TransportWorld.make(c)
            let lossy = AnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
            let a = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engineA = try SyncEngine(store: a, remote: lossy)
            let (b, engineB) = try await world.client("b", tokens: FixedToken("token-a"))
            let ana = Person(name: "Ana")
            let bo = Person(name: "Bo")
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000), traveller: bo.id)
            let stop = Stop(name: "Alfama", city: "Lisbon", trip: trip.id)
            try await b.transaction { tx in
                for person in [ana, bo] { try tx.insert(person) }
                try tx.insert(trip)
                try tx.insert(stop)
            }
            try await engineB.syncNow()
            try await engineA.syncNow()
            // A sends Ana on the trip (not pushed yet); meanwhile B deletes Ana, who travels
            // nowhere on the server (Person.trips cascades), so the server keeps the trip.
            var moved = trip
            moved.traveller = ana.id
            try await a.repository(Trip.self).update(moved)
            try await b.repository(Person.self).delete(ana.id)
            try await engineB.syncNow()
            await lossy.dropNextPush()
            do {
                try await engineA.syncNow()
                throw failure("the lost push should fail the sync")
            } catch is SyncTransportError {}
            // The pull removed Ana only: the trip and its stop stay, as on the server.
            try expect(try await a.repository(Person.self).fetch(ana.id) == nil, "Ana is gone")
            try expectEqual(try await a.repository(Stop.self).fetch(stop.id), stop)
            try expect(try await a.repository(Trip.self).fetch(trip.id) != nil, "the trip stays")
            // The change is refused (Ana is gone) and the client takes the server's trip back.
            let report = try await engineA.syncNow()
            try expectEqual(report.rejected, 1)
            let server = world.server.store
            try expectEqual(
                try await a.repository(Trip.self).fetch(trip.id), try await server.repository(Trip.self).fetch(trip.id))
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id)?.traveller, bo.id)
            try expectEqual(try await a.repository(Stop.self).fetch(stop.id), stop)
            try expectEqual(try await engineA.pendingMutations().count, 0)
        },
        ConformanceCheck(.transport, "aServerDeletionIsNotRefusedByALocalOnlyRecordsDenyRule") { c in
            let world = try await TransportWorld.make(c)
            let configuration = SyncConfiguration(clientID: "a", localOnly: ["Trip", "Stop"])
            let a = try await c.store().withSync(configuration)
            let engine = try SyncEngine(store: a, remote: world.host.remote(tokens: FixedToken("token-a")))
            let server = world.server.store
            try await server.repository(Agency.self).insert(Agency(id: 7, name: "Atlas"))
            try await engine.syncNow()
            try expectEqual(try await a.repository(Agency.self).fetch(7)?.name, "Atlas")
            // A trip only this client keeps books the agency (Agency.bookings denies a delete).
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000), agency: 7)
            try await a.repository(Trip.self).insert(trip)
            try await server.repository(Agency.self).delete(Int64(7))
            try await engine.syncNow()
            try expect(try await a.repository(Agency.self).fetch(7) == nil, "the server's deletion applies")
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id)?.agency, 7, "the local trip keeps it")
            try expectEqual(try await engine.pendingMutations().count, 0)
            // A local delete is judged by the rule as ever.
            try await a.repository(Agency.self).insert(Agency(id: 8, name: "Borealis"))
            var booked = trip
            booked.agency = 8
            try await a.repository(Trip.self).update(booked)
            try await expectError(.deleteDenied) { try await a.repository(Agency.self).delete(Int64(8)) }
        },
    ]
}
