import Foundation
import Logging
import ServiceLifecycle
import Strata
import StrataConformance
import StrataInMemory
import Synchronization
import Testing

/// A store in a swift-service-lifecycle ServiceGroup: graceful shutdown ends the live queries and
/// change streams of the services that iterate them (so a streaming response ends), then closes the
/// store — nothing waits on anything else.
@Suite struct GracefulShutdownTests {
    /// A service that streams a live query and a change stream until they end, as an HTTP handler
    /// writing server-sent events does.
    final class Streamer: Service {
        let store: Store
        let seen = Mutex<(values: Int, changes: Int, ended: Bool, error: String?)>((0, 0, false, nil))
        let started: AsyncStream<Void>.Continuation

        init(store: Store, started: AsyncStream<Void>.Continuation) {
            self.store = store
            self.started = started
        }

        func run() async throws {
            let store = store
            do {
                async let changes: Int = {
                    var count = 0
                    for try await _ in store.changes() { count += 1 }
                    return count
                }()
                for try await _ in store.observe(Query<Trip>.all) {
                    seen.withLock { $0.values += 1 }
                    started.yield()
                }
                let changed = try await changes
                seen.withLock { $0.changes = changed }
                seen.withLock { $0.ended = true }
            } catch {
                seen.withLock { $0.error = "\(error)" }
            }
        }
    }

    @Test func gracefulShutdownEndsOpenStreamsThenClosesTheStore() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let (started, signal) = AsyncStream<Void>.makeStream()
        let streamer = Streamer(store: store, started: signal)
        let group = ServiceGroup(
            configuration: .init(
                services: [store, streamer], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        var waiting = started.makeAsyncIterator()
        _ = await waiting.next()  // the stream delivered its first value
        try await store.repository(Trip.self).insert(Trip(name: "Lisbon", start: .now))

        // A hang guard, not a timing assertion: a group still running after a minute is cancelled
        // (which ends everything) and the test fails.
        let watchdog = Task<Bool, Never> {
            do { try await Task.sleep(for: .seconds(60)) } catch { return false }
            running.cancel()
            return true
        }
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        watchdog.cancel()
        #expect(await watchdog.value == false, "graceful shutdown left the group running with a stream open")
        let result = streamer.seen.withLock { $0 }
        #expect(result.ended && result.error == nil, "the streams ended without an error: \(result)")
        #expect(result.values >= 1)
        let closed = await #expect(throws: StrataError.self) { try await store.repository(Trip.self).count() }
        #expect(closed?.code == .storeClosed, "the store closed after the streamer: \(String(describing: closed))")
    }

    /// Outside a ServiceGroup nothing changes: a change stream keeps its subscription until the
    /// consumer stops, and then releases it.
    @Test func outsideAServiceGroupStreamsRunUntilTheirConsumerStops() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let (firstChange, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var count = 0
            for try await _ in store.changes() {
                count += 1
                signal.yield()
            }
            return count
        }
        var changes = firstChange.makeAsyncIterator()
        while store.observerCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await store.repository(Trip.self).insert(Trip(name: "Porto", start: .now))
        _ = await changes.next()
        #expect(store.observerCount == 1, "the stream is still subscribed after a delivery")
        reader.cancel()
        _ = try? await reader.value
        while store.observerCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.observerCount == 0)
        try await store.close()
    }
}
