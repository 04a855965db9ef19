import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Hostile requests from an authenticated client, over every transport the Transport checks run
/// over: no request may crash the server or make it answer a 5xx, and the server goes on serving
/// everyone else. Each check is a case found by attacking `strata serve`, kept so it stays fixed.
enum AdversaryChecks {
    static var all: [ConformanceCheck] {
        nesting + graph + graphWrites + shares + deletes + deleteGraphs + files + quotas + fuzzing
    }

    /// A filter of `nots` `!` before a comparison, what crashed `strata serve` at 2,400.
    static func deepFilter(_ nots: Int) -> String { String(repeating: "!", count: nots) + #"name == "Ana""# }

    static let nesting: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aDeeplyNestedSubscriptionFilterIs400AndTheServerKeepsServing") { c in
            let world = try await SubscriptionWorld.make(c)
            let remote = world.world.host.remote(tokens: FixedToken("token-a"))
            let limit = FilterText.maximumDepth
            for nots in [limit + 1, 1_600, 2_400, 3_000, 4_000] {
                let subscription = try SyncSubscription("deep", entity: "Person", where: deepFilter(nots))
                do {
                    _ = try await remote.pull(PullRequest(clientID: "a", cursor: nil, subscriptions: [subscription]))
                    throw ConformanceFailure(
                        "a pull with \(nots) nested `!` was answered", fileID: #fileID, filePath: #filePath, line: #line
                    )
                } catch let error as SyncTransportError {
                    try expectEqual(error.kind, .badRequest, "a pull with \(nots) nested `!`: \(error)")
                    try expect(error.reason.contains("\(limit)"), "the answer names the limit: \(error.reason)")
                }
                do {
                    _ = try await remote.snapshot(
                        SnapshotRequest(clientID: "a", position: nil, subscriptions: [subscription]))
                    throw ConformanceFailure(
                        "a snapshot with \(nots) nested `!` was answered", fileID: #fileID, filePath: #filePath,
                        line: #line)
                } catch let error as SyncTransportError {
                    try expectEqual(error.kind, .badRequest, "a snapshot with \(nots) nested `!`: \(error)")
                }
            }
            // At the limit the filter is served, and so is everyone else.
            let atLimit = try SyncSubscription("edge", entity: "Person", where: deepFilter(limit))
            let pulled = try await remote.pull(PullRequest(clientID: "a", cursor: nil, subscriptions: [atLimit]))
            try expectEqual(
                pulled.changes.filter { $0.entity == "Person" }.map(\.recordID), [world.ana.id.recordID],
                "an even count of `!` keeps the filter")
            // As deep in to-one steps (the fuzzer's seed 15737365, request 18210: SQLite's parser,
            // whose stack holds ten nested subqueries, answered 500): served, by pull and snapshot.
            let chain = String(repeating: "passport.owner.", count: limit / 2 - 1) + "isVerified == false"
            let steps = try SyncSubscription("steps", entity: "Person", where: chain)
            let stepped = try await remote.pull(PullRequest(clientID: "a", cursor: nil, subscriptions: [steps]))
            try expect(
                !stepped.changes.contains { $0.entity == "Person" }, "no one has a passport, so no one matches")
            let paged = try await remote.snapshot(SnapshotRequest(clientID: "a", position: nil, subscriptions: [steps]))
            try expect(!paged.records.contains { $0.entity == "Person" }, "the snapshot agrees")
            let other = world.world.host.remote(tokens: FixedToken("token-b"))
            let plain = try await other.pull(PullRequest(clientID: "b", cursor: nil))
            try expect(!plain.changes.isEmpty, "another identity is still served")
        }
    ]

    /// Alice's trips are hers by name; one of them points at Bob's person, which she may not read.
    static func graphWorld(_ c: ConformanceContext) async throws -> (TransportWorld, mine: Trip, pointing: Trip) {
        var access = SyncAccess()
        access.scope(Person.self) { identity in
            .hasSuffix(\Person.email, "@" + (identity.attributes["domain"] ?? "nowhere.invalid"))
        }
        access.scope(Trip.self) { identity in .hasPrefix(\Trip.name, identity.id + ":") }
        let world = try await TransportWorld.make(c, access: access)
        let ana = Person(name: "Ana", email: "ana@a.example")
        let bo = Person(name: "Bo", email: "bo@b.example")
        let mine = Trip(name: "alice:Lisbon", start: TravelDomain.day(1), traveller: ana.id)
        let pointing = Trip(name: "alice:Oslo", start: TravelDomain.day(2), traveller: bo.id)
        try await world.server.store.transaction { tx in
            for person in [ana, bo] { try tx.insert(person) }
            for trip in [mine, pointing] { try tx.insert(trip) }
        }
        return (world, mine, pointing)
    }

    /// The trips a subscription with `filter` brings Alice, by pull and by snapshot (which must agree).
    static func trips(_ filter: String, _ world: TransportWorld) async throws -> Set<RecordID> {
        let remote = world.host.remote(tokens: FixedToken("token-a"))
        let subscription = try SyncSubscription("probe", entity: "Trip", where: filter)
        let pull = try await remote.pull(PullRequest(clientID: "a", cursor: nil, subscriptions: [subscription]))
        let pulled = Set(pull.changes.filter { $0.entity == "Trip" }.map(\.recordID))
        var snapshotted: Set<RecordID> = []
        var position: SnapshotPosition?
        for _ in 0..<20 {
            let page = try await remote.snapshot(
                SnapshotRequest(clientID: "a", position: position, limit: 100, subscriptions: [subscription]))
            snapshotted.formUnion(page.records.filter { $0.entity == "Trip" }.map(\.recordID))
            guard let next = page.next else { break }
            position = next
        }
        try expectEqual(pulled, snapshotted, "pull and snapshot agree for \(filter)")
        return pulled
    }

