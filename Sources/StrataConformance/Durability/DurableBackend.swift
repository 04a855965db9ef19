import Foundation
import Strata

/// A persistent backend as the damage and kill harnesses drive it. Each backend's test target
/// describes its own (files, verify, compaction) and runs the harnesses against it.
public struct DurableBackend: Sendable {
    /// Names the backend in tallies and failures.
    public var name: String
    /// The store's location inside a fresh directory (a file path, or LMDB's directory).
    public var location: @Sendable (_ directory: String) -> String
    /// The backend's URL scheme, registered in ``registry``: what migrations open through.
    public var scheme: String
    /// A registry of this harness's own holding the backend (`register` fills it).
    public let registry: BackendRegistry
    /// Opens, creating when absent, the store at a location.
    public var open: @Sendable (_ location: String, _ schema: Schema) async throws -> any StorageBackend
    /// The backend's verify routine.
    public var verify: @Sendable (_ location: String, _ schema: Schema) async throws -> VerifyReport
    /// The store's files by role ("data", "log": SQLite's WAL, the JSON journal), which the damage
    /// harness picks from.
    public var files: @Sendable (_ location: String) -> [(role: String, path: String)]
    /// The page size a zeroed page is aligned to.
    public var pageSize: Int
    /// Compaction, for the backends that have one.
    public var compact: (@Sendable (any StorageBackend) async throws -> Void)?
    /// Whether an open reported that it recovered from damage by dropping data (the JSON store's
    /// torn journal tail).
    public var reportedRecovery: @Sendable (any StorageBackend) -> Bool

    /// A backend whose files a trial may damage or whose process it may kill.
    public init(
        name: String, location: @escaping @Sendable (String) -> String, scheme: String,
        register: (BackendRegistry) -> Void,
        open: @escaping @Sendable (String, Schema) async throws -> any StorageBackend,
        verify: @escaping @Sendable (String, Schema) async throws -> VerifyReport,
        files: @escaping @Sendable (String) -> [(role: String, path: String)], pageSize: Int,
        compact: (@Sendable (any StorageBackend) async throws -> Void)? = nil,
        reportedRecovery: @escaping @Sendable (any StorageBackend) -> Bool = { _ in false }
    ) {
        self.name = name
        self.location = location
        self.scheme = scheme
        self.registry = BackendRegistry()
        register(registry)
        self.open = open
        self.verify = verify
        self.files = files
        self.pageSize = pageSize
        self.compact = compact
        self.reportedRecovery = reportedRecovery
    }

    /// Opens the store at `location` with `schema` as an app does (`Store.open`), migrating it
    /// with `plan`.
    func open(_ location: String, schema: Schema, migrations plan: MigrationPlan?) async throws -> Store {
        try await Store.open(
            "\(scheme):\(location)", schema: schema, options: OpenOptions(registry: registry, migrations: plan))
    }

    /// Writes `batch` as one save.
    static func save(_ store: Store, batch: Int, size: Int) async throws {
        let entries = LedgerEntry.batch(batch, size: size)
        try await store.transaction { tx in for entry in entries { try tx.insert(entry) } }
    }
}

/// Counts of outcomes, by class of damage or kill window, with every failure spelled out.
public struct DurabilityTally: Sendable, CustomStringConvertible {
    /// Outcomes counted per trial kind.
    public var counts: [String: [String: Int]] = [:]
    /// What failed, one sentence each.
    public var failures: [String] = []

    /// An empty tally.
    public init() {}

    mutating func add(_ category: String, _ outcome: String) {
        counts[category, default: [:]][outcome, default: 0] += 1
    }

    mutating func fail(_ category: String, _ message: String) {
        add(category, "FAILED")
        failures.append("\(category): \(message)")
    }

    public var description: String {
        counts.sorted { $0.key < $1.key }.map { category, outcomes in
            "  \(category): "
                + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }.joined(separator: "\n")
    }
}

/// A seed from the environment, or the default; trials from the environment, or the default.
public enum DurabilitySettings {
    /// The seed from an environment variable, or `value`.
    public static func seed(_ variable: String, default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[variable].flatMap { UInt64($0) } ?? value
    }

    /// A count from an environment variable, or `value`.
    public static func count(_ variable: String, default value: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap { Int($0) } ?? value
    }
}

