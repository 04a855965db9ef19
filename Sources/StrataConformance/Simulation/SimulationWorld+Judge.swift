import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The end of a run: the network heals, everyone syncs until nothing moves, and what the stores
/// hold is compared.
extension SimulationWorld {
    struct Judgement {
        var divergences: [String] = []
        var losses: [String] = []
    }

    /// Heals the network (every client may sign in again), delivers what it held back, and syncs
    /// every client in turn until a whole round pushes and pulls nothing (at most 12 rounds).
    mutating func settle() async throws {
        tokens.allowAll()
        for client in clients {
            await client.network.setFaults(.none)
            try await client.network.drain()
        }
        for round in 0..<12 {
            var moved = false
            for client in clients {
                // Push and pull apart, so a failure says which of them failed.
                do {
                    let pushed = try await client.engine.push()
                    let pulled = try await client.engine.pull()
                    moved = moved || pushed > 0 || pulled > 0
                    let log = await client.network.takeLog()
                    if pushed > 0 || pulled > 0 {
                        trace.append("round \(round): \(client.name) pushed \(pushed), pulled \(pulled)")
                        trace += log.map { "  " + pools.shortened($0) }
                    }
                } catch {
                    trace.append(pools.shortened("settling, round \(round): \(client.name) failed: \(error)"))
                    trace += await client.network.takeLog().map { "  " + pools.shortened($0) }
                    moved = true
                }
            }
            if !moved {
                trace.append("settled after \(round + 1) rounds")
                return
            }
        }
        trace.append("did not settle in 12 rounds")
    }

    func judge() async throws -> Judgement {
        var judgement = Judgement()
        judgement.divergences += trace.filter { $0.hasPrefix("settling") || $0.hasPrefix("did not settle") }
        let server = try await SimulationState.read(serverStore)
        judgement.divergences += server.dangling.map { "the server: \($0.line)" }
        for client in clients {
            let state = try await SimulationState.read(client.store)
            if let observed = try await observed(by: client) {
                // A subscribed client equals a fresh one with its subscriptions — what it wrote that
                // no subscription covers left once the server answered it — and a covered record's
                // reference may name what only the server holds.
                judgement.divergences += state.dangling.filter {
                    server.records[$0.target] == nil && observed.records[$0.source] != nil
                }.map { "\(client.name): \($0.line)" }
                judgement.divergences += state.differences(from: observed, coveredOnly: true).map {
                    "\(client.name): \($0)"
                }
            } else {
                judgement.divergences += state.dangling.map { "\(client.name): \($0.line)" }
                judgement.divergences += state.differences(from: server).map { "\(client.name): \($0)" }
            }
            let pending = try await client.engine.pendingMutations()
            if !pending.isEmpty {
                judgement.divergences.append("\(client.name): \(pending.count) mutations still pending")
            }
        }
        var tombstones = try await serverTombstones()
        for client in clients { tombstones.formUnion(await client.network.acknowledgedDeletes) }
        for client in clients {
            for key in await client.network.acknowledgedInserts
            where server.records[key] == nil && !tombstones.contains(key) {
                judgement.losses.append(
                    "\(client.name)'s insert of \(key) was acknowledged and is gone without a trace")
            }
        }
        judgement.divergences = judgement.divergences.map(pools.shortened)
        judgement.losses = judgement.losses.map(pools.shortened)
        return judgement
    }

    /// Where one pooled record stands in every store (`STRATA_SIMULATION_WATCH=s8`, for a replay
    /// being read): its values, or "-" where it is absent.
    func watch(_ name: String) async throws -> String {
        var parts: [String] = []
        for (label, store) in [("server", serverStore)] + clients.map({ ($0.name, $0.store) }) {
            let state = try await SimulationState.read(store)
            let entry = state.records.first { pools.shortened("\($0.key)").contains("(\(name))") }?.value
            let shown = entry.map { entry in
                entry.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                    + (entry.links.isEmpty ? "" : " \(entry.links)")
            }
            parts.append("\(label): \(shown.map(pools.shortened) ?? "-")")
        }
        return "  watch \(name): " + parts.joined(separator: " | ")
    }

