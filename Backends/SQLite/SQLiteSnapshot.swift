import GRDB
import StrataStorage
import Synchronization

extension SQLiteBackend {
    /// A read transaction held open on a connection of its own (GRDB's `DatabaseSnapshot`) — in
    /// WAL mode it sees the state of its first read while writers go on, with a page cache of
    /// 8 MiB (not the store's `cacheSizeMiB`). While it is open a
    /// checkpoint cannot move past it, so the write-ahead log grows with the writes made meanwhile
    /// and shrinks at the first checkpoint after the snapshot closes. A store not in WAL mode
    /// (a connection without a pool) holds none: its streams are batch-consistent.
    public func openSnapshot() async throws -> (any StorageSnapshot)? {
        guard let pool = writer as? DatabasePool else { return nil }
        let snapshot = try await run { try pool.makeSnapshot() }
        // A stream reads each page about once: its connection keeps a small page cache, so a
        // stream over a large store does not fill the store's (64 MiB by default) for nothing.
        try await run {
            try await snapshot.read { db in try db.execute(sql: "PRAGMA cache_size = -\(Self.snapshotCacheKiB)") }
        }
        return SQLiteSnapshot(backend: self, snapshot: snapshot)
    }
}

extension SQLiteBackend {
    /// The page cache of a snapshot's connection, in KiB.
    static let snapshotCacheKiB = 8 * 1_024
}

/// One held read transaction of a SQLite store; closing it closes its connection.
final class SQLiteSnapshot: StorageSnapshot {
    let backend: SQLiteBackend
    /// Guards the connection's reference: `close()` drops it, and GRDB closes the connection
    /// when the last read using it returns.
    private let snapshot: Mutex<DatabaseSnapshot?>

    init(backend: SQLiteBackend, snapshot: DatabaseSnapshot) {
        self.backend = backend
        self.snapshot = Mutex(snapshot)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        guard let snapshot = snapshot.withLock({ $0 }) else {
            throw StrataError(.storeClosed, "the snapshot has been closed")
        }
        let layout = backend.layout
        return try await backend.run {
            try await snapshot.read { db in try body(SQLiteReadTransaction(db: db, layout: layout)) }
        }
    }

    func close() { snapshot.withLock { $0 = nil } }
}
