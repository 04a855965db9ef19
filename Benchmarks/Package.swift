// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The parent package is a path dependency; its identity is its folder's name, whatever the clone is called.
let strata = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The workloads: each runs our backend and its raw peer on the same data.
        .target(
            name: "BenchmarkWorkloads",
            dependencies: [
                .product(name: "Strata", package: strata),
                .product(name: "StrataInMemory", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Prints ours ÷ peer for each workload, both measured in this one process.
        .executableTarget(
            name: "StrataRatios",
            dependencies: ["BenchmarkWorkloads"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // ordo-one/benchmark: wall clock, allocations and percentiles for the same workloads.
        .executableTarget(
            name: "InMemoryBenchmarks",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/InMemoryBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
