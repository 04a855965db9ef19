import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotesService
import Strata
import StrataInMemory
import StrataSQLite
import Testing

/// The notes service over HTTP on a real store (SQLite, in a temporary file), and its service
/// layer on a test double — the same code.
@Suite struct NotesServiceTests {
    static func json<T: Encodable>(_ value: T) throws -> ByteBuffer {
        ByteBuffer(bytes: Array(try JSONEncoder().encode(value)))
    }
    /// Hummingbird writes dates in ISO 8601.
    static func decode<T: Decodable>(_ type: T.Type, _ body: ByteBuffer) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(body.readableBytesView))
    }

    @Test func theHTTPAPIDoesWhatTheServiceSays() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-notes-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = Store(
            backend: try await SQLiteBackend.open(path: path, schema: try Schema(Note.self)),
            location: try StoreLocation("sqlite:\(path)"))
        let app = Application(router: notesRouter(Notes(notes: store.repository(Note.self))))
        try await app.test(.router) { client in
            let ana: HTTPFields = [HTTPField.Name("X-User")!: "ana"]
            var ids: [UUID] = []
            for index in 0..<5 {
                let created = try await client.execute(
                    uri: "/notes", method: .post, headers: ana,
                    body: try Self.json(NewNote(title: "Note \(index)", body: "text")))
                #expect(created.status == .created)
                #expect(created.headers[.eTag] == "\"1\"")
                ids.append(try Self.decode(NoteBody.self, created.body).id)
            }
            let bad = try await client.execute(
                uri: "/notes", method: .post, headers: ana, body: try Self.json(NewNote(title: "")))
            #expect(bad.status == .unprocessableContent, "an empty title breaks the length rule")
            #expect(String(buffer: bad.body).contains("Note.title"), "\(String(buffer: bad.body))")

            // Pages of two, newest first, by keyset cursor.
            var seen: [UUID] = []
            var uri = "/notes?limit=2"
            while true {
                let page = try Self.decode(
                    NotePage.self, try await client.execute(uri: uri, method: .get, headers: ana).body)
                seen += page.notes.map(\.id)
                guard let next = page.next else { break }
                uri =
                    "/notes?limit=2&after=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next)"
            }
            #expect(seen == ids.reversed())

            // If-Match: the current ETag edits, a stale one is 412, none is 428.
            let target = ids[0]
            let read = try await client.execute(uri: "/notes/\(target)", method: .get, headers: ana)
            let etag = try #require(read.headers[.eTag])
            var matching = ana
            matching[.ifMatch] = etag
            #expect(
                try await client.execute(
                    uri: "/notes/\(target)", method: .patch, headers: matching,
                    body: try Self.json(NoteChange(pinned: true))
                ).status == .noContent)
            #expect(
                try await client.execute(
                    uri: "/notes/\(target)", method: .patch, headers: matching,
                    body: try Self.json(NoteChange(title: "x"))
                ).status == .preconditionFailed)
            #expect(
                try await client.execute(
                    uri: "/notes/\(target)", method: .patch, headers: ana, body: try Self.json(NoteChange(title: "x"))
                ).status == .preconditionRequired)
            #expect(
                try await client.execute(uri: "/notes/\(target)", method: .get, headers: ana).headers[.eTag] == "\"2\"")

            // Someone else's note does not exist for them.
            let bob: HTTPFields = [HTTPField.Name("X-User")!: "bob"]
            #expect(try await client.execute(uri: "/notes/\(target)", method: .get, headers: bob).status == .notFound)
            #expect(
                try await client.execute(uri: "/notes/\(target)", method: .delete, headers: bob).status == .notFound)

            let stats = try Self.decode(
                Notes<Repository<Note>>.Stats.self,
                try await client.execute(uri: "/notes/stats", method: .get, headers: ana).body)
            #expect(stats.count == 5 && stats.pinned == 1)
            #expect(
                try await client.execute(uri: "/notes/\(target)", method: .delete, headers: ana).status == .noContent)
            #expect(try await client.execute(uri: "/notes/\(target)", method: .get, headers: ana).status == .notFound)
        }
        try await store.close()
    }

    /// A fake repository: a dictionary. Aggregates come from the engine over what `fetch` returns.
    actor FakeNotes: ModelRepository {
        typealias Model = Note
        var byID: [UUID: (note: Note, version: Int64)] = [:]
        func fetch(_ id: UUID) async throws -> Note? { byID[id]?.note }
        func fetch(_ query: Query<Note>) async throws -> [Note] {
            byID.values.map(\.note).sorted { $0.updated > $1.updated }
        }
        func fetch(_ query: Query<Note>, after cursor: PageCursor?) async throws -> Page<Note> {
            Page(models: try await fetch(query), next: nil)
        }
        func count(_ query: Query<Note>) async throws -> Int { byID.values.filter { $0.note.pinned }.count }
        func related<D: PersistentModel>(_ relationship: ToMany<Note, D>, of id: UUID) async throws -> [D] { [] }
        func insert(_ model: Note) async throws { byID[model.id] = (model, 1) }
        func update(_ model: Note) async throws { byID[model.id] = (model, (byID[model.id]?.version ?? 0) + 1) }
        func fetchVersioned(_ id: UUID) async throws -> Versioned<Note>? {
            byID[id].map { Versioned(model: $0.note, version: $0.version) }
        }
        func update(_ model: Note, expectedVersion: Int64) async throws {
            guard byID[model.id]?.version == expectedVersion else {
                throw StrataError(.versionMismatch, entity: "Note", "stale")
            }
            try await update(model)
        }
        func delete(_ id: UUID) async throws { byID[id] = nil }
        func link<D: PersistentModel>(_ relationship: ToMany<Note, D>, from source: UUID, to destination: D.ID)
            async throws
        {}
        func unlink<D: PersistentModel>(_ relationship: ToMany<Note, D>, from source: UUID, to destination: D.ID)
            async throws
        {}
        func setRelated<D: PersistentModel>(_ relationship: ToMany<Note, D>, of source: UUID, to destinations: [D.ID])
            async throws
        {}
    }

    @Test func theServiceRunsOnAFakeAndInAUnitOfWork() async throws {
        let fake = FakeNotes()
        let notes = Notes(notes: fake)
        let created = try await notes.create(for: "ana", title: "Groceries", body: "eggs")
        try await notes.edit(
            created.model.id, of: "ana", expectedVersion: 1, title: nil, body: "eggs, milk", pinned: true)
        await #expect(throws: StrataError.self) {
            try await notes.edit(created.model.id, of: "ana", expectedVersion: 1, title: "x", body: nil, pinned: nil)
        }
        #expect(try await notes.note(created.model.id, of: "ana").model.body == "eggs, milk")
        let stats = try await notes.stats(of: "ana")
        #expect(stats.count == 1 && stats.pinned == 1, "the fake's aggregate: the engine over its fetch")

        let store = Store(backend: InMemoryBackend(schema: try Schema(Note.self)))
        let context = store.makeContext()
        let unit = Notes(notes: context.repository(Note.self))
        let staged = try await unit.create(for: "ana", title: "Staged", body: "")
        #expect(try await unit.stats(of: "ana").count == 1, "the unit of work sees its own insert")
        #expect(try await store.repository(Note.self).count() == 0)
        try await context.save()
        #expect(try await store.repository(Note.self).fetch(staged.model.id)?.title == "Staged")
    }
}
