import Foundation

/// How far one transfer has come, as ``SyncStatus/download`` and ``SyncStatus/upload`` publish it.
public struct SyncProgress: Sendable, Hashable {
    /// What is being transferred.
    public enum Phase: Sendable, Hashable {
        /// The records of new subscriptions (their names), from the server's snapshot.
        case subscribing([String])
        /// The whole readable state, from the server's snapshot (a cursor the server could no
        /// longer serve, or ``SyncEngine/syncEverything()``).
        case resetting
        /// The change feed after the client's cursor (the total is not known in advance).
        case changes
        /// The outbox, to the server.
        case uploading
    }

    /// What is being transferred.
    public var phase: Phase
    /// Records (mutations, for an upload) expected in all, when known.
    public var expected: Int?
    /// Records (mutations) transferred so far.
    public var completed: Int
    /// Bytes transferred so far, as the transport counted them (0 for a transport that does not
    /// count, such as values handed over in process).
    public var bytes: Int
    /// Bytes expected in all: an estimate from the bytes per record so far, once a page arrived.
    public var bytesExpected: Int? {
        guard let expected, completed > 0, bytes > 0 else { return nil }
        return Int((Double(bytes) / Double(completed) * Double(expected)).rounded())
    }
    /// `completed / expected`, at most 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let expected else { return nil }
        return expected == 0 ? 1 : min(1, Double(completed) / Double(expected))
    }

    /// Progress as a transport or a test reports it.
    public init(phase: Phase, expected: Int?, completed: Int, bytes: Int = 0) {
        (self.phase, self.expected, self.completed, self.bytes) = (phase, expected, completed, bytes)
    }
}

/// What a UI shows of a sync client (``SyncStatus/state``).
public enum SyncState: Sendable, Hashable {
    /// Nothing to do: the last sync succeeded.
    case idle
    /// A push, pull or initial sync is under way.
    case syncing
    /// The server cannot be reached; the background loop tries again at `retryAt` (`nil`: when
    /// asked to).
    case offline(retryAt: Date?)
    /// The server refused the credentials (after one token refresh) or this client ID: sync stops,
    /// with the outbox kept, until the app signs in again.
    case needsSignIn
    /// The last sync failed for another reason (its description); retried at `retryAt`.
    case error(String, retryAt: Date?)
}

/// Counts the bytes a transport moves, for ``SyncProgress``. Remotes that put messages on a wire
/// (`HTTPSyncRemote`, `EndpointTransport`, `InProcessTransport` with `.json`) conform.
public protocol SyncTrafficCounting: Sendable {
    /// Bytes of request and answer bodies sent and received so far by this remote.
    var traffic: (sent: Int, received: Int) { get }
}
