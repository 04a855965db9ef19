import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A server whose trips their travellers' owners may share, with their stops; Alice's Lisbon
/// (two stops) and Porto, Bob's Oslo, written by the server; clients of Alice, Bob and Carol with
/// shares in their schema.
struct SharingWorld {
    let world: TransportWorld
    let schema: Schema
    let ana: Person, bo: Person
    let lisbon: Trip, porto: Trip, oslo: Trip
    let belem: Stop, sintra: Stop

    static let carol = SyncIdentity("carol", attributes: ["domain": "c.example"])

    /// Scopes by e-mail domain (``TransportWorld/travelScopes``, stops with their trips); a trip
    /// is its traveller's domain's to share, with its stops.
    static var access: SyncAccess {
        var access = TransportWorld.travelScopes
        access.scope(Stop.self) { identity in .related(\Stop.trip, where: ownedTrips(identity)) }
        access.shareable(Trip.self, ownedBy: { identity in ownedTrips(identity) }, including: ["stops"])
        return access
    }

    private static func ownedTrips(_ identity: SyncIdentity) -> Filter<Trip> {
        .related(\Trip.traveller, where: .hasSuffix(\Person.email, "@" + (identity.attributes["domain"] ?? "-")))
    }

    static func make(_ c: ConformanceContext, limits: SyncLimits = SyncLimits(rate: nil)) async throws -> SharingWorld {
        let schema = try Schema(models: TravelDomain.models + [SyncShare.self])
        var tokens = TransportWorld.tokens
        tokens["token-c"] = carol
        let world = try await TransportWorld.make(
            c, access: access, limits: limits, authenticator: StaticTokenAuthenticator(tokens), schema: schema)
        let ana = Person(name: "Ana", email: "ana@a.example")
        let bo = Person(name: "Bo", email: "bo@b.example")
        let lisbon = Trip(name: "Lisbon", start: TravelDomain.day(1), traveller: ana.id)
        let porto = Trip(name: "Porto", start: TravelDomain.day(2), traveller: ana.id)
        let oslo = Trip(name: "Oslo", start: TravelDomain.day(3), traveller: bo.id)
        let belem = Stop(name: "Belém", city: "Lisbon", trip: lisbon.id)
        let sintra = Stop(name: "Sintra", city: "Sintra", trip: lisbon.id)
        try await world.server.store.transaction { tx in
            for person in [ana, bo] { try tx.insert(person) }
            for trip in [lisbon, porto, oslo] { try tx.insert(trip) }
            for stop in [belem, sintra] { try tx.insert(stop) }
        }
        return SharingWorld(
            world: world, schema: schema, ana: ana, bo: bo, lisbon: lisbon, porto: porto, oslo: oslo, belem: belem,
            sintra: sintra)
    }

    /// A synced client of the identity behind `token`, its remote counting what it was sent.
    func client(_ id: String, token: String, options: SyncEngine.Options = .init()) async throws -> (
        Store, SyncEngine, ScriptedRemote
    ) {
        let remote = ScriptedRemote(world.host.remote(tokens: FixedToken(token)))
        let store = try await world.context.store(schema).withSync(SyncConfiguration(clientID: id))
        let engine = try SyncEngine(store: store, remote: remote, options: options)
        try await engine.syncNow()
        return (store, engine, remote)
    }

    /// Alice's client, having shared Lisbon with Bob in `role`.
    func alice(sharingWith participant: String = "bob", role: SyncShare.Role) async throws -> (
        Store, SyncEngine, SyncShare
    ) {
        let (store, engine, _) = try await client("a", token: "token-a")
        let share = SyncShare(Trip.self, lisbon.id, owner: "alice", with: participant, role: role)
        try await store.repository(SyncShare.self).insert(share)
        try await engine.syncNow()
        try expectEqual(await engine.rejections.map(\.reason), [], "Alice may share her own trip")
        return (store, engine, share)
    }

    /// A participant's edits of Lisbon: renamed Lisboa, a stop added (Cascais), one deleted
    /// (Sintra); returns the trip as renamed.
    func editLisbon(in store: Store) async throws -> Trip {
        var renamed = lisbon
        renamed.name = "Lisboa"
        try await store.repository(Trip.self).update(renamed)
        try await store.repository(Stop.self).insert(Stop(name: "Cascais", city: "Cascais", trip: lisbon.id))
        try await store.repository(Stop.self).delete(sintra.id)
        return renamed
    }

    /// The keys of every record a snapshot gives `identity`, through all its pages.
    func snapshot(as identity: SyncIdentity) async throws -> Set<RecordKey> {
        var keys: Set<RecordKey> = []
        var position: SnapshotPosition?
        repeat {
            let page = try await world.server.snapshot(
                SnapshotRequest(clientID: "snapshot-\(identity.id)", position: position), as: identity)
            keys.formUnion(page.records.map(\.key))
            position = page.next
        } while position != nil
        return keys
    }

    static func key<Model: PersistentModel>(_ type: Model.Type, _ id: UUID) -> RecordKey {
        RecordKey(entity: Model.entityName, id: .uuid(id))
    }

    /// The names of the trips and stops a store holds.
    static func names(_ store: Store) async throws -> (trips: Set<String>, stops: Set<String>) {
        (
            Set(try await store.repository(Trip.self).fetch().map(\.name)),
            Set(try await store.repository(Stop.self).fetch().map(\.name))
        )
    }
}
