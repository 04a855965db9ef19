import Foundation
import Strata
import StrataConformance
import Testing

/// Runs a suite's checks — every one, or those `STRATA_CHECKS` selects — and reports to Swift
/// Testing: the summary printed (failures, skips grouped by the feature not declared, and
/// `N passed, N failed, N skipped`), each failure an issue at the line of the suite that made the
/// expectation. A check past its deadline fails there too; the run never hangs.
func runSuite(_ suite: ConformanceSuite, _ checks: [ConformanceCheck] = ConformanceSuite.selected) async {
    let report = await suite.runAll(checks)
    print(report.summary)
    for (check, failure) in report.failures {
        Issue.record(
            Comment(rawValue: "\(suite.backend.name), \(check.id): \(failure.message)"),
            sourceLocation: SourceLocation(
                fileID: failure.fileID, filePath: failure.filePath, line: failure.line, column: 1))
    }
}

/// A registry of a runner's own, filled by `register` (what a backend under test migrates through).
func registered(_ register: (BackendRegistry) -> Void) -> BackendRegistry {
    let registry = BackendRegistry()
    register(registry)
    return registry
}

/// A new path in the temporary directory for one check's store.
func temporaryPath(_ suffix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("strata-conformance-\(UUID().uuidString).\(suffix)")
        .path
}

/// Copies a store's files as they are on disk (`path` + each suffix that exists).
func copyFiles(from path: String, to copy: String, suffixes: [String]) throws {
    for suffix in suffixes where FileManager.default.fileExists(atPath: path + suffix) {
        try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
    }
}

/// Runs a conformance command in the `ConformanceChild` executable, built beside the tests.
func runInChildProcess(_ store: Store, _ command: [String]) async throws {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let executable = directory.appendingPathComponent("ConformanceChild")
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
        throw StrataError(
            .storageFailure,
            "ConformanceChild is not built at \(executable.path): build with `swift build --build-tests`")
    }
    try await ConformanceChildProcess.run(executable: executable, store: store, command: command)
}
