import Logging
import PostgresNIO
import StrataStorage
import Synchronization

/// The `LISTEN` side of observation: one dedicated connection per store handle, opened the first
/// time the engine asks (when the store gets observers) and reopened whenever it drops. A
/// notification — sent by every write inside its transaction, on any machine — or a (re)connect
/// makes the next question answer yes, and the engine reads history after its last token, so a
/// commit made while the connection was down is still seen.
final class PostgresListener: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var connection: PostgresConnection?
        var notified = false
        var stopped = false
    }

    private let state = Mutex(State())
    let configuration: PostgresConnection.Configuration
    let channel: String
    let logger: Logger

    init(configuration: PostgresConnection.Configuration, channel: String, logger: Logger) {
        self.configuration = configuration
        self.channel = channel
        self.logger = logger
    }

    /// Whether a notification (or a reconnect) came since the last call. The first call starts
    /// listening and answers no: the engine has just read the current state.
    func mayHaveCommitted() -> Bool {
        state.withLock { state in
            if state.task == nil, !state.stopped {
                state.task = Task { await self.listen() }
                return false
            }
            let notified = state.notified
            state.notified = false
            return notified
        }
    }

    private func markNotified() {
        state.withLock { $0.notified = true }
    }

    private func listen() async {
        while !Task.isCancelled {
            var opened: PostgresConnection?
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 1, logger: logger)
                opened = connection
                let stopped = state.withLock { state -> Bool in
                    state.connection = connection
                    return state.stopped
                }
                if !stopped {
                    try await connection.listen(on: channel) { notifications in
                        // Listening now: whatever committed before is read through history.
                        markNotified()
                        for try await _ in notifications { markNotified() }
                    }
                }
            } catch {
                logger.debug("LISTEN connection lost: \(String(describing: type(of: error)))")
            }
            state.withLock { $0.connection = nil }
            // A connection is closed before it is let go (postgres-nio requires it).
            if let opened { try? await opened.close() }
            if state.withLock({ $0.stopped }) { return }
            markNotified()
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() {
        let (task, connection) = state.withLock { state in
            state.stopped = true
            return (state.task, state.connection)
        }
        task?.cancel()
        if let connection { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
    }
}
