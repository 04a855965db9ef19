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
        // The socket's blocking reads on a thread of their own, not a cooperative one.
        let received = try await NotesServiceShutdownTests.onOwnThread {
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
        }
        #expect(received.0.contains("data: []") && received.1.contains(": heartbeat"), "\(received)")
        // The client is gone (its socket closed); nothing changes in the list. The second heartbeat
        // after the close fails (the first draws the peer's reset), normally within half a second;
        // the patience is for a loaded machine (a fresh clone's CI ran this beside PostgreSQL's
        // suite and 30 s were not enough), and the wait ends as soon as the observation is gone.
        let closed = ContinuousClock.now
        let deadline = closed + .seconds(600)
        while store.observerCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let released = store.observerCount == 0
        print("heartbeat: the vanished client's observation released after \(ContinuousClock.now - closed)")
        #expect(released, "the vanished client's observation is released (\(store.observerCount) left)")
    }
}
