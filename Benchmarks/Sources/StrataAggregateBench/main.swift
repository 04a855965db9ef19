import BenchmarkWorkloads
import Foundation
import GRDB
import Strata
import StrataInMemory
import StrataSQLite

// Aggregates over N BenchItems (200,000 by default, STRATA_AGGREGATE_RECORDS): Strata's typed
// aggregate on SQLite (pushed down as one GROUP BY) beside the same SQL run raw through GRDB on
// the same file, and the engine's evaluation (what LMDB and the JSON file get) on the in-memory
// backend for reference. Each runs 5 times; the best time is reported. `make bench-aggregate`.

func best(_ runs: Int = 5, _ body: () async throws -> Void) async rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try await body()
        fastest = min(fastest, seconds(ContinuousClock.now - start))
    }
    return fastest
}

let count = Int(ProcessInfo.processInfo.environment["STRATA_AGGREGATE_RECORDS"] ?? "") ?? 200_000
let schema = try BenchSchema.make()
let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-aggregate-\(UUID().uuidString).sqlite")
    .path
defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
let store = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
let memory = Store(backend: InMemoryBackend(schema: schema))
for start in stride(from: 0, to: count, by: 10_000) {
    let items = (start..<min(count, start + 10_000)).map(BenchItem.make)
    try await store.repository(BenchItem.self).insert(contentsOf: items)
    try await memory.repository(BenchItem.self).insert(contentsOf: items)
}
let items = store.repository(BenchItem.self)
let queue = try DatabaseQueue(path: path)
let tableName = try await queue.read { db in
    try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%BenchItem%'")
        ?? "BenchItem"
}

print("aggregates over \(count) records (best of 5)")
print("case                                   strata      raw GRDB    ratio   engine (in-memory)")
func report(_ name: String, ours: Double, raw: Double, engine: Double) {
    let padded = name.padding(toLength: 38, withPad: " ", startingAt: 0)
    print(
        "\(padded) \(String(format: "%8.1f ms  %8.1f ms  %5.2f×  %8.1f ms", ours * 1000, raw * 1000, ours / raw, engine * 1000))"
    )
}

// 1. The whole table, grouped by region (4 groups): count, sum, average, min, max.
var grouped: [(String, Int, Int, Double?, Double?, Double?)] = []
let oursGrouped = try await best {
    grouped = try await items.aggregate(
        .count, .sum(\.quantity), .average(\.score), .min(\.ratio), .max(\.score), groupedBy: \.region)
}
let rawGrouped = try await best {
    _ = try await queue.read { db in
        try Row.fetchAll(
            db,
            sql:
                "SELECT region, count(*), sum(quantity), avg(score), min(ratio), max(score) FROM \"\(tableName)\" GROUP BY region ORDER BY region"
        )
    }
}
let engineGrouped = try await best {
    _ = try await memory.repository(BenchItem.self).aggregate(
        .count, .sum(\.quantity), .average(\.score), .min(\.ratio), .max(\.score), groupedBy: \.region)
}
report("grouped by region, 5 functions", ours: oursGrouped, raw: rawGrouped, engine: engineGrouped)
guard grouped.count == 4, grouped.map(\.1).reduce(0, +) == count else {
    print("wrong answer: \(grouped)")
    exit(1)
}

// 2. One category (indexed: 1% of the records): count, sum, average.
let oursFiltered = try await best {
    _ = try await items.aggregate(.count, .sum(\.quantity), .average(\.score), where: \.category == 7)
}
let rawFiltered = try await best {
    _ = try await queue.read { db in
        try Row.fetchOne(
            db, sql: "SELECT count(*), sum(quantity), avg(score) FROM \"\(tableName)\" WHERE category = ?",
            arguments: [7])
    }
}
let engineFiltered = try await best {
    _ = try await memory.repository(BenchItem.self).aggregate(
        .count, .sum(\.quantity), .average(\.score), where: \.category == 7)
}
report("one indexed category, 3 functions", ours: oursFiltered, raw: rawFiltered, engine: engineFiltered)

// 3. Grouped by the indexed category (100 groups), counts only.
let oursCounts = try await best { _ = try await items.aggregate(.count, groupedBy: \.category) }
let rawCounts = try await best {
    _ = try await queue.read { db in
        try Row.fetchAll(db, sql: "SELECT category, count(*) FROM \"\(tableName)\" GROUP BY category ORDER BY category")
    }
}
let engineCounts = try await best {
    _ = try await memory.repository(BenchItem.self).aggregate(.count, groupedBy: \.category)
}
report("count grouped by indexed category", ours: oursCounts, raw: rawCounts, engine: engineCounts)
try await store.close()
