import Foundation
import Strata

/// Keyset pages over a ranking: each page starts after the last one's score and ID, so walking
/// the pages gives the ranking once, saves between pages neither repeat nor skip what ranks
/// after the cursor, and streams page the same way.
extension SearchChecks {
    /// Every page of `query` after `cursor`, `size` at a time, as IDs.
    static func walk(_ store: Store, _ query: Query<Note>, size: Int) async throws -> [String] {
        var ids: [String] = []
        var cursor: PageCursor?
        repeat {
            let page = try await store.repository(Note.self).fetch(query.limit(size), after: cursor)
            ids += page.models.map(\.id)
            cursor = try page.next.map { try PageCursor(token: $0.description) }
        } while cursor != nil
        return ids
    }

    static var pages: [ConformanceCheck] {
        [
            ConformanceCheck(.search, "keysetPagesFollowTheRankingAcrossSaves") { c in
                let seed = UInt64(20_261_130)
                var random = SeededRandom(seed: seed)
                let store = try await c.store(try NotesDomain.schema())
                let notes = randomNotes(&random, count: 200)
                try await store.repository(Note.self).insert(contentsOf: notes)
                for text in ["swift", "cloud OR data", "cl*"] {
                    let search = Filter<Note>.search(text, in: "text")
                    let ranked = Query<Note>.where(search).sorted(byRelevanceOf: "text")
                    let all = try await store.repository(Note.self).fetch(ranked).map(\.id)
                    try expectEqual(try await walk(store, ranked, size: 7), all, "seed \(seed): \(text), pages of 7")
                    let least = Query<Note>.where(search).sorted(byRelevanceOf: "text", .descending)
                    try expectEqual(
                        try await walk(store, least, size: 9), all.reversed(), "seed \(seed): \(text), least first")
                    let tagged = Query<Note>.where(search && \.tag == "x").sorted(byRelevanceOf: "text")
                    try expectEqual(
                        try await walk(store, tagged, size: 4),
                        all.filter { id in notes.first { $0.id == id }?.tag == "x" },
                        "seed \(seed): \(text) and a filter")
                    var streamed: [String] = []
                    for try await note in store.repository(Note.self).stream(ranked, batchSize: 6) {
                        streamed.append(note.id)
                    }
                    try expectEqual(streamed, all, "seed \(seed): \(text), streamed")
                }
                try await saveBetweenPages(store)
                try await refusals(store)
            }
        ]
    }

    /// A page, then notes that rank before and after its cursor (and shift every score: the
    /// index's statistics change), then the next page: it is what ranks after the page's last
    /// note in the ranking as it is now — nothing repeated, nothing skipped.
    private static func saveBetweenPages(_ store: Store) async throws {
        let repository = store.repository(Note.self)
        let ranked = Query<Note>.where(.search("edge", in: "text")).sorted(byRelevanceOf: "text")
        let before = try await repository.fetch(ranked).map(\.id)
        try expect(before.count >= 6, "the corpus has \(before.count) notes with edge, too few to page")
        let first = try await repository.fetch(ranked.limit(3), after: nil)
        try expectEqual(first.models.map(\.id), Array(before.prefix(3)))
        // "edge" as the whole title ranks near the top; buried in a long body it ranks last.
        let filler = Array(repeating: "linux", count: 40).joined(separator: " ")
        try await repository.insert(contentsOf: [
            Note(id: "a-top", title: "edge"), Note(id: "tail", title: "rust", body: filler + " edge"),
        ])
        let now = try await repository.fetch(ranked).map(\.id)
        let last = try expectNotNil(now.firstIndex(of: before[2]), "the first page's last note still matches")
        let cursor = try expectNotNil(first.next)
        let rest = try await repository.fetch(ranked.limit(1000), after: cursor).models.map(\.id)
        try expectEqual(rest, Array(now[(last + 1)...]), "the next page: what ranks after the cursor's note now")
        try expectEqual(rest.last, "tail", "a note ranked after the cursor is in it")
        try expectEqual(Set(rest).intersection(first.models.map(\.id)), [], "no note repeats")
    }

    /// Orders a keyset cannot follow: relevance after another key, or a search the filter does
    /// not require.
    private static func refusals(_ store: Store) async throws {
        let repository = store.repository(Note.self)
        let swift = Filter<Note>.search("swift", in: "text")
        _ = try await expectError(.invalidQuery, entity: "Note") {
            _ = try await repository.fetch(
                Query<Note>.where(swift).sorted(by: \.title).sorted(byRelevanceOf: "text").limit(5), after: nil)
        }
        _ = try await expectError(.invalidQuery, entity: "Note") {
            _ = try await repository.fetch(
                Query<Note>.where(swift || \.tag == "x").sorted(byRelevanceOf: "text").limit(5), after: nil)
        }
        let optional = Query<Note>.where(swift || \.tag == "x").sorted(byRelevanceOf: "text")
        var streamed = 0
        for try await _ in repository.stream(optional, batchSize: 5) { streamed += 1 }
        try expectEqual(streamed, try await repository.count(where: swift || \.tag == "x"), "streamed by offset")
    }
}
