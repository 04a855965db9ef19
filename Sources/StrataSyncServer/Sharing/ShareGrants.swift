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
            guard let shared = SharedRecord(share, schema: schema), access.shareables[shared.entity] != nil
            else { continue }
            readable[shared.entity, default: []].append(shared.id)
            if share["role"] == .string(SyncShare.Role.readWrite.rawValue) {
                writable[shared.entity, default: []].append(shared.id)
            }
        }
    }
}

/// The record a share names, read from the share's record.
struct SharedRecord: Equatable {
    let entity: String
    let id: RecordID

    /// `nil` when `share` is absent or names no entity of `schema`, or no ID of its kind.
    init?(_ share: Record?, schema: Schema) {
        guard let share, case .string(let entity) = share["entity"], let kind = schema.entity(entity)?.idKind,
            case .string(let text) = share["record"], let id = SyncShare.recordID(text, as: kind)
        else { return nil }
        (self.entity, self.id) = (entity, id)
    }
}
