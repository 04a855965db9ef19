import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Subscriptions as the server's data changes: new records inside them arrive, records moving
/// out leave, and a record entering a subscription brings the records it follows.
extension SubscriptionChecks {
    static let changes: [ConformanceCheck] = [
        ConformanceCheck(.subscriptions, "recordsEnteringOrLeavingASubscriptionBringOrTakeWhatItFollows") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            try await engine.subscribe(try SubscriptionWorld.people("ana", ["Ana"]))
            try await engine.syncNow()
            let server = data.world.server.store
            try await server.transaction { tx in
                try tx.insert(Trip(name: "Faro", start: TravelDomain.day(5), traveller: data.ana.id))
                try tx.insert(Trip(name: "Bern", start: TravelDomain.day(6), traveller: data.abe.id))
            }
            try await engine.syncNow()
            try expectEqual(try await SubscriptionWorld.names(store).trips, ["Lisbon", "Porto", "Faro"])
            // Porto moves to Abe: it leaves the client.
            var porto = data.porto
            porto.traveller = data.abe.id
            try await server.repository(Trip.self).update(porto)
            try await engine.syncNow()
            try expectEqual(try await SubscriptionWorld.names(store).trips, ["Lisbon", "Faro"])
            // Abe takes Ana's name: he enters the subscription, and his trips (unchanged) follow.
            var abe = data.abe
            abe.name = "Ana"
            try await server.repository(Person.self).update(abe)
            try await engine.syncNow()
            try expectEqual(try await store.repository(Person.self).count(), 2)
            try expectEqual(
                try await SubscriptionWorld.names(store).trips, ["Lisbon", "Faro", "Porto", "Rome", "Bern"])
            // He takes his own name back: he leaves, and so do the trips only he brought.
            abe.name = "Abe"
            try await server.repository(Person.self).update(abe)
            try await engine.syncNow()
            let names = try await SubscriptionWorld.names(store)
            try expectEqual(names.people, ["Ana"])
            try expectEqual(names.trips, ["Lisbon", "Faro"])
            try expectEqual(try await engine.pendingMutations().count, 0, "arrivals and evictions queue nothing")
        },
        ConformanceCheck(.subscriptions, "aRecordThatStopsMatchingIsEvictedNeverDeletedWithItsRules") { c in
            let data = try await SubscriptionWorld.make(c)
            let server = data.world.server.store
            let (trip, stop) = try await data.keptTripWithALisbonStop()
            let (store, engine, _) = try await data.client()
            // The stop is covered on its own too (Trip.stops cascades on a delete).
            for subscription in try SubscriptionWorld.keptTripsAndLisbonStops() {
                try await engine.subscribe(subscription)
            }
            try await engine.syncNow()
            try expectEqual(try await store.repository(Trip.self).fetch(trip.id)?.name, "keep")
            try expectEqual(try await store.repository(Stop.self).fetch(stop.id), stop)
            // The trip no longer matches: the pull says so with an eviction, never a tombstone.
            let probe = data.world.host.remote(tokens: FixedToken("token-a"))
            let subscriptions = try await engine.subscriptions()?.map(\.subscription) ?? []
            let before = try await probe.pull(
                PullRequest(clientID: "probe", cursor: nil, subscriptions: subscriptions))
            var renamed = trip
            renamed.name = "gone"
            try await server.repository(Trip.self).update(renamed)
            let pulled = try await probe.pull(
                PullRequest(clientID: "probe", cursor: before.cursor, subscriptions: subscriptions))
            let change = pulled.changes.first { $0.recordID == .uuid(trip.id) }
            try expect(change?.isEviction == true, "the trip leaves as an eviction: \(String(describing: change))")
            try await engine.syncNow()
            // Removed without its delete rules: the stop, still covered and on the server, stays.
            try expect(try await store.repository(Trip.self).fetch(trip.id) == nil, "the trip left the client")
            try expectEqual(try await store.repository(Stop.self).fetch(stop.id), stop)
            try expectEqual(try await server.repository(Stop.self).fetch(stop.id), stop)
            try expectEqual(try await engine.pendingMutations().count, 0, "an eviction queues nothing")
        },
        ConformanceCheck(.subscriptions, "goingBackToEverythingResetsToTheWholeScope") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            try await engine.subscribe(try SubscriptionWorld.people("ana", ["Ana"]))
            try await engine.syncNow()
            try await engine.syncEverything()
            try expectEqual(try await engine.subscriptions(), nil)
            try await engine.syncNow()
            let names = try await SubscriptionWorld.names(store)
            try expectEqual(names.people, ["Ana", "Abe"], "Alice's whole scope, never Bo")
            try expectEqual(names.trips, ["Lisbon", "Porto", "Rome"])
            try expectEqual(try await store.repository(Tag.self).fetch("shared")?.label, "Shared")
        },
        // Found by the sync simulation with shares (seed 85601058): a trip's stops, followed from
        // it, stayed with the client once a push's answer took the trip away. The client kept them
        // because its own unsent budget put the trip in a subscription; the server refused the
        // budget (the trip is shared with the client to read) and its trip never was in it, so the
        // answer's trip left the client and no pull says anything of the stops.
        ConformanceCheck(.subscriptions, "aFollowedRecordLeavesWhenAPushAnswerTakesAwayWhatItWasFollowedFrom") { c in
            let data = try await SharingWorld.make(c)
            _ = try await data.alice(role: .read)
            let (bob, engine, _) = try await data.client("b", token: "token-b")
            try expectEqual(try await SharingWorld.names(bob).stops, ["Belém", "Sintra"])
            var dear = data.lisbon
            dear.budget = 900
            try await bob.repository(Trip.self).update(dear)
            try await engine.subscribe(
                try SyncSubscription("dear", Trip.self, where: "budget >= 100", including: ["stops"]))
            try expectEqual(try await SharingWorld.names(bob).stops, ["Belém", "Sintra"], "followed from it here")
            let report = try await engine.syncNow()
            try expectEqual(report.rejected, 1, "a read share refuses the budget")
            try expectEqual(try await bob.repository(Trip.self).count(), 0, "the server's trip is not dear")
            try expectEqual(try await SharingWorld.names(bob).stops, [], "its stops leave with it")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing of them is his to send")
            try expectEqual(try await SharingWorld.names(data.world.server.store).stops, ["Belém", "Sintra"])
        },
    ]
}
