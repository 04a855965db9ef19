import Foundation
import Strata

/// The HTTP shape of sync, independent of any HTTP library: the requests a client sends and the
/// responses a `SyncEndpoint` (`StrataSyncServer`) gives, as methods, paths, query items, headers
/// and bytes. The server routes (`StrataSyncHTTPServer`) and the client remote
/// (`StrataSyncHTTPClient`) only move these over the network, so the in-process
/// `EndpointTransport` exercises the same code.
///
/// - `POST /strata/v1/push` — body: a ``PushRequest``; answer: a ``PushResponse``.
/// - `GET /strata/v1/pull?v=&client=&cursor=&epoch=&limit=&wait=&schema=` — answer: a ``PullResponse``.
/// - `GET /strata/v1/snapshot?v=&client=&entity=&after=&limit=&schema=` — answer: a ``SnapshotResponse``.
/// - Failures: a status and `{"error": kind, "message": sentence}` (``SyncTransportError/Kind``
///   raw values); 429 and 408 carry `Retry-After` in seconds.
///
/// Bodies are in the format the request names (`v`, or the push's `version`): format 2, compact
/// JSON with plain values and a type map per message, or format 1, the messages' `Codable` JSON
/// (``supportedVersions``). `StrataSyncServer`'s "Sync over HTTP" article documents both, and the
/// repository's `openapi/strata-sync.json` describes every route for other languages.
public enum SyncWire {
    /// The push route.
    public static let pushPath = "/strata/v1/push"
    /// The pull route.
    public static let pullPath = "/strata/v1/pull"
    /// The snapshot route.
    public static let snapshotPath = "/strata/v1/snapshot"

    /// A request as the wire carries it. Header names are lowercase.
    public struct Request: Sendable {
        /// `GET` or `POST`.
        public var method: String
        /// The route.
        public var path: String
        /// Query parameters.
        public var query: [String: String]
        /// Headers, lowercased names.
        public var headers: [String: String]
        /// The body.
        public var body: [UInt8]

        /// A request.
        public init(
            method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
            body: [UInt8] = []
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }

        /// The path with its query, percent-encoded.
        public var target: String {
            guard !query.isEmpty else { return path }
            var components = URLComponents()
            components.path = path
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            // `+` means a space to many servers: encode it too.
            let encoded = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            return path + "?" + encoded
        }
    }

    /// A response as the wire carries it. Header names are lowercase.
    public struct Response: Sendable {
        /// The HTTP status.
        public var status: Int
        /// Headers, lowercased names.
        public var headers: [String: String]
        /// The body.
        public var body: [UInt8]

        /// A response.
        public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// The body of every failure.
    public struct Failure: Codable, Sendable {
        /// The failure's kind (a ``SyncTransportError`` kind).
        public var error: String
        /// A sentence safe to show the client.
        public var message: String

        package init(error: String, message: String) {
            self.error = error
            self.message = message
        }
    }

    static func encodeID(_ id: RecordID) -> String {
        switch id {
        case .uuid(let value): "u:" + WireUUID.text(value)
        case .string(let value): "s:" + value
        case .int(let value): "i:" + String(value)
        }
    }

    static func decodeID(_ text: String) -> RecordID? {
        let body = String(text.dropFirst(2))
        switch text.prefix(2) {
        case "u:": return WireUUID.parse(body).map(RecordID.uuid)
        case "s:": return .string(body)
        case "i:": return Int64(body).map(RecordID.int)
        default: return nil
        }
    }

    /// The query items of a request target (`/path?a=1&b=2`), percent-decoded; the last of a
    /// repeated name wins.
    public static func parseQuery(_ target: String) -> [String: String] {
        guard let components = URLComponents(string: target) else { return [:] }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return query
    }

    // MARK: Requests as query items (shared by both ends so they cannot drift)

    static func query(_ request: PullRequest) -> [String: String] {
        var query = ["v": String(request.version), "client": request.clientID, "limit": String(request.limit)]
        if let cursor = request.cursor {
            query["cursor"] = String(cursor.value)
            if let epoch = cursor.epoch { query["epoch"] = epoch }
        }
        if let wait = request.waitMillis { query["wait"] = String(wait) }
        if let schema = request.schemaVersion { query["schema"] = schema }
        if let subscriptions = request.subscriptions { query["subscriptions"] = encode(subscriptions) }
        if let tokens = request.snapshotsAt, !tokens.isEmpty {
            query["snapshots"] = tokens.map(String.init).joined(separator: ",")
        }
        return query
    }

