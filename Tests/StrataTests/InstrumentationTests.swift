import Foundation
import Logging
import MetricsTestKit
import Strata
import StrataConformance
import StrataInMemory
import Synchronization
import Testing

/// A store's logs and metrics: opens, saves (counted, timed, slow ones warned about), failures,
/// merge conflicts — names and counts, never values.
@Suite struct InstrumentationTests {
    /// Keeps every log entry.
    final class Captured: Sendable {
        struct Entry: Sendable {
            var level: Logger.Level
            var message: String
            var metadata: [String: String]
        }
        let entries = Mutex<[Entry]>([])
        var all: [Entry] { entries.withLock { $0 } }
    }

    struct CapturingHandler: LogHandler {
        let captured: Captured
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let entry = Captured.Entry(
                level: event.level, message: "\(event.message)", metadata: (event.metadata ?? [:]).mapValues { "\($0)" }
            )
            captured.entries.withLock { $0.append(entry) }
        }
    }

    func instrumented(slowSave: Duration = .seconds(60)) -> (StoreInstrumentation, Captured, TestMetrics) {
        let captured = Captured()
        let metrics = TestMetrics()
        let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
        return (StoreInstrumentation(logger: logger, metrics: metrics, slowSave: slowSave), captured, metrics)
    }

    @Test func opensAndSavesAreLoggedAndCountedWithoutValues() async throws {
        InMemoryBackend.register()
        let (instrumentation, captured, metrics) = instrumented(slowSave: .zero)
        let store = try await Store.open(
            "memory:instrumented-\(UUID().uuidString.prefix(6))", schema: try TravelDomain.schema(),
            options: OpenOptions(instrumentation: instrumentation))
        #expect(captured.all.contains { $0.level == .info && $0.message == "opened store" })
        let secret = "Ana-\(UUID().uuidString)"
        try await store.repository(Person.self).insert(Person(name: secret))
        #expect(
            try metrics.expectCounter("strata_saves_total", [("store", "memory"), ("outcome", "committed")]).totalValue
                >= 1)
        #expect(try metrics.expectTimer("strata_save_duration", [("store", "memory")]).values.count >= 1)
        let slow = try #require(
            captured.all.first { $0.message == "slow save" }, "every save is slow at a threshold of zero")
        #expect(slow.level == .warning && slow.metadata["changes"] == "1")
        await #expect(throws: StrataError.self) { try await store.repository(Person.self).insert(Person(name: "")) }
        #expect(
            try metrics.expectCounter("strata_saves_total", [("store", "memory"), ("outcome", "failed")]).totalValue
                == 1)
        for entry in captured.all {
            #expect(
                !entry.message.contains(secret) && !entry.metadata.values.contains { $0.contains(secret) },
                "no values in logs: \(entry)")
        }
        try await store.close()
    }

    @Test func resolvedMergeConflictsAreCountedByPolicy() async throws {
        let (instrumentation, captured, metrics) = instrumented()
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()), instrumentation: instrumentation)
        let ana = Person(name: "Ana")
        try await store.repository(Person.self).insert(ana)
        let context = store.makeContext(mergePolicy: .objectTrumpByProperty)
        var mine = try #require(try await context.fetch(Person.self, id: ana.id))
        var theirs = ana
        theirs.name = "Ana Maria"
        try await store.repository(Person.self).update(theirs)
        mine.name = "Ana Sofia"
        await context.setAutomaticallyMergesChanges(false)
        try await context.update(mine)
        let result = try await context.save()
        #expect(result.conflicts.count == 1)
        #expect(
            try metrics.expectCounter(
                "strata_merge_conflicts_total", [("store", "backend"), ("policy", "objectTrumpByProperty")]
            ).totalValue == 1)
        let logged = try #require(captured.all.first { $0.message == "merge conflicts resolved" })
        #expect(logged.metadata["entities"] == "Person" && logged.metadata["count"] == "1")
        #expect(!logged.metadata.values.contains { $0.contains("Ana") })
    }

    @Test func observationDeliveriesAreCounted() async throws {
        let (instrumentation, _, metrics) = instrumented()
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()), instrumentation: instrumentation)
        var snapshots = store.observe(Query<StrataConformance.Tag>.all).makeAsyncIterator()
        var changes = store.changes().makeAsyncIterator()
        #expect(try await snapshots.next()?.models.isEmpty == true, "the first value")
        try await store.repository(StrataConformance.Tag.self).insert(
            StrataConformance.Tag(id: "beach", label: "Beach"))
        #expect(try await snapshots.next()?.models.map(\.id) == ["beach"])
        #expect(try await changes.next()?.changes.count == 1)
        #expect(
            try metrics.expectCounter("strata_observation_deliveries_total", [("store", "backend"), ("kind", "query")])
                .totalValue == 2)
        #expect(
            try metrics.expectCounter(
                "strata_observation_deliveries_total", [("store", "backend"), ("kind", "changes")]
            ).totalValue == 1)
    }
}
