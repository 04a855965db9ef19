import Synchronization

/// Streamed reads from a store: every batch through one snapshot when the backend holds one
/// (``StorageBackend/openSnapshot()``), else each batch in a read transaction of its own.
extension Store {
    /// A stream of `query`'s results whose batches `read` answers from one reader each.
    func stream<Model: PersistentModel, Element: Sendable>(
        _ query: Query<Model>, batchSize: Int,
        read:
            @escaping @Sendable (StoreReader, QueryPager<Model>.Batch) throws -> (
                elements: [Element], next: PageCursor?
            )
    ) -> ModelStream<Element> {
        ModelStream {
            try await QueryPager.source(query, batchSize: batchSize, open: self.openReads) { reads, batch in
                try await reads.read { try read($0, batch) }
            }
        }
    }

    /// The untyped records of `entities` (every entity when nil), entity by entity in ID order,
    /// each with its link lists, read in batches like a typed stream — one snapshot for all of them
    /// where the backend holds one. A batch holds records of one entity. What `strata copy` reads.
    public func streamRecords(_ entities: [String]? = nil, batchSize: Int = ModelStream<Record>.defaultBatchSize)
        -> ModelStream<(record: Record, links: [String: [RecordID]])>
    {
        ModelStream {
            let names = entities ?? self.schema.entities.map(\.name)
            for name in names { _ = try self.schema.requireEntity(name) }
            guard batchSize >= 1 else {
                throw StrataError(.invalidQuery, entity: names.first, "batch size \(batchSize) is below 1")
            }
            let (reads, close) = try await self.openReads()
            // The entity being read (an index into `names`) and the last ID read of it.
            let position = Mutex<(entity: Int, after: RecordID?)>((0, nil))
            return BatchSource(
                next: {
                    while true {
                        let (index, after) = position.withLock { $0 }
                        guard index < names.count else { return nil }
                        let page = try await reads.read { try $0.page(names[index], after: after, limit: batchSize) }
                        position.withLock {
                            $0 = page.count < batchSize ? (index + 1, nil) : (index, page.last?.record.id)
                        }
                        if !page.isEmpty { return page }
                    }
                }, close: close)
        }
    }

    /// The reads a stream shares: a snapshot's, or the store's own.
    func openReads() async throws -> (shared: StreamReads, close: @Sendable () -> Void) {
        let snapshot = try await backend.openSnapshot()
        return (StreamReads(store: self, snapshot: snapshot), { snapshot?.close() })
    }
}

/// Where a stream's batches are read: its snapshot, or the store.
struct StreamReads: Sendable {
    let store: Store
    let snapshot: (any StorageSnapshot)?

    func read<T: Sendable>(_ body: @escaping @Sendable (StoreReader) throws -> T) async throws -> T {
        guard let snapshot else { return try await store.read(body) }
        let executor = store.executor
        return try await snapshot.read { try body(StoreReader(transaction: $0, executor: executor)) }
    }
}

extension Repository {
    /// A query's results read `batchSize` at a time, one read per batch (one snapshot for all of
    /// them where the backend holds one): see ``ModelStream``.
    public func stream(_ query: Query<Model>, batchSize: Int) -> ModelStream<Model> {
        store.stream(query, batchSize: batchSize) { reader, batch in
            if batch.byOffset { return (try reader.fetch(batch.query), nil) }
            let page = try reader.fetch(batch.query, after: batch.cursor)
            return (page.models, page.next)
        }
    }

    /// A query's results in batches, each model with a to-many's destinations read in the same
    /// read as its batch (one query per batch, no N+1).
    public func stream<D: PersistentModel>(
        _ query: Query<Model>, batchSize: Int, including relationship: ToMany<Model, D>
    ) -> ModelStream<(model: Model, related: [D])> {
        store.stream(query, batchSize: batchSize) { reader, batch in
            let (models, next): ([Model], PageCursor?)
            if batch.byOffset {
                (models, next) = (try reader.fetch(batch.query), nil)
            } else {
                let page = try reader.fetch(batch.query, after: batch.cursor)
                (models, next) = (page.models, page.next)
            }
            let related = try reader.related(relationship, of: models.map(\.id))
            return (models.map { ($0, related[$0.id] ?? []) }, next)
        }
    }
}
