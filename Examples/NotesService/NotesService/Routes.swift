import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Strata

/// The HTTP face of ``Notes``: JSON in and out, ETags from record versions, `If-Match` on edits,
/// keyset pages, a live list as server-sent events, and Strata's errors as statuses with messages
/// safe for clients. The caller is named by `X-User` (a stand-in for the app's authentication).
///
/// The live list sends an SSE comment every `heartbeat` while nothing changes: a client that went
/// away without closing (a dropped phone, a killed tab) makes that write fail, which ends its
/// stream and releases its observation — without it, a list that never changes would keep both
/// until the server stops. Proxies also keep a connection that carries bytes.
public func notesRouter<Work: UnitOfWork>(
    _ notes: Notes<Work>, live store: Store, heartbeat: Duration = .seconds(15)
) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: StrataErrors())
    router.get("/notes") { request, context in
        let page = try await notes.page(
            of: try user(request), after: request.uri.queryParameters["after"].map(String.init),
            limit: request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 20)
        return NotePage(notes: page.models.map(NoteBody.init), next: page.next?.description)
    }
    router.get("/notes/stats") { request, _ in try await notes.stats(of: try user(request)) }
    router.get("/notes/live") { request, _ in try liveNotes(of: try user(request), in: store, heartbeat: heartbeat) }
    router.get("/notes/:id") { request, context in
        let found = try await notes.note(try id(context), of: try user(request))
        return EditedResponse(headers: [.eTag: "\"\(found.version)\""], response: NoteBody(found.model))
    }
    router.get("/notes/:id/tags") { request, context in
        try await notes.tags(of: try id(context), of: try user(request)).map(\.label)
    }
    router.post("/notes") { request, context in
        let new = try await request.decode(as: NewNote.self, context: context)
        let created = try await notes.create(
            for: try user(request), title: new.title, body: new.body ?? "", tags: new.tags ?? [])
        return EditedResponse(
            status: .created, headers: [.eTag: "\"\(created.version)\""], response: NoteBody(created.model))
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

/// The owner's notes, newest first, as server-sent events: one `data:` line of titles per change,
/// and a `: heartbeat` comment every `heartbeat` in between. The stream ends when the client goes
/// away (at the latest at the next heartbeat) or the server shuts down gracefully (the observation
/// ends by itself then), never holding the shutdown up.
private func liveNotes(of owner: String, in store: Store, heartbeat: Duration) throws -> Response {
    let query = Query<Note>.where(\.owner == owner).sorted(by: \.updated, .descending).limit(20)
    let body = ResponseBody { writer in
        // One writer, two sources: the results and the heartbeat, merged into one stream of events.
        let (events, sink) = AsyncStream<String>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { sink.finish() }
                for try await results in store.observe(query) {
                    let titles = try JSONEncoder().encode(results.models.map(\.title))
                    sink.yield("data: \(String(decoding: titles, as: UTF8.self))\n\n")
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: heartbeat)
                    sink.yield(": heartbeat\n\n")
                }
            }
            for await event in events { try await writer.write(ByteBuffer(string: event)) }
            group.cancelAll()
        }
        try await writer.finish(nil)
    }
    return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
}

private func user(_ request: Request) throws -> String {
    guard let user = request.headers[HTTPField.Name("X-User")!], !user.isEmpty else { throw HTTPError(.unauthorized) }
    return user
}

private func id(_ context: BasicRequestContext) throws -> UUID {
    guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw HTTPError(.notFound) }
    return id
}

/// Strata's errors as statuses: the client gets ``StrataError/clientMessage``, the log the rest.
struct StrataErrors<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as StrataError {
            context.logger.warning("\(error)")
            throw HTTPError(.init(code: error.httpStatus), message: error.clientMessage)
        }
    }
}

/// A note as the API shows it.
public struct NoteBody: ResponseCodable, Equatable {
    /// The ID.
    public var id: UUID
    /// The title.
    public var title: String
    /// The text.
    public var body: String
    /// Whether pinned.
    public var pinned: Bool
    /// When it was created.
    public var created: Date
    /// When it last changed.
    public var updated: Date

    init(_ note: Note) {
        (id, title, body, pinned) = (note.id, note.title, note.body, note.pinned)
        (created, updated) = (note.created, note.updated)
    }
}

/// A page of notes and the cursor of the next.
public struct NotePage: ResponseCodable {
    /// The notes, newest first.
    public var notes: [NoteBody]
    /// Pass as `after` for the next page; absent on the last.
    public var next: String?
}

/// A new note's fields.
public struct NewNote: Codable, Sendable {
    /// The title.
    public var title: String
    /// The text.
    public var body: String?
    /// Tags, created on first use.
    public var tags: [String]?

    /// A new note's fields.
    public init(title: String, body: String? = nil, tags: [String]? = nil) {
        (self.title, self.body, self.tags) = (title, body, tags)
    }
}

/// An edit: the fields present change.
public struct NoteChange: Codable, Sendable {
    /// A new title.
    public var title: String?
    /// A new text.
    public var body: String?
    /// Pinned or not.
    public var pinned: Bool?

    /// An edit of the fields given.
    public init(title: String? = nil, body: String? = nil, pinned: Bool? = nil) {
        self.title = title
        self.body = body
        self.pinned = pinned
    }
}

extension Notes.Stats: ResponseEncodable {}
