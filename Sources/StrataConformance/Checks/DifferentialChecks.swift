import Foundation
import Strata
import StrataInMemory
import StrataTools

/// Seeded random sequences of mixed operations — inserts, upserts, updates, deletes under every
/// rule, links, batch deletes, context saves under every policy with the store changing
/// meanwhile, sync rounds, queries with every operator, full-text searches (trips and stops have
/// an index), relevance sort and page, reopens — run on the
/// backend under test and on the in-memory reference side by side. After every step the outcome
/// must be identical, and after every step that can change a store (all but queries) the history
/// written and the client's outbox too, and the whole state of both stores (records, versions,
/// memberships) as below; at the end, each full-text index must agree with its records.
///
/// The whole state of the backend under test is read after every `STRATA_DIFFERENTIAL_WHOLE_EVERY`th
/// step that can change a store (default 8; 1 reads it after every one) and after the last step; the
/// outcome, history and outbox after every step. A state found different replays the seed reading
/// the whole state after every step, so the failure names the first step whose state differs.
///
/// `make test` runs 20 seeds of 200 operations per backend. More:
/// `STRATA_DIFFERENTIAL_SEEDS=500 STRATA_DIFFERENTIAL_STEPS=400 swift test --filter Differential`;
/// replay one: `STRATA_DIFFERENTIAL_SEED=17 STRATA_DIFFERENTIAL_SEEDS=1`; see what runs:
/// `STRATA_DIFFERENTIAL_VERBOSE=1`. A failure prints the seed, the step, the plans the backend
/// answered in that step — first those whose answer differs from the reference evaluator over the
/// same transaction's records (`PlanAuditor`), with both answers — and the shortest failing prefix
/// (every operation up to the first step whose outcome or state differs).
enum DifferentialChecks {
    static let environment = ProcessInfo.processInfo.environment
    static let firstSeed = environment["STRATA_DIFFERENTIAL_SEED"].flatMap(UInt64.init) ?? 1
    static let seedCount = max(1, environment["STRATA_DIFFERENTIAL_SEEDS"].flatMap(Int.init) ?? 20)
    static let steps = max(1, environment["STRATA_DIFFERENTIAL_STEPS"].flatMap(Int.init) ?? 200)
    /// How often the whole state is read (a task-local, so a test can read it after every step).
    @TaskLocal static var wholeEvery = max(1, environment["STRATA_DIFFERENTIAL_WHOLE_EVERY"].flatMap(Int.init) ?? 8)
    /// `STRATA_DIFFERENTIAL_VERBOSE`: 1 prints each run's operations by kind and outcome; 2 adds
    /// each outcome; 3 adds error messages.
    static let verbosity = environment["STRATA_DIFFERENTIAL_VERBOSE"].flatMap(Int.init) ?? 0

    static var all: [ConformanceCheck] {
        (0..<UInt64(max(0, seedCount))).map { offset in
            let seed = firstSeed + offset
            return ConformanceCheck(.differential, "seed-\(seed)") { c in try await run(seed: seed, c) }
        }
    }

    static func reference(_ schema: Schema) -> Store { Store(backend: InMemoryBackend(schema: schema)) }

    /// A state found different: the failure as it would be reported.
    struct StateDiffers: Error { let failure: ConformanceFailure }

    /// One seed, its whole state read every ``wholeEvery`` steps; a state found different is
    /// replayed reading it after every step (the seed chooses the same operations either way: they
    /// depend on the reference's state, read after every step), to name the first step it differs.
    static func run(seed: UInt64, _ c: ConformanceContext) async throws {
        do {
            try await run(seed: seed, c, wholeEvery: wholeEvery)
        } catch let found as StateDiffers {
            guard wholeEvery > 1 else { throw found.failure }
            do { try await run(seed: seed, c, wholeEvery: 1) } catch let first as StateDiffers { throw first.failure }
            throw found.failure
        }
    }

