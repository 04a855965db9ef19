import Foundation
import Strata

// The fixture domain's supporting entities (see TravelDomain.swift): Agency (Int64 IDs, a deny
// to-many, a nullify onto a required to-one), Passport (one-to-one), Photo (noAction both ways),
// Guide and Node (a cascade cycle).
/// Int64 IDs.
public struct Agency: PersistentModel, Equatable {
    public var id: Int64
    /// A unique name.
    public var name: String
    /// Its owner.
    public var owner: Person.ID?

    /// An agency.
    public init(id: Int64, name: String, owner: Person.ID? = nil) {
        self.id = id
        self.name = name
        self.owner = owner
    }

    /// Trips booked (deny).
    public static let bookings = ToMany<Agency, Trip>("bookings")
    /// Guides (nullified onto a required to-one).
    public static let guides = ToMany<Agency, Guide>("guides")

    public static let entity = Entity<Agency>(
        "Agency",
        [
            .attribute(\.name, unique: true),
            .toOne(\.owner, Person.self, inverse: Person.ownedAgencies),
            .toMany(bookings, inverse: \Trip.agency, deleteRule: .deny),
            .toMany(guides, inverse: \Guide.agency),
        ])
}

/// A passport, one-to-one with its owner.
public struct Passport: PersistentModel, Equatable {
    public var id: UUID
    /// The number.
    public var number: String
    /// The country.
    public var country: String
    /// Its owner.
    public var owner: Person.ID?

    /// A passport.
    public init(id: UUID = UUID(), number: String, country: String = "PT", owner: Person.ID? = nil) {
        self.id = id
        self.number = number
        self.country = country
        self.owner = owner
    }

    public static let entity = Entity<Passport>(
        "Passport",
        [
            .attribute(\.number, unique: true),
            .attribute(\.country, rules: [.length(2...2)]),
            .toOne(\.owner, Person.self, inverse: \Person.passport),
        ])
}

/// A photo a trip may use as its cover.
public struct Photo: PersistentModel, Equatable {
    public var id: UUID
    /// A caption.
    public var caption: String?
    /// The bytes.
    public var bytes: Data

    /// A photo.
    public init(id: UUID = UUID(), caption: String? = nil, bytes: Data = Data([0xFF, 0xD8])) {
        self.id = id
        self.caption = caption
        self.bytes = bytes
    }

    /// Trips using it as their cover (noAction).
    public static let coverOf = ToMany<Photo, Trip>("coverOf")

    public static let entity = Entity<Photo>(
        "Photo",
        [
            .attribute(\.caption),
            .attribute(\.bytes),
            .toMany(coverOf, inverse: \Trip.coverPhoto, deleteRule: .noAction),
        ])
}

/// A guide must belong to an agency: nullifying that reference fails validation.
public struct Guide: PersistentModel, Equatable {
    public var id: UUID
    /// The name.
    public var name: String
    /// The agency (required).
    public var agency: Agency.ID

    /// A guide.
    public init(id: UUID = UUID(), name: String, agency: Agency.ID) {
        self.id = id
        self.name = name
        self.agency = agency
    }

    public static let entity = Entity<Guide>(
        "Guide",
        [
            .attribute(\.name),
            .toOne(\.agency, Agency.self, inverse: Agency.guides),
        ])
}

/// A self-referential one-to-one that cascades both ways: a ring of nodes is a cascade cycle.
public struct Node: PersistentModel, Equatable {
    public var id: String
    /// A label.
    public var label: String
    /// The next node (cascade).
    public var next: Node.ID?
    /// The previous node (cascade).
    public var previous: Node.ID?

    /// A node.
    public init(id: String, label: String? = nil, next: Node.ID? = nil, previous: Node.ID? = nil) {
        self.id = id
        self.label = label ?? id
        self.next = next
        self.previous = previous
    }

    public static let entity = Entity<Node>(
        "Node",
        [
            .attribute(\.label),
            .toOne(\.next, Node.self, inverse: \Node.previous, deleteRule: .cascade),
            .toOne(\.previous, Node.self, inverse: \Node.next, deleteRule: .cascade),
        ])
}
