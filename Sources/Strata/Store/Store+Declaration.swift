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
        try await writeMetadata { transaction in
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

    /// The shape the store at `url` holds, read by its backend's attach without the app's schema
    /// and without changing anything; `nil` when no store is there (asking never creates one).
    public static func storedShape(at url: String, registry: BackendRegistry = .shared) async throws
        -> SchemaDescription?
    {
        try await registry.attach(try StoreLocation(url))
    }

    /// Opens the existing store at `url` with the schema it holds, for tools that lack the app's
    /// Swift types: the app's recorded declaration (`declaredSchema()`) when it matches the stored
    /// shape — so delete rules, defaults and validation rules apply — else the bare stored shape
    /// (nullify delete rules, no validation; see `SchemaDescription.schema()`). Opening this way
    /// records nothing; `options.migrations` is not used. No store at `url` is
    /// `StrataError.Code.notAStore`, and nothing is created there.
    public static func openStored(_ url: String, options: OpenOptions = OpenOptions()) async throws -> Store {
        let location = try StoreLocation(url)
        let registry = options.registry
        guard let stored = try await registry.attach(location) else {
            throw StrataError(.notAStore, "there is no store at \(location): nothing to open")
        }
        func opened(_ schema: Schema) async throws -> Store {
            let backend = try await registry.open(location, schema: schema)
            return Store(
                backend: backend, location: location, sync: try await options.sync?.resolved(in: backend),
                participants: [], instrumentation: options.instrumentation, registry: registry, hooks: options.hooks)
        }
        let store = try await opened(try stored.schema())
        guard let declared = await store.matchingDeclaration(), let schema = try? declared.schema() else {
            return store
        }
        try await store.close()
        return try await opened(schema)
    }

    /// The recorded declaration if it declares the shape (and version) the store holds — one an
    /// older or newer app recorded before a migration does not — else `nil`.
    public func matchingDeclaration() async -> SchemaFile? {
        guard let declared = try? await declaredSchema() else { return nil }
        return declared.declares(SchemaDescription(schema)) ? declared : nil
    }
}
