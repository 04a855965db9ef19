// swift-tools-version: 6.1
import PackageDescription

/// Every target is built in Swift 6 language mode with strict concurrency and the two upcoming
/// features the project has adopted.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataInMemory", targets: ["StrataInMemory"]),
        .library(name: "StrataConformance", targets: ["StrataConformance"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "Strata", swiftSettings: strictSettings),
        .target(
            name: "StrataInMemory",
            dependencies: ["Strata"],
            path: "Backends/InMemory",
            swiftSettings: strictSettings
        ),
        .target(name: "StrataConformance", dependencies: ["Strata"], swiftSettings: strictSettings),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata", "StrataInMemory", "StrataConformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/strata",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataInMemory", "StrataConformance"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["Strata", "StrataInMemory", "StrataConformance"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
