import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// The suite must catch broken backends, not only pass good ones: each ``Mutation`` of the
/// in-memory backend must fail at least one check. Checks run in suite order and stop at the
/// first failure, so a caught mutant costs little.
@Suite("Conformance: the suite catches broken backends")
struct SuiteStrengthTests {
    static func suite(_ mutation: Mutation) -> ConformanceSuite {
        ConformanceSuite(
            backend: BackendUnderTest(name: "mutant \(mutation.rawValue)") { schema in
                Store(backend: MutantBackend(InMemoryBackend(schema: schema), mutation))
            } reopen: { store in
                try await store.close()
                guard let backend = store.backend as? MutantBackend else {
                    throw StrataError(.unsupportedStore, "not a mutant")
                }
                return Store(backend: MutantBackend(backend.inner.reopened(), mutation))
            })
    }

    @Test("each mutant fails a check", arguments: Mutation.allCases)
    func caught(_ mutation: Mutation) async throws {
        let suite = Self.suite(mutation)
        var failedCheck: String?
        for check in ConformanceSuite.checks where check.category != .differential {
            do {
                _ = try await suite.run(check)
            } catch {
                failedCheck = check.id
                break
            }
        }
        if failedCheck == nil {
            // The differential runs last: the slowest, and the broadest net.
            for check in ConformanceSuite.checks where check.category == .differential {
                do { _ = try await suite.run(check) } catch {
                    failedCheck = check.id
                    break
                }
            }
        }
        #expect(failedCheck != nil, "the mutant \(mutation.rawValue) passed the whole suite")
        if let failedCheck { print("mutant \(mutation.rawValue): caught by \(failedCheck)") }
    }

    /// A differential failure names the plan the backend mishandled: a backend that reads `or` as
    /// `and` is caught by a seed whose message shows the plan with both answers.
    @Test func aDifferentialFailureNamesTheMishandledPlan() async throws {
        let suite = Self.suite(.orAsAnd)
        var message: String?
        for check in ConformanceSuite.checks where check.category == .differential {
            do { _ = try await suite.run(check) } catch let failure as ConformanceFailure {
                message = failure.message
                break
            }
        }
        let text = try #require(message, "no differential seed caught the mutant orAsAnd")
        #expect(text.contains("plans answered differently from the reference evaluator"), "\(text)")
        #expect(text.contains("the backend answered") || text.contains("the backend counted"), "\(text)")
        print("mutant orAsAnd, the differential's message:\n\(text.prefix(1_500))")
    }
}
