import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The network between a simulated client and the server: every call's fate drawn from the run's
/// seeded fault stream — lost on the way (never arrives), applied with its answer lost, delivered
/// twice, held back and delivered later after newer calls (its answer gone), or delivered as sent.
/// One client's calls run one at a time, so a seed always gives the same interleaving.
actor SimulatedNetwork: SyncRemote {
    /// How often each fault strikes, out of 1.
    struct Faults: Sendable, Hashable {
        var offline = 0.08
        var answerLost = 0.10
        var duplicated = 0.07
        var heldBack = 0.07
        var pullLost = 0.04

        static let none = Faults(offline: 0, answerLost: 0, duplicated: 0, heldBack: 0, pullLost: 0)
    }

    private(set) var server: any SyncRemote
    let client: Int
    private var random: SeededRandom
    var faults: Faults
    /// Pushes held back, delivered by ``deliverHeldBack()``.
    private(set) var heldBack: [PushRequest] = []
    /// What happened on this link, one line per call, for the run's trace.
    private(set) var log: [String] = []
    /// Counts of what was injected.
    private(set) var injected = 0
    /// Every record whose insert the server answered applied.
    private(set) var acknowledgedInserts: [RecordKey] = []
    /// Every record whose delete the server answered applied (an insert and a delete of one
    /// record in one push leave nothing on the server, rightly).
    private(set) var acknowledgedDeletes: Set<RecordKey> = []

    init(server: any SyncRemote, client: Int, seed: UInt64, faults: Faults) {
        self.server = server
        self.client = client
        self.random = SeededRandom(seed: seed)
        self.faults = faults
    }

    func setFaults(_ faults: Faults) { self.faults = faults }
    /// The link to a restarted server.
    func reconnect(to server: any SyncRemote) { self.server = server }
    func takeLog() -> [String] {
        defer { log.removeAll() }
        return log
    }

    func push(_ request: PushRequest) async throws -> PushResponse {
        let roll = random.below(1_000_000)
        let size = request.mutations.count
        var edge = 0.0
        func strikes(_ probability: Double) -> Bool {
            edge += probability
            return Double(roll) < edge * 1_000_000
        }
        if strikes(faults.offline) {
            injected += 1
            log.append("c\(client) push \(size): lost on the way")
            throw SyncTransportError(.offline, "simulated: the request never arrived")
        }
        if strikes(faults.heldBack) {
            injected += 1
            heldBack.append(request)
            log.append("c\(client) push \(size): held back")
            throw SyncTransportError(.offline, "simulated: the request is held back")
        }
        let answer = try await server.push(request)
        note(answer, of: request)
        if strikes(faults.answerLost) {
            injected += 1
            log.append("c\(client) push \(size): \(Self.summary(answer)), answer lost" + Self.detail(request, answer))
            throw SyncTransportError(.offline, "simulated: the answer was lost")
        }
        if strikes(faults.duplicated) {
            injected += 1
            let again = try await server.push(request)
            note(again, of: request)
            log.append("c\(client) push \(size): \(Self.summary(answer)), sent twice: \(Self.summary(again))")
            return again
        }
        log.append("c\(client) push \(size): \(Self.summary(answer))" + Self.detail(request, answer))
        return answer
    }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        if Double(random.below(1_000_000)) < faults.pullLost * 1_000_000 {
            injected += 1
            _ = try await server.pull(request)
            log.append("c\(client) pull: answer lost")
            throw SyncTransportError(.offline, "simulated: the pull's answer was lost")
        }
        let answer = try await server.pull(request)
        var line = "c\(client) pull: \(answer.changes.count) changes\(answer.hasMore ? ", more" : "")"
        if ProcessInfo.processInfo.environment["STRATA_SIMULATION_WATCH"] != nil {
            line +=
                " from \(request.cursor.map { "\($0.value)" } ?? "the start") to "
                + "\(answer.cursor.map { "\($0.value)" } ?? "-"): "
                + answer.changes.map { "\($0.key)\($0.isTombstone ? " (gone)" : "")" }.joined(separator: ", ")
        }
        log.append(line)
        return answer
    }

    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        let answer = try await server.snapshot(request)
        log.append("c\(client) snapshot: \(answer.records.count) records")
        return answer
    }

    /// Delivers the oldest held-back push, if any (its answer goes nowhere): a replay that arrives
    /// after newer pushes of the same client.
    func deliverHeldBack() async throws {
        guard !heldBack.isEmpty else { return }
        let request = heldBack.removeFirst()
        let answer: PushResponse
        do {
            answer = try await server.push(request)
        } catch let error as SyncTransportError {
            // Arrived once its sender's sign-in was refused: refused too, and nobody waits for it.
            log.append("c\(client) late push \(request.mutations.count): refused (\(error.kind))")
            return
        }
        note(answer, of: request)
        log.append(
            "c\(client) late push \(request.mutations.count): \(Self.summary(answer))" + Self.detail(request, answer))
    }

    /// Delivers every held-back push (the network drains before the run is judged).
    func drain() async throws {
        while !heldBack.isEmpty { try await deliverHeldBack() }
    }

    private func note(_ answer: PushResponse, of request: PushRequest) {
        let byID = Dictionary(request.mutations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for result in answer.results where result.outcome == .applied {
            guard let mutation = byID[result.id] else { continue }
            if mutation.kind == .delete {
                acknowledgedDeletes.insert(mutation.key)
            } else if mutation.isInsert {
                acknowledgedInserts.append(mutation.key)
            }
        }
    }

    /// Each mutation of a push and its outcome, for a replay being read (`STRATA_SIMULATION_WATCH`).
    static func detail(_ request: PushRequest, _ answer: PushResponse) -> String {
        guard ProcessInfo.processInfo.environment["STRATA_SIMULATION_WATCH"] != nil else { return "" }
        let outcomes = Dictionary(answer.results.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let lines = request.mutations.map { mutation in
            let kind = mutation.kind == .delete ? "delete" : mutation.isInsert ? "insert" : "update"
            let links = mutation.links.map { "\($0.key)+\($0.value.added)-\($0.value.removed)" }.sorted()
            let outcome =
                outcomes[mutation.id].map { "\($0.outcome)" + ($0.code.map { " \($0)" } ?? "") } ?? "unanswered"
            return "#\(mutation.id.sequence) \(kind) \(mutation.key) \(links.joined(separator: " ")) → \(outcome)"
        }
        return " [" + lines.joined(separator: "; ") + "]"
    }

    static func summary(_ answer: PushResponse) -> String {
        let outcomes = answer.results.map(\.outcome)
        let applied = outcomes.filter { $0 == .applied }.count
        let duplicate = outcomes.filter { $0 == .duplicate }.count
        let rejected = answer.results.filter { $0.outcome == .rejected }.map { $0.code ?? "?" }
        var parts = ["\(applied) applied"]
        if duplicate > 0 { parts.append("\(duplicate) duplicate") }
        if !rejected.isEmpty { parts.append("rejected \(rejected.joined(separator: " "))") }
        return parts.joined(separator: ", ")
    }
}
