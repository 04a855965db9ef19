import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataTools
import Testing

/// Service code written once against the repository protocols: run with each call its own save,
/// inside a unit of work, and against a test double; versions for optimistic updates; errors a
/// client may see; reopening keeps the configuration.
@Suite struct ServiceLayerTests {
    /// A service as an app writes it: it knows only the protocol.
    struct Planner<Trips: ModelRepository<Trip>> {
        let trips: Trips
        func plan(_ name: String, on day: Date) async throws -> Trip {
            let trip = Trip(name: name, start: day)
            try await trips.insert(trip)
            return trip
        }
        func favourite(_ id: Trip.ID) async throws {
            guard var trip = try await trips.fetch(id) else {
                throw StrataError(.notFound, entity: "Trip", "no such trip")
            }
            trip.isFavorite = true
            try await trips.update(trip)
        }
        func favourites() async throws -> [Trip] { try await trips.fetch(where: \Trip.isFavorite == true) }
    }

    /// A test double: no store at all.
    actor FakeTrips: ModelRepository {
        typealias Model = Trip
        var byID: [Trip.ID: Trip] = [:]
        func fetch(_ id: Trip.ID) async throws -> Trip? { byID[id] }
        /// A fake need not evaluate queries: the test chooses what it holds.
        func fetch(_ query: Query<Trip>) async throws -> [Trip] {
            byID.values.sorted { $0.id.uuidString < $1.id.uuidString }
        }
        func fetch(_ query: Query<Trip>, after cursor: PageCursor?) async throws -> Page<Trip> {
            Page(models: try await fetch(query), next: nil)
        }
        func count(_ query: Query<Trip>) async throws -> Int { try await fetch(query).count }
        func related<D: PersistentModel>(_ relationship: ToMany<Trip, D>, of id: Trip.ID) async throws -> [D] { [] }
        func insert(_ model: Trip) async throws { byID[model.id] = model }
        func update(_ model: Trip) async throws { byID[model.id] = model }
        func fetchVersioned(_ id: Trip.ID) async throws -> Versioned<Trip>? {
            byID[id].map { Versioned(model: $0, version: 1) }
        }
        func update(_ model: Trip, expectedVersion: Int64) async throws { byID[model.id] = model }
        func delete(_ id: Trip.ID) async throws { byID[id] = nil }
        func link<D: PersistentModel>(_ relationship: ToMany<Trip, D>, from source: Trip.ID, to destination: D.ID)
            async throws
        {}
        func unlink<D: PersistentModel>(_ relationship: ToMany<Trip, D>, from source: Trip.ID, to destination: D.ID)
            async throws
        {}
        func setRelated<D: PersistentModel>(
            _ relationship: ToMany<Trip, D>, of source: Trip.ID, to destinations: [D.ID]
        ) async throws {}
    }

    @Test func oneServiceRunsWithAutoCommitInAUnitOfWorkAndOnAFake() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

        let auto = Planner(trips: store.repository(Trip.self))
        let saved = try await auto.plan("Porto", on: day)
        try await auto.favourite(saved.id)
        #expect(try await store.repository(Trip.self).fetch(saved.id)?.isFavorite == true, "each call saved")