    package static func pullRequest(_ query: [String: String]) throws -> PullRequest {
        let version = try integer(query, "v") ?? 0
        try checkVersion("pull", version)
        guard let client = query["client"], !client.isEmpty else {
            throw StrataError(.invalidQuery, "pull: `client` is required")
        }
        // A cursor is a history token the server handed out: 0 (before everything) or more. A
        // negative one, like a negative limit or wait, is malformed — never "from the start".
        let cursor = try integer(query, "cursor", atLeast: 0).map { SyncCursor(Int64($0), epoch: query["epoch"]) }
        var request = PullRequest(
            clientID: client, cursor: cursor, limit: try integer(query, "limit", atLeast: 0) ?? 1_000,
            schemaVersion: query["schema"],
            waitMillis: try integer(query, "wait", atLeast: 0), subscriptions: try subscriptions(query, "pull"))
        request.version = version
        request.snapshotsAt = try snapshotTokens(query)
        return request
    }

    /// `snapshots`: comma-separated history tokens, none negative, at most
    /// ``PullRequest/maximumSnapshotsAt``.
    private static func snapshotTokens(_ query: [String: String]) throws -> [Int64]? {
        guard let text = query["snapshots"] else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= PullRequest.maximumSnapshotsAt else {
            throw StrataError(.invalidQuery, "pull: at most \(PullRequest.maximumSnapshotsAt) `snapshots` may be given")
        }
        return try parts.map { part in
            guard let token = Int64(part), token >= 0 else {
                throw StrataError(.invalidQuery, "pull: `snapshots` is not a list of history tokens")
            }
            return token
        }
    }

    static func query(_ request: SnapshotRequest) -> [String: String] {
        var query = ["v": String(request.version), "client": request.clientID, "limit": String(request.limit)]
        if let position = request.position {
            query["entity"] = position.entity
            if let after = position.after { query["after"] = encodeID(after) }
        }
        if let schema = request.schemaVersion { query["schema"] = schema }
        if let subscriptions = request.subscriptions { query["subscriptions"] = encode(subscriptions) }
        return query
    }

    package static func snapshotRequest(_ query: [String: String]) throws -> SnapshotRequest {
        let version = try integer(query, "v") ?? 0
        try checkVersion("snapshot", version)
        guard let client = query["client"], !client.isEmpty else {
            throw StrataError(.invalidQuery, "snapshot: `client` is required")
        }
        var position: SnapshotPosition?
        if let entity = query["entity"] {
            var after: RecordID?
            if let text = query["after"] {
                guard let id = decodeID(text) else {
                    throw StrataError(.invalidQuery, "snapshot: `after` is not a record ID")
                }
                after = id
            }
            position = SnapshotPosition(entity: entity, after: after)
        }
        var request = SnapshotRequest(
            clientID: client, position: position, limit: try integer(query, "limit", atLeast: 0) ?? 1_000,
            schemaVersion: query["schema"], subscriptions: try subscriptions(query, "snapshot"))
        request.version = version
        return request
    }

    /// Subscriptions as a query item: their JSON array, as the server sees them (no time to live).
    private static func encode(_ subscriptions: [SyncSubscription]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(subscriptions.map(\.served))) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func subscriptions(_ query: [String: String], _ message: String) throws -> [SyncSubscription]? {
        guard let text = query["subscriptions"] else { return nil }
        guard let list = try? JSONDecoder().decode([SyncSubscription].self, from: Data(text.utf8)) else {
            throw StrataError(.invalidQuery, "\(message): `subscriptions` is not a JSON array of subscriptions")
        }
        guard list.count <= SubscriptionCoverage.maximumCount else {
            throw StrataError(
                .invalidQuery, "\(message): at most \(SubscriptionCoverage.maximumCount) subscriptions may be given")
        }
        return list
    }

    private static func integer(_ query: [String: String], _ name: String, atLeast minimum: Int? = nil) throws -> Int? {
        guard let text = query[name] else { return nil }
        guard let value = Int(text) else { throw StrataError(.invalidQuery, "`\(name)` is not an integer") }
        if let minimum, value < minimum {
            throw StrataError(
                .invalidQuery,
                "`\(name)` may not be less than "
                    + "\(minimum)")
        }
        return value
    }

    package static func versionError(_ message: String, _ version: Int) -> StrataError {
        StrataError(
            .unsupportedStore,
            "\(message) format version \(version) is not supported (this server speaks "
                + supportedVersions.map(String.init).joined(separator: " and ") + ")")
    }

    /// Refuses a message of a format this build does not speak.
    package static func checkVersion(_ message: String, _ version: Int) throws {
        guard supportedVersions.contains(version) else { throw versionError(message, version) }
    }
}
