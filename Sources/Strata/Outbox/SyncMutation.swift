/// What the outbox keeps: the mutations of local saves, as a sync client sends them (the
/// messages around them are `StrataSync`'s).

/// A mutation's stable identity: the client that made it and its sequence number there. A retry
/// sends the same ID, which is how the server applies each mutation at most once.
package struct OutboxMutationID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The client that made the mutation.
    package var clientID: String
    /// Its position in that client's outbox.
    package var sequence: UInt64

    /// A mutation's ID.
    package init(clientID: String, sequence: UInt64) {
        self.clientID = clientID
        self.sequence = sequence
    }

    package static func < (lhs: OutboxMutationID, rhs: OutboxMutationID) -> Bool {
        (lhs.clientID, lhs.sequence) < (rhs.clientID, rhs.sequence)
    }
    package var description: String { "\(clientID)#\(sequence)" }
}

/// Additions and removals of a to-many kept as a link list (many-to-many, or the order of an
/// ordered to-many), so concurrent edits of one membership merge element by element.
package struct OutboxLinkDelta: Sendable, Hashable, Codable {
    /// Links added.
    package var added: [RecordID]
    /// Links removed.
    package var removed: [RecordID]
    /// The whole list after the change, for its order.
    package var order: [RecordID]

    /// A change to a link list.
    package init(added: [RecordID], removed: [RecordID], order: [RecordID]) {
        self.added = added
        self.removed = removed
        self.order = order
    }
}

/// One change of one record made by a local save: a put of the properties it changed, or a delete.
package struct OutboxMutation: Sendable, Hashable, Codable {
    /// What the mutation does.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// Insert or replace the record.
        case put
        /// Delete the record.
        case delete
    }

    /// The mutation's ID (client and sequence), for exactly-once application.
    package var id: OutboxMutationID
    /// Put or delete.
    package var kind: Kind
    /// The record's entity.
    package var entity: String
    /// The record's ID.
    package var recordID: RecordID
    /// Whether the put created the record locally.
    package var isInsert: Bool
    /// For a put: the changed attributes and to-ones (for an insert, every non-null one).
    package var values: [String: Value]
    /// For a put: changed link lists, by relationship name.
    package var links: [String: OutboxLinkDelta]
    /// The server's version of the record when the change was made (`nil`: never seen from the server).
    package var baseServerVersion: Int64?
    /// When the change was made, on the client's hybrid logical clock.
    package var timestamp: OutboxTimestamp

    /// A mutation.
    package init(
        id: OutboxMutationID, kind: Kind, entity: String, recordID: RecordID, isInsert: Bool = false,
        values: [String: Value] = [:],
        links: [String: OutboxLinkDelta] = [:], baseServerVersion: Int64? = nil, timestamp: OutboxTimestamp
    ) {
        self.id = id
        self.kind = kind
        self.entity = entity
        self.recordID = recordID
        self.isInsert = isInsert
        self.values = values
        self.links = links
        self.baseServerVersion = baseServerVersion
        self.timestamp = timestamp
    }

    /// The record the mutation concerns.
    package var key: RecordKey { RecordKey(entity: entity, id: recordID) }
}
