import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataSync
import StrataSyncHTTPClient
import Testing

/// A `strata serve` killed with SIGKILL in the middle of pushes and pulls, and started again on
/// the same SQLite store: no mutation a client saw acknowledged is lost, and once the clients
/// sync again every client holds what the server holds, nothing pending. Three clients write
/// tags of their own and relabel shared ones (the same property from several clients), add stops
/// to one shared trip's ordered list, then sync at once; the kill lands at a seeded moment.
/// `STRATA_SERVE_KILL_TRIALS` trials (8), seeded by `STRATA_SERVE_KILL_SEED`.
@Suite("strata serve killed mid-sync")
struct ServeKillTests {
    static let environment = ProcessInfo.processInfo.environment
    static let trials = Int(environment["STRATA_SERVE_KILL_TRIALS"] ?? "") ?? 8
    static let seed = UInt64(environment["STRATA_SERVE_KILL_SEED"] ?? "") ?? 0x5E4E_4B11
    static let tripID = UUID(uuidString: "00000000-0000-0000-0000-0000000000b0") ?? UUID()

    /// A remote that calls whichever server is current (the one started after a kill).
    actor FollowingRemote: SyncRemote {
        private var current: HTTPSyncRemote
        init(_ remote: HTTPSyncRemote) { current = remote }
        func follow(_ remote: HTTPSyncRemote) { current = remote }
        func push(_ request: PushRequest) async throws -> PushResponse { try await current.push(request) }
        func pull(_ request: PullRequest) async throws -> PullResponse { try await current.pull(request) }
        func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
            try await current.snapshot(request)
        }
    }

    /// A remote with a short timeout: AsyncHTTPClient retries a refused connection until the
    /// request's deadline, so a call in flight when the server died fails only then.
    static func remote(_ server: ServeProcess, _ token: String) -> HTTPSyncRemote {
        HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken(token), timeout: .seconds(3))
    }

    struct Client {
        let name: String
        let store: Store
        let engine: SyncEngine
        let remote: FollowingRemote
        let token: String
    }

    @Test func aServerKilledMidSyncLosesNothingAcknowledgedAndClientsConverge() async throws {
        print("strata serve killed mid-sync: \(Self.trials) trials, seed \(Self.seed) (STRATA_SERVE_KILL_SEED)")
        let serve = try ServeTests()
        let url = try #require(try await serve.makeStore("sqlite"))
        let direct = try await Store.open(url, schema: try TravelDomain.schema())
        try await direct.repository(Trip.self).insert(Trip(id: Self.tripID, name: "shared", start: TravelDomain.day(0)))
        try await direct.repository(Tag.self).insert(
            contentsOf: (0..<5).map { Tag(id: "shared\($0)", label: "x\($0)") })
        var server = try await ServeProcess.start(
            url: url, tokens: "\(serve.directory)/tokens", directory: serve.directory)
        defer { server.stop() }
        var clients: [Client] = []
        for (index, token) in ["token-a", "token-b", "token-a"].enumerated() {
            let store = Store(
                backend: InMemoryBackend(schema: try TravelDomain.schema()),
                sync: SyncConfiguration(clientID: "c\(index)"))
            let remote = FollowingRemote(Self.remote(server, token))
            let engine = try SyncEngine(store: store, remote: remote, options: .init(batchSize: 8, pullLimit: 16))
            try await engine.syncNow()
            clients.append(Client(name: "c\(index)", store: store, engine: engine, remote: remote, token: token))
        }
        var phases: [String: Int] = [:]
        for trial in 0..<Self.trials {
            var random = SeededRandom(seed: Self.seed &+ UInt64(trial) &* 0x9E37_79B9_7F4A_7C15)
            for client in clients { try await write(client, trial: trial, random: &random) }
            let delay = random.below(160)
            let killed = server
            let started = ContinuousClock.now
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for client in clients { group.addTask { (try? await client.engine.syncNow()) != nil } }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(delay))
                    killed.killHard()
                    return true
                }
                return await group.reduce(into: 0) { $0 += $1 ? 0 : 1 }
            }
            phases[outcomes == 0 ? "after every sync" : "with \(outcomes) syncs cut", default: 0] += 1
            let synced = ContinuousClock.now
            server = try await ServeProcess.start(
                url: url, tokens: "\(serve.directory)/tokens", directory: serve.directory)
            let restarted = ContinuousClock.now
            for client in clients {
                await client.remote.follow(Self.remote(server, client.token))
            }
            try await expectAcknowledgedWritesKept(clients, on: direct, trial: trial)
            try await settle(clients)
            try await expectConverged(clients, with: direct, trial: trial)
            print(
                "trial \(trial): killed after \(delay) ms, \(outcomes) syncs cut; syncs \(synced - started), "
                    + "restart \(restarted - synced), settling \(ContinuousClock.now - restarted)")
        }
        print("strata serve killed mid-sync: \(phases.sorted { $0.key < $1.key })")
        #expect(server.stop() == 0)
        try await direct.close()
    }

    /// A client's writes for one trial: tags of its own, a shared tag relabelled, a stop on the
    /// shared trip, an own tag from an earlier trial deleted.
    func write(_ client: Client, trial: Int, random: inout SeededRandom) async throws {
        let (name, shared, count) = (client.name, random.below(5), 6 + random.below(20))
        try await client.store.unitOfWork { context in
            for index in 0..<count {
                try await context.insert(Tag(id: "\(name)-\(trial)-\(index)", label: "\(name) \(trial) \(index)"))
            }
            try await context.update(Tag(id: "shared\(shared)", label: "shared\(shared) by \(name) in \(trial)"))
            try await context.insert(Stop(name: "\(name) \(trial)", city: "c", trip: Self.tripID))
            if trial > 0 { try await context.delete(Tag.self, id: "\(name)-\(trial - 1)-0") }
        }
    }

    /// Every tag a client wrote and no longer has pending is on the restarted server (or was
    /// deleted by that client's own acknowledged delete).
    func expectAcknowledgedWritesKept(_ clients: [Client], on store: Store, trial: Int) async throws {
        let onServer = Set(try await store.repository(Tag.self).fetch().map(\.id))
        for client in clients {
            let pending = Set(try await client.engine.pendingMutations().map(\.recordID))
            let own = try await client.store.repository(Tag.self).fetch().map(\.id)
            let lost = own.filter {
                $0.hasPrefix(client.name + "-") && !pending.contains(.string($0)) && !onServer.contains($0)
            }
            #expect(lost.isEmpty, "trial \(trial): \(client.name)'s acknowledged inserts \(lost) are gone")
        }
    }

    /// Every client pushes and pulls until a whole round moves nothing (at most eight rounds).
    func settle(_ clients: [Client]) async throws {
        for _ in 0..<8 {
            var moved = 0
            for client in clients { moved += try await client.engine.push() + client.engine.pull() }
            if moved == 0 { return }
        }
    }

    func expectConverged(_ clients: [Client], with store: Store, trial: Int) async throws {
        let tags = Set(try await store.repository(Tag.self).fetch().map { "\($0.id)=\($0.label)" })
        let stops = try await store.repository(Trip.self).related(Trip.stops, of: Self.tripID).map(\.id)
        for client in clients {
            let pending = try await client.engine.pendingMutations().count
            #expect(pending == 0, "trial \(trial): \(client.name) has \(pending) mutations pending")
            let own = Set(try await client.store.repository(Tag.self).fetch().map { "\($0.id)=\($0.label)" })
            let (extra, missing) = (own.subtracting(tags).sorted(), tags.subtracting(own).sorted())
            #expect(own == tags, "trial \(trial): \(client.name) differs: \(extra) vs \(missing)")
            let order = try await client.store.repository(Trip.self).related(Trip.stops, of: Self.tripID).map(\.id)
            #expect(order == stops, "trial \(trial): \(client.name)'s stops of the shared trip, in order")
        }
    }
}
