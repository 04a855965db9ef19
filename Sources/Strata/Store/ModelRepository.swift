/// Reading one model type: what a read-only service depends on.
///
/// ``Repository`` (each call reads the store as committed) and ``ContextRepository`` (reads see the
/// unit of work's pending changes) conform, and so can a test double:
///
/// ```swift
/// struct TripDirectory<Trips: ModelReading<Trip>> {
///     let trips: Trips
///     func upcoming(after day: Date) async throws -> [Trip] {
///         try await trips.fetch(Query<Trip>.where(\.start > day).sorted(by: \.start))
///     }
/// }
/// ```
public protocol ModelReading<Model>: Sendable {
    associatedtype Model: PersistentModel

    /// The model with this ID, or `nil`.
    func fetch(_ id: Model.ID) async throws -> Model?
    /// The models a query matches, in its sort order (ID ascending last).
    func fetch(_ query: Query<Model>) async throws -> [Model]
    /// One keyset page of a query's results after `cursor` (from the start when nil).
    func fetch(_ query: Query<Model>, after cursor: PageCursor?) async throws -> Page<Model>
    /// How many models a query matches.
    func count(_ query: Query<Model>) async throws -> Int
    /// Page `page.number` of a query's results (the query without a limit or offset) and, when
    /// `withTotal`, how many it matches — both from one state of the store.
    func fetch(_ query: Query<Model>, page: PageRequest, withTotal: Bool) async throws -> OffsetPage<Model>
    /// The rows of an untyped aggregate over the models a filter matches (what the typed
    /// `aggregate(_:where:)` and `aggregate(_:groupedBy:where:)` call; see `AggregatePlan`).
    func aggregateRows(_ functions: [AggregateFunction], groupedBy property: String?, where filter: Filter<Model>?)
        async throws -> [AggregateRow]
    /// The destinations of a to-many of one model, in relationship order.
    func related<D: PersistentModel>(_ relationship: ToMany<Model, D>, of id: Model.ID) async throws -> [D]
    /// The rows of an aggregate over each owner's members of a to-many, owners in ID order (what
    /// `aggregate(_:over:where:)` calls; a default evaluates it over `fetch` and `related`).
    func relatedAggregateRows<D: PersistentModel>(
        _ functions: [AggregateFunction], over relationship: ToMany<Model, D>, where filter: Filter<Model>?
    ) async throws -> [(Model.ID, AggregateRow)]
    /// A query's results read `batchSize` at a time (see ``ModelStream``; a default reads keyset
    /// pages through `fetch(_:after:)`).
    func stream(_ query: Query<Model>, batchSize: Int) -> ModelStream<Model>
    /// A query's results read in batches, each model with a to-many's destinations, read per batch
    /// (no N+1; a default asks `related(_:of:)` per model).
    func stream<D: PersistentModel>(_ query: Query<Model>, batchSize: Int, including relationship: ToMany<Model, D>)
        -> ModelStream<(model: Model, related: [D])>
    /// A query's results grouped into sections by `key` (see ``SectionedResults``; a default groups
    /// what `fetch` returns, and refuses a key through a to-one, whose destinations it cannot read).
    func fetch<Key>(_ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>) async throws
        -> SectionedResults<Model, Key>
}

extension ModelReading {
    /// Every model, in ID order.
    public func fetch() async throws -> [Model] { try await fetch(Query<Model>.all) }

    /// The models a filter matches, in ID order.
    public func fetch(where predicate: Filter<Model>) async throws -> [Model] { try await fetch(Query(predicate)) }

    /// The first model a query matches, or `nil`.
    public func first(_ query: Query<Model>) async throws -> Model? { try await fetch(query.limit(1)).first }

    /// How many models there are.
    public func count() async throws -> Int { try await count(Query<Model>.all) }

    /// How many models a filter matches.
    public func count(where predicate: Filter<Model>) async throws -> Int { try await count(Query(predicate)) }

    /// The engine's aggregates over the models `fetch(Query(filter))` returns: a
    /// test double that implements `fetch` aggregates the models it holds. ``Repository`` and
    /// ``ContextRepository`` replace it with the store's own (pushed down where the backend can).
    public func aggregateRows(
        _ functions: [AggregateFunction], groupedBy property: String?, where filter: Filter<Model>?
    ) async throws -> [AggregateRow] {
        let plan = try AggregatePlan(Model.self, functions, groupedBy: property, where: filter)
        let entity = try Model.entityDescription()
        try AggregateEvaluator.validate(plan, entity)
        let records = try await fetch(Query(filter)).map { try $0.record() }
        return try AggregateEvaluator.evaluate(plan, records, entity)
    }
}

