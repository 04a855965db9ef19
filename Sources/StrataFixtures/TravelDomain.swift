import Foundation
import Strata

// The shared fixture domain. Every relationship kind and every delete rule appears:
// Person→trips cascade, Trip→traveller nullify, Trip→stops ordered cascade (Stop.trip required),
// Trip↔Tag many-to-many nullify, Person↔Tag ordered many-to-many (interests), Agency→bookings deny,
// Person↔Passport one-to-one cascade, Trip→coverPhoto noAction (and Photo→coverOf noAction),
// Agency→guides nullify onto a required to-one (Guide.agency), Person→ownedAgencies cascade (so a
// deny can sit deep in a cascade), and Node next/prev, a self-referential one-to-one cascading both
// ways (a cascade cycle). The schema also holds Sample (every value kind, indexed and plain:
// Sample.swift) and Shelf/Book/Chapter/Author (deny on every relationship storage, both ways:
// LibraryDomain.swift).

/// A composite attribute: stored as `address.city`, `address.street`, `address.postcode`.
public struct Address: CompositeAttribute, Equatable, Hashable {
    /// The city (indexed).
    public var city: String
    /// The street.
    public var street: String?
    /// The postcode (4 to 10 characters).
    public var postcode: String?

    /// An address.
    public init(city: String, street: String? = nil, postcode: String? = nil) {
        self.city = city
        self.street = street
        self.postcode = postcode
    }

    public static let fields: [CompositeField<Address>] = [
        .field(\.city, indexed: true), .field(\.street), .field(\.postcode, rules: [.length(4...10)]),
    ]
}

/// A member's status, stored by raw value.
public enum MemberStatus: String, Codable, CaseIterable, Sendable, AttributeConvertible {
    /// The default.
    case regular
    /// Silver.
    case silver
    /// Gold.
    case gold
}

/// A traveller: every value kind, a one-to-one, cascades and an ordered many-to-many.
public struct Person: PersistentModel, Equatable {
    public var id: UUID
    /// The name (1 to 80 characters).
    public var name: String
    /// A unique email.
    public var email: String?
    /// Age, 0 to 150.
    public var age: Int?
    /// A composite attribute.
    public var address: Address
    /// The status.
    public var status: MemberStatus
    /// A rating, 0 to 5.
    public var rating: Double?
    /// Whether verified.
    public var isVerified: Bool
    /// Birth date.
    public var birthDate: Date?
    /// An avatar.
    public var avatar: Data?
    /// The passport (one-to-one, cascade).
    public var passport: Passport.ID?

    /// A person.
    public init(
        id: UUID = UUID(), name: String, email: String? = nil, age: Int? = nil,
        address: Address = Address(city: "Lisbon"),
        status: MemberStatus = .regular, rating: Double? = nil, isVerified: Bool = false, birthDate: Date? = nil,
        avatar: Data? = nil, passport: Passport.ID? = nil
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.age = age
        self.address = address
        self.status = status
        self.rating = rating
        self.isVerified = isVerified
        self.birthDate = birthDate
        self.avatar = avatar
        self.passport = passport
    }

    /// Their trips (cascade).
    public static let trips = ToMany<Person, Trip>("trips")
    /// The agencies they own (cascade).
    public static let ownedAgencies = ToMany<Person, Agency>("ownedAgencies")
    /// Their interests (ordered many-to-many).
    public static let interests = ToMany<Person, Tag>("interests")

