import Foundation
import Strata
import StrataSync

/// One push applied to the server's store, as the commit funnel's two phases: ``stage(_:_:)``
/// applies each mutation at most once through the save's session (duplicates answered from the
/// bookkeeping, a mutation set aside by an earlier attempt rejected, write checks for an identity,
/// the entity's conflict policy); after the pipeline, ``recordBookkeeping(in:)`` writes what the
/// server keeps beside the records (the client's binding, last applied sequences, rejections,
/// timestamps) in the same transaction, and ``response(_:in:)`` answers each mutation.
struct PushApplication {
    let request: PushRequest
    let identity: SyncIdentity?
    /// Mutations an earlier attempt of this push set aside, with why.
    let rejected: [MutationID: StrataError]
    let policies: [String: SyncServerConflictPolicy]
    let access: SyncAccess
    /// What the identity may write, shares included (read when staging starts).
    private var view: AccessView?

    /// Whether this push binds the client ID to the identity (its first under one).
    private var bindsOwner = false
    private var lastApplied: [String: UInt64] = [:]
    private var results: [MutationResult] = []
    private var newRejections: [(id: MutationID, code: String, reason: String)] = []
    private var stamps: [RecordKey: (timestamp: HybridTimestamp, client: String)] = [:]
    private var linkMutations: [SyncMutation] = []
    /// The record each applied result is about, by result index.
    private var appliedKeys: [Int: RecordKey] = [:]
    /// Records this push inserted (absent before it), by the index of the put's result.
    private var insertedAt: [Int: RecordKey] = [:]
    /// Applied puts whose link targets were dropped (absent, or not the caller's to write into):
    /// answered with the record's state, since the server holds less than the client sent.
    private var adjusted: Set<MutationID> = []

    init(
        request: PushRequest, identity: SyncIdentity?, rejected: [MutationID: StrataError],
        policies: [String: SyncServerConflictPolicy], access: SyncAccess
    ) {
        self.request = request
        self.identity = identity
        self.rejected = rejected
        self.policies = policies
        self.access = access
    }

    /// Stages every mutation of the request, then the link changes (their targets may come later
    /// in the batch).
    mutating func stage(_ session: SaveSession, _ reader: any StorageReadTransaction) throws {
        bindsOwner = try SyncServer.checkOwner(of: request, identity: identity, in: reader)
        if identity != nil {
            var view = try AccessView(access: access, identity: identity, schema: reader.schema)
            try view.readShares(schema: reader.schema) { try session.workingSet.fetch($0) }
            self.view = view
            // One identity's delete never removes, nor is blocked by, a record it may not write —
            // judged before the save (whose deletes would hide the parents a scope reads through),
            // or in it for records the push itself made. Entities it may write all of are not
            // asked about (their cascades stay as cheap as a trusted delete's).
            let workingSet = session.workingSet
            session.deleteRulesReach = { [view] record in
                if try view.isWritable(record, in: reader) { return true }
                let key = RecordKey(entity: record.entity, id: record.id)
                guard let entry = workingSet.entry(key), entry.original == nil else { return false }
                return try view.isWritable(record, in: workingSet)
            }
            let everyone = Set(
                reader.schema.entities.map(\.name).filter { entity in
                    if case .all = view.writeScope(of: entity) { return true }
                    return false
                })
            session.deleteRulesReachAll = { everyone.contains($0) }
        }
        try prefetch(session)
        for mutation in request.mutations { try stage(mutation, session, reader) }
        for mutation in linkMutations where try SyncServer.applyLinks(mutation, by: view, session) {
            adjusted.insert(mutation.id)
        }
    }

