// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Contexts and merge policies article, "Undo and redo".
import Foundation
import Strata

func renameWithUndo(_ trip: Trip, to name: String, in context: ModelContext) async throws {
    await context.setUndoEnabled(true)
    try await context.undoGroup(named: "Rename Trip") { context in
        var renamed = trip
        renamed.name = name
        try await context.update(renamed)
        try await context.insertIfAbsent(Tag(id: "renamed", label: "Renamed"))
        try await context.link(Trip.tags, from: trip.id, to: "renamed")
    }
    try await context.undo()          // the name, the tag and the link, all back
    try await context.redo()          // and all again
    try await context.save()
}
