import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The connection that shows a handle in `pg_stat_activity` while the handle is open: named for
/// the store, opened before the handle and closed with it (see `PostgresBackend.holderElsewhere()`).
/// A handle dropped without ``close()`` still closes it, from `deinit`, without waiting.
final class PostgresPresence: Sendable {
    private let connection: PostgresConnection
    private let logger: Logger
    private let isClosed = Atomic<Bool>(false)

    init(_ connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Takes the store's name off the session, then closes the connection and waits until the
    /// server has been told. The server can keep a closed session in `pg_stat_activity` for
    /// seconds on a loaded machine; a renamed one stops matching at once, because the server
    /// updates the row when the `SET` runs, before it answers.
    func close() async {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = try? await connection.query("SET application_name TO 'strata:closed'", logger: logger)
        try? await connection.close()
    }

    deinit {
        guard !isClosed.load(ordering: .acquiring) else { return }
        // The connection must stay alive until its channel is closed.
        let connection = connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
