import StrataStorage
import Synchronization

extension InMemoryBackend {
    /// The current state, held: the tables are values, so a snapshot is one copy of a reference
    /// and costs nothing until a later write copies what it changes.
    public func openSnapshot() async throws -> (any StorageSnapshot)? {
        try checkOpen()
        try checkShape()
        return InMemorySnapshot(backend: self, state: database.state.withLock { $0 })
    }
}

/// One held state of an in-memory store.
final class InMemorySnapshot: StorageSnapshot {
    let backend: InMemoryBackend
    let state: InMemoryState
    private let closed = Atomic(false)

    init(backend: InMemoryBackend, state: InMemoryState) {
        self.backend = backend
        self.state = state
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        try backend.checkOpen()
        if closed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the snapshot has been closed") }
        return try body(
            InMemoryReadTransaction(schema: backend.schema, state: state, capabilities: backend.capabilities))
    }

    func close() { closed.store(true, ordering: .releasing) }
}
