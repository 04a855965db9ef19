import Benchmark
import BenchmarkWorkloads

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 10)
    for workload in InMemoryWorkloads.all {
        for (side, make) in [("strata", workload.ours), ("dictionary", workload.peer)] {
            Benchmark("\(workload.name) [\(side)]") { benchmark in
                let run = try await make()
                benchmark.startMeasurement()
                blackHole(try await run())
                benchmark.stopMeasurement()
            }
        }
    }
}
