import Foundation
import Strata
import StrataConformance
import StrataLMDB
import Testing

/// A new LMDB environment (directory) per check, reopened from the same path.
private let lmdbDirectories = ConformanceSuite(
    backend: BackendUnderTest(
        name: "LMDB", profiles: [.persistent, .crashSafe, .migrating, .shared],
        registry: registered { LMDBBackend.register(in: $0) }
    ) { schema in
        let path = temporaryPath("lmdb")
        return Store(
            backend: try await LMDBBackend.open(path: path, schema: schema, options: .init(initialMapSize: 1 << 20)),
            location: try StoreLocation("lmdb:\(path)"))
    } reopen: { store in
        try await store.close()
        guard let backend = store.backend as? LMDBBackend else { throw StrataError(.unsupportedStore, "not LMDB") }
        return Store(
            backend: try await LMDBBackend.open(path: backend.path, schema: store.schema), location: store.location)
    } reopenAfterAbruptStop: { store in
        // What a killed process leaves: the data file as it is (the lock file is rebuilt).
        guard let backend = store.backend as? LMDBBackend else { throw StrataError(.unsupportedStore, "not LMDB") }
        let copy = temporaryPath("lmdb")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try copyFiles(from: backend.path + "/data.mdb", to: copy + "/data.mdb", suffixes: [""])
        return Store(
            backend: try await LMDBBackend.open(path: copy, schema: store.schema),
            location: try StoreLocation("lmdb:\(copy)"))
    } dispose: { store in
        guard let backend = store.backend as? LMDBBackend else { return }
        try? FileManager.default.removeItem(atPath: backend.path)
    } openSecondHandle: { store in
        guard let backend = store.backend as? LMDBBackend else { throw StrataError(.unsupportedStore, "not LMDB") }
        return Store(
            backend: try await LMDBBackend.open(path: backend.path, schema: store.schema), location: store.location)
    } runInOtherProcess: { store, command in
        try await runInChildProcess(store, command)
    } reopenWithSchema: { store, schema in
        try await store.close()
        guard let backend = store.backend as? LMDBBackend else { throw StrataError(.unsupportedStore, "not LMDB") }
        return Store(backend: try await LMDBBackend.open(path: backend.path, schema: schema), location: store.location)
    })

@Suite("Conformance: LMDB")
struct LMDBConformanceTests {
    @Test("directory-backed store") func lmdb() async {
        await runSuite(lmdbDirectories)
    }
}
