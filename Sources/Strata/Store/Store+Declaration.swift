import Foundation
import Logging

/// The app's declared schema, recorded in the store, and opening a store without the app's types.
extension Store {
    /// The schema file of the last app that opened the store (its delete rules, defaults,
    /// validation rules), or `nil` for a store no app has opened since stores recorded it.
    public func declaredSchema() async throws -> SchemaFile? {
        let path = location?.description ?? "the store"
        guard let bytes = try await backend.read({ try $0.metadata(SchemaFile.metadataKey) }) else { return nil }
        return try SchemaFile.decode(bytes, path: "\(path) (its recorded schema file)")
    }

    /// Records `file` as the store's declared schema (`declaredSchema()`) unless it already is:
    /// what a tool does after migrating a store to a file's schema or copying one store to another.
    public func recordDeclaration(_ file: SchemaFile) async throws {
        let bytes = file.encoded()
        try await backend.write { transaction in
            if try transaction.metadata(SchemaFile.metadataKey) != bytes {
                try transaction.setMetadata(SchemaFile.metadataKey, bytes)
            }
        }
    }

    /// What an open does once the backend is open: logs it, and records an app's declared schema.
    func opened() async {
        instrumentation.logger.info(
            "opened store",
            metadata: [
                "store": "\(logName)", "schemaVersion": "\(schema.version ?? "unnamed")",
                "sync": "\(sync?.clientID ?? "off")",
            ])
        await recordDeclarationOnOpen()
    }

    /// Called when an app opens a store with its own schema. Best effort: a store the process may
    /// not write (a read-only file) still opens.
    func recordDeclarationOnOpen() async {
        guard schema.recordsDeclaration else { return }
        try? await recordDeclaration(SchemaFile(schema))
    }

    /// The shape the store at `url` holds, learnt without the app's schema: the store refuses a
    /// schema it does not hold and names the one it does. A store that holds none (new, or empty)
    /// is `StrataError.Code.notAStore` — note that for a file backend, asking about a path with
    /// no file creates an empty store there; check that the file exists first.
    public static func storedShape(at url: String, registry: BackendRegistry = .shared) async throws
        -> SchemaDescription
    {
        let location = try StoreLocation(url)
        return try await storedShape(of: url) { try await registry.open(location, schema: $0) }
    }

    /// `storedShape(at:registry:)` for a backend opened by other means; `opening` is called
    /// with a schema no store holds.
    public static func storedShape(
        of name: String, opening: @Sendable (Schema) async throws -> any StorageBackend
    ) async throws -> SchemaDescription {
        var probe = try Schema(entities: [
            EntityDescription(name: "StrataSchemaProbe\(UUID().uuidString.prefix(8))", idKind: .uuid)
        ])
        probe.recordsDeclaration = false
        do {
            // A backend that leaves the check to the engine opens with any schema; the engine's
            // recorded description then says what the store holds.
            let backend = try await opening(probe)
            let stored = try? await RecordedSchema.stored(in: backend, path: name)
            try? await backend.close()
            if let stored { return stored }
        } catch let error as StrataError {
            guard let mismatch = error.underlying as? StoredSchemaMismatch else { throw error }
            return mismatch.stored
        }
        throw StrataError(.notAStore, "\(name) holds no schema (a new or empty store): nothing to open")
    }

    /// Opens the existing store at `url` with the schema it holds, for tools that lack the app's
    /// Swift types: the app's recorded declaration (`declaredSchema()`) when it matches the stored
    /// shape — so delete rules, defaults and validation rules apply — else the bare stored shape
    /// (nullify delete rules, no validation; see `SchemaDescription.schema()`). Opening this way
    /// records nothing.
    public static func openWithStoredSchema(
        _ url: String, registry: BackendRegistry = .shared, sync: SyncConfiguration? = nil
    ) async throws -> Store {
        let location = try StoreLocation(url)
        return try await openWithStoredSchema(location: location, sync: sync) {
            try await registry.open(location, schema: $0)
        }
    }

    /// `openWithStoredSchema(_:registry:sync:)` for a backend opened by other means; `opening`
    /// is called with the schemas to try.
    public static func openWithStoredSchema(
        location: StoreLocation?, sync: SyncConfiguration? = nil,
        opening: @Sendable (Schema) async throws -> any StorageBackend
    ) async throws -> Store {
        let stored = try await storedShape(of: location?.description ?? "the store", opening: opening)
        let store = Store(backend: try await opening(try stored.schema()), location: location, sync: sync)
        guard let declared = await store.matchingDeclaration(), let schema = try? declared.schema() else {
            return store
        }
        try await store.close()
        return Store(backend: try await opening(schema), location: location, sync: sync)
    }

    /// The recorded declaration if it declares the shape (and version) the store holds — one an
    /// older or newer app recorded before a migration does not — else `nil`.
    public func matchingDeclaration() async -> SchemaFile? {
        guard let declared = try? await declaredSchema() else { return nil }
        return declared.declares(SchemaDescription(schema)) ? declared : nil
    }
}
