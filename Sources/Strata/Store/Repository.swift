/// Async, `Sendable` access to one model type — what a service layer calls.
///
/// Each write is its own atomic save (delete rules, inverses, validation and history included).
/// Repository writes are last-writer-wins; use `store.transaction` for several writes at once.
public struct Repository<Model: PersistentModel>: Sendable {
    /// The store this repository reads and writes.
    public let store: Store

    /// Inserts a new model in its own save. An existing ID is `StrataError.Code.duplicateID`.
    public func insert(_ model: Model) async throws {
        try await store.transaction { try $0.insert(model) }
    }

    /// Inserts many models in one save.
    public func insert(contentsOf models: [Model]) async throws {
        try await store.transaction { tx in try tx.insert(contentsOf: models) }
    }

    /// Inserts, or replaces an existing record with the same ID. Always explicit, never implied.
    public func upsert(_ model: Model) async throws {
        try await store.transaction { try $0.upsert(model) }
    }

    /// Inserts the model unless a record with its ID exists, which stays as it is; returns whether
    /// it inserted. Get-or-create without a race: of concurrent calls with one ID — in this process
    /// or others sharing the store — exactly one inserts and none fails.
    @discardableResult
    public func insertIfAbsent(_ model: Model) async throws -> Bool {
        try await store.transaction { try $0.insertIfAbsent(model) }
    }

    /// Replaces an existing model in its own save. A missing ID is `StrataError.Code.notFound`.
    public func update(_ model: Model) async throws {
        try await store.transaction { try $0.update(model) }
    }

    /// Deletes by ID; delete rules apply. A missing ID is `StrataError.Code.notFound`.
    public func delete(_ id: Model.ID) async throws {
        try await store.transaction { try $0.delete(Model.self, id: id) }
    }

    /// Deletes every match in one save (delete rules apply, deny included); returns how many.
    @discardableResult
    public func delete(where predicate: Filter<Model>) async throws -> Int {
        try await store.transaction { try $0.delete(Query(predicate)) }
    }

    /// The model with this ID, or `nil`.
    public func fetch(_ id: Model.ID) async throws -> Model? {
        try await store.read { try $0.fetch(Model.self, id: id) }
    }

    /// The models a query matches, in its sort order (ID ascending last).
    public func fetch(_ query: Query<Model> = .all) async throws -> [Model] {
        try await store.read { try $0.fetch(query) }
    }

    /// One page of a query's results after `cursor` (from the start when nil), at most the query's
    /// limit, with the cursor of the next page (nil at the end). See ``StoreReader/fetch(_:after:)``.
    ///
    /// ```swift
    /// var cursor: PageCursor? = nil
    /// repeat {
    ///     let page = try await trips.fetch(Query<Trip>.all.sorted(by: \.start).limit(50), after: cursor)
    ///     send(page.models, next: page.next?.description)
    ///     cursor = page.next
    /// } while cursor != nil
    /// ```
    public func fetch(_ query: Query<Model>, after cursor: PageCursor?) async throws -> Page<Model> {
        try await store.read { try $0.fetch(query, after: cursor) }
    }

    /// Page `page.number` of a query's results and, when `withTotal`, how many the query matches,
    /// both read from one committed state:
    ///
    /// ```swift
    /// let query = Query<Trip>.all.sorted(by: \.start)
    /// let page = try await trips.fetch(query, page: PageRequest(number: 3, size: 20), withTotal: true)
    /// ```
    ///
    /// The query must not have a limit or offset of its own (`invalidQuery`).
    public func fetch(_ query: Query<Model>, page: PageRequest, withTotal: Bool = true) async throws
        -> OffsetPage<Model>
    {
        let bounded = try page.bounding(query)
        return try await store.read { reader in
            OffsetPage(
                models: try reader.fetch(bounded), request: page, total: withTotal ? try reader.count(query) : nil)
        }
    }

    /// The models a filter matches, ID ascending.
    public func fetch(where predicate: Filter<Model>) async throws -> [Model] {
        try await fetch(Query(predicate))
    }

    /// The first model a query matches, or `nil`.
    public func first(_ query: Query<Model>) async throws -> Model? {
        try await store.read { try $0.first(query) }
    }

    /// How many models a query matches (after its offset and limit).
    public func count(_ query: Query<Model> = .all) async throws -> Int {
        try await store.read { try $0.count(query) }
    }

    /// How many models a filter matches.
    public func count(where predicate: Filter<Model>) async throws -> Int {
        try await count(Query(predicate))
    }

    /// The rows of an untyped aggregate over the committed models a filter matches.
    public func aggregateRows(
        _ functions: [AggregateFunction], groupedBy property: String?, where filter: Filter<Model>?
    ) async throws -> [AggregateRow] {
        let plan = try AggregatePlan(Model.self, functions, groupedBy: property, where: filter)
        return try await store.read { try $0.aggregate(plan) }
    }

    /// The destinations of a to-many of one record.
    public func related<D: PersistentModel>(_ relationship: ToMany<Model, D>, of id: Model.ID) async throws -> [D] {
        try await store.read { try $0.related(relationship, of: id) }
    }

    /// A page of results with a to-many prefetched for all of them (one query, no N+1).
    public func fetch<D: PersistentModel>(_ query: Query<Model>, including relationship: ToMany<Model, D>) async throws
        -> [(model: Model, related: [D])]
    {
        try await store.read { reader in
            let models = try reader.fetch(query)
            let related = try reader.related(relationship, of: models.map(\.id))
            return models.map { ($0, related[$0.id] ?? []) }
        }
    }

    /// A query's results grouped into sections by `key`, from one read of the store (a key through a
    /// to-one reads its destinations there too, by ID in one go).
    public func fetch<Key>(_ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>) async throws
        -> SectionedResults<Model, Key>
    {
        let plan = try query.plan()
        return try await store.read { reader in
            try key.sectioned(
                try reader.executor.fetch(plan, in: reader.transaction), query: query, in: reader.transaction)
        }
    }

    /// The destinations of a to-one for a page of models, by ID (one query, no N+1).
    public func referenced<D: PersistentModel>(_ type: D.Type, by keyPath: KeyPath<Model, D.ID?>, of models: [Model])
        async throws -> [D.ID: D]
    {
        // The IDs are read here: a key path cannot cross into the `@Sendable` read closure.
        let ids = Array(Set(models.compactMap { $0[keyPath: keyPath] }))
        return try await store.read { try $0.models(D.self, ids: ids) }
    }

    /// Adds `destination` to a to-many of `source`.
    public func link<D: PersistentModel>(_ relationship: ToMany<Model, D>, from source: Model.ID, to destination: D.ID)
        async throws
    {
        try await store.transaction { try $0.link(relationship, from: source, to: destination) }
    }

    /// Removes `destination` from a to-many of `source`.
    public func unlink<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, from source: Model.ID, to destination: D.ID
    ) async throws {
        try await store.transaction { try $0.unlink(relationship, from: source, to: destination) }
    }

    /// Makes a to-many of `source` hold exactly `destinations`, in order when it is ordered.
    public func setRelated<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, of source: Model.ID, to destinations: [D.ID]
    ) async throws {
        try await store.transaction { try $0.setRelated(relationship, of: source, to: destinations) }
    }
}
