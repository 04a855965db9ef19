import Strata
/// Why a remote call failed in transport or was refused as a whole by the server (as opposed to a
/// per-mutation answer, which arrives in a ``PushResponse``).
///
/// The `kind` tells a ``SyncEngine`` what to do: retry with backoff (``Kind/offline``,
/// ``Kind/timeout``, ``Kind/serverError``), wait as told without spending the retry budget
/// (``Kind/rateLimited``, ``Kind/requestTimeout`` with `retryAfter`), split the batch
/// (``Kind/payloadTooLarge``), stop and surface an authentication state while keeping the outbox
/// (``Kind/unauthorized``, ``Kind/forbidden``), reset from a snapshot (``Kind/resetRequired``), or
/// stop until the app is updated or migrated (``Kind/incompatible``).
public struct SyncTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of a failure.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No connection (refused, reset, DNS, no network).
        case offline
        /// No answer before the deadline.
        case timeout
        /// The server failed (5xx) or answered with something that is not a sync message.
        case serverError
        /// The server timed the request out (408).
        case requestTimeout
        /// Too many requests (429): wait ``SyncTransportError/retryAfter``.
        case rateLimited
        /// The credentials are missing, expired or wrong (401), also after one token refresh.
        case unauthorized
        /// The identity may not do this (403), such as reusing another identity's client ID.
        case forbidden
        /// The request body is larger than the server accepts (413).
        case payloadTooLarge
        /// The request is malformed or outside the server's limits (400).
        case badRequest
        /// The client's cursor is older than the server's history or its schema epoch (410):
        /// the client must reset from a snapshot.
        case resetRequired
        /// A message version or schema version the server does not speak (or the reverse).
        case incompatible
    }

    /// The class of the failure.
    public var kind: Kind
    /// A sentence for logs and people; never a token or a body.
    public var reason: String
    /// For ``Kind/rateLimited`` and ``Kind/requestTimeout``: how long the server asked to wait.
    public var retryAfter: Duration?
    /// The HTTP status, when there was one.
    public var status: Int?

    /// A failure of a kind.
    public init(_ kind: Kind, _ reason: String, retryAfter: Duration? = nil, status: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.retryAfter = retryAfter
        self.status = status
    }

    /// A connection failure (``Kind/offline``).
    public init(_ reason: String) { self.init(.offline, reason) }

    public var description: String { status.map { "\(reason) (HTTP \($0))" } ?? reason }

    /// Whether a later attempt may succeed without anything changing on the client.
    public var isTransient: Bool {
        switch kind {
        case .offline, .timeout, .serverError, .requestTimeout, .rateLimited: true
        case .unauthorized, .forbidden, .payloadTooLarge, .badRequest, .resetRequired, .incompatible: false
        }
    }
}

extension SyncTransportError: LoggedErrorKind {
    package var loggedKind: String { "\(kind)" }
}
