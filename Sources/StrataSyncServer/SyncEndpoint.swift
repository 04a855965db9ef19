import Foundation
import Strata
import StrataSync

/// The server side of sync over HTTP, without an HTTP library: authenticates a request, applies
/// the limits, calls the ``SyncServer`` as the request's identity and turns the outcome into a
/// status and a JSON body. `StrataSyncHTTPServer` mounts it on Hummingbird routes; the in-process
/// ``EndpointTransport`` calls it directly.
///
/// Answers: 200; 400 malformed (or an upload whose bytes are not its digest's); 401 no or unknown
/// bearer token; 403 another identity's client ID or a request outside the caller's rights;
/// 404 an unknown route, or a file the caller may not read or the server does not hold; 405 a
/// wrong method (`HEAD` is answered wherever `GET` is); 409 a message or schema
/// version the server does not speak; 410 a cursor the server cannot serve (reset); 413 a body
/// or batch over the limits, or an upload over the identity's file quota; 429 over the rate
/// (`Retry-After`); 503 the store is unavailable;
/// 507 the server's disk is full (nothing of the request was stored; retry later); 500 anything
/// else. Failure bodies never echo a token, a body, or a backend's own message.
public struct SyncEndpoint: Sendable {
    /// The server that applies pushes and answers pulls.
    public let server: SyncServer
    /// Turns bearer tokens into identities.
    public let authenticator: any SyncAuthenticator
    /// Bounds on bodies, batches, pages, waits and request rates.
    public let limits: SyncLimits
    /// Cancelled by `shutdown()`: long polls answer at once.
    public let stopping = WaitCancellation()
    private let rateLimiter: RateLimiter?

    /// An endpoint over `server`.
    public init(server: SyncServer, authenticator: any SyncAuthenticator, limits: SyncLimits = SyncLimits()) {
        self.server = server
        self.authenticator = authenticator
        self.limits = limits
        self.rateLimiter = limits.rate.map(RateLimiter.init)
    }

    /// Ends every long poll now (answering with what it has) and every later one at once.
    public func shutdown() { stopping.cancel() }

    /// Answers one request. `HEAD` on a `GET` route is answered as the `GET` is, and every answer
    /// to a `HEAD` is without a body (RFC 9110 §9.3.2).
    public func handle(_ request: SyncWire.Request) async -> SyncWire.Response {
        if request.method.uppercased() == "HEAD" {
            var get = request
            if request.path != SyncWire.pushPath { get.method = "GET" }
            var answer = await route(get)
            answer.body = []
            return answer
        }
        return await route(request)
    }

    private func route(_ request: SyncWire.Request) async -> SyncWire.Response {
        let route: String
        switch (request.method.uppercased(), request.path) {
        case ("POST", SyncWire.pushPath): route = "push"
        case ("GET", SyncWire.pullPath): route = "pull"
        case ("GET", SyncWire.snapshotPath): route = "snapshot"
        case ("PUT", let path) where path.hasPrefix(SyncWire.filesPath): route = "upload"
        case ("GET", let path) where path.hasPrefix(SyncWire.filesPath): route = "download"
        case (_, let path) where path.hasPrefix(SyncWire.filesPath):
            return Self.failure(405, .badRequest, "method not allowed", headers: ["allow": "GET, HEAD, PUT"])
        case (_, SyncWire.pushPath):
            return Self.failure(405, .badRequest, "method not allowed", headers: ["allow": "POST"])
        case (_, SyncWire.pullPath), (_, SyncWire.snapshotPath):
            return Self.failure(405, .badRequest, "method not allowed", headers: ["allow": "GET, HEAD"])
        default:
            return Self.failure(404, .badRequest, "no such route")
        }
        // Who is calling.
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer "),
            case let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), !token.isEmpty
        else {
            return Self.failure(
                401, .unauthorized, "a bearer token is required", headers: ["www-authenticate": "Bearer"])
        }
        let identity: SyncIdentity
        do {
            guard let found = try await authenticator.identity(forBearer: token) else {
                return Self.failure(
                    401, .unauthorized, "the bearer token is not accepted", headers: ["www-authenticate": "Bearer"])
            }
            identity = found
        } catch {
            return Self.failure(503, .serverError, "authentication is unavailable")
        }
        if let wait = rateLimiter?.take(identity.id) {
            let seconds = max(
                1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
            return Self.failure(429, .rateLimited, "too many requests", headers: ["retry-after": String(seconds)])
        }
        if request.body.count > limits.maximumBodyBytes {
            return Self.failure(413, .payloadTooLarge, "the body exceeds \(limits.maximumBodyBytes) bytes")
        }
        do {
            switch route {
            case "push":
                let push = try Self.decodePush(request.body)
                if push.mutations.count > limits.maximumMutationsPerPush {
                    return Self.failure(
                        413, .payloadTooLarge, "a push may carry at most \(limits.maximumMutationsPerPush) mutations")
                }
                let answer = try await server.push(push, as: identity)
                return Self.success(try SyncWire.encode(answer, version: push.version))
            case "pull":
                var pull = try SyncWire.pullRequest(request.query)
                pull.limit = min(max(1, pull.limit), limits.maximumPageSize)
                let answer = try await server.pull(pull, as: identity, maximumWait: limits.maximumWait, stop: stopping)
                return Self.success(try SyncWire.encode(answer, version: pull.version))
            case "upload", "download":
                return try await transferFile(request, upload: route == "upload", as: identity)
            default:
                var snapshot = try SyncWire.snapshotRequest(request.query)
                snapshot.limit = min(max(1, snapshot.limit), limits.maximumPageSize)
                let answer = try await server.snapshot(snapshot, as: identity)
                return Self.success(try SyncWire.encode(answer, version: snapshot.version))
            }
        } catch let error as StrataError {
            return Self.failure(for: error)
        } catch {
            return Self.failure(500, .serverError, "the server failed")
        }
    }

