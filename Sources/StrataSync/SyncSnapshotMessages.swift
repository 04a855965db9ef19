import Strata
/// The messages of a reset: pages of the server's whole state in the caller's scope.

/// Where a snapshot page starts: an entity, and the ID after which its records continue (`nil`:
/// from its first record).
public struct SnapshotPosition: Sendable, Hashable, Codable {
    /// The entity being read.
    public var entity: String
    /// The last ID read, or `nil` for the entity's start.
    public var after: RecordID?

    /// A position in a snapshot.
    public init(entity: String, after: RecordID? = nil) {
        self.entity = entity
        self.after = after
    }
}

/// Asks for one page of the server's state in the caller's scope, for a client that must reset.
/// Pages walk the entities in schema order and each entity's records in ID order.
public struct SnapshotRequest: Sendable, Hashable, Codable {
    /// The snapshot format this build asks for: 2 (see ``SyncWire``). Servers also answer format 1.
    public static let currentVersion = 2
    /// The snapshot format of the request.
    public var version = SnapshotRequest.currentVersion
    /// The client resetting.
    public var clientID: String
    /// Where the page starts; `nil` for the first page.
    public var position: SnapshotPosition?
    /// At most this many records per page.
    public var limit: Int
    /// The client's schema version, checked against the server's.
    public var schemaVersion: String?
    /// The subscriptions whose records to send (within the caller's scope); `nil` sends everything
    /// the caller may read. A client's initial sync of a new subscription names it alone.
    public var subscriptions: [SyncSubscription]?

    /// A page of the snapshot from `position` (the start when nil).
    public init(
        clientID: String, position: SnapshotPosition?, limit: Int = 1_000, schemaVersion: String? = nil,
        subscriptions: [SyncSubscription]? = nil
    ) {
        self.clientID = clientID
        self.position = position
        self.limit = limit
        self.schemaVersion = schemaVersion
        self.subscriptions = subscriptions
    }
}

/// One page of a snapshot: every record of `entity` in the caller's scope whose ID lies after the
/// request's position and up to `through` (to the entity's end when `through` is `nil`).
public struct SnapshotResponse: Sendable, Hashable, Codable {
    /// The snapshot format of the answer.
    public var version = SnapshotRequest.currentVersion
    /// The entity of this page.
    public var entity: String
    /// The records, in ID order (never tombstones).
    public var records: [RemoteChange]
    /// The last ID this page covers; `nil` when it covers the rest of the entity.
    public var through: RecordID?
    /// Where the next page starts; `nil` after the last page.
    public var next: SnapshotPosition?
    /// The history position the state is at least as new as: pulling from it after the last page
    /// brings everything that changed while the pages were read.
    public var cursor: SyncCursor?
    /// On the first page: how many records the whole snapshot holds, counted when the page was
    /// read (for progress; records written meanwhile may make the last pages differ).
    public var expected: Int?

    /// A page of a snapshot.
    public init(
        entity: String, records: [RemoteChange], through: RecordID?, next: SnapshotPosition?, cursor: SyncCursor?
    ) {
        self.entity = entity
        self.records = records
        self.through = through
        self.next = next
        self.cursor = cursor
    }
}
