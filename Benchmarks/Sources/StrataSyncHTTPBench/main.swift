import BenchmarkWorkloads
import Foundation
import Strata
import StrataSync
import StrataSQLite
import StrataSyncHTTPClient
import StrataSyncHTTPServer
import StrataSyncServer
import Synchronization

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

    enum Way { case http, httpFormat1, endpoint, inProcessJSON, inProcessValues }

    static func make(_ way: Way, limits: SyncLimits = limits) async throws -> Served {
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
        case .inProcessValues:
            return Served(
                server: server, endpoint: endpoint, http: nil,
                remote: InProcessTransport(server: server, encoding: .none))
        case .http, .httpFormat1:
            break
        }
        let http = SyncHTTPServer(endpoint: endpoint)
        let port = try await http.start(host: "127.0.0.1", port: 0)
        let remote = HTTPSyncRemote(baseURL: "http://127.0.0.1:\(port)", tokens: FixedToken("bench-token"))
        return Served(
            server: server, endpoint: endpoint, http: http,
            remote: way == .httpFormat1 ? FormatOne(inner: remote) : remote)
    }

    func stop() async throws {
        await http?.stop()
        try await server.store.close()
    }
}

/// A client built before format 2: every request in format 1.
struct FormatOne: SyncRemote {
    let inner: any SyncRemote
    func push(_ request: PushRequest) async throws -> PushResponse {
        var request = request
        request.version = 1
        return try await inner.push(request)
    }
    func pull(_ request: PullRequest) async throws -> PullResponse {
        var request = request
        request.version = 1
        return try await inner.pull(request)
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

/// A new client's initial sync of 100,000 records (100 server saves of 1,000), in pages of 10
/// saves (10,000 changes), over the way given.
func initialSync(_ way: Served.Way) async throws -> Double {
    let served = try await Served.make(way)
    for start in stride(from: 0, to: 100_000, by: 1_000) {
        try await served.server.store.repository(BenchItem.self).insert(
            contentsOf: (start..<start + 1_000).map(BenchItem.make))
    }
    let client = try await store(sync: "bench-client")
    let engine = try SyncEngine(store: client, remote: served.remote, options: .init(pullLimit: 10))
    let begin = ContinuousClock.now
    let pulled = try await engine.pull()
    let time = milliseconds(ContinuousClock.now - begin)
    precondition(pulled == 100_000)
    try await client.close()
    try await served.stop()
    return time
}

/// A new client's initial sync of a subscription covering 100,000 records: snapshot pages of
/// `page` records (the server's page limit raised to match), over the way given.
func subscribedInitialSync(_ way: Served.Way, page: Int) async throws -> Double {
    let served = try await Served.make(way, limits: SyncLimits(maximumPageSize: page, rate: nil))
    for start in stride(from: 0, to: 100_000, by: 1_000) {
        try await served.server.store.repository(BenchItem.self).insert(
            contentsOf: (start..<start + 1_000).map(BenchItem.make))
    }
    let client = try await store(sync: "bench-client")
    let engine = try SyncEngine(store: client, remote: served.remote, options: .init(pullLimit: page))
    try await engine.subscribe(try SyncSubscription("items", BenchItem.self))
    let begin = ContinuousClock.now
    let pulled = try await engine.pull()
    let time = milliseconds(ContinuousClock.now - begin)
    precondition(pulled == 100_000, "\(pulled)")
    let stored = try await client.repository(BenchItem.self).count()
    precondition(stored == 100_000, "\(stored)")
    try await client.close()
    try await served.stop()
    return time
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
    "Sync over loopback HTTP beside in process (SQLite both sides, median of \(repetitions)); "
        + "ratio = HTTP (format 2) ÷ InProcessTransport(.none), values handed over")
print(
    pad("workload", 40) + pad("HTTP, format 2", 22) + pad("HTTP, format 1", 22) + pad("endpoint, no sockets", 22)
        + pad("InProcess(.json), 2", 22) + pad("InProcess(.none)", 22) + "ratio")
func rate(_ ms: Double) -> String { ms.isNaN ? "—" : "\(format(ms)) ms \(Int(10_000 / ms * 1000))/s" }
let only = ProcessInfo.processInfo.environment["STRATA_BENCH_ONLY"]
// STRATA_BENCH_ONLY=subscription: the subscription's initial sync alone (for profiles).
if only == "subscription" {
    let http = try await subscribedInitialSync(.http, page: 10_000)
    print("subscription of 100,000 (pages of 10k) over HTTP: \(format(http)) ms \(Int(100_000 / http * 1000))/s")
    exit(0)
}
// STRATA_BENCH_ONLY: HTTP and values only; `push` or `pull` narrows to one workload (for profiles).
for (name, run) in [("drain 10,000 mutations (pushes of 500)", drain), ("pull 10,000 changes (new client)", pull)]
    as [(String, (Served.Way) async throws -> Double)]
where only == nil || only == "1" || name.hasPrefix(only == "push" ? "drain" : "pull") {
    let http = try await run(.http)
    let formatOne = only == nil ? try await run(.httpFormat1) : .nan
    let endpoint = only == nil ? try await run(.endpoint) : .nan
    let json = only == nil ? try await run(.inProcessJSON) : .nan
    let values = try await run(.inProcessValues)
    print(
        pad(name, 40) + pad(rate(http), 22) + pad(rate(formatOne), 22) + pad(rate(endpoint), 22) + pad(rate(json), 22)
            + pad(rate(values), 22) + String(format: "%.2f×", http / values))
}
guard only == nil || only == "1" else { exit(0) }
let initialHTTP = try await initialSync(.http)
let initialValues = try await initialSync(.inProcessValues)
print(
    pad("initial sync, 100,000 records (pages of 10k)", 40)
        + pad("\(format(initialHTTP)) ms \(Int(100_000 / initialHTTP * 1000))/s", 22)
        + pad("—", 22) + pad("—", 22) + pad("—", 22)
        + pad("\(format(initialValues)) ms \(Int(100_000 / initialValues * 1000))/s", 22)
        + String(format: "%.2f×", initialHTTP / initialValues))
for page in [1_000, 10_000] {
    let http = try await subscribedInitialSync(.http, page: page)
    let values = try await subscribedInitialSync(.inProcessValues, page: page)
    print(
        pad("subscription of 100,000 (pages of \(page / 1_000)k)", 40)
            + pad("\(format(http)) ms \(Int(100_000 / http * 1000))/s", 22) + pad("—", 22) + pad("—", 22)
            + pad("—", 22) + pad("\(format(values)) ms \(Int(100_000 / values * 1000))/s", 22)
            + String(format: "%.2f×", http / values))
}
if only == nil { await printMessageSizes() }
guard only == nil else { exit(0) }
let wakeHTTP = try await wakeLatencies(.http)
let wakeEndpoint = try await wakeLatencies(.endpoint)
let wakeLocal = try await wakeLatencies(.inProcessJSON)
print(pad("long-poll wake", 40) + pad("HTTP", 22) + pad("endpoint", 22) + pad("InProcess(.json)", 22) + "ratio")
for (name, p) in [("p50", 0.5), ("p99", 0.99)] {
    let (http, endpoint, local) = (percentile(wakeHTTP, p), percentile(wakeEndpoint, p), percentile(wakeLocal, p))
    print(
        pad("long-poll wake after a commit, \(name)", 40) + pad(String(format: "%.2f ms", http), 22)
            + pad(String(format: "%.2f ms", endpoint), 22) + pad(String(format: "%.2f ms", local), 22)
            + String(format: "%.2f×", http / local))
}

/// Bytes of the messages' bodies for draining and pulling 10,000 records, format 1 beside 2,
/// counted as the endpoint receives and answers them.
func printMessageSizes() async {
    do {
        var bytes: [Int: (push: Int, pull: Int)] = [:]
        for version in [1, 2] {
            let counted = ByteCount()
            let server = SyncServer(store: try await store())
            let endpoint = SyncEndpoint(server: server, authenticator: tokens, limits: limits)
            let transport = EndpointTransport(endpoint: endpoint, tokens: FixedToken("bench-token")) {
                request, response in
                counted.add(
                    request.path == SyncWire.pushPath ? request.body.count : 0,
                    pull: request.path == SyncWire.pullPath ? response.body.count : 0)
                return response
            }
            let remote: any SyncRemote = version == 1 ? FormatOne(inner: transport) : transport
            let writer = try await store(sync: "bench-writer")
            for start in stride(from: 0, to: 10_000, by: 100) {
                try await writer.repository(BenchItem.self).insert(
                    contentsOf: (start..<start + 100).map(BenchItem.make))
            }
            _ = try await SyncEngine(store: writer, remote: remote, options: .init(batchSize: 500)).push()
            let reader = try await store(sync: "bench-reader")
            _ = try await SyncEngine(store: reader, remote: remote, options: .init(pullLimit: 500)).pull()
            bytes[version] = counted.total
            try await writer.close()
            try await reader.close()
            try await server.store.close()
        }
        let (one, two) = (bytes[1] ?? (0, 0), bytes[2] ?? (0, 0))
        print(
            "message bytes, 10,000 records: push format 1 \(one.push), format 2 \(two.push) ("
                + String(format: "%.1f%%", Double(two.push) / Double(one.push) * 100)
                + "); pull format 1 \(one.pull), format 2 \(two.pull) ("
                + String(format: "%.1f%%", Double(two.pull) / Double(one.pull) * 100) + ")")
    } catch {
        print("message bytes: \(error)")
    }
}

final class ByteCount: Sendable {
    private let counts = Mutex((push: 0, pull: 0))
    func add(_ push: Int, pull: Int) {
        counts.withLock {
            $0.push += push
            $0.pull += pull
        }
    }
    var total: (push: Int, pull: Int) { counts.withLock { $0 } }
}
