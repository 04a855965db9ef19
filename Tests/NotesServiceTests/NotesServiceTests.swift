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
            backend: try await SQLiteBackend.open(path: path, schema: try Schema(Note.self, Tag.self)),
            location: try StoreLocation("sqlite:\(path)"))
        let app = Application(router: notesRouter(Notes(work: store), live: store))
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
                Notes<Store>.Stats.self,
                try await client.execute(uri: "/notes/stats", method: .get, headers: ana).body)
            #expect(stats.count == 5 && stats.pinned == 1)
            #expect(
                try await client.execute(uri: "/notes/\(target)", method: .delete, headers: ana).status == .noContent)
            #expect(try await client.execute(uri: "/notes/\(target)", method: .get, headers: ana).status == .notFound)
        }
        try await store.close()
    }

    /// The service in memory (what its tests use first) and in a unit of work, and tags created on
    /// first use by concurrent requests without a conflict.
    @Test func theServiceRunsInMemoryAndInAUnitOfWork() async throws {
        let store = Store(backend: InMemoryBackend(schema: try Schema(Note.self, Tag.self)))
        let notes = Notes(work: store)
        let created = try await notes.create(for: "ana", title: "Groceries", body: "eggs", tags: ["Food"])
        #expect(created.model.created == created.model.updated && created.model.created > .distantPast)
        try await notes.edit(
            created.model.id, of: "ana", expectedVersion: 1, title: nil, body: "eggs, milk", pinned: true)
        let edited = try await notes.note(created.model.id, of: "ana").model
        #expect(edited.updated >= edited.created && edited.created == created.model.created, "the engine's stamps")
        let stale = await #expect(throws: StrataError.self) {
            try await notes.edit(created.model.id, of: "ana", expectedVersion: 1, title: "x", body: nil, pinned: nil)
        }
        #expect(stale?.httpStatus == 412)
        #expect(try await notes.tags(of: created.model.id, of: "ana").map(\.label) == ["Food"])

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try await notes.create(for: "ana", title: "N\(index)", body: "", tags: ["Errands"])
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.repository(Tag.self).count() == 2, "one Errands tag for eight concurrent creates")
        #expect(try await store.repository(Tag.self).related(Tag.notes, of: "errands").count == 8)

        let context = store.makeContext()
        let unit = Notes(work: context)
        let staged = try await unit.create(for: "ana", title: "Staged", body: "", tags: ["Later"])
        #expect(try await unit.stats(of: "ana").count == 10, "the unit of work sees its own insert")
        #expect(try await store.repository(Note.self).fetch(staged.model.id) == nil, "nothing saved yet")
        try await context.save()
        #expect(try await store.repository(Note.self).fetch(staged.model.id)?.title == "Staged")
        let bad = await #expect(throws: StrataError.self) {
            try await notes.create(for: "ana", title: "Bad tag", body: "", tags: ["no/slash"])
        }
        #expect(bad?.clientMessage.hasSuffix("must match the tag pattern") == true, "\(String(describing: bad))")
        #expect(try await store.repository(Note.self).count(where: \.title == "Bad tag") == 0, "one save: nothing")
    }
}