        let context = store.makeContext()
        let unit = Planner(trips: context.repository(Trip.self))
        let staged = try await unit.plan("Faro", on: day)
        try await unit.favourite(staged.id)
        #expect(
            try await unit.favourites().map(\.name).sorted() == ["Faro", "Porto"],
            "the unit of work sees its own changes")
        #expect(try await store.repository(Trip.self).fetch(staged.id) == nil, "nothing saved yet")
        try await context.save()
        #expect(try await store.repository(Trip.self).fetch(staged.id)?.isFavorite == true)

        let fake = Planner(trips: FakeTrips())
        let faked = try await fake.plan("Braga", on: day)
        try await fake.favourite(faked.id)
        #expect(try await fake.favourites().map(\.name) == ["Braga"])
    }

    @Test func aContextsKeysetPagesIncludeItsPendingChanges() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let trips = (0..<5).map {
            Trip(name: "T\($0)", start: Date(timeIntervalSinceReferenceDate: Double($0) * 86_400))
        }
        try await store.repository(Trip.self).insert(contentsOf: Array(trips.prefix(3)))
        let context = store.makeContext()
        for trip in trips.suffix(2) { try await context.insert(trip) }
        let query = Query<Trip>.all.sorted(by: \.start).limit(2)
        var names: [String] = []
        var cursor: PageCursor?
        repeat {
            let page = try await context.repository(Trip.self).fetch(query, after: cursor)
            names += page.models.map(\.name)
            cursor = page.next
        } while cursor != nil
        #expect(names == ["T0", "T1", "T2", "T3", "T4"])
    }

    @Test func aStaleVersionIsAConflictAndClientsSeeNoOtherRecords() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let trips = store.repository(Trip.self)
        let trip = Trip(name: "Lisbon", start: Date(timeIntervalSinceReferenceDate: 0))
        try await trips.insert(trip)
        let read = try #require(try await trips.fetchVersioned(trip.id))
        #expect(read.version == 1 && read.model == trip)
        var renamed = read.model
        renamed.name = "Lisboa"
        try await trips.update(renamed, expectedVersion: read.version)
        renamed.name = "Lisbon again"
        let stale = try await #require(throws: StrataError.self) {
            try await trips.update(renamed, expectedVersion: read.version)
        }
        #expect(stale.code == .versionMismatch && stale.httpStatus == 412, "If-Match failed: 412")
        #expect(try await trips.fetch(trip.id)?.name == "Lisboa", "nothing written")
        #expect(stale.clientMessage == "not at the version the request expected (Trip)")
        #expect(!stale.clientMessage.contains(trip.id.uuidString), "no record IDs for clients")
        let missing = try await #require(throws: StrataError.self) {
            try await trips.update(Trip(name: "X", start: Date()), expectedVersion: 1)
        }
        #expect(missing.code == .notFound && missing.httpStatus == 404)
        let unique = StrataError(
            .uniqueViolation, entity: "Trip", recordID: .uuid(UUID()), property: "name,start", "Trip(…) already has it")
        #expect(unique.clientMessage == "a value that must be unique is already taken (Trip.name,start)")
        #expect(
            StrataError(.corruptStore, "/var/lib/app.sqlite: page 7").clientMessage
                == "the service could not complete the request")
    }

    @Test func aUnitOfWorkChecksTheVersionItRead() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let trip = Trip(name: "Lisbon", start: Date(timeIntervalSinceReferenceDate: 0))
        try await store.repository(Trip.self).insert(trip)
        let context = store.makeContext(mergePolicy: .error)
        let trips = context.repository(Trip.self)
        let read = try #require(try await trips.fetchVersioned(trip.id))
        #expect(read.version == 1)
        var renamed = read.model
        renamed.name = "Lisboa"
        let stale = try await #require(throws: StrataError.self) { try await trips.update(renamed, expectedVersion: 2) }
        #expect(stale.code == .versionMismatch)
        #expect(await context.hasChanges == false, "nothing staged")
        try await trips.update(renamed, expectedVersion: 1)
        let fresh = Trip(name: "Faro", start: Date(timeIntervalSinceReferenceDate: 0))
        try await trips.insert(fresh)
        #expect(try await trips.fetchVersioned(fresh.id)?.version == 0, "inserted here, never saved")
        var other = trip
        other.name = "Elsewhere"
        try await store.repository(Trip.self).update(other)
        let conflict = try await #require(throws: StrataError.self) { try await context.save() }
        #expect(conflict.code == .mergeConflict, "another writer saved after the read: the .error policy refuses")
        #expect(try await store.repository(Trip.self).fetchVersioned(trip.id)?.version == 2)
    }

    @Test func reopeningKeepsTheSyncConfiguration() async throws {
        InMemoryBackend.register()
        let name = "reopen-\(UUID().uuidString.prefix(8))"
        let store = try await Store.open(
            "memory:\(name)", schema: try TravelDomain.schema(),
            options: OpenOptions(sync: SyncConfiguration(clientID: "phone")))
        let reopened = try await store.reopen()
        #expect(reopened.sync?.clientID == "phone")
        try await reopened.repository(Tag.self).insert(Tag(id: "beach", label: "Beach"))
        #expect(try await reopened.inspect().sync.pendingMutations == 1, "the outbox still records writes")
        await #expect(throws: StrataError.self) { try await store.repository(Tag.self).count() }
        try await reopened.close()
        let wrapped = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let error = try await #require(throws: StrataError.self) { try await wrapped.reopen() }
        #expect(error.code == .unsupportedStore)
    }

    @Test func aToOneFilterNamesItsDestinationType() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let ana = Person(name: "Ana")
        try await store.repository(Person.self).insert(ana)
        try await store.repository(Trip.self).insert(contentsOf: [
            Trip(name: "With", start: Date(), traveller: ana.id), Trip(name: "Without", start: Date()),
        ])
        let with = try await store.repository(Trip.self).fetch(where: .related(\.traveller, to: Person.self))
        #expect(with.map(\.name) == ["With"])
        let named = try await store.repository(Trip.self).count(
            where: .related(\.traveller, to: Person.self, where: \.name == "Ana"))
        #expect(named == 1)
    }
}
