import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// A sync server behind a `SyncEndpoint` served by the check's transport harness, and clients
/// that reach it with bearer tokens.
struct TransportWorld {
    let server: SyncServer
    let endpoint: SyncEndpoint
    let host: any SyncTransportHost
    let context: ConformanceContext

    /// Alice and Bob, each scoped to the people of their e-mail domain and those people's trips.
    static let alice = SyncIdentity("alice", attributes: ["domain": "a.example"])
    static let bob = SyncIdentity("bob", attributes: ["domain": "b.example"])
    static let tokens = ["token-a": alice, "token-b": bob]

    static func make(
        _ c: ConformanceContext, access: SyncAccess = SyncAccess(), limits: SyncLimits = SyncLimits(rate: nil),
        authenticator: (any SyncAuthenticator)? = nil, schema: Schema? = nil
    ) async throws -> TransportWorld {
        let server = SyncServer(store: try await c.store(schema), access: access)
        let endpoint = SyncEndpoint(
            server: server, authenticator: authenticator ?? StaticTokenAuthenticator(tokens), limits: limits)
        let host = try await (c.transport ?? InProcessHarness()).host(endpoint)
        c.onTeardown { await host.shutdown() }
        return TransportWorld(server: server, endpoint: endpoint, host: host, context: c)
    }

    /// A client store with sync on, and its engine over the harness.
    func client(_ id: String, tokens: any SyncTokenProvider, options: SyncEngine.Options = .init()) async throws -> (
        Store, SyncEngine
    ) {
        let store = try await context.store().withSync(SyncConfiguration(clientID: id))
        return (store, try SyncEngine(store: store, remote: host.remote(tokens: tokens), options: options))
    }

    /// Person scoped by e-mail domain, Trip by its traveller's; `isVerified` is the server's.
    static var travelScopes: SyncAccess {
        var access = SyncAccess()
        access.scope(Person.self) { identity in Self.ofDomain(identity) }
        access.scope(Trip.self) { identity in .related(\Trip.traveller, where: Self.ofDomain(identity)) }
        access.serverOwned(Person.self, ["isVerified"])
        return access
    }

    private static func ofDomain(_ identity: SyncIdentity) -> Filter<Person> {
        .hasSuffix(\Person.email, "@" + (identity.attributes["domain"] ?? "nowhere.invalid"))
    }
}

/// A token a check can revoke and renew: `token()` gives the current one, `refresh()` the next
/// once the check made one available.
final class RenewableToken: SyncTokenProvider {
    private let state: Mutex<(current: String, next: String?, refreshes: Int)>
    init(_ token: String) { state = Mutex((token, nil, 0)) }
    func token() async throws -> String { state.withLock { $0.current } }
    func refresh() async throws -> String? {
        state.withLock { state in
            state.refreshes += 1
            guard let next = state.next else { return nil }
            state.current = next
            state.next = nil
            return next
        }
    }
    func offer(_ next: String) { state.withLock { $0.next = next } }
    var refreshes: Int { state.withLock { $0.refreshes } }
}

/// Accepts tokens from a table the check edits while clients run.
final class RevocableTokens: SyncAuthenticator {
    private let table: Mutex<[String: SyncIdentity]>
    init(_ table: [String: SyncIdentity]) { self.table = Mutex(table) }
    func identity(forBearer token: String) async throws -> SyncIdentity? { table.withLock { $0[token] } }
    func revoke(_ token: String) { _ = table.withLock { $0.removeValue(forKey: token) } }
    func grant(_ token: String, _ identity: SyncIdentity) { table.withLock { $0[token] = identity } }
}

/// Counts a remote's calls and can fail snapshots after some pages (a client that dies in the
/// middle of a reset), or revoke a token after some pushes.
actor ScriptedRemote: SyncRemote, SyncTrafficCounting {
    let inner: any SyncRemote
    /// The wrapped remote's bytes, when it counts them.
    nonisolated var traffic: (sent: Int, received: Int) { (inner as? any SyncTrafficCounting)?.traffic ?? (0, 0) }
    var pushes = 0
    var pushedBatches: [Int] = []
    var snapshots = 0
    var failSnapshotsAfter: Int?
    var afterPush: (@Sendable (Int) -> Void)?

    init(_ inner: any SyncRemote) { self.inner = inner }

    func failSnapshots(after pages: Int?) { failSnapshotsAfter = pages }
    func onPush(_ body: @escaping @Sendable (Int) -> Void) { afterPush = body }

    func push(_ request: PushRequest) async throws -> PushResponse {
        let response = try await inner.push(request)
        pushes += 1
        pushedBatches.append(request.mutations.count)
        afterPush?(pushes)
        return response
    }

    /// Every record change the client was sent (pulls and snapshots), in order.
    var received: [RecordKey] = []
    /// The IDs of records the client was sent with values (not as removals).
    var receivedWithValues: Set<RecordID> = []

    func pull(_ request: PullRequest) async throws -> PullResponse {
        let response = try await inner.pull(request)
        note(response.changes)
        return response
    }

    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        if let limit = failSnapshotsAfter, snapshots >= limit {
            throw SyncTransportError(.offline, "the client stopped in the middle of a reset")
        }
        snapshots += 1
        let response = try await inner.snapshot(request)
        note(response.records)
        return response
    }

    private func note(_ changes: [RemoteChange]) {
        received += changes.map(\.key)
        for change in changes where change.values != nil { receivedWithValues.insert(change.recordID) }
    }
}

/// A seconds clock a check moves by hand (the server's rate limiter and the client's waits share it).
final class ManualSeconds: Sendable {
    private let value = Mutex(0.0)
    private let waits = Mutex<[Duration]>([])
    var now: Double { value.withLock { $0 } }
    /// What a client's `sleep` does: note the wait and move the clock instead of sleeping.
    func sleep(_ duration: Duration) {
        waits.withLock { $0.append(duration) }
        value.withLock { $0 += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
    }
    var waited: [Duration] { waits.withLock { $0 } }
}
