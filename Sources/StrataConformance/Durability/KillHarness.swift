import Foundation
import Strata
import StrataSync
import StrataInMemory
import StrataSyncServer

/// Kill -9 trials: a child process writes saves (and compacts, in that window) until the parent
/// kills it with SIGKILL at a seeded moment; the parent then opens the store in this process and
/// reads every record. The contract: the store opens (never unopenable), holds every save the
/// child acknowledged, holds only whole saves (at most one more, the save in flight), and every
/// record is exact. Verify must find nothing: a kill is not damage. Every other trial writes with
/// sync on: the outbox must then hold exactly one mutation per stored record, and pushing it must
/// bring a server to the same records; history must hold one transaction per save either way.
///
/// The child is this test binary run again with `--filter`, its role in the environment
/// (``childWindow``); its test calls ``childMain(_:)``.
public enum KillHarness {
    /// When in a store's life the child is killed.
    public enum Window: String, CaseIterable, Sendable {
        /// During the creation and first open of a new store.
        case firstOpen
        /// In the middle of saves.
        case save
        /// In the middle of a compaction (backends that have one), between saves.
        case compaction
        /// In the middle of a migration of a store of ledger entries (see `MigrationKillHarness`).
        case migration
        /// In the middle of the same migration through a shadow copy with a backup.
        case shadowMigration
        /// In the middle of sync: a client and the server's store in one process (see
        /// `SyncKillHarness`).
        case sync

        /// The windows of saves: every one but the migrations' and sync's, which have their own trials.
        public static var saveWindows: [Window] { [.firstOpen, .save, .compaction] }
    }

    /// Records per save in the child.
    public static let batchSize = 20
    static let windowVariable = "STRATA_KILL_CHILD_WINDOW"
    static let locationVariable = "STRATA_KILL_CHILD_LOCATION"
    static let syncVariable = "STRATA_KILL_CHILD_SYNC"
    static let clientID = "killed-writer"

    /// The window this process was started for as a child, or nil in the parent.
    public static var childWindow: Window? {
        ProcessInfo.processInfo.environment[windowVariable].flatMap(Window.init(rawValue:))
    }

