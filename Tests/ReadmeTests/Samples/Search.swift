// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Full-text search article.
import Foundation
import Strata

struct Article: PersistentModel {
    var id: UUID
    var title: String
    var body: String
    var section: String

    static let entity = Entity<Article>([
        .attribute(\.title),
        .attribute(\.body),
        .attribute(\.section),
        .search("text", weighted: [(\Article.title, 3), (\Article.body, 1)]),
    ])
}

func topStories(_ articles: some ModelReading<Article>, matching input: String) async throws -> [Article] {
    try await articles.fetch(
        Query.where(.search(input, in: "text") && \.section == "news").sorted(byRelevanceOf: "text").limit(20))
}

func searchPage(
    _ articles: some ModelReading<Article>, matching input: String, after cursor: PageCursor?
) async throws -> Page<Article> {
    try await articles.fetch(
        Query.where(.search(input, in: "text")).sorted(byRelevanceOf: "text").limit(20), after: cursor)
}
