import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// A service generic over ``UnitOfWork``: on a store each unit is one atomic save; on a context the
/// units stay pending for the caller's save, and a unit that throws undoes only its own changes.
@Suite struct UnitOfWorkTests {
    /// A service over three entities, one generic parameter.
    struct Booking<Work: UnitOfWork> {
        let work: Work
        struct Refused: Error {}

        /// Plans a trip with a tag created on first use; throws after staging when `refuse`.
        func plan(_ name: String, tag label: String, refuse: Bool = false) async throws -> Trip {
            let trip = Trip(name: name, start: Date(timeIntervalSinceReferenceDate: 0))
            try await work.unitOfWork { unit in
                try await unit.repository(Trip.self).insert(trip)
                try await unit.repository(Tag.self).insertIfAbsent(Tag(id: label, label: label))
                try await unit.repository(Trip.self).link(Trip.tags, from: trip.id, to: label)
                if refuse { throw Refused() }
            }
            return trip
        }

        func trips(tagged label: String) async throws -> [String] {
            try await work.repository(Tag.self).related(Tag.trips, of: label).map(\.name).sorted()
        }
    }

    static func store() throws -> Store { Store(backend: InMemoryBackend(schema: try TravelDomain.schema())) }

    @Test func onAStoreEachUnitIsOneSaveAndAThrowingUnitWritesNothing() async throws {
        let store = try Self.store()
        let booking = Booking(work: store)
        let history = try await store.history(after: nil).count
        _ = try await booking.plan("Lisbon", tag: "beach")
        #expect(try await store.history(after: nil).count == history + 1, "one save for three writes")
        #expect(try await booking.trips(tagged: "beach") == ["Lisbon"])
        await #expect(throws: Booking<Store>.Refused.self) {
            try await booking.plan("Porto", tag: "wine", refuse: true)
        }
        #expect(try await store.repository(Trip.self).count() == 1, "the refused unit wrote nothing")
        #expect(try await store.repository(Tag.self).fetch("wine") == nil)
    }

    @Test func aStoreUnitThatBreaksARuleThrowsItAndWritesNothing() async throws {
        let store = try Self.store()
        let booking = Booking(work: store)
        let error = try await #require(throws: StrataError.self) { try await booking.plan("", tag: "beach") }
        #expect(error.entity == "Trip", "\(error)")
        #expect(try await store.repository(Tag.self).count() == 0, "the tag of the refused unit is not saved")
    }

    @Test func onAContextUnitsStayPendingAndAThrowingUnitUndoesOnlyItsOwn() async throws {
        let store = try Self.store()
        let context = store.makeContext()
        let booking = Booking(work: context)
        _ = try await booking.plan("Lisbon", tag: "beach")
        await #expect(throws: Booking<ModelContext>.Refused.self) {
            try await booking.plan("Porto", tag: "beach", refuse: true)
        }
        #expect(try await booking.trips(tagged: "beach") == ["Lisbon"], "the context sees its first unit only")
        #expect(try await store.repository(Trip.self).count() == 0, "nothing saved before the caller saves")
        _ = try await booking.plan("Faro", tag: "beach")
        try await context.save()
        #expect(try await Booking(work: store).trips(tagged: "beach") == ["Faro", "Lisbon"])
        #expect(await context.hasChanges == false)
    }

    @Test func aThrowingUnitOnAContextRestoresAnEarlierPendingUpdate() async throws {
        let store = try Self.store()
        let lisbon = Trip(name: "Lisbon", start: Date(timeIntervalSinceReferenceDate: 0))
        try await store.repository(Trip.self).insert(lisbon)
        let context = store.makeContext()
        var renamed = lisbon
        renamed.name = "Lisboa"
        try await context.update(renamed)
        let staged = renamed
        await #expect(throws: Booking<ModelContext>.Refused.self) {
            try await context.unitOfWork { unit in
                var again = staged
                again.name = "Olissipo"
                try await unit.update(again)
                try await unit.delete(Trip.self, id: lisbon.id)
                throw Booking<ModelContext>.Refused()
            }
        }
        #expect(try await context.fetch(Trip.self, id: lisbon.id)?.name == "Lisboa", "the earlier change stays")
        #expect(await context.pendingChanges.updated.count == 1)
        try await context.save()
        #expect(try await store.repository(Trip.self).fetch(lisbon.id)?.name == "Lisboa")
    }

    @Test func genericCodeGetsTheRepositoryOfTheStoreOrTheContext() async throws {
        let store = try Self.store()
        func kind<Work: UnitOfWork>(_ work: Work) -> String { "\(type(of: work.repository(Trip.self)))" }
        #expect(kind(store).hasPrefix("Repository<"))
        #expect(kind(store.makeContext()).hasPrefix("ContextRepository<"))
        let concrete: Repository<Trip> = store.repository(Trip.self)
        #expect(concrete.store === store, "concrete code keeps the concrete repository")
    }
}
