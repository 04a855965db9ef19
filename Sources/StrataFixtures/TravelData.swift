import Foundation
import Strata

/// A small seeded data set the query and relationship checks share.
///
/// People: Ana (34, Lisbon, gold, 4.5), Bruno (28, Porto, silver, no rating), Clara (no age, no
/// email, São Paulo, 3.0), Dário (45, Lisbon, 4.5 — ties with Ana on rating).
/// Trips: lisbonSpring (Ana, 1200, favourite, tags beach+city, stops Alfama/Belém/Sintra, agency Sol),
/// portoWine (Ana, 800, tag food, stop Ribeira, agency Sol), azoresHike (Bruno, no budget, favourite,
/// stop Ponta Delgada), saoPauloBusiness (no traveller, 2500), lisbonWinter (Clara, 300).
public struct TravelData: Sendable {
    /// 34, Lisbon, gold, rated 4.5.
    public var ana = Person(
        name: "Ana", email: "ana@example.com", age: 34,
        address: Address(city: "Lisbon", street: "Rua Augusta", postcode: "1100"),
        status: .gold, rating: 4.5, isVerified: true, birthDate: TravelDomain.day(-13_149), avatar: Data([1, 2, 3]))
    /// 28, Porto, silver, unrated.
    public var bruno = Person(
        name: "Bruno", email: "bruno@example.com", age: 28, address: Address(city: "Porto"), status: .silver,
        isVerified: false)
    /// No age or email, São Paulo, rated 3.0.
    public var clara = Person(name: "Clara", address: Address(city: "São Paulo"), rating: 3.0, isVerified: true)
    /// 45, Lisbon, rated 4.5.
    public var dario = Person(
        name: "Dário", email: "dario@example.com", age: 45, address: Address(city: "Lisbon"), rating: 4.5)

    /// The agency of Ana's trips.
    public var sol = Agency(id: 1, name: "Sol Travel")
    /// A tag.
    public var beach = Tag(id: "beach", label: "Beach")
    /// A tag.
    public var city = Tag(id: "city", label: "City")
    /// A tag.
    public var food = Tag(id: "food", label: "Food")

    /// Ana's favourite, 1200, three stops.
    public var lisbonSpring: Trip
    /// Ana's, 800, one stop.
    public var portoWine: Trip
    /// Bruno's favourite, no budget.
    public var azoresHike: Trip
    /// No traveller, 2500.
    public var saoPauloBusiness: Trip
    /// Clara's, 300.
    public var lisbonWinter: Trip

    /// A Lisbon stop of lisbonSpring, 2 nights.
    public var alfama: Stop
    /// A Lisbon stop of lisbonSpring.
    public var belem: Stop
    /// The Sintra stop of lisbonSpring.
    public var sintra: Stop
    /// The stop of portoWine, 3 nights.
    public var ribeira: Stop
    /// The stop of azoresHike, 4 nights.
    public var pontaDelgada: Stop

    /// The data set with fresh IDs.
    public init() {
        lisbonSpring = Trip(
            name: "Lisbon Spring", start: TravelDomain.day(59), end: TravelDomain.day(66), budget: 1200,
            isFavorite: true, traveller: ana.id, agency: sol.id)
        portoWine = Trip(
            name: "Porto Wine", start: TravelDomain.day(129), budget: 800, traveller: ana.id, agency: sol.id)
        azoresHike = Trip(name: "Açores Hike", start: TravelDomain.day(181), isFavorite: true, traveller: bruno.id)
        saoPauloBusiness = Trip(name: "São Paulo Business", start: TravelDomain.day(257), budget: 2500)
        lisbonWinter = Trip(name: "lisbon winter", start: TravelDomain.day(334), budget: 300, traveller: clara.id)
        alfama = Stop(name: "Alfama", city: "Lisbon", nights: 2, trip: lisbonSpring.id)
        belem = Stop(name: "Belém", city: "Lisbon", nights: 1, trip: lisbonSpring.id)
        sintra = Stop(name: "Sintra", city: "Sintra", nights: 1, trip: lisbonSpring.id)
        ribeira = Stop(name: "Ribeira", city: "Porto", nights: 3, trip: portoWine.id)
        pontaDelgada = Stop(name: "Ponta Delgada", city: "Ponta Delgada", nights: 4, trip: azoresHike.id)
    }

    /// Everyone.
    public var people: [Person] { [ana, bruno, clara, dario] }
    /// Every trip.
    public var trips: [Trip] { [lisbonSpring, portoWine, azoresHike, saoPauloBusiness, lisbonWinter] }
    /// Every stop.
    public var stops: [Stop] { [alfama, belem, sintra, ribeira, pontaDelgada] }

    /// Inserts everything in one save.
    @discardableResult
    public static func seed(_ store: Store) async throws -> TravelData {
        try await seed(store, with: TravelData())
    }

    /// Inserts `data` in one save: two stores seeded with one value hold the same records, IDs
    /// and versions.
    @discardableResult
    public static func seed(_ store: Store, with data: TravelData) async throws -> TravelData {
        try await store.transaction(author: "seed") { tx in
            for person in data.people { try tx.insert(person) }
            try tx.insert(data.sol)
            for tag in [data.beach, data.city, data.food] { try tx.insert(tag) }
            for trip in data.trips { try tx.insert(trip) }
            for stop in data.stops { try tx.insert(stop) }
            try tx.link(Trip.tags, from: data.lisbonSpring.id, to: data.beach.id)
            try tx.link(Trip.tags, from: data.lisbonSpring.id, to: data.city.id)
            try tx.link(Trip.tags, from: data.portoWine.id, to: data.food.id)
        }
        return data
    }
}
