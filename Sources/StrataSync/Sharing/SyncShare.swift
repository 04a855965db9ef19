import Foundation
import Strata

/// A record shared by its owner with another identity: the grant a sync server enforces.
///
/// A share is a record like any other. Add `SyncShare.self` to the schema on the server and on
/// the clients, and the owner's client writes shares through its repository. They sync, are in
/// the store's history and are copied with the store. The server accepts a share only from the
/// owner of the record it names (the server's `SyncAccess.shareable` rule says who owns what and
/// which relationships the share takes along), and sends each share to its owner and its
/// participant only.
///
/// ```swift
/// let share = SyncShare(Trip.self, trip.id, owner: "alice", with: "bob", role: .readWrite)
/// try await store.repository(SyncShare.self).insert(share)
/// ```
///
/// Deleting the share revokes it: the participant's client removes the shared records at its
/// next pull, without deleting anything on the server. The participant may delete it too (to
/// leave); only the owner may change it.
public struct SyncShare: PersistentModel, Equatable {
    /// What a participant may do with the shared records.
    public enum Role: String, Codable, CaseIterable, Sendable, AttributeConvertible {
        /// Read them.
        case read
        /// Read and change them, and add and remove records of the shared relationships. The root
        /// record itself is deleted, and its ownership changed, by its owner only.
        case readWrite
    }

    public var id: UUID
    /// The shared record's entity (stored as `entity`).
    public var sharedEntity: String
    /// The shared record's ID, as text: a UUID's `uuidString`, a string ID, an integer in decimal
    /// (stored as `record`).
    public var sharedID: String
    /// The identity that shares it: the record's owner.
    public var owner: String
    /// The identity it is shared with.
    public var participant: String
    /// What the participant may do.
    public var role: Role

    /// A share of the record `entity`/`record` by `owner` with `participant`.
    public init(
        id: UUID = UUID(), entity: String, record: String, owner: String, with participant: String, role: Role = .read
    ) {
        self.id = id
        self.sharedEntity = entity
        self.sharedID = record
        self.owner = owner
        self.participant = participant
        self.role = role
    }

    /// A share of a model's record.
    public init<Model: PersistentModel>(
        _ type: Model.Type, _ recordID: Model.ID, id: UUID = UUID(), owner: String, with participant: String,
        role: Role = .read
    ) {
        let text = RecordID(recordID.attributeValue)?.description ?? "\(recordID)"
        self.init(id: id, entity: Model.entityName, record: text, owner: owner, with: participant, role: role)
    }

    /// The shared record's ID under `kind`, or `nil` when the text is not one.
    public func sharedRecordID(as kind: RecordID.Kind) -> RecordID? { Self.recordID(sharedID, as: kind) }

    /// The record ID `text` names under `kind`, or `nil` when it names none.
    public static func recordID(_ text: String, as kind: RecordID.Kind) -> RecordID? {
        switch kind {
        case .uuid: UUID(uuidString: text).map(RecordID.uuid)
        case .string: .string(text)
        case .int: Int64(text).map(RecordID.int)
        }
    }

    public static let entity = Entity<SyncShare>(
        "SyncShare",
        [
            .attribute(\.sharedEntity, name: "entity"),
            .attribute(\.sharedID, name: "record", indexed: true),
            .attribute(\.owner, indexed: true),
            .attribute(\.participant, indexed: true),
            .attribute(\.role),
            .unique(\.sharedEntity, \.sharedID, \.participant),
        ])
}
