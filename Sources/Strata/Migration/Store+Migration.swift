import Foundation
import Logging
import Synchronization

extension Store {
    /// Opens the store at `url`, migrating it first when it holds another version of the schema.
    ///
    /// - Opening with the schema the store holds (same shape, and same version when the plan names
    ///   one) does nothing more than open: no migration, no write, no history.
    /// - Otherwise, with `migrations`, the plan's stages run from the store's version to the
    ///   app's in one write transaction (see ``MigrationPlan``); the history gains one entry
    ///   (author `strata.migration`). Any failure — a custom stage throwing, a required value
    ///   missing, duplicates under a new unique constraint, a crash — leaves the store exactly as
    ///   it was, and the error names the entity, record and property.
    /// - Without `migrations`, a store of another shape is `StrataError.Code.incompatibleStore`
    ///   naming every difference; a store of a version the plan does not know (a newer app's) is
    ///   refused the same way, naming both versions. The store is never touched.
    ///
    /// Close other handles onto the store (in this process and others) before migrating: they
    /// hold the old layout.
    public static func open(
        _ url: String, schema: Schema, migrations: MigrationPlan?, registry: BackendRegistry = .shared,
        sync: SyncConfiguration? = nil,
        instrumentation: StoreInstrumentation = .standard
    ) async throws -> Store {
        try await open(
            url, schema: schema, migrations: migrations, registry: registry, sync: sync,
            instrumentation: instrumentation, progress: { _ in })
    }

    /// `open(_:schema:migrations:registry:sync:instrumentation:)` publishing the migration's progress: the
    /// returned run's ``MigrationRun/progress`` yields after each batch, and ``MigrationRun/store``
    /// gives the opened store (or the error).
    ///
    /// ```swift
    /// let run = Store.migrating("sqlite:app.sqlite", schema: v3, migrations: plan)
    /// for await step in run.progress { print(step) }
    /// let store = try await run.store
    /// ```
    public static func migrating(
        _ url: String, schema: Schema, migrations: MigrationPlan, registry: BackendRegistry = .shared,
        sync: SyncConfiguration? = nil,
        instrumentation: StoreInstrumentation = .standard
    ) -> MigrationRun {
        MigrationRun { progress in
            try await open(
                url, schema: schema, migrations: migrations, registry: registry, sync: sync,
                instrumentation: instrumentation, progress: progress)
        }
    }

    /// Opens a store through `opening` (a backend opened by other means than a URL: a custom
    /// backend, a test), migrating it as `open(_:schema:migrations:registry:sync:instrumentation:)` does.
    /// `opening` is called with the schema to open with: the store's own for the migration, then
    /// the app's.
    public static func open(
        schema: Schema, migrations: MigrationPlan?, location: StoreLocation? = nil, sync: SyncConfiguration? = nil,
        instrumentation: StoreInstrumentation = .standard,
        opening: @escaping @Sendable (Schema) async throws -> any StorageBackend
    ) async throws -> Store {
        try await open(
            schema: schema, migrations: migrations, location: location, sync: sync, instrumentation: instrumentation,
            opening: opening,
            progress: { _ in })
    }

    /// `open(schema:migrations:location:sync:instrumentation:opening:)` publishing the migration's progress.
    public static func migrating(
        schema: Schema, migrations: MigrationPlan, location: StoreLocation? = nil, sync: SyncConfiguration? = nil,
        instrumentation: StoreInstrumentation = .standard,
        opening: @escaping @Sendable (Schema) async throws -> any StorageBackend
    ) -> MigrationRun {
        MigrationRun { progress in
            try await open(
                schema: schema, migrations: migrations, location: location, sync: sync,
                instrumentation: instrumentation, opening: opening,
                progress: progress)
        }
    }

