import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

enum OfflineFirstChecks {
    static var all: [ConformanceCheck] {
        basics + SyncFault.allCases.map(exactlyOnce) + PolicyForSync.allCases.map(convergence) + settling + retries
            + values + clientIDs
    }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.offlineFirst, "outboxRecordsEverySaveInTheSameTransaction") { c in
            let world = try await SyncWorld.make(c)
            let (store, engine) = try await world.client("phone")
            let ana = Person(name: "Ana", email: "ana@example.com")
            let trip = Trip(name: "Lisbon", start: TravelDomain.day(10), traveller: ana.id)
            let stop = Stop(name: "Alfama", city: "Lisbon", trip: trip.id)
            try await store.transaction { tx in
                try tx.insert(ana)
                try tx.insert(Tag(id: "city", label: "City"))
                try tx.insert(trip)
                try tx.insert(stop)
                try tx.link(Trip.tags, from: trip.id, to: "city")
            }
            var mutations = try await engine.pendingMutations()
            try expectEqual(mutations.count, 4)
            try expectEqual(mutations.map(\.id.sequence), [1, 2, 3, 4], "stable, ordered mutation IDs")
            try expect(mutations.allSatisfy { $0.id.clientID == "phone" && $0.kind == .put && $0.isInsert })
            let tripPut = try expectNotNil(mutations.first { $0.recordID == .uuid(trip.id) })
            try expectEqual(tripPut.values["name"], "Lisbon")
            // The many-to-many travels with the side that keeps the link list (Tag.trips).
            let tagPut = try expectNotNil(mutations.first { $0.recordID == .string("city") })
            try expectEqual(tagPut.links["trips"]?.added, [.uuid(trip.id)])
            // A save that fails appends nothing.
            try await expectRejected(store, .validationFailed) {
                try await store.repository(Person.self).insert(Person(name: ""))
            }
            try expectEqual(try await engine.pendingMutations().count, 4)
            // An update carries only what changed; a delete carries its cascade.
            var renamed = ana
            renamed.age = 35
            try await store.repository(Person.self).update(renamed)
            try await store.repository(Person.self).delete(ana.id)
            mutations = try await engine.pendingMutations()
            let update = try expectNotNil(mutations.dropFirst(4).first)
            try expectEqual(update.kind, .put)
            try expectEqual(Array(update.values.keys), ["age"])
            let deleted = Set(mutations.dropFirst(5).filter { $0.kind == .delete }.map(\.recordID))
            try expectEqual(
                deleted, [.uuid(ana.id), .uuid(trip.id), .uuid(stop.id)], "cascaded deletes are in the outbox")
            // A store without sync writes no outbox.
            let plain = store.withSync(nil)
            try await plain.repository(Tag.self).insert(Tag(id: "food", label: "Food"))
            try expectEqual(try await engine.pendingMutations().count, mutations.count)
            try expectEqual(try await engine.refreshStatus().pendingCount, mutations.count)
        },
        ConformanceCheck(.offlineFirst, "writesMadeOfflineSurviveReopen", requires: [.reopen]) { c in
            let world = try await SyncWorld.make(c)
            let offline = FaultInjectingRemote(world.transport, faults: [.offline(attempts: 100)])
            let (store, engine) = try await world.client("laptop", remote: offline)
            let data = try await TravelData.seed(store)
            var ana = data.ana
            ana.age = 40
            try await store.repository(Person.self).update(ana)
            do {
                try await engine.syncNow()
                try expect(false, "an offline sync should fail")
            } catch is SyncTransportError {}
            let pending = try await engine.pendingMutations().count
            try expectEqual(pending, 19, "18 seeded records and one update")
            let reopened = try await c.reopen(store).withSync(SyncConfiguration(clientID: "laptop"))
            let online = try SyncEngine(store: reopened, remote: world.transport)
            try expectEqual(try await online.pendingMutations().count, pending, "the outbox survived the reopen")
            try await online.syncNow()
            try expectEqual(try await world.server.store.repository(Person.self).fetch(data.ana.id)?.age, 40)
            try await expectSettled([reopened], server: world.server)
        },
        ConformanceCheck(.offlineFirst, "aCascadeDeleteOnOneClientReachesTheServerAndTheOtherClient") { c in
            let (world, a, engineA, b, engineB, data) = try await SyncWorld.twoSyncedClients(c)
            try expectEqual(try await b.repository(Stop.self).count(), 5)
            try await a.repository(Person.self).delete(data.ana.id)
            try await engineA.syncNow()
            try await engineB.syncNow()
            for store in [world.server.store, b] {
                try expectEqual(try await store.repository(Person.self).fetch(data.ana.id), nil)
                try expectEqual(try await store.repository(Trip.self).count(where: \.traveller == data.ana.id), 0)
                try expectEqual(try await store.repository(Stop.self).count(), 1, "only the Açores stop is left")
            }
            try await expectSettled([a, b], server: world.server)
        },
        ConformanceCheck(.offlineFirst, "aNoActionDanglingReferenceTravelsAsItIs") { c in
            let world = try await SyncWorld.make(c)
            let (a, engineA) = try await world.client("a")
            let (b, engineB) = try await world.client("b")
            let data = try await TravelData.seed(a)
            let photo = Photo(caption: "cover")
            try await a.transaction { tx in
                try tx.insert(photo)
                var trip = data.portoWine
                trip.coverPhoto = photo.id
                try tx.update(trip)
            }
            try await engineA.syncNow()
            try await engineB.syncNow()
            try await a.repository(Photo.self).delete(photo.id)
            try await engineA.syncNow()
            try await engineB.syncNow()
            // A client that starts now receives the trip with its reference already dangling.
            let (late, engineLate) = try await world.client("late")
            try await engineLate.syncNow()
            for store in [world.server.store, b, late] {
                try expectEqual(
                    try await store.repository(Trip.self).fetch(data.portoWine.id)?.coverPhoto, photo.id,
                    "noAction leaves the reference")
                try expectEqual(try await store.repository(Photo.self).fetch(photo.id), nil)
            }
            try await expectSettled([a, b, late], server: world.server)
        },
        ConformanceCheck(.offlineFirst, "serverPoliciesRejectStaleWritesOrDecideInCode") { c in
            let world = try await SyncWorld.make(
                c,
                policies: [
                    "Person": .rejectStale,
                    // Tags keep the longest label anyone sent.
                    "Tag": .custom { stored, mutation in
                        guard case .string(let label)? = mutation.values["label"],
                            case .string(let current) = stored["label"]
                        else { return mutation.values }
                        return label.count >= current.count ? mutation.values : [:]
                    },
                ])
            let (a, engineA) = try await world.client("a")
            let (b, engineB) = try await world.client("b")
            let data = try await TravelData.seed(a)
            try await engineA.syncNow()
            try await engineB.syncNow()
            var first = data.ana
            first.age = 40
            try await a.repository(Person.self).update(first)
            var second = data.ana
            second.age = 41
            try await b.repository(Person.self).update(second)
            try await b.repository(Tag.self).update(Tag(id: "city", label: "City and coast"))
            try await a.repository(Tag.self).update(Tag(id: "city", label: "Town"))
            try await engineA.syncNow()
            try await engineB.syncNow()
            try await engineA.syncNow()
            try expectEqual(
                await engineB.rejections.map(\.code), ["mergeConflict"],
                "B wrote against a server version A had replaced")
            try expectEqual(
                try await b.repository(Person.self).fetch(data.ana.id)?.age, 40,
                "B's record was restored from the server")
            try expectEqual(
                try await world.server.store.repository(Tag.self).fetch("city")?.label, "City and coast",
                "the custom rule kept the longer label")
            try await expectSettled([a, b], server: world.server)
        },
        ConformanceCheck(.offlineFirst, "badMutationsAreRejectedWithTypedReasonsAndChangeNothing") { c in
            let world = try await SyncWorld.make(c)
            let data = try await TravelData.seed(world.server.store)
            let before = try await StoreSnapshot.take(world.server.store)
            let stamp = HybridTimestamp(millis: 1, node: "rogue")
            func put(
                _ sequence: UInt64, _ entity: String, _ id: RecordID, _ values: [String: Value], insert: Bool = false
            ) -> SyncMutation {
                SyncMutation(
                    id: MutationID(clientID: "rogue", sequence: sequence), kind: .put, entity: entity, recordID: id,
                    isInsert: insert, values: values, timestamp: stamp)
            }
            let request = PushRequest(
                clientID: "rogue",
                mutations: [
                    put(1, "Person", .uuid(data.ana.id), ["age": "old"]),
                    put(2, "Person", .uuid(data.ana.id), ["shoeSize": 42]),
                    put(3, "Spaceship", .int(1), ["name": "x"], insert: true),
                    put(
                        4, "Person", .uuid(UUID()),
                        ["name": "Copy", "address.city": "Porto", "email": "bruno@example.com"], insert: true),
                    put(
                        5, "Trip", .uuid(UUID()),
                        ["name": "Orphan", "start": .date(TravelDomain.day(1)), "traveller": .uuid(UUID())],
                        insert: true),
                ])
            let response = try await InProcessTransport(server: world.server).push(request)
            try expectEqual(response.results.map(\.outcome), Array(repeating: .rejected, count: 5))
            try expectEqual(
                response.results.map(\.code),
                ["typeMismatch", "unknownProperty", "unknownEntity", "uniqueViolation", "invalidReference"])
            try expect(
                response.results[0].reason?.contains("Person(\(data.ana.id)).age") == true,
                "the reason names entity, record and property")
            try expectEqual(try await StoreSnapshot.take(world.server.store), before, "the server's store is unchanged")
            // Retried, the same mutations get the same answers, not a silent "duplicate".
            let again = try await world.server.push(request)
            try expectEqual(again.results.map(\.code), response.results.map(\.code))
        },
        ConformanceCheck(.offlineFirst, "aRejectedMutationIsReportedAndTheRecordRestored") { c in
            let (world, a, engineA, b, engineB, data) = try await SyncWorld.twoSyncedClients(c)
            // A takes an email and deletes Dário; B, not yet aware, takes the same email and edits Dário.
            try await a.repository(Person.self).insert(Person(name: "Eva", email: "eva@example.com"))
            try await a.repository(Person.self).delete(data.dario.id)
            try await engineA.syncNow()
            let twin = Person(name: "Eva B", email: "eva@example.com")
            try await b.repository(Person.self).insert(twin)
            var dario = data.dario
            dario.age = 46
            try await b.repository(Person.self).update(dario)
            let report = try await engineB.syncNow()
            try expectEqual(report.rejected, 2)
            let rejections = await engineB.rejections
            try expectEqual(Set(rejections.map(\.code)), ["uniqueViolation", "notFound"])
            try expect(rejections.allSatisfy { !$0.reason.isEmpty }, "each rejection says why")
            try expectEqual(
                try await b.repository(Person.self).fetch(twin.id), nil, "the refused insert is undone locally")
            try expectEqual(
                try await b.repository(Person.self).fetch(data.dario.id), nil, "the server's delete is restored")
            try await expectSettled([a, b], server: world.server)
        },
    ]

    static func exactlyOnce(_ fault: SyncFault) -> ConformanceCheck {
        ConformanceCheck(.offlineFirst, "pushAppliesEachMutationExactlyOnce_\(fault.rawValue)") { c in
            let world = try await SyncWorld.make(c)
            let remote = FaultInjectingRemote(world.transport, faults: fault.faults)
            let (store, engine) = try await world.client("tablet", remote: remote, options: .init(batchSize: 4))
            var people: [Person] = []
            for index in 0..<6 {
                let person = Person(name: "P\(index)", email: "p\(index)@example.com")
                people.append(person)
                try await store.repository(Person.self).insert(person)
            }
            var first = people[0]
            first.age = 30
            try await store.repository(Person.self).update(first)
            try await store.repository(Person.self).delete(people[1].id)
            try await store.repository(Tag.self).insert(Tag(id: "t", label: "T"))
            try await store.repository(Person.self).link(Person.interests, from: people[2].id, to: "t")
            let sent = try await engine.pendingMutations()
            try expectEqual(sent.count, 10, "6 inserts, an update, a delete, the tag, and the link on its owning side")
            let failures = try await syncUntilSettled(engine)
            if fault != .slow { try expect(failures > 0, "the fault was injected") }
            try expectEqual(
                await engine.rejections.count, 0, "a mutation applied twice would have been refused (duplicate ID)")
            try expectEqual(try await world.server.lastAppliedSequence(of: "tablet"), sent.last?.id.sequence ?? 0)
            // The server's history holds exactly one insert per inserted record.
            let history = try await world.server.store.history()
            for person in people {
                let inserts = history.flatMap(\.changes).filter { $0.kind == .insert && $0.id == .uuid(person.id) }
                try expectEqual(inserts.count, 1, "\(person.name) inserted once")
            }
            try expectEqual(try await world.server.store.repository(Person.self).fetch(people[0].id)?.age, 30)
            try await expectSettled([store], server: world.server)
        }
    }

    static func convergence(_ policy: PolicyForSync) -> ConformanceCheck {
        ConformanceCheck(.offlineFirst, "twoClientsConverge_\(policy.rawValue)") { c in
            let world = try await SyncWorld.make(c)
            // A's edit is made later than B's on A's clock, so under lastWriterWins A's edit wins.
            let clockA = ManualClock(Date(timeIntervalSince1970: 2_000_000))
            let (a, engineA) = try await world.client("a", clock: { clockA.now })
            let uploadDown = FaultInjectingRemote(world.transport)
            let (b, engineB) = try await world.client(
                "b", remote: uploadDown, options: .init(policies: ["Person": policy.policy]),
                clock: { Date(timeIntervalSince1970: 1_000_000) })
            let data = try await TravelData.seed(a)
            try await engineA.syncNow()
            try await engineB.syncNow()
            // B edits Ana while its uploads fail; A edits her too and syncs.
            var mine = data.ana
            mine.name = "Ana B"
            mine.age = 50
            try await b.repository(Person.self).update(mine)
            clockA.set(Date(timeIntervalSince1970: 3_000_000))
            var theirs = data.ana
            theirs.rating = 1.0
            try await a.repository(Person.self).update(theirs)
            try await engineA.syncNow()
            await uploadDown.inject([.pushesFail(attempts: 1)])
            do {
                try await engineB.syncNow()
                try expect(false, "the push should have failed")
            } catch is SyncTransportError {}
            // The pull ran despite the failed push and met B's pending edit: the policy decided.
            try await engineB.syncNow()
            try await engineA.syncNow()
            let (name, age, rating): (String, Int?, Double?) =
                switch policy {
                case .serverWins, .lastWriterWins: ("Ana", 34, 1.0)
                case .clientWins: ("Ana B", 50, 4.5)
                case .propertyMerge: ("Ana B", 50, 1.0)
                case .custom: ("Ana B", 34, 1.0)
                }
            for store in [world.server.store, a, b] {
                let ana = try expectNotNil(try await store.repository(Person.self).fetch(data.ana.id))
                try expectEqual(ana.name, name)
                try expectEqual(ana.age, age)
                try expectEqual(ana.rating, rating)
            }
            try await expectSettled([a, b], server: world.server)
        }
    }

}
