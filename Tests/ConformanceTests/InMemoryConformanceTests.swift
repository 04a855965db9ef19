import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// A private in-memory store per check; "reopen" hands back the same storage through a new handle.
private func inMemory(name: String, capabilities: FetchCapabilities) -> ConformanceSuite {
    ConformanceSuite(
        backend: BackendUnderTest(name: name) { schema in
            Store(backend: InMemoryBackend(schema: schema, capabilities: capabilities))
        } reopen: { store in
            try await store.close()
            guard let backend = store.backend as? InMemoryBackend else {
                throw StrataError(.unsupportedStore, "not in-memory")
            }
            return Store(backend: backend.reopened())
        } openSecondHandle: { store in
            // A private in-memory store lives in this process only (`otherProcesses` is not declared).
            guard let backend = store.backend as? InMemoryBackend else {
                throw StrataError(.unsupportedStore, "not in-memory")
            }
            return Store(backend: backend.reopened())
        } reopenWithSchema: { store, schema in
            try await store.close()
            guard let backend = store.backend as? InMemoryBackend else {
                throw StrataError(.unsupportedStore, "not in-memory")
            }
            return Store(backend: try backend.reopened(schema: schema))
        } opener: { store in
            guard let backend = store.backend as? InMemoryBackend else {
                throw StrataError(.unsupportedStore, "not in-memory")
            }
            return { schema in try backend.reopened(schema: schema) }
        })
}

@Suite("Conformance: in-memory")
struct InMemoryConformanceTests {
    static let native = inMemory(name: "InMemory", capabilities: .all)
    static let engineOnly = inMemory(name: "InMemory (engine evaluates)", capabilities: .none)

    @Test("native capabilities", arguments: ConformanceSuite.checks)
    func native(_ check: ConformanceCheck) async throws {
        try await run(check, on: Self.native)
    }

    @Test("engine evaluates every plan", arguments: ConformanceSuite.checks)
    func engineOnly(_ check: ConformanceCheck) async throws {
        try await run(check, on: Self.engineOnly)
    }

    @Test func theSuiteIsLargeAndHasNoDuplicateNames() {
        let checks = ConformanceSuite.checks
        #expect(checks.count >= 100)
        #expect(Set(checks.map(\.id)).count == checks.count)
        for category in ConformanceCategory.allCases {
            #expect(checks.contains { $0.category == category }, "category \(category) has checks")
        }
    }
}
