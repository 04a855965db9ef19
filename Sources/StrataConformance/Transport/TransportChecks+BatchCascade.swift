import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// An acknowledged mutation is one whose effect the server holds or has sent as a tombstone: an
/// insert that the same push's delete rules remove again is answered rejected, never applied.
extension TransportChecks {
    static let batchCascade: [ConformanceCheck] = [
        ConformanceCheck(.transport, "anInsertThatItsOwnPushsCascadeRemovesIsRejectedNeverAppliedAndLost") { c in
            let world = try await TransportWorld.make(c)
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            let stop = Stop(name: "Alfama", city: "Lisbon", trip: trip.id)
            func mutation(_ sequence: UInt64, _ kind: SyncMutation.Kind, _ record: Record, insert: Bool)
                -> SyncMutation
            {
                SyncMutation(
                    id: MutationID(clientID: "a", sequence: sequence), kind: kind, entity: record.entity,
                    recordID: record.id, isInsert: insert, values: kind == .put ? record.values : [:],
                    timestamp: HybridTimestamp(millis: Int64(sequence), node: "a"))
            }
            let first = try await world.server.push(
                PushRequest(clientID: "a", mutations: [mutation(1, .put, try trip.record(), insert: true)]))
            try expectEqual(first.results.map(\.outcome), [.applied])
            // One push: a stop under the trip, then the trip's delete (Trip.stops cascades, so the
            // save removes the stop it inserted: it is never stored, and no tombstone of it exists).
            let batch = PushRequest(
                clientID: "a",
                mutations: [
                    mutation(2, .put, try stop.record(), insert: true),
                    mutation(3, .delete, try trip.record(), insert: false),
                ])
            let answer = try await world.server.push(batch)
            try expectEqual(answer.results.map(\.outcome), [.rejected, .applied], "\(answer.results)")
            try expectEqual(answer.results[0].code, StrataError.Code.invalidReference.rawValue)
            try expect(answer.results[0].current?.values == nil, "the stop as the server holds it: absent")
            try expect(try await world.server.store.repository(Stop.self).fetch(stop.id) == nil, "no stop stored")
            // A resend gets the same answer; a pull from scratch has the trip's tombstone, no stop.
            let again = try await world.server.push(batch)
            try expectEqual(again.results.map(\.outcome), [.rejected, .duplicate], "\(again.results)")
            let pulled = try await world.server.pull(PullRequest(clientID: "observer", cursor: nil))
            try expect(
                pulled.changes.contains { $0.entity == "Trip" && $0.values == nil }, "the trip's tombstone")
            try expect(!pulled.changes.contains { $0.entity == "Stop" }, "no stop: \(pulled.changes)")
            // The other order, a delete then an insert under it, is refused as it always was.
            let other = Trip(name: "Porto", start: Date(timeIntervalSince1970: 2_000))
            let under = Stop(name: "Ribeira", city: "Porto", trip: other.id)
            _ = try await world.server.push(
                PushRequest(clientID: "a", mutations: [mutation(4, .put, try other.record(), insert: true)]))
            let reversed = try await world.server.push(
                PushRequest(
                    clientID: "a",
                    mutations: [
                        mutation(5, .delete, try other.record(), insert: false),
                        mutation(6, .put, try under.record(), insert: true),
                    ]))
            try expectEqual(reversed.results.map(\.outcome), [.applied, .rejected], "\(reversed.results)")
            // Across pushes the same insert is refused alike.
            let later = try await world.server.push(
                PushRequest(clientID: "a", mutations: [mutation(7, .put, try stop.record(), insert: true)]))
            try expectEqual(later.results.map(\.outcome), [.rejected])
        },
        ConformanceCheck(.transport, "aDeleteAndAReinsertOfOneIDInOnePushReplaceTheRecordAsTheClientSavedThem") { c in
            let world = try await TransportWorld.make(c)
            let (client, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            let trips = client.repository(Trip.self)
            let stops = client.repository(Stop.self)
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            let old = Stop(name: "Alfama", city: "Lisbon", trip: trip.id)
            try await trips.insert(trip)
            try await stops.insert(old)
            try await engine.syncNow()
            // Offline: the trip deleted (its stop cascades), then a trip with the same ID saved
            // again with a new stop under it — separate saves, one outbox batch.
            try await trips.delete(trip.id)
            var again = trip
            again.name = "Lisbon again"
            let new = Stop(name: "Belém", city: "Lisbon", trip: trip.id)
            try await client.transaction { [again] tx in
                try tx.insert(again)
                try tx.insert(new)
            }
            let report = try await engine.syncNow()
            try expectEqual(report.rejected, 0, "nothing rejected")
            try expectEqual(try await engine.pendingMutations().count, 0)
            let server = world.server.store
            try expectEqual(try await server.repository(Trip.self).fetch(trip.id)?.name, "Lisbon again")
            try expect(try await server.repository(Stop.self).fetch(old.id) == nil, "the old stop cascaded")
            try expectEqual(try await server.repository(Stop.self).fetch(new.id)?.trip, trip.id)
            // A fresh client pulls what the first one holds.
            let (observer, observerEngine) = try await world.client("o", tokens: FixedToken("token-a"))
            try await observerEngine.syncNow()
            try expectEqual(try await observer.repository(Trip.self).fetch(trip.id), try await trips.fetch(trip.id))
            try expectEqual(
                try await observer.repository(Stop.self).fetch().map(\.id), try await stops.fetch().map(\.id))
            try expectEqual(try await stops.fetch().map(\.id), [new.id])
        },
    ]
}
