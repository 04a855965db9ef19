import Foundation
import Strata
import StrataSync

/// The in-process transport, for tests and for embedding a server in the same process. With
/// ``Encoding/json`` (the default) every message is encoded to JSON and decoded on the other side,
/// as a network transport would, so what works here works over the wire; ``Encoding/none`` hands
/// the values over directly.
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
        return try Self.roundTrip(try await server.push(try Self.roundTrip(request)))
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        guard encoding == .json else { return try await server.pull(request) }
        return try Self.roundTrip(try await server.pull(try Self.roundTrip(request)))
    }

    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        guard encoding == .json else { return try await server.snapshot(request) }
        return try Self.roundTrip(try await server.snapshot(try Self.roundTrip(request)))
    }

    static func roundTrip<T: Codable>(_ message: T) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(message))
        } catch {
            throw StrataError(.storageFailure, underlying: error, "a sync message did not survive encoding: \(error)")
        }
    }
}
