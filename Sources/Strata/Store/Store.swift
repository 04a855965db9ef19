/// An open store: a schema over a storage backend. `Sendable`; share one per process and call it
/// from any task.
///
/// ```swift
/// let store = try await Store.open("sqlite:./app.sqlite", schema: try Schema(Person.self, Trip.self))
/// let trips = store.repository(Trip.self)
/// ```
public final class Store: Sendable {
    /// The schema the store was opened with.
    public let schema: Schema
    /// Where the store lives (`memory:`, `sqlite:PATH`, …).
    public let location: StoreLocation?
    /// The storage backend underneath.
    public let backend: any StorageBackend
    /// Offline-first sync, when on: every local save also appends its mutations to the outbox.
    public let sync: SyncConfiguration?
    package let executor: QueryExecutor
    /// Delivers commits to observers; shared by every store over the same backend.
    package let hub: CommitHub

    /// Opens the store at `url` with the backend registered for its scheme — the one way an app
    /// opens a store. In two phases, decided here once: the backend attaches to the location and
    /// reports the schema the store holds (changing nothing); no store there creates one with
    /// `schema`; the same schema opens; another is migrated with `options.migrations` (see
    /// ``MigrationPlan``) or refused with `StrataError.Code.incompatibleStore` naming every
    /// difference, the store untouched.
    ///
    /// - Parameters:
    ///   - url: `scheme:path`, such as `sqlite:./app.sqlite`, `memory:`, `postgres://…`.
    ///   - schema: The app's schema.
    ///   - options: Registry, sync, instrumentation, migrations and their progress.
    public static func open(_ url: String, schema: Schema, options: OpenOptions = OpenOptions()) async throws -> Store {
        let location = try StoreLocation(url)
        let (app, wanted) = try wantedShape(schema, options)
        let path = location.description
        if let stored = try await options.registry.attach(location), !stored.isOpenable(as: wanted) {
            guard let plan = options.migrations else {
                throw StoredSchema.mismatch(stored: stored, current: wanted, path: path)
            }
            try await migrate(location, from: stored, to: app, plan: plan, options: options)
        }
        let backend = try await options.registry.open(location, schema: app)
        // Records the description in a new store; refuses one that changed since it was attached.
        try await RecordedSchema.reconcile(backend, schema: app, wanted: wanted, path: path)
        let store = Store(
            backend: backend, location: location, sync: try await options.sync?.resolved(in: backend),
            participants: [], instrumentation: options.instrumentation, registry: options.registry,
            hooks: options.hooks)
        await store.opened()
        return store
    }

    /// What else takes part in every local save through this store (a sync server's prior states).
    package let extraParticipants: [any CommitParticipant]

    /// Where the store logs and reports metrics.
    public let instrumentation: StoreInstrumentation
    /// The app's save hooks, run by every save through this store (see ``SaveHooks``).
    public let hooks: SaveHooks
    /// The registry the store was opened through (what ``reopen()`` opens it with again).
    let registry: BackendRegistry

    /// Wraps a backend opened by other means (a custom backend, a test).
    public convenience init(
        backend: any StorageBackend, location: StoreLocation? = nil, sync: SyncConfiguration? = nil,
        instrumentation: StoreInstrumentation = .standard
    ) {
        self.init(backend: backend, location: location, sync: sync, participants: [], instrumentation: instrumentation)
    }

    init(
        backend: any StorageBackend, location: StoreLocation?, sync: SyncConfiguration?,
        participants: [any CommitParticipant],
        instrumentation: StoreInstrumentation = .standard, registry: BackendRegistry = .shared,
        hooks: SaveHooks = SaveHooks()
    ) {
        self.registry = registry
        self.hooks = hooks
        self.instrumentation = instrumentation
        self.schema = backend.schema
        self.backend = backend
        self.location = location
        self.sync = sync
        self.executor = QueryExecutor(capabilities: backend.capabilities)
        self.hub = CommitHub.hub(for: backend)
        self.extraParticipants = participants
    }

    /// The same store with sync configured as given (`nil` turns the outbox off for saves made
    /// through the returned store).
    public func withSync(_ configuration: SyncConfiguration?) -> Store {
        Store(
            backend: backend, location: location, sync: configuration, participants: extraParticipants,
            instrumentation: instrumentation, registry: registry, hooks: hooks)
    }

    /// The same store with these save hooks (replacing its own) for saves made through the
    /// returned store.
    public func withHooks(_ hooks: SaveHooks) -> Store {
        Store(
            backend: backend, location: location, sync: sync, participants: extraParticipants,
            instrumentation: instrumentation, registry: registry, hooks: hooks)
    }

