import Foundation
import Strata

/// The client side of ``SyncWire``, independent of any HTTP library: builds requests, attaches the
/// bearer token (refreshing it once after a 401), and classifies answers into messages or
/// ``SyncTransportError``s. A transport supplies only `send`, which moves a request and its answer
/// (and throws a ``SyncTransportError`` of kind offline or timeout when it cannot).
public struct SyncWireClient: Sendable {
    /// Sends one request and returns the answer (an HTTP client, or an endpoint in process).
    public typealias Send = @Sendable (SyncWire.Request) async throws -> SyncWire.Response

    /// Where bearer tokens come from.
    public let tokens: any SyncTokenProvider
    private let send: Send

    /// A client that authenticates with `tokens` and sends with `send`.
    public init(tokens: any SyncTokenProvider, send: @escaping Send) {
        self.tokens = tokens
        self.send = send
    }

    /// Pushes mutations.
    public func push(_ request: PushRequest) async throws -> PushResponse {
        let body: [UInt8]
        do {
            body = Array(try JSONEncoder().encode(request))
        } catch {
            throw StrataError(.storageFailure, underlying: error, "a push could not be encoded: \(error)")
        }
        return try await exchange(
            SyncWire.Request(
                method: "POST", path: SyncWire.pushPath, headers: ["content-type": "application/json"], body: body))
    }

    /// Pulls changes.
    public func pull(_ request: PullRequest) async throws -> PullResponse {
        try await exchange(SyncWire.Request(method: "GET", path: SyncWire.pullPath, query: SyncWire.query(request)))
    }

    /// Reads a page of a snapshot.
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        try await exchange(SyncWire.Request(method: "GET", path: SyncWire.snapshotPath, query: SyncWire.query(request)))
    }

    private func exchange<T: Decodable>(_ request: SyncWire.Request) async throws -> T {
        var request = request
        request.headers["authorization"] = "Bearer " + (try await tokens.token())
        var response = try await send(request)
        if response.status == 401 {
            // One refresh: the token may have expired since it was read.
            guard let fresh = try await tokens.refresh() else { throw Self.classify(response) }
            request.headers["authorization"] = "Bearer " + fresh
            response = try await send(request)
        }
        guard response.status == 200 else { throw Self.classify(response) }
        do {
            return try JSONDecoder().decode(T.self, from: Data(response.body))
        } catch {
            // A proxy's page, a truncated body, or a newer server's message.
            throw SyncTransportError(
                .serverError, "the server's answer is not a sync message of this version", status: 200)
        }
    }

    /// The error an answer other than 200 stands for.
    public static func classify(_ response: SyncWire.Response) -> SyncTransportError {
        let failure = try? JSONDecoder().decode(SyncWire.Failure.self, from: Data(response.body))
        let message = failure?.message ?? "the server answered \(response.status)"
        let retryAfter = response.headers["retry-after"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map {
            Duration.seconds($0)
        }
        let kind: SyncTransportError.Kind
        switch response.status {
        case 400, 404, 405: kind = .badRequest
        case 401: kind = .unauthorized
        case 403: kind = .forbidden
        case 408: kind = .requestTimeout
        case 409: kind = .incompatible
        case 410: kind = .resetRequired
        case 413: kind = .payloadTooLarge
        case 429: kind = .rateLimited
        default: kind = failure.flatMap { SyncTransportError.Kind(rawValue: $0.error) } ?? .serverError
        }
        return SyncTransportError(kind, message, retryAfter: retryAfter, status: response.status)
    }
}
