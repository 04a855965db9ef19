import Foundation
import Strata
import Testing

/// The version is said once in code and once in the changelog, and the API baseline is the
/// newest release's.
@Suite struct ReleaseTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The `## X.Y.Z — date` headings of the changelog, newest first.
    static func releases() throws -> [String] {
        try read("CHANGELOG.md").split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("## "), let first = line.dropFirst(3).split(separator: " ").first,
                first.split(separator: ".").count == 3, first.split(separator: ".").allSatisfy({ Int($0) != nil })
            else { return nil }
            return String(first)
        }
    }

    @Test func theVersionIsTheChangelogsNewestRelease() throws {
        let releases = try Self.releases()
        #expect(releases.first == StrataRelease.version, "CHANGELOG.md's newest release: \(releases)")
        let changelog = try Self.read("CHANGELOG.md")
        let unreleased = try #require(changelog.range(of: "\n## Unreleased\n"), "an Unreleased section")
        let newest = try #require(changelog.range(of: "\n## \(StrataRelease.version) "))
        #expect(unreleased.lowerBound < newest.lowerBound, "Unreleased comes first")
    }

    @Test func theAPIBaselineIsTheNewestReleases() throws {
        let baseline = try Self.read("api/BASELINE").split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(baseline.first == (try Self.releases().first), "api/BASELINE: \(baseline)")
        #expect(baseline.count == 2 && baseline[1].count == 40, "a version and a full commit id: \(baseline)")
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("api/baseline/\(baseline.last ?? "")").path)
        #expect(files.contains { $0.hasPrefix("Strata.") }, "the core's API is in the baseline: \(files)")
    }
}
