import BenchmarkWorkloads
import Foundation
import Strata
import StrataInMemory
import StrataJSONFile
import StrataLMDB
import StrataSQLite

// How each backend's costs grow with the size of a store (`make bench-scale`).
//
// For every backend and every N (STRATA_SCALE_SIZES, default 10000,100000,1000000; the JSON file
// stops at STRATA_SCALE_JSON_MAX, default 100000), a child process of its own — so peak memory is
// that configuration's — fills a new store with N ten-attribute records in saves of 10,000 and
// measures: µs per record of the first and of the last save; a point fetch; an indexed equality
// returning 100 rows; an indexed range with sort and limit 100; a non-indexed `contains` (which
// must scan); a cascade of N/10 children; peak RSS and size on disk. A configuration that runs
// past STRATA_SCALE_BUDGET seconds (default 600) of inserting stops and says so.

let environment = ProcessInfo.processInfo.environment
let arguments = CommandLine.arguments

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Peak resident memory of this process, from the kernel (MiB).
func peakRSS() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

func diskSize(_ path: String) -> Double {
    var total = 0
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        for name in (try? manager.contentsOfDirectory(atPath: path)) ?? [] {
            total += ((try? manager.attributesOfItem(atPath: path + "/" + name)[.size]) as? Int) ?? 0
        }
    } else {
        for suffix in ["", "-wal", "-shm", ".journal"] {
            total += ((try? manager.attributesOfItem(atPath: path + suffix)[.size]) as? Int) ?? 0
        }
    }
    return Double(total) / 1_048_576
}

func open(_ backend: String, _ path: String, _ schema: Schema) async throws -> Store {
    switch backend {
    case "memory": return Store(backend: InMemoryBackend(schema: schema))
    case "sqlite": return Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
    case "lmdb": return Store(backend: try await LMDBBackend.open(path: path, schema: schema))
    default: return Store(backend: try await JSONFileBackend.open(path: path, schema: schema))
    }
}

/// One configuration, in this (child) process; prints one result line.
func measure(_ backend: String, _ count: Int) async throws {
    let schema = try BenchSchema.make()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-scale-\(UUID().uuidString)").path
    defer {
        for suffix in ["", "-wal", "-shm", ".journal", ".lock"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
    let store = try await open(backend, path, schema)
    let budget = Double(environment["STRATA_SCALE_BUDGET"] ?? "") ?? 600
    let batch = 10_000
    var ids: [UUID] = []
    ids.reserveCapacity(count)
    var firstSave = 0.0
    var lastSave = 0.0
    var inserting = 0.0
    var inserted = 0
    while inserted < count {
        let items = (inserted..<min(count, inserted + batch)).map(BenchItem.make)
        ids += items.map(\.id)
        let took = try await seconds { try await store.repository(BenchItem.self).insert(contentsOf: items) }
        if inserted == 0 { firstSave = took / Double(items.count) * 1e6 }
        lastSave = took / Double(items.count) * 1e6
        inserting += took
        inserted += items.count
        if inserting > budget, inserted < count {
            print("RESULT\t\(backend)\t\(count)\tdid not finish: \(inserted) records in \(Int(inserting)) s")
            return
        }
    }
    var generator = SystemRandomNumberGenerator()
    let probes = (0..<1_000).map { _ in ids[Int.random(in: 0..<ids.count, using: &generator)] }
    let repository = store.repository(BenchItem.self)
    let point =
        try await seconds { for id in probes { _ = try await repository.fetch(id) } } / Double(probes.count) * 1e6
    let equality =
        try await seconds {
            for _ in 0..<20 { _ = try await repository.fetch(Query<BenchItem>.where(\.category == 7).limit(100)) }
        } / 20 * 1e3
    let range =
        try await seconds {
            for _ in 0..<20 {
                _ = try await repository.fetch(
                    Query<BenchItem>.where(\.category >= 50 && \.category < 60).sorted(by: \.category).limit(100))
            }
        } / 20 * 1e3
    let contains = try await seconds { _ = try await repository.count(where: .contains(\.name, "item 1234")) } * 1e3
    // A parent with N/10 children (inserted in saves of 10,000), then deleted: the cascade.
    let parent = BenchParent(id: UUID(), name: "parent")
    try await store.repository(BenchParent.self).insert(parent)
    let children = count / 10
    var made = 0
    while made < children {
        let slice = (made..<min(children, made + batch)).map {
            BenchChild(id: UUID(), name: "child \($0)", parent: parent.id)
        }
        try await store.repository(BenchChild.self).insert(contentsOf: slice)
        made += slice.count
    }
    let cascade = try await seconds { try await store.repository(BenchParent.self).delete(parent.id) }
    try await store.close()
    let line = [
        backend, String(count), String(format: "%.1f", firstSave), String(format: "%.1f", lastSave),
        String(format: "%.1f", inserting),
        String(format: "%.1f", point), String(format: "%.2f", equality), String(format: "%.2f", range),
        String(format: "%.1f", contains),
        String(format: "%.1f", cascade / Double(max(1, children)) * 1e6), String(format: "%.0f", peakRSS()),
        backend == "memory" ? "-" : String(format: "%.0f", diskSize(path)),
    ]
    print("RESULT\t" + line.joined(separator: "\t"))
}

/// The peer for memory: a Dictionary of the same structs.
func measureDictionary(_ count: Int) {
    var dictionary: [UUID: BenchItem] = [:]
    for n in 0..<count {
        let item = BenchItem.make(n)
        dictionary[item.id] = item
    }
    print(
        "RESULT\tdictionary\t\(count)\t\(dictionary.count) structs, peak RSS \(String(format: "%.0f", peakRSS())) MiB")
}

if arguments.count == 4, arguments[1] == "one", let count = Int(arguments[3]) {
    try await measure(arguments[2], count)
    exit(0)
}
if arguments.count == 3, arguments[1] == "dictionary", let count = Int(arguments[2]) {
    measureDictionary(count)
    exit(0)
}

let sizes = (environment["STRATA_SCALE_SIZES"] ?? "10000,100000,1000000").split(separator: ",").compactMap { Int($0) }
let backends = (environment["STRATA_SCALE_BACKENDS"] ?? "memory,sqlite,lmdb,json").split(separator: ",").map(
    String.init)
let jsonMaximum = Int(environment["STRATA_SCALE_JSON_MAX"] ?? "") ?? 100_000

func child(_ childArguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = childArguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let result = output.split(separator: "\n").first { $0.hasPrefix("RESULT\t") }
    return result.map { String($0.dropFirst("RESULT\t".count)) } ?? "failed (exit \(process.terminationStatus))"
}

print(
    "| backend | N | µs/record first save | µs/record last save | insert total s | point fetch µs | indexed == limit 100 ms | indexed range+sort+limit 100 ms | non-indexed contains ms | cascade µs/child | peak RSS MiB | disk MiB |"
)
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for backend in backends {
    for size in sizes where backend != "json" || size <= jsonMaximum {
        let result = try child(["one", backend, String(size)])
        let cells = result.split(separator: "\t").map(String.init)
        print(cells.count >= 12 ? "| " + cells.joined(separator: " | ") + " |" : "| \(backend) | \(size) | \(result) |")
    }
}
for size in sizes where backends.contains("memory") {
    print("peer: " + (try child(["dictionary", String(size)])).replacingOccurrences(of: "\t", with: " "))
}
