import NIOCore
import PostgresNIO
import Synchronization

/// The connection that shows a handle in `pg_stat_activity` while the handle is open: named for
/// the store, opened before the handle and closed with it (see `PostgresBackend.holderElsewhere()`).
/// A handle dropped without ``close()`` still closes it, from `deinit`, without waiting.
final class PostgresPresence: Sendable {
    private let connection: PostgresConnection
    private let isClosed = Atomic<Bool>(false)

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Closes the connection and waits until the server has been told.
    func close() async {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? await connection.close()
    }

    deinit {
        guard !isClosed.load(ordering: .acquiring) else { return }
        // The connection must stay alive until its channel is closed.
        let connection = connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
