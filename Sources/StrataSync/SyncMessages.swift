import Strata
/// The messages between a ``SyncEngine`` and a `SyncServer` (`StrataSyncServer`). Each carries
/// the wire format it travels in (`version`): format 2, compact JSON (``SyncWire``), by default;
/// format 1, the messages' `Codable` JSON, for clients built before it.

/// A position in the server's change feed.
public struct SyncCursor: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The server's history position.
    public var value: Int64
    /// The server's schema epoch when it issued the cursor: a cursor of another epoch must reset.
    public var epoch: String?
    /// A cursor at `value` of the server's history epoch `epoch`.
    public init(_ value: Int64, epoch: String? = nil) {
        self.value = value
        self.epoch = epoch
    }
    public static func < (lhs: SyncCursor, rhs: SyncCursor) -> Bool { lhs.value < rhs.value }
    public var description: String { String(value) }
}

/// The server's current state of one record: its values and link lists, or a tombstone.
public struct RemoteChange: Sendable, Hashable, Codable {
    /// The record's entity.
    public var entity: String
    /// The record's ID.
    public var recordID: RecordID
    /// The record's values on the server; `nil` when it was deleted (a tombstone).
    public var values: [String: Value]?
    /// The record's link lists on the server, by relationship name.
    public var links: [String: [RecordID]]
    /// The server's version of the record (its last version for a tombstone).
    public var serverVersion: Int64
    /// When it was last written, on the writing client's clock (the server's for its own writes).
    public var timestamp: HybridTimestamp
    /// The client whose mutation wrote it last, when a client did.
    public var origin: String?
    /// Whether the record left what the client may read without being deleted (a share of it was
    /// revoked): the client removes it without its delete rules and queues nothing. Format-1
    /// answers carry an eviction as a tombstone.
    public var isEviction = false

    private enum CodingKeys: String, CodingKey {
        case entity, recordID, values, links, serverVersion, timestamp, origin
    }

    /// A change as a server (or a remote of your own) reports it; `values` `nil` for a tombstone.
    public init(
        entity: String, recordID: RecordID, values: [String: Value]?, links: [String: [RecordID]],
        serverVersion: Int64, timestamp: HybridTimestamp, origin: String?
    ) {
        (self.entity, self.recordID, self.values, self.links) = (entity, recordID, values, links)
        (self.serverVersion, self.timestamp, self.origin) = (serverVersion, timestamp, origin)
    }

    /// The removal of a record that left what the client may read, on the server still.
    public static func eviction(of key: RecordKey, serverVersion: Int64, timestamp: HybridTimestamp) -> RemoteChange {
        var change = RemoteChange(
            entity: key.entity, recordID: key.id, values: nil, links: [:], serverVersion: serverVersion,
            timestamp: timestamp, origin: nil)
        change.isEviction = true
        return change
    }

    /// The record the change concerns.
    public var key: RecordKey { RecordKey(entity: entity, id: recordID) }
    /// Whether the record was deleted.
    public var isTombstone: Bool { values == nil }
}

/// A batch of mutations, in the client's commit order.
public struct PushRequest: Sendable, Hashable, Codable {
    /// The push format this build sends: 2 (see ``SyncWire``). Servers also read format 1.
    public static let currentVersion = 2
    /// The push format of the request.
    public var version = PushRequest.currentVersion
    /// The pushing client.
    public var clientID: String
    /// The mutations, in outbox order.
    public var mutations: [SyncMutation]
    /// The client store's schema version (`Schema.version`): a server of another version
    /// refuses the push, since the mutations name its entities and properties.
    public var schemaVersion: String?

    /// A push of `mutations`.
    public init(clientID: String, mutations: [SyncMutation], schemaVersion: String? = nil) {
        self.clientID = clientID
        self.mutations = mutations
        self.schemaVersion = schemaVersion
    }
}

