import Foundation
import Strata

/// What a ``SyncEngine`` talks to: a server, directly or through a transport.
public protocol SyncRemote: Sendable {
    /// Sends a batch of mutations; the response says what became of each.
    func push(_ request: PushRequest) async throws -> PushResponse
    /// Fetches the changes after a cursor.
    func pull(_ request: PullRequest) async throws -> PullResponse
    /// Fetches one page of the server's whole state, for a client that must reset
    /// (``SyncTransportError/Kind/resetRequired``).
    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse
}

extension SyncRemote {
    /// A remote written before snapshots existed cannot reset a client.
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        throw SyncTransportError(.incompatible, "this remote does not serve snapshots, so the client cannot reset")
    }
}
