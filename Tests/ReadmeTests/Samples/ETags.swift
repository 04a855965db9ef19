// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Service layers article, "Versions, errors for clients, logs and metrics": the ETag round trip.
import Strata

/// GET answered `ETag: "<version>"`; this PUT carries it back in `If-Match`.
func rename(_ id: Trip.ID, to name: String, ifMatch etag: String, in store: Store) async throws -> String {
    let trips = store.repository(Trip.self)
    guard let current: Versioned<Trip> = try await trips.fetchVersioned(id) else {
        throw StrataError(.notFound, entity: "Trip", "no trip \(id)")                 // 404
    }
    guard etag == "\"\(current.version)\"" else {
        throw StrataError(.versionMismatch, entity: "Trip", "stale ETag \(etag)")     // 412
    }
    var renamed = current.model
    renamed.name = name
    try await trips.update(renamed, expectedVersion: current.version)  // 412 if saved meanwhile
    return "\"\(current.version + 1)\""                                           // the new ETag
}
