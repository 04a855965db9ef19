import Foundation
import Strata
import StrataConformance
import StrataSQLite
import Testing

/// A new SQLite file per check (WAL, the embedded default), reopened from the same path.
let sqliteFiles = ConformanceSuite(
    backend: BackendUnderTest(
        name: "SQLite", profiles: [.persistent, .crashSafe, .migrating, .shared],
        registry: registered { SQLiteBackend.register(in: $0) }
    ) { schema in
        let path = temporaryPath("sqlite")
        return Store(
            backend: try await SQLiteBackend.open(path: path, schema: schema),
            location: try StoreLocation("sqlite:\(path)"))
    } reopen: { store in
        try await store.close()
        guard let backend = store.backend as? SQLiteBackend else { throw StrataError(.unsupportedStore, "not SQLite") }
        return Store(
            backend: try await SQLiteBackend.open(path: backend.path, schema: store.schema), location: store.location)
    } reopenAfterAbruptStop: { store in
        // What a killed process leaves: the database and its write-ahead log as they are, no checkpoint.
        guard let backend = store.backend as? SQLiteBackend else { throw StrataError(.unsupportedStore, "not SQLite") }
        let copy = temporaryPath("sqlite")
        try copyFiles(from: backend.path, to: copy, suffixes: ["", "-wal"])
        return Store(
            backend: try await SQLiteBackend.open(path: copy, schema: store.schema),
            location: try StoreLocation("sqlite:\(copy)"))
    } dispose: { store in
        guard let backend = store.backend as? SQLiteBackend else { return }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: backend.path + suffix) }
    } openSecondHandle: { store in
        guard let backend = store.backend as? SQLiteBackend else { throw StrataError(.unsupportedStore, "not SQLite") }
        return Store(
            backend: try await SQLiteBackend.open(path: backend.path, schema: store.schema), location: store.location)
    } runInOtherProcess: { store, command in
        try await runInChildProcess(store, command)
    } reopenWithSchema: { store, schema in
        try await store.close()
        guard let backend = store.backend as? SQLiteBackend else { throw StrataError(.unsupportedStore, "not SQLite") }
        return Store(
            backend: try await SQLiteBackend.open(path: backend.path, schema: schema), location: store.location)
    })

@Suite("Conformance: SQLite")
struct SQLiteConformanceTests {
    @Test("file-backed store") func sqlite() async {
        await runSuite(sqliteFiles)
    }
}
