import Foundation

/// One version of the app's schema in a ``MigrationPlan``: a name the store records, and the
/// schema as that version declared it.
public struct SchemaVersion: Sendable {
    /// The version's name, recorded by the store (for example `"1"`, `"2024-06"`, `"1.2.0"`).
    public var name: String
    /// The schema, named `name` (`Schema.version`).
    public var schema: Schema

    /// Version `name` of the schema. Freeze each shipped version's schema — as a schema file
    /// (``init(_:contentsOf:)``), or in code (untyped descriptions, or model types kept for it, as
    /// SwiftData's `VersionedSchema` does): a plan can only migrate from a version it still describes.
    public init(_ name: String, _ schema: Schema) {
        self.name = name
        self.schema = schema.versioned(name)
    }

    /// Version `name` as frozen in a schema file at its release (`SchemaFile(schema).write(to:)`,
    /// or `strata schema export`): its shape and declarative rules, without copying its model types.
    /// A file that cannot be read or is not a schema file throws, naming the file.
    public init(_ name: String, contentsOf url: URL) throws {
        self.init(name, try SchemaFile.read(from: url.path).schema())
    }
}

/// One step of a ``MigrationPlan`` between two of its versions.
public struct MigrationStage: Sendable {
    enum Kind: Sendable {
        case lightweight([AttributeConversion])
        case custom(@Sendable (CustomMigration) throws -> Void)
        /// Every record goes: the store is emptied into the new layout.
        case reset
    }

    /// The version this stage starts from.
    public let from: String
    /// The version this stage ends at.
    public let to: String
    let kind: Kind

    /// The steps inferred from the difference between the two versions' shapes (see
    /// ``LightweightMigration``); a difference no step covers is refused with
    /// `StrataError.Code.migrationRequired` naming it. `conversions` say how attributes whose type
    /// changes lossily are converted (see ``AttributeConversion``; lossless changes need none).
    public static func lightweight(from: String, to: String, converting conversions: [AttributeConversion] = [])
        -> MigrationStage
    {
        MigrationStage(from: from, to: to, kind: .lightweight(conversions))
    }

    /// The inferred steps, then `migrate`, inside the same write: it reads the records as they
    /// were (``CustomMigration/forEachOldRecord(_:_:)``) and writes the new ones untyped
    /// (``CustomMigration/put(_:)``). Differences no lightweight step covers (a type change, an
    /// attribute made required without a default) are left for `migrate` to fill; the stage then
    /// checks that every record has what the new version requires. A throw from `migrate` undoes
    /// the whole migration.
    public static func custom(
        from: String, to: String, _ migrate: @escaping @Sendable (CustomMigration) throws -> Void
    ) -> MigrationStage {
        MigrationStage(from: from, to: to, kind: .custom(migrate))
    }
}

/// How a store written with an older schema becomes one of the app's schema, given to
/// ``Store/open(_:schema:options:)`` with ``OpenOptions/migrations``.
///
/// ```swift
/// let plan = MigrationPlan(
///     versions: [SchemaVersion("1", v1), SchemaVersion("2", v2), SchemaVersion("3", v3)],
///     stages: [.custom(from: "2", to: "3") { migration in … }])   // 1 → 2 is inferred
/// let store = try await Store.open("sqlite:app.sqlite", schema: v3, migrations: plan)
/// ```
///
/// - The last version is the app's schema. A store of any earlier version runs the chain of
///   stages from its version to the last, all in one write transaction: the store ends at the
///   last version, or (on any failure, a crash included) stays exactly as it was.
/// - Between two consecutive versions with no stage given, a lightweight stage is inferred.
/// - A store of a version the plan does not know (written by a newer app) is refused with
///   `StrataError.Code.incompatibleStore` naming both versions, and left untouched.
/// - `lightweight` needs no versions: it infers the steps from whatever shape the store holds.
///   It cannot tell an older store from a newer one, so an app that ships versions should use a
///   versioned plan: opening a newer store with `lightweight` would drop what the newer app added.
public struct MigrationPlan: Sendable {
    /// The author of the history entry a migration records.
    public static let historyAuthor = "strata.migration"

    /// The versions, oldest first; the last is the app's schema.
    public var versions: [SchemaVersion]
    /// Explicit stages; consecutive versions without one get a lightweight stage.
    public var stages: [MigrationStage]
    /// What happens to sync mutations still waiting in the outbox (see ``OutboxPolicy``).
    public var outbox: OutboxPolicy
    /// In place or through a shadow copy (see `MigrationStrategy`); `MigrationStrategy.automatic` by default.
    public var strategy: MigrationStrategy = .automatic
    let infersFromStore: Bool
    let resets: Bool

    /// What a migration does with mutations waiting in a sync outbox.
    public enum OutboxPolicy: Sendable {
        /// Re-express them in the new schema's names (entity and property renames); a mutation of
        /// an entity or property the new schema removed is dropped from the outbox with the data.
        case migrate
        /// Refuse the migration (`StrataError.Code.migrationRequired`) while any wait: push first.
        case refuse
    }

    /// A plan over the app's schema versions, oldest first, with the custom stages between them, what becomes of a
    /// waiting sync outbox, and how the store is rewritten.
    public init(
        versions: [SchemaVersion], stages: [MigrationStage] = [], outbox: OutboxPolicy = .migrate,
        strategy: MigrationStrategy = .automatic
    ) {
        self.versions = versions
        self.stages = stages
        self.outbox = outbox
        self.strategy = strategy
        self.infersFromStore = false
        self.resets = false
    }

