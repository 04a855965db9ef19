// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Observation article, "Graceful shutdown".
import Logging
import ServiceLifecycle
import UnixSignals
import Strata

func serve(_ store: Store, _ app: some Service, logger: Logger) async throws {
    let group = ServiceGroup(
        configuration: .init(services: [store, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()  // SIGTERM: the app stops (its open streams end at once), then the store closes
}
