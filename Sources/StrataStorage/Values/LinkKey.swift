/// One owner's link list, or one owner's membership in a to-many relationship: the entity, the
/// relationship and the owning record. The engine's working set and contexts, and backends' own
/// link tables, key by it.
///
/// It hashes the owner's ID alone (IDs are nearly unique across entities, and hashing the two
/// names on every lookup is the cost that shows in cascades); equality compares every field.
public struct LinkKey: Sendable, Hashable, CustomStringConvertible {
    /// The owner's entity.
    public var entity: String
    /// The relationship's name on the owner's entity.
    public var relationship: String
    /// The owning record's ID.
    public var owner: RecordID

    /// The link list of `owner` (a record of `entity`) for `relationship`.
    public init(entity: String, relationship: String, owner: RecordID) {
        (self.entity, self.relationship, self.owner) = (entity, relationship, owner)
    }

    /// The link list of the record `owner` for `relationship`.
    public init(_ owner: RecordKey, _ relationship: String) {
        self.init(entity: owner.entity, relationship: relationship, owner: owner.id)
    }

    /// The owning record.
    public var ownerKey: RecordKey { RecordKey(entity: entity, id: owner) }

    public func hash(into hasher: inout Hasher) { hasher.combine(owner) }

    public var description: String { "\(entity).\(relationship) of \(owner)" }
}
