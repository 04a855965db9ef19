import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A put applied without all of its link additions — a target absent by the time it arrives (or
/// not the caller's to write into) is dropped — is answered with the record as the server holds
/// it, and the client takes it: it never keeps a link the server acknowledged and does not hold.
/// Found by the sync simulation: a client resent a tag's links ahead of its trip's re-insert
/// (split across batches), the server dropped the link and answered `applied`, and the client
/// had already consumed the trip's tombstone, so it kept the link for good.
extension TransportChecks {
    static let droppedLinks: [ConformanceCheck] = [
        ConformanceCheck(.transport, "anAppliedPutWhoseLinkTargetIsAbsentAnswersWithWhatTheServerHolds") { c in
            let world = try await TransportWorld.make(c)
            let kept = Trip(name: "Kept", start: Date(timeIntervalSince1970: 1_000))
            try await world.server.store.repository(Trip.self).insert(kept)
            let absent = Trip(name: "Never stored", start: Date(timeIntervalSince1970: 0)).id.recordID
            let put = SyncMutation(
                id: MutationID(clientID: "a", sequence: 1), kind: .put, entity: "Tag", recordID: .string("sea"),
                isInsert: true, values: ["label": .string("Sea")],
                links: ["trips": LinkDelta(added: [absent, kept.id.recordID], removed: [], order: [])],
                timestamp: HybridTimestamp(millis: 1, node: "a"))
            let answer = try await world.server.push(PushRequest(clientID: "a", mutations: [put]))
            try expectEqual(answer.results.map(\.outcome), [.applied], "the put itself is applied")
            try expectEqual(answer.results[0].current?.links["trips"], [kept.id.recordID], "what the server holds")
            let stored = try await world.server.store.backend.read { try $0.record("Tag", id: .string("sea")) }
            try expectEqual(answer.results[0].current?.serverVersion, stored?.version)
            // A put whose links all land says nothing more than its version.
            let whole = SyncMutation(
                id: MutationID(clientID: "a", sequence: 2), kind: .put, entity: "Tag", recordID: .string("sea"),
                isInsert: false, values: ["label": .string("Sea!")], links: [:],
                timestamp: HybridTimestamp(millis: 2, node: "a"))
            let second = try await world.server.push(PushRequest(clientID: "a", mutations: [whole]))
            try expectEqual(second.results.map(\.outcome), [.applied])
            try expect(second.results[0].current == nil, "an applied put taken whole carries no state")
        },
        ConformanceCheck(.transport, "aClientTakesBackALinkTheServerDroppedWhenItsAnswerSaysSo") { c in
            let world = try await TransportWorld.make(c)
            let (a, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            try await a.repository(Trip.self).insert(trip)
            try await a.repository(Tag.self).insert(Tag(id: "sea", label: "Sea"))
            try await engine.syncNow()
            // The server deletes the trip; before A hears of it, A tags it and pushes (no pull).
            try await world.server.store.repository(Trip.self).delete(trip.id)
            try await a.repository(Trip.self).link(Trip.tags, from: trip.id, to: "sea")
            _ = try await engine.push()
            try expectEqual(
                try await a.repository(Tag.self).related(Tag.trips, of: "sea").map(\.id), [],
                "the answer says the link was not kept, and the client lets it go")
            try expectEqual(try await engine.pendingMutations().count, 0)
            try await engine.syncNow()
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id), nil, "the trip's tombstone arrives")
            try expectEqual(
                try await world.server.store.repository(Tag.self).related(Tag.trips, of: "sea").map(\.id), [])
        },
    ]
}

/// A rejected move out of an ordered list puts the member back where the server has it: the
/// rejection carries the member (its reference names the old owner again), and the client reads
/// the owner again for its order. Found by the sync simulation: a stop moved to a trip deleted on
/// the server came back at the end of its old trip's list, and no later change of that trip came
/// to put it right.
extension TransportChecks {
    static let rejectedMoves: [ConformanceCheck] = [
        ConformanceCheck(.transport, "aRejectedMoveOutOfAnOrderedListPutsTheMemberBackWhereTheServerHasIt") { c in
            let world = try await TransportWorld.make(c)
            let (a, engine) = try await world.client(
                "a", tokens: FixedToken("token-a"), options: SyncEngine.Options(defaultPolicy: .serverWins))
            let lisbon = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            let oslo = Trip(name: "Oslo", start: Date(timeIntervalSince1970: 2_000))
            let first = Stop(name: "First", city: "Lisbon", trip: lisbon.id)
            let second = Stop(name: "Second", city: "Sintra", trip: lisbon.id)
            try await a.transaction { tx in
                for trip in [lisbon, oslo] { try tx.insert(trip) }
                for stop in [first, second] { try tx.insert(stop) }
            }
            try await a.repository(Trip.self).setRelated(Trip.stops, of: lisbon.id, to: [first.id, second.id])
            try await engine.syncNow()
            // The server renames Lisbon and deletes Oslo; A moves the first stop to Oslo, then
            // pulls (the server's Lisbon wins over A's pending change of its list) and pushes.
            var renamed = lisbon
            renamed.name = "Lisboa"
            try await world.server.store.repository(Trip.self).update(renamed)
            try await world.server.store.repository(Trip.self).delete(oslo.id)
            var moved = first
            moved.trip = oslo.id
            try await a.repository(Stop.self).update(moved)
            _ = try await engine.pull()
            _ = try await engine.push()
            let server = try await world.server.store.repository(Trip.self).related(Trip.stops, of: lisbon.id)
            try expectEqual(server.map(\.name), ["First", "Second"], "the server kept its order")
            try expectEqual(try await a.repository(Stop.self).fetch(first.id)?.trip, lisbon.id, "the move is undone")
            try expectEqual(
                try await a.repository(Trip.self).related(Trip.stops, of: lisbon.id).map(\.name), ["First", "Second"],
                "where the server has the stop, not at the end")
            try expectEqual(try await engine.pendingMutations().count, 0)
        }
    ]
}
