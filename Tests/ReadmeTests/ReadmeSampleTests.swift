import Foundation
import Strata
import Testing

/// README.md's code samples compile as shown: each ```swift block is held, verbatim, by a file
/// of this target (which the build compiles), and the Package.swift sample is a manifest
/// `swift package dump-package` accepts.
@Suite struct ReadmeSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text of every ```swift block of `file` (README.md by default), in order.
    static func blocks(of file: String = "README.md") throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The text of every file of Samples/, which the build compiles.
    static func compiledSamples() throws -> [String] {
        let samples = Self.root.appendingPathComponent("Tests/ReadmeTests/Samples")
        let files = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter { $0.hasSuffix(".swift") }
        return try files.map { try String(contentsOf: samples.appendingPathComponent($0), encoding: .utf8) }
    }

    /// The DocC catalogs whose every swift block is compiled (the Strata catalog's articles are not
    /// yet: they hold fragments).
    static let compiledCatalogs = [
        "Sources/StrataSyncServer/StrataSyncServer.docc/StrataSyncServer.md",
        "Sources/StrataTools/StrataTools.docc/StrataTools.md",
        "Sources/Strata/Strata.docc/Conflicts.md",
        "Sources/StrataStorage/StrataStorage.docc/ImplementingABackend.md",
    ]

    @Test(arguments: compiledCatalogs)
    func everySwiftBlockOfTheCatalogIsCompiledVerbatim(_ article: String) throws {
        let compiled = try Self.compiledSamples()
        let blocks = try Self.blocks(of: article)
        #expect(!blocks.isEmpty, "\(article) has no swift block")
        for (index, block) in blocks.enumerated() {
            #expect(compiled.contains { $0.contains(block) }, "\(article)'s swift block \(index + 1) is not in Samples:\n\(block)")
        }
    }

    @Test func everySwiftBlockIsCompiledVerbatimByThisTarget() throws {
        let compiled = try Self.compiledSamples()
        let blocks = try Self.blocks()
        #expect(blocks.count >= 12, "README.md has \(blocks.count) swift blocks")
        for (index, block) in blocks.enumerated() where !block.hasPrefix("// swift-tools-version") {
            #expect(compiled.contains { $0.contains(block) }, "README.md's swift block \(index + 1) is not in Tests/ReadmeTests/Samples:\n\(block)")
            #expect(!block.contains("…"), "block \(index + 1) has a placeholder")
        }
    }

    @Test func thePackageManifestSampleIsAManifest() throws {
        let manifests = try Self.blocks().filter { $0.hasPrefix("// swift-tools-version") }
        #expect(manifests.count == 1)
        for manifest in manifests {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-readme-\(UUID().uuidString)/app")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            // `../strata` beside the app, as the sample assumes.
            try FileManager.default.createSymbolicLink(at: directory.deletingLastPathComponent().appendingPathComponent("strata"), withDestinationURL: Self.root)
            try manifest.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift", "package", "dump-package"]
            process.currentDirectoryURL = directory
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "swift package dump-package failed:\n\(text)")
            #expect(text.contains("\"TripsService\""), "\(text.prefix(500))")
        }
    }
}
