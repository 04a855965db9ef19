import ServiceLifecycle

/// What every live stream sets up the same way: the newest value kept for a slow consumer, a
/// wake-up stream for the task that follows the commits, that task ended by a graceful shutdown
/// of the service iterating the stream (inside a swift-service-lifecycle ServiceGroup — a
/// Hummingbird response streaming it then ends), and both ended when the consumer stops.
enum ObservationStream {
    /// Runs `follow(output, wakes, wake)` until it returns (the stream ends), throws (the stream
    /// ends with its error), the service shuts down gracefully, or the consumer stops.
    static func start<Element: Sendable>(
        _ follow:
            @escaping @Sendable (
                AsyncThrowingStream<Element, any Error>.Continuation, AsyncStream<Void>, AsyncStream<Void>.Continuation
            ) async throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, output) = AsyncThrowingStream<Element, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            do {
                try await withGracefulShutdownHandler {
                    try await follow(output, wakes, wake)
                } onGracefulShutdown: {
                    output.finish()
                }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        output.onTermination = { _ in
            task.cancel()
            wake.finish()
        }
        return stream
    }
}
