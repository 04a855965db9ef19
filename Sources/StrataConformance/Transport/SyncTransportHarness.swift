import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// How the Transport checks (and OfflineFirst, when a suite is given one) reach a sync server: a
/// harness serves a `SyncEndpoint` and makes remotes onto it. ``InProcessHarness`` calls the
/// endpoint directly through the wire format; the HTTP harness in `ConformanceTests` serves it
/// on 127.0.0.1 with Hummingbird and calls it with AsyncHTTPClient.
public protocol SyncTransportHarness: Sendable {
    var name: String { get }
    /// Starts serving `endpoint`.
    func host(_ endpoint: SyncEndpoint) async throws -> any SyncTransportHost
}

/// A served endpoint.
public protocol SyncTransportHost: Sendable {
    /// A remote for a client that authenticates with `tokens`.
    func remote(tokens: any SyncTokenProvider) -> any SyncRemote
    /// Replaces the next `count` push answers with a 502 after the endpoint handled them (the
    /// server applied the batch; the acknowledgement is lost on the way back).
    func loseAcknowledgements(_ count: Int)
    /// Sends one raw request (as built: no token added) and returns the answer whatever its
    /// status — how the checks prove that both transports answer malformed requests alike.
    func send(_ request: SyncWire.Request) async throws -> SyncWire.Response
    /// Stops serving: long polls end, later calls fail as offline.
    func shutdown() async
}

/// Counts down lost acknowledgements; shared by the harnesses.
public final class AcknowledgementLoss: Sendable {
    private let remaining = Mutex(0)
    /// A budget of none.
    public init() {}
    /// Allows `count` more.
    public func add(_ count: Int) { remaining.withLock { $0 += count } }
    /// Whether this answer is to be lost.
    public func take() -> Bool {
        remaining.withLock { count in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
    }
    /// The answer a proxy gives when the upstream connection dropped.
    public static let lostAnswer = SyncWire.Response(
        status: 502, headers: ["content-type": "application/json"],
        body: Array(#"{"error":"serverError","message":"the upstream connection was lost"}"#.utf8))
}

/// The Transport checks in process: the endpoint called through the wire format, no sockets.
public struct InProcessHarness: SyncTransportHarness {
    /// A switch that is off.
    public init() {}
    public var name: String { "in-process" }

    public func host(_ endpoint: SyncEndpoint) async throws -> any SyncTransportHost {
        Host(endpoint: endpoint)
    }

    private final class Host: SyncTransportHost {
        let endpoint: SyncEndpoint
        let loss = AcknowledgementLoss()
        let stopped = Mutex(false)

        init(endpoint: SyncEndpoint) { self.endpoint = endpoint }

        func remote(tokens: any SyncTokenProvider) -> any SyncRemote {
            let loss = loss
            let transport = EndpointTransport(endpoint: endpoint, tokens: tokens) { request, response in
                if request.path == SyncWire.pushPath, loss.take() { return AcknowledgementLoss.lostAnswer }
                return response
            }
            return StoppableRemote(inner: transport, stopped: { [self] in self.stopped.withLock { $0 } })
        }

        func loseAcknowledgements(_ count: Int) { loss.add(count) }

        func send(_ request: SyncWire.Request) async throws -> SyncWire.Response {
            await endpoint.handle(request)
        }

        func shutdown() async {
            stopped.withLock { $0 = true }
            endpoint.shutdown()
        }
    }

    /// Fails as a refused connection once the host stopped.
    private struct StoppableRemote: SyncRemote, SyncTrafficCounting {
        let inner: any SyncRemote
        let stopped: @Sendable () -> Bool
        var traffic: (sent: Int, received: Int) { (inner as? any SyncTrafficCounting)?.traffic ?? (0, 0) }

        func check() throws { if stopped() { throw SyncTransportError(.offline, "connection refused") } }
        func push(_ request: PushRequest) async throws -> PushResponse {
            try check()
            return try await inner.push(request)
        }
        func pull(_ request: PullRequest) async throws -> PullResponse {
            try check()
            return try await inner.pull(request)
        }
        func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
            try check()
            return try await inner.snapshot(request)
        }
        func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
            try check()
            return try await inner.upload(bytes, of: file, at: offset)
        }
        func download(_ file: FileReference, from offset: Int64) async throws -> Data {
            try check()
            return try await inner.download(file, from: offset)
        }
    }
}
