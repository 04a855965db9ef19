import Foundation

/// One conflict found when a model context saved (the engine's `ModelContext`), carried by a
/// ``StrataError`` with code ``StrataError/Code/mergeConflict``.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of conflict.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The context updated the record; the store changed it too since the context read it.
        case updatedInBoth
        /// The context updated the record; the store deleted it.
        case deletedInStore
        /// The context deleted the record; the store changed it since the context read it.
        case deletedInContext
        /// The context inserted a record whose unique values a stored record already has.
        case uniqueness
        /// The context inserted a record whose ID the store holds: another save inserted it since
        /// (two "get or create" of the same ID). Resolved like an update of the stored record —
        /// `objectTrumpByProperty` writes the context's non-nil values over it, `storeTrumpByProperty`
        /// only fills its nil ones, `overwrite` replaces it, `rollback` keeps it — as Core Data's
        /// uniquing does, instead of failing with `duplicateID`.
        case insertedInStore
    }

    /// A to-many membership as the context read it, as the store holds it now, and as the context wants it.
    public struct Membership: Sendable, Hashable {
        /// The membership when the context read it.
        public var base: [RecordID]
        /// The membership the store holds now.
        public var stored: [RecordID]
        /// The membership the context wants to save.
        public var context: [RecordID]

        package init(base: [RecordID], stored: [RecordID], context: [RecordID]) {
            (self.base, self.stored, self.context) = (base, stored, context)
        }
    }

    /// What kind of conflict this is.
    public var kind: Kind
    /// The entity of the record in conflict.
    public var entity: String
    /// The record's ID (for a uniqueness clash: the ID of the record the context inserted).
    public var id: RecordID
    /// The version the context read (`nil` for a record it inserted).
    public var baseVersion: Int64?
    /// The version stored now (`nil` when the store deleted it).
    public var storedVersion: Int64?
    /// The record as the context read it.
    public var base: Record?
    /// The record as the store holds it now (for a uniqueness clash: the stored record it clashes with).
    public var stored: Record?
    /// The record as the context would write it (`nil` when the context deleted it).
    public var context: Record?
    /// Properties (and to-many relationships) the context changed.
    public var contextChanges: [String]
    /// Properties (and to-many relationships) the store changed since the context read the record.
    public var storeChanges: [String]
    /// To-many memberships the context changed, by relationship name.
    public var memberships: [String: Membership]
    /// For a uniqueness clash: the constraint's properties.
    public var constraint: [String]

    package init(
        kind: Kind, entity: String, id: RecordID, baseVersion: Int64?, storedVersion: Int64?, base: Record?,
        stored: Record?, context: Record?, contextChanges: [String], storeChanges: [String],
        memberships: [String: Membership], constraint: [String]
    ) {
        (self.kind, self.entity, self.id, self.baseVersion, self.storedVersion) = (
            kind, entity, id, baseVersion, storedVersion
        )
        (self.base, self.stored, self.context) = (base, stored, context)
        (self.contextChanges, self.storeChanges, self.memberships, self.constraint) =
            (contextChanges, storeChanges, memberships, constraint)
    }

    /// The ID that survives a merge of this conflict: the stored record's for a uniqueness clash.
    public var survivingID: RecordID { kind == .uniqueness ? (stored?.id ?? id) : id }

    public var description: String {
        var text = "\(kind.rawValue) \(entity)(\(id))"
        if kind == .uniqueness, let stored {
            text += ": \(constraint.joined(separator: ",")) already used by \(entity)(\(stored.id))"
        } else {
            text +=
                ": read at version \(baseVersion.map(String.init) ?? "-"), stored version \(storedVersion.map(String.init) ?? "deleted")"
            if !contextChanges.isEmpty { text += "; changed here: \(contextChanges.joined(separator: ","))" }
            if !storeChanges.isEmpty { text += "; changed in the store: \(storeChanges.joined(separator: ","))" }
        }
        return text
    }
}
