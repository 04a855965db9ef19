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
    ]
}
