// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Queries article, "Streamed reads in batches".
import Foundation
import Strata

func exportTrips(from store: Store, to sink: (Trip, [Stop]) throws -> Void) async throws -> Int {
    var exported = 0
    let trips = store.repository(Trip.self)
    for try await (trip, stops) in trips.stream(Query<Trip>.all.sorted(by: \.start), batchSize: 500, including: Trip.stops) {
        try sink(trip, stops)
        exported += 1
    }
    return exported
}