    /// The child's work: mark the start of the open, open, then save batch after batch, writing
    /// each acknowledgement (one line) after its save returned; in the compaction window,
    /// compact after every save. Runs until killed.
    public static func childMain(_ backend: DurableBackend) async throws {
        guard let window = childWindow, let location = ProcessInfo.processInfo.environment[locationVariable] else {
            return
        }
        if window == .migration || window == .shadowMigration {
            return try await MigrationKillHarness.childMain(
                backend, location: location, throughShadowCopy: window == .shadowMigration)
        }
        if window == .sync { return try await SyncKillHarness.childMain(backend, location: location) }
        let acks = location + ".acks"
        _ = FileManager.default.createFile(atPath: location + ".opening", contents: nil)
        let opened = try await backend.open(location, try LedgerEntry.schema())
        let sync = ProcessInfo.processInfo.environment[syncVariable] == "1"
        let store = Store(backend: opened, sync: sync ? SyncConfiguration(clientID: clientID) : nil)
        let descriptor = open(acks, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        for batch in 0... {
            try await DurableBackend.save(store, batch: batch, size: batchSize)
            _ = "\(batch)\n".withCString { write(descriptor, $0, strlen($0)) }
            if window == .compaction, let compact = backend.compact { try await compact(opened) }
        }
    }

    /// Runs `trials` kills in `window`, each in a fresh directory under `directory`. `filter` is
    /// the `--filter` that selects the child's test in this binary.
    public static func run(
        _ backend: DurableBackend, window: Window, in directory: String, trials: Int, seed: UInt64, filter: String
    ) async throws -> DurabilityTally {
        let schema = try LedgerEntry.schema()
        var tally = DurabilityTally()
        let category = window.rawValue
        let manager = FileManager.default
        for trial in 0..<trials {
            var random = SeededRandom(seed: seed &+ UInt64(trial) &* 0x9E37_79B9_7F4A_7C15)
            let trialDirectory = directory + "/kill-\(trial)"
            try manager.createDirectory(atPath: trialDirectory, withIntermediateDirectories: true)
            defer { try? manager.removeItem(atPath: trialDirectory) }
            let location = backend.location(trialDirectory)
            let sync = trial % 2 == 1
            let label = "seed \(seed) trial \(trial)\(sync ? " (sync on)" : "")"

            let child = try SpawnedProcess(
                executable: CommandLine.arguments[0],
                arguments: ["--testing-library", "swift-testing", "--filter", filter],
                environment: ProcessInfo.processInfo.environment.merging(
                    [windowVariable: window.rawValue, locationVariable: location, syncVariable: sync ? "1" : "0"],
                    uniquingKeysWith: { $1 }))
            // Wait for the window to open, then kill at a seeded moment inside it.
            let acks = location + ".acks"
            func acknowledged() -> Int {
                (manager.contents(atPath: acks).map { $0.filter { $0 == 0x0A }.count }) ?? 0
            }
            let ready: () -> Bool =
                switch window {
                case .firstOpen: { manager.fileExists(atPath: location + ".opening") }
                case .save: { acknowledged() >= 1 }
                case .compaction: { acknowledged() >= 2 }
                case .migration, .shadowMigration, .sync: { false }
                }
            let deadline = Date().addingTimeInterval(120)
            // Polled without blocking a cooperative thread (a loaded test process has two).
            while !ready(), child.isRunning, Date() < deadline { try await Task.sleep(for: .microseconds(500)) }
            guard child.isRunning else {
                tally.fail(
                    category,
                    "\(label): the child ended by itself (status \(child.terminationStatus)) before the window")
                continue
            }
            // The first open takes a few milliseconds: most first-open kills land inside it.
            try await Task.sleep(for: .microseconds(random.below(window == .firstOpen ? 8_000 : 60_000)))
            child.send(SIGKILL)
            _ = await child.exit()
            let acked = acknowledged()

            if backend.files(location).filter({ $0.role == "data" }).allSatisfy({ manager.fileExists(atPath: $0.path) })
            {
                let report = try await backend.verify(location, schema)
                if !report.isSound { tally.fail(category, "\(label): verify found damage after a kill: \(report)") }
            }
            let opened: any StorageBackend
            do {
                opened = try await backend.open(location, schema)
            } catch {
                tally.fail(category, "\(label): UNOPENABLE after a kill with \(acked) saves acknowledged: \(error)")
                continue
            }
            let store = Store(backend: opened, sync: sync ? SyncConfiguration(clientID: clientID) : nil)
            do {
                let observation = try await LedgerObservation.observe(store, batchSize: batchSize)
                if let problem = try await historyAndOutboxProblem(
                    store, schema: schema, observation: observation, sync: sync)
                {
                    tally.fail(category, "\(label): \(problem)")
                } else if !observation.isSaveBoundary {
                    tally.fail(category, "\(label): not a save boundary: \(observation)")
                } else if observation.wholeBatches < acked {
                    tally.fail(
                        category,
                        "\(label): LOST acknowledged saves: \(acked) acknowledged, \(observation.wholeBatches) present")
                } else if observation.wholeBatches > acked + 1 {
                    tally.fail(
                        category, "\(label): \(observation.wholeBatches) saves present, only \(acked) acknowledged")
                } else {
                    let outcome =
                        observation.wholeBatches == acked
                        ? "every acknowledged save" : "every acknowledged save + the one in flight"
                    tally.add(category, acked == 0 ? "\(outcome) (killed before the first acknowledgement)" : outcome)
                }
            } catch {
                tally.fail(category, "\(label): reading after a kill failed: \(error)")
            }
            try? await store.close()
        }
        return tally
    }

    /// One history transaction per save; with sync, one outbox mutation per record, and a push
    /// that brings a server to the same records.
    static func historyAndOutboxProblem(_ store: Store, schema: Schema, observation: LedgerObservation, sync: Bool)
        async throws -> String?
    {
        let history = try await store.history().count
        guard history == observation.wholeBatches else {
            return "\(history) history transactions for \(observation.wholeBatches) saves"
        }
        guard sync else { return nil }
        let server = SyncServer(store: Store(backend: InMemoryBackend(schema: schema)))
        let engine = try SyncEngine(store: store, remote: InProcessTransport(server: server))
        let pending = try await engine.pendingMutations().count
        guard pending == observation.records else {
            return "\(pending) outbox mutations for \(observation.records) records"
        }
        try await engine.syncNow()
        let pushed = try await server.store.repository(LedgerEntry.self).count()
        guard pushed == observation.records else {
            return "a push brought \(pushed) of \(observation.records) records to the server"
        }
        return nil
    }
}
