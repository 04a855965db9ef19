import Foundation
import Strata
import Synchronization

/// The client side of ``SyncWire``, independent of any HTTP library: builds requests, attaches the
/// bearer token (refreshing it once after a 401), and classifies answers into messages or
/// ``SyncTransportError``s. A transport supplies only `send`, which moves a request and its answer
/// (and throws a ``SyncTransportError`` of kind offline or timeout when it cannot).
public struct SyncWireClient: SyncTrafficCounting {
    /// Sends one request and returns the answer (an HTTP client, or an endpoint in process).
    public typealias Send = @Sendable (SyncWire.Request) async throws -> SyncWire.Response

    /// Where bearer tokens come from.
    public let tokens: any SyncTokenProvider
    private let send: Send
    private let formats: FormatMemory
    private let counted = TrafficCounter()

    /// A client that authenticates with `tokens` and sends with `send`.
    public init(tokens: any SyncTokenProvider, send: @escaping Send) {
        self.init(tokens: tokens, formatRetryInterval: .seconds(300), send: send)
    }

    /// A client that authenticates with `tokens`, sends with `send`, and after falling back to
    /// format 1 for a server that refused format 2 tries format 2 again once
    /// `formatRetryInterval` has passed (a rolling deploy replaces the old server in the meantime).
    public init(tokens: any SyncTokenProvider, formatRetryInterval: Duration, send: @escaping Send) {
        self.tokens = tokens
        self.send = send
        self.formats = FormatMemory(retryInterval: formatRetryInterval)
    }

    /// Bytes of the bodies this client (and its copies) sent and received, queries included.
    public var traffic: (sent: Int, received: Int) { counted.totals }

    /// Whether a server refused format 2 and this client speaks format 1 to it for now (until
    /// the retry interval has passed).
    public var fellBackToFormat1: Bool { formats.onlyFormat1 }

    /// Pushes mutations, in the request's format (format 2 unless the server speaks only 1).
    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await negotiated(request.version) { version in
            var request = request
            request.version = version
            let body = try SyncWire.encode(request)
            let wire = SyncWire.Request(
                method: "POST", path: SyncWire.pushPath, headers: ["content-type": "application/json"], body: body)
            return try await exchange(wire) { try SyncWire.decodePushResponse($0, version: version) }
        }
    }

    /// Pulls changes.
    public func pull(_ request: PullRequest) async throws -> PullResponse {
        try await negotiated(request.version) { version in
            var request = request
            request.version = version
            let wire = SyncWire.Request(method: "GET", path: SyncWire.pullPath, query: SyncWire.query(request))
            return try await exchange(wire) { try SyncWire.decodePullResponse($0, version: version) }
        }
    }

    /// Reads a page of a snapshot.
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        try await negotiated(request.version) { version in
            var request = request
            request.version = version
            let wire = SyncWire.Request(method: "GET", path: SyncWire.snapshotPath, query: SyncWire.query(request))
            return try await exchange(wire) { try SyncWire.decodeSnapshotResponse($0, version: version) }
        }
    }

    /// Sends in format 2 unless the server refused it lately; a 409 that refuses format 2 (what a
    /// server built before it answers: "… format version 2 is not supported …") is retried once
    /// in format 1, and when that succeeds this client speaks format 1 to the server until the
    /// retry interval has passed, then tries format 2 again. Any other 409 (a schema version, a
    /// proxy) is the caller's error and changes nothing. Other versions are sent as asked.
    private func negotiated<T>(_ requested: Int, _ call: (Int) async throws -> T) async throws -> T {
        guard requested == 2 else { return try await call(requested) }
        guard !formats.onlyFormat1 else { return try await call(1) }
        do {
            return try await call(2)
        } catch let error as SyncTransportError where Self.refusesFormat2(error) {
            let answer = try await call(1)
            formats.fellBack()
            return answer
        }
    }

    /// Whether a failure is a server's refusal of format 2 itself.
    static func refusesFormat2(_ error: SyncTransportError) -> Bool {
        error.kind == .incompatible && error.reason.contains("format version 2 is not supported")
    }

    func exchange<T>(_ request: SyncWire.Request, decode: ([UInt8]) throws -> T) async throws -> T {
        var request = request
        request.headers["authorization"] = "Bearer " + (try await tokens.token())
        var response = try await send(request)
        if response.status == 401 {
            // One refresh: the token may have expired since it was read.
            guard let fresh = try await tokens.refresh() else { throw Self.classify(response) }
            request.headers["authorization"] = "Bearer " + fresh
            response = try await send(request)
        }
        counted.add(sent: request.body.count + request.target.utf8.count, received: response.body.count)
        guard response.status == 200 else { throw Self.classify(response) }
        do {
            return try decode(response.body)
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

/// What a client learned of its server's formats, shared by the copies of one ``SyncWireClient``:
/// until when it speaks format 1 (never for good).
private final class FormatMemory: Sendable {
    private let until = Mutex<ContinuousClock.Instant?>(nil)
    let retryInterval: Duration
    init(retryInterval: Duration) { self.retryInterval = retryInterval }
    var onlyFormat1: Bool { until.withLock { $0.map { ContinuousClock.now < $0 } ?? false } }
    func fellBack() { until.withLock { $0 = ContinuousClock.now + retryInterval } }
}

/// The bytes a ``SyncWireClient`` and its copies moved.
private final class TrafficCounter: Sendable {
    private let state = Mutex((sent: 0, received: 0))
    var totals: (sent: Int, received: Int) { state.withLock { $0 } }
    func add(sent: Int, received: Int) {
        state.withLock {
            $0.sent += sent
            $0.received += received
        }
    }
}
