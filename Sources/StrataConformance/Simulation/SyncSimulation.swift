import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The deterministic sync simulation: clients with their own stores and outboxes and a server,
/// in one process, over a simulated network and clock, every step drawn from a seed. After the
/// steps, faults stop, held-back pushes arrive and everyone syncs until nothing moves; then the run
/// is judged: every client equals the server (values, link lists and their order), no mutation is
/// left pending, no reference dangles, and every insert the server acknowledged is held or has a
/// tombstone. The same seed gives the same trace, byte for byte.
///
/// The suite's `Simulation` category runs it on the backend under test (server and clients);
/// `make simulate` runs it at length over mixed backends.
public struct SyncSimulation: Sendable {
    /// How a run is sized.
    public struct Settings: Sendable, Hashable {
        /// How many clients a run has (drawn from the seed).
        public var clients: ClosedRange<Int>
        /// Steps per run before the network heals.
        public var steps: Int
        /// Whether the network loses, repeats and holds back calls (the fault rates of the issue
        /// the simulation was built for: 8% offline, 10% answers lost, 7% sent twice, 7% held
        /// back, 4% pull answers lost).
        public var injectsFaults: Bool

        /// Settings; 3–5 clients and 200 steps with faults by default.
        public init(clients: ClosedRange<Int> = 3...5, steps: Int = 200, injectsFaults: Bool = true) {
            self.clients = clients
            self.steps = steps
            self.injectsFaults = injectsFaults
        }

        var faults: SimulatedNetwork.Faults { injectsFaults ? SimulatedNetwork.Faults() : .none }
    }

    /// What one run found.
    public struct Outcome: Sendable {
        /// The run's seed.
        public var seed: UInt64
        /// The steps it ran.
        public var steps: Int
        /// Faults the network injected.
        public var faultsInjected: Int
        /// Where a client and the server differ after the run, or something was left pending or
        /// dangling; empty when the run converged.
        public var divergences: [String]
        /// Inserts the server acknowledged that it neither holds nor has a tombstone of.
        public var losses: [String]
        /// Every step and every call, in order.
        public var trace: [String]

        /// Whether the run converged with nothing lost.
        public var converged: Bool { divergences.isEmpty && losses.isEmpty }
    }

    let settings: Settings
    let makeServerStore: @Sendable () async throws -> Store
    let makeClientStore: @Sendable (Int) async throws -> Store
    let makeRemote: (@Sendable (Int) async throws -> any SyncRemote)?
    let release: @Sendable (Store) async -> Void

    /// A simulation whose server and clients get their stores from the closures (client `i`'s from
    /// `client(i)`), each empty, with ``TravelDomain``'s schema; `release` receives each store
    /// when its run is judged (to close it and remove what it left).
    ///
    /// With `remote`, client `i`'s calls go (through the faulty network) to `remote(i)` instead of
    /// a server in this process: servers in other processes over the server's store (two
    /// `strata serve` over one PostgreSQL database, say). The server's own writes and the judge's
    /// reads then go through `server()`'s store in this process, and a server restart is left to
    /// the caller. Such a run is not replayed byte for byte (the servers' clocks are real).
    public init(
        settings: Settings = Settings(), server: @escaping @Sendable () async throws -> Store,
        client: @escaping @Sendable (Int) async throws -> Store,
        remote: (@Sendable (Int) async throws -> any SyncRemote)? = nil,
        release: @escaping @Sendable (Store) async -> Void = { _ in }
    ) {
        self.settings = settings
        self.makeServerStore = server
        self.makeClientStore = client
        self.makeRemote = remote
        self.release = release
    }

    /// Runs `seed` for `steps` steps (the settings' by default), then heals, drains and judges.
    public func run(seed: UInt64, steps: Int? = nil) async throws -> Outcome {
        var world = try await SimulationWorld.make(
            seed: seed, settings: settings, server: makeServerStore, client: makeClientStore, remote: makeRemote)
        let count = steps ?? settings.steps
        let watched = ProcessInfo.processInfo.environment["STRATA_SIMULATION_WATCH"]
        for step in 0..<count {
            let line = try await world.step()
            world.trace.append("\(step): \(line)")
            // `STRATA_SIMULATION_WATCH=t8,p3` watches each of several records.
            for name in watched?.split(separator: ",") ?? [] { world.trace.append(try await world.watch(String(name))) }
        }
        var faults = 0
        for client in world.clients { faults += await client.network.injected }
        // Tokens expired early and sign-ins refused are faults too.
        let tokens = world.tokens.counts
        faults += (tokens["expired"] ?? 0) + (tokens["refused"] ?? 0)
        world.trace.append(
            "tokens: " + tokens.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        try await world.settle()
        for name in watched?.split(separator: ",") ?? [] {
            world.trace.append("settled; " + (try await world.watch(String(name))))
        }
        let judgement = try await world.judge()
        await release(world.serverStore)
        for client in world.clients { await release(client.store) }
        return Outcome(
            seed: seed, steps: count, faultsInjected: faults, divergences: judgement.divergences,
            losses: judgement.losses, trace: world.trace)
    }

    /// The shortest prefix of `outcome`'s run that still fails (by bisection, then confirmed), or
    /// `outcome` itself when no shorter one does.
    public func shrink(_ outcome: Outcome) async throws -> Outcome {
        guard !outcome.converged else { return outcome }
        var failing = outcome
        var low = 0
        var high = outcome.steps
        while low < high {
            let middle = (low + high) / 2
            let attempt = try await run(seed: outcome.seed, steps: middle)
            if attempt.converged {
                low = middle + 1
            } else {
                failing = attempt
                high = middle
            }
        }
        return failing
    }

    /// The command that replays a run of the suite's `Simulation` category.
    public static func replay(seed: UInt64, steps: Int) -> String {
        "STRATA_SIMULATION_SEED=\(seed) STRATA_SIMULATION_STEPS=\(steps) STRATA_SIMULATION_SEEDS=1 "
            + "STRATA_CHECKS=Simulation/ swift test --skip-build --disable-xctest --filter InMemoryConformanceTests"
    }
}
