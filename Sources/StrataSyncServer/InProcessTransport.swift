import Foundation
import Strata
import StrataSync

/// The in-process transport, for tests and for embedding a server in the same process. With
/// ``Encoding/json`` (the default) every answer and push is encoded in its wire format (the
/// message's `version`) and decoded on the other side, as a network transport would, so what
/// works here works over the wire; ``Encoding/none`` hands the values over directly.
public struct InProcessTransport: SyncRemote {
    /// How requests and answers cross the in-process transport.
    public enum Encoding: Sendable {
        /// Encoded to JSON and back, as over a network.
        case json
        /// Passed as values.
        case none
    }

    /// The server called.
    public let server: SyncServer
    /// How calls are encoded.
    public let encoding: Encoding

    /// A transport to `server` in this process.
    public init(server: SyncServer, encoding: Encoding = .json) {
        self.server = server
        self.encoding = encoding
    }

    public func push(_ request: PushRequest) async throws -> PushResponse {
        guard encoding == .json else { return try await server.push(request) }
        let received = try Self.wire {
            try SyncWire.decodePushRequest(try SyncWire.encode(request), version: request.version)
        }
        let answer = try await server.push(received)
        return try Self.wire {
            try SyncWire.decodePushResponse(
                try SyncWire.encode(answer, version: request.version), version: request.version)
        }
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        guard encoding == .json else { return try await server.pull(request) }
        let answer = try await server.pull(request)
        return try Self.wire {
            try SyncWire.decodePullResponse(
                try SyncWire.encode(answer, version: request.version), version: request.version)
        }
    }

    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        guard encoding == .json else { return try await server.snapshot(request) }
        let answer = try await server.snapshot(request)
        return try Self.wire {
            try SyncWire.decodeSnapshotResponse(
                try SyncWire.encode(answer, version: request.version), version: request.version)
        }
    }

    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        try await server.upload(bytes, of: file, at: offset)
    }

    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        try await server.download(file, from: offset)
    }

    private static func wire<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.storageFailure, underlying: error, "a sync message did not survive encoding: \(error)")
        }
    }
}
