import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// A simulated clock: one time for the run, moved on by every step, read by each client with its
/// own skew. The base is long past, so the server's own stamps (its wall clock) are always later.
final class SimulatedClock: Sendable {
    private let now = Mutex(Date(timeIntervalSinceReferenceDate: 30_000_000))
    func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    func reading(skew: TimeInterval) -> @Sendable () -> Date { { [self] in now.withLock { $0 } + skew } }
}

/// One simulated client: its store, its engine (replaced on a restart) and its network link.
struct SimulatedClient {
    let index: Int
    let store: Store
    var engine: SyncEngine
    let network: SimulatedNetwork
    let options: SyncEngine.Options
    var name: String { "c\(index)" }
}

/// The server, the clients and the seeded streams of one run.
struct SimulationWorld {
    var server: SyncServer
    let serverStore: Store
    var clients: [SimulatedClient]
    let clock: SimulatedClock
    /// The clients' bearer tokens, which the server's endpoint checks (in-process servers only).
    let tokens: SimulationTokens
    var random: SeededRandom
    let pools: SimulationPools
    /// Whether the clients reach servers elsewhere (other processes), not `server`.
    var remoteServers = false
    /// Whether steps change clients' subscriptions (on; `STRATA_SIMULATION_SUBSCRIPTIONS=0` turns
    /// them off, to replay a seed of a run made without them).
    let changesSubscriptions = ProcessInfo.processInfo.environment["STRATA_SIMULATION_SUBSCRIPTIONS"] != "0"
    /// Whether trips are scoped, shared and revoked (``sharesRequested``, servers in this process).
    let shares: Bool
    var trace: [String] = []

    static func make(
        seed: UInt64, settings: SyncSimulation.Settings, server makeServer: () async throws -> Store,
        client makeClient: (Int) async throws -> Store, remote: ((Int) async throws -> any SyncRemote)? = nil
    ) async throws -> SimulationWorld {
        var random = SeededRandom(seed: seed)
        let serverStore = try await makeServer()
        let shares = sharesRequested && remote == nil
        let server = SyncServer(store: serverStore, access: access(shares: shares))
        let pools = SimulationPools(&random)
        let clock = SimulatedClock()
        let world = SimulationWorld(
            server: server, serverStore: serverStore, clients: [], clock: clock,
            tokens: SimulationTokens(clock: clock), random: random, pools: pools, remoteServers: remote != nil,
            shares: shares)
        var made = world
        let count = made.random.int(settings.clients)
        for index in 0..<count {
            let skew = TimeInterval(made.random.int(-5...5))
            let configuration = SyncConfiguration(clientID: "c\(index)", clock: made.clock.reading(skew: skew))
            let store = try await makeClient(index).withSync(configuration)
            made.tokens.signIn(index, lifetime: TimeInterval(made.random.int(20...120)))
            let link: any SyncRemote = try await remote?(index) ?? made.link(index)
            let network = SimulatedNetwork(
                server: link, client: index, seed: made.random.next(), faults: settings.faults)
            let policies: [SyncClientConflictPolicy] = [.propertyMerge, .propertyMerge, .serverWins, .lastWriterWins]
            let policyIndex = made.random.below(policies.count)
            let options = SyncEngine.Options(
                batchSize: made.random.int(2...12), pullLimit: made.random.int(3...20),
                defaultPolicy: policies[policyIndex])
            let engine = try SyncEngine(store: store, remote: network, options: options)
            made.clients.append(
                SimulatedClient(index: index, store: store, engine: engine, network: network, options: options))
            made.trace.append("c\(index): skew \(Int(skew)) s, policy \(policyIndex), batch \(options.batchSize)")
        }
        return made
    }

    /// The engine of client `index` restarted: what it kept in memory is gone, its store stays.
    mutating func restart(_ index: Int) throws {
        let client = clients[index]
        clients[index].engine = try SyncEngine(store: client.store, remote: client.network, options: client.options)
    }

    /// The server process restarted over the same store (what it kept in memory is gone).
    mutating func restartServer() async {
        server = SyncServer(store: serverStore, access: Self.access(shares: shares))
        guard !remoteServers else { return }
        for client in clients { await client.network.reconnect(to: link(client.index)) }
    }

    /// Client `index`'s link to the server in this process: its endpoint, as over HTTP (statuses,
    /// bearer tokens refreshed after a `401`), without a rate limit.
    func link(_ index: Int) -> any SyncRemote { link(to: server, tokens: tokens.provider(for: index)) }

    /// A link to `server`'s endpoint, checking the run's tokens, without a rate limit.
    func link(to server: SyncServer, tokens provider: any SyncTokenProvider) -> any SyncRemote {
        EndpointTransport(
            endpoint: SyncEndpoint(server: server, authenticator: tokens, limits: SyncLimits(rate: nil)),
            tokens: provider)
    }
}

/// The IDs records are created with, shared by every client, so they collide.
struct SimulationPools: Sendable {
    let people: [UUID]
    let trips: [UUID]
    let stops: [UUID]
    let tags: [String]
    let agencies: [Int64]

    init(_ random: inout SeededRandom) {
        people = (0..<4).map { _ in random.uuid() }
        trips = (0..<10).map { _ in random.uuid() }
        stops = (0..<14).map { _ in random.uuid() }
        tags = (0..<6).map { "tag\($0)" }
        agencies = [101, 102, 103]
    }
}
