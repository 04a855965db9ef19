import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Shares guard the whole shared path: what a participant adds under a shared record is its
/// owner's, no participant moves a record out from under it, a revoke leaves everything where it
/// was, and a share's role is one the server knows.
extension AdversaryChecks {
    static let shares: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aParticipantCannotTakeARecordUnderTheSharedPathAndARevokeLeavesItWithItsOwner") {
            c in
            let data = try await SharingWorld.make(c)
            let (alice, aliceEngine, share) = try await data.alice(role: .readWrite)
            let (bob, bobEngine, _) = try await data.client("b", token: "token-b")
            // Bob adds a stop under Lisbon: allowed, and it is Lisbon's, so Alice's.
            let cascais = Stop(name: "Cascais", city: "Cascais", trip: data.lisbon.id)
            try await bob.repository(Stop.self).insert(cascais)
            try await bobEngine.syncNow()
            try expectEqual(await bobEngine.rejections.map(\.reason), [], "a read-write participant adds a stop")
            // Moving Alice's stop, or the one he added, to his own trip is taking it.
            for stop in [data.sintra, cascais] {
                var moved = stop
                moved.trip = data.oslo.id
                try await bob.repository(Stop.self).update(moved)
            }
            try await bobEngine.syncNow()
            let reasons = await bobEngine.rejections.map(\.reason)
            try expectEqual(reasons.count, 2, "both moves refused: \(reasons)")
            try expect(reasons.allSatisfy { $0.contains("trip") && $0.contains("owns") }, "\(reasons)")
            let server = data.world.server.store.repository(Stop.self)
            for id in [data.sintra.id, cascais.id] {
                try expectEqual(try await server.fetch(id)?.trip, data.lisbon.id, "still under Lisbon")
            }
            // Revoked: every stop under Lisbon is still there, and Alice's.
            try await alice.repository(SyncShare.self).delete(share.id)
            try await aliceEngine.syncNow()
            try await bobEngine.syncNow()
            let names = try await SharingWorld.names(alice)
            try expectEqual(names.stops, ["Belém", "Sintra", "Cascais"], "the owner keeps what was under her trip")
            try expectEqual(try await SharingWorld.names(bob).stops, [], "Bob keeps nothing of it")
        },
        ConformanceCheck(.adversary, "aShareRoleIsReadOrReadWriteAndNothingElse") { c in
            let data = try await SharingWorld.make(c)
            let remote = data.world.host.remote(tokens: FixedToken("token-a"))
            var sequence: UInt64 = 0
            for role in ["owner", "admin", "", "READ", "readwrite"] {
                sequence += 1
                let share = SyncShare(Trip.self, data.lisbon.id, owner: "alice", with: "bob")
                var values = try share.record().values
                values["role"] = .string(role)
                let mutation = SyncMutation(
                    id: MutationID(clientID: "a", sequence: sequence), kind: .put, entity: SyncShare.entityName,
                    recordID: .uuid(share.id), isInsert: true, values: values,
                    timestamp: HybridTimestamp(millis: Int64(sequence), node: "a"))
                let response = try await remote.push(PushRequest(clientID: "a", mutations: [mutation]))
                let result = try expectNotNil(response.results.first, "one result")
                try expectEqual(result.outcome, .rejected, "a share with role \"\(role)\"")
                try expect(result.reason?.contains("readWrite") == true, "the answer names the roles: \(result)")
            }
            try expectEqual(try await data.world.server.store.repository(SyncShare.self).count(), 0, "none stored")
        },
    ]
}
