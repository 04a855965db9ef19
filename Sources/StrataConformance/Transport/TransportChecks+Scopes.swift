import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Identities and scopes over the transport, and the feeds: long polls and resets.
extension TransportChecks {
    /// Alice's and Bob's people and trips, synced; a tag both may read.
    struct TwoUsers {
        let world: TransportWorld
        let a: Store, engineA: SyncEngine, b: Store, engineB: SyncEngine, remoteB: ScriptedRemote
        let ana: Person, tripA: Trip, bo: Person, tripB: Trip

        static func make(
            _ c: ConformanceContext, access: SyncAccess = TransportWorld.travelScopes,
            limits: SyncLimits = SyncLimits(rate: nil), bOptions: SyncEngine.Options = .init()
        ) async throws -> TwoUsers {
            let world = try await TransportWorld.make(c, access: access, limits: limits)
            let (a, engineA) = try await world.client("a", tokens: FixedToken("token-a"))
            let remoteB = ScriptedRemote(world.host.remote(tokens: FixedToken("token-b")))
            let b = try await c.store().withSync(SyncConfiguration(clientID: "b"))
            let engineB = try SyncEngine(store: b, remote: remoteB, options: bOptions)
            let ana = Person(name: "Ana", email: "ana@a.example")
            let tripA = Trip(name: "Lisbon", start: TravelDomain.day(1), traveller: ana.id)
            let bo = Person(name: "Bo", email: "bo@b.example")
            let tripB = Trip(name: "Oslo", start: TravelDomain.day(2), traveller: bo.id)
            try await a.transaction { tx in
                try tx.insert(ana)
                try tx.insert(tripA)
                try tx.insert(Tag(id: "shared", label: "Shared"))
            }
            try await b.transaction { tx in
                try tx.insert(bo)
                try tx.insert(tripB)
            }
            try await engineA.syncNow()
            try await engineB.syncNow()
            try await engineA.syncNow()
            return TwoUsers(
                world: world, a: a, engineA: engineA, b: b, engineB: engineB, remoteB: remoteB, ana: ana, tripA: tripA,
                bo: bo, tripB: tripB)
        }

        /// Every page of a snapshot the server gives Bob, its records in order.
        func bobsSnapshot() async throws -> [RemoteChange] {
            var page: SnapshotResponse? = try await world.server.snapshot(
                SnapshotRequest(clientID: "b", position: nil), as: TransportWorld.bob)
            var records: [RemoteChange] = []
            while let current = page {
                records += current.records
                page = try await current.next.asyncMap {
                    try await world.server.snapshot(
                        SnapshotRequest(clientID: "b", position: $0), as: TransportWorld.bob)
                }
            }
            return records
        }

        /// Every record ID Bob's client was ever sent with values.
        func receivedByB() async -> Set<RecordID> { await remoteB.receivedWithValues }
    }

    static let scopes: [ConformanceCheck] = [
        ConformanceCheck(.transport, "eachIdentityReadsOnlyItsScope") { c in
            let users = try await TwoUsers.make(c)
            try expectEqual(Set(try await users.b.repository(Person.self).fetch().map(\.id)), [users.bo.id])
            try expectEqual(Set(try await users.b.repository(Trip.self).fetch().map(\.id)), [users.tripB.id])
            try expectEqual(Set(try await users.a.repository(Person.self).fetch().map(\.id)), [users.ana.id])
            try expectNotNil(
                try await users.b.repository(Tag.self).fetch("shared"), "an unscoped entity reaches everyone")
            // A snapshot is scoped the same way.
            let seen = Set(try await users.bobsSnapshot().map(\.recordID))
            try expect(
                !seen.contains(.uuid(users.ana.id)) && !seen.contains(.uuid(users.tripA.id)),
                "Bob's snapshot holds none of Alice's records")
            try expect(seen.contains(.uuid(users.bo.id)) && seen.contains(.uuid(users.tripB.id)))
            let received = await users.receivedByB()
            try expect(
                !received.contains(.uuid(users.ana.id)) && !received.contains(.uuid(users.tripA.id)),
                "Bob's pulls carried none of Alice's records")
        },
        ConformanceCheck(.transport, "writesOutsideTheScopeAreRejected") { c in
            let users = try await TwoUsers.make(c)
            // Bob reaches for Alice's record, moves his own into her domain, and sets a server-owned property.
            try await users.b.repository(Person.self).insert(
                Person(id: users.ana.id, name: "Mallory", email: "mallory@b.example"))
            var moved = users.bo
            moved.email = "bo@a.example"
            try await users.b.repository(Person.self).update(moved)
            var verified = users.bo
            verified.isVerified = true
            try await users.b.repository(Person.self).update(verified)
            try await users.engineB.syncNow()
            let rejections = await users.engineB.rejections
            try expectEqual(rejections.count, 3, "\(rejections.map(\.reason))")
            try expect(
                rejections.allSatisfy { $0.code == StrataError.Code.permissionDenied.rawValue },
                "\(rejections.map(\.code))")
            let server = users.world.server.store.repository(Person.self)
            try expectEqual(try await server.fetch(users.ana.id)?.name, "Ana")
            try expectEqual(try await server.fetch(users.bo.id), users.bo)
            try expectEqual(
                try await users.b.repository(Person.self).fetch(users.bo.id), users.bo,
                "Bob's record restored from the server")
            try expect(
                try await users.b.repository(Person.self).fetch(users.ana.id) == nil,
                "the rejection did not hand Bob Alice's record")
            try expect(!(await users.receivedByB()).contains(.uuid(users.ana.id)))
            // Bob under Alice's client ID: refused, his outbox kept.
            let (thief, engine) = try await users.world.client("a", tokens: FixedToken("token-b"))
            try await thief.repository(Tag.self).insert(Tag(id: "stolen", label: "Stolen"))
            do {
                try await engine.syncNow()
                try expect(false, "another identity's client ID should be refused")
            } catch let error as SyncTransportError {
                try expectEqual(error.kind, .forbidden)
            }
            try expectEqual(await engine.status.authentication, .forbidden)
            try expectEqual(try await engine.pendingMutations().count, 1)
            try expect(try await users.world.server.store.repository(Tag.self).fetch("stolen") == nil)
        },
        ConformanceCheck(.transport, "aRecordLeavingTheScopeReachesItsReaderAsARemoval") { c in
            let users = try await TwoUsers.make(c)
            // The server hands Bob's trip to Ana, and deletes Ana's trip.
            var handed = users.tripB
            handed.traveller = users.ana.id
            try await users.world.server.store.repository(Trip.self).update(handed)
            try await users.world.server.store.repository(Trip.self).delete(users.tripA.id)
            try await users.engineB.syncNow()
            try await users.engineA.syncNow()
            try expectEqual(
                try await users.b.repository(Trip.self).count(), 0, "the trip left Bob's scope and his device")
            try expectEqual(Set(try await users.a.repository(Trip.self).fetch().map(\.id)), [users.tripB.id])
            let received = await users.remoteB.received
            try expect(
                !received.contains(where: { $0.id == .uuid(users.tripA.id) }),
                "Bob never hears of Alice's trip, not even its deletion")
        },
    ]
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
