import Foundation
import Strata

// The Derived checks' domain: a count over each relationship storage — Playlist.tracks (derived
// from Track.playlist), Playlist.genres (the link list of a many-to-many) and Genre.playlists (its
// other side) — a folded text and a function of the record's own values. Artist.tracks cascades,
// so a cascade changes a count whose owner survives; Track.playlist nullifies.

/// A playlist: counts of its tracks and genres, a folded title, a label.
struct Playlist: PersistentModel, Equatable {
    var id: String
    var title: String
    var year: Int = 2026
    var titleKey: String = ""
    var label: String = ""
    var trackCount: Int = 0
    var genreCount: Int = 0

    static let tracks = ToMany<Playlist, Track>("tracks")
    static let genres = ToMany<Playlist, Genre>("genres")

    static let entity = Entity<Playlist>(
        "Playlist",
        [
            .attribute(\.title),
            .attribute(\.year),
            .derived(\.titleKey, folding: \.title, indexed: true),
            .derived(\.label, function: "label") { (list: Playlist) in "\(list.title) (\(list.year))" },
            .derived(\.trackCount, count: tracks, indexed: true),
            .derived(\.genreCount, count: genres),
            .toMany(tracks, inverse: \Track.playlist),
            .toMany(genres, inverse: Genre.playlists),
        ])
}

/// A track on at most one playlist, by one artist.
struct Track: PersistentModel, Equatable {
    var id: String
    var title: String
    var playlist: Playlist.ID?
    var artist: Artist.ID?

    static let entity = Entity<Track>(
        "Track",
        [
            .attribute(\.title),
            .toOne(\.playlist, Playlist.self, inverse: Playlist.tracks),
            .toOne(\.artist, Artist.self, inverse: Artist.tracks),
        ])
}

/// An artist: deleting one deletes their tracks.
struct Artist: PersistentModel, Equatable {
    var id: String
    var name: String

    static let tracks = ToMany<Artist, Track>("tracks")

    static let entity = Entity<Artist>(
        "Artist", [.attribute(\.name), .toMany(tracks, inverse: \Track.artist, deleteRule: .cascade)])
}

/// A genre: the other side of Playlist.genres, counting its playlists.
struct Genre: PersistentModel, Equatable {
    var id: String
    var name: String
    var playlistCount: Int = 0

    static let playlists = ToMany<Genre, Playlist>("playlists")

    static let entity = Entity<Genre>(
        "Genre",
        [
            .attribute(\.name),
            .derived(\.playlistCount, count: playlists),
            .toMany(playlists, inverse: Playlist.genres),
        ])
}

enum MusicDomain {
    static func schema() throws -> Schema { try Schema(Playlist.self, Track.self, Artist.self, Genre.self) }
}
