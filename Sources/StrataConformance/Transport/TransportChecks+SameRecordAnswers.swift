import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A push whose answer carries server state for one record more than once — an insert refused,
/// then that record's delete and a new insert applied, the last not whole — is applied as its last
/// word on the record: staging each answer in turn deleted and inserted one record in one local
/// save, which the save refuses, and the sync failed.
extension TransportChecks {
    static let sameRecordAnswers: [ConformanceCheck] = [
        // Found by the sync simulation's large run (seed 1592910833).
        ConformanceCheck(.transport, "aPushAnsweringOneRecordSeveralTimesTakesItsLastState") { c in
            let world = try await TransportWorld.make(c)
            let ana = Person(name: "Ana", email: "ana@a.example")
            try await world.server.store.transaction { tx in
                try tx.insert(ana)
                try tx.insert(Tag(id: "sea", label: "Sea"))
            }
            let remote = AnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(store: store, remote: remote)
            try await engine.syncNow()
            try expectEqual(try await store.repository(Tag.self).count(), 1, "the client holds the tag")
            // The server deletes Ana and the tag; the client has not pulled since.
            try await world.server.store.repository(Person.self).delete(ana.id)
            try await world.server.store.repository(Tag.self).delete("sea")
            let trips = store.repository(Trip.self)
            let first = Trip(name: "Faro", start: TravelDomain.day(1), traveller: ana.id)
            try await trips.insert(first)
            // Sent, refused (Ana is gone), the answers lost (the pull's too): all is sent again.
            try await loseBoth(remote, engine)
            try await trips.delete(first.id)
            try await trips.insert(Trip(id: first.id, name: "Faro again", start: TravelDomain.day(2)))
            try await trips.link(Trip.tags, from: first.id, to: "sea")
            try await loseBoth(remote, engine)
            try await engine.syncNow()
            let server = try await world.server.store.repository(Trip.self).fetch(first.id)
            try expectEqual(server?.name, "Faro again", "the second insert applied")
            try expectEqual(try await trips.fetch(first.id), server, "the client holds it as the server does")
            try expectEqual(try await engine.pendingMutations().count, 0, "every mutation answered")
        }
    ]

    /// A sync whose push is applied and whose push and pull answers are lost.
    private static func loseBoth(_ remote: AnswerLosingRemote, _ engine: SyncEngine) async throws {
        await remote.loseNextAnswer {}
        await remote.loseNextPullAnswer()
        do {
            try await engine.syncNow()
            throw failure("the lost answers should fail the sync")
        } catch is SyncTransportError {}
    }
}
