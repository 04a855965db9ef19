/// How ``Store/open(_:schema:options:)`` opens a store: where its scheme's backend is
/// registered, sync, instrumentation, and the migration plan (with a progress callback) for a
/// store that holds another version of the schema.
///
/// ```swift
/// let store = try await Store.open(
///     "sqlite:./app.sqlite", schema: schema,
///     options: OpenOptions(migrations: plan, progress: { step in print(step) }))
/// ```
public struct OpenOptions: Sendable {
    /// Where the URL's scheme is registered.
    public var registry: BackendRegistry
    /// Turns on the durable outbox for a sync engine (`StrataSync`) to push.
    public var sync: SyncConfiguration?
    /// Where the store logs and reports metrics (see ``StoreInstrumentation``).
    public var instrumentation: StoreInstrumentation
    /// How a store of another version of the schema is migrated; without a plan such a store is
    /// refused (`StrataError.Code.incompatibleStore`, naming every difference) and left untouched.
    public var migrations: MigrationPlan?
    /// Called after each batch of each migration stage (never when nothing is migrated).
    public var progress: (@Sendable (MigrationProgress) -> Void)?
    /// The app's save hooks (see ``SaveHooks``).
    public var hooks: SaveHooks

    /// Options; every one has the default a plain open wants.
    public init(
        registry: BackendRegistry = .shared, sync: SyncConfiguration? = nil,
        instrumentation: StoreInstrumentation = .standard, migrations: MigrationPlan? = nil,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil, hooks: SaveHooks = SaveHooks()
    ) {
        self.hooks = hooks
        self.registry = registry
        self.sync = sync
        self.instrumentation = instrumentation
        self.migrations = migrations
        self.progress = progress
    }
}
