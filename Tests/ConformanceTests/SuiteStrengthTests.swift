import Foundation
import Strata
@testable import StrataConformance
import StrataInMemory
import Synchronization
import Testing

/// The suite must catch broken backends, not only pass good ones, and never hang on one.
@Suite("Conformance: the suite catches broken backends")
struct SuiteStrengthTests {
    /// Every planted bug (`ConformanceMutant`) fails at least one check, and the score the suite's
    /// catalog publishes is this run's.
    @Test func everyMutantIsCaught() async throws {
        let report = await MutationTesting.run()
        print(report.summary)
        #expect(report.survivors.isEmpty, "survivors: \(report.survivors.map(\.rawValue))")
        let elsewhere = report.killed.filter { $0.check != $0.mutant.knownCatcher }
            .map { "\($0.mutant.rawValue) by \($0.check)" }.joined(separator: ", ")
        #expect(
            elsewhere.isEmpty,
            "caught, but not by their known catcher (update ConformanceMutant.knownCatcher): \(elsewhere)")
        let article = try String(contentsOfFile: Self.catalog + "/StrataConformance.md", encoding: .utf8)
        let published = "kills \(report.killed.count) of \(ConformanceMutant.allCases.count) mutants"
        #expect(article.contains(published), "the catalog should say \"\(published)\"")
        let count = ConformanceMutant.allCases.count
        #expect(article.contains("lists \(count) planted"), "the catalog should say it lists \(count)")
        let readme = try String(contentsOfFile: Self.catalog + "/../../../README.md", encoding: .utf8)
        let claim = "against \(count) planted-bug backends (it kills all \(report.killed.count))"
        #expect(readme.contains(claim), "the README should say \"\(claim)\"")
    }

    /// A differential failure names the plan the backend mishandled: a backend that reads `or` as
    /// `and` is caught by a seed whose message shows the plan with both answers.
    @Test func aDifferentialFailureNamesTheMishandledPlan() async throws {
        let suite = MutationTesting.suite(.orAsAnd)
        var message: String?
        for check in ConformanceSuite.checks where check.category == .differential {
            if case .failed(let failure) = await suite.result(of: check).status {
                message = failure.message
                break
            }
        }
        let text = try #require(message, "no differential seed caught the mutant orAsAnd")
        #expect(text.contains("plans answered differently from the reference evaluator"), "\(text)")
        #expect(text.contains("the backend answered") || text.contains("the backend counted"), "\(text)")
        print("mutant orAsAnd, the differential's message:\n\(text.prefix(1_500))")
    }

    /// The differential reads the whole state every few steps; a state difference found that way
    /// is replayed, so it names the same first step, with the same message, as reading the whole
    /// state after every step does.
    @Test func aStateDifferenceNamesTheFirstStepItDiffersWhateverTheReadInterval() async throws {
        let suite = MutationTesting.suite(.putResetsVersion)
        for check in ConformanceSuite.checks where check.category == .differential {
            guard case .failed(let thinned) = await suite.result(of: check).status,
                thinned.message.contains("differs from the reference")
            else { continue }
            let every = await DifferentialChecks.$wholeEvery.withValue(1) { await suite.result(of: check).status }
            guard case .failed(let stepByStep) = every else {
                Issue.record("\(check.id) failed reading the whole state every 8 steps, not every step")
                return
            }
            // The same message, up to where a long one is cut (the file it names differs).
            let uncut = { (message: String) in message.components(separatedBy: "[cut:").first ?? message }
            #expect(uncut(thinned.message) == uncut(stepByStep.message))
            print("mutant putResetsVersion, \(check.id): \(thinned.message.prefix(300))")
            return
        }
        Issue.record("no differential seed found the state of mutant putResetsVersion different")
    }

    static var catalog: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/StrataConformance/StrataConformance.docc").path
    }
}

/// A check that never ends fails at its deadline naming what it was doing, and the run goes on.
@Suite("Conformance: no check hangs the run")
struct SuiteDeadlineTests {
    /// Ways a backend hangs a check: its reads spin without ever suspending for long or looking at
    /// cancellation (a retry loop); its writes wait for an event that never comes; its reads of
    /// metadata answer from a cache writes never invalidate, so a live query never learns of a
    /// commit and its next value never comes.
    enum Hang: Sendable { case spinningRead, writeNeverAcknowledged, staleMetadata }

