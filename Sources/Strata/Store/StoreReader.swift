/// Reads inside ``Store/read(_:)`` or a transaction: typed and untyped fetches, counts and
/// relationship traversal over one consistent state. Valid only inside the closure it was given to.
public class StoreReader {
    let transaction: any StorageReadTransaction
    let executor: QueryExecutor

    package init(transaction: any StorageReadTransaction, executor: QueryExecutor) {
        self.transaction = transaction
        self.executor = executor
    }

    /// The store's schema.
    public var schema: Schema { transaction.schema }

    // MARK: Typed

    /// The model with this ID, or `nil`.
    public func fetch<M: PersistentModel>(_ type: M.Type, id: M.ID) throws -> M? {
        try record(M.entityName, id: id.recordID).map(M.init(record:))
    }

    /// The models a query matches, in its sort order.
    public func fetch<M: PersistentModel>(_ query: Query<M>) throws -> [M] {
        try KeyPathDecoding.decodeAll(M.self, try executor.fetch(try query.plan(), in: transaction))
    }

    /// One page of a query's results: those after `cursor` (from the start when nil), at most the
    /// query's limit of them, and the cursor of the page after. Keyset paging: a page costs the
    /// same however deep it is, and saves made between pages neither repeat nor skip records
    /// that sort after the cursor. The query's offset must be 0; a cursor from another entity or
    /// sort order is `StrataError.Code.invalidQuery`.
    public func fetch<M: PersistentModel>(_ query: Query<M>, after cursor: PageCursor?) throws -> Page<M> {
        let plan = try PageCursor.plan(query, after: cursor)
        let page = try executor.fetchPage(plan, in: transaction)
        return PageCursor.page(page, try KeyPathDecoding.decodeAll(M.self, page.records), plan: plan)
    }

    /// The first model a query matches, or `nil`.
    public func first<M: PersistentModel>(_ query: Query<M>) throws -> M? {
        try fetch(query.limit(1)).first
    }

    /// How many models a query matches (after its offset and limit).
    public func count<M: PersistentModel>(_ query: Query<M>) throws -> Int {
        try executor.count(try query.plan(), in: transaction)
    }

