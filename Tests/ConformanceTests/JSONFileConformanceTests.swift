import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import Testing

/// A new JSON document per check, reopened from the same path (closing compacts it).
private let jsonFiles = ConformanceSuite(
    backend: BackendUnderTest(
        name: "JSONFile", profiles: [.persistent, .crashSafe, .migrating],
        registry: registered { JSONFileBackend.register(in: $0) }
    ) { schema in
        let path = temporaryPath("json")
        return Store(
            backend: try await JSONFileBackend.open(path: path, schema: schema),
            location: try StoreLocation("json:\(path)"))
    } reopen: { store in
        try await store.close()
        guard let backend = store.backend as? JSONFileBackend else {
            throw StrataError(.unsupportedStore, "not JSONFile")
        }
        return Store(
            backend: try await JSONFileBackend.open(path: backend.path, schema: store.schema), location: store.location)
    } reopenAfterAbruptStop: { store in
        // What a killed process leaves: the document and the journal of saves since the last compaction.
        guard let backend = store.backend as? JSONFileBackend else {
            throw StrataError(.unsupportedStore, "not JSONFile")
        }
        let copy = temporaryPath("json")
        try copyFiles(from: backend.path, to: copy, suffixes: ["", ".journal"])
        return Store(
            backend: try await JSONFileBackend.open(path: copy, schema: store.schema),
            location: try StoreLocation("json:\(copy)"))
    } dispose: { store in
        guard let backend = store.backend as? JSONFileBackend else { return }
        for suffix in ["", ".journal", ".lock", ".tmp"] {
            try? FileManager.default.removeItem(atPath: backend.path + suffix)
        }
    } openSecondHandle: { store in
        // Another process is locked out of a JSON store (`otherProcesses` is not declared).
        guard let backend = store.backend as? JSONFileBackend else {
            throw StrataError(.unsupportedStore, "not JSONFile")
        }
        return Store(
            backend: try await JSONFileBackend.open(path: backend.path, schema: store.schema), location: store.location)
    } reopenWithSchema: { store, schema in
        try await store.close()
        guard let backend = store.backend as? JSONFileBackend else {
            throw StrataError(.unsupportedStore, "not JSONFile")
        }
        return Store(
            backend: try await JSONFileBackend.open(path: backend.path, schema: schema), location: store.location)
    })

@Suite("Conformance: JSON file")
struct JSONFileConformanceTests {
    @Test("document + journal store") func jsonFile() async {
        await runSuite(jsonFiles)
    }
}
