// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Contexts and merge policies article, "Nested contexts".
import Foundation
import Strata

func editTrip(_ trip: Trip, in context: ModelContext, confirm: (Trip) async -> Bool) async throws {
    let sheet = context.makeChildContext(name: "sheet")
    var edited = trip
    edited.name = trip.name.uppercased()
    try await sheet.update(edited)
    try await sheet.insertIfAbsent(Tag(id: "edited", label: "Edited"))
    try await sheet.link(Trip.tags, from: trip.id, to: "edited")
    guard await confirm(edited) else { return }   // dropped: the context never saw it
    try await sheet.save()                          // into the context, checked as a save would be
    try await context.save()                        // to the store, in one transaction
}
