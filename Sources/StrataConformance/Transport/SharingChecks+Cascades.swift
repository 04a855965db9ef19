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
                try await secondEngine.syncNow()
                try await second.repository(Stop.self).delete(cascais.id)
                try await secondEngine.syncNow()
                try expectEqual(await secondEngine.rejections.map(\.reason), [], "Alice may delete her stop")
                try await firstEngine.syncNow()
                try expectEqual(
                    try await SharingWorld.names(first).stops, ["Belém", "Sintra"], "Cascais left the first client")
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
        ]
    }
}
