import Benchmark
import BenchmarkWorkloads

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 10)
    // The persistent backends' workloads create databases in one temporary folder; remove it after the run.
    Benchmark.teardown = { SQLiteWorkloads.removeTemporaryFiles() }
    for group in WorkloadGroup.all {
        for workload in group.workloads {
            for (side, make) in [(group.backend, workload.ours), (group.peer, workload.peer)] {
                Benchmark("\(workload.name) [\(side)]") { benchmark in
                    let run = try await make()
                    benchmark.startMeasurement()
                    blackHole(try await run())
                    benchmark.stopMeasurement()
                }
            }
        }
    }
}
