import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// Wire formats 1 and 2 side by side: a server answers each request in the request's format, so
/// clients built before format 2 keep working; a client of this build falls back to format 1 for
/// a server that speaks only it; both formats carry the same messages.
extension TransportChecks {
    static let formats: [ConformanceCheck] = [
        ConformanceCheck(.transport, "formatOneClientsKeepWorkingAndBothFormatsCarryTheSameMessages") { c in
            let world = try await TransportWorld.make(c)
            let seen = WireLog()
            let formatOne = WireClientRemote(
                client: SyncWireClient(tokens: FixedToken("token-a")) { request in
                    seen.record(request)
                    return try await world.host.send(Self.received(request))
                }, version: 1)
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(store: store, remote: formatOne, options: .init(batchSize: 5))
            _ = try await TravelData.seed(store)
            try await engine.syncNow()
            try expect(seen.versions.count >= 5, "pushes of 5 and a pull went through: \(seen.versions)")
            try expectEqual(Set(seen.versions), [1], "a format-1 client sends format 1 only")
            let (other, otherEngine) = try await world.client("b", tokens: FixedToken("token-b"))
            try await otherEngine.syncNow()
            try await expectSettled([store, other], server: world.server)
            // The same requests in both formats get the same answers.
            let current = world.host.remote(tokens: FixedToken("token-a"))
            var pull = PullRequest(clientID: "a", cursor: nil)
            let two = try await current.pull(pull)
            pull.version = 1
            let one = try await formatOne.pull(pull)
            try expectEqual(two.changes.count, 18, "the seed's 18 records")
            try expectEqual(one.changes, two.changes, "the pull's changes")
            try expectEqual([one.cursor, one.hasMore] as [AnyHashable?], [two.cursor, two.hasMore])
            var snapshot = SnapshotRequest(clientID: "a", position: nil, limit: 4)
            let snapshotTwo = try await current.snapshot(snapshot)
            snapshot.version = 1
            let snapshotOne = try await formatOne.snapshot(snapshot)
            try expect(!snapshotTwo.records.isEmpty, "the snapshot's first page has records")
            try expectEqual(snapshotOne.records, snapshotTwo.records, "the snapshot's records")
            try expectEqual(snapshotOne.next, snapshotTwo.next, "where the snapshot continues")
            try expectEqual(snapshotOne.through, snapshotTwo.through)
        },
        ConformanceCheck(.transport, "aClientFallsBackToFormatOneForAServerThatSpeaksOnlyIt") { c in
            let world = try await TransportWorld.make(c)
            let seen = WireLog()
            let client = SyncWireClient(tokens: FixedToken("token-a")) { request in
                seen.record(request)
                // What a server built before format 2 answers a format-2 request.
                if Self.version(of: request) == 2 {
                    let route = request.path == SyncWire.pushPath ? "push" : "pull"
                    return SyncEndpoint.failure(
                        409, .incompatible, "\(route) format version 2 is not supported (this server speaks 1)")
                }
                return try await world.host.send(Self.received(request))
            }
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(
                store: store, remote: WireClientRemote(client: client, version: nil), options: .init(batchSize: 5))
            _ = try await TravelData.seed(store)
            try await engine.syncNow()
            try expect(client.fellBackToFormat1, "the client noticed the server speaks format 1")
            try expectEqual(
                seen.versions.filter { $0 == 2 }.count, 1, "one format-2 request, refused: \(seen.versions)")
            try expect(seen.versions.filter { $0 == 1 }.count >= 5, "the rest in format 1: \(seen.versions)")
            try await expectSettled([store], server: world.server)
        },
        ConformanceCheck(.transport, "aFallbackToFormatOneIsForAWhileAndOnlyForARefusalOfFormatTwo") { c in
            let world = try await TransportWorld.make(c)
            let seen = WireLog()
            let refusals = Mutex(1)
            let client = SyncWireClient(tokens: FixedToken("token-a"), formatRetryInterval: .zero) { request in
                seen.record(request)
                let refuse = refusals.withLock { left in
                    defer { left = max(0, left - 1) }
                    return left > 0 && Self.version(of: request) == 2
                }
                // An old node of a rolling deploy answers the first request; a new one the rest.
                if refuse { return SyncEndpoint.failure(409, .incompatible, "pull format version 2 is not supported") }
                return try await world.host.send(Self.received(request))
            }
            let remote = WireClientRemote(client: client, version: nil)
            _ = try await remote.pull(PullRequest(clientID: "a", cursor: nil))
            _ = try await remote.pull(PullRequest(clientID: "a", cursor: nil))
            try expectEqual(seen.versions, [2, 1, 2], "refused, answered in format 1, then format 2 again")
            try expect(!client.fellBackToFormat1, "the fallback ran out")
            // A 409 about something else (the schema version) is the caller's error, not a downgrade.
            let strict = WireLog()
            let other = SyncWireClient(tokens: FixedToken("token-a")) { request in
                strict.record(request)
                return SyncEndpoint.failure(409, .incompatible, "the client's store is at schema version 1")
            }
            do {
                _ = try await WireClientRemote(client: other, version: nil).pull(
                    PullRequest(clientID: "a", cursor: nil))
                throw failure("a schema-version 409 fails the pull")
            } catch let error as SyncTransportError {
                try expectEqual(error.kind, .incompatible)
            }
            try expectEqual(strict.versions, [2], "nothing retried in format 1")
            try expect(!other.fellBackToFormat1, "no fallback")
        },
        ConformanceCheck(.transport, "aTombstoneInAFormatOneAnswerIsRemovedWithoutLocalDeleteRules") { c in
            let data = try await SubscriptionWorld.make(c)
            let server = data.world.server.store
            let (trip, stop) = try await data.keptTripWithALisbonStop()
            let formatOne = WireClientRemote(
                client: SyncWireClient(tokens: FixedToken("token-a")) { request in
                    try await data.world.host.send(Self.received(request))
                }, version: 1)
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(store: store, remote: formatOne)
            for subscription in try SubscriptionWorld.keptTripsAndLisbonStops() {
                try await engine.subscribe(subscription)
            }
            try await engine.syncNow()
            try expectEqual(try await store.repository(Stop.self).fetch(stop.id), stop)
            // Format 1 cannot tell the trip's leaving the subscription from its deletion; the
            // client removes it without its cascade, so the stop the server keeps stays.
            var renamed = trip
            renamed.name = "gone"
            try await server.repository(Trip.self).update(renamed)
            try await engine.syncNow()
            try expect(try await store.repository(Trip.self).fetch(trip.id) == nil, "the trip left the client")
            try expectEqual(try await store.repository(Stop.self).fetch(stop.id), stop)
        },
    ]

