/// A read view that stays at one committed state across many reads until it is closed: what a
/// streamed read (`stream(_:batchSize:)`) reads its batches through, so together they are one
/// consistent state — as if the whole result had been read in one read transaction.
///
/// A backend that can hold such a state cheaply returns one from
/// ``StorageBackend/openSnapshot()``; the default returns `nil`, and the engine then reads each
/// batch in its own read transaction (batch-consistent). Reads through a snapshot follow the
/// contract of ``StorageBackend/read(_:)``, may run from any task (one at a time), and see no
/// commit made after the snapshot was opened. After ``close()`` — which the engine calls when the
/// stream ends, fails or is abandoned — or after the store closes, a read throws
/// ``StrataError/Code/storeClosed``.
public protocol StorageSnapshot: Sendable {
    /// Runs `body` in a read transaction over the snapshot's state.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T
    /// Releases the snapshot; idempotent, never throws, callable from a deinitializer.
    func close()
}

extension StorageBackend {
    /// No snapshot: streamed reads are batch-consistent.
    public func openSnapshot() async throws -> (any StorageSnapshot)? { nil }
}
