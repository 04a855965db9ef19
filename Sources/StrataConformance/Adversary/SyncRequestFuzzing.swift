import Foundation
import Strata
import StrataSync

/// The Adversary category's request fuzzer, for a server the suite does not start itself (a
/// `strata serve` process): seeded hostile requests sent through `send`, checked as the category
/// checks them — every request answered, no 5xx, `HEAD` without a body, and no pull or snapshot
/// as Alice (`Bearer token-a`, whose people are `@a.example`) holding a person of another domain.
public enum SyncRequestFuzzing {
    /// Real push bodies, in both formats, made in `empty` (a store with the travel schema).
    public static func pushBodies(_ empty: Store) async throws -> [[UInt8]] {
        try await AdversaryChecks.pushBodies(empty)
    }

    /// Sends `requests` requests of `seed` (fewer when `deadline` passes first) and returns how
    /// many got each status; throws ``ConformanceFailure`` at the first that breaks a rule, naming
    /// the seed and its index.
    public static func run(
        seed: UInt64, requests: Int, pushes: [[UInt8]], schema: Schema, deadline: ContinuousClock.Instant? = nil,
        send: (SyncWire.Request) async throws -> SyncWire.Response
    ) async throws -> [Int: Int] {
        var fuzzer = RequestFuzzer(seed: seed, pushes: pushes, schema: schema)
        var statuses: [Int: Int] = [:]
        for index in 0..<requests {
            if let deadline, ContinuousClock.now >= deadline { break }
            let request = fuzzer.request()
            let where_ = "seed \(seed) request \(index) (STRATA_FUZZ_SEED=\(seed)): \(request.method) \(request.path)"
            let response = try await send(request)
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
        return statuses
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
