// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Strata

func renameTrip(_ tripID: Trip.ID, in store: Store) async throws -> ContextSaveResult? {
    let context = store.makeContext(name: "editor", author: "ana", mergePolicy: .objectTrumpByProperty)
    guard var trip = try await context.fetch(Trip.self, id: tripID) else { return nil }
    trip.name = "Lisbon 2027"
    try await context.update(trip)                       // staged; context.hasChanges == true
    try await context.link(Trip.tags, from: trip.id, to: "beach")
    let mine = try await context.fetch(Query<Trip>.where(\.name == "Lisbon 2027"))  // sees its own changes
    assert(mine.count == 1)
    return try await context.save()                      // one atomic save; .conflicts lists what was merged
}

func watchUpcoming(in store: Store) async throws {
    for try await results in store.observe(Query<Trip>.where(\.start > .now).sorted(by: \.start)) {
        print(results.models.count, "trips;", results.diff.inserted.count, "new,", results.diff.removed.count, "gone")
    }
}
