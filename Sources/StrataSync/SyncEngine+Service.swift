import ServiceLifecycle

/// A sync engine is a swift-service-lifecycle `Service`: in the app's `ServiceGroup` (after the
/// store, before the services that write) it syncs in the background until graceful shutdown, then
/// stops — a sync under way finishes first, so what was pushed is acknowledged.
///
/// ```swift
/// let group = ServiceGroup(
///     configuration: .init(services: [store, sync, app], gracefulShutdownSignals: [.sigterm], logger: logger))
/// ```
extension SyncEngine: Service {
    /// Runs the background loop (``start()``) until graceful shutdown or cancellation, then ``stop()``s it.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        await stop()
    }
}
