import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// A server holding Alice's people (Ana, Abe) and Bob's (Bo), with their trips, written by the
/// server itself; clients of Alice's that subscribe to parts of it.
struct SubscriptionWorld {
    let world: TransportWorld
    let ana: Person, abe: Person, bo: Person
    let lisbon: Trip, porto: Trip, rome: Trip, oslo: Trip

    static func make(_ c: ConformanceContext) async throws -> SubscriptionWorld {
        let world = try await TransportWorld.make(c, access: TransportWorld.travelScopes)
        let ana = Person(name: "Ana", email: "ana@a.example")
        let abe = Person(name: "Abe", email: "abe@a.example")
        let bo = Person(name: "Bo", email: "bo@b.example")
        let lisbon = Trip(name: "Lisbon", start: TravelDomain.day(1), traveller: ana.id)
        let porto = Trip(name: "Porto", start: TravelDomain.day(2), traveller: ana.id)
        let rome = Trip(name: "Rome", start: TravelDomain.day(3), traveller: abe.id)
        let oslo = Trip(name: "Oslo", start: TravelDomain.day(4), traveller: bo.id)
        try await world.server.store.transaction { tx in
            for person in [ana, abe, bo] { try tx.insert(person) }
            for trip in [lisbon, porto, rome, oslo] { try tx.insert(trip) }
            try tx.insert(Tag(id: "shared", label: "Shared"))
        }
        return SubscriptionWorld(
            world: world, ana: ana, abe: abe, bo: bo, lisbon: lisbon, porto: porto, rome: rome, oslo: oslo)
    }

    /// A client of Alice's whose remote counts its calls; `clock` is its wall clock.
    func client(
        _ id: String = "a", clock: ManualDate? = nil, localOnly: Set<String> = []
    ) async throws -> (Store, SyncEngine, ScriptedRemote) {
        let remote = ScriptedRemote(world.host.remote(tokens: FixedToken("token-a")))
        let now: @Sendable () -> Date
        if let clock { now = { clock.now } } else { now = { Date() } }
        let configuration = SyncConfiguration(clientID: id, clock: now, localOnly: localOnly)
        let store = try await world.context.store().withSync(configuration)
        return (store, try SyncEngine(store: store, remote: remote, options: .init(pullLimit: 2)), remote)
    }

    /// The names of the people and trips a store holds.
    static func names(_ store: Store) async throws -> (people: Set<String>, trips: Set<String>) {
        (
            Set(try await store.repository(Person.self).fetch().map(\.name)),
            Set(try await store.repository(Trip.self).fetch().map(\.name))
        )
    }

    /// A trip named "keep" of Ana's with a stop in Lisbon, written by the server.
    func keptTripWithALisbonStop() async throws -> (Trip, Stop) {
        let trip = Trip(name: "keep", start: TravelDomain.day(7), traveller: ana.id)
        let stop = Stop(name: "Alfama", city: "Lisbon", trip: trip.id)
        try await world.server.store.transaction { tx in
            try tx.insert(trip)
            try tx.insert(stop)
        }
        return (trip, stop)
    }

    /// Trips named "keep", and stops in Lisbon whatever their trip.
    static func keptTripsAndLisbonStops() throws -> [SyncSubscription] {
        let names: [Value] = [.string("keep")]
        return [
            try SyncSubscription("kept", Trip.self, where: "name in $names", parameters: ["names": .array(names)]),
            try SyncSubscription("lisbon", Stop.self, where: "city == $city", parameters: ["city": .string("Lisbon")]),
        ]
    }

    /// Subscribes to the people named `names` and their trips.
    static func people(_ name: String, _ names: [String], ttl: Duration? = nil) throws -> SyncSubscription {
        try SyncSubscription(
            name, Person.self, where: "name in $names", parameters: ["names": .array(names.map(Value.string))],
            including: ["trips"], timeToLive: ttl)
    }
}

/// A wall clock a check moves by hand.
final class ManualDate: Sendable {
    private let value = Mutex(Date(timeIntervalSinceReferenceDate: 800_000_000))
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
}
