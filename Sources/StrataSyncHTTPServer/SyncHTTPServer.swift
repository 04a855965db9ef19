import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Strata
import StrataSyncServer
import Synchronization

/// A ready sync server: a Hummingbird application serving one ``SyncEndpoint`` (what
/// `strata serve` runs, and what the tests start on 127.0.0.1 with an ephemeral port), and
/// collecting unfinished uploads and unreferenced files on the endpoint's
/// `SyncLimits.fileCollection` schedule. An app with its own routes mounts
/// ``Hummingbird/Router/addSyncRoutes(_:)`` on its router instead, and calls
/// `SyncServer.collectFiles(_:)` on its own schedule.
///
/// ```swift
/// let server = SyncHTTPServer(endpoint: endpoint)
/// let port = try await server.start(host: "127.0.0.1", port: 0)
/// …
/// await server.stop()   // long polls answer at once, then the server closes
/// ```
public final class SyncHTTPServer: Sendable {
    /// The endpoint served.
    public let endpoint: SyncEndpoint
    private let running = Mutex<(task: Task<Void, any Error>, group: ServiceGroup)?>(nil)
    private let logger: Logger

    /// A server for `endpoint`, logging to `logger`.
    public init(endpoint: SyncEndpoint, logger: Logger = Logger(label: "strata.sync.http")) {
        self.endpoint = endpoint
        self.logger = logger
    }

    /// Starts serving; returns the port it listens on (the one chosen when `port` is 0).
    ///
    /// - Parameter configure: Adds middleware to the router before the sync routes (a test's
    ///   fault injection, an app's logging).
    public func start(
        host: String = "127.0.0.1", port: Int = 0, configure: @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) async throws -> Int {
        let router = Router()
        router.add(middleware: FailureBodies())
        configure(router)
        router.addSyncRoutes(endpoint)
        let started = OneShot<Int>()
        let idle = endpoint.limits.idleTimeout.map { TimeAmount.nanoseconds(Self.nanoseconds($0)) }
        let app = Application(
            router: router,
            server: .http1(
                configuration: .init(additionalChannelHandlers: [ParserFailureBodies()], idleTimeout: idle)),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in started.resolve(.success(channel.localAddress?.port ?? port)) },
            logger: logger)
        // Our own group, without signal handling (the caller decides when to stop), so that
        // stopping is a graceful shutdown rather than a cancellation.
        var services: [any Service] = [app]
        if let schedule = endpoint.limits.fileCollection {
            services.append(FileCollector(server: endpoint.server, schedule: schedule, logger: logger))
        }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                started.resolve(.failure(error))
                throw error
            }
            started.resolve(.failure(StrataError(.storageFailure, "the sync server stopped before it started")))
        }
        running.withLock { $0 = (task, group) }
        do {
            return try await started.value()
        } catch {
            task.cancel()
            throw StrataError(.storageFailure, "the sync server could not listen on \(host):\(port): \(error)")
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? Int64.max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Ends long polls, then stops the server (requests under way finish first).
    public func stop() async {
        endpoint.shutdown()
        let running = running.withLock { running in
            defer { running = nil }
            return running
        }
        guard let (task, group) = running else { return }
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}

/// A value delivered once to whoever awaits it, before or after it arrives.
final class OneShot<Value: Sendable>: Sendable {
    private let state = Mutex<(result: Result<Value, any Error>?, waiter: CheckedContinuation<Value, any Error>?)>(
        (nil, nil))

    func resolve(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
