import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// A named in-memory store per check (`memory:NAME`, dropped when the check ends); "reopen" hands
/// back the same storage through a new handle. Its registry opens named stores with the runner's
/// capabilities, so a migration keeps them.
private func inMemory(name: String, capabilities: FetchCapabilities) -> ConformanceSuite {
    let registry = registered { registry in
        registry.register(
            BackendDescriptor(scheme: "memory") { location in
                InMemoryBackend.storedDescription(named: location.path)
            } open: { location, schema in
                try InMemoryBackend.named(location.path, schema: schema, capabilities: capabilities)
            })
    }
    return ConformanceSuite(
        backend: BackendUnderTest(name: name, registry: registry) { schema in
            let name = "conformance-\(UUID().uuidString)"
            return Store(
                backend: try InMemoryBackend.named(name, schema: schema, capabilities: capabilities),
                location: try StoreLocation("memory:\(name)"))
        } reopen: { store in
            try await store.close()
            return Store(backend: try inMemoryBackend(store).reopened(), location: store.location)
        } dispose: { store in
            if let name = store.location?.path { InMemoryBackend.dropNamed(name) }
        } openSecondHandle: { store in
            // An in-memory store lives in this process only (`otherProcesses` is not declared).
            Store(backend: try inMemoryBackend(store).reopened(), location: store.location)
        } reopenWithSchema: { store, schema in
            try await store.close()
            return Store(backend: try inMemoryBackend(store).reopened(schema: schema), location: store.location)
        })
}

private func inMemoryBackend(_ store: Store) throws -> InMemoryBackend {
    guard let backend = store.backend as? InMemoryBackend else { throw StrataError(.unsupportedStore, "not in-memory") }
    return backend
}

@Suite("Conformance: in-memory")
struct InMemoryConformanceTests {
    static let native = inMemory(name: "InMemory", capabilities: .all)
    static let engineOnly = inMemory(name: "InMemory (engine evaluates)", capabilities: .none)

    @Test("native capabilities") func native() async {
        await runSuite(Self.native)
    }

    @Test("engine evaluates every plan") func engineOnly() async {
        await runSuite(Self.engineOnly)
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
