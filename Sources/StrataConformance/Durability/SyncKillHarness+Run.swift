import Foundation
import Strata
import StrataInMemory
import StrataSync
import StrataSyncServer

extension SyncKillHarness {
    /// What the child's log says it was doing when it was killed.
    struct ChildLog {
        var lines: [String]

        init(_ path: String) {
            let text = (FileManager.default.contents(atPath: path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            // A line cut by the kill has no newline: only whole lines count.
            lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }

        /// The greatest round `word` was written for, or -1.
        func last(_ word: String) -> Int {
            lines.compactMap { line in line.hasPrefix(word + " ") ? Int(line.dropFirst(word.count + 1)) : nil }.max()
                ?? -1
        }

        var phase: String {
            guard let line = lines.last else { return "while opening" }
            switch line.split(separator: " ").first ?? "" {
            case "opening", "pulling": return "while opening or in the first pull"
            case "saving": return "inside a local save"
            case "saved": return "between a local commit and its push"
            case "pushing": return "inside a push"
            case "pushed": return "inside a pull's apply"
            default: return "between rounds"
            }
        }
    }

    /// Runs `trials` kills, each with fresh stores in a directory of its own under `directory`.
    static func run(_ backend: DurableBackend, in directory: String, trials: Int, seed: UInt64, filter: String)
        async throws -> DurabilityTally
    {
        var tally = DurabilityTally()
        let manager = FileManager.default
        for trial in 0..<trials {
            var random = SeededRandom(seed: seed &+ UInt64(trial) &* 0x9E37_79B9_7F4A_7C15)
            let trialDirectory = directory + "/sync-kill-\(trial)"
            for part in ["client", "server"] {
                try manager.createDirectory(atPath: "\(trialDirectory)/\(part)", withIntermediateDirectories: true)
            }
            defer { try? manager.removeItem(atPath: trialDirectory) }
            let client = backend.location(trialDirectory + "/client")
            let server = backend.location(trialDirectory + "/server")
            try await seedServer(backend, at: server)
            let child = try SpawnedProcess(
                executable: CommandLine.arguments[0],
                arguments: ["--testing-library", "swift-testing", "--filter", filter],
                environment: ProcessInfo.processInfo.environment.merging(
                    [
                        KillHarness.windowVariable: KillHarness.Window.sync.rawValue,
                        KillHarness.locationVariable: client, serverVariable: server,
                    ], uniquingKeysWith: { $1 }),
                standardError: trialDirectory + "/child.err")
            let deadline = Date().addingTimeInterval(120)
            while ChildLog(client + ".log").last("pulled") < 0, child.isRunning, Date() < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            let label = "seed \(seed) trial \(trial)"
            guard child.isRunning else {
                let error = (try? String(contentsOfFile: trialDirectory + "/child.err", encoding: .utf8)) ?? ""
                tally.fail("sync", "\(label): the child ended by itself (status \(child.terminationStatus)): \(error)")
                continue
            }
            try await Task.sleep(for: .microseconds(random.below(400_000)))
            child.send(SIGKILL)
            _ = await child.exit()
            let log = ChildLog(client + ".log")
            let (problem, phase) = try await judge(backend, client: client, server: server, log: log)
            if let problem {
                tally.fail("sync", "\(label), killed \(phase): \(problem)")
            } else {
                tally.add("sync", "killed \(phase): converged")
            }
        }
        return tally
    }

    /// Reopens both stores after a kill and checks them, then syncs and compares; the problem
    /// found, if any, and where the kill landed (a push the server holds part of is told apart).
    static func judge(_ backend: DurableBackend, client: String, server: String, log: ChildLog) async throws
        -> (problem: String?, phase: String)
    {
        let schema = try TravelDomain.schema()
        for (name, location) in [("client", client), ("server", server)] {
            let report = try await backend.verify(location, schema)
            if !report.isSound {
                return ("verify found damage in the \(name) store after a kill: \(report)", log.phase)
            }
        }
        let serverStore = Store(backend: try await backend.open(server, schema))
        let store = Store(backend: try await backend.open(client, schema), sync: SyncConfiguration(clientID: clientID))
        let outcome: (problem: String?, phase: String)
        do {
            var phase = log.phase
            if log.lines.last?.hasPrefix("pushing") == true,
                try await serverStore.repository(Tag.self).fetch("k\(log.last("pushing"))") != nil
            {
                phase = "between the server's commit of a push and the client's acknowledgement"
            }
            if let lost = try await lostWork(client: store, server: serverStore, log: log) {
                outcome = (lost, phase)
            } else {
                outcome = (try await converge(store, serverStore), phase)
            }
        } catch {
            try? await store.close()
            try? await serverStore.close()
            throw error
        }
        try await store.close()
        try await serverStore.close()
        return outcome
    }

    /// Syncs the client with the server until nothing moves; compares it, and a fresh client.
    static func converge(_ store: Store, _ serverStore: Store) async throws -> String? {
        let syncServer = SyncServer(store: serverStore)
        let engine = try SyncEngine(store: store, remote: InProcessTransport(server: syncServer))
        for _ in 0..<4 {
            let moved = try await engine.push() + engine.pull()
            if moved == 0 { break }
        }
        let pending = try await engine.pendingMutations().count
        if pending > 0 { return "\(pending) mutations still pending after syncing" }
        let expected = try await SimulationState.read(serverStore)
        let observer = Store(
            backend: InMemoryBackend(schema: serverStore.schema), sync: SyncConfiguration(clientID: "observer"))
        try await SyncEngine(store: observer, remote: InProcessTransport(server: syncServer)).syncNow()
        for (name, other) in [("the killed client", store), ("a fresh client", observer)] {
            let state = try await SimulationState.read(other)
            let problems =
                state.dangling.map(\.line) + state.differences(from: expected) + expected.dangling.map(\.line)
            if !problems.isEmpty { return "\(name) differs from the server: \(problems.prefix(4))" }
        }
        return nil
    }

    /// Every acknowledged local save in the client store, at most the one in flight more; every
    /// push the child saw acknowledged on the server.
    static func lostWork(client: Store, server: Store, log: ChildLog) async throws -> String? {
        let saved = log.last("saved")
        let local = Set(try await client.repository(Tag.self).fetch().map(\.id))
        if let lost = (0...max(saved, 0)).first(where: { saved >= 0 && !local.contains("k\($0)") }) {
            return "LOST the acknowledged local save \(lost) (\(saved + 1) acknowledged)"
        }
        if local.contains("k\(saved + 2)") { return "save \(saved + 2) present, only \(saved + 1) acknowledged" }
        let pushed = log.last("pushed")
        guard pushed >= 0 else { return nil }
        let onServer = Set(try await server.repository(Tag.self).fetch().map(\.id))
        let stops = Set(try await server.repository(Stop.self).fetch().map(\.id))
        if let lost = (0...pushed).first(where: { !onServer.contains("k\($0)") || !stops.contains(stopID($0)) }) {
            return "LOST round \(lost)'s acknowledged push (\(pushed + 1) pushes acknowledged)"
        }
        return nil
    }
}