    static func suite(_ hang: Hang, deadline: Duration = .seconds(2)) -> ConformanceSuite {
        ConformanceSuite(
            backend: BackendUnderTest(name: "hanging (\(hang))") { schema in
                Store(backend: HangingBackend(InMemoryBackend(schema: schema), hang))
            }, options: ConformanceOptions(concurrency: 2, deadline: deadline, grace: .milliseconds(500)))
    }

    @Test(arguments: [Hang.spinningRead, .writeNeverAcknowledged])
    func aHangingCheckFailsAtItsDeadlineAndTheRunGoesOn(_ hang: Hang) async throws {
        let checks = Array(ConformanceSuite.checks.filter { $0.category == .crud }.prefix(3))
        let report = await Self.suite(hang).runAll(checks)
        print(report.summary)
        #expect(report.failures.count == checks.count, "every check fails, none hangs")
        for (check, failure) in report.failures {
            #expect(failure.message.contains("\(check.id) on hanging (\(hang)) did not finish within 2.0 seconds"))
            #expect(failure.message.contains("its stores:"), "\(failure.message)")
        }
        #expect(report.closingLine == "0 passed, \(checks.count) failed, 0 skipped")
    }

    /// A wait the suite knows of is named: a live query whose next value never comes.
    @Test func anOverrunNamesTheWaitItWasIn() async throws {
        let check = try #require(ConformanceSuite.checks.first { $0.id == "Observation/deleteReportsTheRemovedOffset" })
        // Long enough for the first value to come even on a loaded machine; the second never does.
        let report = await Self.suite(.staleMetadata, deadline: .seconds(30)).runAll([check])
        let failure = try #require(report.failures.first?.failure)
        #expect(failure.message.contains("did not finish within 30.0 seconds"), "\(failure.message)")
        #expect(failure.message.contains("waiting for value 2 of an observation"), "\(failure.message)")
        print(failure.message)
    }
}

/// The in-memory backend made to hang (see ``SuiteDeadlineTests/Hang``). Each hang ends by itself,
/// so the test process is not left spinning: a spinning read after 4 s (past the 2-s deadline and
/// its half-second grace; it holds one of the process's cooperative threads meanwhile, so it is
/// kept short), a write after 20 s.
final class HangingBackend: StorageBackend {
    let inner: InMemoryBackend
    let hang: SuiteDeadlineTests.Hang

    init(_ inner: InMemoryBackend, _ hang: SuiteDeadlineTests.Hang) {
        self.inner = inner
        self.hang = hang
    }

    var schema: Schema { inner.schema }
    var capabilities: FetchCapabilities { inner.capabilities }

    let cached = StaleMetadata.Cache()

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        if hang == .staleMetadata {
            let cache = cached
            return try await inner.read { try body(StaleMetadata(readsGoTo: $0, cache: cache)) }
        }
        if hang == .spinningRead {
            let end = ContinuousClock.now + .seconds(4)
            while ContinuousClock.now < end { await Task.yield() }  // looks at no cancellation
        }
        return try await inner.read(body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        if hang == .writeNeverAcknowledged {
            try? await Task.sleep(for: .seconds(20))  // cancelled at the deadline, then stuck below
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + 20) { continuation.resume() }
            }
        }
        return try await inner.write(body)
    }

    func close() async throws { try await inner.close() }
}

/// Metadata reads answered as they were the first time.
struct StaleMetadata: ForwardingReadTransaction {
    final class Cache: Sendable {
        let values = Mutex<[String: [UInt8]?]>([:])
        let ranges = Mutex<[String: [(key: String, value: [UInt8])]]>([:])
    }

    let readsGoTo: any StorageReadTransaction
    let cache: Cache

    func metadata(_ key: String) throws -> [UInt8]? {
        if let value = cache.values.withLock({ $0[key] }) { return value }
        let value = try readsGoTo.metadata(key)
        cache.values.withLock { $0[key] = .some(value) }
        return value
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        let key = "\(prefix)|\(after ?? "")|\(limit.map(String.init) ?? "")"
        if let range = cache.ranges.withLock({ $0[key] }) { return range }
        let range = try readsGoTo.metadata(prefix: prefix, after: after, limit: limit)
        cache.ranges.withLock { $0[key] = range }
        return range
    }
}