/// What became of one pushed mutation.
public struct MutationResult: Sendable, Hashable, Codable {
    /// Applied, a duplicate, or refused.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Applied now.
        case applied
        /// Applied by an earlier push (a retry): nothing was done again. The record's server state
        /// as it is now is in `current` (another writer may have changed it since), and its version
        /// in `serverVersion`.
        case duplicate
        /// Refused; see `code` and `reason`. The record's server state is in `current`.
        case rejected
    }

    /// The mutation.
    public var id: MutationID
    /// What became of it.
    public var outcome: Outcome
    /// The record's server version after the mutation, when it exists.
    public var serverVersion: Int64?
    /// For a rejection: the `StrataError.Code` raw value and a sentence.
    public var code: String?
    /// For a rejection: why, in a sentence.
    public var reason: String?
    /// For a rejection or a duplicate, and for an applied put the server did not take whole (a
    /// link to a record that is absent, or not the caller's to write into, dropped): the record's
    /// state on the server, which the client restores (keeping what its later pending mutations
    /// of the record change).
    public var current: RemoteChange?

    /// A result as a server (or a remote of your own) reports it.
    public init(
        id: MutationID, outcome: Outcome, serverVersion: Int64? = nil, code: String? = nil, reason: String? = nil,
        current: RemoteChange? = nil
    ) {
        (self.id, self.outcome, self.serverVersion) = (id, outcome, serverVersion)
        (self.code, self.reason, self.current) = (code, reason, current)
    }
}

/// The server's answer to a push: one result per mutation, in order.
public struct PushResponse: Sendable, Hashable, Codable {
    /// The push format of the answer.
    public var version = PushRequest.currentVersion
    /// One result per mutation.
    public var results: [MutationResult]

    /// An answer with one result per pushed mutation, in order.
    public init(results: [MutationResult]) { self.results = results }
}

/// Asks for the changes after `cursor` (all of them when `nil`).
public struct PullRequest: Sendable, Hashable, Codable {
    /// The pull format this build asks for: 2 (see ``SyncWire``). Servers also answer format 1.
    public static let currentVersion = 2
    /// The pull format of the request.
    public var version = PullRequest.currentVersion
    /// The pulling client.
    public var clientID: String
    /// Where the client's last pull ended, or `nil` for the start.
    public var cursor: SyncCursor?
    /// At most this many changes.
    public var limit: Int
    /// The client store's schema version (`Schema.version`): a server of another version
    /// refuses the pull, since the changes would name its entities and properties.
    public var schemaVersion: String?
    /// A long poll: when nothing in the caller's scope changed after the cursor, the server waits
    /// up to this many milliseconds (bounded by its limit) for a commit before answering.
    public var waitMillis: Int?
    /// The client's subscriptions: only the records they cover (within the caller's scope) are
    /// sent. `nil` asks for everything the caller may read.
    public var subscriptions: [SyncSubscription]?
    /// The history tokens (past ``cursor``) of the subscription snapshots the client applied since
    /// it last pulled: it may hold records at those tokens' states, newer than its cursor, so a
    /// record it could read at one of them and cannot now is sent as a removal, as one it could
    /// read at its cursor is. At most ``maximumSnapshotsAt``; `nil` or empty: none.
    public var snapshotsAt: [Int64]?

    /// The most snapshot tokens a pull may name.
    public static let maximumSnapshotsAt = 16

    /// A pull after `cursor`.
    public init(
        clientID: String, cursor: SyncCursor?, limit: Int = 1_000, schemaVersion: String? = nil, waitMillis: Int? = nil,
        subscriptions: [SyncSubscription]? = nil
    ) {
        self.clientID = clientID
        self.cursor = cursor
        self.limit = limit
        self.schemaVersion = schemaVersion
        self.waitMillis = waitMillis
        self.subscriptions = subscriptions
    }
}

/// The server's answer to a pull: changes after the cursor and the new cursor.
public struct PullResponse: Sendable, Hashable, Codable {
    /// The pull format of the answer.
    public var version = PullRequest.currentVersion
    /// The current state of every record changed after the request's cursor, in change order.
    public var changes: [RemoteChange]
    /// Where the next pull starts.
    public var cursor: SyncCursor?
    /// Whether more changes wait after `cursor`.
    public var hasMore: Bool

    /// An answer: the changes in change order, where the next pull starts, whether more wait.
    public init(changes: [RemoteChange], cursor: SyncCursor?, hasMore: Bool) {
        (self.changes, self.cursor, self.hasMore) = (changes, cursor, hasMore)
    }
}
