import Foundation
import Testing

/// The dependency rule between the package's modules, read from the sources' `import` lines: each
/// module imports only what sits below it — StrataStorage ← Strata ← StrataSync ← StrataSyncServer ←
/// the HTTP server; StrataTools and the CLI on top; backends on StrataStorage alone — so a service that only
/// stores data links no sync server and no tools, a backend never reaches into the engine, and no
/// NIO or HTTP library reaches the core, and swift-syntax stays in the macro plugin.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A module's source folder and the modules of this package or NIO family it must not import.
    static let rules: [(folder: String, forbidden: Set<String>)] = [
        (
            "Sources/StrataStorage",
            [
                "Strata", "StrataSync", "StrataSyncServer", "StrataTools", "StrataConformance", "StrataSyncHTTPServer",
                "StrataSyncHTTPClient", "StrataInMemory", "StrataSQLite", "StrataLMDB", "StrataJSONFile",
                "StrataPostgres",
                "NIOCore", "NIOPosix", "Hummingbird", "AsyncHTTPClient", "GRDB", "PostgresNIO", "Logging", "Metrics",
                "SwiftSyntax", "SwiftSyntaxMacros", "StrataMacros",
            ]
        ),
        (
            "Sources/Strata",
            [
                "StrataSync", "StrataSyncServer", "StrataTools", "StrataConformance", "StrataSyncHTTPServer",
                "StrataSyncHTTPClient",
                "StrataInMemory", "StrataSQLite", "StrataLMDB", "StrataJSONFile", "StrataPostgres", "NIOCore",
                "NIOPosix",
                "Hummingbird", "AsyncHTTPClient", "GRDB", "PostgresNIO", "SwiftSyntax", "SwiftSyntaxMacros",
                "StrataMacros",
            ]
        ),
        (
            "Sources/StrataSync",
            [
                "StrataSyncServer", "StrataTools", "StrataConformance", "StrataSyncHTTPServer", "StrataSyncHTTPClient",
                "NIOCore", "NIOPosix", "Hummingbird", "AsyncHTTPClient", "GRDB", "PostgresNIO", "SwiftSyntax",
            ]
        ),
        (
            "Sources/StrataSyncServer",
            [
                "StrataTools", "StrataConformance", "StrataSyncHTTPServer", "StrataSyncHTTPClient", "NIOCore",
                "NIOPosix",
                "Hummingbird", "AsyncHTTPClient",
            ]
        ),
        (
            "Sources/StrataTools",
            ["StrataSyncServer", "StrataConformance", "StrataSyncHTTPServer", "NIOCore", "Hummingbird"]
        ),
        ("Sources/StrataSyncHTTPClient", ["StrataSyncServer", "StrataSyncHTTPServer", "StrataTools", "Hummingbird"]),
        (
            "Backends",
            [
                "Strata", "StrataSync", "StrataSyncServer", "StrataTools", "StrataConformance", "StrataSyncHTTPServer",
                "Hummingbird", "SwiftSyntax",
            ]
        ),
    ]

    /// The modules a Swift file imports.
    static func imports(of file: URL) throws -> Set<String> {
        let text = try String(contentsOf: file, encoding: .utf8)
        var modules: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { continue }
            guard words[..<index].allSatisfy({ $0.hasPrefix("@") || $0 == "package" || $0 == "public" }) else {
                continue
            }
            modules.insert(String(words[index + 1]))
        }
        return modules
    }

    static func swiftFiles(under folder: String) -> [URL] {
        let base = root.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }

    @Test(arguments: rules.map(\.folder))
    func aModuleImportsOnlyWhatSitsBelowIt(_ folder: String) throws {
        let forbidden = try #require(Self.rules.first { $0.folder == folder }).forbidden
        let files = Self.swiftFiles(under: folder)
        #expect(!files.isEmpty, "\(folder) has no Swift files")
        for file in files {
            let wrong = try Self.imports(of: file).intersection(forbidden)
            #expect(wrong.isEmpty, "\(file.path.dropFirst(Self.root.path.count + 1)) imports \(wrong.sorted())")
        }
    }

    /// SwiftPM reads the tools version from a manifest's first line; a formatter that sorts imports
    /// must not move it (older toolchains refuse a manifest that does not start with it).
    @Test(arguments: ["Package.swift", "Benchmarks/Package.swift"])
    func aManifestStartsWithItsToolsVersion(_ path: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        let first = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        #expect(first.hasPrefix("// swift-tools-version:"), "\(path) starts with \(first)")
    }
}
