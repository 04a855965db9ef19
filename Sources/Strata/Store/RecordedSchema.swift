import StrataStorage

/// The engine's record of a store's schema. `Store.open` decides from the backend's attach
/// (before anything is opened for writing); once the backend is open this reads the description
/// again through its metadata: none records the app's (a new store), equal opens, different (a
/// store another process changed in between) closes the backend and refuses with
/// `incompatibleStore` naming every difference. A backend therefore has no schema obligation
/// beyond storing the metadata it is given and reading it back at attach; one that also checks at
/// open (every built-in backend does, for a direct open that bypasses the registry) loses nothing.
enum RecordedSchema {
    /// Checks that `backend`, just opened with `schema`, holds `schema`'s shape, recording it
    /// when the store holds no description. On a refusal or a failure `backend` is closed.
    /// `wanted` is what the stored description must open as (by default `schema`'s).
    static func reconcile(
        _ backend: any StorageBackend, schema: Schema, wanted: SchemaDescription? = nil, path: String
    ) async throws {
        let key = SchemaDescription.metadataKey
        let current = SchemaDescription(schema)
        let wanted = wanted ?? current
        do {
            guard let bytes = try await backend.read({ try $0.metadata(key) }) else {
                let encoded = current.encoded()
                try await backend.write { try $0.setMetadata(key, encoded) }
                return
            }
            let stored = try SchemaDescription.decode(bytes, path: path)
            guard stored.isOpenable(as: wanted) else {
                throw StoredSchema.mismatch(stored: stored, current: wanted, path: path)
            }
        } catch {
            try? await backend.close()
            throw error
        }
    }
}
