import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The request fuzzer: seeded requests (`STRATA_FUZZ_SEED`, `STRATA_FUZZ_REQUESTS`, default
/// 5,000) from ``RequestFuzzer`` against a server holding Alice's and Bob's people and trips.
/// Every answer must come (no crash, no hang), none may be a 5xx, and no pull or snapshot may hand
/// Alice a person outside her domain. A failure names the seed and the request's index, which
/// replay it alone.
extension AdversaryChecks {
    static let fuzzing: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aSeededRequestFuzzerNeverCrashesNeverAnswers5xxNeverEscapesAScope") { c in
            let requests = DurabilitySettings.count("STRATA_FUZZ_REQUESTS", default: 5_000)
            let seed = DurabilitySettings.seed("STRATA_FUZZ_SEED", default: 0xF0_2215)
            let limits = SyncLimits(maximumBodyBytes: 256 << 10, maximumWait: .milliseconds(20), rate: nil)
            let world = try await TransportWorld.make(c, access: TransportWorld.travelScopes, limits: limits)
            let (ana, bo) = (Person(name: "Ana", email: "ana@a.example"), Person(name: "Bo", email: "bo@b.example"))
            try await world.server.store.transaction { tx in
                try tx.insert(ana)
                try tx.insert(bo)
                try tx.insert(Trip(name: "Lisbon", start: TravelDomain.day(1), traveller: ana.id))
                try tx.insert(Trip(name: "Oslo", start: TravelDomain.day(2), traveller: bo.id))
            }
            let statuses = try await SyncRequestFuzzing.run(
                seed: seed, requests: requests, pushes: try await pushBodies(try await c.store()),
                schema: world.server.store.schema, send: world.host.send)
            let histogram = statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
                .joined(separator: ", ")
            print("aSeededRequestFuzzer: seed \(seed) (STRATA_FUZZ_SEED), \(requests) requests: \(histogram)")
            try expect(
                (statuses[200] ?? 0) > requests / 20,
                "some requests were served: \(statuses.sorted { $0.key < $1.key })")
        }
    ]

    /// Real push bodies, in both formats, made in `empty` (a store with the travel schema): the
    /// fuzzer damages them.
    static func pushBodies(_ empty: Store) async throws -> [[UInt8]] {
        let store = empty.withSync(SyncConfiguration(clientID: "a"))
        let person = Person(name: "Ada", email: "ada@a.example")
        try await store.transaction { tx in
            try tx.insert(person)
            try tx.insert(Trip(name: "Rome", start: TravelDomain.day(3), traveller: person.id))
            try tx.insert(Tag(id: "t", label: "T"))
        }
        let engine = try SyncEngine(store: store, remote: NoRemote())
        let mutations = try await engine.pendingMutations()
        return try [2, 1].map { version in
            var request = PushRequest(clientID: "a", mutations: mutations, schemaVersion: store.schema.version)
            request.version = version
            return Array(try JSONEncoder().encode(request))
        }
    }
}
