import Foundation
import Strata
import StrataPostgres
import Testing

/// The PostgreSQL server `make test` starts (`scripts/postgres`), named by `STRATA_POSTGRES_URL`.
enum PostgresTestServer {
    static let options = PostgresBackend.Options(maximumConnections: 3)

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
