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
            let remote = PullAnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(store: store, remote: remote)
            try await engine.subscribe(try SyncSubscription("tags", Tag.self))
            try await engine.syncNow()
            let dear = Trip(name: "Dear", start: TravelDomain.day(1), budget: 500)
            let trips = world.server.store.repository(Trip.self)
            try await trips.insert(dear)
            try await engine.subscribe(try SyncSubscription("dear", Trip.self, where: "budget >= 100"))
            await remote.loseNextPullAnswer()
            do {
                try await engine.syncNow()
                throw failure("the lost answer should fail the sync")
            } catch is SyncTransportError {}
            try expectEqual(
                try await store.repository(Trip.self).fetch(dear.id)?.name, "Dear", "the snapshot brought the trip")
            try await trips.delete(dear.id)
            try await engine.syncNow()
            try expectEqual(
                try await store.repository(Trip.self).fetch(dear.id), nil, "its deletion reached the client")
            try expectEqual(try await engine.pendingMutations().count, 0, "nothing of it is the client's to send")
        }
    ]
}

/// Passes calls through, and loses the answer of the next pull once asked (the server served it).
actor PullAnswerLosingRemote: SyncRemote {
    let inner: any SyncRemote
    private var losesNextPull = false

    init(_ inner: any SyncRemote) { self.inner = inner }

    func loseNextPullAnswer() { losesNextPull = true }

    func push(_ request: PushRequest) async throws -> PushResponse { try await inner.push(request) }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        let response = try await inner.pull(request)
        guard losesNextPull else { return response }
        losesNextPull = false
        throw SyncTransportError(.offline, "the pull's answer was lost")
    }

    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse { try await inner.snapshot(request) }
}
