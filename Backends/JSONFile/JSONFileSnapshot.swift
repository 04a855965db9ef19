import StrataStorage

extension JSONFileBackend {
    /// The document's records as they are now: the in-memory tables the file is read into, held
    /// (see `InMemoryBackend.openSnapshot()`).
    public func openSnapshot() async throws -> (any StorageSnapshot)? {
        try checkOpen()
        guard let inner = try await memory.openSnapshot() else { return nil }
        return JSONFileSnapshot(backend: self, inner: inner)
    }
}

/// A held state of a JSON file store; closing the store ends it.
struct JSONFileSnapshot: StorageSnapshot {
    let backend: JSONFileBackend
    let inner: any StorageSnapshot

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        try backend.checkOpen()
        return try await inner.read(body)
    }

    func close() { inner.close() }
}
