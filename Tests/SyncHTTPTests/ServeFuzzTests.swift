import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataSync
import StrataSyncHTTPClient
import Testing

/// The Adversary category's request fuzzer against a `strata serve` process — the server users run —
/// on SQLite and on PostgreSQL: every request answered, no 5xx, no person outside Alice's scope,
/// and the process alive and stopping cleanly after it. `make test` sends 400 requests per
/// backend; `make fuzz-serve` 100,000 (`STRATA_SERVE_FUZZ_REQUESTS`), and measures how fast the
/// server answers another identity while the fuzzing one runs at its rate limit.
@Suite("strata serve under the request fuzzer", .serialized)
struct ServeFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static var requests: Int { Int(environment["STRATA_SERVE_FUZZ_REQUESTS"] ?? "") ?? 400 }
    static var seed: UInt64 { UInt64(environment["STRATA_FUZZ_SEED"] ?? "") ?? 0x5E_4E00 }

    /// A served store holding Ana (`@a.example`, Alice's) and Bo (`@b.example`, Bob's), each with a
    /// trip; people scoped to the identity their e-mail names.
    static func serve(_ kind: String, extra: [String]) async throws -> ServeProcess? {
        let serve = try ServeTests()
        guard let url = try await serve.makeStore(kind) else { return nil }
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        let (ana, bo) = (Person(name: "Ana", email: "ana@a.example"), Person(name: "Bo", email: "bo@b.example"))
        try await store.transaction { tx in
            try tx.insert(ana)
            try tx.insert(bo)
            try tx.insert(Trip(name: "Lisbon", start: TravelDomain.day(1), traveller: ana.id))
            try tx.insert(Trip(name: "Oslo", start: TravelDomain.day(2), traveller: bo.id))
        }
        try await store.close()
        let tokens = "\(serve.directory)/fuzz-tokens"
        try "token-a ana@a.example\ntoken-b bo@b.example\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        return try await ServeProcess.start(
            url: url, tokens: tokens, directory: serve.directory, extra: ["--owner", "Person.email"] + extra)
    }

    static func pushes() async throws -> [[UInt8]] {
        try await SyncRequestFuzzing.pushBodies(Store(backend: InMemoryBackend(schema: try TravelDomain.schema())))
    }

    @Test(arguments: ["sqlite", "postgres"])
    func theRequestFuzzerNeverCrashesStrataServeNorGets5xxNorEscapesAScope(kind: String) async throws {
        guard let server = try await Self.serve(kind, extra: ["--rate", "1000000", "--max-wait", "0.02"]) else {
            print("ServeFuzzTests: \(kind) skipped: no STRATA_POSTGRES_URL outside CI")
            return
        }
        defer { server.stop() }
        let remote = HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken("unused"))
        let started = ContinuousClock.now
        let statuses = try await SyncRequestFuzzing.run(
            seed: Self.seed, requests: Self.requests, pushes: try await Self.pushes(),
            schema: try TravelDomain.schema(), send: remote.send)
        let histogram = statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        print(
            "ServeFuzzTests: strata serve on \(kind), seed \(Self.seed), \(Self.requests) requests in "
                + "\(ContinuousClock.now - started): \(histogram)")
        #expect(server.isRunning, "strata serve is still running")
        #expect((statuses[200] ?? 0) > Self.requests / 20, "some requests were served: \(histogram)")
        #expect(server.stop() == 0, "and stops cleanly")
    }
}

/// How fast `strata serve` answers one identity while another runs the request fuzzer as fast as
/// it can — held to its rate limit (50 a second, the default) — over four connections. Figures are
/// printed, never asserted (`STRATA_SERVE_LATENCY_SECONDS`, 3 in `make test`, 60 in
/// `make fuzz-serve`).
extension ServeFuzzTests {
    static var seconds: Int { Int(environment["STRATA_SERVE_LATENCY_SECONDS"] ?? "") ?? 3 }

    @Test func anotherIdentityIsAnsweredWhileOneFuzzesAtItsRateLimit() async throws {
        let server = try #require(try await Self.serve("sqlite", extra: ["--rate", "50", "--max-wait", "1"]))
        defer { server.stop() }
        let remote = HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken("unused"))
        let deadline = ContinuousClock.now + .seconds(Self.seconds)
        let (pushes, schema) = (try await Self.pushes(), try TravelDomain.schema())
        async let fuzzed = withThrowingTaskGroup(of: [Int: Int].self) { group in
            for lane in 0..<4 {
                group.addTask {
                    try await SyncRequestFuzzing.run(
                        seed: Self.seed &+ UInt64(lane), requests: .max, pushes: pushes, schema: schema,
                        deadline: deadline, send: remote.send)
                }
            }
            return try await group.reduce(into: [:]) { total, lane in total.merge(lane, uniquingKeysWith: +) }
        }
        var latencies: [Double] = []
        var statuses: [Int: Int] = [:]
        let pull = SyncWire.Request(
            method: "GET", path: SyncWire.pullPath, query: ["v": "2", "client": "bob-latency", "wait": "0"],
            headers: ["authorization": "Bearer token-b"])
        while ContinuousClock.now < deadline {
            let started = ContinuousClock.now
            let answer = try await remote.send(pull)
            let elapsed = ContinuousClock.now - started
            latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
            statuses[answer.status, default: 0] += 1
            try await Task.sleep(for: .milliseconds(40))  // 25 a second: inside Bob's own rate
        }
        let alice = try await fuzzed
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        let answered = alice.filter { $0.key != 429 }.values.reduce(0, +)
        print(
            "ServeFuzzTests: Bob's pulls while Alice fuzzes at her rate limit for \(Self.seconds) s: "
                + "\(latencies.count) pulls, p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, "
                + "max \(latencies.last ?? 0) ms; Alice: \(answered) answered beyond 429 "
                + "(\(Double(answered) / Double(Self.seconds)) a second), 429 ×\(alice[429] ?? 0)")
        #expect(statuses == [200: latencies.count], "every pull of Bob's is answered: \(statuses)")
        // Whether she reached her rate depends on how fast the machine answers her: said, not required.
        #expect(alice.values.reduce(0, +) > 0, "Alice's requests were answered: \(alice)")
        #expect(server.isRunning)
    }
}
