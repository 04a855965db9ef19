// swift-tools-version: 6.1
import Foundation
import CompilerPluginSupport
import PackageDescription

// Every target is built in Swift 6 language mode with strict concurrency and the two upcoming
// features the project has adopted.

// `make test` (and so CI) sets STRATA_WARNINGS_AS_ERRORS: a warning in any of the package's own
// targets fails the build there; dependencies are built as they are. A plain `swift build` is unchanged.
let warningsAsErrors: [SwiftSetting] =
    ProcessInfo.processInfo.environment["STRATA_WARNINGS_AS_ERRORS"] == nil
    ? [] : [.unsafeFlags(["-warnings-as-errors"])]

let strictSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + warningsAsErrors

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        // What a backend imports: values, records, schema descriptions, plans, the SPI, errors.
        .library(name: "StrataStorage", targets: ["StrataStorage"]),
        .library(name: "StrataInMemory", targets: ["StrataInMemory"]),
        .library(name: "StrataSQLite", targets: ["StrataSQLite"]),
        .library(name: "StrataLMDB", targets: ["StrataLMDB"]),
        .library(name: "StrataJSONFile", targets: ["StrataJSONFile"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .library(name: "StrataConformance", targets: ["StrataConformance"]),
        // The sync client: the engine that drains the outbox, the remote protocol, messages, the wire.
        .library(name: "StrataSync", targets: ["StrataSync"]),
        // The sync server's logic (access, identity, limits, the endpoint); no NIO, no HTTP library.
        .library(name: "StrataSyncServer", targets: ["StrataSyncServer"]),
        // What the command-line tool is made of: copies, loads, record JSON, digests, inspection.
        .library(name: "StrataTools", targets: ["StrataTools"]),
        // Sync over HTTP: the server routes (Hummingbird) and the client remote (AsyncHTTPClient),
        // in two modules so an app links only the side it needs.
        .library(name: "StrataSyncHTTP", targets: ["StrataSyncHTTPServer", "StrataSyncHTTPClient"]),
        // `@Model` and its markers; the one product that builds swift-syntax.
        .library(name: "StrataMacros", targets: ["StrataMacros"]),
        // The command-line tool over embedded stores; `strata-full` adds PostgreSQL, `serve` and
        // `checks` (and `strata` runs it for those when it is built beside it).
        .executable(name: "strata", targets: ["StrataCLI"]),
        .executable(name: "strata-full", targets: ["StrataFullCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        // Hummingbird's own dependency: the HTTP parts a channel handler of the sync server sees.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        // The model macro's compiler plugin only: apps that do not import StrataMacros never build it.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"700.0.0"),
        // `make docs`: the DocC catalog built by the package plugin (no code of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // swift-log and swift-metrics are API packages (no NIO): the core reports through them.
        // The storage layer: no engine, no dependency but Foundation.
        .target(name: "StrataStorage", path: "Sources/StrataStorage", swiftSettings: strictSettings),
        .target(
            name: "Strata",
            dependencies: [
                "StrataStorage",
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataInMemory",
            dependencies: ["StrataStorage"],
            path: "Backends/InMemory",
            swiftSettings: strictSettings
        ),
        // Internal: the SQL both SQL backends speak — one translator over a dialect value.
        .target(
            name: "StrataSQL", dependencies: ["StrataStorage"], path: "Backends/SQL", swiftSettings: strictSettings),
        .target(
            name: "StrataSQLite",
            dependencies: [
                "StrataStorage", "StrataSQL", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Backends/SQLite",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CLMDB",
            path: "Backends/LMDB/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // C only: the child process that walks a possibly damaged environment runs no Swift.
        .target(name: "CStrataLMDBWalk", dependencies: ["CLMDB"], path: "Backends/LMDB/Walk"),
        .target(
            name: "StrataLMDB",
            dependencies: ["StrataStorage", "CLMDB", "CStrataLMDBWalk"],
            path: "Backends/LMDB/Sources",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataJSONFile",
            dependencies: ["StrataStorage", "StrataInMemory"],
            path: "Backends/JSONFile",
            swiftSettings: strictSettings
        ),
        // PostgreSQL over postgres-nio: NIO stays out of the `Strata` core product.
        .target(
            name: "StrataPostgres",
            dependencies: [
                "StrataStorage", "StrataSQL", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Backends/Postgres",
            swiftSettings: strictSettings
        ),
        // The model macro: what it writes (a plain library, so that the tests can link it without
        // depending on a macro target: a test target that does moves every library under the tests
        // to the host's build destination, and the whole package is then compiled twice), the
        // compiler plugin around it, and the declarations apps import.
        .target(
            name: "StrataMacrosSupport",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            path: "Sources/StrataMacrosSupport",
            swiftSettings: strictSettings
        ),
        .macro(
            name: "StrataMacrosPlugin",
            dependencies: [
                "StrataMacrosSupport",
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            path: "Sources/StrataMacrosPlugin",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataMacros", dependencies: ["Strata", "StrataMacrosPlugin"], path: "Sources/StrataMacros",
            swiftSettings: strictSettings),
        // The sync client over any store: a service that only stores data never links it.
        .target(
            name: "StrataSync",
            dependencies: [
                "Strata", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/StrataSync",
            swiftSettings: strictSettings
        ),
        // The sync server's logic over any store: a service that only stores data never links it.
        .target(
            name: "StrataSyncServer",
            dependencies: ["Strata", "StrataSync"],
            path: "Sources/StrataSyncServer",
            swiftSettings: strictSettings
        ),
        // The tools behind the CLI, over the engine's public API and package-level metadata door.
        .target(
            name: "StrataTools",
            dependencies: ["Strata", "StrataSync"],
            path: "Sources/StrataTools",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataSyncHTTPServer",
            dependencies: [
                "Strata", "StrataSync", "StrataSyncServer", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/StrataSyncHTTPServer",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataSyncHTTPClient",
            dependencies: [
                "Strata", "StrataSync", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/StrataSyncHTTPClient",
            swiftSettings: strictSettings
        ),
        // The fixture domains (travel, library, samples) and the fault-injecting sync remote: what the
        // suite checks with and `strata demo` tours, without the suite.
        .target(name: "StrataFixtures", dependencies: ["Strata", "StrataSync"], swiftSettings: strictSettings),
        // The in-memory backend is the reference the differential category compares against.
        .target(
            name: "StrataConformance",
            dependencies: [
                "Strata", "StrataFixtures", "StrataInMemory", "StrataSync", "StrataSyncServer", "StrataTools",
            ],
            swiftSettings: strictSettings),
        // The command-line tool's commands over stores, shared by its two executables: `strata`
        // (embedded stores only, so that `make run` builds nothing of NIO, TLS or the suite) and
        // `strata-full` (with PostgreSQL, `serve` and `checks`), which `strata` runs in its place
        // for those when it is built beside it.
        .target(
            name: "StrataCommandLine",
            dependencies: [
                "Strata", "StrataFixtures", "StrataSync", "StrataSyncServer", "StrataTools", "StrataInMemory",
                "StrataSQLite", "StrataLMDB", "StrataJSONFile",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata", "StrataCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/strata",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataFullCLI",
            dependencies: [
                "Strata", "StrataCommandLine", "StrataConformance", "StrataPostgres", "StrataSync", "StrataSyncServer",
                "StrataSyncHTTPServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/strata-full",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataSync", "StrataTools", "StrataSyncServer", "StrataInMemory", "StrataConformance",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MacroTests",
            dependencies: [
                "StrataMacros", "StrataMacrosSupport", "StrataConformance", "StrataInMemory",
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "Strata", "StrataSync", "StrataSyncServer", "StrataInMemory", "StrataSQLite", "StrataLMDB",
                "StrataJSONFile",
                "StrataPostgres", "StrataConformance",
                "StrataSyncHTTPServer", "StrataSyncHTTPClient", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // The other process of the checks that need one; ConformanceTests runs it from the build directory.
        .executableTarget(
            name: "ConformanceChild",
            dependencies: ["StrataSQLite", "StrataLMDB", "StrataPostgres", "StrataConformance"],
            path: "Tests/ConformanceChild",
            swiftSettings: strictSettings
        ),
        // The API earlier releases had, still compiling: deprecation warnings stay warnings here
        // (after -warnings-as-errors, so any other warning still fails the build).
        .testTarget(
            name: "APICompatibilityTests",
            dependencies: ["Strata", "StrataInMemory", "StrataJSONFile"],
            swiftSettings: strictSettings + [.unsafeFlags(["-Wwarning", "DeprecatedDeclaration"])]
        ),
        .testTarget(
            name: "InMemoryTests",
            dependencies: ["Strata", "StrataInMemory", "StrataConformance"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JSONFileTests",
            dependencies: ["Strata", "StrataJSONFile", "StrataConformance"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LMDBTests",
            dependencies: ["Strata", "StrataSync", "StrataSyncServer", "StrataLMDB", "StrataConformance", "CLMDB"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["Strata", "StrataPostgres", "StrataConformance"],
            swiftSettings: strictSettings
        ),
        // The other process of the PostgreSQL two-writer test; PostgresTests runs it from the build directory.
        .executableTarget(
            name: "PostgresWriterChild",
            dependencies: ["Strata", "StrataPostgres", "StrataConformance"],
            path: "Tests/PostgresWriterChild",
            swiftSettings: strictSettings
        ),
        // `strata serve` as a process (built beside the tests): one client, and two servers over one store.
        .testTarget(
            name: "SyncHTTPTests",
            dependencies: [
                "Strata", "StrataSync", "StrataSyncServer", "StrataInMemory", "StrataSQLite", "StrataPostgres",
                "StrataConformance",
                "StrataSyncHTTPClient", "StrataSyncHTTPServer",
            ],
            swiftSettings: strictSettings
        ),
        // The built `strata` run as a user runs it, on every persistent backend.
        // The notes service the user built, rewritten against the repository protocols:
        // one codebase for every backend (NOTES_STORE) and for its tests' fakes.
        .target(
            name: "NotesService",
            dependencies: [
                "Strata", "StrataMacros", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/NotesService/NotesService",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "notes-service",
            dependencies: [
                "NotesService", "Strata", "StrataInMemory", "StrataSQLite", "StrataConformance", "StrataLMDB",
                "StrataJSONFile",
                "StrataPostgres",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Examples/NotesService/notes-service",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NotesServiceTests",
            dependencies: [
                "NotesService", "Strata", "StrataInMemory", "StrataSQLite", "StrataConformance",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReadmeTests",
            dependencies: [
                "Strata", "StrataSync", "StrataStorage", "StrataSyncServer", "StrataTools", "StrataSQLite",
                "StrataConformance", "StrataMacros",
                "StrataSyncHTTPServer", "StrataSyncHTTPClient",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ToolTests",
            dependencies: [
                "Strata", "StrataTools", "StrataSQLite", "StrataLMDB", "StrataJSONFile", "StrataPostgres",
                "StrataConformance",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SQLiteTests",
            dependencies: [
                "Strata", "StrataSQLite", "StrataConformance", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
