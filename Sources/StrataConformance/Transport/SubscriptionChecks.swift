import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Client subscriptions over the transport: a client receives what its subscriptions cover,
/// intersected with its identity's scope; adding one brings its records, narrowing or removing one
/// (or its time to live running out) evicts what nothing covers — locally, never as deletes.
enum SubscriptionChecks {
    static var all: [ConformanceCheck] { basics + changes + arrivals + firstSnapshot + newerArrivals }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.subscriptions, "aSubscriptionBringsWhatItCoversWithinTheScopeAndNoMore") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            try await engine.subscribe(try SubscriptionWorld.people("ana", ["Ana", "Bo"]))
            try await engine.syncNow()
            let (people, trips) = try await SubscriptionWorld.names(store)
            try expectEqual(people, ["Ana"], "Bo matches the filter but is outside Alice's scope")
            try expectEqual(trips, ["Lisbon", "Porto"], "Ana's trips, followed from her")
            try expectEqual(try await store.repository(Tag.self).fetch().count, 0, "no subscription covers tags")
            let states = try await engine.subscriptions() ?? []
            try expectEqual(states.map(\.subscription.name), ["ana"])
            try expect(states.allSatisfy(\.isReady), "the initial sync finished: \(states)")
            // A second subscription covers every person of Alice's scope, not their trips.
            try await engine.subscribe(try SyncSubscription("everyone", Person.self))
            try await engine.syncNow()
            let after = try await SubscriptionWorld.names(store)
            try expectEqual(after.people, ["Ana", "Abe"], "the whole scope, never Bo")
            try expectEqual(after.trips, ["Lisbon", "Porto"], "Abe's trip is not followed")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing arrived as a local write")
        },
        // Found by the sync simulation once it changed subscriptions: an `unsubscribe` of a name
        // never subscribed, on a client syncing everything, left it subscribed to nothing and
        // evicted its whole store.
        ConformanceCheck(.subscriptions, "unsubscribingANameNeverSubscribedLeavesAClientThatSyncsEverythingAsItIs") {
            c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            try await engine.syncNow()
            let before = try await SubscriptionWorld.names(store)
            try expect(!before.people.isEmpty, "the client synced everything its scope reads")
            try await engine.unsubscribe("never")
            try expect(try await engine.subscriptions() == nil, "still syncing everything")
            try await engine.syncNow()
            let after = try await SubscriptionWorld.names(store)
            try expectEqual(after.people, before.people)
            try expectEqual(after.trips, before.trips)
            // Its last subscription removed, a subscribed client is subscribed to nothing.
            try await engine.subscribe(try SyncSubscription("everyone", Person.self))
            try await engine.unsubscribe("everyone")
            try expectEqual(try await engine.subscriptions()?.count, 0)
            try expectEqual(try await SubscriptionWorld.names(store).people, [], "nothing covers people now")
        },
        // Found by the sync simulation once it changed subscriptions: an evicted stop stayed on its
        // trip's list, which then named a record the client did not hold, for good.
        ConformanceCheck(.subscriptions, "anEvictedRecordLeavesTheListsThatNameItAndNothingElseChanges") { c in
            let world = try await TransportWorld.make(c)
            let trip = Trip(name: "Lisbon", start: TravelDomain.day(1))
            let short = Stop(name: "Sintra", city: "Sintra", nights: 3, trip: trip.id)
            let long = Stop(name: "Belém", city: "Lisbon", nights: 6, trip: trip.id)
            try await world.server.store.transaction { tx in
                try tx.insert(trip)
                try tx.insert(short)
                try tx.insert(long)
            }
            try await world.server.store.repository(Tag.self).insert(Tag(id: "sea", label: "Sea"))
            try await world.server.store.repository(Trip.self).link(Trip.tags, from: trip.id, to: "sea")
            let (store, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            try await engine.subscribe(try SyncSubscription("trips", Trip.self))
            try await engine.subscribe(try SyncSubscription("tags", Tag.self))
            try await engine.subscribe(try SyncSubscription("stops", Stop.self, where: "nights >= 3"))
            try await engine.syncNow()
            let lists = { @Sendable in
                try await store.backend.read { reader in
                    (
                        try reader.links("Trip", relationship: "stops", from: trip.id.recordID),
                        try reader.links("Tag", relationship: "trips", from: .string("sea"))
                    )
                }
            }
            try expectEqual(Set(try await lists().0), [short.id.recordID, long.id.recordID])
            // Narrowed: the short stop leaves, and its trip's list with it; the long one stays.
            try await engine.subscribe(try SyncSubscription("stops", Stop.self, where: "nights >= 5"))
            try expectEqual(try await store.repository(Stop.self).fetch(short.id), nil)
            try expectEqual(try await lists().0, [long.id.recordID], "the list names only what the client holds")
            // The trip leaves: the tag's list lets it go, and the long stop keeps its reference
            // (the server holds the trip).
            try await engine.unsubscribe("trips")
            try expectEqual(try await lists().1, [], "the tag's list names no trip the client lacks")
            try expectEqual(try await store.repository(Stop.self).fetch(long.id)?.trip, trip.id)
            try expectEqual(try await engine.pendingMutations().count, 0, "evictions queue nothing")
            try await engine.syncNow()
            try expectEqual(try await world.server.store.repository(Stop.self).count(), 2, "the server kept both")
            try expectEqual(
                try await world.server.store.repository(Tag.self).related(Tag.trips, of: "sea").map(\.id), [trip.id])
        },
        ConformanceCheck(.subscriptions, "narrowingAndRemovingEvictWithoutDeletesAndKeepWhatAnotherCovers") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            try await engine.subscribe(try SubscriptionWorld.people("people", ["Ana", "Abe"]))
            try await engine.subscribe(try SyncSubscription("lisbon", Trip.self, where: "name == \"Lisbon\""))
            try await engine.syncNow()
            try expectEqual(try await SubscriptionWorld.names(store).trips, ["Lisbon", "Porto", "Rome"])
            let history = try await data.world.server.store.history().count
            // Narrow: Abe and Rome leave at once, before any sync.
            try await engine.subscribe(try SubscriptionWorld.people("people", ["Ana"]))
            var names = try await SubscriptionWorld.names(store)
            try expectEqual(names.people, ["Ana"])
            try expectEqual(names.trips, ["Lisbon", "Porto"])
            // Remove: Porto leaves; Lisbon stays, covered by the other subscription.
            try await engine.unsubscribe("people")
            names = try await SubscriptionWorld.names(store)
            try expectEqual(names.people, [], "no subscription covers people now")
            try expectEqual(names.trips, ["Lisbon"], "kept by the `lisbon` subscription")
            try expectEqual(try await engine.pendingMutations().count, 0, "evictions queue nothing")
            try await engine.syncNow()
            try expectEqual(try await data.world.server.store.history().count, history, "the server changed nothing")
            try expectEqual(try await data.world.server.store.repository(Person.self).count(), 3)
            // Widen again: Abe comes back.
            try await engine.subscribe(try SubscriptionWorld.people("people", ["Abe"]))
            try await engine.syncNow()
            names = try await SubscriptionWorld.names(store)
            try expectEqual(names.people, ["Abe"])
            try expectEqual(names.trips, ["Lisbon", "Rome"])
        },
        ConformanceCheck(.subscriptions, "aSubscriptionEndsWhenItsTimeToLiveRunsOutUnlessRenewed") { c in
            let data = try await SubscriptionWorld.make(c)
            let clock = ManualDate()
            let (store, engine, _) = try await data.client(clock: clock)
            let ana = try SubscriptionWorld.people("ana", ["Ana"], ttl: .seconds(60))
            try await engine.subscribe(ana)
            try await engine.syncNow()
            let expires = try await engine.subscriptions()?.first?.expires
            try expectEqual(expires, clock.now.addingTimeInterval(60))
            clock.advance(50)
            try await engine.subscribe(ana)  // renewed: 60 s from now
            clock.advance(50)
            try await engine.syncNow()
            try expectEqual(try await SubscriptionWorld.names(store).people, ["Ana"], "renewed, still live")
            clock.advance(11)
            try await engine.syncNow()
            try expectEqual(try await engine.subscriptions()?.count, 0, "expired and removed")
            let names = try await SubscriptionWorld.names(store)
            try expect(names.people.isEmpty && names.trips.isEmpty, "evicted: \(names)")
            try expectEqual(try await engine.pendingMutations().count, 0)
        },
        ConformanceCheck(.subscriptions, "subscriptionsSurviveARestartAndAnInterruptedInitialSyncResumes") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, remote) = try await data.client()
            try await engine.subscribe(try SyncSubscription("everyone", Person.self, including: ["trips"]))
            // Pages of two: the first page arrives, then the connection drops.
            await remote.failSnapshots(after: 1)
            do {
                try await engine.syncNow()
                try expect(false, "a sync whose initial sync was cut short should fail")
            } catch is SyncTransportError {}
            try expectEqual(try await engine.subscriptions()?.first?.isReady, false)
            let kept = try await store.repository(Person.self).count() + store.repository(Trip.self).count()
            try expectEqual(kept, 2, "the first page stayed")
            // A new engine over the same store: the subscription is part of the sync state.
            let again = ScriptedRemote(data.world.host.remote(tokens: FixedToken("token-a")))
            let restarted = try SyncEngine(store: store, remote: again, options: .init(pullLimit: 2))
            try expectEqual(try await restarted.subscriptions()?.map(\.subscription.name), ["everyone"])
            try await restarted.syncNow()
            // A client starting afresh reads every page; the restarted one all but the first.
            let (_, fresh, counted) = try await data.client("fresh")
            try await fresh.subscribe(try SyncSubscription("everyone", Person.self, including: ["trips"]))
            try await fresh.syncNow()
            let (all, resumed) = (await counted.snapshots, await again.snapshots)
            try expectEqual(resumed, all - 1, "resumed at the second page, not from the start")
            let names = try await SubscriptionWorld.names(store)
            try expectEqual(names.people, ["Ana", "Abe"])
            try expectEqual(names.trips, ["Lisbon", "Porto", "Rome"])
            try expectEqual(try await restarted.subscriptions()?.first?.isReady, true)
        },
        ConformanceCheck(.subscriptions, "malformedSubscriptionsAreTypedErrorsOnBothEnds") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            let makers: [(String, @Sendable () throws -> SyncSubscription)] = [
                ("an unknown entity", { try SyncSubscription("x", entity: "Nowhere") }),
                ("a missing parameter", { try SyncSubscription("x", Person.self, where: "name == $who") }),
                ("a malformed filter", { try SyncSubscription("x", Person.self, where: "name ==") }),
                ("a path without a relationship", { try SyncSubscription("x", Person.self, including: ["name"]) }),
                ("a reserved name", { try SyncSubscription("#x", Person.self) }),
            ]
            for (what, make) in makers {
                do {
                    try await engine.subscribe(try make())
                    try expect(false, "\(what) should be refused")
                } catch let error as StrataError {
                    try expectEqual(error.code, .invalidQuery, "\(what): \(error)")
                }
            }
            try expectEqual(try await engine.subscriptions(), nil, "nothing was stored")
            // A parameter is written as a literal: quotes in it cannot change the filter.
            try await engine.subscribe(
                try SyncSubscription(
                    "sly", Person.self, where: "name == $name", parameters: ["name": .string("Ana\" || name != \"")]))
            try await engine.syncNow()
            try expectEqual(try await SubscriptionWorld.names(store).people, [], "no one is named that")
            // The server refuses what a client of another build might send.
            let bad = try JSONDecoder().decode(
                [SyncSubscription].self, from: Data(#"[{"name":"x","entity":"Person","where":"nme == 1"}]"#.utf8))
            do {
                _ = try await data.world.host.remote(tokens: FixedToken("token-a")).pull(
                    PullRequest(clientID: "a", cursor: nil, subscriptions: bad))
                try expect(false, "a malformed subscription should be refused")
            } catch let error as SyncTransportError {
                try expectEqual(error.kind, .badRequest, "\(error)")
            }
        },
        ConformanceCheck(.subscriptions, "localOnlyEntitiesNeverSync") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client(localOnly: ["Tag"])
            try await store.transaction { tx in
                try tx.insert(Tag(id: "mine", label: "Mine"))
                try tx.insert(Person(name: "Ava", email: "ava@a.example"))
            }
            try expectEqual(try await engine.pendingMutations().map(\.entity), ["Person"], "the tag queued nothing")
            try await engine.syncNow()
            try expectEqual(try await data.world.server.store.repository(Tag.self).fetch("mine"), nil)
            try expectEqual(try await store.repository(Tag.self).fetch("shared"), nil, "the server's tag never came")
            try expectEqual(try await store.repository(Tag.self).fetch("mine")?.label, "Mine", "kept locally")
            try await engine.subscribe(try SyncSubscription("ana", Person.self, where: "name == \"Ana\""))
            try expectEqual(try await store.repository(Tag.self).count(), 1, "subscriptions never evict local-only")
        },
    ]
}
