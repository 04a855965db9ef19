import Foundation
import Strata

/// Pushing the outbox: in commit order, in batches, each acknowledged mutation removed in the
/// transaction that applies the server's answer.
extension SyncEngine {
    func pushAll() async throws -> (count: Int, rejected: Int) {
        var total = 0
        var rejectedCount = 0
        var batchSize = options.batchSize
        let configuration = configuration
        let expected = try await store.backend.read { try Outbox.pendingCount(in: $0) }
        let bytesBefore = bytesMoved.sent
        // What a crash left of a subscribed client's answered writes to evict.
        try await evictUncovered()
        while true {
            let limit = batchSize
            let (batch, seen) = try await store.backend.read { reader in
                var seen: [String: Outbox.SeenEntry] = [:]
                return (try Outbox.wireMutations(in: reader, limit: limit, seen: &seen), seen)
            }
            guard !batch.isEmpty else { break }
            // A record goes up after the bytes of the files it refers to: the server refuses a
            // reference to a file the writer has not uploaded and cannot read.
            _ = try await uploadFiles(referencedBy: batch)
            status.inFlight = batch.count
            publish()
            let response: PushResponse
            do {
                let request = PushRequest(
                    clientID: configuration.clientID, mutations: batch, schemaVersion: store.schema.version)
                response = try await call {
                    attempts += 1
                    return try await remote.push(request)
                }
            } catch let error as SyncTransportError where error.kind == .payloadTooLarge && batch.count > 1 {
                // The server takes smaller batches: halve until one fits (kept for this drain).
                batchSize = max(1, batch.count / 2)
                status.inFlight = 0
                continue
            } catch {
                status.inFlight = 0
                throw error
            }
            let byID = Dictionary(batch.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let newRejections: [SyncRejection] = try await store.commit(
                author: nil, contextName: "sync", participants: [],
                stage: { session, reader -> (SyncApplier, [SyncRejection]) in
                    var applier = SyncApplier(session: session, configuration: configuration)
                    applier.notesRejoinedOwners = true
                    var rejections: [SyncRejection] = []
                    // The mutations still pending once this answer is applied, read when the
                    // answer carries server state (a rejection, a duplicate) to apply.
                    var remaining: [RecordKey: [SyncMutation]] = [:]
                    if response.results.contains(where: { $0.current != nil }) {
                        let answered = Set(response.results.map(\.id))
                        remaining = try Self.pendingMutations(in: reader).mapValues { list in
                            list.filter { !answered.contains($0.id) }
                        }
                        applier.notePending(remaining)
                    }
                    // A record several answers carry state for (an insert refused, its delete and
                    // a new insert applied) takes the last: staging each in turn would delete and
                    // insert one record in one save, which a save refuses.
                    var lastState: [RecordKey: MutationID] = [:]
                    for result in response.results { if let key = result.current?.key { lastState[key] = result.id } }
                    for result in response.results {
                        guard let mutation = byID[result.id] else { continue }
                        let superseded = result.current.map { lastState[$0.key] != result.id } ?? false
                        switch result.outcome {
                        case .applied:
                            // Applied, but not whole (a link target dropped): take what the server holds.
                            guard let current = result.current, !superseded else { continue }
                            try applier.converge(on: current, keeping: remaining[current.key] ?? [])
                        case .rejected:
                            rejections.append(
                                SyncRejection(
                                    mutation: mutation, code: result.code ?? "rejected", reason: result.reason ?? ""))
                            // The server's record comes back, unless a later delete of it is
                            // still to be sent: that delete decides (its own answer restores the
                            // record if the server refuses it too).
                            if let current = result.current, !superseded,
                                current.isTombstone
                                    || !(remaining[current.key] ?? []).contains(where: { $0.kind == .delete })
                            {
                                try applier.applyServerState(current)
                            }
                        case .duplicate:
                            guard let current = result.current, !superseded else { continue }
                            try applier.converge(on: current, keeping: remaining[current.key] ?? [])
                        }
                    }
                    try applier.finishLinks()
                    return (applier, rejections)
                }
            ) { staged, _, transaction in
                let (applier, rejections) = staged
                try applier.finish(in: transaction)
                try OwnerRefresh.note(
                    applier.rejoinedOwners.union(applier.restored).union(
                        Self.insertsThatMetTheServersRecord(response.results, byID, schema: transaction.schema)),
                    in: transaction)
                var acknowledged: Set<MutationID> = []
                // In the answer's order, so the last word on a record's server version wins.
                for result in response.results {
                    guard let mutation = byID[result.id] else { continue }
                    acknowledged.insert(result.id)
                    if result.outcome == .rejected || result.current != nil {
                        guard let current = result.current else { continue }
                        try Outbox.setServerVersion(
                            current.key, current.isTombstone ? nil : current.serverVersion, in: transaction)
                    } else if mutation.kind == .delete {
                        try Outbox.setServerVersion(mutation.key, nil, in: transaction)
                    } else if let version = result.serverVersion {
                        try Outbox.setServerVersion(mutation.key, version, in: transaction)
                    }
                }
                try Outbox.remove(acknowledged, known: seen, in: transaction)
                // Answered writes no subscription covers leave once nothing of theirs is pending.
                try CoverageRecheck.note(Set(acknowledged.compactMap { byID[$0]?.key }), in: transaction)
                return rejections
            }
            let evicted = try await evictUncovered()
            // A record the answer changed or took away, or that left with it, may be what a
            // subscription reached others through: they leave with it.
            if evicted || response.results.contains(where: { $0.current != nil }) { try await evictDependents() }
            rejections += newRejections
            rejectedCount += newRejections.count
            total += response.results.count
            status.inFlight = 0
            status.upload = SyncProgress(
                phase: .uploading, expected: max(expected, total), completed: total,
                bytes: bytesMoved.sent - bytesBefore)
            publish()
            // A server that acknowledges nothing would loop forever: stop and let the caller retry.
            if response.results.isEmpty {
                throw SyncTransportError("the server acknowledged none of \(batch.count) mutations")
            }
        }
        _ = try await refreshOwners()
        return (total, rejectedCount)
    }

    /// Inserts the server answered with its own record (it held the ID: the insert patched it),
    /// of entities that other records list many-to-many. The client has the lists it holds without
    /// them (it did not hold the record when they came, or it evicted it), and nothing the server
    /// sends later says otherwise (the lists did not change), so they are read again with their
    /// owners (``OwnerRefresh``).
    static func insertsThatMetTheServersRecord(
        _ results: [MutationResult], _ byID: [MutationID: SyncMutation], schema: Schema
    ) -> Set<RecordKey> {
        var keys: Set<RecordKey> = []
        for result in results where result.outcome != .rejected {
            guard let current = result.current, !current.isTombstone, let mutation = byID[result.id],
                mutation.isInsert,
                schema.entity(mutation.entity)?.isListedManyToMany == true
            else { continue }
            keys.insert(mutation.key)
        }
        return keys
    }
}
