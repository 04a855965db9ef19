import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Synchronization
import Testing

/// A backend that counts the fetches its read transactions run, to prove which path a live query takes.
private final class FetchCounting: StorageBackend {
    let wrapped: InMemoryBackend
    let fetches = Atomic<Int>(0)
    let lookups = Atomic<Int>(0)

    init(_ wrapped: InMemoryBackend) { self.wrapped = wrapped }

    var schema: Schema { wrapped.schema }
    var capabilities: FetchCapabilities { wrapped.capabilities }
    var sharedIdentity: String? { wrapped.sharedIdentity }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        try await wrapped.read { [self] transaction in try body(Counting(inner: transaction, owner: self)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        try await wrapped.write(body)
    }

    func close() async throws { try await wrapped.close() }

    final class Counting: ForwardingReadTransaction {
        let inner: any StorageReadTransaction
        let owner: FetchCounting
        var readsGoTo: any StorageReadTransaction { inner }
        init(inner: any StorageReadTransaction, owner: FetchCounting) {
            self.inner = inner
            self.owner = owner
        }
        func fetch(_ plan: FetchPlan) throws -> [Record] {
            owner.fetches.add(1, ordering: .relaxed)
            return try inner.fetch(plan)
        }
        func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
            owner.lookups.add(1, ordering: .relaxed)
            return try inner.records(entity, ids: ids)
        }
    }
}

private typealias Tag = StrataConformance.Tag

@Suite("Live queries: the incremental path")
struct IncrementalObservationTests {
    @Test func aQueryOverOneEntityWithoutAWindowIsKeptFromTheChangedRecordsAlone() async throws {
        let counting = FetchCounting(InMemoryBackend(schema: try TravelDomain.schema()))
        let store = Store(backend: counting)
        let tags = store.repository(Tag.self)
        try await tags.insert(contentsOf: (0..<50).map { Tag(id: "t\($0)", label: "Label \(1000 + $0)") })
        var iterator = store.observe(Query<Tag>.where(\.label >= "Label 1010").sorted(by: \.label, .descending))
            .makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.models.count == 40)
        let fetchesAtStart = counting.fetches.load(ordering: .relaxed)
        // One value per save: waiting for each keeps them from coalescing.
        var values = [first]
        try await tags.update(Tag(id: "t20", label: "Label 0999"))  // out of the filter
        values.append(try #require(try await iterator.next()))
        try await tags.insert(Tag(id: "new", label: "Label 2000"))  // first
        values.append(try #require(try await iterator.next()))
        try await tags.update(Tag(id: "t5", label: "Label 1500"))  // into the filter, second
        values.append(try #require(try await iterator.next()))
        #expect(counting.fetches.load(ordering: .relaxed) == fetchesAtStart, "no fetch after the first")
        #expect(counting.lookups.load(ordering: .relaxed) >= 3, "each catch-up reads the changed records")
        let expected = try await tags.fetch(Query<Tag>.where(\.label >= "Label 1010").sorted(by: \.label, .descending))
        #expect(values.last?.models == expected)
        // Each computed diff is what the keyed diff of the two values would say.
        var previous: [Tag] = first.models
        for value in values.dropFirst() {
            #expect(value.diff.apply(to: previous, new: value.models) == value.models)
            previous = value.models
        }
        #expect(values[1].diff.removed == IndexSet(integer: first.models.firstIndex { $0.id == "t20" } ?? -1))
        #expect(values[2].diff.inserted == IndexSet(integer: 0))
        #expect(values[3].diff.inserted == IndexSet(integer: 1))
    }

    @Test func aWindowedQueryRefetches() async throws {
        let counting = FetchCounting(InMemoryBackend(schema: try TravelDomain.schema()))
        let store = Store(backend: counting)
        try await store.repository(Tag.self).insert(contentsOf: (0..<5).map { Tag(id: "t\($0)", label: "L\($0)") })
        var iterator = store.observe(Query<Tag>.all.sorted(by: \.label).limit(3)).makeAsyncIterator()
        _ = try await iterator.next()
        let before = counting.fetches.load(ordering: .relaxed)
        try await store.repository(Tag.self).insert(Tag(id: "a", label: "A"))
        let next = try #require(try await iterator.next())
        #expect(next.models.first?.id == "a")
        #expect(counting.fetches.load(ordering: .relaxed) > before, "a limit window is refetched")
    }
}
