import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// What an operation produced, as compared between the backend under test and the reference:
/// a summary of its result, or the error's code, entity and property (messages may differ).
enum DifferentialOutcome: Equatable, Sendable, CustomStringConvertible {
    case done(String)
    case failed(String)

    static func of(_ body: () async throws -> String) async -> DifferentialOutcome {
        do { return .done(try await body()) } catch { return .failed(describe(error)) }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? StrataError else { return "\(type(of: error))" }
        let detail = DifferentialChecks.verbosity > 2 ? " \(error.message)" : ""
        return "\(error.code) \(error.entity ?? "-").\(error.property ?? "-")\(detail)"
    }

    var description: String {
        switch self {
        case .done(let summary): "done \(summary)"
        case .failed(let error): "failed \(error)"
        }
    }
}

/// A clock that advances one second per call, so hybrid timestamps are the same in both worlds.
final class StepClock: Sendable {
    private let ticks = Mutex<Double>(0)
    func now() -> Date {
        Date(
            timeIntervalSince1970: 1_800_000_000
                + ticks.withLock {
                    $0 += 1
                    return $0
                })
    }
}

/// A sync server's store and a client store (sync on) of one backend, with the client's engine.
final class DifferentialWorld {
    private(set) var server: Store
    let client: Store
    private(set) var engine: SyncEngine
    private let clock = StepClock()
    private var seen: [DifferentialTarget: HistoryToken] = [:]
    /// Reopens the server store (clean or abrupt); `nil` for the reference, which keeps its store.
    private let reopenServer: ((Store, Bool) async throws -> Store)?

    init(server: Store, client: Store, reopenServer: ((Store, Bool) async throws -> Store)?) throws {
        self.server = server
        let clock = clock
        self.client = client.withSync(SyncConfiguration(clientID: "client", clock: { clock.now() }))
        self.reopenServer = reopenServer
        self.engine = try SyncEngine(store: self.client, remote: InProcessTransport(server: SyncServer(store: server)))
    }

    func store(_ target: DifferentialTarget) -> Store { target == .server ? server : client }

    func run(_ operation: DifferentialOperation) async -> DifferentialOutcome {
        switch operation {
        case .transaction(let target, let edits):
            return await .of {
                try await store(target).transaction(author: "differential") { tx in
                    for edit in edits { try edit.apply(tx) }
                }
                return ""
            }
        case .repository(let target, let edit):
            return await .of {
                try await edit.applyThroughRepository(store(target))
                return ""
            }
        case .context(let target, let policy, let reads, let memberships, let interleaved, let changes):
            let store = store(target)
            let context = store.makeContext(name: "differential", mergePolicy: policy.policy)
            var steps: [DifferentialOutcome] = []
            for key in reads {
                steps.append(
                    await .of {
                        try await TypedModel.require(key.entity).contextFetch(context, key.id)
                        return "read"
                    })
            }
            for read in memberships {
                steps.append(
                    await .of {
                        try await TypedRelationship.require(read.owner.entity, read.relationship).contextRelated(
                            context, read.owner.id)
                        return "related"
                    })
            }
            if !interleaved.isEmpty {
                steps.append(
                    await .of {
                        try await store.transaction(author: "meanwhile") { tx in
                            for edit in interleaved { try edit.apply(tx) }
                        }
                        return "meanwhile"
                    })
            }
            for change in changes {
                steps.append(
                    await .of {
                        try await change.stage(in: context)
                        return "staged"
                    })
            }
            steps.append(
                await .of {
                    let result = try await context.save()
                    return "saved, \(result.conflicts.count) conflict(s) resolved"
                })
            return .done(steps.map(\.description).joined(separator: "; "))
        case .sync:
            return await .of {
                let report = try await engine.syncNow()
                return "pushed \(report.pushed) pulled \(report.pulled) rejected \(report.rejected) "
                    + "conflicts \(report.conflicts)"
            }
        case .query(let target, let plan):
            return await .of {
                let (records, count) = try await store(target).read { reader in
                    (try reader.fetch(plan), try reader.count(plan))
                }
                return "\(records.map(\.id)) count \(count)"
            }
        case .reopen(let abrupt):
            return await .of {
                if let reopenServer { server = try await reopenServer(server, abrupt) }
                // Both worlds start a new server and engine, so their sync state stays alike.
                engine = try SyncEngine(store: client, remote: InProcessTransport(server: SyncServer(store: server)))
                return ""
            }
        }
    }

    /// Everything the comparison looks at in one store: the state (unless `whole` is false), the
    /// history written since the last look (tokens, authors, context names, changes), and for the
    /// client its outbox.
    func state(_ target: DifferentialTarget, whole: Bool = true) async throws -> DifferentialState {
        let store = store(target)
        let history = try await store.history(after: seen[target])
        if let last = history.last?.token { seen[target] = last }
        let outbox =
            target == .client ? try await engine.pendingMutations().map { "\($0.id) \($0.kind) \($0.key)" } : []
        return DifferentialState(
            snapshot: whole ? try await StoreSnapshot.take(store) : nil,
            history: history.map { entry in
                let changes = entry.changes.map {
                    "\($0.kind) \($0.entity)(\($0.id)) \($0.changedProperties) v\($0.version)"
                }
                return "\(entry.token) \(entry.author ?? "-") \(entry.contextName ?? "-") \(changes)"
            },
            outbox: outbox)
    }
}

struct DifferentialState: Equatable {
    /// The whole state; `nil` when only the history and outbox were read.
    var snapshot: StoreSnapshot?
    var history: [String]
    var outbox: [String]

    /// Whether this equals `reference` in what was read here (the whole state only if it was).
    func matches(_ reference: DifferentialState) -> Bool {
        history == reference.history && outbox == reference.outbox
            && (snapshot == nil || snapshot == reference.snapshot)
    }

    func difference(from other: DifferentialState) -> String {
        var notes: [String] = []
        if let snapshot, let expected = other.snapshot, snapshot != expected {
            notes.append("state: \(snapshot.difference(from: expected))")
        }
        if history != other.history { notes.append("history: \(history) vs reference \(other.history)") }
        if outbox != other.outbox { notes.append("outbox: \(outbox) vs reference \(other.outbox)") }
        return notes.joined(separator: "\n")
    }
}
