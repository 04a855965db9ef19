/// The `open` forms of earlier releases, forwarding to ``Store/open(_:schema:options:)`` for one
/// release so that apps keep compiling (with a deprecation warning) while they move to
/// ``OpenOptions``. Each names at least one of its options, so a plain `Store.open(url, schema:)`
/// is never ambiguous.
extension Store {
    /// Opens the store at `url` with sync on (and the registry and instrumentation given).
    @available(*, deprecated, message: "use open(_:schema:options: OpenOptions(registry:sync:instrumentation:))")
    public static func open(
        _ url: String, schema: Schema, registry: BackendRegistry = .shared, sync: SyncConfiguration?,
        instrumentation: StoreInstrumentation = .standard
    ) async throws -> Store {
        try await open(
            url, schema: schema,
            options: OpenOptions(registry: registry, sync: sync, instrumentation: instrumentation))
    }

    /// Opens the store at `url` through `registry`.
    @available(*, deprecated, message: "use open(_:schema:options: OpenOptions(registry:instrumentation:))")
    public static func open(
        _ url: String, schema: Schema, registry: BackendRegistry, instrumentation: StoreInstrumentation = .standard
    ) async throws -> Store {
        try await open(url, schema: schema, options: OpenOptions(registry: registry, instrumentation: instrumentation))
    }

    /// Opens the store at `url` reporting through `instrumentation`.
    @available(*, deprecated, message: "use open(_:schema:options: OpenOptions(instrumentation:))")
    public static func open(_ url: String, schema: Schema, instrumentation: StoreInstrumentation) async throws -> Store
    {
        try await open(url, schema: schema, options: OpenOptions(instrumentation: instrumentation))
    }

    /// Opens the store at `url`, migrating it with `migrations` when it holds another version of
    /// the schema.
    @available(
        *, deprecated, message: "use open(_:schema:options: OpenOptions(registry:sync:instrumentation:migrations:))"
    )
    public static func open(
        _ url: String, schema: Schema, migrations: MigrationPlan?, registry: BackendRegistry = .shared,
        sync: SyncConfiguration? = nil, instrumentation: StoreInstrumentation = .standard
    ) async throws -> Store {
        try await open(
            url, schema: schema,
            options: OpenOptions(
                registry: registry, sync: sync, instrumentation: instrumentation, migrations: migrations))
    }
}
