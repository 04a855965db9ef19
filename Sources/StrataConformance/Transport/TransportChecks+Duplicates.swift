import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A resend answered `duplicate` carries the record as the server holds it, as a rejection does:
/// a client that kept its own value through a pull (its mutation still pending after a lost
/// answer) converges on what the server holds instead of keeping its value for good.
extension TransportChecks {
    static let duplicates: [ConformanceCheck] = [
        ConformanceCheck(.transport, "aResendAnsweredDuplicateAfterAnotherWriterConvergesOnTheServersState") { c in
            let world = try await TransportWorld.make(c)
            let lossy = AnswerLosingRemote(world.host.remote(tokens: FixedToken("token-a")))
            let a = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engineA = try SyncEngine(store: a, remote: lossy)
            let (b, engineB) = try await world.client("b", tokens: FixedToken("token-a"))
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000), budget: 100)
            try await a.repository(Trip.self).insert(trip)
            try await engineA.syncNow()
            try await engineB.syncNow()
            // A renames the trip; its push is applied but the answer lost, and before A pulls, B
            // renames it again (applied after A's: the server holds B's name).
            var renamed = trip
            renamed.name = "Lisbon (A)"
            try await a.repository(Trip.self).update(renamed)
            await lossy.loseNextAnswer { [renamed] in
                var other = renamed
                other.name = "Lisbon (B)"
                try await b.repository(Trip.self).update(other)
                try await engineB.syncNow()
            }
            // A's pull runs with its mutation still pending: the property merge keeps A's name.
            do {
                try await engineA.syncNow()
                throw failure("the lost answer should fail the sync")
            } catch is SyncTransportError {}
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id)?.name, "Lisbon (A)")
            // The resend is a duplicate: it says what the server holds, and A takes it.
            let report = try await engineA.syncNow()
            try expectEqual(report.rejected, 0)
            try expectEqual(await lossy.outcomes.last, [.duplicate])
            let server = try await world.server.store.repository(Trip.self).fetch(trip.id)
            try expectEqual(server?.name, "Lisbon (B)")
            try expectEqual(try await a.repository(Trip.self).fetch(trip.id), server)
            try expectEqual(try await b.repository(Trip.self).fetch(trip.id), server)
            try expectEqual(try await engineA.pendingMutations().count, 0)
            // A's next write is based on the server's version, so nothing is stale afterwards.
            var next = try await a.repository(Trip.self).fetch(trip.id) ?? trip
            next.budget = 250
            try await a.repository(Trip.self).update(next)
            try await engineA.syncNow()
            try await engineB.syncNow()
            try expectEqual(try await b.repository(Trip.self).fetch(trip.id), next)
        },
        ConformanceCheck(.transport, "aDuplicateAnswerCarriesTheServersVersionAndStateAsTheCallerMayReadThem") { c in
            let world = try await TransportWorld.make(c)
            let model = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 1_000))
            let trip = try model.record()
            let put = SyncMutation(
                id: MutationID(clientID: "a", sequence: 1), kind: .put, entity: "Trip", recordID: trip.id,
                isInsert: true, values: trip.values, timestamp: HybridTimestamp(millis: 1, node: "a"))
            let first = try await world.server.push(PushRequest(clientID: "a", mutations: [put]))
            try expectEqual(first.results.map(\.outcome), [.applied])
            let trips = world.server.store.repository(Trip.self)
            var renamed = model
            renamed.name = "Renamed"
            try await trips.update(renamed)
            let again = try await world.server.push(PushRequest(clientID: "a", mutations: [put]))
            try expectEqual(again.results.map(\.outcome), [.duplicate])
            let stored = try await world.server.store.backend.read { try $0.record("Trip", id: trip.id) }
            try expectEqual(again.results[0].serverVersion, stored?.version)
            try expectEqual(again.results[0].current?.values?["name"], .string("Renamed"))
            try expectEqual(again.results[0].current?.serverVersion, stored?.version)
        },
    ]
}

/// A remote that, when asked, applies the next push and then loses its answer (after running
/// `between`, another writer's turn), as a dropped connection would — or loses the next push on
/// the way.
actor AnswerLosingRemote: SyncRemote {
    let inner: any SyncRemote
    private var pending: (@Sendable () async throws -> Void)?
    /// Each answered push's outcomes, lost ones included.
    private(set) var outcomes: [[MutationResult.Outcome]] = []

    init(_ inner: any SyncRemote) { self.inner = inner }

    private var dropsNextPush = false
    private var repeatsNextPush = false
    private var losesNextPull = false

    func loseNextAnswer(between: @escaping @Sendable () async throws -> Void) { pending = between }
    /// The next push never reaches the server.
    func dropNextPush() { dropsNextPush = true }
    /// The next push reaches the server twice (a retry after a timeout), and the client hears the
    /// second answer.
    func repeatNextPush() { repeatsNextPush = true }
    /// The next pull's answer is lost: the server served it, the client hears a dropped connection.
    func loseNextPullAnswer() { losesNextPull = true }

    func push(_ request: PushRequest) async throws -> PushResponse {
        if dropsNextPush {
            dropsNextPush = false
            throw SyncTransportError(.offline, "the request never arrived")
        }
        if repeatsNextPush {
            repeatsNextPush = false
            _ = try await inner.push(request)
        }
        let response = try await inner.push(request)
        outcomes.append(response.results.map(\.outcome))
        guard let between = pending else { return response }
        pending = nil
        try await between()
        throw SyncTransportError(.offline, "the connection dropped before the answer arrived")
    }
    func pull(_ request: PullRequest) async throws -> PullResponse {
        let response = try await inner.pull(request)
        guard losesNextPull else { return response }
        losesNextPull = false
        throw SyncTransportError(.offline, "the pull's answer was lost")
    }
    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse { try await inner.snapshot(request) }
}
