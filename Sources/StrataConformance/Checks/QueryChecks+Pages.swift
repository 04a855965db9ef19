import Foundation
import Strata

/// Keyset pages: every record once, in order, whatever the sort (ties, nulls, descending), and
/// stable across saves made between pages.
extension QueryChecks {
    /// 40 people with ages and ratings drawn from a seeded generator, a quarter of each nil.
    static func people(_ store: Store, seed: UInt64) async throws -> [Person] {
        var random = SeededRandom(seed: seed)
        let people = (0..<40).map { index in
            Person(
                name: "P\(random.next() % 9)", age: random.next() % 4 == 0 ? nil : Int(random.next() % 5),
                rating: random.next() % 4 == 0 ? nil : Double(random.next() % 3), isVerified: index % 3 == 0)
        }
        try await store.repository(Person.self).insert(contentsOf: people)
        return people
    }

    /// Every page of `query` (of `size`), concatenated.
    static func allPages(_ store: Store, _ query: Query<Person>, size: Int) async throws -> [Person] {
        var cursor: PageCursor?
        var collected: [Person] = []
        repeat {
            let page = try await store.repository(Person.self).fetch(query.limit(size), after: cursor)
            try expect(page.models.count <= size, "a page holds at most the limit")
            collected += page.models
            cursor = page.next
            try expect(collected.count <= 200, "pages end")
        } while cursor != nil
        return collected
    }

    static let pages: [ConformanceCheck] = [
        ConformanceCheck(.queries, "keysetPagesCoverEveryRecordOnceInOrder") { c in
            let store = try await c.store()
            let seed: UInt64 = 0x9A6E5
            _ = try await people(store, seed: seed)
            let queries: [Query<Person>] = [
                Query<Person>.all.sorted(by: \.age),
                Query<Person>.all.sorted(by: \.rating, .descending).sorted(by: \.age),
                Query<Person>.where(\.isVerified == false).sorted(by: \.name).sorted(by: \.age, .descending),
                Query<Person>.all,
            ]
            for (index, query) in queries.enumerated() {
                let expected = try await store.repository(Person.self).fetch(query)
                for size in [1, 7, 40] {
                    let paged = try await allPages(store, query, size: size)
                    try expectEqual(
                        paged.map(\.id), expected.map(\.id), "query \(index), pages of \(size) (seed \(seed))")
                }
            }
        },
        ConformanceCheck(.queries, "aPageCursorIsStableAcrossSavesBeforeIt") { c in
            let store = try await c.store()
            _ = try await people(store, seed: 0x57AB1E)
            let query = Query<Person>.all.sorted(by: \.name).sorted(by: \.age).limit(10)
            let repository = store.repository(Person.self)
            let first = try await repository.fetch(query, after: nil)
            let cursor = try expectNotNil(first.next)
            let rest = try await repository.fetch(Query<Person>.all.sorted(by: \.name).sorted(by: \.age)).map(\.id)
                .dropFirst(10)
            // Saves before the cursor: a record that sorts first, and one from the first page gone.
            try await repository.insert(Person(name: "A first", age: 1))
            try await repository.delete(try expectNotNil(first.models.first).id)
            let second = try await repository.fetch(query, after: cursor)
            try expectEqual(second.models.map(\.id), Array(rest.prefix(10)), "the next page neither repeats nor skips")
            // The token survives a round trip through a client.
            let again = try await repository.fetch(query, after: try PageCursor(token: cursor.description))
            try expectEqual(again.models.map(\.id), second.models.map(\.id))
        },
        ConformanceCheck(.queries, "aCursorFromAnotherQueryOrADamagedTokenIsRefused") { c in
            let store = try await c.store()
            _ = try await people(store, seed: 0xBAD)
            let repository = store.repository(Person.self)
            let cursor = try expectNotNil(
                try await repository.fetch(Query<Person>.all.sorted(by: \.name).limit(5), after: nil).next)
            try await expectError(.invalidQuery) {
                _ = try await repository.fetch(Query<Person>.all.sorted(by: \.age).limit(5), after: cursor)
            }
            try await expectError(.invalidQuery) {
                _ = try await store.repository(Tag.self).fetch(
                    Query<Tag>.all.sorted(by: \.label).limit(5), after: cursor)
            }
            try await expectError(.invalidQuery) { _ = try PageCursor(token: "not a cursor") }
            try await expectError(.invalidQuery) {
                _ = try await repository.fetch(Query<Person>.all.sorted(by: \.name).limit(5).offset(1), after: cursor)
            }
        },
    ]
}
