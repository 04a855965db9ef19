import Foundation
import Strata
import StrataConformance
import Testing

/// The article's complete minimal backend (`DictionaryBackend`, Samples/MinimalBackendArticle.swift,
/// verbatim from ImplementingABackend.md) passes every conformance check it can run: what the
/// article promises a backend author. Its stores are named for the process, so it reopens — with
/// its data, or with another schema, which the engine refuses naming every difference although
/// the backend itself checks nothing.
@Suite struct MinimalBackendTests {
    static let registry: BackendRegistry = {
        let registry = BackendRegistry()
        DictionaryBackend.register(in: registry)
        return registry
    }()

    static func reopen(_ store: Store, with schema: Schema) async throws -> Store {
        try await store.close()
        let location = try #require(store.location)
        return try await Store.open(location.description, schema: schema, options: OpenOptions(registry: registry))
    }

    @Test func theArticlesMinimalBackendPassesTheSuite() async throws {
        let suite = ConformanceSuite(
            backend: BackendUnderTest(name: "DictionaryBackend") { schema in
                try await Store.open(
                    "dictionary:\(UUID())", schema: schema, options: OpenOptions(registry: Self.registry))
            } reopen: { store in
                try await Self.reopen(store, with: store.schema)
            } reopenWithSchema: { store, schema in
                try await Self.reopen(store, with: schema)
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
