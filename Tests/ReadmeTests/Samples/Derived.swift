// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Modelling article, "Derived attributes".
import Foundation
import Strata

struct Album: PersistentModel {
    var id: UUID
    var title: String
    var year: Int
    var titleKey = ""
    var label = ""
    var songCount = 0

    static let songs = ToMany<Album, Song>("songs")

    static let entity = Entity<Album>([
        .attribute(\.title),
        .attribute(\.year),
        .derived(\.titleKey, folding: \.title, indexed: true),
        .derived(\.label, function: "label") { (album: Album) in "\(album.title) (\(album.year))" },
        .derived(\.songCount, count: songs, indexed: true),
        .toMany(songs, inverse: \Song.album, deleteRule: .cascade),
    ])
}

struct Song: PersistentModel {
    var id: UUID
    var title: String
    var album: Album.ID?

    static let entity = Entity<Song>([.attribute(\.title), .toOne(\.album, Album.self, inverse: Album.songs)])
}

func fullAlbums(_ albums: some ModelReading<Album>, titled input: String) async throws -> [Album] {
    try await albums.fetch(where: \.titleKey == Derivation.fold(input) && \.songCount >= 10)
}
