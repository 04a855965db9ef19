// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Service layers article, "One parameter for a whole unit of work".
import Foundation
import Strata

struct Tagging<Work: UnitOfWork> {
    let work: Work

    /// Tags a trip, creating the tag on first use; both writes commit together or not at all.
    func tag(_ trip: Trip.ID, _ label: String) async throws {
        try await work.unitOfWork { unit in
            try await unit.repository(Tag.self).insertIfAbsent(Tag(id: label.lowercased(), label: label))
            try await unit.repository(Trip.self).link(Trip.tags, from: trip, to: label.lowercased())
        }
    }

    func tags(of trip: Trip.ID) async throws -> [Tag] {
        try await work.repository(Trip.self).related(Trip.tags, of: trip)
    }
}

func tagTwice(_ trip: Trip.ID, in store: Store) async throws {
    try await Tagging(work: store).tag(trip, "Beach")      // one save
    let context = store.makeContext()
    let tagging = Tagging(work: context)
    try await tagging.tag(trip, "Food")                     // staged here
    try await tagging.tag(trip, "Museums")
    try await context.save()                                // and both saved here
}
