import Foundation
import Strata
import StrataConformance
@testable import StrataPostgres
import Testing

/// The conformance fixture's tag (Swift Testing has a `Tag` too).
private typealias TravelTag = StrataConformance.Tag

/// What only a server shows: other processes writing at once, a connection killed mid-save, and
/// the typed errors of a server that refuses. Runs on the server `make test` starts.
@Suite("PostgreSQL backend", .serialized)
struct PostgresBackendTests {
    static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty else {
            let reason = "no PostgreSQL server: run the tests with `make test`, which starts one (or set STRATA_POSTGRES_URL)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw StrataError(.serverUnavailable, reason) }
            try Test.cancel(Comment(rawValue: reason))
        }
        return url
    }

    static func storeURL(_ name: String) throws -> String {
        try serverURL() + "?schema=\(name)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    @Test("two processes × 1,000 saves: nothing lost, history gap-free in commit order, uniqueness held")
    func twoWriterProcesses() async throws {
        let url = try Self.storeURL("writers")
        let store = Store(backend: try await PostgresBackend.open(url: url, schema: try TravelDomain.schema()))
        defer { Task { try? await PostgresBackend.destroy(url: url) } }
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = directory.appendingPathComponent("PostgresWriterChild")
        #expect(FileManager.default.isExecutableFile(atPath: executable.path), "build with swift build --build-tests")
        let children = try ["a", "b"].map { name in
            let child = Process()
            child.executableURL = executable
            child.arguments = [url, name, "1000"]
            try child.run()
            return child
        }
        while children.contains(where: \.isRunning) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(children.allSatisfy { $0.terminationStatus == 0 })
        let tags = try await store.repository(TravelTag.self).fetch()
        #expect(tags.filter { !$0.label.hasPrefix("shared-") }.count == 2_000)
        // Each shared label claimed by exactly one process.
        let shared = tags.filter { $0.label.hasPrefix("shared-") }
        #expect(shared.count == 50)
        #expect(Set(shared.map(\.label)).count == 50)
        let history = try await store.history()
        let tokens = history.map(\.token.value)
        #expect(tokens.count == 2_050)
        #expect(tokens == Array(tokens.sorted()), "history in commit order")
        if let first = tokens.first { #expect(tokens == Array(first..<(first + Int64(tokens.count))), "no gaps") }
        try await store.close()
    }

    @Test("a refused connection, an unknown user, a missing database: typed errors")
    func refusedServers() async throws {
        let base = try PostgresLocation(url: try Self.serverURL())
        let schema = try TravelDomain.schema()
        // A port nothing listens on.
        let closedPort = try PostgresLocation(url: "postgres://\(base.user)@127.0.0.1:1/\(base.database)")
        await #expect { try await PostgresBackend.open(location: closedPort, schema: schema, options: .init(connectTimeout: .seconds(2))) } throws: {
            ($0 as? StrataError)?.code == .serverUnavailable
        }
        var stranger = base
        stranger.user = "no_such_role"
        await #expect { try await PostgresBackend.open(location: stranger, schema: schema) } throws: {
            ($0 as? StrataError)?.code == .authenticationFailed
        }
        var missing = base
        missing.database = "no_such_database"
        await #expect { try await PostgresBackend.open(location: missing, schema: schema) } throws: {
            ($0 as? StrataError)?.code == .notAStore
        }
    }

    @Test("a schema written by another application is refused and left as it was")
    func foreignSchema() async throws {
        let url = try Self.storeURL("foreign")
        let name = try PostgresLocation(url: url).schemaName
        let admin = try await PostgresBackend.open(url: try Self.storeURL("admin"), schema: try TravelDomain.schema())
        try await admin.executeForTesting("CREATE SCHEMA \"\(name)\"")
        try await admin.executeForTesting("CREATE TABLE \"\(name)\".invoices (id int)")
        await #expect { try await PostgresBackend.open(url: url, schema: try TravelDomain.schema()) } throws: {
            ($0 as? StrataError)?.code == .notAStore
        }
        #expect(try await admin.tableNamesForTesting(in: name) == ["invoices"], "left as it was")
        try await PostgresBackend.destroy(url: url)
        try await PostgresBackend.destroy(url: admin.location.description)
        try await admin.close()
    }
}
