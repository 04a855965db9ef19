import BenchmarkWorkloads
import FluentPostgresDriver
import Foundation
import Strata
import StrataPostgres

/// The PostgreSQL rows of the peer table: Strata's PostgreSQL backend beside FluentKit on its
/// PostgreSQL driver, on the same server and workloads (each store in a schema of its own, each
/// Fluent run on tables made again).
enum PostgresPeers {
    static func run(url: String) async throws {
        let location = try PostgresLocation(url: url)
        let configuration = SQLPostgresConfiguration(
            hostname: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        let fluent = FluentPeer.library(.postgres(configuration))
        let make: StrataSide.MakeStore = {
            let schema = "peers_\(UUID().uuidString.prefix(8).lowercased())"
            let separator = url.contains("?") ? "&" : "?"
            return Store(
                backend: try await PostgresBackend.open(
                    url: url + separator + "schema=\(schema)", schema: try BenchSchema.make()))
        }
        let ours: [Prepare] = [
            StrataSide.insert(make), StrataSide.fetchAll(make), StrataSide.pointFetches(make),
            StrataSide.indexedQuery(make), StrataSide.cascade(make),
        ]
        print("\nStrata PostgreSQL beside FluentKit on PostgreSQL — median of \(runs) runs, ms")
        print(pad("workload", 34) + pad("Strata", 12) + pad("FluentKit", 12) + "Strata ÷ FluentKit")
        for (index, (name, prepare)) in fluent.workloads.enumerated() where only.map({ name.contains($0) }) ?? true {
            let (strata, ourCount) = try await median(ours[index])
            let (other, otherCount) = try await median(prepare)
            print(
                pad(name, 34) + pad(String(format: "%.1f", strata), 12) + pad(String(format: "%.1f", other), 12)
                    + String(format: "%.2f×", strata / max(other, 0.0001))
                    + (ourCount == otherCount ? "" : "  (results differ: \(ourCount) vs \(otherCount))"))
        }
    }
}
