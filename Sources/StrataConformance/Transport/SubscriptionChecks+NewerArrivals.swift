import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Records that reach a subscribed client at a state newer than its cursor — a new subscription's
/// snapshot, taken at the server's head while the pull behind it is still to come — and leave
/// the server before the client's pull passes them.
extension SubscriptionChecks {
    static let newerArrivals: [ConformanceCheck] = [
        // Found by the sync simulation's large run (seed 1592863008): a trip inserted after the
        // client's cursor reached it by a new subscription's snapshot (the pull after it lost);
        // deleted before the next pull, its tombstone was judged by what the client could have
        // held at its cursor (nothing: the trip was born after it) and left out.
        ConformanceCheck(.subscriptions, "aRecordASnapshotBroughtFromBeyondTheCursorLeavesWhenDeleted") { c in
            let world = try await TransportWorld.make(c)
            let (store, engine, remote) = try await lossyClient(c, world)
            let dear = Trip(name: "Dear", start: TravelDomain.day(1), budget: 500)
            let trips = world.server.store.repository(Trip.self)
            try await trips.insert(dear)
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            try await syncLosingThePull(engine, remote)
            try expectEqual(
                try await store.repository(Trip.self).fetch(dear.id)?.name, "Dear", "the snapshot brought the trip")
            try await trips.delete(dear.id)
            try await engine.syncNow()
            try expectEqual(
                try await store.repository(Trip.self).fetch(dear.id), nil, "its deletion reached the client")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing of it is the client's to send")
        },
        // Found by the sync simulation's large run (seed 1592864621): a stop brought by a new
        // subscription's snapshot (the pull after it lost) and then moved to a trip the client
        // does not cover stayed on the client: the pull judged it by what the client could hold at
        // its cursor — nothing (the stop was born after it), or a state it could not read.
        ConformanceCheck(.subscriptions, "aRecordASnapshotBroughtFromBeyondTheCursorLeavesWhenItStopsMatching") { c in
            var access = TransportWorld.travelScopes
            access.scope(Stop.self) { identity in
                .related(
                    \Stop.trip,
                    where: .related(
                        \Trip.traveller,
                        where: .hasSuffix(\Person.email, "@" + (identity.attributes["domain"] ?? "-"))))
            }
            let world = try await TransportWorld.make(c, access: access)
            let ana = Person(name: "Ana", email: "ana@a.example")
            let dear = Trip(name: "Dear", start: TravelDomain.day(1), budget: 500, traveller: ana.id)
            let cheap = Trip(name: "Cheap", start: TravelDomain.day(2), budget: 50, traveller: ana.id)
            let wandering = Stop(name: "Wandering", city: "Faro", trip: cheap.id)
            let stops = world.server.store.repository(Stop.self)
            try await world.server.store.transaction { tx in
                for record in [ana] { try tx.insert(record) }
                for trip in [dear, cheap] { try tx.insert(trip) }
                try tx.insert(wandering)
            }
            let (store, engine, remote) = try await lossyClient(c, world)
            // Born after the cursor, and one the client could not read at it: both under the dear
            // trip now.
            let newborn = Stop(name: "Newborn", city: "Porto", trip: dear.id)
            try await stops.insert(newborn)
            var moved = wandering
            moved.trip = dear.id
            try await stops.update(moved)
            try await engine.subscribe(
                try SyncSubscription("dear", Trip.self, where: "budget >= 100", including: ["stops"]))
            try await syncLosingThePull(engine, remote)
            let local = store.repository(Stop.self)
            try expectEqual(try await local.fetch(newborn.id)?.name, "Newborn", "the snapshot brought the new stop")
            try expectEqual(try await local.fetch(wandering.id)?.trip, dear.id, "and the one moved in")
            for stop in [newborn, moved] {
                var away = stop
                away.trip = cheap.id
                try await stops.update(away)
            }
            try await engine.syncNow()
            try expectEqual(try await local.fetch(newborn.id), nil, "the new stop left the client with its move")
            try expectEqual(try await local.fetch(wandering.id), nil, "and so did the one moved in and out")
            try expectEqual(
                try await stops.fetch(newborn.id)?.trip, cheap.id, "evicted, not deleted: the server keeps it")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing of them is the client's to send")
        },
        // Found by the sync simulation with shares (seed 85600544): a trip a new subscription's
        // snapshot brought (the pull after it lost) left the reader's scope with its traveller,
        // and stayed: the pull judged it at the reader's cursor, where it did not match the
        // subscription yet (its budget was raised after), and its own states since had the
        // traveller as she is now. The client names the snapshot's token in its pulls; the server
        // judges the trip at that token too.
        ConformanceCheck(.subscriptions, "aRecordASnapshotBroughtLeavesWithWhatItsScopeReadsThrough") { c in
            let world = try await TransportWorld.make(c, access: TransportWorld.travelScopes)
            let ana = Person(name: "Ana", email: "ana@a.example")
            let rising = Trip(name: "Rising", start: TravelDomain.day(1), budget: 50, traveller: ana.id)
            try await world.server.store.transaction { tx in
                try tx.insert(ana)
                try tx.insert(rising)
            }
            let (store, engine, remote) = try await lossyClient(c, world)
            var raised = rising
            raised.budget = 500
            try await world.server.store.repository(Trip.self).update(raised)
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            try await syncLosingThePull(engine, remote)
            let local = store.repository(Trip.self)
            try expectEqual(try await local.fetch(rising.id)?.budget, 500, "the snapshot brought the raised trip")
            var moved = ana
            moved.email = "ana@b.example"
            try await world.server.store.repository(Person.self).update(moved)
            try await engine.syncNow()
            try expectEqual(try await local.fetch(rising.id), nil, "the trip left with its traveller's domain")
            try expectEqual(
                try await world.server.store.repository(Trip.self).fetch(rising.id)?.budget, 500,
                "evicted, not deleted: the server keeps it")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing of it is the client's to send")
        },
        // Found by the sync simulation (seed 1592903188): a client held a tag (one subscription)
        // but not a trip it lists, and inserted a trip under that ID itself; its push did not get
        // through, the server's trip entered another subscription, and the pull took the server's
        // trip over the client's (its policy). The tag did not change and the trip was no arrival
        // (the client held one), so the tag's list lacked it for good.
        ConformanceCheck(.subscriptions, "aTripThePullBringsOverTheClientsOwnInsertTakesTheListsThatNameIt") { c in
            let world = try await TransportWorld.make(c)
            let porto = try await cheapTripTaggedSea(world)
            let trips = world.server.store.repository(Trip.self)
            let (store, engine, remote) = try await lossyClient(
                c, world, options: SyncEngine.Options(defaultPolicy: .serverWins))
            let listed = { @Sendable in
                Set(try await store.backend.read { try $0.links("Tag", relationship: "trips", from: .string("sea")) })
            }
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            try await engine.syncNow()
            try expectEqual(try await listed(), [], "the cheap trip is not the client's")
            let mine = Trip(id: porto.id, name: "Porto mine", start: TravelDomain.day(3), budget: 10)
            try await store.repository(Trip.self).insert(mine)
            var dear = porto
            dear.budget = 900
            try await trips.update(dear)
            await remote.dropNextPush()
            do {
                try await engine.syncNow()
                throw failure("the lost push should fail the sync")
            } catch is SyncTransportError {}
            let server = try await trips.fetch(porto.id)
            try expectEqual(try await store.repository(Trip.self).fetch(porto.id), server, "the server's trip won")
            try await engine.syncNow()
            try expectEqual(try await listed(), [porto.id.recordID], "the tag's list names the server's trip")
            try expectEqual(try await engine.pendingMutations().count, 0, "the client's insert was superseded")
        },
    ]

    /// Client "a" over a remote that can lose answers, subscribed to tags and synced once.
    static func lossyClient(
        _ c: ConformanceContext, _ world: TransportWorld, options: SyncEngine.Options = .init()
    ) async throws -> (Store, SyncEngine, AnswerLosingRemote) {
        let remote = AnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
        let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
        let engine = try SyncEngine(store: store, remote: remote, options: options)
        try await engine.subscribe(try SyncSubscription("tags", Tag.self))
        try await engine.syncNow()
        return (store, engine, remote)
    }

    /// A sync whose pull's answer is lost: it fails.
    static func syncLosingThePull(_ engine: SyncEngine, _ remote: AnswerLosingRemote) async throws {
        await remote.loseNextPullAnswer()
        do {
            try await engine.syncNow()
            throw failure("the lost answer should fail the sync")
        } catch is SyncTransportError {}
    }
}
