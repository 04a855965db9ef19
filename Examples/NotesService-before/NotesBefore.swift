// The notes service as it had to be written against Strata at 0fda74f (before issue 20): the same
// routes and behaviour as Examples/NotesService, kept for the comparison in the closing
// note. It is not built with the package (it compiles against 0fda74f, not today's API).
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Strata

public struct Note: PersistentModel, Equatable {
    public var id: UUID
    public var owner: String
    public var title: String
    public var body: String
    public var pinned: Bool
    public var updated: Date

    public init(
        id: UUID = UUID(), owner: String, title: String, body: String = "", pinned: Bool = false, updated: Date = Date()
    ) {
        self.id = id
        self.owner = owner
        self.title = title
        self.body = body
        self.pinned = pinned
        self.updated = updated
    }

    public static let entity = Entity<Note>(
        "Note",
        [
            .attribute(\.owner, indexed: true),
            .attribute(\.title, rules: [.length(1...200)]),
            .attribute(\.body, rules: [.length(0...100_000)]),
            .attribute(\.pinned, default: false),
            .attribute(\.updated, indexed: true),
            .index(\.owner, \.updated),
        ])
}

/// No protocol to depend on: the app writes its own, and an adapter over the concrete types, so
/// that tests can hand the service a fake.
public protocol NoteStorage: Sendable {
    func fetch(_ id: UUID) async throws -> (note: Note, version: Int64)?
    func page(_ query: Query<Note>, after cursor: PageCursor?) async throws -> Page<Note>
    func fetchAll(_ query: Query<Note>) async throws -> [Note]
    func count(_ query: Query<Note>) async throws -> Int
    func insert(_ note: Note) async throws
    func update(_ note: Note, expectedVersion: Int64) async throws
    func delete(_ id: UUID) async throws
}

/// The adapter: versions only through untyped records, and the `If-Match` check by hand.
public struct StoreNoteStorage: NoteStorage {
    let store: Store
    public init(store: Store) { self.store = store }

    public func fetch(_ id: UUID) async throws -> (note: Note, version: Int64)? {
        try await store.read { reader in
            guard let record = try reader.record("Note", id: id.recordID) else { return nil }
            return (try Note(record: record), record.version)
        }
    }
    public func page(_ query: Query<Note>, after cursor: PageCursor?) async throws -> Page<Note> {
        try await store.repository(Note.self).fetch(query, after: cursor)
    }
    public func fetchAll(_ query: Query<Note>) async throws -> [Note] {
        try await store.repository(Note.self).fetch(query)
    }
    public func count(_ query: Query<Note>) async throws -> Int { try await store.repository(Note.self).count(query) }
    public func insert(_ note: Note) async throws { try await store.repository(Note.self).insert(note) }
    public func update(_ note: Note, expectedVersion: Int64) async throws {
        try await store.transaction { transaction in
            guard let stored = try transaction.record("Note", id: note.id.recordID) else {
                throw StrataError(.notFound, entity: "Note", "no such note")
            }
            guard stored.version == expectedVersion else {
                throw StrataError(.mergeConflict, entity: "Note", "the note changed since it was read")
            }
            try transaction.update(note)
        }
    }
    public func delete(_ id: UUID) async throws { try await store.repository(Note.self).delete(id) }
}

public struct Notes<Storage: NoteStorage>: Sendable {
    public let notes: Storage
    public init(notes: Storage) { self.notes = notes }

    public func page(of owner: String, after cursor: String?, limit: Int) async throws -> Page<Note> {
        let query = Query<Note>.where(\.owner == owner).sorted(by: \.updated, .descending).limit(
            min(max(limit, 1), 100))
        return try await notes.page(query, after: try cursor.map(PageCursor.init(token:)))
    }

    public func note(_ id: Note.ID, of owner: String) async throws -> (note: Note, version: Int64) {
        guard let found = try await notes.fetch(id), found.note.owner == owner else {
            throw StrataError(.notFound, entity: "Note", "no such note")
        }
        return found
    }

    public func create(for owner: String, title: String, body: String) async throws -> (note: Note, version: Int64) {
        let note = Note(owner: owner, title: title, body: body)
        try await notes.insert(note)
        return (note, 1)
    }

    public func edit(
        _ id: Note.ID, of owner: String, expectedVersion: Int64, title: String?, body: String?, pinned: Bool?
    ) async throws {
        var note = try await self.note(id, of: owner).note
        note.title = title ?? note.title
        note.body = body ?? note.body
        note.pinned = pinned ?? note.pinned
        note.updated = Date()
        try await notes.update(note, expectedVersion: expectedVersion)
    }

    public func delete(_ id: Note.ID, of owner: String) async throws {
        _ = try await note(id, of: owner)
        try await notes.delete(id)
    }

