import Foundation
import Logging
import Synchronization

extension Store {
    /// The migration half of ``open(_:schema:options:)``, for a store at `location` holding
    /// `stored`, which the app's schema (`app`) does not open as it is.
    ///
    /// - The plan's stages run from the store's version to the app's in one write transaction (see
    ///   ``MigrationPlan``); the history gains one entry (author `strata.migration`). Any failure —
    ///   a custom stage throwing, a required value missing, duplicates under a new unique
    ///   constraint, a crash — leaves the store exactly as it was, and the error names the entity,
    ///   record and property.
    /// - A store of a version the plan does not know (a newer app's) is refused, naming both
    ///   versions; the store is never touched.
    ///
    /// Close other handles onto the store (in this process and others) before migrating: they
    /// hold the old layout.
    static func migrate(
        _ location: StoreLocation, from stored: SchemaDescription, to app: Schema, plan: MigrationPlan,
        options: OpenOptions, rehearsal: Bool = false
    ) async throws {
        let path = location.description
        let logger = options.instrumentation.logger
        logger.notice(
            rehearsal ? "rehearsing migration" : "migrating store",
            metadata: ["store": "\(path)", "from": "\(stored.version ?? "unnamed")", "to": "\(app.version ?? "app")"])
        let started = ContinuousClock.now
        let registry = options.registry
        do {
            try await migrate(
                path, from: stored, to: app, plan: plan, opening: { try await registry.open(location, schema: $0) },
                progress: options.progress ?? { _ in }, rehearsal: rehearsal)
        } catch is Rehearsed {
            logger.notice(
                "rehearsed migration, store unchanged",
                metadata: ["store": "\(path)", "duration": "\(ContinuousClock.now - started)"])
            return
        } catch {
            logger.error(
                "migration failed, store unchanged",
                metadata: ["store": "\(path)", "error": "\(StoreInstrumentation.kind(of: error))"])
            throw error
        }
        logger.notice("migrated store", metadata: ["store": "\(path)", "duration": "\(ContinuousClock.now - started)"])
    }

    /// Opens the store with the schema it holds and runs the plan's stages on it: in place, or on
    /// a shadow copy that then replaces it (``MigrationPlan/strategy``).
    private static func migrate(
        _ path: String, from stored: SchemaDescription, to app: Schema, plan: MigrationPlan,
        opening: @Sendable (Schema) async throws -> any StorageBackend,
        progress: @escaping @Sendable (MigrationProgress) -> Void, rehearsal: Bool
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
            // A rehearsal runs in place and rolls back: it never changes the store's shape.
            switch rehearsal ? .inPlace : try await placement(plan.strategy, backend: changing, path: path) {
            case .inPlace where rehearsal:
                try await run(migrator, outbox: plan.outbox, on: changing, rehearsal: true)  // throws Rehearsed
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
    /// - Parameter rehearsal: Throw ``Rehearsed`` once everything ran, so the backend rolls back.
    private static func run(
        _ migrator: Migrator, outbox: MigrationPlan.OutboxPolicy, on backend: any SchemaChangingBackend,
        rehearsal: Bool = false
    ) async throws {
        let steps = migrator.steps
        try await backend.changeSchema { transaction in
            try OutboxMigration.prepare(outbox, steps: steps, in: transaction.current)
            try migrator.run(transaction)
            try OutboxMigration.rewrite(outbox, steps: steps, in: transaction.current)
            // The engine records the shape it migrated to, as it records a new store's.
            try transaction.current.setMetadata(
                SchemaDescription.metadataKey, SchemaDescription(transaction.schema).encoded())
            if rehearsal { throw Rehearsed() }
        }
    }

    /// Thrown at the end of a rehearsal's schema change, so the backend rolls everything back.
    private struct Rehearsed: Error {}

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
        let problems = LightweightMigration.infer(
            from: SchemaDescription(step.from), to: step.to, converting: step.conversions
        ).problems
        guard let first = problems.first else { return }
        let list = problems.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.text)" }.joined(
            separator: "; ")
        throw StrataError(
            .migrationRequired, entity: first.entity, property: first.property,
            "\(step.name): no lightweight step covers these changes; add a custom stage to the migration plan: \(list)")
    }
}
