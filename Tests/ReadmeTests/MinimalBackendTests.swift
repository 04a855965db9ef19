import Strata
import StrataConformance
import Testing

/// The article's complete minimal backend (`DictionaryBackend`, Samples/MinimalBackendArticle.swift,
/// verbatim from ImplementingABackend.md) passes every conformance check it can run: what the
/// article promises a backend author.
@Suite struct MinimalBackendTests {
    @Test func theArticlesMinimalBackendPassesTheSuite() async throws {
        let suite = ConformanceSuite(
            backend: BackendUnderTest(name: "DictionaryBackend") { schema in
                Store(backend: DictionaryBackend(schema: schema))
            })
        var (passed, skipped, failures) = (0, 0, [String]())
        for check in ConformanceSuite.checks {
            do {
                switch try await suite.run(check) {
                case .passed: passed += 1
                case .skipped: skipped += 1
                }
            } catch {
                failures.append("\(check.id): \(error)")
            }
        }
        print("DictionaryBackend: \(passed) checks passed, \(skipped) skipped for features it does not declare")
        #expect(failures.isEmpty, "\(failures.count) checks failed:\n\(failures.prefix(5).joined(separator: "\n"))")
        #expect(passed > 300, "only \(passed) checks ran")
    }
}