    /// A request as a server receives it: the query through its percent-encoded form.
    static func received(_ request: SyncWire.Request) -> SyncWire.Request {
        var received = request
        received.query = SyncWire.parseQuery(request.target)
        return received
    }

    static func version(of request: SyncWire.Request) -> Int? {
        if let text = request.query["v"] { return Int(text) }
        return try? SyncWire.bodyVersion(request.body)
    }
}

/// The format of every request a check's client sent.
private final class WireLog: Sendable {
    private let seen = Mutex<[Int]>([])
    func record(_ request: SyncWire.Request) {
        let version = TransportChecks.version(of: request) ?? -1
        seen.withLock { $0.append(version) }
    }
    var versions: [Int] { seen.withLock { $0 } }
}

/// A remote over a wire client, pinning every request to one format (`nil`: as the engine asks).
private struct WireClientRemote: SyncRemote {
    let client: SyncWireClient
    let version: Int?

    func push(_ request: PushRequest) async throws -> PushResponse {
        var request = request
        if let version { request.version = version }
        return try await client.push(request)
    }
    func pull(_ request: PullRequest) async throws -> PullResponse {
        var request = request
        if let version { request.version = version }
        return try await client.pull(request)
    }
    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        var request = request
        if let version { request.version = version }
        return try await client.snapshot(request)
    }
}