    /// A piece of a file, up (`PUT`, answered with a ``FileTransferState``) or down (`GET`,
    /// answered with the bytes).
    private func transferFile(
        _ request: SyncWire.Request, upload: Bool, as identity: SyncIdentity
    ) async throws -> SyncWire.Response {
        guard let file = SyncWire.file(path: request.path, query: request.query),
            let offset = SyncWire.fileOffset(request.query)
        else {
            throw StrataError(.invalidQuery, "a files route names a digest and takes size and offset")
        }
        if upload {
            let state = try await server.receive(
                Data(request.body), of: file, at: offset, as: identity, quota: limits.files)
            return Self.success(Array(try JSONEncoder().encode(state)))
        }
        let bytes = try await server.send(file, from: offset, as: identity)
        return SyncWire.Response(status: 200, headers: ["content-type": "application/octet-stream"], body: Array(bytes))
    }

    private static func decodePush(_ body: [UInt8]) throws -> PushRequest {
        do {
            let version = try SyncWire.bodyVersion(body) ?? 0
            try SyncWire.checkVersion("push", version)
            return try SyncWire.decodePushRequest(body, version: version)
        } catch let unreadable as SyncWire.Unreadable {
            throw StrataError(.invalidQuery, "push: \(unreadable)")
        }
    }

    private static func success(_ body: [UInt8]) -> SyncWire.Response {
        SyncWire.Response(status: 200, headers: ["content-type": "application/json"], body: body)
    }

    static func failure(for error: StrataError) -> SyncWire.Response {
        switch error.code {
        case .permissionDenied: failure(403, .forbidden, error.message)
        case .fileUnavailable: failure(404, .badRequest, error.message)
        case .validationFailed: failure(400, .badRequest, error.message)
        case .resetRequired: failure(410, .resetRequired, error.message)
        case .unsupportedStore, .incompatibleStore: failure(409, .incompatible, error.message)
        case .invalidQuery, .unknownEntity, .unknownProperty, .typeMismatch: failure(400, .badRequest, error.message)
        case .storeClosed, StrataError.Code("serverUnavailable"): failure(503, .serverError, "the store is unavailable")
        case .quotaExceeded: failure(413, .payloadTooLarge, error.message)
        case .diskFull: failure(507, .serverError, "the server has no room to store this now; retry later")
        // A backend's own words may name tables or statements: not for clients.
        default: failure(500, .serverError, "the server failed (\(error.code.rawValue))")
        }
    }

    /// A failure answer in the wire's shape (for a transport that refuses a request before the
    /// endpoint sees it, such as a body over the limit).
    public static func failure(
        _ status: Int, _ kind: SyncTransportError.Kind, _ message: String, headers: [String: String] = [:]
    ) -> SyncWire.Response {
        let body =
            (try? JSONEncoder().encode(SyncWire.Failure(error: kind.rawValue, message: message))).map(Array.init) ?? []
        return SyncWire.Response(
            status: status, headers: headers.merging(["content-type": "application/json"]) { a, _ in a }, body: body)
    }
}
