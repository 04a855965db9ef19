import Foundation

/// The server role of offline-first sync, over any Strata store.
///
/// - **Push** applies a client's mutations at most once: the last applied sequence number of each
///   client is stored in the same transaction as the data, so a retried batch is answered with
///   `duplicate` for what was already applied (and with the same rejection for what was rejected).
///   A batch is one save; the schema's delete rules, inverses and validation run as for any save.
///   A mutation that fails is rejected with its reason and the rest of the batch still applies.
/// - **Concurrent edits** resolve per entity (``ConflictPolicy``); the default is per-property last
///   writer wins, in the order mutations reach the server.
/// - **Pull** is a change feed over the store's history: a monotonic cursor, the current state of
///   every record changed after it, and tombstones for deleted ones. Purging the server's history
///   past a client's cursor would lose tombstones for that client; keep history at least as long as
///   the slowest client's cursor.
public struct SyncServer: SyncRemote {
    /// How the server resolves a put against the record it holds.
    public enum ConflictPolicy: Sendable {
        /// Apply the mutation's changed properties over the stored record (per-property last
        /// writer wins, in arrival order).
        case lastWriterWins
        /// Reject a put made against a server version that is no longer current.
        case rejectStale
        /// Decide in code: return the values to write over the stored record, or `nil` to reject.
        case custom(@Sendable (_ stored: Record, _ mutation: SyncMutation) -> [String: Value]?)
    }

    /// The server's store. With scoped ``access``, server-side writes that should reach clients
    /// as removals go through this store (it keeps the prior states of scoped records).
    public let store: Store
    /// Per-entity policies; entities not named use ``ConflictPolicy/lastWriterWins``.
    public var policies: [String: ConflictPolicy]
    /// What each identity may read and write (everything, by default).
    public let access: SyncAccess
    /// The schema epoch cursors carry: a cursor of another epoch must reset.
    public let epoch: String

    static let clientPrefix = "strata.server.client."
    static let rejectedPrefix = "strata.server.rejected."
    static let stampPrefix = "strata.server.stamp."
    static let ownerPrefix = "strata.server.owner."
    static let priorPrefix = "strata.server.prior."
    static let contextName = "sync"

    /// A server over `store`.
    ///
    /// - Parameters:
    ///   - policies: Per-entity conflict policies.
    ///   - access: Read scopes and write checks per identity, applied to calls that name one
    ///     (``push(_:as:)``, ``pull(_:as:)``, ``snapshot(_:as:)`` — what a ``SyncEndpoint`` makes);
    ///     the identity-less ``SyncRemote`` calls are the trusted in-process path.
    public init(store: Store, policies: [String: ConflictPolicy] = [:], access: SyncAccess = SyncAccess()) {
        let scoped = access.scopedEntities
        self.store = scoped.isEmpty ? store : store.adding(PriorStates(entities: scoped))
        self.policies = policies
        self.access = access
        self.epoch = store.schema.version ?? Self.shortHash(store.schema.fingerprint)
    }

    /// A short stable name of a long text (FNV-1a, 64 bits): an unnamed schema's epoch.
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return "s" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A client whose store names a schema version refuses to meet a server of another named
    /// version: its messages speak the other version's entities and properties.
    func checkSchemaVersion(_ client: String?) throws {
        guard let client, let own = store.schema.version, client != own else { return }
        throw StrataError(
            .incompatibleStore,
            "the client's store is at schema version \(client) and this server's at \(own): migrate the older one (the client's outbox is migrated with its store) before syncing")
    }

    // MARK: Push

    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await push(request, as: nil)
    }

    /// Applies a client's batch on behalf of `identity` (`nil`: trusted, unscoped). With an
    /// identity, the client ID is bound to it on its first push (another identity using it is
    /// ``StrataError/Code/permissionDenied``) and every mutation passes ``access``'s write checks.
    public func push(_ request: PushRequest, as identity: SyncIdentity?) async throws -> PushResponse {
        guard request.version == PushRequest.currentVersion else {
            throw StrataError(.unsupportedStore, "push format version \(request.version) is not supported (this server speaks \(PushRequest.currentVersion))")
        }
        try checkSchemaVersion(request.schemaVersion)
        var rejected: [MutationID: StrataError] = [:]
        // Each failing mutation is set aside and the batch retried without it.
        for _ in 0...request.mutations.count {
            do {
                return try await apply(request, as: identity, rejecting: rejected)
            } catch let error as StrataError where error.code != .storeClosed && error.code != .storageFailure && error.code != .permissionDenied {
                guard let culprit = culprit(of: error, in: request.mutations, excluding: rejected) else { throw error }
                rejected[culprit] = error
            }
        }
        throw StrataError(.storageFailure, "push could not be applied")
    }

    /// The mutation an error names (the last put or delete of that record), if any.
    private func culprit(of error: StrataError, in mutations: [SyncMutation], excluding rejected: [MutationID: StrataError]) -> MutationID? {
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

    private func apply(_ request: PushRequest, as identity: SyncIdentity?, rejecting rejected: [MutationID: StrataError]) async throws -> PushResponse {
        let (policies, access) = (policies, access)
        return try await store.commit(
            author: request.clientID, contextName: Self.contextName, participants: store.extraParticipants, collectWritten: true
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
                    results.append(MutationResult(id: mutation.id, outcome: .rejected, code: code.rawValue, reason: reason))
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
                if let identity, let refusal = try Self.writeRefusal(mutation, by: identity, access: access, in: session) {
                    reject(.permissionDenied, refusal)
                    continue
                }
                switch mutation.kind {
                case .delete:
                    if try workingSet.record(key.entity, id: key.id) != nil { try session.delete(key) }
                case .put:
                    if let unknown = mutation.values.keys.sorted().first(where: { !entity.isStoredProperty($0) }) {
                        reject(.unknownProperty, StrataError(.unknownProperty, entity: key.entity, recordID: key.id, property: unknown,
                                                             "\(unknown) is not an attribute or to-one of \(key.entity)").description)
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
                                reject(.mergeConflict, "\(key) changed on the server since version \(mutation.baseServerVersion.map(String.init) ?? "none")")
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
            if bindOwner, let identity { try transaction.setMetadata(Self.ownerPrefix + request.clientID, Array(identity.id.utf8)) }

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
                    results[index].serverVersion = try committed.written[key].map { $0?.version } ?? transaction.record(key.entity, id: key.id)?.version
                } else if results[index].outcome == .rejected, let mutation = byID[results[index].id],
                    transaction.schema.entity(mutation.entity) != nil {
                    var current = try Self.currentState(mutation.key, lastVersion: 0, historyTime: Date(), in: transaction)
                    // A rejection never hands back a record the caller may not read: as far as
                    // the caller can know, the server does not have it.
                    if identity != nil, let values = current.values,
                        try !Self.isVisible(Record(entity: mutation.entity, id: mutation.recordID, values: values), to: identity, access: access, in: transaction) {
                        current = RemoteChange(entity: current.entity, recordID: current.recordID, values: nil, links: [:],
                                               serverVersion: 0, timestamp: current.timestamp, origin: nil)
                    }
                    results[index].current = current
                }
            }
            return PushResponse(results: results)
        }
    }
}
