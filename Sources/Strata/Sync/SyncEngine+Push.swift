import Foundation

/// Pushing the outbox: in commit order, in batches, each acknowledged mutation removed in the
/// transaction that applies the server's answer.
extension SyncEngine {
    func pushAll() async throws -> (count: Int, rejected: Int) {
        var total = 0
        var rejectedCount = 0
        let (batchSize, configuration) = (options.batchSize, configuration)
        while true {
            let batch = try await store.backend.read { try Outbox.mutations(in: $0, limit: batchSize) }
            guard !batch.isEmpty else { break }
            status.inFlight = batch.count
            publish()
            attempts += 1
            let response: PushResponse
            do {
                response = try await remote.push(PushRequest(clientID: configuration.clientID, mutations: batch, schemaVersion: store.schema.version))
            } catch {
                status.inFlight = 0
                throw error
            }
            let byID = Dictionary(batch.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let newRejections: [SyncRejection] = try await store.commit(author: nil, contextName: "sync", participants: []) { session, transaction, commit in
                var applier = SyncApplier(session: session, writer: transaction, configuration: configuration)
                var acknowledged: Set<MutationID> = []
                var rejections: [SyncRejection] = []
                for result in response.results {
                    guard let mutation = byID[result.id] else { continue }
                    acknowledged.insert(result.id)
                    switch result.outcome {
                    case .applied, .duplicate:
                        if mutation.kind == .delete {
                            try Outbox.setServerVersion(mutation.key, nil, in: transaction)
                        } else if let version = result.serverVersion {
                            try Outbox.setServerVersion(mutation.key, version, in: transaction)
                        }
                    case .rejected:
                        rejections.append(SyncRejection(mutation: mutation, code: result.code ?? "rejected", reason: result.reason ?? ""))
                        if let current = result.current { try applier.applyServerState(current) }
                    }
                }
                try applier.finishLinks()
                _ = try commit()
                try Outbox.remove(acknowledged, in: transaction)
                return rejections
            }
            rejections += newRejections
            rejectedCount += newRejections.count
            total += response.results.count
            status.inFlight = 0
            // A server that acknowledges nothing would loop forever: stop and let the caller retry.
            if response.results.isEmpty { throw SyncTransportError("the server acknowledged none of \(batch.count) mutations") }
        }
        return (total, rejectedCount)
    }
}
