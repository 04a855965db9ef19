import Foundation
import Strata

/// A mutation's stable identity: the client that made it and its sequence number there. A retry
/// sends the same ID, which is how the server applies each mutation at most once.
public struct MutationID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The client that made the mutation.
    public var clientID: String
    /// Its position in that client's outbox.
    public var sequence: UInt64

    /// A mutation's ID.
    public init(clientID: String, sequence: UInt64) {
        self.clientID = clientID
        self.sequence = sequence
    }

    public static func < (lhs: MutationID, rhs: MutationID) -> Bool {
        (lhs.clientID, lhs.sequence) < (rhs.clientID, rhs.sequence)
    }
    public var description: String { "\(clientID)#\(sequence)" }
}

/// Additions and removals of a to-many kept as a link list (many-to-many, or the order of an
/// ordered to-many), so concurrent edits of one membership merge element by element.
public struct LinkDelta: Sendable, Hashable, Codable {
    /// Links added.
    public var added: [RecordID]
    /// Links removed.
    public var removed: [RecordID]
    /// The whole list after the change, for its order.
    public var order: [RecordID]

    /// A change to a link list.
    public init(added: [RecordID], removed: [RecordID], order: [RecordID]) {
        self.added = added
        self.removed = removed
        self.order = order
    }
}

/// One change of one record made by a local save: a put of the properties it changed, or a delete.
public struct SyncMutation: Sendable, Hashable, Codable {
    /// What the mutation does.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Insert or replace the record.
        case put
        /// Delete the record.
        case delete
    }

    /// The mutation's ID (client and sequence), for exactly-once application.
    public var id: MutationID
    /// Put or delete.
    public var kind: Kind
    /// The record's entity.
    public var entity: String
    /// The record's ID.
    public var recordID: RecordID
    /// Whether the put created the record locally.
    public var isInsert: Bool
    /// For a put: the changed attributes and to-ones (for an insert, every non-null one).
    public var values: [String: Value]
    /// For a put: changed link lists, by relationship name.
    public var links: [String: LinkDelta]
    /// The server's version of the record when the change was made (`nil`: never seen from the server).
    public var baseServerVersion: Int64?
    /// When the change was made, on the client's hybrid logical clock.
    public var timestamp: HybridTimestamp

    /// A mutation.
    public init(
        id: MutationID, kind: Kind, entity: String, recordID: RecordID, isInsert: Bool = false,
        values: [String: Value] = [:],
        links: [String: LinkDelta] = [:], baseServerVersion: Int64? = nil, timestamp: HybridTimestamp
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
    public var key: RecordKey { RecordKey(entity: entity, id: recordID) }
}

/// A hybrid logical clock reading: wall-clock milliseconds, a counter for events within one
/// millisecond (or when the wall clock is behind a timestamp already seen), and the node that made
/// it as the last tie-break. Ordered, so "last writer" is well defined across clients.
public struct HybridTimestamp: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970 on the writer's clock, never behind the last timestamp it saw.
    public var millis: Int64
    /// Orders timestamps within one millisecond.
    public var counter: UInt32
    /// The writer, which breaks ties.
    public var node: String

    /// A timestamp.
    public init(millis: Int64, counter: UInt32 = 0, node: String) {
        self.millis = millis
        self.counter = counter
        self.node = node
    }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.millis, lhs.counter, lhs.node) < (rhs.millis, rhs.counter, rhs.node)
    }

    /// The next local timestamp: never behind `last`, never behind the wall clock.
    public static func next(after last: HybridTimestamp?, now: Date, node: String) -> HybridTimestamp {
        let wall = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        guard let last, last.millis >= wall else { return HybridTimestamp(millis: wall, node: node) }
        return HybridTimestamp(millis: last.millis, counter: last.counter &+ 1, node: node)
    }

    public var description: String { "\(millis).\(counter)@\(node)" }
}
