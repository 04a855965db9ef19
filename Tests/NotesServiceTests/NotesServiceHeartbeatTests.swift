import Foundation
import Hummingbird
import NotesService
import Strata
import StrataInMemory
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A live stream whose client went away without a word is found at the next heartbeat: the write
/// fails, the stream ends and its observation is released — for a list that never changes too.
@Suite struct NotesServiceHeartbeatTests {
    @Test func aVanishedClientsObservationIsReleasedAtTheNextHeartbeat() async throws {
        let store = Store(backend: InMemoryBackend(schema: try Schema(Note.self, Tag.self)))
        let port = try NotesServiceShutdownTests.freePort()
        let app = Application(
            router: notesRouter(Notes(work: store), live: store, heartbeat: .milliseconds(200)),
            configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        let received = try await Task.detached {
            let stream = try NotesServiceShutdownTests.connect(to: port, timeout: 30)
            defer { close(stream) }
            let request = "GET /notes/live HTTP/1.1\r\nHost: localhost\r\nX-User: ana\r\n\r\n"
            _ = request.withCString { write(stream, $0, strlen($0)) }
            // The first results, then a heartbeat after them (on a busy machine one may come first).
            var received = ""
            _ = NotesServiceShutdownTests.read(stream, until: "data: []", into: &received)
            var after = received.components(separatedBy: "data: []").dropFirst().joined(separator: "data: []")
            _ = NotesServiceShutdownTests.read(stream, until: ": heartbeat", into: &after)
            return (received, after)
        }.value
        #expect(received.0.contains("data: []") && received.1.contains(": heartbeat"), "\(received)")
        // The client is gone (its socket closed); nothing changes in the list.
        var released = false
        for _ in 0..<300 where !released {
            try await Task.sleep(for: .milliseconds(100))
            released = store.observerCount == 0
        }
        #expect(released, "the vanished client's observation is released ( \(store.observerCount) left)")
    }
}