    /// The destinations of a to-many of one record, in relationship order (link order when ordered,
    /// ID order otherwise). Dangling references are skipped. An owner that does not exist is
    /// `StrataError.Code.notFound` (not an empty list, which is an owner without members).
    public func related<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, of id: M.ID) throws -> [D]
    {
        guard try transaction.record(M.entityName, id: id.recordID) != nil else {
            throw StrataError(.notFound, entity: M.entityName, recordID: id.recordID, "the owner does not exist")
        }
        return try related(relationship, of: [id])[id] ?? []
    }

    /// The destinations of a to-many for many records at once: one query per relationship rather
    /// than one per record (no N+1).
    public func related<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, of ids: [M.ID]) throws
        -> [M.ID: [D]]
    {
        let grouped = try relatedRecords(M.entityName, relationship.name, owners: ids.map(\.recordID))
        var result: [M.ID: [D]] = [:]
        for id in ids { result[id] = try (grouped[id.recordID] ?? []).map(D.init(record:)) }
        return result
    }

    /// The destinations of a to-one for many records at once, by destination ID (one query).
    public func referenced<M: PersistentModel, D: PersistentModel>(
        _ type: D.Type, by keyPath: KeyPath<M, D.ID?>, of models: [M]
    ) throws -> [D.ID: D] {
        try self.models(D.self, ids: Array(Set(models.compactMap { $0[keyPath: keyPath] })))
    }

    /// The models with these IDs, by ID (one query per 500 IDs); missing IDs are skipped.
    func models<D: PersistentModel>(_ type: D.Type, ids: [D.ID]) throws -> [D.ID: D] {
        try records(D.entityName, ids: ids.map(\.recordID)).reduce(into: [:]) { result, record in
            let model = try D(record: record)
            result[model.id] = model
        }
    }

    // MARK: Untyped

    /// The untyped record with this ID, or `nil`. An unknown entity is `StrataError.Code.unknownEntity`.
    public func record(_ entity: String, id: RecordID) throws -> Record? {
        _ = try schema.requireEntity(entity)
        let id = ValueRules.normalized(id)
        guard ValueRules.isStorable(id) else { return nil }
        return try transaction.record(entity, id: id)
    }

    /// Every link list a record keeps, by relationship name (empty for an entity with none).
    public func linkLists(of record: Record) throws -> [String: [RecordID]] {
        var lists: [String: [RecordID]] = [:]
        for relationship in try schema.requireEntity(record.entity).relationships where relationship.keepsLinkList {
            lists[relationship.name] = try transaction.links(
                record.entity, relationship: relationship.name, from: record.id)
        }
        return lists
    }

    /// One page of an entity's records in ID order, after `after` (from the first when nil), each
    /// with its link lists: a keyset walk for tools that read a whole store a page at a time.
    public func page(_ entity: String, after: RecordID?, limit: Int) throws -> [(
        record: Record, links: [String: [RecordID]]
    )] {
        let plan = FetchPlan(
            entity: entity, predicate: after.map { .compare("id", .greater, $0.value, []) }, limit: limit)
        return try executor.fetch(plan, in: transaction).map { ($0, try linkLists(of: $0)) }
    }

    /// The untyped records a plan matches (the engine evaluates what the backend declines).
    public func fetch(_ plan: FetchPlan) throws -> [Record] {
        try executor.fetch(plan, in: transaction)
    }

    /// How many records a plan matches.
    public func count(_ plan: FetchPlan) throws -> Int {
        try executor.count(plan, in: transaction)
    }

    /// An untyped aggregate's rows (see `AggregatePlan`).
    public func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] {
        try executor.aggregate(plan, in: transaction)
    }

    /// The records a relationship of each owner points at, in relationship order.
    public func relatedRecords(_ entityName: String, _ relationshipName: String, owners: [RecordID]) throws
        -> [RecordID: [Record]]
    {
        let entity = try schema.requireEntity(entityName)
        guard let relationship = entity.relationship(relationshipName) else {
            throw StrataError(
                .unknownProperty, entity: entityName, property: relationshipName,
                "\(relationshipName) is not a relationship of \(entityName)")
        }
        var result: [RecordID: [Record]] = [:]
        if relationship.storage == .inverseReference, let inverse = relationship.inverse {
            for record in try executor.fetch(
                relationship.destination, where: inverse, in: owners.map(\.value), from: transaction)
            {
                if let owner = RecordID(record[inverse]) { result[owner, default: []].append(record) }
            }
            return result
        }
        var idsByOwner: [RecordID: [RecordID]] = [:]
        // A link list is read by its owners' IDs, in one batch (an owner without one reads empty);
        // only a reference needs each owner's record.
        switch (relationship.storage, relationship.inverse) {
        case (.orderedLinks, _), (.links, _):
            idsByOwner = try transaction.links(entityName, relationship: relationshipName, fromEach: owners)
        case (.inverseLinks, let inverse?):
            idsByOwner = try transaction.linkOwners(relationship.destination, relationship: inverse, toEach: owners)
        default:
            for owner in owners {
                guard let ownerRecord = try record(entityName, id: owner) else { continue }
                idsByOwner[owner] = try transaction.relatedIDs(of: ownerRecord, relationship)
            }
        }
        let loaded = try records(relationship.destination, ids: idsByOwner.values.flatMap { $0 })
        let byID = Dictionary(loaded.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (owner, ids) in idsByOwner { result[owner] = ids.compactMap { byID[$0] } }
        return result
    }

    /// Loads records by ID with the backend's batched lookup, ID ascending; missing IDs are skipped.
    func records(_ entity: String, ids: [RecordID]) throws -> [Record] {
        guard !ids.isEmpty else { return [] }
        if ids.count == 1 { return try transaction.record(entity, id: ids[0]).map { [$0] } ?? [] }
        return try transaction.records(entity, ids: ids.filter(ValueRules.isStorable)).values.sorted { $0.id < $1.id }
    }
}
