import Foundation
import Strata

/// Applying pushes: each client's mutations at most once, a failing mutation set aside and the
/// rest of the batch applied, write checks for an identity.
extension SyncServer {

    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await push(request, as: nil)
    }

    /// Applies a client's batch on behalf of `identity` (`nil`: trusted, unscoped). With an
    /// identity, the client ID is bound to it on its first push (another identity using it is
    /// `StrataError.Code.permissionDenied`) and every mutation passes `access`'s write checks.
    public func push(_ request: PushRequest, as identity: SyncIdentity?) async throws -> PushResponse {
        guard request.version == PushRequest.currentVersion else {
            throw StrataError(
                .unsupportedStore,
                "push format version \(request.version) is not supported (this server speaks \(PushRequest.currentVersion))"
            )
        }
        try checkSchemaVersion(request.schemaVersion)
        var rejected: [MutationID: StrataError] = [:]
        // Each failing mutation is set aside and the batch retried without it.
        for _ in 0...request.mutations.count {
            do {
                return try await apply(request, as: identity, rejecting: rejected)
            } catch let error as StrataError
                where error.code != .storeClosed && error.code != .storageFailure && error.code != .permissionDenied
            {
                guard let culprit = culprit(of: error, in: request.mutations, excluding: rejected) else { throw error }
                rejected[culprit] = error
            }
        }
        throw StrataError(.storageFailure, "push could not be applied")
    }

    /// The mutation an error names (the last put or delete of that record), if any.
    private func culprit(
        of error: StrataError, in mutations: [SyncMutation], excluding rejected: [MutationID: StrataError]
    ) -> MutationID? {
        let candidates = mutations.filter { rejected[$0.id] == nil }
        if let entity = error.entity, let id = error.recordID {
            let ofRecord = candidates.filter { $0.entity == entity && $0.recordID == id }
            // The put that set the property the error names; otherwise the record's last mutation.
            let setting = error.property.flatMap { property in
                ofRecord.last { $0.values[property] != nil || $0.links[property] != nil }
            }
            if let match = setting ?? ofRecord.last { return match.id }
        }
        // An error naming a record the batch did not touch directly (a delete rule reaching it):
        // blame the first delete, then the first mutation.
        return candidates.first(where: { $0.kind == .delete })?.id ?? candidates.first?.id
    }

    private func apply(
        _ request: PushRequest, as identity: SyncIdentity?, rejecting rejected: [MutationID: StrataError]
    ) async throws -> PushResponse {
        let (policies, access) = (policies, access)
        return try await store.commit(
            author: request.clientID, contextName: Self.contextName, participants: store.extraParticipants,
            collectWritten: true
        ) { session, transaction, commit in
            let workingSet = session.workingSet
            let bindOwner = try Self.checkOwner(of: request, identity: identity, in: transaction)
            var lastApplied: [String: UInt64] = [:]
            var results: [MutationResult] = []
            var newRejections: [(MutationID, String, String)] = []
            var stamps: [RecordKey: (HybridTimestamp, String)] = [:]
            var linkMutations: [SyncMutation] = []
            var appliedKeys: [Int: RecordKey] = [:]

            for mutation in request.mutations {
                let client = mutation.id.clientID
                let last = try lastApplied[client] ?? Self.lastApplied(client, in: transaction)
                if mutation.id.sequence <= last {
                    if let (code, reason) = try Self.rejection(mutation.id, in: transaction) {
                        results.append(MutationResult(id: mutation.id, outcome: .rejected, code: code, reason: reason))
                    } else {
                        results.append(MutationResult(id: mutation.id, outcome: .duplicate))
                    }
                    continue
                }
                lastApplied[client] = mutation.id.sequence
                func reject(_ code: StrataError.Code, _ reason: String) {
                    newRejections.append((mutation.id, code.rawValue, reason))
                    results.append(
                        MutationResult(id: mutation.id, outcome: .rejected, code: code.rawValue, reason: reason))
                }
                if let error = rejected[mutation.id] {
                    reject(error.code, error.description)
                    continue
                }
                let key = mutation.key
                guard let entity = transaction.schema.entity(mutation.entity) else {
                    reject(.unknownEntity, "\(mutation.entity) is not an entity of this store")
                    continue
                }
                if let identity,
                    let refusal = try Self.writeRefusal(mutation, by: identity, access: access, in: session)
                {
                    reject(.permissionDenied, refusal)
                    continue
                }
                switch mutation.kind {
                case .delete:
                    if try workingSet.record(key.entity, id: key.id) != nil { try session.delete(key) }
                case .put:
                    if let unknown = mutation.values.keys.sorted().first(where: { !entity.isStoredProperty($0) }) {
                        reject(
                            .unknownProperty,
                            StrataError(
                                .unknownProperty, entity: key.entity, recordID: key.id, property: unknown,
                                "\(unknown) is not an attribute or to-one of \(key.entity)"
                            ).description)
                        continue
                    }
                    let values = mutation.values
                    if let stored = try workingSet.record(key.entity, id: key.id) {
                        switch policies[mutation.entity] ?? .lastWriterWins {
                        case .lastWriterWins:
                            try session.patch(key, values)
                        case .rejectStale:
                            let committed = try transaction.record(key.entity, id: key.id)?.version
                            guard mutation.baseServerVersion == committed else {
                                reject(
                                    .mergeConflict,
                                    "\(key) changed on the server since version \(mutation.baseServerVersion.map(String.init) ?? "none")"
                                )
                                continue
                            }
                            try session.patch(key, values)
                        case .custom(let resolve):
                            guard let resolved = resolve(stored, mutation) else {
                                reject(.mergeConflict, "\(key): refused by the server's policy for \(mutation.entity)")
                                continue
                            }
                            try session.patch(key, resolved.filter { entity.isStoredProperty($0.key) })
                        }
                    } else if mutation.isInsert {
                        try session.insert(Record(entity: key.entity, id: key.id, values: values))
                    } else {
                        reject(.notFound, "\(key) was deleted on the server")
                        continue
                    }
                    if !mutation.links.isEmpty { linkMutations.append(mutation) }
                }
                stamps[key] = (mutation.timestamp, client)
                appliedKeys[results.count] = key
                results.append(MutationResult(id: mutation.id, outcome: .applied))
            }
            for mutation in linkMutations { try Self.applyLinks(mutation, session) }
            let committed = try commit()
            if bindOwner, let identity {
                try transaction.setMetadata(Self.ownerPrefix + request.clientID, Array(identity.id.utf8))
            }

            for (client, sequence) in lastApplied {
                var bytes = BinaryWriter()
                bytes.unsigned(sequence)
                try transaction.setMetadata(Self.clientPrefix + client, bytes.bytes)
            }
            for (id, code, reason) in newRejections {
                var bytes = BinaryWriter()
                bytes.string(code)
                bytes.string(reason)
                try transaction.setMetadata(Self.rejectionKey(id), bytes.bytes)
            }
            for (key, stamp) in stamps {
                var bytes = BinaryWriter()
                Outbox.writeTimestamp(stamp.0, &bytes)
                bytes.string(stamp.1)
                try transaction.setMetadata(Self.stampKey(key), bytes.bytes)
            }
            let byID = Dictionary(request.mutations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for index in results.indices {
                if let key = appliedKeys[index] {
                    // Written by this save, or (a put that changed nothing) as stored.
                    results[index].serverVersion =
                        try committed.written[key].map { $0?.version }
                        ?? transaction.record(key.entity, id: key.id)?.version
                } else if results[index].outcome == .rejected, let mutation = byID[results[index].id],
                    transaction.schema.entity(mutation.entity) != nil
                {
                    var current = try Self.currentState(
                        mutation.key, lastVersion: 0, historyTime: Date(), in: transaction)
                    // A rejection never hands back a record the caller may not read: as far as
                    // the caller can know, the server does not have it.
                    if identity != nil, let values = current.values,
                        try !Self.isVisible(
                            Record(entity: mutation.entity, id: mutation.recordID, values: values), to: identity,
                            access: access, in: transaction)
                    {
                        current = RemoteChange(
                            entity: current.entity, recordID: current.recordID, values: nil, links: [:],
                            serverVersion: 0, timestamp: current.timestamp, origin: nil)
                    }
                    results[index].current = current
                }
            }
            return PushResponse(results: results)
        }
    }
}
