import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Records a reader sees through another record's scope, deleted with it.
extension SharingChecks {
    static var cascades: [ConformanceCheck] {
        [
            ConformanceCheck(.sharing, "aCascadeReachesAReaderWhoseScopeReadItThroughTheDeletedRecord") { c in
                // Alice reads stops through their trip (the trip her traveller's domain owns). Lisbon
                // deleted by one of her clients cascades to its stops; her other client, which
                // holds them, must get their deletions too, though the trip they were read through
                // is gone when it pulls.
                let sharing = try await SharingWorld.make(c)
                let (first, firstEngine, _) = try await sharing.client("a1", token: "token-a")
                let (second, secondEngine, _) = try await sharing.client("a2", token: "token-a")
                try expectEqual(
                    try await SharingWorld.names(second).stops, ["Belém", "Sintra"], "Alice reads Lisbon's stops")
                try await first.repository(Trip.self).delete(sharing.lisbon.id)
                try await firstEngine.syncNow()
                try expectEqual(await firstEngine.rejections.map(\.reason), [], "Alice may delete her trip")
                try await secondEngine.syncNow()
                let names = try await SharingWorld.names(second)
                try expect(!names.trips.contains("Lisbon"), "Lisbon left Alice's second client")
                try expectEqual(names.stops, [], "Lisbon's stops left with it")
            },
            ConformanceCheck(.sharing, "aRecordAReaderInsertedAfterItsCursorReachesItAsATombstoneOnceDeleted") { c in
                // Alice's first client adds a stop and pushes it, pulling nothing; her second deletes
                // it. The first's next pull starts before the stop existed, yet it holds the stop.
                let sharing = try await SharingWorld.make(c)
                let (first, firstEngine, _) = try await sharing.client("a1", token: "token-a")
                let (second, secondEngine, _) = try await sharing.client("a2", token: "token-a")
                let cascais = Stop(name: "Cascais", city: "Cascais", trip: sharing.lisbon.id)
                try await first.repository(Stop.self).insert(cascais)
                try expect(try await firstEngine.push() > 0, "the stop pushed (with Lisbon's list), nothing pulled")
                try await deleteFromTheSecond(cascais, leaving: (first, firstEngine), second: (second, secondEngine))
            },
            // Found by the sync simulation with shares (seed 85590096): a stop ID another
            // identity had used and deleted before the reader inserted its own stop under it; the
            // reader's insert was not the first change of that ID after its cursor, so the
            // tombstone was judged by what the reader could see then, and never sent.
            ConformanceCheck(.sharing, "aRecordAReaderInsertedUnderAnIDAnotherHadDeletedReachesItAsATombstone") { c in
                let sharing = try await SharingWorld.make(c)
                let (first, firstEngine, _) = try await sharing.client("a1", token: "token-a")
                let (second, secondEngine, _) = try await sharing.client("a2", token: "token-a")
                try await firstEngine.syncNow()
                let stops = sharing.world.server.store.repository(Stop.self)
                let bergen = Stop(name: "Bergen", city: "Bergen", trip: sharing.oslo.id)
                try await stops.insert(bergen)
                try await stops.delete(bergen.id)
                let cascais = Stop(id: bergen.id, name: "Cascais", city: "Cascais", trip: sharing.lisbon.id)
                try await first.repository(Stop.self).insert(cascais)
                try expect(try await firstEngine.push() > 0, "the stop pushed, nothing pulled")
                try await deleteFromTheSecond(cascais, leaving: (first, firstEngine), second: (second, secondEngine))
            },
            // Found by the sync simulation with shares (seed 85590098): a trip read through its
            // traveller left the reader's scope when the traveller did (her e-mail moved to another
            // domain), and was given to another traveller in a later commit, which the reader's
            // next page read. The first page found the traveller's trips as they are now (the trip
            // named someone else by then), the second judged the trip's earlier state over the
            // traveller as she is now (out of scope already): no page evicted it.
            ConformanceCheck(
                .sharing, "aTripThatLeftTheReadersScopeWithItsTravellerLeavesThoughItChangedTravellerSince"
            ) {
                c in
                let sharing = try await SharingWorld.make(c)
                let (store, engine, _) = try await sharing.client("a1", token: "token-a", options: .init(pullLimit: 1))
                try await engine.syncNow()
                try expectEqual(try await SharingWorld.names(store).trips, ["Lisbon", "Porto"], "Ana's trips")
                var moved = sharing.ana
                moved.email = "ana@b.example"
                try await sharing.world.server.store.repository(Person.self).update(moved)
                var given = sharing.porto
                given.traveller = sharing.bo.id
                try await sharing.world.server.store.repository(Trip.self).update(given)
                try await engine.syncNow()
                let names = try await SharingWorld.names(store)
                try expectEqual(names.trips, [], "both trips left with Ana")
                try expectEqual(names.stops, [], "and Lisbon's stops with them")
                try expectEqual(try await store.repository(Person.self).count(), 0, "no one is the reader's now")
            },
            ConformanceCheck(.sharing, "aTripGivenToAnotherTravellerTakesItsUnchangedStopsFromOneReaderToTheOther") {
                c in
                // Stops are read through their trip, trips through their traveller's domain. The
                // server sends Lisbon with Bo: Alice's client must lose its stops and Bob's gain
                // them, though the stops themselves did not change.
                let sharing = try await SharingWorld.make(c)
                let (alice, aliceEngine, _) = try await sharing.client("a1", token: "token-a")
                let (bob, bobEngine, _) = try await sharing.client("b1", token: "token-b")
                try expectEqual(try await SharingWorld.names(bob).stops, [], "Bob reads no stop of Alice's")
                var moved = sharing.lisbon
                moved.traveller = sharing.bo.id
                try await sharing.world.server.store.repository(Trip.self).update(moved)
                try await aliceEngine.syncNow()
                try await bobEngine.syncNow()
                let (mine, theirs) = (try await SharingWorld.names(alice), try await SharingWorld.names(bob))
                try expect(!mine.trips.contains("Lisbon") && theirs.trips.contains("Lisbon"), "Lisbon went to Bob")
                try expectEqual(mine.stops, [], "Lisbon's stops left Alice's client with it")
                try expectEqual(theirs.stops, ["Belém", "Sintra"], "Lisbon's stops reached Bob's client with it")
            },
            // Found by the sync simulation with shares: a stop deleted after its trip left the
            // reader's scope was neither among the trip's referrers when the page that evicted the
            // trip was read (it was gone by then) nor sent by its own deletion (judged at a cursor
            // where the trip was out of the scope already), and stayed with the reader for good.
            ConformanceCheck(.sharing, "aStopDeletedAfterItsTripLeftTheReadersScopeLeavesTheReaderWithTheTrip") { c in
                let sharing = try await SharingWorld.make(c)
                // One change a page: the trip's move and the stop's deletion come on different pages.
                let (alice, aliceEngine, _) = try await sharing.client(
                    "a1", token: "token-a", options: .init(pullLimit: 1))
                try expectEqual(try await SharingWorld.names(alice).stops, ["Belém", "Sintra"])
                var moved = sharing.lisbon
                moved.traveller = sharing.bo.id
                let server = sharing.world.server.store
                try await server.repository(Trip.self).update(moved)
                let belem = try await server.repository(Stop.self).fetch().filter { $0.name == "Belém" }
                try expectEqual(belem.count, 1)
                try await server.repository(Stop.self).delete(belem[0].id)
                try await aliceEngine.syncNow()
                let names = try await SharingWorld.names(alice)
                try expect(!names.trips.contains("Lisbon"), "Lisbon left Alice's client")
                try expectEqual(names.stops, [], "both its stops left with it, the one deleted since too")
                try expectEqual(
                    try await server.repository(Stop.self).fetch().map(\.name), ["Sintra"],
                    "Sintra is still the server's: evicted, not deleted")
                // The index of deleted referrers goes with the history it stands beside.
                let filed = { @Sendable in
                    try await server.backend.read {
                        try $0.metadata(prefix: MetadataKeys.serverDeletedReferrerPrefix, after: nil, limit: nil).count
                    }
                }
                try expectEqual(try await filed(), 2, "Belém filed under Lisbon, and Lisbon under Ana, who it left")
                let last = try expectNotNil(try await server.currentHistoryToken())
                try await server.purgeHistory(before: HistoryToken(last.value + 1))
                try expectEqual(try await filed(), 0, "purged with history")
            },
            // Found by the sync simulation with shares: a tag listing a trip that entered the reader's
            // scope — shared with it, or given to its traveller — did not change, so the reader kept
            // the tag's list as it was without the trip (the server leaves out what the reader may
            // not see) for good.
            ConformanceCheck(.sharing, "aListNamingARecordThatEntersTheReadersScopeNamesItOnceItArrives") { c in
                let sharing = try await SharingWorld.make(c)
                let faro = Trip(name: "Faro", start: TravelDomain.day(4), traveller: sharing.ana.id)
                try await sharing.world.server.store.transaction { tx in
                    try tx.insert(faro)
                    try tx.insert(Tag(id: "coast", label: "Coast"))
                    for trip in [sharing.lisbon.id, sharing.oslo.id, sharing.porto.id, faro.id] {
                        try tx.link(Trip.tags, from: trip, to: "coast")
                    }
                }
                let (bob, bobEngine, _) = try await sharing.client("b1", token: "token-b")
                let coast = { @Sendable in
                    Set(try await bob.repository(Tag.self).related(Tag.trips, of: "coast").map(\.name))
                }
                try expectEqual(try await coast(), ["Oslo"], "Bob's list leaves out Alice's trips")
                // Given to Bob's traveller: the trip comes for its change, the list all the same.
                var given = sharing.porto
                given.traveller = sharing.bo.id
                try await sharing.world.server.store.repository(Trip.self).update(given)
                try await bobEngine.syncNow()
                try expectEqual(try await coast(), ["Oslo", "Porto"], "the tag's list names the trip given to Bo")
                // Shared: the trip did not change.
                let (alice, aliceEngine, _) = try await sharing.alice(role: .read)
                try await bobEngine.syncNow()
                try expect(try await SharingWorld.names(bob).trips.contains("Lisbon"), "Lisbon shared with Bob")
                try expectEqual(try await coast(), ["Lisbon", "Oslo", "Porto"], "and the trip shared with Bob")
                // Shared and changed in one save.
                var renamed = faro
                renamed.name = "Faro and Tavira"
                let changed = renamed
                try await alice.transaction { tx in
                    try tx.insert(SyncShare(Trip.self, faro.id, owner: "alice", with: "bob", role: .read))
                    try tx.update(changed)
                }
                try await aliceEngine.syncNow()
                try await bobEngine.syncNow()
                try expectEqual(
                    try await coast(), ["Faro and Tavira", "Lisbon", "Oslo", "Porto"],
                    "and the trip shared and renamed in one save")
                try expectEqual(try await bobEngine.pendingMutations().count, 0, "nothing arrived as a local write")
            },
        ]
    }

    /// Alice's second client deletes `stop`, which her first pushed without pulling; the first's
    /// next sync drops it (Lisbon keeps Belém and Sintra).
    private static func deleteFromTheSecond(
        _ stop: Stop, leaving first: (Store, SyncEngine), second: (Store, SyncEngine)
    ) async throws {
        try await second.1.syncNow()
        try await second.0.repository(Stop.self).delete(stop.id)
        try await second.1.syncNow()
        try expectEqual(await second.1.rejections.map(\.reason), [], "Alice may delete her stop")
        try await first.1.syncNow()
        try expectEqual(
            try await SharingWorld.names(first.0).stops, ["Belém", "Sintra"], "\(stop.name) left the first client")
    }
}