/// Reading and writing one model type: what a service depends on, so the same code runs with each
/// call its own save (``Repository``, from ``Store/repository(_:)``) or inside a unit of work
/// (``ContextRepository``, from ``ModelContext/repository(_:)``, saved by ``ModelContext/save()``),
/// and a test hands it a fake.
///
/// ```swift
/// struct Bookings<Trips: ModelRepository<Trip>> {
///     let trips: Trips
///     func rename(_ id: Trip.ID, to name: String) async throws {
///         guard var trip = try await trips.fetch(id) else { throw StrataError(.notFound, "no trip \(id)") }
///         trip.name = name
///         try await trips.update(trip)
///     }
/// }
/// let auto = Bookings(trips: store.repository(Trip.self))            // saves at once
/// let context = store.makeContext()
/// let unit = Bookings(trips: context.repository(Trip.self))           // staged …
/// try await context.save()                                           // … saved here
/// ```
public protocol ModelRepository<Model>: ModelReading {
    /// Inserts a new model. An existing ID is `StrataError.Code.duplicateID`.
    func insert(_ model: Model) async throws
    /// Replaces an existing model. A missing ID is `StrataError.Code.notFound`.
    func update(_ model: Model) async throws
    /// Inserts, or replaces the record with the same ID.
    func upsert(_ model: Model) async throws
    /// Inserts unless the ID exists (which stays as it is); returns whether it inserted.
    @discardableResult
    func insertIfAbsent(_ model: Model) async throws -> Bool
    /// The model with this ID and its record's version (what a service hands out as an ETag), or `nil`.
    func fetchVersioned(_ id: Model.ID) async throws -> Versioned<Model>?
    /// Replaces a model only if its record is still at `expectedVersion` (an `If-Match` update);
    /// another version is `StrataError.Code.mergeConflict` and nothing is written.
    func update(_ model: Model, expectedVersion: Int64) async throws
    /// Deletes by ID; delete rules apply.
    func delete(_ id: Model.ID) async throws
    /// Adds `destination` to a to-many of `source`.
    func link<D: PersistentModel>(_ relationship: ToMany<Model, D>, from source: Model.ID, to destination: D.ID)
        async throws
    /// Removes `destination` from a to-many of `source`.
    func unlink<D: PersistentModel>(_ relationship: ToMany<Model, D>, from source: Model.ID, to destination: D.ID)
        async throws
    /// Makes a to-many of `source` exactly `destinations` (in this order when ordered).
    func setRelated<D: PersistentModel>(_ relationship: ToMany<Model, D>, of source: Model.ID, to destinations: [D.ID])
        async throws
}

extension ModelRepository {
    /// The default, for test doubles: reads, then inserts or updates. A store's and a context's
    /// repositories implement it atomically.
    public func upsert(_ model: Model) async throws {
        if try await fetch(model.id) != nil { try await update(model) } else { try await insert(model) }
    }

    /// The default, for test doubles: reads, then inserts. A store's and a context's repositories
    /// implement it atomically (of concurrent calls with one ID, exactly one inserts).
    @discardableResult
    public func insertIfAbsent(_ model: Model) async throws -> Bool {
        if try await fetch(model.id) != nil { return false }
        try await insert(model)
        return true
    }
}

extension Repository: ModelRepository {}

/// The repository of one model type inside a ``ModelContext``: reads see the context's pending
/// changes, writes are staged until the context saves (see ``ModelRepository``).
public struct ContextRepository<Model: PersistentModel>: ModelRepository {
    /// The unit of work this repository stages into.
    public let context: ModelContext

    /// The repository of `Model` in `context`.
    public init(context: ModelContext) { self.context = context }

    public func fetch(_ id: Model.ID) async throws -> Model? { try await context.fetch(Model.self, id: id) }
    public func fetch(_ query: Query<Model>) async throws -> [Model] { try await context.fetch(query) }
    public func fetch(_ query: Query<Model>, after cursor: PageCursor?) async throws -> Page<Model> {
        try await context.fetch(query, after: cursor)
    }
    public func count(_ query: Query<Model>) async throws -> Int { try await context.count(query) }
    public func fetch(_ query: Query<Model>, page: PageRequest, withTotal: Bool) async throws -> OffsetPage<Model> {
        try await context.fetch(query, page: page, withTotal: withTotal)
    }
    public func aggregateRows(
        _ functions: [AggregateFunction], groupedBy property: String?, where filter: Filter<Model>?
    ) async throws -> [AggregateRow] {
        try await context.aggregate(try AggregatePlan(Model.self, functions, groupedBy: property, where: filter))
    }
    public func related<D: PersistentModel>(_ relationship: ToMany<Model, D>, of id: Model.ID) async throws -> [D] {
        try await context.related(relationship, of: id)
    }
    public func stream(_ query: Query<Model>, batchSize: Int) -> ModelStream<Model> {
        context.stream(query, batchSize: batchSize)
    }
    public func fetch<Key>(_ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>) async throws
        -> SectionedResults<Model, Key>
    {
        try await context.fetch(query, sectionedBy: key)
    }
    public func stream<D: PersistentModel>(
        _ query: Query<Model>, batchSize: Int, including relationship: ToMany<Model, D>
    ) -> ModelStream<(model: Model, related: [D])> {
        context.stream(query, batchSize: batchSize, including: relationship)
    }
    public func insert(_ model: Model) async throws { try await context.insert(model) }
    public func update(_ model: Model) async throws { try await context.update(model) }
    public func upsert(_ model: Model) async throws { try await context.upsert(model) }
    @discardableResult
    public func insertIfAbsent(_ model: Model) async throws -> Bool { try await context.insertIfAbsent(model) }
    public func fetchVersioned(_ id: Model.ID) async throws -> Versioned<Model>? {
        try await context.fetchVersioned(Model.self, id: id)
    }
    public func update(_ model: Model, expectedVersion: Int64) async throws {
        try await context.update(model, expectedVersion: expectedVersion)
    }
    public func delete(_ id: Model.ID) async throws { try await context.delete(Model.self, id: id) }
    public func link<D: PersistentModel>(_ relationship: ToMany<Model, D>, from source: Model.ID, to destination: D.ID)
        async throws
    {
        try await context.link(relationship, from: source, to: destination)
    }
    public func unlink<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, from source: Model.ID, to destination: D.ID
    ) async throws {
        try await context.unlink(relationship, from: source, to: destination)
    }
    public func setRelated<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, of source: Model.ID, to destinations: [D.ID]
    ) async throws {
        try await context.setRelated(relationship, of: source, to: destinations)
    }
}

extension ModelContext {
    /// The repository of one model type in this unit of work.
    public nonisolated func repository<Model: PersistentModel>(_ type: Model.Type) -> ContextRepository<Model> {
        ContextRepository(context: self)
    }
}