/// The damage and kill runs as a backend's test target calls them: trials and seeds from the
/// environment (`STRATA_DAMAGE_TRIALS`, default 120, and `STRATA_DAMAGE_SEED`;
/// `STRATA_KILL_TRIALS`, default 10 per window, and `STRATA_KILL_SEED`), a scratch directory,
/// and the tally printed with its seed.
public enum DurabilityRun {
    /// Damages the backend's files in every way the harness knows and tallies what reopening does.
    public static func damage(_ backend: DurableBackend) async throws -> DurabilityTally {
        let trials = DurabilitySettings.count("STRATA_DAMAGE_TRIALS", default: 120)
        let seed = DurabilitySettings.seed("STRATA_DAMAGE_SEED", default: 0xDA3A6E)
        return try await inScratchDirectory { directory in
            try await DamageHarness.makeTemplate(backend, in: directory)
            let tally = try await DamageHarness.run(backend, in: directory, trials: trials, seed: seed)
            print("\(backend.name): \(trials) damaged-file trials, seed \(seed) (STRATA_DAMAGE_SEED):\n\(tally)")
            return tally
        }
    }

    /// Kills a child process in `window` at random moments and tallies what reopening finds.
    public static func kills(_ backend: DurableBackend, window: KillHarness.Window, filter: String) async throws
        -> DurabilityTally
    {
        let trials = DurabilitySettings.count("STRATA_KILL_TRIALS", default: 10)
        let seed = DurabilitySettings.seed("STRATA_KILL_SEED", default: 0x4B111)
        return try await inScratchDirectory { directory in
            let tally = try await KillHarness.run(
                backend, window: window, in: directory, trials: trials, seed: seed, filter: filter)
            print(
                "\(backend.name): \(trials) kills in the \(window.rawValue) window, seed \(seed) "
                    + "(STRATA_KILL_SEED):\n\(tally)")
            return tally
        }
    }

    /// Kills a child process in the middle of sync (`STRATA_SYNC_KILL_TRIALS`, default 8, seeded by
    /// `STRATA_KILL_SEED`): see `SyncKillHarness`.
    public static func syncKills(_ backend: DurableBackend, filter: String) async throws -> DurabilityTally {
        let trials = DurabilitySettings.count("STRATA_SYNC_KILL_TRIALS", default: 8)
        let seed = DurabilitySettings.seed("STRATA_KILL_SEED", default: 0x4B111)
        return try await inScratchDirectory { directory in
            let tally = try await SyncKillHarness.run(
                backend, in: directory, trials: trials, seed: seed, filter: filter)
            print("\(backend.name): \(trials) kills in the middle of sync, seed \(seed) (STRATA_KILL_SEED):\n\(tally)")
            return tally
        }
    }

    /// Kills during a migration: in place (`STRATA_MIGRATION_KILL_TRIALS`, default 50), or
    /// through a shadow copy keeping a backup (`STRATA_SHADOW_KILL_TRIALS`, default 25); seeded by
    /// `STRATA_KILL_SEED`.
    public static func migrationKills(_ backend: DurableBackend, filter: String, throughShadowCopy: Bool = false)
        async throws -> DurabilityTally
    {
        let trials =
            throughShadowCopy
            ? DurabilitySettings.count("STRATA_SHADOW_KILL_TRIALS", default: 25)
            : DurabilitySettings.count("STRATA_MIGRATION_KILL_TRIALS", default: 50)
        let seed = DurabilitySettings.seed("STRATA_KILL_SEED", default: 0x4B111)
        return try await inScratchDirectory { directory in
            let tally = try await MigrationKillHarness.run(
                backend, in: directory, trials: trials, seed: seed, filter: filter, throughShadowCopy: throughShadowCopy
            )
            let how = throughShadowCopy ? " through a shadow copy" : ""
            print(
                "\(backend.name): \(trials) kills during a migration\(how), seed \(seed) (STRATA_KILL_SEED):\n\(tally)")
            return tally
        }
    }

    /// ``DiskFullHarness/run(_:)``, its tally printed.
    public static func diskFull(_ backend: DurableBackend) async throws -> DurabilityTally {
        let tally = try await DiskFullHarness.run(backend)
        print("\(backend.name): disk-full trials on \(DiskFullHarness.sizes.map { "\($0 >> 20) MiB" }):\n\(tally)")
        return tally
    }

    /// ``TruncationSweep/run(_:)``, its count printed.
    public static func truncations(_ backend: DurableBackend) async throws -> [String] {
        let (trials, failures) = try await TruncationSweep.run(backend)
        print("\(backend.name): \(trials) truncated copies, \(failures.count) failed")
        return failures
    }

    /// ``ShadowCopyFiles/check(_:in:)`` in a scratch directory of its own.
    public static func shadowCopyFiles(_ backend: DurableBackend) async throws -> [String] {
        try await inScratchDirectory { directory in try await ShadowCopyFiles.check(backend, in: directory) }
    }

    static func inScratchDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-durability-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }
}