    static func run(seed: UInt64, _ c: ConformanceContext, wholeEvery: Int) async throws {
        let schema = try TravelDomain.searchableSchema()
        let features = c.backend.features
        let auditor = PlanAuditor()
        let tested = try DifferentialWorld(
            server: auditor.audited(try await c.store(schema)), client: auditor.audited(try await c.store(schema))
        ) { store, abrupt in
            let raw = auditor.unwrapped(store)
            return auditor.audited(abrupt ? try await c.reopenAfterAbruptStop(raw) : try await c.reopen(raw))
        }
        let expected = try DifferentialWorld(server: reference(schema), client: reference(schema), reopenServer: nil)
        var generator = DifferentialGenerator(seed: seed)
        var done: [DifferentialOperation] = []
        func fail(_ what: String) -> ConformanceFailure {
            let prefix = done.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
            let plans = auditor.report
            return ConformanceFailure(
                """
                differential seed \(seed), step \(done.count - 1): \(what)
                the last operation: \(done.last.map { "\($0)" } ?? "none")
                \(plans.isEmpty ? "the step sent the backend no fetch or count plan" : plans)
                replay: STRATA_DIFFERENTIAL_SEED=\(seed) STRATA_DIFFERENTIAL_SEEDS=1 \
                STRATA_DIFFERENTIAL_STEPS=\(done.count) STRATA_CHECKS=Differential/seed-\(seed) \
                swift test --filter ConformanceTests
                shortest failing prefix (\(done.count) operations):
                \(prefix)
                """, fileID: #fileID, filePath: #filePath, line: #line)
        }
        var tally: [String: Int] = [:]
        var timing: [String: Duration] = [:]
        var reads: [DifferentialTarget: Int] = [:]
        defer {
            if verbosity > 0 {
                print(
                    "differential \(c.backend.name) seed \(seed): \(done.count) operations; "
                        + tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
                print(
                    "differential \(c.backend.name) seed \(seed), time on the backend under test: "
                        + timing.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
                        .joined(separator: ", "))
            }
        }
        for _ in 0..<steps {
            let operation = generator.operation(
                canReopen: features.contains(.reopen), canAbruptlyStop: features.contains(.abruptStop))
            done.append(operation)
            auditor.beginStep()
            let started = ContinuousClock.now
            let got = await tested.run(operation)
            timing[operation.kind, default: .zero] += ContinuousClock.now - started
            let want = await expected.run(operation)
            if got != want { throw fail("outcome \(got), the reference \(want)") }
            let detail = verbosity > 1 ? " \(got.description.prefix(160))" : ""
            tally["\(operation.kind) \(got.isFailure ? "failed" : "done")\(detail)", default: 0] += 1
            // A read changes nothing to compare: the next write's comparison still sees anything it did.
            if operation.isRead { continue }
            let compared = ContinuousClock.now
            defer { timing["comparing states", default: .zero] += ContinuousClock.now - compared }
            // A store the step cannot change is not read either: a divergence persists, so the
            // next step that can change that store still sees it.
            for target in [DifferentialTarget.server, .client]
            where target == .server ? operation.touchesServer : operation.touchesClient {
                reads[target, default: 0] += 1
                let whole = reads[target, default: 0] % wholeEvery == 0
                let (now, reference) = (try await tested.state(target, whole: whole), try await expected.state(target))
                if !now.matches(reference) {
                    throw StateDiffers(
                        failure: fail("\(target) differs from the reference:\n\(now.difference(from: reference))"))
                }
                if let snapshot = reference.snapshot { generator.observe(snapshot, of: target) }
            }
        }
        // The whole state at the end, whatever step last read it.
        for target in [DifferentialTarget.server, .client] {
            let (now, reference) = (try await tested.state(target), try await expected.state(target))
            if !now.matches(reference) {
                throw StateDiffers(
                    failure: fail(
                        "\(target) differs from the reference at the end:\n\(now.difference(from: reference))"))
            }
        }
        // The full-text indexes the run's saves kept, compared with the records they index.
        for target in [DifferentialTarget.server, .client] {
            let findings = try await tested.store(target).checkSearchIndexes()
            if !findings.isEmpty { throw fail("\(target)'s search index disagrees with its records: \(findings)") }
        }
    }
}

extension DifferentialOperation {
    /// The store a write acts on; nil for sync, reopens and queries.
    private var writeTarget: DifferentialTarget? {
        switch self {
        case .transaction(let target, _), .repository(let target, _), .context(let target, _, _, _, _, _): target
        case .sync, .query, .reopen: nil
        }
    }

    /// Whether the operation can change the client store (the server only changes through sync).
    var touchesClient: Bool {
        switch self {
        case .sync: true
        case .transaction, .repository, .context, .query, .reopen: writeTarget == .client
        }
    }

    /// Whether the operation can change the server store (a client's writes reach it only by sync).
    var touchesServer: Bool {
        switch self {
        case .sync, .reopen: true
        case .transaction, .repository, .context, .query: writeTarget == .server
        }
    }

    /// Whether the operation only reads (neither store can change).
    var isRead: Bool {
        if case .query = self { return true }
        return false
    }
}

extension DifferentialOperation {
    /// The operation's kind, for the run's tally.
    var kind: String {
        switch self {
        case .transaction: "transaction"
        case .repository: "repository"
        case .context: "context"
        case .sync: "sync"
        case .query: "query"
        case .reopen: "reopen"
        }
    }
}

extension DifferentialOutcome {
    var isFailure: Bool {
        if case .failed = self { return true }
        if case .done(let summary) = self { return summary.contains("failed") }
        return false
    }
}
