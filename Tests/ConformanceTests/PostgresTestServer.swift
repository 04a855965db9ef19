import Foundation
import Strata
import StrataPostgres
import Testing

/// The PostgreSQL server `make test` starts (`scripts/postgres`), named by `STRATA_POSTGRES_URL`.
enum PostgresTestServer {
    static let options = PostgresBackend.Options(maximumConnections: 3)
    /// How many checks run at once against the server.
    static let gate = AsyncGate(width: 4)

    /// Fails (with `CI=true`) or cancels the test with its reason when no server was started:
    /// never a silent pass.
    static func requireServer() throws {
        guard ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"]?.isEmpty == false else {
            let reason =
                "no PostgreSQL server: run the tests with `make test`, which starts one (or set STRATA_POSTGRES_URL)"
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record(Comment(rawValue: reason))
                throw StrataError(.serverUnavailable, reason)
            }
            try Test.cancel(Comment(rawValue: reason))
        }
    }

    /// The server's URL with `schema` as the store's schema.
    static func url(schema: String) throws -> String {
        try requireServer()
        let base = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] ?? ""
        return base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
    }

    /// The URL a test store was opened with.
    static func url(of store: Store) throws -> String {
        guard let location = store.location else { throw StrataError(.unsupportedStore, "the store has no location") }
        return location.description
    }
}

/// Lets at most `width` bodies run at once; the others wait their turn in arrival order.
actor AsyncGate {
    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { self.width = width }

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if running < width {
            running += 1
        } else {
            await withCheckedContinuation { waiting.append($0) }  // the leaver hands its place over
        }
        defer { leave() }
        return try await body()
    }

    private func leave() {
        if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
    }
}