    /// The records the server's change feed has tombstones of, read from the start.
    private func serverTombstones() async throws -> Set<RecordKey> {
        var cursor: SyncCursor?
        var tombstones: Set<RecordKey> = []
        while true {
            let page = try await server.pull(PullRequest(clientID: "judge", cursor: cursor, limit: 500))
            for change in page.changes where change.isTombstone { tombstones.insert(change.key) }
            cursor = page.cursor
            if !page.hasMore { return tombstones }
        }
    }
}

/// Everything a store holds, comparable across stores: each record's values and link lists.
struct SimulationState {
    struct Entry: Hashable {
        var values: [String: Value]
        var links: [String: [RecordID]]
    }

    /// A reference to a record the store does not hold.
    struct Dangling {
        var line: String
        var source: RecordKey
        var target: RecordKey
    }

    var records: [RecordKey: Entry] = [:]
    var dangling: [Dangling] = []

    static func read(_ store: Store) async throws -> SimulationState {
        try await store.read { reader in
            var state = SimulationState()
            for entity in reader.schema.entities {
                for record in try reader.fetch(FetchPlan(entity: entity.name)) {
                    var links = try reader.linkLists(of: record)
                    for relationship in entity.relationships where !relationship.isOrdered {
                        links[relationship.name] = links[relationship.name]?.sorted()
                    }
                    state.records[record.key] = Entry(values: record.values, links: links)
                }
            }
            state.dangling = try danglingReferences(state.records, schema: reader.schema)
            return state
        }
    }

    /// To-one references and link-list members naming records the store does not hold.
    private static func danglingReferences(_ records: [RecordKey: Entry], schema: Schema) throws -> [Dangling] {
        var found: [Dangling] = []
        for (key, entry) in records.sorted(by: { "\($0.key)" < "\($1.key)" }) {
            guard let entity = schema.entity(key.entity) else { continue }
            for relationship in entity.relationships {
                let targets: [RecordID] =
                    relationship.isToOne
                    ? RecordID(entry.values[relationship.name] ?? .null).map { [$0] } ?? []
                    : entry.links[relationship.name] ?? []
                for target in targets
                where records[RecordKey(entity: relationship.destination, id: target)] == nil {
                    found.append(
                        Dangling(
                            line: "\(key).\(relationship.name) names \(relationship.destination) \(target), absent",
                            source: key, target: RecordKey(entity: relationship.destination, id: target)))
                }
            }
        }
        return found
    }

    /// Where this state differs from `other`'s (at most 8 lines). With `coveredOnly`, `other` is
    /// what a fresh client with the same subscriptions holds (the lines name it so).
    func differences(from other: SimulationState, coveredOnly: Bool = false) -> [String] {
        var lines: [String] = []
        let reference = coveredOnly ? "an observer with its subscriptions" : "the server"
        let keys = Set(records.keys).union(other.records.keys).sorted { "\($0)" < "\($1)" }
        for key in keys {
            let mine: Entry? = records[key]
            guard mine != other.records[key] else { continue }
            switch (mine, other.records[key]) {
            case (nil, _): lines.append("lacks \(key), which \(reference) holds")
            case (_, nil): lines.append("holds \(key), which \(reference) does not")
            case (let mine?, let theirs?):
                let names = Set(mine.values.keys).union(theirs.values.keys).sorted()
                let values = names.filter { mine.values[$0] != theirs.values[$0] }.map {
                    "\($0) \(mine.values[$0].map { "\($0)" } ?? "-") vs \(theirs.values[$0].map { "\($0)" } ?? "-")"
                }
                let lists = Set(mine.links.keys).union(theirs.links.keys).sorted().filter {
                    (mine.links[$0] ?? []) != (theirs.links[$0] ?? [])
                }.map { "\($0) \(mine.links[$0] ?? []) vs \(theirs.links[$0] ?? [])" }
                if values.isEmpty && lists.isEmpty { continue }
                lines.append("\(key) differs: " + (values + lists).joined(separator: "; "))
            }
            if lines.count == 8 { break }
        }
        return lines
    }
}