    private mutating func stage(
        _ mutation: SyncMutation, _ session: SaveSession, _ reader: any StorageReadTransaction
    ) throws {
        let client = mutation.id.clientID
        let last = try lastApplied[client] ?? SyncServer.lastApplied(client, in: reader)
        if mutation.id.sequence <= last {
            if let (code, reason) = try SyncServer.rejection(mutation.id, in: reader) {
                results.append(MutationResult(id: mutation.id, outcome: .rejected, code: code, reason: reason))
            } else {
                results.append(MutationResult(id: mutation.id, outcome: .duplicate))
            }
            return
        }
        lastApplied[client] = mutation.id.sequence
        if let error = rejected[mutation.id] { return reject(mutation, error.code, error.description) }
        guard let entity = reader.schema.entity(mutation.entity) else {
            return reject(mutation, .unknownEntity, "\(mutation.entity) is not an entity of this store")
        }
        if let view, let answer = try SyncServer.hiddenAnswer(mutation, by: view, in: session) {
            switch answer {
            case .applied: results.append(MutationResult(id: mutation.id, outcome: .applied))
            case .rejected(let code, let reason): reject(mutation, code, reason)
            }
            return
        }
        if let view, let refusal = try SyncServer.writeRefusal(mutation, by: view, in: session) {
            return reject(mutation, .permissionDenied, refusal)
        }
        if let view, let refusal = try SyncServer.referenceRefusal(mutation, by: view, in: session) {
            return reject(mutation, refusal.code, refusal.description)
        }
        let key = mutation.key
        switch mutation.kind {
        case .delete:
            if try session.workingSet.record(key.entity, id: key.id) != nil { try session.delete(key) }
        case .put:
            let inserting = try current(key, session) == nil
            if let refusal = try stagePut(mutation, entity: entity, session, reader) {
                return reject(mutation, refusal.code, refusal.reason)
            }
            if inserting { insertedAt[results.count] = key }
            // An insert of an ID the server holds patched that record: the answer says what it is
            // now (values the insert left out, and lists that name it, are the server's).
            if mutation.isInsert, !inserting { adjusted.insert(mutation.id) }
            if !mutation.links.isEmpty { linkMutations.append(mutation) }
        }
        stamps[key] = (mutation.timestamp, client)
        appliedKeys[results.count] = key
        results.append(MutationResult(id: mutation.id, outcome: .applied))
    }

    private func prefetch(_ session: SaveSession) throws {
        var ids: [String: [RecordID]] = [:]
        for mutation in request.mutations where mutation.kind == .put {
            ids[mutation.entity, default: []].append(mutation.recordID)
        }
        for (entity, list) in ids { try session.workingSet.prefetch(entity, ids: list) }
    }

    /// The record's state as this save stands: staged by an earlier mutation of the batch, else
    /// committed (read ahead by `prefetch`).
    private func current(_ key: RecordKey, _ session: SaveSession) throws -> Record? {
        try session.workingSet.record(key.entity, id: key.id)
    }

    /// Stages a put by the entity's policy; returns why it is refused instead, if it is.
    private func stagePut(
        _ mutation: SyncMutation, entity: EntityDescription, _ session: SaveSession,
        _ reader: any StorageReadTransaction
    ) throws -> (code: StrataError.Code, reason: String)? {
        let key = mutation.key
        if let unknown = mutation.values.keys.sorted().first(where: { !entity.isStoredProperty($0) }) {
            let error = StrataError(
                .unknownProperty, entity: key.entity, recordID: key.id, property: unknown,
                "\(unknown) is not an attribute or to-one of \(key.entity)")
            return (.unknownProperty, error.description)
        }
        let values = mutation.values
        guard let stored = try current(key, session) else {
            guard mutation.isInsert else { return (.notFound, "\(key) was deleted on the server") }
            try session.insert(Record(entity: key.entity, id: key.id, values: values))
            return nil
        }
        switch policies[mutation.entity] ?? .lastWriterWins {
        case .lastWriterWins:
            try session.patch(key, values)
        case .rejectStale:
            let committed = try reader.record(key.entity, id: key.id)?.version
            guard mutation.baseServerVersion == committed else {
                let base = mutation.baseServerVersion.map(String.init) ?? "none"
                return (.mergeConflict, "\(key) changed on the server since version \(base)")
            }
            try session.patch(key, values)
        case .custom(let resolve):
            guard let resolved = resolve(stored, mutation) else {
                return (.mergeConflict, "\(key): refused by the server's policy for \(mutation.entity)")
            }
            try session.patch(key, resolved.filter { entity.isStoredProperty($0.key) })
        }
        return nil
    }

