/// A ``StrataError`` as RFC 9457 problem details (`application/problem+json`): the body a service
/// sends its client, carrying only what ``StrataError/clientMessage`` may say — the kind of
/// failure, the entity and property names of the app's own schema, and the broken rules —
/// never a record's ID, a value, a path or a backend's message.
///
/// ```json
/// {"type": "urn:strata:error:validationFailed", "title": "Unprocessable Content", "status": 422,
///  "detail": "invalid value (Project.slug): must be at most 80 characters",
///  "code": "validationFailed", "entity": "Project", "property": "slug",
///  "violations": [{"rule": "tooLong", "maximum": 80, "unit": "characters",
///                  "message": "must be at most 80 characters"}]}
/// ```
public struct ProblemDetails: Encodable, Sendable, Hashable {
    /// The media type of the body: `application/problem+json`.
    public static let mediaType = "application/problem+json"

    /// `urn:strata:error:` and the error's code: what a client tells failures apart by.
    public var type: String
    /// The HTTP status's reason phrase: the same for every occurrence of a status.
    public var title: String
    /// The HTTP status (``StrataError/httpStatus``).
    public var status: Int
    /// ``StrataError/clientMessage``.
    public var detail: String
    /// The error's code (``StrataError/Code``), as in `type`.
    public var code: String
    /// The entity concerned, when there is one.
    public var entity: String?
    /// The property concerned, when there is one.
    public var property: String?
    /// The rules a value broke (``StrataError/violation``), for `validationFailed`.
    public var violations: [RuleViolation]?

    /// The problem details of `error`.
    public init(_ error: StrataError) {
        code = error.code.rawValue
        type = "urn:strata:error:" + code
        status = error.httpStatus
        title = Self.reasonPhrase(status)
        detail = error.clientMessage
        entity = error.entity
        property = error.property
        violations = error.violation.map { [$0] }
    }

    /// The reason phrase of the statuses ``StrataError/httpStatus`` answers.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 503: "Service Unavailable"
        case 507: "Insufficient Storage"
        default: "Internal Server Error"
        }
    }
}

extension StrataError {
    /// This error as RFC 9457 problem details, the body to send a client
    /// (``ProblemDetails/mediaType``).
    public var problemDetails: ProblemDetails { ProblemDetails(self) }
}
