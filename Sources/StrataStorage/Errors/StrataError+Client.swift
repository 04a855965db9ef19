/// What a service may send to its client: a short text and an HTTP status that never carry the
/// diagnostic ``StrataError/message`` (which can name other records, file paths or backend details).
extension StrataError {
    /// A sentence safe to show a client: the kind of failure and the entity and property it
    /// concerns (names from the app's own schema), never another record's ID, a value, a path or a
    /// backend's message. The diagnostic `message` and `description` are for logs.
    ///
    /// ```swift
    /// } catch let error as StrataError {
    ///     return Response(status: .init(code: error.httpStatus), body: .init(string: error.clientMessage))
    /// }
    /// ```
    public var clientMessage: String {
        let subject = [entity, property].compactMap { $0 }.joined(separator: ".")
        let about = subject.isEmpty ? "" : " (\(subject))"
        switch code {
        case .notFound: return "not found\(about)"
        case .duplicateID: return "already exists\(about)"
        case .uniqueViolation: return "a value that must be unique is already taken\(about)"
        case .validationFailed:
            return "invalid value\(about)\(violation.map { ": \($0.clientMessage)" } ?? "")"
        case .missingValue: return "a value is required\(about)"
        case .typeMismatch, .relationshipCount: return "invalid value\(about)"
        case .invalidReference: return "refers to something that does not exist\(about)"
        case .deleteDenied: return "cannot be deleted while other records depend on it\(about)"
        case .mergeConflict: return "changed by someone else since it was read\(about)"
        case .versionMismatch: return "not at the version the request expected\(about)"
        case .invalidQuery, .unknownEntity, .unknownProperty: return "invalid request\(about)"
        case .permissionDenied: return "not allowed\(about)"
        case .resetRequired: return "the client must resynchronise"
        case .diskFull: return "the service has no room to store this now; retry later"
        case .quotaExceeded: return "over a quota\(about)"
        default: return "the service could not complete the request"
        }
    }

    /// The HTTP status a service usually answers with: 404 not found; 409 duplicates, unique
    /// violations, denied deletes and merge conflicts; 412 a version precondition (`If-Match`) that
    /// failed; 422 invalid values and references; 400 an
    /// invalid query; 403 permission; 410 a sync reset; 503 a closed, unreachable or in-use store;
    /// 413 a quota exceeded; 507 a full disk; 500 the rest.
    public var httpStatus: Int {
        switch code {
        case .notFound: 404
        case .duplicateID, .uniqueViolation, .deleteDenied, .mergeConflict: 409
        case .versionMismatch: 412
        case .validationFailed, .typeMismatch, .missingValue, .relationshipCount, .invalidReference: 422
        case .invalidQuery, .unknownEntity, .unknownProperty: 400
        case .permissionDenied: 403
        case .resetRequired: 410
        case .diskFull: 507
        case .quotaExceeded: 413
        // "serverUnavailable" is the PostgreSQL backend's code for an unreachable server.
        case .storeClosed, .storeInUse, Code("serverUnavailable"): 503
        default: 500
        }
    }
}
