import StrataStorage

/// The engine's side of a store's schema. At every open the engine reads the description the
/// store holds (under `SchemaDescription.metadataKey`, through the backend's metadata) and
/// compares it with the app's, in this one place: equal opens, none records the app's (a new
/// store), different closes the backend and refuses with `incompatibleStore` naming every
/// difference — which a migration plan then starts from. A backend therefore has no schema
/// obligation beyond storing the metadata it is given; one that checks earlier itself (every
/// built-in backend does, before it changes any file) loses nothing.
enum RecordedSchema {
    /// Checks that `backend`, just opened with `schema`, holds `schema`'s shape, recording it
    /// when the store holds no description. On a refusal or a failure `backend` is closed.
    static func reconcile(_ backend: any StorageBackend, schema: Schema, path: String) async throws {
        let key = SchemaDescription.metadataKey
        let current = SchemaDescription(schema)
        do {
            guard let bytes = try await backend.read({ try $0.metadata(key) }) else {
                let encoded = current.encoded()
                try await backend.write { try $0.setMetadata(key, encoded) }
                return
            }
            let stored = try SchemaDescription.decode(bytes, path: path)
            guard stored.isOpenable(as: current) else {
                throw StoredSchema.mismatch(stored: stored, current: current, path: path)
            }
        } catch {
            try? await backend.close()
            throw error
        }
    }

    /// The description `backend` holds, if any (a tool's open, which records nothing).
    static func stored(in backend: any StorageBackend, path: String) async throws -> SchemaDescription? {
        guard let bytes = try await backend.read({ try $0.metadata(SchemaDescription.metadataKey) }) else { return nil }
        return try SchemaDescription.decode(bytes, path: path)
    }

    /// `opening`, followed by ``reconcile(_:schema:path:)``.
    static func checked(
        _ opening: @escaping @Sendable (Schema) async throws -> any StorageBackend, path: String
    ) -> @Sendable (Schema) async throws -> any StorageBackend {
        { schema in
            let backend = try await opening(schema)
            try await reconcile(backend, schema: schema, path: path)
            return backend
        }
    }
}
