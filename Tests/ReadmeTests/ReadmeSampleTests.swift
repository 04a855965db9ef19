import Foundation
import Strata
import Testing

/// README.md's and every DocC article's code samples compile as shown: each ```swift block is held,
/// verbatim, by a file of this target (which the build compiles), and the Package.swift sample is a manifest
/// `swift package dump-package` accepts.
@Suite struct ReadmeSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

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

    /// Every article of every DocC catalog (module catalogs under Sources/ and Backends/).
    static func catalogArticles() throws -> [String] {
        var articles: [String] = []
        for folder in ["Sources", "Backends"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".md") && path.contains(".docc/") {
                articles.append("\(folder)/\(path)")
            }
        }
        return articles.sorted()
    }

    @Test func everyModuleThatUsersImportHasACatalog() throws {
        let catalogs = Set(
            try Self.catalogArticles().map { $0.split(separator: "/").dropLast().joined(separator: "/") })
        for module in [
            "StrataStorage", "Strata", "StrataSync", "StrataSyncServer", "StrataTools", "StrataConformance",
            "StrataSQLite",
            "StrataLMDB", "StrataJSONFile", "StrataPostgres", "StrataInMemory", "StrataMacros",
        ] {
            #expect(catalogs.contains { $0.hasSuffix("/\(module).docc") }, "no DocC catalog for \(module)")
        }
    }

    @Test func everySwiftBlockOfEveryArticleIsCompiledVerbatim() throws {
        let compiled = try Self.compiledSamples()
        let articles = try Self.catalogArticles()
        #expect(articles.count >= 20, "\(articles.count) articles found")
        var blockCount = 0
        for article in articles {
            let blocks = try Self.blocks(of: article)
            blockCount += blocks.count
            for (index, block) in blocks.enumerated() where !block.hasPrefix("// swift-tools-version") {
                #expect(
                    compiled.contains { $0.contains(block) },
                    "\(article)'s swift block \(index + 1) is not in Samples:\n\(block)")
                #expect(!block.contains("…"), "\(article)'s block \(index + 1) has a placeholder")
            }
        }
        #expect(blockCount >= 15, "\(blockCount) swift blocks in the articles")
    }

    @Test func everySwiftBlockIsCompiledVerbatimByThisTarget() throws {
        let compiled = try Self.compiledSamples()
        let blocks = try Self.blocks()
        #expect(blocks.count >= 3, "README.md has \(blocks.count) swift blocks")
        for (index, block) in blocks.enumerated() where !block.hasPrefix("// swift-tools-version") {
            #expect(
                compiled.contains { $0.contains(block) },
                "README.md's swift block \(index + 1) is not in Tests/ReadmeTests/Samples:\n\(block)")
            #expect(!block.contains("…"), "block \(index + 1) has a placeholder")
        }
    }

    @Test func thePackageManifestSampleIsAManifest() async throws {
        let manifests = try Self.blocks().filter { $0.hasPrefix("// swift-tools-version") }
        #expect(manifests.count == 1)
        for manifest in manifests {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "strata-readme-\(UUID().uuidString)/app")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            // `../strata` beside the app, as the sample assumes.
            try FileManager.default.createSymbolicLink(
                at: directory.deletingLastPathComponent().appendingPathComponent("strata"),
                withDestinationURL: Self.root)
            try manifest.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift", "package", "dump-package"]
            process.currentDirectoryURL = directory
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            // Read and waited for on a thread of its own: a blocked cooperative thread starves the
            // rest of the test process.
            let handle = output.fileHandleForReading
            let text = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)) }
                    .start()
            }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "swift package dump-package failed:\n\(text)")
            #expect(text.contains("\"TripsService\""), "\(text.prefix(500))")
        }
    }
}
