import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

/// Each check gets its own PostgreSQL schema on the server `make test` starts
/// (`STRATA_POSTGRES_URL`); disposing of a store drops its schema.
let postgresUnderTest = BackendUnderTest(
    name: "PostgreSQL", profiles: [.persistent, .crashSafe, .migrating, .shared],
    registry: registered { PostgresBackend.register(in: $0, options: PostgresTestServer.options) }
) { schema in
    let url = try PostgresTestServer.url(schema: "check_\(UUID().uuidString.prefix(8).lowercased())")
    return Store(
        backend: try await PostgresBackend.open(url: url, schema: schema, options: PostgresTestServer.options),
        location: try StoreLocation(url))
} reopen: { store in
    try await store.close()
    return Store(
        backend: try await PostgresBackend.open(
            url: try PostgresTestServer.url(of: store), schema: store.schema, options: PostgresTestServer.options),
        location: store.location)
} reopenAfterAbruptStop: { store in
    // A stopped client leaves what the server committed: another handle sees exactly that.
    Store(
        backend: try await PostgresBackend.open(
            url: try PostgresTestServer.url(of: store), schema: store.schema, options: PostgresTestServer.options),
        location: store.location)
} dispose: { store in
    try await PostgresBackend.destroy(url: try PostgresTestServer.url(of: store))
} openSecondHandle: { store in
    Store(
        backend: try await PostgresBackend.open(
            url: try PostgresTestServer.url(of: store), schema: store.schema, options: PostgresTestServer.options),
        location: store.location)
} runInOtherProcess: { store, command in
    try await runInChildProcess(store, command)
} reopenWithSchema: { store, schema in
    try await store.close()
    return Store(
        backend: try await PostgresBackend.open(
            url: try PostgresTestServer.url(of: store), schema: schema, options: PostgresTestServer.options),
        location: store.location)
}

/// Checks run four at a time: most of a check's time is round trips to the server, and the
/// throwaway server has a bounded number of connections (each check opens a few pools).
private let postgres = ConformanceSuite(backend: postgresUnderTest, options: ConformanceOptions(concurrency: 4))

@Suite("Conformance: PostgreSQL")
struct PostgresConformanceTests {
    @Test("store in its own schema") func postgresql() async throws {
        try PostgresTestServer.requireServer()
        await runSuite(postgres)
    }
}