    static func open(
        _ url: String, schema: Schema, migrations: MigrationPlan?, registry: BackendRegistry, sync: SyncConfiguration?,
        instrumentation: StoreInstrumentation, progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws -> Store {
        let location = try StoreLocation(url)
        return try await open(
            schema: schema, migrations: migrations, location: location, sync: sync, instrumentation: instrumentation,
            opening: { schema in
                try await registry.open(location, schema: schema)
            }, progress: progress)
    }

    static func open(
        schema: Schema, migrations: MigrationPlan?, location: StoreLocation?, sync: SyncConfiguration?,
        instrumentation: StoreInstrumentation,
        opening: @escaping @Sendable (Schema) async throws -> any StorageBackend,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws -> Store {
        let opening = RecordedSchema.checked(opening, path: location?.description ?? "the store")
        // Without a plan nothing can be migrated, so only the shape is compared.
        let app = try migrations?.appSchema(schema) ?? schema.versioned(nil)
        let store: Store
        do {
            store = Store(
                backend: try await opening(app), location: location, sync: sync, participants: [],
                instrumentation: instrumentation)
        } catch let error as StrataError where error.code == .incompatibleStore {
            guard let plan = migrations, let mismatch = error.underlying as? StoredSchemaMismatch else { throw error }
            let path = location?.description ?? "the store"
            let logger = instrumentation.logger
            logger.notice(
                "migrating store",
                metadata: [
                    "store": "\(path)", "from": "\(mismatch.stored.version ?? "unnamed")",
                    "to": "\(app.version ?? "app")",
                ])
            let started = ContinuousClock.now
            do {
                try await migrate(
                    path, from: mismatch.stored, to: app, plan: plan, opening: opening, progress: progress)
            } catch {
                logger.error(
                    "migration failed, store unchanged",
                    metadata: ["store": "\(path)", "error": "\(StoreInstrumentation.kind(of: error))"])
                throw error
            }
            logger.notice(
                "migrated store", metadata: ["store": "\(path)", "duration": "\(ContinuousClock.now - started)"])
            store = Store(
                backend: try await opening(app), location: location, sync: sync, participants: [],
                instrumentation: instrumentation)
        }
        await store.opened()
        return store
    }

    /// Opens the store with the schema it holds and runs the plan's stages on it: in place, or on
    /// a shadow copy that then replaces it (``MigrationPlan/strategy``).
    private static func migrate(
        _ path: String, from stored: SchemaDescription, to app: Schema, plan: MigrationPlan,
        opening: @Sendable (Schema) async throws -> any StorageBackend,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws {
        let steps = try plan.route(from: stored, to: app, path: path)
        for step in steps { try checkLightweight(step) }
        let backend = try await opening(try stored.schema())
        do {
            guard let changing = backend as? any SchemaChangingBackend else {
                throw StrataError(
                    .unsupportedStore,
                    "\(path): its backend cannot change a store's schema (it does not implement SchemaChangingBackend)")
            }
            let migrator = Migrator(
                steps: steps, capabilities: backend.capabilities, batchSize: 1000, progress: progress)
            switch try await placement(plan.strategy, backend: changing, path: path) {
            case .inPlace:
                if let holder = try await changing.holderElsewhere() {
                    throw StrataError(
                        .storeInUse,
                        "\(path) is open in \(holder): migrating it in place would change its shape under that "
                            + "process, which still uses the old schema. Close the store there (stop the old version "
                            + "of the service) and open it again; nothing was changed")
                }
                try await run(migrator, outbox: plan.outbox, on: changing)
                try await backend.close()
            case .shadow(let shadowing, let backup):
                try await migrateShadow(of: shadowing, backup: backup, migrator: migrator, outbox: plan.outbox)
            }
            // Handles onto the old layout in this process learn that everything changed.
            CommitHub.hub(for: backend).committedHere(nil)
        } catch {
            try? await backend.close()
            throw error
        }
    }

    /// The stages, with the outbox carried along, in one schema change of `backend`.
    private static func run(
        _ migrator: Migrator, outbox: MigrationPlan.OutboxPolicy, on backend: any SchemaChangingBackend
    ) async throws {
        let steps = migrator.steps
        try await backend.changeSchema { transaction in
            try OutboxMigration.prepare(outbox, steps: steps, in: transaction.current)
            try migrator.run(transaction)
            try OutboxMigration.rewrite(outbox, steps: steps, in: transaction.current)
            // The engine records the shape it migrated to, as it records a new store's.
            try transaction.current.setMetadata(
                SchemaDescription.metadataKey, SchemaDescription(transaction.schema).encoded())
        }
    }

    private enum Placement {
        case inPlace
        case shadow(any ShadowMigratingBackend, backup: String?)
    }

    /// Whether the migration runs in place or on a shadow copy, from the plan's strategy and
    /// what the backend can do.
    private static func placement(_ strategy: MigrationStrategy, backend: any SchemaChangingBackend, path: String)
        async throws -> Placement
    {
        let shadowing = backend as? any ShadowMigratingBackend
        switch strategy {
        case .inPlace:
            return .inPlace
        case .automatic:
            guard let shadowing, try await shadowing.prefersShadowCopy() else { return .inPlace }
            return .shadow(shadowing, backup: nil)
        case .shadowCopy(let backup):
            guard let shadowing else {
                throw StrataError(
                    .unsupportedStore,
                    "\(path): its backend cannot migrate through a shadow copy (it does not implement ShadowMigratingBackend); migrate it in place (MigrationStrategy.inPlace)"
                )
            }
            return .shadow(shadowing, backup: backup)
        }
    }

    /// Migrates a copy of the store, then puts it in the store's place; any failure before the
    /// swap removes the copy and leaves the store as it was.
    private static func migrateShadow(
        of backend: any ShadowMigratingBackend, backup: String?, migrator: Migrator, outbox: MigrationPlan.OutboxPolicy
    ) async throws {
        let shadow = try await backend.makeShadowCopy()
        do {
            try await run(migrator, outbox: outbox, on: shadow.backend)
            try await shadow.backend.close()
        } catch {
            try? await shadow.backend.close()
            await shadow.discard()
            throw error
        }
        do {
            try await backend.close()
            try await shadow.install(backup: backup)
        } catch {
            await shadow.discard()
            throw error
        }
    }

    /// Refuses, before anything is opened for writing, a lightweight stage no step covers.
    private static func checkLightweight(_ step: MigrationPlan.Step) throws {
        guard case .lightweight = step.kind else { return }
        let problems = LightweightMigration.infer(from: SchemaDescription(step.from), to: step.to).problems
        guard let first = problems.first else { return }
        let list = problems.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.text)" }.joined(
            separator: "; ")
        throw StrataError(
            .migrationRequired, entity: first.entity, property: first.property,
            "\(step.name): no lightweight step covers these changes; add a custom stage to the migration plan: \(list)")
    }
}

/// A migration started by ``Store/migrating(_:schema:migrations:registry:sync:instrumentation:)``: its progress as
/// it runs, and the store once it is open.
public struct MigrationRun: Sendable {
    /// One value after each batch of each stage; finishes when the migration ends either way.
    public let progress: AsyncStream<MigrationProgress>
    let task: Task<Store, any Error>

    init(_ work: @escaping @Sendable (@escaping @Sendable (MigrationProgress) -> Void) async throws -> Store) {
        let (stream, continuation) = AsyncStream<MigrationProgress>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        progress = stream
        task = Task {
            defer { continuation.finish() }
            return try await work { continuation.yield($0) }
        }
    }

    /// The opened store, or the migration's error.
    public var store: Store {
        get async throws { try await task.value }
    }
}
