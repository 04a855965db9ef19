import Foundation
import StrataConformance
import StrataInMemory
import StrataMacros
import Testing

/// The travel models declared twice — with `@Model` and with the explicit `Entity(…)` form — build
/// identical schemas (shape, rules, names, defaults), and the macro's models save and load.
enum Declared {
    @Model("Person")
    struct Person: Equatable {
        var id = UUID()
        @Attribute(rules: [.length(1...80)]) var name: String
        @Attribute(.unique, rules: [.pattern(#"[^@\s]+@[^@\s]+\.[a-z]{2,}"#, named: "email")]) var email: String?
        var rating = 3
        @Timestamp(.creation) var joined: Date = .distantPast
        @Transient var greeting: String = "hello"
        @Relationship(deleteRule: .cascade) static var trips: ToMany<Person, Trip>
    }

    @Model("Trip")
    struct Trip: Equatable {
        var id = UUID()
        @Attribute(name: "title", rules: [.length(1...100)], renamedFrom: "label") var name: String
        @Attribute(.indexed) var start: Date
        @Attribute(.composite) var address: Address
        @Relationship(inverse: Person.trips) var traveller: Person.ID?
        @Relationship(inverse: Tag.trips) static var tags: ToMany<Trip, Tag>
        @Relationship(ordered: true, deleteRule: .cascade) static var stops: ToMany<Trip, Stop>
        static let constraints: [EntityMember<Trip>] = [.index(\.traveller, \.start)]
    }

    @Model("Tag")
    struct Tag: Equatable {
        var id: String
        @Attribute(.unique) var label: String
        @Relationship static let trips = ToMany<Tag, Trip>("trips")
    }

    @Model("Stop")
    struct Stop: Equatable {
        var id = UUID()
        var name: String
        @Attribute(.indexed) var sights: [String] = []
        var hours: [String: Int]?
        @Relationship(inverse: Trip.stops) var trip: Trip.ID
    }
}

enum Spelled {
    struct Person: PersistentModel {
        var id = UUID()
        var name: String
        var email: String?
        var rating = 3
        var joined: Date = .distantPast
        static let trips = ToMany<Person, Trip>("trips")
        static let entity = Entity<Person>(
            "Person",
            [
                .attribute(\.name, rules: [.length(1...80)]),
                .attribute(\.email, unique: true, rules: [.pattern(#"[^@\s]+@[^@\s]+\.[a-z]{2,}"#, named: "email")]),
                .attribute(\.rating, default: 3), .timestamp(\.joined, .creation),
                .toMany(trips, inverse: \Trip.traveller, deleteRule: .cascade),
            ])
    }

    struct Trip: PersistentModel {
        var id = UUID()
        var name: String
        var start: Date
        var address: Address
        var traveller: Person.ID?
        static let tags = ToMany<Trip, Tag>("tags")
        static let stops = ToMany<Trip, Stop>("stops")
        static let entity = Entity<Trip>(
            "Trip",
            [
                .attribute(\.name, name: "title", rules: [.length(1...100)], renamedFrom: "label"),
                .attribute(\.start, indexed: true), .composite(\.address),
                .toOne(\.traveller, Person.self, inverse: Person.trips), .toMany(tags, inverse: Tag.trips),
                .toMany(stops, inverse: \Stop.trip, ordered: true, deleteRule: .cascade), .index(\.traveller, \.start),
            ])
    }

    struct Tag: PersistentModel {
        var id: String
        var label: String
        static let trips = ToMany<Tag, Trip>("trips")
        static let entity = Entity<Tag>("Tag", [.attribute(\.label, unique: true), .toMany(trips, inverse: Trip.tags)])
    }

    struct Stop: PersistentModel {
        var id = UUID()
        var name: String
        var sights: [String] = []
        var hours: [String: Int]?
        var trip: Trip.ID
        static let entity = Entity<Stop>(
            "Stop",
            [
                .attribute(\.name), .attribute(\.sights, indexed: true), .attribute(\.hours),
                .toOne(\.trip, Trip.self, inverse: Trip.stops),
            ])
    }
}

@Suite struct MacroSchemaTests {
    static func declared() throws -> Schema {
        try Schema(Declared.Person.self, Declared.Trip.self, Declared.Tag.self, Declared.Stop.self)
    }

    @Test func theMacroAndTheExplicitFormBuildIdenticalSchemas() throws {
        let declared = try Self.declared()
        let spelled = try Schema(Spelled.Person.self, Spelled.Trip.self, Spelled.Tag.self, Spelled.Stop.self)
        #expect(SchemaDescription(declared) == SchemaDescription(spelled), "the shapes")
        #expect(SchemaFile(declared) == SchemaFile(spelled), "rules, names, defaults, delete rules, renames")
        #expect(declared.entity("Person")?.timestamps.map(\.name) == ["joined"])
        #expect(declared.entity("Person")?.attribute("greeting") == nil, "a transient is not stored")
    }

    @Test func aMacroModelSavesAndLoadsWithItsTransientLeftOut() async throws {
        let store = Store(backend: InMemoryBackend(schema: try Self.declared()))
        var ana = Declared.Person(name: "Ana", email: "ana@example.com")
        ana.greeting = "olá"
        try await store.repository(Declared.Person.self).insert(ana)
        let trip = Declared.Trip(name: "Lisbon", start: .now, address: Address(city: "Lisboa"), traveller: ana.id)
        try await store.repository(Declared.Trip.self).insert(trip)
        try await store.repository(Declared.Stop.self).insert(Declared.Stop(name: "Alfama", trip: trip.id))
        let read = try #require(try await store.repository(Declared.Person.self).fetch(ana.id))
        #expect(read.greeting == "hello", "a transient is not stored: it has its initial value")
        #expect(read.joined != .distantPast, "the creation stamp was kept by the engine")
        #expect(try await store.repository(Declared.Person.self).related(Declared.Person.trips, of: ana.id) == [trip])
        #expect(try await store.read { try $0.related(Declared.Trip.stops, of: trip.id) }.map(\.name) == ["Alfama"])
        let stored = try #require(try await store.read { try $0.record("Trip", id: trip.id.recordID) })
        #expect(stored["title"] == .string("Lisbon"), "stored under its declared name")
        #expect(try await store.repository(Declared.Trip.self).fetch(trip.id)?.name == "Lisbon", "and read back")
        #expect(try await store.repository(Declared.Trip.self).count(where: \.name == "Lisbon") == 1, "and queried")
        let broken = await #expect(throws: StrataError.self) {
            try await store.repository(Declared.Person.self).insert(Declared.Person(name: "Bo", email: "nope"))
        }
        #expect(
            broken?.clientMessage.hasSuffix("must match the email pattern") == true, "\(String(describing: broken))")
        try await store.repository(Declared.Person.self).delete(ana.id)
        #expect(try await store.repository(Declared.Stop.self).count() == 0, "the cascades ran")
    }
}
