import Foundation
import Strata
import StrataConformance
import Testing

/// The sync categories again, over real HTTP on loopback, against the embedded default backend
/// (every backend runs them in process in its own suite).
private let sqliteOverHTTP = ConformanceSuite(backend: sqliteFiles.backend, transport: HTTPHarness())

@Suite("Conformance: sync over HTTP (SQLite)")
struct HTTPTransportConformanceTests {
    @Test("OfflineFirst, Transport, Subscriptions, Sharing and Adversary over loopback HTTP") func overHTTP() async {
        await runSuite(
            sqliteOverHTTP,
            ConformanceSuite.selected.filter {
                [.offlineFirst, .transport, .subscriptions, .sharing, .adversary].contains($0.category)
            })
    }
}
