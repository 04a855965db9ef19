import Foundation
import Strata
import StrataSync

/// A `SyncRemote` that calls a ``SyncEndpoint`` in this process through the wire format —
/// authentication, limits, JSON, status codes and all — without sockets. The Transport checks run
/// over it and over real HTTP; what passes here passes over the network.
public struct EndpointTransport: SyncRemote, SyncTrafficCounting {
    /// The endpoint called.
    public let endpoint: SyncEndpoint
    private let client: SyncWireClient

    /// `intercept` sees each answer after the endpoint made it and may replace it (a test's lost
    /// acknowledgement).
    public init(
        endpoint: SyncEndpoint, tokens: any SyncTokenProvider,
        intercept: (@Sendable (SyncWire.Request, SyncWire.Response) async throws -> SyncWire.Response)? = nil
    ) {
        self.endpoint = endpoint
        self.client = SyncWireClient(tokens: tokens) { request in
            // As a server would see it: the query through its percent-encoded form.
            var received = request
            received.query = SyncWire.parseQuery(request.target)
            let response = await endpoint.handle(received)
            return try await intercept?(request, response) ?? response
        }
    }

    /// Bytes of the bodies sent and received so far.
    public var traffic: (sent: Int, received: Int) { client.traffic }

    public func push(_ request: PushRequest) async throws -> PushResponse { try await client.push(request) }
    public func pull(_ request: PullRequest) async throws -> PullResponse { try await client.pull(request) }
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        try await client.snapshot(request)
    }
    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        try await client.upload(bytes, of: file, at: offset)
    }
    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        try await client.download(file, from: offset)
    }
}
