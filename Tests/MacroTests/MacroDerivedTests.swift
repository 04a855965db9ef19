import Foundation
import StrataInMemory
import StrataMacros
import Testing

/// `@Derived` on a `@Model`: the macro declares what `.derived` declares, and the engine keeps it.
enum DerivedModels {
    @Model("Album")
    struct Album: Equatable {
        var id: String
        var title: String
        @Derived(folding: \Album.title, indexed: true) var titleKey = ""
        @Derived(function: "shout", { (album: Album) in album.title.uppercased() }) var shout = ""
        @Derived(count: Album.songs) var songCount = 0
        @Relationship(deleteRule: .cascade) static var songs: ToMany<Album, Song>
    }

    @Model("Song")
    struct Song: Equatable {
        var id: String
        var title: String
        @Relationship(inverse: Album.songs) var album: Album.ID?
    }
}

@Suite struct MacroDerivedTests {
    @Test func aDerivedPropertyIsKeptByTheEngine() async throws {
        let schema = try Schema(DerivedModels.Album.self, DerivedModels.Song.self)
        let album = try #require(schema.entity("Album"))
        #expect(album.attribute("titleKey")?.derivation == .folded("title"))
        #expect(album.attribute("titleKey")?.isIndexed == true)
        #expect(album.attribute("songCount")?.derivation == .count("songs"))
        #expect(album.attribute("shout")?.derivation?.description == "function(shout)")
        let store = Store(backend: InMemoryBackend(schema: schema))
        try await store.transaction { tx in
            try tx.insert(DerivedModels.Album(id: "a", title: "Évora"))
            try tx.insert(DerivedModels.Song(id: "s", title: "One", album: "a"))
        }
        let stored = try #require(try await store.repository(DerivedModels.Album.self).fetch("a"))
        #expect(stored.titleKey == "evora" && stored.shout == "ÉVORA" && stored.songCount == 1, "\(stored)")
    }
}
