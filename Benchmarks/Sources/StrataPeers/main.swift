import BenchmarkWorkloads
import Foundation

// The peer table: Strata's SQLite backend beside the libraries a user would pick instead — GRDB's
// Codable records, GRDB's hand-written records and FluentKit on SQLite — and beside raw GRDB
// statements, on the same workloads and data, all in this one process. Each cell is the median of
// STRATA_BENCH_RUNS runs (default 3) in milliseconds, with its ratio to raw statements; the last
// column is Strata ÷ the fastest library of the record layers and ORMs. STRATA_BENCH_ONLY=TEXT runs
// the workloads whose name contains TEXT. With STRATA_POSTGRES_URL, a second table puts the PostgreSQL
// backend beside FluentKit on PostgreSQL.

let runs = Int(ProcessInfo.processInfo.environment["STRATA_BENCH_RUNS"] ?? "") ?? 3
let only = ProcessInfo.processInfo.environment["STRATA_BENCH_ONLY"]

func median(_ prepare: Prepare) async throws -> (Double, Int) { try await medianMilliseconds(runs: runs, prepare) }

/// Strata and raw GRDB come from the SQLite group of `StrataRatios`, so the two tables agree.
func fromRatios(_ prefix: String) throws -> Workload {
    guard let workload = SQLiteWorkloads.all.first(where: { $0.name.hasPrefix(prefix) }) else {
        throw PeerError("no SQLite workload named \(prefix)…")
    }
    return workload
}

let ratioNames = [
    "SQLite insert 100k", "SQLite fetch all 100k", "SQLite 100k point fetches, one read",
    "SQLite indexed query", "SQLite cascade delete",
]
let libraries = [GRDBRecordPeers.codable, GRDBRecordPeers.handWritten, FluentPeer.library(.sqlite)]

func cell(_ milliseconds: Double, _ raw: Double) -> String {
    String(format: "%.1f (%.1f×)", milliseconds, milliseconds / max(raw, 0.0001))
}

func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

print("Strata SQLite beside GRDB and FluentKit — median of \(runs) runs, ms (× raw GRDB statements), release build")
print(
    pad("workload", 34) + pad("raw GRDB", 12) + (["Strata"] + libraries.map(\.name)).map { pad($0, 22) }.joined()
        + "Strata ÷ best other")
for (index, (name, _)) in libraries[0].workloads.enumerated() where only.map({ name.contains($0) }) ?? true {
    let workload = try fromRatios(ratioNames[index])
    let (raw, rawCount) = try await median(workload.peer)
    let (ours, ourCount) = try await median(workload.ours)
    var others: [(Double, Int)] = []
    for library in libraries { others.append(try await median(library.workloads[index].1)) }
    let counts = Set([rawCount, ourCount] + others.map(\.1))
    let best = others.map(\.0).min() ?? 0
    print(
        pad(name, 34) + pad(String(format: "%.1f", raw), 12)
            + ([ours] + others.map(\.0)).map { pad(cell($0, raw), 22) }
            .joined() + String(format: "%.2f×", ours / max(best, 0.0001))
            + (counts.count == 1 ? "" : "  (results differ: \(counts.sorted()))"))
}
SQLiteWorkloads.removeTemporaryFiles()

if let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] {
    try await PostgresPeers.run(url: url)
} else {
    print("\nPostgreSQL rows skipped: STRATA_POSTGRES_URL is not set (`make bench-peers` starts a server).")
}
