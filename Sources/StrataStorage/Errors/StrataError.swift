/// The one error type Strata throws: an open-ended ``Code`` plus the entity, record and property
/// it concerns, a message, and the underlying cause when there is one.
///
/// Every bad input — a wrong type, a missing value, an unknown entity or property, a reference to a
/// record that does not exist, a uniqueness clash, a failed validation rule, a denied delete, an
/// unreadable store — surfaces as a `StrataError`, and the store is left exactly as it was.
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. Open-ended so backends and later features can add codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code as text, stable across versions.
        public let rawValue: String
        /// A code; backends and features may define their own.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The schema is inconsistent (duplicate names, a broken inverse, an unknown attribute in a constraint).
        public static let invalidSchema = Code("invalidSchema")
        /// The entity is not in the store's schema.
        public static let unknownEntity = Code("unknownEntity")
        /// The property is not declared on the entity.
        public static let unknownProperty = Code("unknownProperty")
        /// A value has the wrong type for its attribute, or a record has the wrong ID kind.
        public static let typeMismatch = Code("typeMismatch")
        /// A required attribute or relationship has no value.
        public static let missingValue = Code("missingValue")
        /// A validation rule (range, length, pattern, custom, allowed enum values) failed.
        public static let validationFailed = Code("validationFailed")
        /// A to-many relationship has fewer or more destinations than its declared bounds.
        public static let relationshipCount = Code("relationshipCount")
        /// A reference names a record that does not exist.
        public static let invalidReference = Code("invalidReference")
        /// A unique constraint would be violated.
        public static let uniqueViolation = Code("uniqueViolation")
        /// An insert used an ID that already exists (use an explicit upsert to replace).
        public static let duplicateID = Code("duplicateID")
        /// An update or explicit lookup named a record that does not exist.
        public static let notFound = Code("notFound")
        /// A `deny` delete rule refused the delete.
        public static let deleteDenied = Code("deleteDenied")
        /// An app's save hook (`SaveHooks`) refused the save; the message names the hook, and
        /// `underlying` holds what it threw.
        public static let refusedByHook = Code("refusedByHook")
        /// A query is malformed for the schema (wrong relationship kind, unknown property).
        public static let invalidQuery = Code("invalidQuery")
        /// No backend is registered for the URL's scheme, or the URL is malformed.
        public static let unsupportedStore = Code("unsupportedStore")
        /// The store was closed.
        public static let storeClosed = Code("storeClosed")
        /// The file is not a store of this kind.
        public static let notAStore = Code("notAStore")
        /// The store's data is truncated or corrupt.
        public static let corruptStore = Code("corruptStore")
        /// The store was written with another (or newer) schema or format.
        public static let incompatibleStore = Code("incompatibleStore")
        /// The backend failed to read or write.
        public static let storageFailure = Code("storageFailure")
        /// The disk (or quota) holding the store has no room for a write: the write that hit the
        /// limit was not made, the store is as it was before it, and the same write succeeds once
        /// space is freed. HTTP 507 Insufficient Storage.
        public static let diskFull = Code("diskFull")
        /// Another process (or machine) has the store open, and what was asked would change the
        /// store under it (an in-place migration, a shadow copy's install): close it there first.
        public static let storeInUse = Code("storeInUse")
        /// A save conflicts with changes made since the data was read.
        public static let mergeConflict = Code("mergeConflict")
        /// A write conditioned on a version (`update(_:expectedVersion:)`, HTTP's `If-Match`) found
        /// the record at another version: HTTP 412 Precondition Failed.
        public static let versionMismatch = Code("versionMismatch")
        /// A schema change no lightweight step covers: the migration plan needs a custom stage.
        public static let migrationRequired = Code("migrationRequired")
        /// The caller's identity may not read or write this (a sync scope, a server-owned property,
        /// another identity's client ID).
        public static let permissionDenied = Code("permissionDenied")
        /// A sync client's cursor is older than the server's history or schema epoch: it must
        /// reset from a snapshot.
        public static let resetRequired = Code("resetRequired")
        /// A file's bytes are not in this store: never written here, not downloaded yet, or freed
        /// when the last record referring to them went.
        public static let fileUnavailable = Code("fileUnavailable")
        /// A caller is over a quota the service keeps for it (a sync server's bytes of files per
        /// identity): nothing of the request was stored; the message names the limit. HTTP 413.
        public static let quotaExceeded = Code("quotaExceeded")
    }

    /// What went wrong.
    public var code: Code
    /// The entity concerned, when there is one.
    public var entity: String?
    /// The record concerned, when there is one.
    public var recordID: RecordID?
    /// The property concerned (attribute, relationship, or `a,b` for a compound unique constraint).
    public var property: String?
    /// A sentence for people.
    public var message: String
    /// For ``Code/deleteDenied`` and ``Code/relationshipCount``: how many destinations were involved.
    public var count: Int?
    /// The error that caused this one (a decoding error, an I/O error, a backend error).
    public var underlying: (any Error & Sendable)?
    /// For ``Code/mergeConflict``: every conflict the save found, with both snapshots.
    public var conflicts: [MergeConflict] = []
    /// For ``Code/validationFailed``: the rule the value broke, structured (``clientMessage`` says it).
    public var violation: RuleViolation? {
        get { violations.first }
        set { violations = newValue.map { [$0] } ?? [] }
    }
    /// Out of line, so the error stays as small as it was: `Testing` captures a backtrace for
    /// every error thrown in a test, and a larger inline error crashed its unwinder here.
    private var violations: [RuleViolation] = []

    /// An error with its code, location and message.
    public init(
        _ code: Code, entity: String? = nil, recordID: RecordID? = nil, property: String? = nil,
        count: Int? = nil, underlying: (any Error & Sendable)? = nil, _ message: String
    ) {
        self.code = code
        self.entity = entity
        self.recordID = recordID
        self.property = property
        self.count = count
        self.underlying = underlying
        self.message = message
    }

    public var description: String {
        var location = entity ?? ""
        if let recordID { location += "(\(recordID))" }
        if let property { location += location.isEmpty ? property : ".\(property)" }
        var text = "[\(code)]"
        if !location.isEmpty { text += " \(location):" }
        text += " \(message)"
        if let underlying { text += " (cause: \(underlying))" }
        return text
    }
}
