/// The next page of a paged read, requested while the current one is applied, so the server's
/// read and the network overlap the client's save. A page fetched ahead is used only for the very
/// request it was made for; one that failed is asked for again the ordinary way (with the
/// engine's waits and credential handling).
struct PageAhead<Request: Equatable & Sendable, Response: Sendable> {
    private var pending: (request: Request, task: Task<Response, any Error>)?

    /// Starts fetching the page for `request` (replacing any page fetched ahead).
    mutating func start(_ request: Request, _ fetch: @escaping @Sendable () async throws -> Response) {
        cancel()
        pending = (request, Task { try await fetch() })
    }

    /// The page fetched ahead for `request`, or `nil` when none was, it was for another request,
    /// or it failed.
    mutating func take(_ request: Request) async -> Response? {
        guard let pending else { return nil }
        self.pending = nil
        guard pending.request == request else {
            pending.task.cancel()
            return nil
        }
        return try? await pending.task.value
    }

    /// Abandons the page fetched ahead.
    mutating func cancel() {
        pending?.task.cancel()
        pending = nil
    }
}
