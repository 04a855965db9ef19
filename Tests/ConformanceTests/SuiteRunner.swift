import Foundation
import Strata
import StrataConformance
import Testing

/// Runs one check and reports it to Swift Testing: a failure is an issue at the line of the suite
/// that made the expectation; a skip is a cancelled test carrying its reason, never a pass.
func run(_ check: ConformanceCheck, on suite: ConformanceSuite) async throws {
    do {
        if case .skipped(let reason) = try await suite.run(check) {
            try Test.cancel("skipped: \(reason)")
        }
    } catch let failure as ConformanceFailure {
        Issue.record(
            Comment(rawValue: "\(suite.backend.name): \(failure.message)"),
            sourceLocation: SourceLocation(fileID: failure.fileID, filePath: failure.filePath, line: failure.line, column: 1))
    }
}
