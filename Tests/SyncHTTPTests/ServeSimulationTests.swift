import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataSync
import StrataSyncHTTPClient
import Testing

/// The sync simulation over real processes: two `strata serve` over one PostgreSQL store, each
/// client's calls alternating between them over HTTP (through the simulation's faulty network),
/// the server's own writes and the judge's reads through a third handle on the store. Every
/// client must end equal to the store, nothing pending, nothing dangling, no acknowledged insert
/// gone — as in process. `STRATA_SIMULATION_SERVE_SEEDS` seeds (4 by default) from
/// `STRATA_SIMULATION_SERVE_SEED`.
@Suite("Sync simulation over two strata serve processes")
struct ServeSimulationTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seeds = Int(environment["STRATA_SIMULATION_SERVE_SEEDS"] ?? "") ?? 4
    static let firstSeed = UInt64(environment["STRATA_SIMULATION_SERVE_SEED"] ?? "") ?? 0x5E4E_0000
    static let steps = Int(environment["STRATA_SIMULATION_STEPS"] ?? "") ?? 200

    @Test func twoServeProcessesOverOnePostgreSQLStoreConverge() async throws {
        let serve = try ServeTests()
        var score = SimulationScore()
        let started = ContinuousClock.now
        for offset in 0..<Self.seeds {
            guard let url = try await serve.makeStore("postgres") else {
                print("Sync simulation over two strata serve processes: not run (no STRATA_POSTGRES_URL)")
                return
            }
            let first = try await ServeProcess.start(
                url: url, tokens: "\(serve.directory)/tokens", directory: serve.directory)
            defer { first.stop() }
            let second = try await ServeProcess.start(
                url: url, tokens: "\(serve.directory)/tokens", directory: serve.directory)
            defer { second.stop() }
            let urls = [first.baseURL, second.baseURL]
            let simulation = SyncSimulation(
                settings: SyncSimulation.Settings(steps: Self.steps),
                server: { try await Store.open(url, schema: try TravelDomain.schema()) },
                client: { _ in Store(backend: InMemoryBackend(schema: try TravelDomain.schema())) },
                remote: { _ in
                    AlternatingRemote(urls.map { HTTPSyncRemote(baseURL: $0, tokens: FixedToken("token-a")) })
                },
                release: { store in try? await store.close() })
            let seed = Self.firstSeed &+ UInt64(offset)
            let outcome = try await simulation.run(seed: seed)
            score.add(outcome)
            if !outcome.converged {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "strata-simulation-serve-\(seed).txt")
                try? Data(outcome.trace.joined(separator: "\n").utf8).write(to: file)
                Issue.record(
                    """
                    seed \(seed) diverged over two strata serve processes: \
                    \((outcome.divergences + outcome.losses).prefix(6).joined(separator: "; "))
                    replay: STRATA_SIMULATION_SERVE_SEEDS=1 STRATA_SIMULATION_SERVE_SEED=\(seed) \
                    scripts/with-postgres swift test --skip-build --disable-xctest --filter ServeSimulationTests
                    the whole trace: \(file.path)
                    """)
            }
            #expect(first.isRunning && second.isRunning, "neither server crashed (seed \(seed))")
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        print("Sync simulation (two strata serve processes, one PostgreSQL store): \(score.line), \(seconds) s")
        #expect(score.seeds == Self.seeds)
    }
}
