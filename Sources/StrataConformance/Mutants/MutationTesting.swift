import Foundation
import Strata
import StrataInMemory

/// Runs the suite against planted-bug backends (``ConformanceMutant``) and reports how many it
/// catches: the suite's own measure. `strata checks --mutants` prints it; the suite's tests
/// require every mutant caught.
public enum MutationTesting {
    /// What a mutation run found.
    public struct Report: Sendable {
        /// Each caught mutant with the first check that failed against it.
        public let killed: [(mutant: ConformanceMutant, check: String)]
        /// The mutants no check caught.
        public let survivors: [ConformanceMutant]

        /// `killed N of M mutants`, then one line per mutant.
        public var summary: String {
            let lines =
                killed.map { "  \($0.mutant.rawValue): caught by \($0.check)" }
                + survivors.map { "  \($0.rawValue): SURVIVED the whole suite" }
            return (["killed \(killed.count) of \(killed.count + survivors.count) mutants"] + lines)
                .joined(separator: "\n")
        }
    }

    /// The suite over one mutant: a fresh in-memory store per check, reopened with its data (and
    /// with what a write-through mutant leaked to "disk").
    public static func suite(_ mutant: ConformanceMutant) -> ConformanceSuite {
        ConformanceSuite(
            backend: BackendUnderTest(name: "mutant \(mutant.rawValue)", profiles: [.persistent]) { schema in
                Store(backend: MutantBackend(InMemoryBackend(schema: schema), mutant))
            } reopen: { store in
                try await store.close()
                guard let backend = store.backend as? MutantBackend else {
                    throw StrataError(.unsupportedStore, "not a mutant")
                }
                return Store(backend: try await backend.reopened())
            })
    }

    /// Runs the suite against each of `mutants`, `concurrency` mutants at a time; against each, its
    /// ``ConformanceMutant/knownCatcher`` runs first, then the other checks in suite order (the differential last:
    /// the slowest and broadest net), stopping at the first failure. `progress` receives each mutant's line as it
    /// is decided.
    public static func run(
        _ mutants: [ConformanceMutant] = ConformanceMutant.allCases,
        concurrency: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> Report {
        let slots = CheckSlots(limit: concurrency)
        let found = await withTaskGroup(of: (ConformanceMutant, String?).self) { group in
            for mutant in mutants {
                group.addTask {
                    await slots.acquire()
                    let check = await firstFailure(suite(mutant), knownCatcher: mutant.knownCatcher)
                    await slots.release()
                    progress("\(mutant.rawValue): \(check.map { "caught by \($0)" } ?? "SURVIVED")")
                    return (mutant, check)
                }
            }
            var found: [ConformanceMutant: String?] = [:]
            for await (mutant, check) in group { found[mutant] = check }
            return found
        }
        let killed = mutants.compactMap { mutant in found[mutant].flatMap { $0 }.map { (mutant, $0) } }
        let survivors = mutants.filter { found[$0].flatMap { $0 } == nil }
        return Report(killed: killed, survivors: survivors)
    }

    /// The ID of the first check that fails against `suite`, or `nil`: the mutant's known catcher
    /// first, then the rest in suite order.
    static func firstFailure(_ suite: ConformanceSuite, knownCatcher: String) async -> String? {
        let checks = ConformanceSuite.checks
        let known = checks.filter { $0.id == knownCatcher }
        let rest = checks.filter { $0.id != knownCatcher }
        for check in known + rest.filter({ $0.category != .differential })
            + rest.filter({ $0.category == .differential })
        {
            if case .failed = await suite.result(of: check).status { return check.id }
        }
        return nil
    }
}