    /// After the pipeline: a record this push inserted that the same save's delete rules removed
    /// again (an insert under a parent the batch then deletes) was never stored, so no pull can
    /// carry a tombstone of it. Its put is answered as rejected — as an insert under a record the
    /// push had already deleted is, and the same insert in a later push — never as applied, so the
    /// client takes it back instead of keeping it for good.
    mutating func settle(_ outcome: SaveSession.Outcome, in reader: any StorageReadTransaction) throws {
        for (index, key) in insertedAt.sorted(by: { $0.key < $1.key }) where results[index].outcome == .applied {
            if case .some(.some) = outcome.written[key] { continue }
            if try reader.record(key.entity, id: key.id) != nil { continue }
            let code = StrataError.Code.invalidReference.rawValue
            let reason = "\(key) was removed by the delete rules of a delete in the same push"
            newRejections.append((results[index].id, code, reason))
            results[index] = MutationResult(id: results[index].id, outcome: .rejected, code: code, reason: reason)
            appliedKeys[index] = nil
            stamps[key] = nil
        }
    }

    private mutating func reject(_ mutation: SyncMutation, _ code: StrataError.Code, _ reason: String) {
        newRejections.append((mutation.id, code.rawValue, reason))
        results.append(MutationResult(id: mutation.id, outcome: .rejected, code: code.rawValue, reason: reason))
    }

    /// What the server keeps beside the records, written after the pipeline in the same
    /// transaction: the client's binding to its identity, each client's last applied sequence,
    /// the rejections (a retried mutation gets the same answer), each record's timestamp and origin.
    func recordBookkeeping(in transaction: any StorageWriteTransaction) throws {
        if bindsOwner, let identity {
            try transaction.setMetadata(SyncServer.ownerPrefix + request.clientID, Array(identity.id.utf8))
        }
        for (client, sequence) in lastApplied {
            var bytes = BinaryWriter()
            bytes.unsigned(sequence)
            try transaction.setMetadata(SyncServer.clientPrefix + client, bytes.bytes)
        }
        for rejection in newRejections {
            var bytes = BinaryWriter()
            bytes.string(rejection.code)
            bytes.string(rejection.reason)
            try transaction.setMetadata(SyncServer.rejectionKey(rejection.id), bytes.bytes)
        }
        for (key, stamp) in stamps {
            var bytes = BinaryWriter()
            Outbox.writeTimestamp(stamp.timestamp.outbox, &bytes)
            bytes.string(stamp.client)
            try transaction.setMetadata(SyncServer.stampKey(key), bytes.bytes)
        }
    }

    /// Each mutation's answer: the server version an applied one left, and for a rejected or a
    /// duplicate one the record's current state (and a duplicate's version) — as far as the caller
    /// may read it; an applied put whose link targets were dropped carries its state too.
    func response(_ outcome: SaveSession.Outcome, in reader: any StorageReadTransaction) throws -> PushResponse {
        var results = results
        let byID = Dictionary(request.mutations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for index in results.indices {
            if let key = appliedKeys[index] {
                // Written by this save, or (a put that changed nothing) as stored.
                results[index].serverVersion =
                    try outcome.written[key].map { $0?.version } ?? reader.record(key.entity, id: key.id)?.version
                if adjusted.contains(results[index].id), let mutation = byID[results[index].id] {
                    results[index].current = try current(of: mutation, in: reader)
                }
            } else if results[index].outcome != .applied, let mutation = byID[results[index].id],
                reader.schema.entity(mutation.entity) != nil
            {
                // A rejection, and a duplicate too: the client's value may have been overwritten
                // since it was applied (an answer lost, another writer, then the resend), and its
                // cursor may be past that change, so the answer says what the server holds.
                let current = try current(of: mutation, in: reader)
                results[index].current = current
                if results[index].outcome == .duplicate, !current.isTombstone {
                    results[index].serverVersion = current.serverVersion
                }
            }
        }
        return PushResponse(results: results)
    }

    /// The record a rejected mutation is about as the server holds it. A rejection never hands back
    /// a record the caller may not read: as far as the caller can know, the server does not have it.
    private func current(of mutation: SyncMutation, in reader: any StorageReadTransaction) throws -> RemoteChange {
        let current = try SyncServer.currentState(
            mutation.key, record: .none, lastVersion: 0, historyTime: Date(), in: reader)
        guard let view, let values = current.values,
            try !view.isReadable(Record(entity: mutation.entity, id: mutation.recordID, values: values), in: reader)
        else { return current }
        return RemoteChange(
            entity: current.entity, recordID: current.recordID, values: nil, links: [:], serverVersion: 0,
            timestamp: current.timestamp, origin: nil)
    }
}
