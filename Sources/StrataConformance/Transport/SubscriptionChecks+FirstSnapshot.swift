import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A client whose first pull is a subscription's snapshot: it continues from the snapshot's
/// cursor, so it never sees the changes before it, and what it held then is only as good as the
/// snapshot says.
extension SubscriptionChecks {
    static let firstSnapshot: [ConformanceCheck] = [
        // Found by the sync simulation with subscriptions: a client that had never pulled took its
        // first snapshot's cursor and skipped every change before it. A trip of its own writing that
        // the server had deleted meanwhile (in the simulation a cascade of the client's own later
        // delete) was covered by its subscription, absent from the snapshot, and stayed for good.
        ConformanceCheck(.subscriptions, "aRecordTheServerDeletedBeforeTheClientsFirstSnapshotLeavesWithIt") { c in
            let world = try await TransportWorld.make(c)
            let (store, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            try await engine.subscribe(try SyncSubscription("trips", Trip.self))
            let gone = Trip(name: "Gone", start: TravelDomain.day(1))
            let kept = Trip(name: "Kept", start: TravelDomain.day(2))
            let edited = Trip(name: "Edited", start: TravelDomain.day(3))
            try await store.transaction { tx in
                for trip in [gone, kept, edited] { try tx.insert(trip) }
            }
            try expectEqual(try await engine.push(), 3, "the server holds the three; the client never pulled")
            let server = world.server.store.repository(Trip.self)
            try await server.delete(gone.id)
            try await server.delete(edited.id)
            // An edit still unsent keeps its record until the server answers it.
            var renamed = edited
            renamed.name = "Edited again"
            try await store.repository(Trip.self).update(renamed)
            let report = try await engine.syncNow()
            try expectEqual(report.rejected, 1, "the edit of a trip the server deleted is refused")
            try expectEqual(
                try await store.repository(Trip.self).fetch().map(\.name), ["Kept"],
                "what the snapshot does not hold leaves: the server deleted it before the snapshot")
            try expectEqual(try await engine.pendingMutations().count, 0)
            // The cursor is the snapshot's: later changes still arrive, and nothing comes twice.
            let later = Trip(name: "Later", start: TravelDomain.day(4))
            try await server.insert(later)
            try await engine.syncNow()
            try expectEqual(Set(try await store.repository(Trip.self).fetch().map(\.name)), ["Kept", "Later"])
        }
    ]
}
