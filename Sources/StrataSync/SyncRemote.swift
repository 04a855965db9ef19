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
    /// Sends one piece of a file's bytes at `offset` (empty: asks how far the upload is); the
    /// server answers with what it holds.
    func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState
    /// Fetches up to ``SyncWire/filePieceBytes`` of a file the caller may read, from `offset`.
    func download(_ file: FileReference, from offset: Int64) async throws -> Data
}

extension SyncRemote {
    /// A remote written before snapshots existed cannot reset a client.
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        throw SyncTransportError(.incompatible, "this remote does not serve snapshots, so the client cannot reset")
    }

    /// A remote written before files existed cannot carry their bytes.
    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        throw SyncTransportError(.incompatible, "this remote does not carry files")
    }

    /// A remote written before files existed cannot carry their bytes.
    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        throw SyncTransportError(.incompatible, "this remote does not carry files")
    }
}
