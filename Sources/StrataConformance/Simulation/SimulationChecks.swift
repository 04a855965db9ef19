import Foundation
import Strata
import StrataSync

/// The deterministic sync simulation (``SyncSimulation``) on the backend under test, as the
/// server's store and every client's: seeded runs of several clients over a faulty network must
/// converge with nothing lost, and a seed must replay byte for byte.
///
/// `STRATA_SIMULATION_SEEDS` runs per backend (in four checks, so the suite's slots share them;
/// by default 128 in memory, where a run takes a fraction of a second, 12 on a backend that writes
/// files and 4 on PostgreSQL), from `STRATA_SIMULATION_SEED` on, `STRATA_SIMULATION_STEPS`
/// steps each (default 200). A failing seed is shrunk to its shortest failing prefix and reported
/// with the end of its trace, the whole trace's file and the command that replays it;
/// `STRATA_SIMULATION_WATCH=s8` adds where one pooled record stands in every store after each
/// step, and what each pull carried.
enum SimulationChecks {
    static let quarters = 4

    static var all: [ConformanceCheck] {
        (0..<quarters).map { quarter in
            ConformanceCheck(.simulation, "seededRunsConvergeWithNothingLost\(quarter)") { c in
                try await converge(c, quarter: quarter)
            }
        } + [
            ConformanceCheck(.simulation, "aSeedReplaysTheSameTraceByteForByte") { c in
                let simulation = simulation(c, steps: 120)
                let seed = SimulationRunSettings.firstSeed &+ 7_919
                let first = try await simulation.run(seed: seed)
                let second = try await simulation.run(seed: seed)
                try expect(first.trace.count > 120, "the trace has a line per step and per call")
                try expect(first.faultsInjected > 0, "faults were injected")
                let tokens = first.trace.last { $0.hasPrefix("tokens: ") } ?? "no tokens line"
                try expect(
                    tokens.contains("expired") && tokens.contains("refreshed") && tokens.contains("refused"),
                    "tokens expired, were refreshed and a sign-in was refused: \(tokens)")
                try expectEqual(
                    first.trace.joined(separator: "\n"), second.trace.joined(separator: "\n"),
                    "seed \(seed) gave two traces")
            }
        ]
    }

    static func simulation(_ c: ConformanceContext, steps: Int = SimulationRunSettings.steps) -> SyncSimulation {
        SyncSimulation(
            settings: SyncSimulation.Settings(steps: steps), server: { try await c.store(try SyncSimulation.schema()) },
            client: { _ in try await c.store(try SyncSimulation.schema()) })
    }

    /// Runs this quarter's seeds; a failure names the seed, its shrunk prefix and the replay.
    private static func converge(_ c: ConformanceContext, quarter: Int) async throws {
        let simulation = simulation(c)
        let seeds = SimulationRunSettings.seeds(
            quarter: quarter, of: quarters, default: SimulationRunSettings.defaultSeeds(c.backend.name))
        var score = SimulationScore()
        for seed in seeds {
            let outcome = try await simulation.run(seed: seed)
            score.add(outcome)
            guard outcome.converged else {
                let shrunk = try await simulation.shrink(outcome)
                throw failure(Self.report(shrunk, backend: c.backend.name))
            }
        }
        print("Simulation (\(c.backend.name), part \(quarter + 1) of \(quarters)): \(score.line)")
    }

    static func report(_ outcome: SyncSimulation.Outcome, backend: String) -> String {
        let found = (outcome.divergences + outcome.losses).prefix(8).joined(separator: "\n  ")
        let tail = outcome.trace.suffix(30).joined(separator: "\n  ")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-simulation-\(outcome.seed)-\(outcome.steps).txt")
        let written = (try? Data(outcome.trace.joined(separator: "\n").utf8).write(to: file)) != nil
        return """
            seed \(outcome.seed) diverged on \(backend); shortest failing prefix: \(outcome.steps) steps
              \(found)
            replay: \(SyncSimulation.replay(seed: outcome.seed, steps: outcome.steps))
            the whole trace: \(written ? file.path : "(could not be written)"); its end:
              \(tail)
            """
    }
}

/// The sizes `make test` and `make simulate` pass through the environment.
enum SimulationRunSettings {
    static var firstSeed: UInt64 { DurabilitySettings.seed("STRATA_SIMULATION_SEED", default: 0x51A_0001) }
    static var steps: Int { DurabilitySettings.count("STRATA_SIMULATION_STEPS", default: 200) }

    /// Seeds per backend when `STRATA_SIMULATION_SEEDS` is not set, by what a run costs there (every
    /// client's store and the server's are the backend's): a fraction of a second in memory, about
    /// two seconds on a file, some fifteen on a PostgreSQL server.
    static func defaultSeeds(_ backend: String) -> Int {
        if backend.hasPrefix("InMemory") { return 128 }
        if backend.hasPrefix("PostgreSQL") { return 4 }
        return 12
    }

    /// Every `parts`-th seed from `quarter` on: the parts of one run together cover
    /// `STRATA_SIMULATION_SEEDS` seeds (`value` when it is not set).
    static func seeds(quarter: Int, of parts: Int, default value: Int) -> [UInt64] {
        let count = DurabilitySettings.count("STRATA_SIMULATION_SEEDS", default: value)
        return stride(from: quarter, to: count, by: parts).map { firstSeed &+ UInt64($0) }
    }
}

/// Seeds, steps, faults, divergences and losses over many runs, as one line.
public struct SimulationScore: Sendable, Hashable {
    /// Runs counted.
    public private(set) var seeds = 0
    /// Steps over all runs.
    public private(set) var steps = 0
    /// Faults injected over all runs.
    public private(set) var faults = 0
    /// Runs that diverged.
    public private(set) var divergences = 0
    /// Acknowledged inserts lost, over all runs.
    public private(set) var losses = 0

    /// An empty score.
    public init() {}

    /// Counts a run.
    public mutating func add(_ outcome: SyncSimulation.Outcome) {
        seeds += 1
        steps += outcome.steps
        faults += outcome.faultsInjected
        divergences += outcome.divergences.isEmpty ? 0 : 1
        losses += outcome.losses.count
    }

    /// Adds another score's counts.
    public mutating func add(_ other: SimulationScore) {
        seeds += other.seeds
        steps += other.steps
        faults += other.faults
        divergences += other.divergences
        losses += other.losses
    }

    /// "N seeds, S steps, F faults injected, D divergences, L losses".
    public var line: String {
        "\(seeds) seeds, \(steps) steps, \(faults) faults injected, \(divergences) divergences, \(losses) losses"
    }
}
