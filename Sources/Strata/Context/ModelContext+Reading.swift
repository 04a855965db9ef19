/// Reading through a context: its pending changes laid over one consistent read of the store.
extension ModelContext {
    // MARK: Reading

    /// The model with this ID as this context sees it (its own pending changes included), or `nil`.
    public func fetch<M: PersistentModel>(_ type: M.Type, id: M.ID) async throws -> M? {
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        _ = try store.schema.requireEntity(M.entityName)
        // A pending link or unlink may move this record's to-one (a to-many stored through it):
        // then it is read as the pending changes leave it.
        let overlaid = !tracker.memberships.isEmpty
        if let entry = tracker[key], entry.isPending {
            if !overlaid { return try entry.current.map(M.init(record:)) }
        } else {
            let record = try await readStore { reader, _ in try reader.record(key.entity, id: key.id) }
            if let record { tracker.register(record) } else { tracker.forget(key) }
            if !overlaid { return try (tracker[key]?.current ?? record).map(M.init(record:)) }
        }
        return try await readOverlaid { view, _ in try view.record(key.entity, id: key.id) }.map(M.init(record:))
    }

    /// The models a query matches, with this context's pending inserts, updates and deletes applied.
    public func fetch<M: PersistentModel>(_ query: Query<M> = .all) async throws -> [M] {
        let plan = try query.plan()
        return try models(try await readOverlaid { view, executor in try executor.fetch(plan, in: view) })
    }

    /// A query's results grouped into sections by `key`, pending changes included (a key through a
    /// to-one reads its destinations as this context sees them).
    public func fetch<M: PersistentModel, Key>(_ query: Query<M>, sectionedBy key: SectionKey<M, Key>) async throws
        -> SectionedResults<M, Key>
    {
        let plan = try query.plan()
        let (records, referenced) = try await readOverlaid { view, executor in
            let records = try executor.fetch(plan, in: view)
            return (records, try key.referencedRecords(records, in: view))
        }
        let models: [M] = try models(records)
        let keys = try key.keys(models, referenced: referenced)
        return SectionedResults.grouping(models, keys: keys, descending: query.sectionsDescend).results
    }

    /// One keyset page of a query's results after `cursor`, pending changes included (see
    /// ``StoreReader/fetch(_:after:)``).
    public func fetch<M: PersistentModel>(_ query: Query<M>, after cursor: PageCursor?) async throws -> Page<M> {
        let plan = try PageCursor.plan(query, after: cursor)
        let page = try await readOverlaid { view, executor in try executor.fetchPage(plan, in: view) }
        return PageCursor.page(page, try models(page.records), plan: plan)
    }

    /// A numbered page of a query's results and, when `withTotal`, how many it matches — pending
    /// changes included, both from one read (see ``Repository/fetch(_:page:withTotal:)``).
    public func fetch<M: PersistentModel>(_ query: Query<M>, page: PageRequest, withTotal: Bool = true) async throws
        -> OffsetPage<M>
    {
        let bounded = try page.bounding(query).plan()
        let plan = try query.plan()
        let (records, total) = try await readOverlaid { view, executor in
            (try executor.fetch(bounded, in: view), withTotal ? try executor.count(plan, in: view) : nil)
        }
        return OffsetPage(models: try models(records), request: page, total: total)
    }

    /// How many models a query matches, pending changes included.
    public func count<M: PersistentModel>(_ query: Query<M> = .all) async throws -> Int {
        let plan = try query.plan()
        return try await readOverlaid { view, executor in try executor.count(plan, in: view) }
    }

    /// An untyped aggregate's rows, pending changes included (the engine evaluates it over the
    /// store's records with this context's changes laid on top).
    public func aggregate(_ plan: AggregatePlan) async throws -> [AggregateRow] {
        try await readOverlaid { view, executor in try executor.aggregate(plan, in: view) }
    }

    /// The destinations of a to-many of one record, pending changes included.
    ///
    /// The stored membership read here is remembered: if the store changes it before this context
    /// changes it and saves, that is a conflict for the merge policy, as for a changed attribute.
    public func related<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, of id: M.ID) async throws
        -> [D]
    {
        let owner = RecordKey(entity: M.entityName, id: id.recordID)
        let key = LinkKey(owner, relationship.name)
        let overlay = pendingOverlay()
        let (stored, records) = try await readStore { reader, executor in
            guard let description = reader.schema.entity(owner.entity)?.relationship(relationship.name) else {
                return ([RecordID]?.none, [Record]())
            }
            let stored = try reader.transaction.record(owner.entity, id: owner.id).map {
                try reader.transaction.relatedIDs(of: $0, description)
            }
            let records = try overlay.view(over: reader, executor: executor) { view, _ in
                guard let record = try view.record(owner.entity, id: owner.id) else {
                    throw StrataError(.notFound, entity: owner.entity, recordID: owner.id, "the owner does not exist")
                }
                return try view.relatedRecords(of: record, description)
            }
            return (stored, records)
        }
        if tracker.memberships[key] == nil { tracker.readMemberships[key] = stored }
        return try models(records)
    }

    /// Registers records read through the overlay and maps them as this context sees them.
    private func models<M: PersistentModel>(_ records: [Record]) throws -> [M] {
        for record in records { tracker.register(record) }
        return try KeyPathDecoding.decodeAll(M.self, records.map { tracker[$0.key]?.current ?? $0 })
    }

    /// Runs `body` in one read transaction, after catching up with others' commits in the same
    /// snapshot (when `automaticallyMergesChanges` is on).
    ///
    /// A nested context reads the store through its ancestors' pending changes: the reader `body`
    /// gets is the parent's view, as the parent would read it.
    func readStore<T: Sendable>(_ body: @escaping @Sendable (StoreReader, QueryExecutor) throws -> T) async throws -> T
    {
        let request = refreshRequest(force: false)
        let executor = store.executor
        let ancestors = try await ancestorOverlays()
        let (found, value) = try await store.backend.read { transaction in
            let found = try request.map { try $0.run(in: transaction, executor: executor) }
            let reader = StoreReader(transaction: transaction, executor: executor)
            return (found, try ContextOverlay.nest(ancestors[...], over: reader, executor: executor, body))
        }
        if let found { apply(found) }
        return value
    }

    /// Runs `body` over the committed state with this context's pending changes laid on top.
    func readOverlaid<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction, QueryExecutor) throws -> T)
        async throws -> T
    {
        let overlay = pendingOverlay()
        return try await readStore { reader, executor in try overlay.view(over: reader, executor: executor, body) }
    }

    func pendingOverlay() -> ContextOverlay {
        ContextOverlay(
            records: tracker.pendingRecords.map { ($0.key, $0.entry.current, $0.entry.base == nil) },
            memberships: tracker.memberships.entries.map { key, membership in
                ContextOverlay.MembershipState(
                    owner: key.ownerKey, relationship: key.relationship, desired: membership.desired)
            })
    }
}
