import Foundation
import Strata

/// The sync client's conflict policy: what the client does when a pulled record has local mutations
/// not yet acknowledged by the server (a context's is `MergePolicy`; the sync server's is
/// `SyncServerConflictPolicy`; the article *Conflicts* in `Strata`'s catalog puts the places side by side).
///
/// - `serverWins`: the local record becomes the server's; the pending mutations are dropped.
/// - `clientWins`: the local record is kept as it is; the pending mutations are replaced by one put
///   of the whole local record, so the server takes it all.
/// - `propertyMerge` (the default): the local record becomes the server's, with the properties the
///   pending mutations change kept from the local record (a server delete wins); the pending
///   mutations are kept, and only their properties are sent.
/// - `lastWriterWins`: `clientWins` when the newest pending mutation is later than the server's
///   last write on the hybrid logical clock, else `serverWins`.
/// - `custom`: what the closure decides, for the record and the pending mutations.
public enum SyncClientConflictPolicy: Sendable {
    /// The server's record is kept; the client's change is dropped.
    case serverWins
    /// The client's record replaces the server's.
    case clientWins
    /// Each side's changed properties are kept; a property both changed follows the later timestamp.
    case propertyMerge
    /// The record with the later hybrid timestamp wins whole.
    case lastWriterWins
    /// A closure decides per conflict.
    case custom(@Sendable (SyncConflict) -> SyncResolution)

    /// The policy's name, for logs.
    public var name: String {
        switch self {
        case .serverWins: "serverWins"
        case .clientWins: "clientWins"
        case .propertyMerge: "propertyMerge"
        case .lastWriterWins: "lastWriterWins"
        case .custom: "custom"
        }
    }
}

/// A pulled record meeting local mutations not yet acknowledged.
public struct SyncConflict: Sendable, Hashable {
    /// The conflicting record's entity.
    public var entity: String
    /// The conflicting record's ID.
    public var id: RecordID
    /// The local record (`nil`: deleted locally).
    public var local: Record?
    /// The server's record (`nil`: deleted on the server).
    public var server: Record?
    /// Properties the pending local mutations change.
    public var pendingProperties: [String]
    /// When the newest pending local mutation was made.
    public var localTimestamp: HybridTimestamp?
    /// When the server's record was last written.
    public var serverTimestamp: HybridTimestamp
}

/// A ``SyncClientConflictPolicy/custom(_:)`` decision.
public enum SyncResolution: Sendable, Hashable {
    /// Keep the server's record.
    case serverWins
    /// Take the client's record.
    case clientWins
    /// Merge by property.
    case propertyMerge
    /// Make the local record this, and send it whole.
    case merged(Record)
}

/// A pushed mutation the server refused. The engine has already restored the server's state of
/// the record locally and removed the mutation from the outbox.
public struct SyncRejection: Sendable, Hashable {
    /// The mutation the server refused.
    public var mutation: SyncMutation
    /// The `StrataError.Code` raw value the server gave.
    public var code: String
    /// Why, in a sentence.
    public var reason: String
}

/// Where a ``SyncEngine`` stands, as published on ``SyncEngine/statusUpdates()``.
public struct SyncStatus: Sendable, Hashable {
    /// Mutations in the outbox, not yet acknowledged.
    public var pendingCount = 0
    /// Mutations in the push under way.
    public var inFlight = 0
    /// The last failure, if the last attempt failed.
    public var lastError: String?
    /// When the background loop tries again after a failure.
    public var nextRetry: Date?
    /// The server cursor the client has caught up with.
    public var lastSyncedCursor: SyncCursor?
    /// Consecutive failed attempts.
    public var failures = 0
    /// Whether the server accepts the client's credentials: sync stops (the outbox is kept) until
    /// the app supplies a token the server accepts.
    public var authentication = SyncAuthentication.accepted
    /// Resets from a snapshot completed (a cursor the server could no longer serve).
    public var resets = 0
    /// What is being downloaded now: a new subscription's records, a reset, or the change feed.
    public var download: SyncProgress?
    /// What is being uploaded now: the outbox, with the mutations it held when the push began.
    public var upload: SyncProgress?
    /// Files going up and coming down (see ``SyncFileProgress``).
    public var files = SyncFileProgress()
    /// Whether a sync is under way.
    public var isSyncing = false
    /// The kind of the last failure, when it came from the transport.
    public var lastErrorKind: SyncTransportError.Kind?

    /// The client's state for a UI: signed out before anything else, then syncing, offline (the
    /// server unreachable), failed, or idle.
    public var state: SyncState {
        if authentication != .accepted { return .needsSignIn }
        if isSyncing { return .syncing }
        guard let lastError else { return .idle }
        switch lastErrorKind {
        case .offline?, .timeout?: return .offline(retryAt: nextRetry)
        default: return .error(lastError, retryAt: nextRetry)
        }
    }
}

/// The state of a sync client's credentials, as the server last answered.
public enum SyncAuthentication: String, Sendable, Hashable {
    /// The server accepted the last request (or none was refused yet).
    case accepted
    /// 401 after one token refresh: sign in again.
    case unauthorized
    /// 403: the identity may not sync this client ID.
    case forbidden
}

/// How the background loop retries: exponential backoff from `initialDelay`, capped at
/// `maximumDelay`, each delay scaled by a random factor in `1 - jitter ... 1`.
public struct RetryPolicy: Sendable, Hashable {
    /// The first wait after a failure.
    public var initialDelay: Duration
    /// The longest wait between attempts.
    public var maximumDelay: Duration
    /// The fraction of each wait that is random, so clients do not retry together.
    public var jitter: Double
    /// How long the loop waits after a successful sync before the next.
    public var interval: Duration

    /// A retry policy; `interval` is how often the background loop syncs when all is well.
    public init(
        initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(30), jitter: Double = 0.5,
        interval: Duration = .seconds(5)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
        self.interval = interval
    }

    /// The delay before attempt `failures + 1`.
    public func delay(afterFailures failures: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let raw = initialDelay * Double(1 << exponent)
        let capped = raw > maximumDelay ? maximumDelay : raw
        return capped * (1 - jitter * random)
    }
}

/// What one ``SyncEngine/syncNow()`` did.
public struct SyncReport: Sendable, Hashable {
    /// Mutations the server applied.
    public var pushed = 0
    /// Changes pulled from the server.
    public var pulled = 0
    /// Mutations the server refused.
    public var rejected = 0
    /// Conflicts resolved by policy.
    public var conflicts = 0
    /// Files whose bytes came down for the records pulled.
    public var filesDownloaded = 0
}