    private init(lightweightWithOutbox outbox: OutboxPolicy, resets: Bool = false) {
        versions = []
        stages = []
        self.outbox = outbox
        infersFromStore = true
        self.resets = resets
    }

    /// **Destroys the data**: a store of any other shape (or version) is emptied into the app's
    /// schema — every record, link and waiting outbox mutation goes — in one write that records a
    /// history entry. Only for stores whose data can be rebuilt (a cache); never the default.
    public static let destructiveReset = MigrationPlan(lightweightWithOutbox: .migrate, resets: true)

    /// Infers one lightweight stage from the shape the store holds to the app's schema.
    public static let lightweight = MigrationPlan(lightweightWithOutbox: .migrate)

    /// `lightweight` with another outbox policy.
    public static func lightweight(outbox: OutboxPolicy) -> MigrationPlan {
        MigrationPlan(lightweightWithOutbox: outbox)
    }

    /// One stage to run, resolved against the store's shape.
    struct Step: Sendable {
        let from: Schema
        let to: Schema
        let kind: MigrationStage.Kind
        var name: String { "\(from.version ?? "stored") → \(to.version ?? "app")" }
        var isReset: Bool { if case .reset = kind { true } else { false } }
        /// The explicit conversions of a lightweight stage.
        var conversions: [AttributeConversion] { if case .lightweight(let list) = kind { list } else { [] } }
    }

    /// The app's schema as the plan names it (its last version's name), after checking the plan
    /// describes it.
    func appSchema(_ schema: Schema) throws -> Schema {
        if infersFromStore { return schema }
        guard let last = versions.last else {
            throw StrataError(.invalidSchema, "the migration plan has no versions")
        }
        var seen: Set<String> = []
        for version in versions where !seen.insert(version.name).inserted {
            throw StrataError(.invalidSchema, "the migration plan names version \(version.name) twice")
        }
        for stage in stages where !seen.contains(stage.from) || !seen.contains(stage.to) {
            throw StrataError(
                .invalidSchema,
                "a stage of the migration plan goes from \(stage.from) to \(stage.to), which are not both versions of it"
            )
        }
        guard SchemaDescription(last.schema).sameShape(as: SchemaDescription(schema)) else {
            let changes = SchemaDescription(schema).differences(from: SchemaDescription(last.schema))
            throw StrataError(
                .invalidSchema, entity: changes.first?.entity, property: changes.first?.property,
                "the migration plan's last version (\(last.name)) is not the app's schema: \(changes.map(\.description).joined(separator: "; "))"
            )
        }
        return schema.versioned(last.name)
    }

    /// The stages that take a store holding `stored` to the last version, oldest first (empty
    /// when only the version name is to be recorded). A store the plan cannot place is refused.
    func route(from stored: SchemaDescription, to app: Schema, path: String) throws -> [Step] {
        if infersFromStore {
            return [Step(from: try stored.schema(), to: app, kind: resets ? .reset : .lightweight([]))]
        }
        let names = versions.map(\.name)
        let start: Int
        if let version = stored.version {
            guard let index = names.firstIndex(of: version) else {
                throw StrataError(
                    .incompatibleStore,
                    "\(path) was written by schema version \(version), which this app's migration plan does not know (it knows \(names.joined(separator: ", ")); the app's version is \(names.last ?? "none")): a newer app wrote it. It is left untouched."
                )
            }
            guard SchemaDescription(versions[index].schema).sameShape(as: stored) else {
                let changes = SchemaDescription(versions[index].schema).differences(from: stored)
                throw StrataError(
                    .incompatibleStore, entity: changes.first?.entity, property: changes.first?.property,
                    "\(path) says it holds schema version \(version), but its shape differs from that version in the migration plan (the version's schema changed after it shipped?): \(changes.map(\.description).joined(separator: "; "))"
                )
            }
            start = index
        } else if let index = versions.firstIndex(where: { SchemaDescription($0.schema).sameShape(as: stored) }) {
            // A store from before it recorded versions: the earliest version of its shape, so a
            // data-only stage after it runs rather than being skipped.
            start = index
        } else {
            let changes = SchemaDescription(app).differences(from: stored)
            throw StrataError(
                .incompatibleStore, entity: changes.first?.entity, property: changes.first?.property,
                "\(path) holds a shape that is none of the migration plan's versions (\(names.joined(separator: ", "))), so no stage can start from it; against the app's schema: \(changes.map(\.description).joined(separator: "; "))"
            )
        }
        var steps: [Step] = []
        var position = start
        while position < versions.count - 1 {
            let from = versions[position]
            if let stage = stages.first(where: { $0.from == from.name }),
                let end = names.firstIndex(of: stage.to), end > position
            {
                steps.append(Step(from: from.schema, to: versions[end].schema, kind: stage.kind))
                position = end
            } else {
                steps.append(Step(from: from.schema, to: versions[position + 1].schema, kind: .lightweight([])))
                position += 1
            }
        }
        if let last = steps.indices.last { steps[last] = Step(from: steps[last].from, to: app, kind: steps[last].kind) }
        return steps
    }
}

extension MigrationPlan {
    /// This plan with another `strategy`.
    public func strategy(_ strategy: MigrationStrategy) -> MigrationPlan {
        var plan = self
        plan.strategy = strategy
        return plan
    }
}
