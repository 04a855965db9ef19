import Foundation
import Strata
import StrataSync

/// Applying ``SyncAccess``: client IDs bound to identities, write checks, read visibility, and the
/// prior states of scoped records that let a pull tell a reader a record left its scope.
extension SyncServer {
    /// Checks the request's client ID against the identity it is bound to; returns whether this
    /// push binds it (its first under an identity). Every mutation must be the client's own.
    static func checkOwner(of request: PushRequest, identity: SyncIdentity?, in transaction: any StorageReadTransaction)
        throws -> Bool
    {
        guard let identity else { return false }
        if request.mutations.contains(where: { $0.id.clientID != request.clientID }) {
            throw StrataError(.permissionDenied, "a push may only carry its own client's mutations")
        }
        let owner = try boundIdentity(of: request.clientID, in: transaction)
        if let owner, owner != identity.id {
            throw StrataError(.permissionDenied, "client ID \(request.clientID) belongs to another identity")
        }
        return owner == nil
    }

    /// The identity a client ID was bound to by its first authenticated push.
    static func boundIdentity(of clientID: String, in transaction: any StorageReadTransaction) throws -> String? {
        try transaction.metadata(ownerPrefix + clientID).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Why the view's identity may not make this mutation, or `nil` when it may. Both the stored
    /// record and the record as proposed must be writable by the identity (in its scope, or shared
    /// with it to write): a client cannot reach into another identity's records nor move one of its
    /// own out of reach.
    static func writeRefusal(_ mutation: SyncMutation, by view: AccessView, in session: SaveSession) throws -> String? {
        guard let identity = view.identity else { return nil }
        let (entity, access) = (mutation.entity, view.access)
        let scope = view.writeScope(of: entity)
        if case .none = scope { return "\(entity) is not writable by \(identity)" }
        if let refusal = try fileRefusal(mutation, by: view, in: session) { return refusal }
        let owned = access.serverOwnedProperties(of: entity)
        let shared = entity == SyncShare.entityName || access.shareables[entity] != nil
        // Nothing to check: no read of the stored record.
        if case .all = scope, owned.isEmpty, access.writeRule == nil, !shared { return nil }
        let stored = try session.workingSet.record(entity, id: mutation.recordID)
        if let refusal = serverOwnedRefusal(mutation, stored: stored, owned: owned, in: session) { return refusal }
        // Judged on the batch's staged state: a record and what it refers to may arrive together.
        let reader = session.workingSet
        if let stored, try !view.isWritable(stored, in: reader) {
            if try view.isReadable(stored, in: reader) {
                return "\(mutation.key) is shared with \(identity) to read only"
            }
            return "\(mutation.key) is outside \(identity)'s scope"
        }
        var proposed: Record?
        if mutation.kind == .put {
            var values = stored?.values ?? [:]
            for (name, value) in mutation.values { values[name] = value }
            proposed = Record(entity: entity, id: mutation.recordID, values: values)
            if try !view.isWritable(proposed, in: reader) {
                return "\(mutation.key) as written would be outside \(identity)'s scope"
            }
        }
        if let refusal = try shareRefusal(mutation, stored: stored, proposed: proposed, by: view, in: reader) {
            return refusal
        }
        if let rule = access.writeRule,
            !rule(SyncAccess.Write(identity: identity, entity: entity, stored: stored, proposed: proposed))
        {
            return "the server's write rule refused \(mutation.key)"
        }
        return nil
    }

    /// A server-owned property may travel unchanged (an insert carries every value, defaults
    /// included), never changed.
    private static func serverOwnedRefusal(
        _ mutation: SyncMutation, stored: Record?, owned: Set<String>, in session: SaveSession
    ) -> String? {
        guard !owned.isEmpty else { return nil }
        let description = session.workingSet.schema.entity(mutation.entity)
        for property in (Array(mutation.values.keys) + Array(mutation.links.keys)).sorted()
        where owned.contains(property) {
            let current = stored.map { $0[property] } ?? description?.attribute(property)?.defaultValue ?? .null
            if mutation.links[property] != nil || mutation.values[property] != current {
                return "\(mutation.entity).\(property) is written by the server only"
            }
        }
        return nil
    }

    static func priorKey(_ token: HistoryToken, _ key: RecordKey) -> String {
        priorPrefix + HistoryLog.digits(token) + "." + Outbox.recordSuffix(key)
    }

    /// The record as it was before the change at `token`: `.some(nil)` when it did not exist,
    /// `nil` when the server did not keep it (a write that bypassed ``SyncServer/store``).
    static func prior(
        _ key: RecordKey, before token: HistoryToken, kind: HistoryChange.Kind,
        in transaction: any StorageReadTransaction
    ) throws -> Record?? {
        if kind == .insert { return .some(nil) }
        guard let bytes = try transaction.metadata(priorKey(token, key)),
            let entity = transaction.schema.entity(key.entity)
        else { return nil }
        // Unreadable (written under another schema): treated as not kept.
        return try? RecordCodec.decode(bytes, id: key.id, entity)
    }

    /// Keeps, for each update and delete of a scoped entity, the record as it was before — keyed
    /// by the save's history token, and purged with history — so a pull can tell whether the
    /// record was in a reader's scope at the reader's cursor.
    struct PriorStates: CommitParticipant {
        let entities: Set<String>

        func participate(in commit: CommitInProgress, transaction: any StorageWriteTransaction) throws {
            guard commit.changes.contains(where: { $0.kind != .insert && entities.contains($0.entity) }) else { return }
            let token = HistoryToken((try HistoryLog.lastToken(in: transaction)?.value ?? 0) + 1)
            for change in commit.changes where change.kind != .insert && entities.contains(change.entity) {
                let key = RecordKey(entity: change.entity, id: change.id)
                guard let original = commit.workingSet.entry(key)?.original,
                    let entity = transaction.schema.entity(change.entity)
                else { continue }
                try transaction.setMetadata(priorKey(token, key), RecordCodec.encode(original, entity))
            }
        }

        /// A scoped entity's deleted records are kept whole.
        func readsDeletedRecords(of entity: String) -> Bool { entities.contains(entity) }

        /// Prior states are kept per history entry: they go with the entries purged.
        func purge(before token: HistoryToken, in transaction: any StorageWriteTransaction) throws {
            _ = try HistoryLog.removeEntries(
                prefix: priorPrefix, before: priorPrefix + HistoryLog.digits(token), in: transaction)
        }
    }
}
