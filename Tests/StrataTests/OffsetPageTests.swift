import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// Numbered pages with a total in one call, through a store's repository, a context (pending
/// changes included) and a test double.
@Suite struct OffsetPageTests {
    static func store(trips count: Int) async throws -> Store {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        try await store.repository(Trip.self).insert(
            contentsOf: (0..<count).map {
                Trip(name: "T\($0)", start: Date(timeIntervalSinceReferenceDate: Double($0) * 86_400))
            })
        return store
    }

    @Test func aPageComesWithTheTotalAndThePageCount() async throws {
        let store = try await Self.store(trips: 7)
        let query = Query<Trip>.all.sorted(by: \.start)
        let trips = store.repository(Trip.self)
        let third = try await trips.fetch(query, page: PageRequest(number: 3, size: 3))
        #expect(third.models.map(\.name) == ["T6"])
        #expect(third.total == 7 && third.pageCount == 3)
        let first = try await trips.fetch(query, page: PageRequest(number: 1, size: 3), withTotal: false)
        #expect(first.models.map(\.name) == ["T0", "T1", "T2"] && first.total == nil && first.pageCount == nil)
        let beyond = try await trips.fetch(query, page: PageRequest(number: 9, size: 3))
        #expect(beyond.models.isEmpty && beyond.total == 7)
        let filtered = try await trips.fetch(
            Query<Trip>.where(\.name >= "T5").sorted(by: \.start), page: PageRequest(number: 1, size: 10))
        #expect(filtered.total == 2 && filtered.pageCount == 1)
    }

    @Test func aContextsPageAndTotalIncludeItsPendingChanges() async throws {
        let store = try await Self.store(trips: 4)
        let context = store.makeContext()
        try await context.insert(Trip(name: "T9", start: Date(timeIntervalSinceReferenceDate: 9 * 86_400)))
        try await context.delete(Trip.self, id: try #require(try await store.repository(Trip.self).fetch().first).id)
        let page = try await context.repository(Trip.self).fetch(
            Query<Trip>.all.sorted(by: \.start), page: PageRequest(number: 2, size: 2), withTotal: true)
        #expect(page.total == 4)
        #expect(page.models.count == 2)
    }

    @Test func badPagesAndQueriesWithTheirOwnLimitAreRefused() async throws {
        let trips = try await Self.store(trips: 1).repository(Trip.self)
        for (query, request) in [
            (Query<Trip>.all, PageRequest(number: 0, size: 10)),
            (Query<Trip>.all, PageRequest(number: 1, size: 0)),
            (Query<Trip>.all.limit(5), PageRequest(number: 1, size: 10)),
            (Query<Trip>.all.offset(5), PageRequest(number: 1, size: 10)),
            (Query<Trip>.all, PageRequest(number: Int.max, size: 10)),
        ] {
            let error = try await #require(throws: StrataError.self) { try await trips.fetch(query, page: request) }
            #expect(error.code == .invalidQuery && error.entity == "Trip", "\(error)")
        }
    }

    @Test func aGenericServiceGetsPagesFromAnyRepository() async throws {
        let store = try await Self.store(trips: 5)
        func pageTwo<Trips: ModelReading<Trip>>(_ trips: Trips) async throws -> OffsetPage<Trip> {
            try await trips.fetch(
                Query<Trip>.all.sorted(by: \.start), page: PageRequest(number: 2, size: 2), withTotal: true)
        }
        let viaStore = try await pageTwo(store.repository(Trip.self))
        let viaWork = try await pageTwo(store.makeContext().repository(Trip.self))
        #expect(viaStore.models.map(\.name) == ["T2", "T3"] && viaStore.total == 5)
        #expect(viaWork.models.map(\.name) == ["T2", "T3"] && viaWork.total == 5)
    }
}
