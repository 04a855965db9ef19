import Foundation
import Strata
import StrataSync

/// The server role of offline-first sync, over any Strata store.
///
/// - **Push** applies a client's mutations at most once: the last applied sequence number of each
///   client is stored in the same transaction as the data, so a retried batch is answered with
///   `duplicate` for what was already applied (and with the same rejection for what was rejected).
///   A batch is one save; the schema's delete rules, inverses and validation run as for any save.
///   A mutation that fails is rejected with its reason and the rest of the batch still applies.
/// - **Concurrent edits** resolve per entity (``SyncServerConflictPolicy``); the default is per-property last
///   writer wins, in the order mutations reach the server.
/// - **Pull** is a change feed over the store's history: a monotonic cursor, the current state of
///   every record changed after it, and tombstones for deleted ones. Purging the server's history
///   past a client's cursor would lose tombstones for that client; keep history at least as long as
///   the slowest client's cursor.
public struct SyncServer: SyncRemote {
    /// The server's store. With scoped `access`, server-side writes that should reach clients
    /// as removals go through this store (it keeps the prior states of scoped records).
    public let store: Store
    /// Per-entity policies; entities not named use ``SyncServerConflictPolicy/lastWriterWins``.
    public var policies: [String: SyncServerConflictPolicy]
    /// What each identity may read and write (everything, by default).
    public let access: SyncAccess
    /// The schema epoch cursors carry: a cursor of another epoch must reset.
    public let epoch: String

    static let clientPrefix = MetadataKeys.serverClientPrefix
    static let rejectedPrefix = MetadataKeys.serverRejectedPrefix
    static let stampPrefix = MetadataKeys.serverStampPrefix
    static let ownerPrefix = MetadataKeys.serverOwnerPrefix
    static let priorPrefix = MetadataKeys.serverPriorPrefix
    static let contextName = "sync"

    /// A server over `store`.
    ///
    /// - Parameters:
    ///   - store: The store the server's clients sync with (any backend).
    ///   - policies: Per-entity conflict policies.
    ///   - access: Read scopes and write checks per identity, applied to calls that name one
    ///     (`push(_:as:)`, `pull(_:as:maximumWait:stop:)`, `snapshot(_:as:)` — what a ``SyncEndpoint`` makes);
    ///     the identity-less `SyncRemote` calls are the trusted in-process path.
    public init(store: Store, policies: [String: SyncServerConflictPolicy] = [:], access: SyncAccess = SyncAccess()) {
        // Prior states of the scoped entities, and of those their scopes read through (found by
        // building each scope for one identity: its shape does not depend on whose it is).
        let probe = SyncIdentity("")
        let filters = access.scopedEntities.reduce(into: [String: FilterExpression]()) { filters, entity in
            if case .matching(let filter) = access.scope(of: entity, for: probe) { filters[entity] = filter }
        }
        let paths = ScopePaths(filters, schema: store.schema)
        let scoped = access.scopedEntities.union(paths.readThrough)
        let kept = scoped.isEmpty ? store : store.adding(PriorStates(entities: scoped))
        self.store = paths.readers.isEmpty ? kept : kept.adding(DeletedReferrers(paths))
        self.policies = policies
        self.access = access
        self.epoch = store.schema.version ?? Self.shortHash(store.schema.fingerprint)
    }

    /// A short stable name of a long text (FNV-1a, 64 bits): an unnamed schema's epoch.
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return "s" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A client whose store names a schema version refuses to meet a server of another named
    /// version: its messages speak the other version's entities and properties.
    func checkSchemaVersion(_ client: String?) throws {
        guard let client, let own = store.schema.version, client != own else { return }
        throw StrataError(
            .incompatibleStore,
            "the client's store is at schema version \(client) and this server's at \(own): migrate the older one "
                + "(the client's outbox is migrated with its store) before syncing"
        )
    }
}
