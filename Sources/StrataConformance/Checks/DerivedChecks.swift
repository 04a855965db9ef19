import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Derived attributes (``MusicDomain``): counts follow membership from either side and every kind
/// of delete, folded text and functions follow every write, callers cannot write them, a sync
/// server's apply and a client's pull keep them, and a migration that adds them backfills them.
enum DerivedChecks {
    static func playlist(_ store: Store, _ id: String) async throws -> Playlist {
        try expectNotNil(try await store.repository(Playlist.self).fetch(id), "playlist \(id)")
    }

    static func counts(_ store: Store, _ id: String) async throws -> [Int] {
        let list = try await playlist(store, id)
        return [list.trackCount, list.genreCount]
    }

    static let all: [ConformanceCheck] =
        [
            ConformanceCheck(.derived, "countsFollowMembershipFromEitherSide") { c in
                let store = try await c.store(try MusicDomain.schema())
                try await store.repository(Playlist.self).insert(contentsOf: [
                    Playlist(id: "p", title: "Road"), Playlist(id: "q", title: "Rain"),
                ])
                try expectEqual(try await counts(store, "p"), [0, 0], "a new playlist counts nothing")
                let tracks = store.repository(Track.self)
                try await tracks.insert(contentsOf: [
                    Track(id: "t1", title: "One", playlist: "p"), Track(id: "t2", title: "Two", playlist: "p"),
                    Track(id: "t3", title: "Three"),
                ])
                try expectEqual(try await counts(store, "p"), [2, 0], "inserted members, from the to-one side")
                let version = try await store.read { try $0.record("Playlist", id: .string("p"))?.version }
                try await tracks.update(Track(id: "t2", title: "Two", playlist: "q"))
                try expectEqual(try await counts(store, "p"), [1, 0], "a member moved away")
                try expectEqual(try await counts(store, "q"), [1, 0], "and arrived")
                let moved = try await store.read { try $0.record("Playlist", id: .string("p"))?.version }
                try expect((moved ?? 0) > (version ?? 0), "the owner's count changed: a new version")
                try await store.repository(Genre.self).insert(contentsOf: [
                    Genre(id: "jazz", name: "Jazz"), Genre(id: "folk", name: "Folk"),
                ])
                try await store.transaction { tx in
                    try tx.link(Playlist.tracks, from: "p", to: "t3")
                    try tx.link(Playlist.genres, from: "p", to: "jazz")
                    try tx.link(Genre.playlists, from: "folk", to: "p")
                    try tx.link(Genre.playlists, from: "jazz", to: "q")
                }
                try expectEqual(try await counts(store, "p"), [2, 2], "linked from the owner's and the other side")
                let genres = try await store.repository(Genre.self).fetch(Query<Genre>.all.sorted(by: \.name))
                try expectEqual(genres.map(\.playlistCount), [1, 2], "the many-to-many's other side counts too")
                let token = try await store.currentHistoryToken()
                try await store.transaction { tx in try tx.unlink(Genre.playlists, from: "jazz", to: "p") }
                try expectEqual(try await counts(store, "p"), [2, 1], "unlinked")
                let changes = try await store.history(after: token).flatMap(\.changes)
                let named = changes.first { $0.entity == "Playlist" && $0.id == .string("p") }?.changedProperties ?? []
                try expect(named.contains("genreCount"), "history names the derived attribute: \(named)")
                let found = try await store.repository(Playlist.self).fetch(
                    Query<Playlist>.where(\.trackCount == 2).sorted(by: \.title))
                try expectEqual(found.map(\.id), ["p"], "a count is queryable")
            },
            ConformanceCheck(.derived, "countsFollowDeletesCascadesAndBatchDeletes") { c in
                let store = try await c.store(try MusicDomain.schema())
                try await store.transaction { tx in
                    try tx.insert(Playlist(id: "p", title: "Road"))
                    try tx.insert(Artist(id: "a", name: "Ana"))
                    for n in 1...6 {
                        try tx.insert(Track(id: "t\(n)", title: "T\(n)", playlist: "p", artist: n <= 2 ? "a" : nil))
                    }
                    try tx.insert(Genre(id: "jazz", name: "Jazz"))
                    try tx.link(Playlist.genres, from: "p", to: "jazz")
                }
                try expectEqual(try await counts(store, "p"), [6, 1])
                try await store.repository(Track.self).delete("t6")
                try expectEqual(try await counts(store, "p"), [5, 1], "a member deleted (nullify on its side)")
                try await store.repository(Artist.self).delete("a")
                try expectEqual(
                    try await counts(store, "p"), [3, 1], "members cascaded away by another owner's delete")
                let deleted = try await store.repository(Track.self).delete(where: \Track.title == "T3")
                try expectEqual(deleted, 1)
                try expectEqual(try await counts(store, "p"), [2, 1], "a batch delete")
                try await store.repository(Genre.self).delete("jazz")
                try expectEqual(try await counts(store, "p"), [2, 0], "the other side of a many-to-many deleted")
                try await store.transaction { tx in
                    try tx.delete(Track.self, id: "t4")
                    try tx.insert(Track(id: "t7", title: "T7", playlist: "p"))
                    try tx.insert(Track(id: "t8", title: "T8", playlist: "p"))
                }
                try expectEqual(try await counts(store, "p"), [3, 0], "deletes and inserts in one save count once")
            },
            ConformanceCheck(.derived, "foldedTextAndFunctionsFollowEveryWrite") { c in
                let store = try await c.store(try MusicDomain.schema())
                let lists = store.repository(Playlist.self)
                try await lists.insert(Playlist(id: "p", title: "Évora Nights", year: 2024))
                var list = try await playlist(store, "p")
                try expectEqual(list.titleKey, "evora nights", "folded as the engine folds")
                try expectEqual(list.label, "Évora Nights (2024)", "a function of the record's own values")
                list.title = "ÉVORA Days"
                try await lists.update(list)
                try expectEqual(try await playlist(store, "p").titleKey, "evora days", "recomputed by an update")
                try await store.transaction { tx in
                    try tx.update("Playlist", id: .string("p"), set: ["year": .int(2025)])
                }
                try expectEqual(try await playlist(store, "p").label, "ÉVORA Days (2025)", "and by a patch")
                let context = store.makeContext()
                try await context.insert(Playlist(id: "q", title: "Straße"))
                try await context.save()
                try expectEqual(try await playlist(store, "q").titleKey, "strasse", "a context's save; ß folds as ss")
                let found = try await lists.fetch(Query<Playlist>.where(\.titleKey == "evora days"))
                try expectEqual(found.map(\.id), ["p"], "an equality on the folded form finds the record")
                let sorted = try await lists.fetch(Query<Playlist>.all.sorted(by: \.titleKey))
                try expectEqual(sorted.map(\.id), ["p", "q"], "and it sorts")
            },
            ConformanceCheck(.derived, "derivedAttributesAreReadOnly") { c in
                let store = try await c.store(try MusicDomain.schema())
                try await store.repository(Playlist.self).insert(
                    Playlist(id: "p", title: "Road", titleKey: "wrong", label: "wrong", trackCount: 9, genreCount: 9))
                try expectEqual(try await counts(store, "p"), [0, 0], "a model's values are replaced by the save's")
                try expectEqual(try await playlist(store, "p").titleKey, "road")
                let before = try await StoreSnapshot.take(store)
                for (name, value) in [("trackCount", Value.int(5)), ("titleKey", .string("x"))] {
                    _ = try await expectError(.validationFailed, entity: "Playlist", property: name) {
                        try await store.transaction { tx in
                            try tx.update("Playlist", id: .string("p"), set: ["title": .string("New"), name: value])
                        }
                    }
                }
                try expectEqual(try await StoreSnapshot.take(store), before, "a refused patch writes nothing")
            },
            ConformanceCheck(.derived, "aStaleOrHandSetCountInAnUpdateIsNeverWritten") { c in
                let store = try await c.store(try MusicDomain.schema())
                let lists = store.repository(Playlist.self)
                try await lists.insert(Playlist(id: "p", title: "Road"))
                try await store.repository(Track.self).insert(contentsOf: [
                    Track(id: "t1", title: "One", playlist: "p"), Track(id: "t2", title: "Two", playlist: "p"),
                ])
                var model = try await playlist(store, "p")
                model.trackCount = 999
                model.genreCount = 7
                try await lists.update(model)
                try expectEqual(try await counts(store, "p"), [2, 0], "a count set by hand is not written")
                let stale = try await playlist(store, "p")
                try await store.repository(Track.self).insert(Track(id: "t3", title: "Three", playlist: "p"))
                var renamed = stale
                renamed.title = "Road again"
                try await lists.update(renamed)
                try expectEqual(
                    try await counts(store, "p"), [3, 0], "an update of a model read before a member came keeps it")
                try expectEqual(try await playlist(store, "p").title, "Road again")
                try await store.transaction { tx in
                    var inTransaction = stale
                    inTransaction.trackCount = 0
                    try tx.update(inTransaction)
                }
                try expectEqual(try await counts(store, "p"), [3, 0], "nor in a transaction")
                let context = store.makeContext()
                var held = try expectNotNil(try await context.fetch(Playlist.self, id: "p"))
                held.trackCount = 50
                try await context.update(held)
                try await context.save()
                try expectEqual(try await counts(store, "p"), [3, 0], "nor from a context")
                try await lists.insert(Playlist(id: "q", title: "Rain", trackCount: 4, genreCount: 4))
                try expectEqual(try await counts(store, "q"), [0, 0], "an insert counts its members, not the model")
            },
            ConformanceCheck(.derived, "aSyncServersApplyAndAClientsPullKeepDerivedValues") { c in
                let server = SyncServer(store: try await c.store(try MusicDomain.schema()))
                let transport = InProcessTransport(server: server)
                let a = try await c.store(try MusicDomain.schema()).withSync(SyncConfiguration(clientID: "a"))
                let b = try await c.store(try MusicDomain.schema()).withSync(SyncConfiguration(clientID: "b"))
                let (engineA, engineB) = (
                    try SyncEngine(store: a, remote: transport), try SyncEngine(store: b, remote: transport)
                )
                try await a.transaction { tx in
                    try tx.insert(Playlist(id: "p", title: "Road"))
                    try tx.insert(Track(id: "t1", title: "One", playlist: "p"))
                    try tx.insert(Track(id: "t2", title: "Two", playlist: "p"))
                }
                try await engineA.syncNow()
                try expectEqual(try await counts(server.store, "p"), [2, 0], "the server's apply computed the count")
                try await engineB.syncNow()
                try expectEqual(try await counts(b, "p"), [2, 0], "the pull kept it")
                try await b.repository(Track.self).delete("t1")
                try expectEqual(try await counts(b, "p"), [1, 0], "a local delete")
                try await engineB.syncNow()
                try expectEqual(try await counts(server.store, "p"), [1, 0], "the server's apply of a delete")
                try await engineA.syncNow()
                try expectEqual(try await counts(a, "p"), [1, 0], "a pulled delete of a member")
                try expectEqual(try await playlist(a, "p").titleKey, "road")
            },
        ] + migrations
}
