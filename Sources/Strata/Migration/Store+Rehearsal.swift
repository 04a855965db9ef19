extension Store {
    /// Runs the migration ``open(_:schema:options:)`` would run on the store at `url` — every stage,
    /// lightweight step and custom closure, every check (required values, uniqueness, conversions,
    /// validation), the outbox rewrite — in the same one write transaction, then rolls it all back:
    /// the store is as it was whatever happens. It throws exactly what that open would throw, so a
    /// dry run fails where the real run fails.
    ///
    /// ```swift
    /// try await Store.rehearseMigration("sqlite:./app.sqlite", schema: schema, options: OpenOptions(migrations: plan))
    /// ```
    ///
    /// - Returns: Whether the store needs a migration (`false`: there is no store, or it opens as it is).
    @discardableResult
    public static func rehearseMigration(_ url: String, schema: Schema, options: OpenOptions = OpenOptions())
        async throws -> Bool
    {
        let location = try StoreLocation(url)
        let (app, wanted) = try wantedShape(schema, options)
        guard let stored = try await options.registry.attach(location), !stored.isOpenable(as: wanted) else {
            return false
        }
        guard let plan = options.migrations else {
            throw StoredSchema.mismatch(stored: stored, current: wanted, path: location.description)
        }
        try await migrate(location, from: stored, to: app, plan: plan, options: options, rehearsal: true)
        return true
    }

    /// The app's schema as a plan names it, and the shape a store must hold to open with it:
    /// without a plan nothing can be migrated, so only the shape is compared; with one, the version
    /// too (a data-only stage changes the version and not the shape).
    static func wantedShape(_ schema: Schema, _ options: OpenOptions) throws -> (app: Schema, wanted: SchemaDescription)
    {
        let app = try options.migrations?.appSchema(schema) ?? schema
        return (app, SchemaDescription(options.migrations == nil ? schema.versioned(nil) : app))
    }
}
