import Foundation
import Strata
import StrataFixtures

/// The demo's live query: the results and each diff as saves land, from this store and from a
/// second store opened on the same file.
extension Demo {
    func showLiveQuery(_ store: Store, url: String, trip: Trip.ID) async throws {
        let query = Query<Stop>.where(\.nights >= 1).sorted(by: \.nights)
        var live = store.observe(query).makeAsyncIterator()
        func show(_ what: String) async throws {
            guard let results = try await live.next() else { return }
            let diff = results.diff
            var parts: [String] = []
            if !diff.removed.isEmpty { parts.append("removed at \(Array(diff.removed))") }
            if !diff.inserted.isEmpty { parts.append("inserted at \(Array(diff.inserted))") }
            if !diff.moved.isEmpty {
                parts.append("moved \(diff.moved.map { "\($0.from)→\($0.to)" }.joined(separator: ", "))")
            }
            if !diff.modified.isEmpty { parts.append("modified at \(Array(diff.modified))") }
            print("  \(what): \(results.models.map { "\($0.name)(\($0.nights))" })")
            if !parts.isEmpty { print("      diff: \(parts.joined(separator: "; "))") }
        }
        try await show("stops with a night or more, by nights")
        let stops = store.repository(Stop.self)
        let douro = Stop(name: "Douro", city: "Pinhão", nights: 2, trip: trip)
        try await stops.insert(douro)
        try await show("insert Douro (2 nights)")
        // Another entity: nothing to deliver.
        try await store.repository(Tag.self).insert(Tag(id: "wine", label: "Wine"))
        var longer = douro
        longer.nights = 9
        try await stops.update(longer)
        try await show("tag added (no value), then Douro → 9 nights")
        // A second store on the same file is another writer; its commit reaches this observer too.
        let location = try StoreLocation(url)
        if location.scheme == "sqlite" || location.scheme == "lmdb", location.path != ":memory:" {
            let second = try await Store.open(url, schema: store.schema)
            try await second.repository(Stop.self).delete(douro.id)
            try await show("deleted through a second store on the same file")
            try await second.close()
        } else {
            try await stops.delete(douro.id)
            try await show("delete Douro")
        }
    }
}
