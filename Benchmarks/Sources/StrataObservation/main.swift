import BenchmarkWorkloads
import Foundation
import Strata
import StrataInMemory
import StrataLMDB
import StrataSQLite

// Live queries, measured as users meet them (release build, `make bench`):
// 1. a one-record change to a 10,000-record observed result: the live query's diff delivered,
//    against refetching the result and computing `difference(from:)` — each net of the save;
// 2. how long another process's commit takes to reach an observer, p50 and p99, on SQLite and
//    LMDB (the poll interval is the default, 50 ms), beside a second handle in this process.
// The save overhead of observers is in StrataRatios ("one-record saves with 100 observers").
SQLiteBackend.register()
LMDBBackend.register()

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "--commit-child" {
    // The other process: `count` one-record commits, 0–20 ms apart (seeded).
    let store = try await Store.open(arguments[2], schema: try BenchSchema.make())
    var state: UInt64 = 0x5EED
    for index in 0..<(Int(arguments[3]) ?? 0) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        try await Task.sleep(for: .milliseconds(Int(state >> 33) % 21))
        try await store.repository(BenchItem.self).insert(BenchItem.make(index))
    }
    try await store.close()
    exit(0)
}

let repetitions = Int(ProcessInfo.processInfo.environment["STRATA_BENCH_RUNS"] ?? "") ?? 5

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ body: @Sendable () async throws -> @Sendable () async throws -> Int) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<repetitions {
        let run = try await body()
        let start = ContinuousClock.now
        _ = try await run()
        times.append(milliseconds(ContinuousClock.now - start))
    }
    return times.sorted()[times.count / 2]
}

func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "strata-observation-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
func path(_ suffix: String) -> String { directory.appendingPathComponent("\(UUID().uuidString).\(suffix)").path }

let backends: [(String, @Sendable () async throws -> Store)] = [
    ("in-memory", { Store(backend: InMemoryBackend(schema: try BenchSchema.make())) }),
    ("SQLite", { try await Store.open("sqlite:\(path("sqlite"))", schema: try BenchSchema.make()) }),
    ("LMDB", { try await Store.open("lmdb:\(path("lmdb"))", schema: try BenchSchema.make()) }),
]

if ProcessInfo.processInfo.environment["STRATA_BENCH_ONLY"].map({ "diff delivery".contains($0) }) ?? true {
    let changes = ObservationWorkloads.changes
    print(
        "\nDiff delivery: one-record change to a 10,000-record observed result, per change, net of the save — median of \(repetitions) runs of \(changes) changes, milliseconds"
    )
    print(pad("backend", 12) + pad("save", 10) + pad("live query", 14) + pad("refetch+difference", 20) + "ratio")
    for (name, makeStore) in backends {
        let save = try await median(ObservationWorkloads.delivery(makeStore, .saveOnly)) / Double(changes)
        let live = try await median(ObservationWorkloads.delivery(makeStore, .liveQuery)) / Double(changes) - save
        let refetch =
            try await median(ObservationWorkloads.delivery(makeStore, .refetchAndDifference)) / Double(changes) - save
        print(
            pad(name, 12) + pad(String(format: "%.3f", save), 10) + pad(String(format: "%.3f", live), 14)
                + pad(String(format: "%.3f", refetch), 20)
                + String(format: "%.1f× faster", refetch / max(live, 0.000_1)))
    }
}

/// Latencies (ms) from each commit's timestamp to its arrival in a change stream of `store`,
/// for `count` commits made by `commit`.
func latencies(_ store: Store, count: Int, _ commit: @escaping @Sendable () async throws -> Void) async throws
    -> [Double]
{
    let stream = store.changes(entities: ["BenchItem"])
    while store.observerCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
    let committing = Task { try await commit() }
    var result: [Double] = []
    for try await transaction in stream {
        result.append(Date().timeIntervalSince(transaction.timestamp) * 1_000)
        if result.count == count { break }
    }
    try await committing.value
    return result.sorted()
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

if ProcessInfo.processInfo.environment["STRATA_BENCH_ONLY"].map({ "latency".contains($0) }) ?? true {
    let count = 200
    print(
        "\nAnother writer's commit reaching an observer (change stream), \(count) commits 0–20 ms apart, milliseconds")
    print(pad("backend", 10) + pad("writer", 36) + pad("p50", 9) + pad("p99", 9) + "max")
    let executable = URL(fileURLWithPath: arguments[0]).resolvingSymlinksInPath().path
    for (name, url) in [("SQLite", "sqlite:\(path("sqlite"))"), ("LMDB", "lmdb:\(path("lmdb"))")] {
        let store = try await Store.open(url, schema: try BenchSchema.make())
        let other = try await latencies(store, count: count) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--commit-child", url, "\(count)"]
            try process.run()
            process.waitUntilExit()
        }
        print(
            pad(name, 10) + pad("another process (50 ms poll)", 36)
                + pad(String(format: "%.2f", percentile(other, 0.5)), 9)
                + pad(String(format: "%.2f", percentile(other, 0.99)), 9) + String(format: "%.2f", other.last ?? 0))
        let second = try await Store.open(url, schema: try BenchSchema.make())
        let handle = try await latencies(store, count: count) {
            var state: UInt64 = 0x5EED
            for index in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                try await Task.sleep(for: .milliseconds(Int(state >> 33) % 21))
                try await second.repository(BenchItem.self).insert(BenchItem.make(100_000 + index))
            }
        }
        print(
            pad(name, 10) + pad("a second handle in this process", 36)
                + pad(String(format: "%.2f", percentile(handle, 0.5)), 9)
                + pad(String(format: "%.2f", percentile(handle, 0.99)), 9) + String(format: "%.2f", handle.last ?? 0))
        try await second.close()
        try await store.close()
    }
}
SQLiteWorkloads.removeTemporaryFiles()