    public static let entity = Entity<Person>(
        "Person",
        [
            .attribute(\.name, rules: [.length(1...80)]),
            .attribute(\.email, unique: true, rules: [.pattern(#"[^@\s]+@[^@\s]+\.[a-z]{2,}"#)]),
            .attribute(\.age, rules: [.range(0...150)]),
            .composite(\.address),
            .attribute(\.status, default: .regular),
            .attribute(\.rating, rules: [.range(0.0...5.0)]),
            .attribute(\.isVerified, default: false),
            .attribute(\.birthDate),
            .attribute(\.avatar, rules: [.length(0...1_000_000)]),
            .toOne(\.passport, Passport.self, inverse: \Passport.owner, deleteRule: .cascade),
            .toMany(trips, inverse: \Trip.traveller, deleteRule: .cascade),
            .toMany(ownedAgencies, inverse: \Agency.owner, deleteRule: .cascade),
            .toMany(interests, inverse: Tag.people, ordered: true),
        ])
}

/// A trip: a to-one nullified, a deny inverse, noAction, ordered stops and limited tags.
public struct Trip: PersistentModel, Equatable {
    public var id: UUID
    /// The name.
    public var name: String
    /// The start (indexed).
    public var start: Date
    /// The end, not before the start.
    public var end: Date?
    /// The budget (indexed, not negative).
    public var budget: Double?
    /// Whether a favourite.
    public var isFavorite: Bool
    /// Who travels.
    public var traveller: Person.ID?
    /// The booking agency.
    public var agency: Agency.ID?
    /// The cover photo (noAction).
    public var coverPhoto: Photo.ID?

    /// A trip.
    public init(
        id: UUID = UUID(), name: String, start: Date, end: Date? = nil, budget: Double? = nil, isFavorite: Bool = false,
        traveller: Person.ID? = nil, agency: Agency.ID? = nil, coverPhoto: Photo.ID? = nil
    ) {
        self.id = id
        self.name = name
        self.start = start
        self.end = end
        self.budget = budget
        self.isFavorite = isFavorite
        self.traveller = traveller
        self.agency = agency
        self.coverPhoto = coverPhoto
    }

    /// Its stops, ordered (cascade).
    public static let stops = ToMany<Trip, Stop>("stops")
    /// Its tags (at most 5).
    public static let tags = ToMany<Trip, Tag>("tags")

    public static let entity = Entity<Trip>(
        "Trip",
        [
            .attribute(\.name, rules: [.length(1...100)]),
            .attribute(\.start, indexed: true),
            .attribute(\.end),
            .attribute(\.budget, indexed: true, rules: [.range(0.0...)]),
            .attribute(\.isFavorite, default: false),
            .toOne(\.traveller, Person.self, inverse: Person.trips),
            .toOne(\.agency, Agency.self, inverse: Agency.bookings),
            .toOne(\.coverPhoto, Photo.self, inverse: Photo.coverOf, deleteRule: .noAction),
            .toMany(stops, inverse: \Stop.trip, ordered: true, deleteRule: .cascade),
            .toMany(tags, inverse: Tag.trips, maxCount: 5),
            .unique(\.name, \.start),
            .check("endAfterStart", on: \.end) { trip in trip.end.map { $0 >= trip.start } ?? true },
        ])
}

/// A stop of a trip.
public struct Stop: PersistentModel, Equatable {
    public var id: UUID
    /// The name.
    public var name: String
    /// The city (indexed).
    public var city: String
    /// Nights, 0 to 365.
    public var nights: Int
    /// The trip (required).
    public var trip: Trip.ID

    /// A stop.
    public init(id: UUID = UUID(), name: String, city: String, nights: Int = 1, trip: Trip.ID) {
        self.id = id
        self.name = name
        self.city = city
        self.nights = nights
        self.trip = trip
    }

    public static let entity = Entity<Stop>(
        "Stop",
        [
            .attribute(\.name),
            .attribute(\.city),
            .attribute(\.nights, rules: [.range(0...365)]),
            .toOne(\.trip, Trip.self, inverse: Trip.stops),
            .index(\.city),
        ])
}

/// String IDs.
public struct Tag: PersistentModel, Equatable {
    public var id: String
    /// A unique label.
    public var label: String

    /// A tag.
    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }

    /// Trips with the tag.
    public static let trips = ToMany<Tag, Trip>("trips")
    /// People interested.
    public static let people = ToMany<Tag, Person>("people")

    public static let entity = Entity<Tag>(
        "Tag",
        [
            .attribute(\.label, unique: true),
            .toMany(trips, inverse: Trip.tags),
            .toMany(people, inverse: Person.interests),
        ])
}

/// The fixture schema.
public enum TravelDomain {
    /// Every model of the fixture schema.
    public static let models: [any PersistentModel.Type] = [
        Person.self, Trip.self, Stop.self, Tag.self, Agency.self, Passport.self, Photo.self, Guide.self, Node.self,
        Sample.self, Shelf.self, Book.self, Chapter.self, Author.self,
    ]

    /// The fixture schema.
    public static func schema() throws -> Schema { try Schema(models: models) }

    /// The fixture schema with full-text indexes — `name` on trips, `place` on stops (name
    /// weighing 2, city 1) — for the differential runs, which search with random edits going on.
    public static func searchableSchema() throws -> Schema {
        let indexes = [
            "Trip": SearchIndexDescription(name: "name", fields: [.init("name")]),
            "Stop": SearchIndexDescription(name: "place", fields: [.init("name", weight: 2), .init("city")]),
        ]
        return try Schema(
            entities: try schema().entities.map { entity in
                var searchable = entity
                if let index = indexes[entity.name] { searchable.searchIndexes = [index] }
                return searchable
            })
    }

    /// A fixed date `days` after 2026-01-01 (UTC), so results never depend on the clock.
    public static func day(_ days: Double, hours: Double = 0) -> Date {
        Date(timeIntervalSince1970: 1_767_225_600 + days * 86_400 + hours * 3_600)
    }
}
