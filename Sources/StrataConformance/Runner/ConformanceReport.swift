import Foundation

/// What one check produced in a run of the suite.
public struct ConformanceResult: Sendable {
    /// How a check ended.
    public enum Status: Sendable {
        /// It passed.
        case passed
        /// It failed (an expectation, an unexpected error, a deadline, or a skip a claimed profile forbids).
        case failed(ConformanceFailure)
        /// It did not run: the backend does not declare `missing`.
        case skipped(reason: String, missing: Set<BackendFeature>)
    }

    /// The check.
    public let check: ConformanceCheck
    /// How it ended.
    public let status: Status
    /// How long it worked (from taking its slot to its end).
    public let duration: Duration
}

/// The results of a run of the suite against one backend, and the summary a person or CI reads.
public struct ConformanceReport: Sendable {
    /// The backend's name.
    public let backend: String
    /// Every check's result, in suite order.
    public let results: [ConformanceResult]

    /// The checks that passed.
    public var passed: [ConformanceCheck] {
        results.compactMap { if case .passed = $0.status { $0.check } else { nil } }
    }
    /// The failures, in suite order.
    public var failures: [(check: ConformanceCheck, failure: ConformanceFailure)] {
        results.compactMap { if case .failed(let failure) = $0.status { ($0.check, failure) } else { nil } }
    }
    /// The skipped checks with their reasons.
    public var skipped: [(check: ConformanceCheck, reason: String)] {
        results.compactMap { if case .skipped(let reason, _) = $0.status { ($0.check, reason) } else { nil } }
    }

    /// `N passed, N failed, N skipped`.
    public var closingLine: String { "\(passed.count) passed, \(failures.count) failed, \(skipped.count) skipped" }

    /// The whole summary: failures with their first line and place, skips grouped by the feature
    /// the backend does not declare (each with its checks), then ``closingLine``.
    public var summary: String {
        var lines = ["Conformance of \(backend): \(results.count) checks"]
        if !failures.isEmpty {
            lines.append("failed (\(failures.count)):")
            for (check, failure) in failures {
                let first = failure.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
                lines.append("  \(check.id) — \(first.prefix(300)) [\(failure.fileID):\(failure.line)]")
            }
        }
        var byFeature: [String: [String]] = [:]
        for result in results {
            guard case .skipped(_, let missing) = result.status else { continue }
            let key = missing.map(\.rawValue).sorted().joined(separator: " + ")
            byFeature[key, default: []].append(result.check.id)
        }
        if !byFeature.isEmpty {
            lines.append("skipped (\(skipped.count)), by what \(backend) does not declare:")
            for (feature, checks) in byFeature.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(feature) (\(checks.count)): \(checks.joined(separator: ", "))")
            }
        }
        let slowest = results.sorted { $0.duration > $1.duration }.prefix(3).filter { $0.duration > .zero }
        if !slowest.isEmpty {
            lines.append(
                "slowest: "
                    + slowest.map { "\($0.check.id) \($0.duration.formatted(.units(allowed: [.seconds])))" }
                    .joined(separator: ", "))
        }
        if let categories = slowestCategories { lines.append(categories) }
        lines.append(closingLine)
        return lines.joined(separator: "\n")
    }

    /// The five categories that took longest, summed over their checks (checks overlap, so the sum
    /// can exceed the run): where to look when the suite grows slow.
    var slowestCategories: String? {
        var byCategory: [String: Duration] = [:]
        for result in results where result.duration > .zero {
            byCategory[result.check.category.rawValue, default: .zero] += result.duration
        }
        guard !byCategory.isEmpty else { return nil }
        let top = byCategory.sorted { $0.value > $1.value }.prefix(5)
        return "slowest categories (sum of their checks): "
            + top.map { "\($0.key) \($0.value.formatted(.units(allowed: [.seconds])))" }.joined(separator: ", ")
    }
}