    /// No aggregates: every note is read to find the newest.
    public func stats(of owner: String) async throws -> Stats {
        let all = try await notes.fetchAll(Query<Note>.where(\.owner == owner))
        let pinned = try await notes.count(Query<Note>.where(\.owner == owner && \.pinned == true))
        return Stats(count: all.count, pinned: pinned, newest: all.map(\.updated).max())
    }

    public struct Stats: Codable, Sendable, Equatable, ResponseEncodable {
        public var count: Int
        public var pinned: Int
        public var newest: Date?
    }
}

public func notesRouter<Storage: NoteStorage>(_ notes: Notes<Storage>, logger: Logger) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: StrataErrors(logger: logger))
    router.get("/notes") { request, context in
        let page = try await notes.page(
            of: try user(request), after: request.uri.queryParameters["after"].map(String.init),
            limit: request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 20)
        return NotePage(notes: page.models.map(NoteBody.init), next: page.next?.description)
    }
    router.get("/notes/stats") { request, _ in try await notes.stats(of: try user(request)) }
    router.get("/notes/:id") { request, context in
        let found = try await notes.note(try id(context), of: try user(request))
        return EditedResponse(headers: [.eTag: "\"\(found.version)\""], response: NoteBody(found.note))
    }
    router.post("/notes") { request, context in
        let new = try await request.decode(as: NewNote.self, context: context)
        let created = try await notes.create(for: try user(request), title: new.title, body: new.body ?? "")
        return EditedResponse(
            status: .created, headers: [.eTag: "\"\(created.version)\""], response: NoteBody(created.note))
    }
    router.patch("/notes/:id") { request, context in
        guard let match = request.headers[.ifMatch],
            let version = Int64(match.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        else {
            throw HTTPError(.preconditionRequired, message: "send If-Match with the note's ETag")
        }
        let change = try await request.decode(as: NoteChange.self, context: context)
        try await notes.edit(
            try id(context), of: try user(request), expectedVersion: version, title: change.title, body: change.body,
            pinned: change.pinned)
        return HTTPResponse.Status.noContent
    }
    router.delete("/notes/:id") { request, context in
        try await notes.delete(try id(context), of: try user(request))
        return HTTPResponse.Status.noContent
    }
    return router
}

private func user(_ request: Request) throws -> String {
    guard let user = request.headers[HTTPField.Name("X-User")!], !user.isEmpty else { throw HTTPError(.unauthorized) }
    return user
}

private func id(_ context: BasicRequestContext) throws -> UUID {
    guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw HTTPError(.notFound) }
    return id
}

/// No status or client-safe message on the error: both by hand, and the description (which names
/// other records, values and paths) kept out of responses.
struct StrataErrors<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as StrataError {
            logger.warning("\(error)")
            let named = [error.entity, error.property].compactMap { $0 }.joined(separator: ".")
            let suffix = named.isEmpty ? "" : " (\(named))"
            switch error.code {
            case .notFound: throw HTTPError(.notFound, message: "not found\(suffix)")
            case .mergeConflict:
                throw HTTPError(.conflict, message: "changed by someone else since it was read\(suffix)")
            case .uniqueViolation, .duplicateID: throw HTTPError(.conflict, message: "already exists\(suffix)")
            case .deleteDenied: throw HTTPError(.conflict, message: "still referenced\(suffix)")
            case .validationFailed, .missingValue, .typeMismatch, .relationshipCount, .invalidReference:
                throw HTTPError(.unprocessableContent, message: "invalid value\(suffix)")
            case .invalidQuery, .unknownProperty, .unknownEntity:
                throw HTTPError(.badRequest, message: "bad request\(suffix)")
            case .permissionDenied: throw HTTPError(.forbidden, message: "not allowed\(suffix)")
            case .resetRequired: throw HTTPError(.gone, message: "reset required")
            case .storeClosed: throw HTTPError(.serviceUnavailable, message: "try again later")
            default: throw HTTPError(.internalServerError, message: "the service could not complete the request")
            }
        }
    }
}

public struct NoteBody: ResponseCodable, Equatable {
    public var id: UUID
    public var title: String
    public var body: String
    public var pinned: Bool
    public var updated: Date

    init(_ note: Note) {
        (id, title, body, pinned, updated) = (note.id, note.title, note.body, note.pinned, note.updated)
    }
}

public struct NotePage: ResponseCodable {
    public var notes: [NoteBody]
    public var next: String?
}

public struct NewNote: Codable, Sendable {
    public var title: String
    public var body: String?
}

public struct NoteChange: Codable, Sendable {
    public var title: String?
    public var body: String?
    public var pinned: Bool?
}
