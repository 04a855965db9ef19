// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import StrataMacros                    // @Model; re-exports Strata (or spell the entity out: see Modelling)
import StrataSQLite

@Model
struct Person {
    var id = UUID()
    @Attribute(rules: [.length(1...80)]) var name: String
    @Attribute(.unique, rules: [.pattern(#"[^@\s]+@[^@\s]+\.[a-z]{2,}"#)]) var email: String?
    @Relationship(deleteRule: .cascade) static var trips: ToMany<Person, Trip>
}

@Model
struct Trip {
    var id = UUID()
    var name: String
    @Attribute(.indexed) var start: Date
    @Relationship(inverse: Person.trips) var traveller: Person.ID?   // a to-one is the destination's ID
    @Relationship static var tags: ToMany<Trip, Tag>                 // many-to-many
    @Relationship(ordered: true, deleteRule: .cascade) static var stops: ToMany<Trip, Stop>  // ordered, owned
}

@Model
struct Tag {
    var id: String                     // IDs may be UUIDs, strings or Int64s
    @Attribute(.unique) var label: String
    @Relationship(inverse: Trip.tags) static var trips: ToMany<Tag, Trip>
}

@Model
struct Stop {
    var id = UUID()
    var name: String
    @Relationship(inverse: Trip.stops) var trip: Trip.ID     // required: every stop belongs to a trip
}

/// What a service layer looks like: async, Sendable, no managed objects — and generic over where
/// it works: a store (each unit of work its own save), a context (the caller saves), a `memory:`
/// store in tests.
struct TripService<Work: UnitOfWork>: Sendable {
    let work: Work

    func plan(_ name: String, for person: Person.ID, on start: Date, tagged label: String) async throws -> Trip {
        let trip = Trip(name: name, start: start, traveller: person)
        let tag = Tag(id: label.lowercased(), label: label)
        try await work.unitOfWork { unit in                                // one atomic save
            try await unit.repository(Trip.self).insert(trip)              // validated, inverse kept
            try await unit.repository(Tag.self).insertIfAbsent(tag)        // get-or-create, race-free
            try await unit.repository(Trip.self).link(Trip.tags, from: trip.id, to: tag.id)
        }
        return trip
    }

    func upcoming(for person: Person.ID) async throws -> [Trip] {
        try await work.repository(Trip.self).fetch(
            Query.where(\.traveller == person && \.start > .now).sorted(by: \.start).limit(20))
    }

    func itinerary(of trip: Trip.ID) async throws -> [Stop] {
        try await work.repository(Stop.self).fetch(
            Query.where(\.trip == trip).sorted(byPositionIn: Trip.stops, of: trip))  // the trip's order
    }

    func travellersNamed(_ name: String) async throws -> [Trip] {
        try await work.repository(Trip.self).fetch(
            where: .related(\.traveller, where: .equals(\Person.name, name, options: [.caseInsensitive, .diacriticInsensitive])))
    }

    func leave(_ person: Person.ID) async throws {
        try await work.repository(Person.self).delete(person)   // cascades to their trips
    }
}

/// At start-up.
func openStore(at path: String = "./app.sqlite") async throws -> Store {
    SQLiteBackend.register()                                     // once (import StrataSQLite)
    return try await Store.open("sqlite:\(path)", schema: try Schema(Person.self, Trip.self, Tag.self, Stop.self))
}

func importTrip(for ana: Person, on start: Date, into store: Store) async throws -> Trip {
    let lisbon = Trip(name: "Lisbon", start: start, traveller: ana.id)
    let alfama = Stop(name: "Alfama", trip: lisbon.id), belem = Stop(name: "Belém", trip: lisbon.id)
    try await store.transaction(author: "importer") { tx in
        try tx.insert(ana)
        try tx.insert(lisbon)
        try tx.insert(contentsOf: [alfama, belem])
        try tx.insert(Tag(id: "beach", label: "Beach"))
        try tx.link(Trip.tags, from: lisbon.id, to: "beach")                     // many-to-many
        try tx.setRelated(Trip.stops, of: lisbon.id, to: [belem.id, alfama.id])  // ordered to-many
        let count = try tx.count(Query<Trip>.where(\.traveller == ana.id))       // sees the insert
        assert(count == 1)
    }
    return lisbon
}

struct Bookings<Trips: ModelRepository<Trip>> {
    let trips: Trips
    func rename(_ id: Trip.ID, to name: String) async throws {
        guard var trip = try await trips.fetch(id) else { throw StrataError(.notFound, entity: "Trip", "no such trip") }
        trip.name = name
        try await trips.update(trip)
    }
}

func travelReport(_ trips: some ModelReading<Trip>, since day: Date) async throws {
    let (count, first, last) = try await trips.aggregate(.count, .min(\.start), .max(\.start), where: \.start >= day)
    print(count, "trips from", first ?? day, "to", last ?? day)
    for (traveller, trips, earliest) in try await trips.aggregate(.count, .min(\.start), groupedBy: \.traveller) {
        print(traveller?.uuidString ?? "nobody", trips, earliest ?? day)        // one row per traveller, nil first
    }
    let lisbon = try await trips.fetch(Query(#Predicate<Trip> { $0.name.contains("Lisbon") && $0.start >= day })
        .sorted(by: SortDescriptor(\Trip.start, order: .reverse)))              // Foundation's types, run in SQL
    print(lisbon.map(\.name))
}
