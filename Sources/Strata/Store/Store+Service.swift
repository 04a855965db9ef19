import ServiceLifecycle

/// A store is a swift-service-lifecycle `Service`: put it in the app's `ServiceGroup` before the
/// services that use it, and graceful shutdown (SIGTERM) closes it after them.
///
/// Nothing waits on the store to shut down: live queries (``Store/observe(_:)``) and change streams
/// (``Store/changes(entities:)``) end by themselves when the service whose task iterates them shuts
/// down gracefully — a Hummingbird response streaming them ends, and the server's graceful shutdown
/// does not wait on it — and whatever is still open ends with `storeClosed` when the store closes.
///
/// ```swift
/// let group = ServiceGroup(
///     configuration: .init(services: [store, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()   // on SIGTERM: the app stops (open streams end), then the store closes
/// ```
extension Store: Service {
    /// Waits for graceful shutdown (or cancellation), then closes the store.
    public func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }
}
