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
            var fuzzer = RequestFuzzer(seed: seed, pushes: try await pushBodies(c), schema: world.server.store.schema)
            var statuses: [Int: Int] = [:]
            for index in 0..<requests {
                let request = fuzzer.request()
                let where_ =
                    "seed \(seed) request \(index) (STRATA_FUZZ_SEED=\(seed)): \(request.method) \(request.path)"
                let response = try await world.host.send(request)
                statuses[response.status, default: 0] += 1
                if !(200..<500).contains(response.status) {
                    let body = String(decoding: response.body.prefix(300), as: UTF8.self)
                    let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.prefix(400))" }
                    try expect(false, "\(where_) answered \(response.status): \(body); query \(query)")
                }
                if request.method.uppercased() == "HEAD" {
                    try expect(response.body.isEmpty, "\(where_): HEAD answers without a body")
                    continue
                }
                if response.status == 200, request.headers["authorization"] == "Bearer token-a" {
                    let escaped = try escapes(request, response)
                    try expect(escaped.isEmpty, "\(where_) gave Alice records outside her scope: \(escaped)")
                }
            }
            let histogram = statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
                .joined(separator: ", ")
            print("aSeededRequestFuzzer: seed \(seed) (STRATA_FUZZ_SEED), \(requests) requests: \(histogram)")
            try expect(
                (statuses[200] ?? 0) > requests / 20,
                "some requests were served: \(statuses.sorted { $0.key < $1.key })")
        }
    ]

    /// Real push bodies, in both formats: the fuzzer damages them.
    static func pushBodies(_ c: ConformanceContext) async throws -> [[UInt8]] {
        let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
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

    /// The people of a pull's or snapshot's answer outside Alice's domain.
    static func escapes(_ request: SyncWire.Request, _ response: SyncWire.Response) throws -> [String] {
        let changes: [RemoteChange]
        switch request.path {
        case SyncWire.pullPath: changes = try JSONDecoder().decode(PullResponse.self, from: Data(response.body)).changes
        case SyncWire.snapshotPath:
            changes = try JSONDecoder().decode(SnapshotResponse.self, from: Data(response.body)).records
        default: return []
        }
        return changes.filter { change in
            guard change.entity == "Person", let values = change.values else { return false }
            guard case .string(let email) = values["email"] ?? .null else { return true }
            return !email.hasSuffix("@a.example")
        }.map { "\($0.key)" }
    }
}