    /// The same store with one more participant in every local save.
    package func adding(_ participant: any CommitParticipant) -> Store {
        Store(
            backend: backend, location: location, sync: sync, participants: extraParticipants + [participant],
            instrumentation: instrumentation, registry: registry, hooks: hooks)
    }

    /// The typed repository for one model.
    public func repository<Model: PersistentModel>(_ type: Model.Type) -> Repository<Model> {
        Repository(store: self)
    }

    /// Runs `body` as one save: everything it stages commits atomically when it returns, or not at
    /// all when it (or validation, a delete rule, a uniqueness check) throws. Reads inside see the
    /// staged changes. The closure runs on the backend's writer; keep it free of slow work.
    ///
    /// - Parameters:
    ///   - author: Recorded in the history transaction.
    ///   - contextName: Recorded in the history transaction.
    ///   - body: The reads and writes of the one save.
    @discardableResult
    public func transaction<T: Sendable>(
        author: String? = nil, contextName: String? = nil, _ body: @escaping @Sendable (StoreTransaction) throws -> T
    ) async throws -> T {
        try await save(author: author, contextName: contextName, body).value
    }

    /// Like `transaction(author:contextName:_:)` and also returns the history token of the save
    /// (`nil` when it changed nothing).
    public func save<T: Sendable>(
        author: String? = nil, contextName: String? = nil, _ body: @escaping @Sendable (StoreTransaction) throws -> T
    ) async throws -> (value: T, token: HistoryToken?) {
        try await commit(author: author, contextName: contextName, participants: localSaveParticipants) { session, _ in
            try body(StoreTransaction(session: session))
        }
    }

    /// What takes part in a local save's commit (a repository's, a transaction's, a context's): the
    /// outbox when sync is on. Saves that apply a sync peer's changes pass none, so they do not
    /// echo back.
    var localSaveParticipants: [any CommitParticipant] {
        extraParticipants + (sync.map { [Outbox.Participant(configuration: $0)] } ?? [])
    }

    /// Runs `body` against one consistent committed state.
    public func read<T: Sendable>(_ body: @escaping @Sendable (StoreReader) throws -> T) async throws -> T {
        let executor = executor
        return try await backend.read { transaction in
            try body(StoreReader(transaction: transaction, executor: executor))
        }
    }

    /// History transactions after `token` (all when `nil`), oldest first.
    public func history(after token: HistoryToken? = nil, limit: Int? = nil) async throws -> [HistoryTransaction] {
        try await backend.read { try HistoryLog.read(after: token, limit: limit, in: $0) }
    }

    /// The token of the latest save, or `nil` for a store never written.
    public func currentHistoryToken() async throws -> HistoryToken? {
        try await backend.read { try HistoryLog.lastToken(in: $0) }
    }

    /// Removes history transactions older than `token`; returns how many were removed.
    @discardableResult
    public func purgeHistory(before token: HistoryToken) async throws -> Int {
        let participants = extraParticipants
        // An observer behind the purge learns of it now rather than at the next commit.
        return try await writeMetadata(wakes: true) { transaction in
            let purged = try HistoryLog.purge(before: token, in: transaction)
            // What participants keep beside history (a sync server's prior states) goes with it.
            for participant in participants { try participant.purge(before: token, in: transaction) }
            return purged
        }
    }

    /// Closes the backend. Later calls fail with `StrataError.Code.storeClosed`.
    /// Live observations of it end with that error.
    public func close() async throws {
        try await backend.close()
        hub.closed()
    }
}

extension Store {
    /// Closes this store and opens it again at its `location`, through the registry it was opened
    /// with, with the same schema, sync configuration and participants — what `close()` then
    /// `Store.open(…)` does, without forgetting any option. Observations of this store end with
    /// `StrataError.Code.storeClosed`. A store wrapped around a backend opened by other means has
    /// no location to reopen (`StrataError.Code.unsupportedStore`).
    public func reopen() async throws -> Store {
        guard let location else {
            throw StrataError(
                .unsupportedStore,
                "this store was wrapped around a backend opened by other means: open that backend again")
        }
        try await close()
        let backend = try await registry.open(location, schema: schema)
        try await RecordedSchema.reconcile(backend, schema: schema, path: location.description)
        let store = Store(
            backend: backend, location: location, sync: sync, participants: extraParticipants,
            instrumentation: instrumentation, registry: registry, hooks: hooks)
        await store.opened()
        return store
    }
}
