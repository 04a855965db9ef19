import Strata
import StrataSync

/// The records shared with one identity: the shared records' IDs by entity, all of them and
/// those shared to write.
struct ShareGrants: Sendable {
    var readable: [String: [RecordID]] = [:]
    var writable: [String: [RecordID]] = [:]

    /// Nothing shared.
    init() {}

    /// The shares naming `identity` as participant, read through `fetch` (an indexed lookup on
    /// the participant). Shares of entities that are not shareable grant nothing.
    init(for identity: SyncIdentity?, access: SyncAccess, schema: Schema, fetch: (FetchPlan) throws -> [Record])
        throws
    {
        guard let identity, !access.shareables.isEmpty, schema.entity(SyncShare.entityName) != nil else { return }
        let plan = FetchPlan(
            entity: SyncShare.entityName, predicate: .compare("participant", .equal, .string(identity.id), []))
        for share in try fetch(plan) {
            guard case .string(let entity) = share["entity"], access.shareables[entity] != nil,
                let kind = schema.entity(entity)?.idKind, case .string(let text) = share["record"],
                let id = SyncShare.recordID(text, as: kind)
            else { continue }
            readable[entity, default: []].append(id)
            if share["role"] == .string(SyncShare.Role.readWrite.rawValue) { writable[entity, default: []].append(id) }
        }
    }
}
