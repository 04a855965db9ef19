import BenchmarkWorkloads
import Foundation

// Runs each workload for Strata's in-memory backend and for its raw peer (a Swift Dictionary)
// in this one process, takes the median of several runs, and prints the ratio.
// STRATA_BENCH_RUNS sets the number of runs; STRATA_BENCH_ONLY=TEXT runs the workloads whose name contains TEXT;
// STRATA_BENCH_GROUP=TEXT the groups whose backend contains TEXT ("in-memory", "SQLite", …).
let repetitions = Int(ProcessInfo.processInfo.environment["STRATA_BENCH_RUNS"] ?? "") ?? 5

func median(_ body: @Sendable () async throws -> @Sendable () async throws -> Int) async throws -> (Double, Int) {
    try await medianMilliseconds(runs: repetitions, body)
}

func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

let only = ProcessInfo.processInfo.environment["STRATA_BENCH_ONLY"]
let onlyGroup = ProcessInfo.processInfo.environment["STRATA_BENCH_GROUP"]
for group in WorkloadGroup.all where onlyGroup.map({ group.backend.contains($0) }) ?? true {
    print("\nStrata \(group.backend) vs \(group.peer) — median of \(repetitions) runs, milliseconds (release build)")
    print(pad("workload", 48) + pad("strata", 12) + pad(group.peer, 12) + "ratio")
    for workload in group.workloads where only.map({ workload.name.contains($0) }) ?? true {
        let (ours, ourResult) = try await median(workload.ours)
        let (peer, peerResult) = try await median(workload.peer)
        let check = ourResult == peerResult ? "" : "  (results differ: \(ourResult) vs \(peerResult))"
        print(
            pad(workload.name, 48) + pad(String(format: "%.2f", ours), 12) + pad(String(format: "%.2f", peer), 12)
                + String(format: "%.1f×", ours / max(peer, 0.0001)) + check)
    }
}
SQLiteWorkloads.removeTemporaryFiles()
