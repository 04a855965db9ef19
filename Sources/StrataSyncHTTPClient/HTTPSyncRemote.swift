import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Strata
import StrataSync

/// A ``SyncRemote`` that talks to a Strata sync server over HTTP (AsyncHTTPClient).
///
/// ```swift
/// let remote = HTTPSyncRemote(baseURL: "https://sync.example.com", tokens: session)
/// let engine = try SyncEngine(store: store, remote: remote, options: .init(pullWait: .seconds(25)))
/// await engine.start()
/// ```
///
/// - Every call has a deadline (``timeout``; a long poll's wait is added to it), and answers are
///   read up to ``maximumResponseBytes``.
/// - The bearer token comes from `tokens`; after a 401 it is refreshed once and the call repeated.
/// - Failures arrive as ``SyncTransportError`` with a kind the engine acts on: no connection is
///   `offline`, a passed deadline `timeout`, 5xx `serverError`, 408/429 carry `Retry-After`,
///   401/403 `unauthorized`/`forbidden`, 410 `resetRequired`, 413 `payloadTooLarge`, 409
///   `incompatible`. Per-mutation rejections arrive only in a `PushResponse`.
public struct HTTPSyncRemote: SyncRemote, SyncTrafficCounting {
    /// The server's origin.
    public let baseURL: String
    /// How long a call may take (a long poll's wait is added).
    public let timeout: Duration
    /// Answers larger than this are refused.
    public let maximumResponseBytes: Int
    private let wire: SyncWireClient

    /// Bytes of the bodies sent and received so far (requests' targets included).
    public var traffic: (sent: Int, received: Int) { wire.traffic }
    private let client: HTTPClient

    /// - Parameters:
    ///   - baseURL: The server's origin, such as `http://127.0.0.1:8080` (the `/strata/v1/…`
    ///     paths are appended).
    ///   - client: The HTTP client (the process-wide shared one by default).
    public init(
        baseURL: String, tokens: any SyncTokenProvider, client: HTTPClient = .shared, timeout: Duration = .seconds(30),
        maximumResponseBytes: Int = 64 << 20
    ) {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.baseURL = base
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
        self.client = client
        self.wire = SyncWireClient(tokens: tokens) { request in
            try await Self.send(
                request, base: base, client: client, timeout: timeout, maximumResponseBytes: maximumResponseBytes)
        }
    }

    public func push(_ request: PushRequest) async throws -> PushResponse { try await wire.push(request) }
    public func pull(_ request: PullRequest) async throws -> PullResponse { try await wire.pull(request) }
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        try await wire.snapshot(request)
    }
    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        try await wire.upload(bytes, of: file, at: offset)
    }
    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        try await wire.download(file, from: offset)
    }

    /// Sends one request exactly as built — its method, path, query, headers (no token is
    /// added) and body — and returns the server's answer whatever its status: for checks and
    /// tools that look at the wire itself (the conformance suite's Transport checks).
    public func send(_ request: SyncWire.Request) async throws -> SyncWire.Response {
        try await Self.send(
            request, base: baseURL, client: client, timeout: timeout, maximumResponseBytes: maximumResponseBytes)
    }

    private static func send(
        _ request: SyncWire.Request, base: String, client: HTTPClient, timeout: Duration, maximumResponseBytes: Int
    ) async throws -> SyncWire.Response {
        var outgoing = HTTPClientRequest(url: base + request.target)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        // A long poll may take its whole wait before answering.
        var deadline = timeout
        if let wait = request.query["wait"].flatMap(Int.init) { deadline += .milliseconds(wait) }
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(nanoseconds))
            let body = try await response.body.collect(upTo: maximumResponseBytes)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return SyncWire.Response(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
        } catch let error as SyncTransportError {
            throw error
        } catch is NIOTooManyBytesError {
            throw SyncTransportError(.serverError, "the server's answer exceeds \(maximumResponseBytes) bytes")
        } catch let error as HTTPClientError
            where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
        {
            throw SyncTransportError(.timeout, "no answer from the sync server within \(deadline)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Refused, reset, unreachable, closed mid-answer: as far as sync goes, offline.
            throw SyncTransportError(.offline, "the sync server cannot be reached: \(type(of: error))")
        }
    }
}
