// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The parent package is a path dependency; its identity is its folder's name, whatever the clone is called.
let strata = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
    .lowercased()

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The peer table's ORM (`make bench-peers`): FluentKit with its SQLite and PostgreSQL drivers.
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // liblmdb for the raw peer of the LMDB workloads.
        .systemLibrary(name: "CLMDBRaw", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        // The workloads: each runs our backend and its raw peer on the same data.
        .target(
            name: "BenchmarkWorkloads",
            dependencies: [
                .product(name: "Strata", package: strata),
                .product(name: "StrataInMemory", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
                .product(name: "StrataJSONFile", package: strata),
                .product(name: "StrataSync", package: strata),
                .product(name: "StrataSyncServer", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CLMDBRaw",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Prints ours ÷ peer for each workload, both measured in this one process.
        .executableTarget(
            name: "StrataRatios",
            dependencies: ["BenchmarkWorkloads"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Live queries: diff delivery against refetching, and other processes' commits' latency.
        .executableTarget(
            name: "StrataObservation",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataInMemory", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // How costs grow with store size: 10k, 100k, 1M records per backend (`make bench-scale`).
        .executableTarget(
            name: "StrataScale",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataInMemory", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
                .product(name: "StrataJSONFile", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Migrating 100k and 1M records on SQLite and LMDB beside the raw peer (`make bench-migration`).
        .executableTarget(
            name: "StrataMigration",
            dependencies: [
                "BenchmarkWorkloads",
                "CLMDBRaw",
                .product(name: "Strata", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Strata's SQLite backend beside the libraries users would pick instead, on the same workloads:
        // raw GRDB statements, GRDB's Codable records, GRDB's hand-written records, FluentKit on SQLite; and
        // with STRATA_POSTGRES_URL, the PostgreSQL backend beside FluentKit on PostgreSQL (`make bench-peers`).
        .executableTarget(
            name: "StrataPeers",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQL", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "StrataPostgres", package: strata),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // PostgreSQL beside raw postgres-nio running the same statements (`make bench-postgres`).
        .executableTarget(
            name: "StrataPostgresBench",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataPostgres", package: strata),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Full-text search: indexing cost per backend, and the top 20 of a two-term query over 1M
        // documents beside the same query on an FTS5 table through GRDB.
        .executableTarget(
            name: "StrataSearchBench",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataInMemory", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
                .product(name: "StrataPostgres", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // A 100 MiB file up and down through sync over loopback HTTP: memory, and a kill mid-transfer.
        .executableTarget(
            name: "StrataFileBench",
            dependencies: [
                .product(name: "Strata", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataSync", package: strata),
                .product(name: "StrataSyncServer", package: strata),
                .product(name: "StrataSyncHTTP", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Sync over loopback HTTP beside the in-process JSON transport: drain, pull, long-poll wake-ups.
        .executableTarget(
            name: "StrataSyncHTTPBench",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataSync", package: strata),
                .product(name: "StrataSyncHTTP", package: strata),
                .product(name: "StrataSyncServer", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // `strata copy` of 1M records SQLite → LMDB (StoreCopier, the code behind the command) beside a
        // raw copy (GRDB rows → RecordCodec bytes → mdb_put), each in a process of its own for its peak RSS.
        // Aggregates pushed down to SQLite beside the same GROUP BY through GRDB.
        .executableTarget(
            name: "StrataAggregateBench",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataInMemory", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        .executableTarget(
            name: "StrataCopyBench",
            dependencies: [
                "BenchmarkWorkloads",
                "CLMDBRaw",
                .product(name: "Strata", package: strata),
                .product(name: "StrataTools", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // A save of 100k records with a decimal and a five-element array beside one with a double and text.
        .executableTarget(
            name: "StrataValuesBench",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataInMemory", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // A streamed read of 1M records beside one array, with peak memory, on SQLite, LMDB and PostgreSQL.
        .executableTarget(
            name: "StrataStreamBench",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Strata", package: strata),
                .product(name: "StrataTools", package: strata),
                .product(name: "StrataSQLite", package: strata),
                .product(name: "StrataLMDB", package: strata),
                .product(name: "StrataPostgres", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // What the LMDB backend's default structural walk costs at open, on a store of 1M records.
        .executableTarget(
            name: "StrataLMDBOpenBench",
            dependencies: [
                "BenchmarkWorkloads",
                "CLMDBRaw",
                .product(name: "Strata", package: strata),
                .product(name: "StrataLMDB", package: strata),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        // ordo-one/benchmark: wall clock, allocations and percentiles for the same workloads.
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StrataBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
