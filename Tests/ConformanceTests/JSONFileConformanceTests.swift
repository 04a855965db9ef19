import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import Testing

/// A new JSON document per check, reopened from the same path (closing compacts it).
private let jsonFiles = ConformanceSuite(backend: BackendUnderTest(name: "JSONFile") { schema in
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-conformance-\(UUID().uuidString).json").path
    return Store(backend: try await JSONFileBackend.open(path: path, schema: schema), location: try StoreLocation("json:\(path)"))
} reopen: { store in
    try await store.close()
    guard let backend = store.backend as? JSONFileBackend else { throw StrataError(.unsupportedStore, "not JSONFile") }
    return Store(backend: try await JSONFileBackend.open(path: backend.path, schema: store.schema), location: store.location)
} dispose: { store in
    guard let backend = store.backend as? JSONFileBackend else { return }
    for suffix in ["", ".journal", ".lock", ".tmp"] { try? FileManager.default.removeItem(atPath: backend.path + suffix) }
})

@Suite("Conformance: JSON file")
struct JSONFileConformanceTests {
    @Test("document + journal store", arguments: ConformanceSuite.checks)
    func jsonFile(_ check: ConformanceCheck) async throws {
        try await run(check, on: jsonFiles)
    }
}