    static let graph: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aSubscriptionFilterSeesOnlyRelatedRecordsTheCallerMayRead") { c in
            let (world, mine, pointing) = try await graphWorld(c)
            // Each pair differs only in what it says of Bob's person: the answers must not.
            let probes = [
                (#"traveller.name hasPrefix "B""#, #"traveller.name hasPrefix "Z""#),
                (#"traveller.email == "bo@b.example""#, #"traveller.email == "no@b.example""#),
                (#"!(traveller.name hasPrefix "B")"#, #"!(traveller.name hasPrefix "Z")"#),
                (#"traveller.name >= "B" && traveller.name < "C""#, #"traveller.name >= "Y" && traveller.name < "Z""#),
            ]
            for (holds, fails) in probes {
                let (one, other) = (try await trips(holds, world), try await trips(fails, world))
                try expectEqual(one, other, "the answer to \(holds) tells nothing of Bob's person")
            }
            try expect(
                !(try await trips(#"traveller.name hasPrefix "B""#, world)).contains(pointing.id.recordID),
                "a related record she may not read matches nothing")
            try expectEqual(
                try await trips(#"traveller.name == "Ana""#, world), [mine.id.recordID],
                "a related record she may read is read as usual")
        }
    ]

    /// Alice's push of one mutation, and its result.
    static func push(_ mutation: SyncMutation, _ world: TransportWorld) async throws -> MutationResult {
        let remote = world.host.remote(tokens: FixedToken("token-a"))
        let response = try await remote.push(PushRequest(clientID: "a", mutations: [mutation]))
        return try expectNotNil(response.results.first, "one result")
    }

    static func mutation(
        _ sequence: UInt64, _ entity: String, _ id: RecordID, _ values: [String: Value] = [:],
        kind: SyncMutation.Kind = .put, insert: Bool = false
    ) -> SyncMutation {
        SyncMutation(
            id: MutationID(clientID: "a", sequence: sequence), kind: kind, entity: entity, recordID: id,
            isInsert: insert, values: values, timestamp: HybridTimestamp(millis: Int64(sequence), node: "a"))
    }

    /// A result's answer with the IDs it names written as `X`, to compare two answers.
    static func answer(_ result: MutationResult, naming ids: [RecordID]) -> String {
        var reason = result.reason ?? ""
        for id in ids { reason = reason.replacingOccurrences(of: "\(id)", with: "X") }
        return "\(result.outcome) \(result.code ?? "") \(reason)"
    }

    static let graphWrites: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aRecordTheCallerMayNotReadIsAnsweredAsAnAbsentOne") { c in
            let (world, _, pointing) = try await graphWorld(c)
            let people = try await world.server.store.repository(Person.self).fetch()
            let bo = try expectNotNil(people.first { $0.name == "Bo" }, "Bob's person")
            let absent = RecordID.uuid(UUID())
            let (hidden, nowhere) = (RecordID.uuid(bo.id), absent)
            func trip(_ sequence: UInt64, _ traveller: RecordID) -> SyncMutation {
                mutation(
                    sequence, "Trip", .uuid(UUID()),
                    [
                        "name": .string("alice:Rome \(sequence)"), "start": .date(TravelDomain.day(3)),
                        "isFavorite": .bool(false), "traveller": traveller.value,
                    ], insert: true)
            }
            // A reference: to Bob's person, and to no one.
            let (hiddenTrip, absentTrip) = (trip(1, hidden), trip(2, nowhere))
            let toHidden = try await push(hiddenTrip, world)
            let toAbsent = try await push(absentTrip, world)
            try expectEqual(toHidden.outcome, .rejected, "a trip of Alice's pointing at Bob's person")
            try expectEqual(
                answer(toHidden, naming: [hidden, hiddenTrip.recordID]),
                answer(toAbsent, naming: [nowhere, absentTrip.recordID]),
                "a reference to a record she may not read is answered as one to an absent record")
            // An update and a delete of Bob's person, and of an absent one.
            let update = try await push(mutation(3, "Person", hidden, ["name": .string("Mallory")]), world)
            let updateAbsent = try await push(mutation(4, "Person", nowhere, ["name": .string("Mallory")]), world)
            try expectEqual(answer(update, naming: [hidden]), answer(updateAbsent, naming: [nowhere]), "an update")
            let delete = try await push(mutation(5, "Person", hidden, kind: .delete), world)
            let deleteAbsent = try await push(mutation(6, "Person", nowhere, kind: .delete), world)
            try expectEqual(answer(delete, naming: [hidden]), answer(deleteAbsent, naming: [nowhere]), "a delete")
            try expectEqual(delete.serverVersion, nil, "an answer carries nothing of the hidden record")
            // Nothing of Bob's changed, and nothing of Alice's points at it but what the server wrote.
            let after = try await world.server.store.repository(Person.self).fetch(bo.id)
            try expectEqual(after, bo, "Bob's person is untouched")
            let trips = try await world.server.store.repository(Trip.self).fetch(where: \Trip.traveller == bo.id)
            try expectEqual(trips.map(\.id), [pointing.id], "no trip of Alice's came to point at Bob's person")
        }
    ]
}
