import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// What a server's answer brings back meets the lists that arrived while it was away. Found by
/// the sync simulation (seed 1592600275 of the large run): a trip a client had deleted came back
/// with a resend answered `duplicate`, but the tag listing it had been pulled while the trip was
/// absent, without it, for good; and a stop's move that a `serverWins` pull undid left its mirror
/// on the new trip's list pending, which pulled the stop back to that trip when the trip's own
/// resend was answered `duplicate`.
extension TransportChecks {
    static let restored: [ConformanceCheck] = [
        // Found by the sync simulation with subscriptions (seed 1592842083) and with shares (seed
        // 85590149): an insert refused with the server's record of that ID, in one batch, and the
        // client's later delete of it, in the next, applied: the refusal had put the server's
        // record back in the client's store, and the applied delete did not take it out again
        // (the client had deleted it already), so the client kept a record the server had not.
        ConformanceCheck(.transport, "aRefusedInsertDoesNotBringBackARecordTheClientsLaterDeleteRemoves") { c in
            let world = try await TransportWorld.make(c)
            let (a, engine) = try await world.client(
                "a", tokens: FixedToken("token-a"), options: SyncEngine.Options(batchSize: 1))
            let agency = Agency(id: 77, name: "Gone Travel")
            try await a.repository(Agency.self).insert(agency)
            try await engine.syncNow()
            let theirs = Trip(name: "Porto", start: Date(timeIntervalSince1970: 1_000))
            try await world.server.store.repository(Trip.self).insert(theirs)
            try await world.server.store.repository(Agency.self).delete(agency.id)
            // A, not having pulled, inserts a trip of the same ID booked with the agency the server
            // deleted (refused: invalidReference, with the server's trip), then deletes it.
            let mine = Trip(id: theirs.id, name: "Mine", start: Date(timeIntervalSince1970: 2_000), agency: agency.id)
            try await a.repository(Trip.self).insert(mine)
            try await a.repository(Trip.self).delete(mine.id)
            try await engine.push()
            try expectEqual(
                await engine.rejections.map(\.code), ["invalidReference"], "the insert is refused, the delete not")
            try expectEqual(
                try await world.server.store.repository(Trip.self).fetch(theirs.id), nil,
                "the delete reached the server")
            try expectEqual(try await a.repository(Trip.self).fetch(theirs.id), nil, "and the client holds no trip")
            try await engine.syncNow()
            try expectEqual(try await a.repository(Trip.self).fetch(theirs.id), nil, "after a pull too")
            try expectEqual(try await engine.pendingMutations().count, 0)
        },
        ConformanceCheck(.transport, "aDeleteTheServersAnswerUndoesRejoinsTheManyToManyListsThatNameTheRecord") { c in
            let world = try await TransportWorld.make(c)
            let lossy = AnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
            let a = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engineA = try SyncEngine(store: a, remote: lossy)
            let (b, engineB) = try await world.client("b", tokens: FixedToken("token-a"))
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            try await a.repository(Trip.self).insert(trip)
            try await a.repository(Tag.self).insert(Tag(id: "sea", label: "Sea"))
            try await engineA.syncNow()
            try await engineB.syncNow()
            // A deletes the (untagged) trip: applied, the answer lost; B hears of it, inserts a trip
            // of the same ID again and tags it. A's pull keeps its delete pending, so the tag
            // arrives while A holds no such trip, and nothing A resends is the tag's.
            try await a.repository(Trip.self).delete(trip.id)
            let again = Trip(id: trip.id, name: "Lisbon again", start: Date(timeIntervalSince1970: 2_000))
            await lossy.loseNextAnswer {
                try await engineB.syncNow()
                try await b.repository(Trip.self).insert(again)
                try await b.repository(Trip.self).link(Trip.tags, from: again.id, to: "sea")
                try await engineB.syncNow()
            }
            do {
                try await engineA.syncNow()
                throw failure("the lost answer should fail the sync")
            } catch is SyncTransportError {}
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id), nil, "A's delete is still pending")
            // The resend is a duplicate carrying the trip as the server holds it: A takes it back,
            // and the tag's list with it.
            try await engineA.syncNow()
            let outcomes = await lossy.outcomes.last ?? []
            try expect(!outcomes.isEmpty && outcomes.allSatisfy { $0 == .duplicate }, "resent: \(outcomes)")
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id)?.name, "Lisbon again")
            try expectEqual(
                try await a.repository(Tag.self).related(Tag.trips, of: "sea").map(\.id), [trip.id],
                "the tag lists the trip again, as on the server")
            try expectEqual(try await a.repository(Trip.self).related(Trip.tags, of: trip.id).map(\.id), ["sea"])
            try expectEqual(try await engineA.pendingMutations().count, 0)
        },
        ConformanceCheck(.transport, "aMoveAPolicyUndidLeavesNoMirrorThatPullsTheMemberBackLater") { c in
            let world = try await TransportWorld.make(c)
            let twice = AnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
            let a = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(
                store: a, remote: twice, options: SyncEngine.Options(batchSize: 1, defaultPolicy: .serverWins))
            let lisbon = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            let stop = Stop(name: "Belém", city: "Lisbon", trip: lisbon.id)
            try await a.repository(Trip.self).insert(lisbon)
            try await a.repository(Stop.self).insert(stop)
            try await engine.syncNow()
            // A inserts Oslo and moves the stop there; the server edits the stop and Lisbon, and
            // A's pull lets the server win: the stop is Lisbon's again, its move superseded, while
            // Oslo (not on the server yet) keeps its insert and the move's mirror pending.
            let oslo = Trip(name: "Oslo", start: Date(timeIntervalSince1970: 2_000))
            try await a.repository(Trip.self).insert(oslo)
            var moved = stop
            moved.trip = oslo.id
            try await a.repository(Stop.self).update(moved)
            var longer = stop
            longer.nights = 4
            try await world.server.store.repository(Stop.self).update(longer)
            var lisboa = lisbon
            lisboa.name = "Lisboa"
            try await world.server.store.repository(Trip.self).update(lisboa)
            _ = try await engine.pull()
            try expectEqual(try await a.repository(Stop.self).fetch(stop.id)?.trip, lisbon.id, "the server won")
            // Oslo's insert reaches the server twice and is answered duplicate, one mutation per
            // batch: the mirror still pending must not take the stop back.
            await twice.repeatNextPush()
            let answered = await twice.outcomes.count
            _ = try await engine.push()
            try expectEqual(
                await twice.outcomes.dropFirst(answered).first, [.duplicate], "the first batch, Oslo's insert, twice")
            try expectEqual(try await a.repository(Stop.self).fetch(stop.id)?.trip, lisbon.id, "the stop stays")
            try expectEqual(try await a.repository(Trip.self).related(Trip.stops, of: oslo.id).map(\.id), [])
            try await engine.syncNow()
            let server = try await world.server.store.repository(Stop.self).fetch(stop.id)
            try expectEqual(server?.trip, lisbon.id)
            try expectEqual(try await a.repository(Stop.self).fetch(stop.id), server)
            try expectEqual(
                try await a.repository(Trip.self).related(Trip.stops, of: lisbon.id).map(\.id), [stop.id])
            try expectEqual(try await engine.pendingMutations().count, 0)
        },
    ]
}
