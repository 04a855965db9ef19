import BenchmarkWorkloads
import Foundation
import Strata
import StrataSync
import StrataSQLite
import StrataSyncHTTPClient
import StrataSyncHTTPServer
import StrataSyncServer

// Sync over HTTP on loopback beside the in-process JSON transport (release, `make bench-sync`),
// both in this one process, SQLite stores on both sides:
// 1. draining 10,000 queued mutations (100 saves of 100) in pushes of 500;
// 2. a new client pulling 10,000 changes (100 server saves of 100);
// 3. long-poll wake latency: a pull parked at the server, then a one-record commit; the time
//    from the commit's return to the pull's answer, p50 and p99 over 200 wake-ups.
// The in-process side runs the same SyncEndpoint through the wire format (EndpointTransport),
// so the ratio is what sockets, HTTP and AsyncHTTPClient/Hummingbird add.

let repetitions = Int(ProcessInfo.processInfo.environment["STRATA_BENCH_RUNS"] ?? "") ?? 3
let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "strata-sync-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func store(sync clientID: String? = nil) async throws -> Store {
    let path = directory.appendingPathComponent("\(UUID().uuidString).sqlite").path
    return Store(
        backend: try await SQLiteBackend.open(path: path, schema: try BenchSchema.make()),
        sync: clientID.map { SyncConfiguration(clientID: $0) })
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

let tokens = StaticTokenAuthenticator(["bench-token": SyncIdentity("bench")])
let limits = SyncLimits(rate: nil)

/// A server on a fresh store, and a way to reach it: over HTTP or in process.
struct Served {
    let server: SyncServer
    let endpoint: SyncEndpoint
    let http: SyncHTTPServer?
    let remote: any SyncRemote

    enum Way { case http, endpoint, inProcessJSON }

    static func make(_ way: Way) async throws -> Served {
        let server = SyncServer(store: try await store())
        let endpoint = SyncEndpoint(server: server, authenticator: tokens, limits: limits)
        switch way {
        case .inProcessJSON:
            return Served(
                server: server, endpoint: endpoint, http: nil,
                remote: InProcessTransport(server: server, encoding: .json))
        case .endpoint:
            return Served(
                server: server, endpoint: endpoint, http: nil,
                remote: EndpointTransport(endpoint: endpoint, tokens: FixedToken("bench-token")))
        case .http:
            break
        }
        let http = SyncHTTPServer(endpoint: endpoint)
        let port = try await http.start(host: "127.0.0.1", port: 0)
        return Served(
            server: server, endpoint: endpoint, http: http,
            remote: HTTPSyncRemote(baseURL: "http://127.0.0.1:\(port)", tokens: FixedToken("bench-token")))
    }

    func stop() async throws {
        await http?.stop()
        try await server.store.close()
    }
}

func drain(_ way: Served.Way) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<repetitions {
        let served = try await Served.make(way)
        let client = try await store(sync: "bench-client")
        for start in stride(from: 0, to: 10_000, by: 100) {
            try await client.repository(BenchItem.self).insert(contentsOf: (start..<start + 100).map(BenchItem.make))
        }
        let engine = try SyncEngine(store: client, remote: served.remote, options: .init(batchSize: 500))
        let begin = ContinuousClock.now
        let pushed = try await engine.push()
        times.append(milliseconds(ContinuousClock.now - begin))
        precondition(pushed == 10_000)
        try await client.close()
        try await served.stop()
    }
    return times.sorted()[times.count / 2]
}

func pull(_ way: Served.Way) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<repetitions {
        let served = try await Served.make(way)
        for start in stride(from: 0, to: 10_000, by: 100) {
            try await served.server.store.repository(BenchItem.self).insert(
                contentsOf: (start..<start + 100).map(BenchItem.make))
        }
        let client = try await store(sync: "bench-client")
        let engine = try SyncEngine(store: client, remote: served.remote, options: .init(pullLimit: 500))
        let begin = ContinuousClock.now
        let pulled = try await engine.pull()
        times.append(milliseconds(ContinuousClock.now - begin))
        precondition(pulled == 10_000)
        try await client.close()
        try await served.stop()
    }
    return times.sorted()[times.count / 2]
}

func wakeLatencies(_ way: Served.Way, samples: Int = 200) async throws -> [Double] {
    let served = try await Served.make(way)
    defer { Task { try? await served.stop() } }
    let items = served.server.store.repository(BenchItem.self)
    try await items.insert(BenchItem.make(0))
    var latencies: [Double] = []
    var state: UInt64 = 0x5EED
    for index in 1...samples {
        let head = try await served.server.store.currentHistoryToken()
        let cursor = head.map { SyncCursor($0.value, epoch: served.server.epoch) }
        let remote = served.remote
        let poll = Task {
            try await remote.pull(PullRequest(clientID: "bench-client", cursor: cursor, limit: 100, waitMillis: 30_000))
        }
        // Let the poll reach the server and park (5–15 ms, seeded).
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        try await Task.sleep(for: .milliseconds(5 + Int(state >> 33) % 11))
        try await items.insert(BenchItem.make(index))
        let committed = ContinuousClock.now
        let answer = try await poll.value
        latencies.append(milliseconds(ContinuousClock.now - committed))
        precondition(answer.changes.count == 1)
    }
    return latencies.sorted()
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
func format(_ value: Double) -> String { String(format: "%.1f", value) }

print(
    "Sync over loopback HTTP beside in process (SQLite both sides, median of \(repetitions)); ratio = HTTP ÷ InProcessTransport(.json)"
)
print(pad("workload", 40) + pad("HTTP", 20) + pad("endpoint, no sockets", 22) + pad("InProcessTransport", 20) + "ratio")
func rate(_ ms: Double) -> String { "\(format(ms)) ms \(Int(10_000 / ms * 1000))/s" }
for (name, run) in [("drain 10,000 mutations (pushes of 500)", drain), ("pull 10,000 changes (new client)", pull)]
    as [(String, (Served.Way) async throws -> Double)]
{
    let (http, endpoint, local) = (try await run(.http), try await run(.endpoint), try await run(.inProcessJSON))
    print(
        pad(name, 40) + pad(rate(http), 20) + pad(rate(endpoint), 22) + pad(rate(local), 20)
            + String(format: "%.2f×", http / local))
}
let wakeHTTP = try await wakeLatencies(.http)
let wakeEndpoint = try await wakeLatencies(.endpoint)
let wakeLocal = try await wakeLatencies(.inProcessJSON)
for (name, p) in [("p50", 0.5), ("p99", 0.99)] {
    let (http, endpoint, local) = (percentile(wakeHTTP, p), percentile(wakeEndpoint, p), percentile(wakeLocal, p))
    print(
        pad("long-poll wake after a commit, \(name)", 40) + pad(String(format: "%.2f ms", http), 20)
            + pad(String(format: "%.2f ms", endpoint), 22) + pad(String(format: "%.2f ms", local), 20)
            + String(format: "%.2f×", http / local))
}
