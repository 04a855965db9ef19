import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// What a subscribed client holds once its records arrive and its writes are answered: an ordered
/// list in the server's order whatever the pages its members came in, and no record of its own
/// writing that no subscription covers.
extension SubscriptionChecks {
    static let arrivals: [ConformanceCheck] = [
        // Found by the sync simulation once it changed subscriptions: a trip's stops, followed from
        // the trip and sent pages after it, were appended as they came (in ID order), so the
        // client's list kept another order than the server's for good.
        ConformanceCheck(.subscriptions, "anOrderedListWhoseMembersComePagesAfterItsOwnerKeepsTheServersOrder") { c in
            let world = try await TransportWorld.make(c)
            let trip = Trip(name: "Lisbon", start: TravelDomain.day(1))
            let other = Trip(name: "Porto", start: TravelDomain.day(2))
            // The server's order is the reverse of the stops' ID order, in which pages send them.
            let stops = (0..<5).map { Stop(name: "stop \($0)", city: "Lisbon", trip: trip.id) }
                .sorted { $0.id.uuidString > $1.id.uuidString }
            try await world.server.store.transaction { tx in
                try tx.insert(trip)
                try tx.insert(other)
                for stop in stops { try tx.insert(stop) }
                try tx.insert(Stop(name: "Ribeira", city: "Porto", trip: other.id))
            }
            let order = { @Sendable (store: Store) in
                try await store.backend.read { try $0.links("Trip", relationship: "stops", from: trip.id.recordID) }
            }
            let expected = try await order(world.server.store)
            try expectEqual(expected, stops.map(\.id.recordID), "the server keeps the order of insertion")
            let (store, engine) = try await world.client(
                "a", tokens: FixedToken("token-a"), options: .init(pullLimit: 2))
            try await engine.subscribe(try SyncSubscription("trips", Trip.self, including: ["stops"]))
            try await engine.syncNow()
            try expectEqual(try await store.repository(Stop.self).count(), 6, "every stop followed from the trips")
            try expectEqual(try await order(store), expected, "the client's list in the server's order")
            // A stop the server adds to the front arrives by a pull, in its place.
            let first = Stop(name: "Belém", city: "Lisbon", trip: trip.id)
            try await world.server.store.transaction { tx in
                try tx.insert(first)
                try tx.setRelated(Trip.stops, of: trip.id, to: [first.id] + stops.map(\.id))
            }
            try await engine.syncNow()
            try expectEqual(try await order(store), try await order(world.server.store), "after a pull too")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing arrived as a local write")
        },
        // Found by the sync simulation once it changed subscriptions: a record the client wrote
        // that no subscription covers stayed as the client left it after the server took it, and
        // later named a record the server had since deleted.
        ConformanceCheck(.subscriptions, "aRecordTheClientWroteThatNoSubscriptionCoversLeavesOnceTheServerHasIt") { c in
            let world = try await TransportWorld.make(c)
            let (store, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            let dear = Trip(name: "Dear", start: TravelDomain.day(1), budget: 500)
            let cheap = Trip(name: "Cheap", start: TravelDomain.day(2), budget: 20)
            try await store.transaction { tx in
                try tx.insert(dear)
                try tx.insert(cheap)
            }
            try expectEqual(try await store.repository(Trip.self).count(), 2, "both held until the server has them")
            try await engine.syncNow()
            try expectEqual(try await engine.pendingMutations().count, 0)
            try expectEqual(
                try await store.repository(Trip.self).fetch().map(\.name), ["Dear"],
                "the cheap trip left once pushed: no subscription covers it")
            let server = world.server.store.repository(Trip.self)
            try expectEqual(Set(try await server.fetch().map(\.name)), ["Dear", "Cheap"], "evicted, never deleted")
            // A covered record the client's own update takes out of coverage leaves once pushed.
            var cheaper = dear
            cheaper.budget = 10
            try await store.repository(Trip.self).update(cheaper)
            try expectEqual(try await store.repository(Trip.self).count(), 1, "kept while its change is unsent")
            try await engine.syncNow()
            try expectEqual(try await store.repository(Trip.self).count(), 0)
            try expectEqual(try await server.fetch(dear.id)?.budget, 10, "the server took the update")
            // The server changing it back into coverage brings it back.
            var back = cheaper
            back.budget = 900
            try await server.update(back)
            try await engine.syncNow()
            try expectEqual(try await store.repository(Trip.self).fetch(dear.id)?.budget, 900)
        },
        // Found by the sync simulation once it changed subscriptions: a trip that arrived through
        // one subscription (people with their trips) brought the stops another subscription follows
        // from the trips it matches (dear trips with their stops), though it matched none.
        ConformanceCheck(.subscriptions, "aRecordOneSubscriptionBringsBringsOnlyWhatTheSubscriptionsMatchingItFollow") {
            c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            try await engine.subscribe(try SubscriptionWorld.people("ana", ["Ana"]))
            try await engine.subscribe(
                try SyncSubscription("dear", Trip.self, where: "budget >= 100", including: ["stops"]))
            try await engine.syncNow()
            let cheap = Trip(name: "Cheap", start: TravelDomain.day(8), budget: 20, traveller: data.ana.id)
            let dear = Trip(name: "Dear", start: TravelDomain.day(9), budget: 500, traveller: data.ana.id)
            try await data.world.server.store.transaction { tx in
                try tx.insert(cheap)
                try tx.insert(dear)
                try tx.insert(Stop(name: "Cheap stop", city: "Faro", trip: cheap.id))
                try tx.insert(Stop(name: "Dear stop", city: "Evora", trip: dear.id))
            }
            try await engine.syncNow()
            try expect(
                try await SubscriptionWorld.names(store).trips.isSuperset(of: ["Cheap", "Dear"]), "Ana's trips arrive")
            try expectEqual(
                Set(try await store.repository(Stop.self).fetch().map(\.name)), ["Dear stop"],
                "only the dear trip's stops are followed")
            // Held already, the cheap trip made dear on the server brings its stops with it.
            var dearer = cheap
            dearer.budget = 300
            try await data.world.server.store.repository(Trip.self).update(dearer)
            try await engine.syncNow()
            try expectEqual(
                Set(try await store.repository(Stop.self).fetch().map(\.name)), ["Dear stop", "Cheap stop"],
                "a held record entering a following subscription brings what it follows")
        },
        // Found by the sync simulation once it changed subscriptions: a tag that one subscription
        // brought named trips the client did not hold yet; when another subscription brought them,
        // the tag was not sent again (it had not changed), and its list lacked them for good.
        ConformanceCheck(.subscriptions, "aManyToManyListOneSubscriptionBroughtTakesTheMembersAnotherBringsLater") {
            c in
            let world = try await TransportWorld.make(c)
            let lisbon = Trip(name: "Lisbon", start: TravelDomain.day(1), budget: 500)
            let porto = Trip(name: "Porto", start: TravelDomain.day(2), budget: 50)
            try await world.server.store.transaction { tx in
                try tx.insert(lisbon)
                try tx.insert(porto)
                try tx.insert(Tag(id: "sea", label: "Sea"))
            }
            let trips = world.server.store.repository(Trip.self)
            try await trips.link(Trip.tags, from: lisbon.id, to: "sea")
            try await trips.link(Trip.tags, from: porto.id, to: "sea")
            let (store, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            let listed = { @Sendable in
                Set(try await store.backend.read { try $0.links("Tag", relationship: "trips", from: .string("sea")) })
            }
            try await engine.subscribe(try SyncSubscription("tags", Tag.self))
            try await engine.syncNow()
            try expectEqual(try await listed(), [], "the tag's list names no trip the client lacks")
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            try await engine.syncNow()
            try expectEqual(try await listed(), [lisbon.id.recordID], "the dear trip joins the tag's list")
            // A trip that enters coverage by a change on the server joins it too.
            var cheaper = porto
            cheaper.budget = 900
            try await trips.update(cheaper)
            try await engine.syncNow()
            try expectEqual(try await listed(), [lisbon.id.recordID, porto.id.recordID], "after a pull too")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing arrived as a local write")
        },
        // Found by the sync simulation with subscriptions (seed 1592842863): a client holding a
        // tag (one subscription) but not a trip it lists inserted a trip under that trip's ID, into
        // another subscription's coverage; the server patched its trip, which the tag still lists,
        // and the client's tag lacked it for good (the tag did not change, the trip was not new).
        ConformanceCheck(.subscriptions, "anInsertOfAnIDTheServerHoldsTakesTheListsThatNameIt") { c in
            let world = try await TransportWorld.make(c)
            let porto = try await cheapTripTaggedSea(world)
            let (store, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            let listed = { @Sendable (store: Store) in
                Set(try await store.backend.read { try $0.links("Tag", relationship: "trips", from: .string("sea")) })
            }
            try await engine.subscribe(try SyncSubscription("tags", Tag.self))
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            try await engine.syncNow()
            try expectEqual(try await listed(store), [], "the cheap trip is not the client's")
            let mine = Trip(id: porto.id, name: "Porto again", start: TravelDomain.day(3), budget: 900)
            try await store.repository(Trip.self).insert(mine)
            try await engine.syncNow()
            let server = try await world.server.store.repository(Trip.self).fetch(porto.id)
            try expectEqual(server?.name, "Porto again", "the insert patched the server's trip")
            try expectEqual(try await store.repository(Trip.self).fetch(porto.id), server, "the client holds it")
            try expectEqual(try await listed(store), [porto.id.recordID], "and the tag's list names it")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing arrived as a local write")
        },
    ]

    /// A cheap trip (Porto, budget 50) tagged Sea, on the server.
    static func cheapTripTaggedSea(_ world: TransportWorld) async throws -> Trip {
        let porto = Trip(name: "Porto", start: TravelDomain.day(2), budget: 50)
        try await world.server.store.transaction { tx in
            try tx.insert(porto)
            try tx.insert(Tag(id: "sea", label: "Sea"))
        }
        try await world.server.store.repository(Trip.self).link(Trip.tags, from: porto.id, to: "sea")
        return porto
    }
}
